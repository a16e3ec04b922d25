#include "tools_test_util.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "ordo/sys/child_process.h"

namespace ordo::testing {

ProcessResult run_process(const std::vector<std::string>& argv) {
  Result<sys::ChildResult> child = sys::run_child(argv);
  ProcessResult result;
  if (!child.is_ok()) {
    result.exit_code = 127;
    result.err = child.status().to_string();
    return result;
  }
  result.exit_code = child->exit_code;
  result.signal = child->signal;
  result.out = std::move(child->out);
  result.err = std::move(child->err);
  return result;
}

std::string test_param_name(std::string name) {
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

}  // namespace ordo::testing
