#include "leader_contact.h"

#include <algorithm>

#include "ordo/assert.h"

namespace ordo::replica {

void LeaderContact::message_from(uint64_t peer, uint64_t now_ms) {
  Peer& p = peers_[peer];
  p.heard = true;
  p.last_message_ms = std::max(p.last_message_ms, now_ms);
  // A message read in the same millisecond as the close was sent before it
  // (the stream's order); one later comes over a new connection.
  if (p.closed && now_ms > p.closed_ms) p.closed = false;
}

void LeaderContact::closed_by(uint64_t peer, uint64_t now_ms) {
  Peer& p = peers_[peer];
  p.closed = true;
  p.closed_ms = now_ms;
}

bool LeaderContact::leader_gone(uint64_t leader, uint64_t now_ms,
                                uint64_t election_timeout_ms) const {
  auto it = peers_.find(leader);
  if (it == peers_.end() || !it->second.heard) return false;
  const Peer& p = it->second;
  if (p.closed) return true;
  return now_ms >= p.last_message_ms && now_ms - p.last_message_ms >= election_timeout_ms;
}

bool LeaderContact::campaign_due(uint64_t leader, uint64_t self,
                                 const std::vector<uint64_t>& voters, uint64_t now_ms,
                                 uint64_t step_ms) const {
  ORDO_ASSERT(leader != self);
  auto it = peers_.find(leader);
  if (it == peers_.end() || !it->second.heard || !it->second.closed) return false;
  uint64_t rank = 0;
  bool self_votes = false;
  for (uint64_t v : voters) {
    if (v == self) self_votes = true;
    if (v != leader && v < self) ++rank;
  }
  if (!self_votes) return false;
  const uint64_t since_ms = now_ms >= it->second.closed_ms ? now_ms - it->second.closed_ms : 0;
  return since_ms >= rank * step_ms;
}

}  // namespace ordo::replica
