// A follower's view of its leader beyond libraft's election timer, which
// decides two things libraft 0.15 decides late:
//
// - Whether to grant a vote while a leader is still known. libraft refuses
//   until the voter's own randomized timeout (T..2T) expired, so after a
//   leader's crash an election waits for the later of two followers'
//   timers. The rule of the Raft thesis (section 4.2.3) refuses only within
//   the minimum election timeout of hearing from the leader.
// - Whether the leader is gone before any timer says so: a leader process
//   that died closed its Raft connections, and the follower sees the close
//   at once. The followers then campaign one after another, in id order,
//   so that two of them do not split the vote.
//
// Times are the Raft I/O's milliseconds (raft_io time). Loop thread only.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ordo::replica {

class LeaderContact {
 public:
  // `peer` sent a message only a leader sends (AppendEntries,
  // InstallSnapshot, TimeoutNow).
  void message_from(uint64_t peer, uint64_t now_ms);
  // `peer`'s Raft connection to this replica closed.
  void closed_by(uint64_t peer, uint64_t now_ms);

  // True when a vote may be granted although `leader` is this replica's
  // leader: its connection closed after its last message, or its last
  // message is at least `election_timeout_ms` old. False for a leader
  // never heard from here (libraft's own rule then decides).
  bool leader_gone(uint64_t leader, uint64_t now_ms, uint64_t election_timeout_ms) const;

  // True when this replica (`self`) should start an election now: its
  // leader closed its connection after its last message, and each voter
  // ranked before `self` (the voters but the leader, in id order) had
  // `step_ms` to win first. `voters` need not be sorted.
  bool campaign_due(uint64_t leader, uint64_t self, const std::vector<uint64_t>& voters,
                    uint64_t now_ms, uint64_t step_ms) const;

 private:
  struct Peer {
    uint64_t last_message_ms = 0;
    uint64_t closed_ms = 0;
    bool heard = false;
    bool closed = false;  // closed since its last message
  };
  std::unordered_map<uint64_t, Peer> peers_;
};

}  // namespace ordo::replica
