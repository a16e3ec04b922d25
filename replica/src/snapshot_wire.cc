#include "snapshot_wire.h"

#include "codec.h"
#include "ordo/assert.h"

namespace ordo::replica {

bool is_copy_request(std::string_view line) { return line == kCopyRequest; }

std::string encode_copy_header(const CopyHeader& header) {
  ORDO_ASSERT(header.size_bytes != kNoCopy);  // Would read as a refusal.
  std::string out;
  codec::put_u64_be(out, header.size_bytes);
  codec::put_u64_be(out, header.xxh3);
  codec::put_u64_be(out, header.applied_index);
  return out;
}

std::string encode_no_copy() {
  std::string out;
  codec::put_u64_be(out, kNoCopy);
  return out;
}

Result<CopyHeader> decode_copy_header(std::string_view bytes) {
  if (bytes.size() < kNoCopyBytes) {
    return Status::invalid_argument("snapshot copy header: " + std::to_string(bytes.size()) +
                                    " bytes, fewer than " + std::to_string(kNoCopyBytes));
  }
  CopyHeader h;
  h.size_bytes = codec::load_u64_be(bytes.substr(0, 8));
  if (h.size_bytes == kNoCopy) {
    if (bytes.size() != kNoCopyBytes) {
      return Status::invalid_argument("snapshot copy header: bytes after the refusal");
    }
    return Status::not_found("the snapshot server made no copy");
  }
  if (bytes.size() != kCopyHeaderBytes) {
    return Status::invalid_argument("snapshot copy header: " + std::to_string(bytes.size()) +
                                    " bytes, not " + std::to_string(kCopyHeaderBytes));
  }
  h.xxh3 = codec::load_u64_be(bytes.substr(8, 8));
  h.applied_index = codec::load_u64_be(bytes.substr(16, 8));
  return h;
}

}  // namespace ordo::replica
