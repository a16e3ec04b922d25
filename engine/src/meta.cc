#include "meta.h"

#include <xxhash.h>

#include <cstring>

#include "ordo/assert.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"

namespace ordo::engine {

using btree::load_u32;
using btree::load_u64;
using btree::store_u32;
using btree::store_u64;

void encode_tree_root(const btree::TreeRoot& root, std::byte* out) {
  store_u64(out + kRootOffPage, root.root);
  store_u64(out + kRootOffChecksum, root.root_checksum);
  store_u64(out + kRootOffEntries, root.entries);
  store_u32(out + kRootOffDepth, root.depth);
  store_u32(out + kRootOffFlags, 0);
}

btree::TreeRoot decode_tree_root(const std::byte* in) {
  btree::TreeRoot r;
  r.root = load_u64(in + kRootOffPage);
  r.root_checksum = load_u64(in + kRootOffChecksum);
  r.entries = load_u64(in + kRootOffEntries);
  r.depth = load_u32(in + kRootOffDepth);
  return r;
}

void encode_meta(const Meta& m, std::byte* page, uint32_t version) {
  // A meta ordo writes passes decode_meta()'s range checks: these first.
  ORDO_ASSERT(btree::valid_page_size(m.page_size) && m.page_high_water >= kFirstDataPage);
  ORDO_ASSERT(m.page_high_water <= m.file_bytes / m.page_size && m.free_pages <= m.page_high_water);
  std::memset(page, 0, m.page_size);
  std::memcpy(page, kMagic, sizeof kMagic);
  ORDO_ASSERT(version == kFormatVersion || version == kV3FormatVersion);
  store_u32(page + kMetaOffVersion, version);
  store_u32(page + kMetaOffPageSize, m.page_size);
  store_u64(page + kMetaOffTxnId, m.txn_id);
  store_u64(page + kMetaOffHighWater, m.page_high_water);
  store_u64(page + kMetaOffFileBytes, m.file_bytes);
  encode_tree_root(m.default_tree, page + kMetaOffDefaultTree);
  encode_tree_root(m.catalog, page + kMetaOffCatalog);
  encode_tree_root(m.free_tree, page + kMetaOffFreeTree);
  std::memcpy(page + kMetaOffLastUuid, m.last_uuid.bytes.data(), 16);
  store_u64(page + kMetaOffLastId64, m.last_id64);
  store_u64(page + kMetaOffTreeCount, m.tree_count);
  store_u64(page + kMetaOffFreePages, m.free_pages);
  store_u64(page + kMetaOffFlags, m.flags);
  store_u64(page + kMetaOffLogFirstPage, m.log_first_page);
  store_u64(page + kMetaOffLogPages, m.log_pages);
  store_u64(page + kMetaOffLogEpoch, m.log_epoch);
  // Version 3 has no kept snapshots (zeros there).
  ORDO_ASSERT(version == kFormatVersion || m.kept.root == btree::kNullPage);
  encode_tree_root(m.kept, page + kMetaOffKeptTree);
  store_u64(page + kMetaChecksumOffset, XXH3_64bits(page, kMetaChecksumOffset));
}

namespace {

bool tree_root_sane(const btree::TreeRoot& r, uint64_t high_water) {
  if (r.root == btree::kNullPage) return r.depth == 0 && r.entries == 0;
  return r.root >= kFirstDataPage && r.root < high_water && r.depth >= 1 &&
         r.depth <= btree::kMaxDepth;
}

// The fields of a meta whose magic, checksum and version were verified, and
// their checks; a version 2 meta has no log fields (its checksum is there).
MetaProblem decode_fields(const std::byte* p, uint32_t version, Meta* m, std::string* text) {
  m->page_size = load_u32(p + kMetaOffPageSize);
  m->txn_id = load_u64(p + kMetaOffTxnId);
  if (!btree::valid_page_size(m->page_size)) {
    *text = "unsupported page size " + std::to_string(m->page_size);
    return MetaProblem::kBadPageSize;
  }
  m->page_high_water = load_u64(p + kMetaOffHighWater);
  m->file_bytes = load_u64(p + kMetaOffFileBytes);
  m->default_tree = decode_tree_root(p + kMetaOffDefaultTree);
  m->catalog = decode_tree_root(p + kMetaOffCatalog);
  m->free_tree = decode_tree_root(p + kMetaOffFreeTree);
  std::memcpy(m->last_uuid.bytes.data(), p + kMetaOffLastUuid, 16);
  m->last_id64 = load_u64(p + kMetaOffLastId64);
  m->tree_count = load_u64(p + kMetaOffTreeCount);
  m->free_pages = load_u64(p + kMetaOffFreePages);
  m->flags = load_u64(p + kMetaOffFlags);
  const bool v3 = version != kV2FormatVersion;  // the log fields came with version 3
  m->log_first_page = v3 ? load_u64(p + kMetaOffLogFirstPage) : 0;
  m->log_pages = v3 ? load_u64(p + kMetaOffLogPages) : 0;
  m->log_epoch = v3 ? load_u64(p + kMetaOffLogEpoch) : 0;
  // Kept snapshots came with version 4; older versions have zeros there.
  m->kept = version == kFormatVersion ? decode_tree_root(p + kMetaOffKeptTree) : btree::TreeRoot{};
  const char* bad = nullptr;
  if ((m->flags & ~(v3 ? kMetaKnownFlags : kMetaFlagOneSync)) != 0) {
    bad = "unknown flags";
  } else if (m->log_pages != 0 &&
             (m->log_first_page < kFirstDataPage || m->log_first_page > m->page_high_water ||
              m->log_pages > m->page_high_water - m->log_first_page)) {
    bad = "log area outside the pages in use";
  } else if (in_log_area(*m, m->default_tree.root) || in_log_area(*m, m->catalog.root) ||
             in_log_area(*m, m->free_tree.root) || in_log_area(*m, m->kept.root)) {
    bad = "a tree root inside the log area";
  } else if (m->page_high_water < kFirstDataPage) {
    bad = "page high-water below the first data page";
  } else if (m->page_high_water > m->file_bytes / m->page_size) {
    bad = "page high-water past the file length it records";
  } else if (!tree_root_sane(m->default_tree, m->page_high_water)) {
    bad = "default tree root page or depth out of range";
  } else if (!tree_root_sane(m->catalog, m->page_high_water)) {
    bad = "catalog root page or depth out of range";
  } else if (!tree_root_sane(m->free_tree, m->page_high_water)) {
    bad = "free tree root page or depth out of range";
  } else if (!tree_root_sane(m->kept, m->page_high_water)) {
    bad = "kept snapshots root page or depth out of range";
  } else if (m->free_pages > m->page_high_water) {
    bad = "free page count above the page high-water";
  }
  if (bad != nullptr) {
    *text = "meta fields out of range: txn " + std::to_string(m->txn_id) + ": " + bad +
            " (page high-water " + std::to_string(m->page_high_water) + ")";
    return MetaProblem::kBadFields;
  }
  text->clear();
  return MetaProblem::kNone;
}

uint32_t checksum_offset(uint32_t version) {
  // Ours, not the file's.
  ORDO_ASSERT(version == kV2FormatVersion || version == kV3FormatVersion ||
              version == kFormatVersion);
  return version == kV2FormatVersion ? kV2ChecksumOffset : kMetaChecksumOffset;
}

bool checksum_matches(const std::byte* p, uint32_t version) {
  const uint32_t at = checksum_offset(version);
  return load_u64(p + at) == XXH3_64bits(p, at);
}

// Decodes a meta of `version` (kFormatVersion, or kV2FormatVersion or
// kV3FormatVersion for the upgrade); a whole meta of another known version is
// kBadVersion, said in words.
MetaProblem decode_version(const std::byte* p, uint32_t version, Meta* m, std::string* text) {
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0) {
    *text = "no ordo magic";
    return MetaProblem::kNoMagic;
  }
  const bool current = version == kFormatVersion;
  const uint32_t found = load_u32(p + kMetaOffVersion);
  const bool known =
      found == kV2FormatVersion || found == kV3FormatVersion || found == kFormatVersion;
  if (found != version && known && checksum_matches(p, found)) {
    if (current) {
      *text = "format version " + std::to_string(found) + " (this build reads version " +
              std::to_string(kFormatVersion) + "; `ordo upgrade FILE` converts the file in place)";
    } else if (found > version) {
      *text = "format version " + std::to_string(found) + ": already upgraded";
    } else {
      *text = "format version " + std::to_string(found) + " (not version " +
              std::to_string(version) + ")";
    }
    m->txn_id = load_u64(p + kMetaOffTxnId);
    return MetaProblem::kBadVersion;
  }
  if (!checksum_matches(p, version)) {
    *text = "meta checksum mismatch";
    return MetaProblem::kBadChecksum;
  }
  if (found != version) {
    *text = "format version " + std::to_string(found) +
            (current ? " (this build reads version " + std::to_string(kFormatVersion) + ")"
                     : " (`ordo upgrade` converts versions 2 and 3)");
    return MetaProblem::kBadVersion;
  }
  return decode_fields(p, version, m, text);
}

}  // namespace

MetaProblem decode_meta(const std::byte* p, Meta* m, std::string* text) {
  return decode_version(p, kFormatVersion, m, text);
}

MetaProblem decode_v2_meta(const std::byte* p, Meta* m, std::string* text) {
  return decode_version(p, kV2FormatVersion, m, text);
}

MetaProblem decode_v3_meta(const std::byte* p, Meta* m, std::string* text) {
  return decode_version(p, kV3FormatVersion, m, text);
}

bool is_inconsistent(MetaProblem problem) {
  return problem == MetaProblem::kBadPageSize || problem == MetaProblem::kBadFields ||
         problem == MetaProblem::kBeyondFile;
}

MetaProblem check_meta_in_file(const Meta& m, int slot, uint64_t file_bytes, std::string* text,
                               uint32_t version) {
  // Only a meta decode_meta() (or decode_v2_meta()) accepted, found in slot 0 or 1.
  ORDO_ASSERT((slot == 0 || slot == 1) && btree::valid_page_size(m.page_size));
  if (version == kV2FormatVersion) {
    if (static_cast<int>(m.txn_id % 2) != slot) {
      *text = "txn " + std::to_string(m.txn_id) + " found in meta slot " + std::to_string(slot) +
              ", which holds only " + (slot == 0 ? "even" : "odd") + " txn ids in version 2";
      return MetaProblem::kBadFields;
    }
  } else if (slot_of_epoch(m.log_epoch) != slot || (m.flags & kMetaFlagLogged) != 0) {
    *text = "txn " + std::to_string(m.txn_id) + " (log epoch " + std::to_string(m.log_epoch) +
            ") found in meta slot " + std::to_string(slot) + ", which holds only " +
            (slot == 0 ? "even" : "odd") + " epochs of checkpoint metas";
    return MetaProblem::kBadFields;
  }
  // Divides rather than multiplies: an absurd high-water must not overflow.
  if (m.page_high_water > file_bytes / m.page_size) {
    *text = "txn " + std::to_string(m.txn_id) + " has page high-water " +
            std::to_string(m.page_high_water) + " but the file holds " +
            std::to_string(file_bytes / m.page_size) + " pages (" + std::to_string(file_bytes) +
            " bytes): " +
            ((m.flags & kMetaFlagOneSync) != 0
                 ? "the one-sync commit was not durable (its growth of the file was lost), or the "
                   "file is truncated"
                 : "the file is truncated or the meta is wrong");
    return MetaProblem::kBeyondFile;
  }
  return MetaProblem::kNone;
}

}  // namespace ordo::engine
