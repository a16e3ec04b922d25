// The ports of one ordo node, all on the same IPv4 address: clients on P,
// Raft on P + 1, snapshot copies on P + 2. A replica alone (ordo/replica.h)
// uses the last two: Raft on R, snapshot copies on R + 1. The one statement
// of that rule: ordo-node, the replica, LocalCluster and the tests read it
// here.
#pragma once

namespace ordo::sys {

// Raft port = client port + kRaftPortOffset.
inline constexpr int kRaftPortOffset = 1;
// Snapshot port = client port + kSnapshotPortOffset.
inline constexpr int kSnapshotPortOffset = 2;
// Snapshot port = Raft port + kSnapshotAfterRaft.
inline constexpr int kSnapshotAfterRaft = kSnapshotPortOffset - kRaftPortOffset;
// Consecutive ports an ordo node listens on (P..P+2), and a replica alone (R..R+1).
inline constexpr int kNodePortCount = kSnapshotPortOffset + 1;
inline constexpr int kReplicaPortCount = kSnapshotAfterRaft + 1;

}  // namespace ordo::sys
