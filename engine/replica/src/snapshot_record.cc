#include "snapshot_record.h"

#include <cstdio>

#include "codec.h"

namespace ordo::replica {

namespace {
constexpr std::string_view kMagic = "ORDOSNAP";
constexpr uint32_t kVersion = 1;
constexpr std::string_view kPrefix = "copy-";
constexpr std::string_view kSuffix = ".ordo";
constexpr size_t kDigits = 20;
}  // namespace

std::string copy_name_for(uint64_t applied_index) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(applied_index));
  return std::string(kPrefix) + digits + std::string(kSuffix);
}

bool is_copy_name(std::string_view name) {
  if (name.size() != kPrefix.size() + kDigits + kSuffix.size()) return false;
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  if (name.substr(kPrefix.size() + kDigits) != kSuffix) return false;
  for (char c : name.substr(kPrefix.size(), kDigits)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string SnapshotRecord::encode() const {
  std::string out(kMagic);
  codec::put_u32_be(out, kVersion);
  codec::put_u64_be(out, applied_index);
  codec::put_u64_be(out, size_bytes);
  codec::put_u64_be(out, xxh3);
  codec::put_u32_be(out, static_cast<uint32_t>(copy_name.size()));
  out += copy_name;
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
  if (version != kVersion) {
    return Status::invalid_argument("snapshot record: unknown version " + std::to_string(version));
  }
  SnapshotRecord r;
  uint32_t name_len = 0;
  if (!in.get_u64_be(r.applied_index) || !in.get_u64_be(r.size_bytes) || !in.get_u64_be(r.xxh3) ||
      !in.get_u32_be(name_len) || !in.get_bytes(name_len, r.copy_name)) {
    return Status::invalid_argument("snapshot record: truncated");
  }
  if (!in.done()) return Status::invalid_argument("snapshot record: trailing bytes");
  if (!is_copy_name(r.copy_name)) {
    return Status::invalid_argument("snapshot record: bad copy name \"" + r.copy_name + "\"");
  }
  return r;
}

}  // namespace ordo::replica
