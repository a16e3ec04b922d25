// The Raft snapshot's payload: a small record of the applied index the ordo
// file held, durably, when the snapshot was taken. It names no copy: a
// follower that needs the state fetches a fresh copy of the leader's live
// database (snapshot_server.h).
#pragma once

#include <cstdint>
#include <string>

#include "cluster_identity.h"
#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::replica {

struct SnapshotRecord {
  // The ordo file's applied index when the snapshot was taken (<= the Raft
  // snapshot's index: entries after it are barriers or configuration
  // changes, or were applied while the snapshot was taken).
  uint64_t applied_index = 0;
  // The cluster the record was taken in (unknown in a version 2 record).
  ClusterId cluster_id;

  // magic "ORDOSNAP", version u32 (3), applied index u64, cluster id (16
  // bytes); big-endian.
  std::string encode() const;
  // InvalidArgument for bytes encode() did not make (wrong magic or version,
  // truncated, trailing bytes). Reads version 2 records (no cluster id) too.
  static Result<SnapshotRecord> decode(ByteView bytes);
};

}  // namespace ordo::replica
