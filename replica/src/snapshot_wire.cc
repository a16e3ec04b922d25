#include "snapshot_wire.h"

#include <cstring>

#include "codec.h"
#include "ordo/assert.h"

namespace ordo::replica {
namespace {

void put_id(std::string& out, const ClusterId& id) {
  out.append(reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size());
}

ClusterId load_id(std::string_view bytes) {
  ClusterId id;
  ORDO_ASSERT(bytes.size() == id.bytes.size());
  std::memcpy(id.bytes.data(), bytes.data(), id.bytes.size());
  return id;
}

}  // namespace

std::string encode_copy_request(const ClusterId& cluster) {
  return std::string(kCopyRequest) + " " + cluster.hex();
}

Result<ClusterId> parse_copy_request(std::string_view line) {
  const size_t prefix = kCopyRequest.size() + 1;
  if (line.size() <= prefix || line.substr(0, kCopyRequest.size()) != kCopyRequest ||
      line[kCopyRequest.size()] != ' ') {
    return Status::invalid_argument("not a copy request");
  }
  const std::string_view hex = line.substr(prefix);
  // A replica that has no id yet asks with 32 zeros, which parse_cluster_id refuses.
  if (hex == ClusterId().hex()) return ClusterId();
  return parse_cluster_id(hex);
}

std::string encode_copy_header(const CopyHeader& header) {
  // Either would read as a refusal.
  ORDO_ASSERT(header.size_bytes != kNoCopy && header.size_bytes != kWrongCluster);
  std::string out;
  codec::put_u64_be(out, header.size_bytes);
  codec::put_u64_be(out, header.xxh3);
  codec::put_u64_be(out, header.applied_index);
  put_id(out, header.cluster_id);
  ORDO_DCHECK(out.size() == kCopyHeaderBytes);
  return out;
}

std::string encode_no_copy() {
  std::string out;
  codec::put_u64_be(out, kNoCopy);
  return out;
}

std::string encode_wrong_cluster(const ClusterId& own) {
  std::string out;
  codec::put_u64_be(out, kWrongCluster);
  put_id(out, own);
  return out;
}

size_t copy_header_bytes(std::string_view first_field) {
  ORDO_ASSERT(first_field.size() == kFirstFieldBytes);
  const uint64_t first = codec::load_u64_be(first_field);
  if (first == kNoCopy) return kFirstFieldBytes;
  if (first == kWrongCluster) return kWrongClusterBytes;
  return kCopyHeaderBytes;
}

Result<CopyHeader> decode_copy_header(std::string_view bytes) {
  if (bytes.size() < kFirstFieldBytes) {
    return Status::invalid_argument("snapshot copy header: " + std::to_string(bytes.size()) +
                                    " bytes, fewer than " + std::to_string(kFirstFieldBytes));
  }
  const size_t want = copy_header_bytes(bytes.substr(0, kFirstFieldBytes));
  if (bytes.size() != want) {
    return Status::invalid_argument("snapshot copy header: " + std::to_string(bytes.size()) +
                                    " bytes, not " + std::to_string(want));
  }
  CopyHeader h;
  h.size_bytes = codec::load_u64_be(bytes.substr(0, 8));
  if (h.size_bytes == kNoCopy) return Status::not_found("the snapshot server made no copy");
  if (h.size_bytes == kWrongCluster) {
    return Status::invalid_argument("wrong cluster: the snapshot server is cluster " +
                                    load_id(bytes.substr(8, 16)).hex());
  }
  h.xxh3 = codec::load_u64_be(bytes.substr(8, 8));
  h.applied_index = codec::load_u64_be(bytes.substr(16, 8));
  h.cluster_id = load_id(bytes.substr(24, 16));
  return h;
}

}  // namespace ordo::replica
