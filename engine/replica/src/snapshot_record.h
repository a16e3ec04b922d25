// The Raft snapshot's payload: a small record naming a copy of the ordo
// file in dir/copies, not the copy itself.
#pragma once

#include <cstdint>
#include <string>

#include "ordo/byte_view.h"
#include "ordo/status.h"

namespace ordo::replica {

struct SnapshotRecord {
  uint64_t applied_index = 0;  // the applied index recorded in the copy
  std::string copy_name;       // file name in dir/copies (copy_name_for)
  uint64_t size_bytes = 0;     // the copy's length
  uint64_t xxh3 = 0;           // XXH3-64 of the copy's bytes

  // magic "ORDOSNAP", version u32, applied index u64, size u64, xxh3 u64,
  // name length u32 and name; integers big-endian.
  std::string encode() const;
  // InvalidArgument for bytes encode() did not make (wrong magic or version,
  // truncated, trailing bytes, a name that is_copy_name rejects).
  static Result<SnapshotRecord> decode(ByteView bytes);
};

// "copy-<applied index, 20 digits>.ordo": the only names the snapshot
// server serves and the fetcher writes.
std::string copy_name_for(uint64_t applied_index);
bool is_copy_name(std::string_view name);

}  // namespace ordo::replica
