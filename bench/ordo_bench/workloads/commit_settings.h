// How a run's commits are made durable, for the option parser and the
// reports: the engine's commit protocol and Options::sync_commits.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ordo/options.h"

namespace ordo::bench {

struct CommitSettings {
  bool sync = true;  // Options::sync_commits; false: --no-sync
  CommitProtocol protocol = Options{}.commit_protocol;

  // The fdatasyncs one commit should make: 0 without sync, else 1 (one-sync)
  // or 2 (two-sync).
  uint64_t expected_syncs_per_commit() const;
  // Applies both to `options`.
  void apply(Options& options) const;
};

// "one-sync" or "two-sync".
std::string_view protocol_name(CommitProtocol protocol);
// The protocol named `name`, if any.
std::optional<CommitProtocol> parse_protocol(std::string_view name);

}  // namespace ordo::bench
