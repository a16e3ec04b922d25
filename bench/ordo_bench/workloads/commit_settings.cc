#include "commit_settings.h"

namespace ordo::bench {

uint64_t CommitSettings::expected_syncs_per_commit() const {
  if (!sync) return 0;
  // A logged commit syncs its record; the checkpoints between them add two
  // syncs each (counted apart by the workloads' figures).
  return protocol == CommitProtocol::kTwoSync ? 2 : 1;
}

void CommitSettings::apply(Options& options) const {
  options.sync_commits = sync;
  options.commit_protocol = protocol;
}

std::string_view protocol_name(CommitProtocol protocol) {
  switch (protocol) {
    case CommitProtocol::kOneSync:
      return "one-sync";
    case CommitProtocol::kTwoSync:
      return "two-sync";
    case CommitProtocol::kLog:
      break;
  }
  return "log";
}

std::optional<CommitProtocol> parse_protocol(std::string_view name) {
  if (name == "one-sync") return CommitProtocol::kOneSync;
  if (name == "two-sync") return CommitProtocol::kTwoSync;
  if (name == "log") return CommitProtocol::kLog;
  return std::nullopt;
}

}  // namespace ordo::bench
