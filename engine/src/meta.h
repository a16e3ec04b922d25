// The meta page: the root of everything on disk. Pages 0 and 1 hold the two
// meta slots, each the state of one checkpoint; checkpoint number E (the log
// epoch) writes slot E mod 2, and open trusts the valid one with the highest
// txn id, then replays the log records written after it. A log record carries
// the meta of its txn in the same encoding (flag kMetaFlagLogged).
// Layout (little-endian, offsets in bytes):
//     0   8 magic 89 'O' 'R' 'D' 'O' 0d 0a 1a
//     8   4 format version (4)
//    12   4 page size in bytes
//    16   8 txn id
//    24   8 page high-water mark: the next never-used page number
//    32   8 file length in bytes allocated at this commit
//    40  32 default tree root   (TreeRoot encoding below)
//    72  32 catalog tree root
//   104  32 free tree root
//   136  16 ID high-water mark: last UUIDv7 issued
//   152   8 ID high-water mark: last 64-bit ID issued
//   160   8 named tree count
//   168   8 free page count (pages recorded in the free tree)
//   176   8 flags: bit 0 = written by a one-sync commit; bit 1 = carried in a log record
//   184   8 first page of the log area
//   192   8 pages in the log area (0: no log; every commit is a checkpoint)
//   200   8 log epoch: the number of the checkpoint this meta belongs to
//   208  32 kept snapshots tree root (zeros: none; a version 3 file has zeros)
//   240   8 zero
//   248   8 XXH3-64 of bytes 0..247
// The rest of the page is zero.
// TreeRoot encoding (32 bytes): root page u64, root checksum u64, entries
// u64, depth u32, flags u32 (0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ordo/btree/tree.h"
#include "ordo/status.h"
#include "ordo/uuid.h"

namespace ordo::engine {

inline constexpr uint8_t kMagic[8] = {0x89, 'O', 'R', 'D', 'O', 0x0d, 0x0a, 0x1a};
inline constexpr uint32_t kFormatVersion = 4;
// Version 3: this meta layout, branch cells without entry counts; read only
// by the upgrade (upgrade_v4.cc).
inline constexpr uint32_t kV3FormatVersion = 3;
inline constexpr uint32_t kMetaBytes = 256;
inline constexpr uint32_t kTreeRootBytes = 32;

// Meta field offsets in bytes; docs/FORMAT.md has the same table.
inline constexpr uint32_t kMetaOffMagic = 0;
inline constexpr uint32_t kMetaOffVersion = 8;
inline constexpr uint32_t kMetaOffPageSize = 12;
inline constexpr uint32_t kMetaOffTxnId = 16;
inline constexpr uint32_t kMetaOffHighWater = 24;
inline constexpr uint32_t kMetaOffFileBytes = 32;
inline constexpr uint32_t kMetaOffDefaultTree = 40;
inline constexpr uint32_t kMetaOffCatalog = 72;
inline constexpr uint32_t kMetaOffFreeTree = 104;
inline constexpr uint32_t kMetaOffLastUuid = 136;
inline constexpr uint32_t kMetaOffLastId64 = 152;
inline constexpr uint32_t kMetaOffTreeCount = 160;
inline constexpr uint32_t kMetaOffFreePages = 168;
inline constexpr uint32_t kMetaOffFlags = 176;
inline constexpr uint32_t kMetaOffLogFirstPage = 184;
inline constexpr uint32_t kMetaOffLogPages = 192;
inline constexpr uint32_t kMetaOffLogEpoch = 200;
// The tree of kept snapshots (kept_snapshots.h); zeros in a file that never kept one.
inline constexpr uint32_t kMetaOffKeptTree = 208;
// Meta flag: written by a one-sync commit, so open must verify that txn's pages.
inline constexpr uint64_t kMetaFlagOneSync = 1;
// Meta flag: the meta of a txn carried in its log record (never in a meta slot).
inline constexpr uint64_t kMetaFlagLogged = 2;
inline constexpr uint64_t kMetaKnownFlags = kMetaFlagOneSync | kMetaFlagLogged;
inline constexpr uint32_t kMetaChecksumOffset = 248;
// Version 2's meta (192 bytes: the fields at offsets 0..183 above, then its
// checksum at 184 over bytes 0..183; no log area, no log epoch, flag bit 0
// only), recognized to name the upgrade and read by it.
inline constexpr uint32_t kV2FormatVersion = 2;
inline constexpr uint32_t kV2ChecksumOffset = 184;
static_assert(kMetaChecksumOffset + 8 == kMetaBytes);

// Tree root encoding offsets (32 bytes).
inline constexpr uint32_t kRootOffPage = 0;
inline constexpr uint32_t kRootOffChecksum = 8;
inline constexpr uint32_t kRootOffEntries = 16;
inline constexpr uint32_t kRootOffDepth = 24;
inline constexpr uint32_t kRootOffFlags = 28;
static_assert(kMetaOffCatalog == kMetaOffDefaultTree + kTreeRootBytes);
static_assert(kMetaOffFreeTree == kMetaOffCatalog + kTreeRootBytes);
static_assert(kMetaOffLastUuid == kMetaOffFreeTree + kTreeRootBytes);
using btree::kFirstDataPage;

struct Meta {
  uint32_t page_size = 0;
  uint64_t txn_id = 0;
  uint64_t page_high_water = kFirstDataPage;
  uint64_t file_bytes = 0;
  btree::TreeRoot default_tree;
  btree::TreeRoot catalog;
  btree::TreeRoot free_tree;
  Uuid last_uuid;
  uint64_t last_id64 = 0;
  uint64_t tree_count = 0;
  uint64_t free_pages = 0;
  uint64_t flags = 0;  // kMetaFlag*
  uint64_t log_first_page = 0;
  uint64_t log_pages = 0;
  uint64_t log_epoch = 0;
  btree::TreeRoot kept;  // kept snapshots (kept_snapshots.h)
  // Not encoded: true for the state of a kept snapshot (decode_kept), whose
  // log fields are those of the commit that keeps it, not its own: no log
  // record or checkpoint describes it.
  bool from_kept_record = false;
};

// The meta slot (0 or 1) that a checkpoint meta of `log_epoch` lives in.
inline int slot_of_epoch(uint64_t log_epoch) { return static_cast<int>(log_epoch % 2); }

// The log area of `meta` in bytes, and whether page `pg` lies in it.
inline uint64_t log_area_bytes(const Meta& meta) { return meta.log_pages * meta.page_size; }
inline bool in_log_area(const Meta& meta, uint64_t pg) {
  return pg >= meta.log_first_page && pg < meta.log_first_page + meta.log_pages;
}

void encode_tree_root(const btree::TreeRoot& root, std::byte* out);
btree::TreeRoot decode_tree_root(const std::byte* in);

// Writes the meta into a zeroed page of meta.page_size bytes. `version`
// kV3FormatVersion only for the upgrade's intermediate step.
void encode_meta(const Meta& meta, std::byte* page, uint32_t version = kFormatVersion);

enum class MetaProblem {
  kNone,
  kNoMagic,      // not an ordo meta at all
  kBadVersion,   // ordo, but a format version this build does not read
  kBadChecksum,  // torn or damaged
  kBadPageSize,  // page size field not a supported power of two
  kBadFields,    // fields inconsistent with each other or with the slot
  kBeyondFile,   // needs pages past the end of the file
  kInFlight,     // its commit is not settled yet (its writer holds the commit lock)
};

// True for the problems of a meta whose checksum matches but whose fields
// cannot be right (kBadPageSize, kBadFields, kBeyondFile): written whole, yet
// not a commit open can use.
bool is_inconsistent(MetaProblem problem);

// Decodes and verifies the meta in `bytes` (at least kMetaBytes).
// `problem` tells why it is not valid; `text` says it in words. The txn id is
// decoded for every problem after the checksum (kBadVersion excepted).
MetaProblem decode_meta(const std::byte* bytes, Meta* meta, std::string* text);

// As decode_meta(), for a version 2 meta (kV2ChecksumOffset): the log fields
// are 0. A version 3 meta is kBadVersion ("format version 3: already
// upgraded"). Only `ordo upgrade` (Database::upgrade) reads version 2.
MetaProblem decode_v2_meta(const std::byte* bytes, Meta* meta, std::string* text);
// As decode_meta(), for a version 3 meta (the same layout). Only the upgrade
// reads version 3.
MetaProblem decode_v3_meta(const std::byte* bytes, Meta* meta, std::string* text);

// Checks a meta that decode_meta() accepted against where it was found: meta
// slot `slot` (0 or 1) only ever holds checkpoints of its epoch parity (with
// `version` kV2FormatVersion, a meta decode_v2_meta() accepted: txn ids of
// its parity), and a file of
// `file_bytes` must hold its pages up to the high-water mark (a one-sync
// commit's file growth becomes durable with its one sync, so after a crash
// its meta may outlive the growth). Returns kNone, kBadFields or kBeyondFile;
// `text` says why.
MetaProblem check_meta_in_file(const Meta& meta, int slot, uint64_t file_bytes, std::string* text,
                               uint32_t version = kFormatVersion);

}  // namespace ordo::engine
