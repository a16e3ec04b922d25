// Runs the ordo-node command-line client (ORDO_NODE_BINARY) as a process, for
// the node tests.
#pragma once

#include <string>
#include <utility>

#include "ordo/sys/child_process.h"

namespace ordo::node {

struct CliRun {
  int code = -1;  // the exit code; -1 when a signal ended it or it did not start
  std::string out;
  std::string err;
};

// Runs `ordo-node ARGS` through sh (ARGS may hold quotes and redirections),
// with stdin from `input_file`.
inline CliRun run_node_cli(const std::string& args, const std::string& input_file = "/dev/null") {
  CliRun r;
  Result<sys::ChildResult> ran =
      sys::run_child({"/bin/sh", "-c", std::string(ORDO_NODE_BINARY) + " " + args}, input_file);
  if (!ran.is_ok()) {
    r.err = ran.status().to_string();
    return r;
  }
  r.code = ran->signal == 0 ? ran->exit_code : -1;
  r.out = std::move(ran->out);
  r.err = std::move(ran->err);
  return r;
}

}  // namespace ordo::node
