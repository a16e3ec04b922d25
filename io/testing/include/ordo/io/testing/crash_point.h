// CrashPoint: one state a crash can leave a file in, as FaultLog::image() builds it.
//
// Tests only. A crash point names how many recorded ops were issued before the crash
// (after_ops) and, of the writes issued since the last completed sync (the "pending"
// writes, in issue order), which ones reached the disk (the variant).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ordo::io::testing {

// Bytes of one sector: the unit a torn write keeps or loses (FORMAT.md assumes a write
// may be torn at any sector boundary).
inline constexpr uint64_t kSectorBytes = 512;

// Which of the pending writes landed. Indexes count pending writes from 0, in issue
// order. A value type; build it with the static functions.
struct CrashVariant {
  enum class Kind : uint8_t {
    kPrefix,   // pending writes [0, index) landed, the rest were lost
    kDropOne,  // every pending write except write `index` landed (a reorder)
    kTorn,     // writes [0, index) landed, write `index` landed only in some sectors
    // Any subset landed: write k when writes_landed[k] (false past its end); and
    // write `index`, when index < writes_landed.size(), only in bytes
    // [torn_from_bytes, torn_to_bytes) of it (a tear at any byte, not only at
    // sector boundaries).
    kSubset,
  };

  Kind kind = Kind::kPrefix;
  size_t index = 0;
  // kTorn only: element k is true when the k-th sector of the torn write landed. Sectors
  // are the 512-byte-aligned file sectors the write's range touches, in file order (the
  // first and last may be partial for an unaligned write); sectors past the end of this
  // vector did not land.
  std::vector<bool> sectors_landed;
  // kSubset only (see Kind::kSubset).
  std::vector<bool> writes_landed;
  uint64_t torn_from_bytes = 0;
  uint64_t torn_to_bytes = 0;

  static CrashVariant prefix(size_t landed_writes);
  static CrashVariant drop_one(size_t dropped_write);
  static CrashVariant torn(size_t torn_write, std::vector<bool> sectors_landed);
  // Bit k of `sector_mask` set: sector k landed. Sectors 64 and up did not.
  static CrashVariant torn(size_t torn_write, uint64_t sector_mask);
  // The pending writes `writes_landed` marks landed, none torn.
  static CrashVariant subset(std::vector<bool> writes_landed);
  // The same, with write `torn_write` landed only in bytes [from_bytes, to_bytes) of it
  // (its landed flag is ignored; the flags are extended with false to cover it).
  static CrashVariant subset_torn(std::vector<bool> writes_landed, size_t torn_write,
                                  uint64_t from_bytes, uint64_t to_bytes);

  // "prefix(2)", "drop_one(0)", "torn(1, 11110000)", "subset(1011)",
  // "subset(1011, torn 2 [100, 4000))".
  std::string to_string() const;

  friend bool operator==(const CrashVariant&, const CrashVariant&) = default;
};

struct CrashPoint {
  // Ops [0, after_ops) of the log were issued before the crash (0: none).
  size_t after_ops = 0;
  CrashVariant variant;

  // "after 17 ops: prefix(2)", for failure messages.
  std::string to_string() const;

  friend bool operator==(const CrashPoint&, const CrashPoint&) = default;
};

// Sector masks crash_points() tears the last pending write with, for a write touching
// `sectors` sectors: the first floor(sectors / 2) sectors, and every other sector
// starting with the first.
std::vector<bool> first_half_sectors(size_t sectors);
std::vector<bool> alternate_sectors(size_t sectors);

// Number of 512-byte file sectors [offset_bytes, offset_bytes + size_bytes) touches.
size_t sectors_touched(uint64_t offset_bytes, uint64_t size_bytes);

}  // namespace ordo::io::testing
