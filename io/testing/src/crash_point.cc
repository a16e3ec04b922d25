#include "ordo/io/testing/crash_point.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace ordo::io::testing {

CrashVariant CrashVariant::prefix(size_t landed_writes) {
  CrashVariant v;
  v.kind = Kind::kPrefix;
  v.index = landed_writes;
  return v;
}

CrashVariant CrashVariant::drop_one(size_t dropped_write) {
  CrashVariant v;
  v.kind = Kind::kDropOne;
  v.index = dropped_write;
  return v;
}

CrashVariant CrashVariant::torn(size_t torn_write, std::vector<bool> sectors_landed) {
  CrashVariant v;
  v.kind = Kind::kTorn;
  v.index = torn_write;
  v.sectors_landed = std::move(sectors_landed);
  return v;
}

CrashVariant CrashVariant::torn(size_t torn_write, uint64_t sector_mask) {
  std::vector<bool> landed;
  for (int k = 0; k < 64 && (sector_mask >> k) != 0; ++k) {
    landed.push_back(((sector_mask >> k) & 1) != 0);
  }
  return torn(torn_write, std::move(landed));
}

CrashVariant CrashVariant::subset(std::vector<bool> writes_landed) {
  CrashVariant v;
  v.kind = Kind::kSubset;
  v.index = SIZE_MAX;
  v.writes_landed = std::move(writes_landed);
  return v;
}

CrashVariant CrashVariant::subset_torn(std::vector<bool> writes_landed, size_t torn_write,
                                       uint64_t from_bytes, uint64_t to_bytes) {
  if (writes_landed.size() <= torn_write) writes_landed.resize(torn_write + 1, false);
  CrashVariant v = subset(std::move(writes_landed));
  v.index = torn_write;
  v.torn_from_bytes = from_bytes;
  v.torn_to_bytes = to_bytes;
  return v;
}

std::string CrashVariant::to_string() const {
  switch (kind) {
    case Kind::kPrefix:
      return "prefix(" + std::to_string(index) + ")";
    case Kind::kDropOne:
      return "drop_one(" + std::to_string(index) + ")";
    case Kind::kTorn: {
      std::string bits;
      for (bool landed : sectors_landed) bits += landed ? '1' : '0';
      return "torn(" + std::to_string(index) + ", " + bits + ")";
    }
    case Kind::kSubset: {
      std::string bits;
      for (bool landed : writes_landed) bits += landed ? '1' : '0';
      if (index >= writes_landed.size()) return "subset(" + bits + ")";
      return "subset(" + bits + ", torn " + std::to_string(index) + " [" +
             std::to_string(torn_from_bytes) + ", " + std::to_string(torn_to_bytes) + "))";
    }
  }
  return "?";
}

std::string CrashPoint::to_string() const {
  return "after " + std::to_string(after_ops) + " ops: " + variant.to_string();
}

std::vector<bool> first_half_sectors(size_t sectors) {
  std::vector<bool> mask(sectors, false);
  std::fill(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(sectors / 2), true);
  return mask;
}

std::vector<bool> alternate_sectors(size_t sectors) {
  std::vector<bool> mask(sectors, false);
  for (size_t k = 0; k < sectors; k += 2) mask[k] = true;
  return mask;
}

size_t sectors_touched(uint64_t offset_bytes, uint64_t size_bytes) {
  if (size_bytes == 0) return 0;
  const uint64_t first = offset_bytes / kSectorBytes;
  const uint64_t last = (offset_bytes + size_bytes - 1) / kSectorBytes;
  return static_cast<size_t>(last - first + 1);
}

}  // namespace ordo::io::testing
