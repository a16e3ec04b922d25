#include "snapshot_record.h"

#include <algorithm>

#include "codec.h"
#include "ordo/assert.h"

namespace ordo::replica {

namespace {
constexpr std::string_view kMagic = "ORDOSNAP";
// Version 1 named a copy kept in dir/copies; version 2 holds the index only;
// version 3 adds the cluster id.
constexpr uint32_t kVersion = 3;
constexpr uint32_t kVersionWithoutCluster = 2;
constexpr size_t kClusterIdBytes = 16;
}  // namespace

std::string SnapshotRecord::encode() const {
  std::string out(kMagic);
  codec::put_u32_be(out, kVersion);
  codec::put_u64_be(out, applied_index);
  out.append(reinterpret_cast<const char*>(cluster_id.bytes.data()), kClusterIdBytes);
  ORDO_ASSERT(out.size() == kMagic.size() + 4 + 8 + kClusterIdBytes);  // What decode() reads.
  return out;
}

Result<SnapshotRecord> SnapshotRecord::decode(ByteView bytes) {
  codec::Reader in(bytes.view());
  std::string magic;
  if (!in.get_bytes(kMagic.size(), magic) || magic != kMagic) {
    return Status::invalid_argument("snapshot record: no ORDOSNAP magic");
  }
  uint32_t version = 0;
  if (!in.get_u32_be(version)) return Status::invalid_argument("snapshot record: truncated");
  if (version != kVersion && version != kVersionWithoutCluster) {
    return Status::invalid_argument("snapshot record: unknown version " + std::to_string(version));
  }
  SnapshotRecord r;
  if (!in.get_u64_be(r.applied_index))
    return Status::invalid_argument("snapshot record: truncated");
  if (version == kVersion) {
    std::string id;
    if (!in.get_bytes(kClusterIdBytes, id)) {
      return Status::invalid_argument("snapshot record: truncated");
    }
    std::copy(id.begin(), id.end(), r.cluster_id.bytes.begin());
  }
  if (!in.done()) return Status::invalid_argument("snapshot record: trailing bytes");
  // Read whole, nothing left.
  ORDO_ASSERT(bytes.size() == kMagic.size() + 4 + 8 + (version == kVersion ? kClusterIdBytes : 0));
  return r;
}

}  // namespace ordo::replica
