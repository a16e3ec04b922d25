#include "ordo/io/testing/crash_point.h"

#include <algorithm>
#include <string>
#include <utility>

namespace ordo::io::testing {

CrashVariant CrashVariant::prefix(size_t landed_writes) {
  return CrashVariant{Kind::kPrefix, landed_writes, {}};
}

CrashVariant CrashVariant::drop_one(size_t dropped_write) {
  return CrashVariant{Kind::kDropOne, dropped_write, {}};
}

CrashVariant CrashVariant::torn(size_t torn_write, std::vector<bool> sectors_landed) {
  return CrashVariant{Kind::kTorn, torn_write, std::move(sectors_landed)};
}

CrashVariant CrashVariant::torn(size_t torn_write, uint64_t sector_mask) {
  std::vector<bool> landed;
  for (int k = 0; k < 64 && (sector_mask >> k) != 0; ++k) {
    landed.push_back(((sector_mask >> k) & 1) != 0);
  }
  return torn(torn_write, std::move(landed));
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
