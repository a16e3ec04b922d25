#include "commit_settings.h"

namespace ordo::bench {

uint64_t CommitSettings::expected_syncs_per_commit() const {
  if (!sync) return 0;
  return protocol == CommitProtocol::kOneSync ? 1 : 2;
}

void CommitSettings::apply(Options& options) const {
  options.sync_commits = sync;
  options.commit_protocol = protocol;
}

std::string_view protocol_name(CommitProtocol protocol) {
  return protocol == CommitProtocol::kOneSync ? "one-sync" : "two-sync";
}

std::optional<CommitProtocol> parse_protocol(std::string_view name) {
  if (name == "one-sync") return CommitProtocol::kOneSync;
  if (name == "two-sync") return CommitProtocol::kTwoSync;
  return std::nullopt;
}

}  // namespace ordo::bench
