// Database::upgrade: converts a version 2 file to version 3, and a version 3
// file to version 4, in place (docs/FORMAT.md, "Version history"); a version
// 2 file goes through both in one call.
//
// Version 2 to 3: tree, free-tree and overflow pages are the same in both
// versions, so only the metas change and a log area is added. Crash safety,
// step by step (every write goes through the page cache; what
// reaches the disk before a crash is only what a sync made durable, plus any
// part of later writes):
// 1. The file grows and the log area is written with zeros, then synced. Only
//    pages at or past the kept meta's high-water mark change: no valid
//    version 2 meta reaches them (high-water marks only grow), but a newer
//    one-sync meta whose pages did not verify, which stays unverifiable when
//    they turn to zeros. The file is still a version 2 file with the same
//    newest commit: upgrade() converts it again.
// 2. The version 3 meta goes to the slot that does not hold the kept version
//    2 meta, then a sync. Until that sync the slot may hold the old bytes,
//    the new ones or a torn mix: a torn or old one is no valid version 3 meta,
//    so a version 3 open fails with VersionMismatch and upgrade() converts the
//    file again from the kept meta, which nothing overwrote. Once the new
//    meta is whole it is the only valid version 3 meta: open takes it, and
//    upgrade() leaves the file as it is (upgraded false), as it does once
//    the sync returned. Its pages were all durable before it (step 1 and the
//    version 2 commit), so it carries no one-sync flag.
// 3. The kept version 2 meta's slot is zeroed and synced. Whatever of it is
//    left (version 2, torn, zeros) is no valid version 3 meta: open takes the
//    meta of step 2, and the next checkpoint writes this slot.
//
// Version 3 to 4: branch cells gain their child's entry count, so every
// branch page is written anew (upgrade_v4.h), past the high-water mark of the
// version 3 state, with a new catalog and free tree; leaves and overflow runs
// stay. (1) Those pages are written and synced: no meta reaches them, so a
// crash leaves the version 3 file as it was. (2) The version 4 meta (txn + 1,
// the next log epoch) goes to the other slot, then a sync: a torn or old slot
// is no valid version 4 meta, and the version 3 meta in the kept slot is
// untouched, so upgrade() converts again. (3) The version 3 slot is zeroed
// and synced. A version 3 state whose pages do not all verify (a one-sync
// commit or logged commits that did not reach the disk) is passed over for
// the one before it, as a version 3 open would.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "database_opener.h"
#include "log_record.h"
#include "meta.h"
#include "meta_slots.h"
#include "options_check.h"
#include "ordo/assert.h"
#include "ordo/btree/page_format.h"
#include "ordo/database.h"
#include "ordo/io/page_file.h"
#include "recovery.h"
#include "upgrade_v4.h"

namespace ordo {
namespace {

using engine::Meta;
using engine::MetaSlots;

UpgradeResult result_of(const Meta& meta, const io::PageFile& file, bool upgraded) {
  UpgradeResult r;
  r.upgraded = upgraded;
  r.txn_id = meta.txn_id;
  r.page_size_bytes = meta.page_size;
  r.log_first_page = meta.log_first_page;
  r.log_bytes = engine::log_area_bytes(meta);
  r.file_bytes = file.file_bytes();
  return r;
}

// Writes `page` (one page) to meta slot `slot`, then fdatasync.
Status write_slot(io::PageFile& file, int slot, const std::vector<std::byte>& page) {
  ORDO_ASSERT(slot == 0 || slot == 1);
  ORDO_ASSERT(btree::valid_page_size(static_cast<uint32_t>(page.size())));
  const io::WriteSpan span{page.size() * static_cast<uint64_t>(slot), page.data(), page.size()};
  return file.write(std::span<const io::WriteSpan>(&span, 1), true);
}

// Writes `meta` as a meta of `version` to `slot` and syncs; when the write or
// sync fails, puts the slot's old bytes back, as a failed commit puts its
// slot back (docs/FORMAT.md, "Failed commits"): no open takes a meta that the
// disk may not hold. Then zeroes slot `old_slot` and syncs.
Status replace_meta(io::PageFile& file, const Meta& meta, uint32_t version, int slot,
                    int old_slot) {
  ORDO_ASSERT(slot != old_slot);
  const std::byte* old = file.data(meta.page_size * static_cast<uint64_t>(slot), meta.page_size);
  if (old == nullptr) {
    return Status::corruption("meta slot " + std::to_string(slot) + " is past the mapped file");
  }
  const std::vector<std::byte> previous(old, old + meta.page_size);
  std::vector<std::byte> page(meta.page_size);
  engine::encode_meta(meta, page.data(), version);
  if (Status written = write_slot(file, slot, page); !written.is_ok()) {
    const Status put_back = write_slot(file, slot, previous);
    if (put_back.is_ok()) return written;
    return written.with_context("the version " + std::to_string(version) +
                                " meta may be in the page cache, not on disk (putting "
                                "the old slot back failed: " +
                                put_back.to_string() + ")");
  }
  std::fill(page.begin(), page.end(), std::byte{0});
  return write_slot(file, old_slot, page);
}

// Version 3 to version 4 (the comment at the top, second part).
Result<UpgradeResult> upgrade_v3(io::PageFile& file, const std::string& path,
                                 std::string recovery) {
  const MetaSlots slots = MetaSlots::read(file, engine::kV3FormatVersion);
  int pick = slots.newest_valid();
  if (pick < 0) return slots.no_valid_meta(path);
  // The newest state: the checkpoint, or the last logged commit after it.
  // Every tree page of it is checked against its parent's checksum as it is
  // converted. A one-sync checkpoint that fails is passed over for the slot
  // before it, as a version 3 open does; logged commits that fail would need
  // the replay of a version 3 open, so the upgrade stops and says so.
  const Meta checkpoint = slots.meta[pick];
  uint64_t records = 0;
  Meta base = checkpoint;
  engine::scan_log(
      file, checkpoint, engine::LogPosition::after(checkpoint),
      [&](const engine::LogRecord& r) {
        records++;
        base = r.meta;
        return true;
      },
      engine::kV3FormatVersion);
  base.flags = 0;
  base.log_epoch = checkpoint.log_epoch;
  Result<Meta> meta = engine::rewrite_for_v4(file, base);
  if (!meta.is_ok() && meta.status().code() == Status::Code::kCorruption) {
    const Meta* older = slots.older_valid(pick);
    if (records > 0) {
      return meta.status().with_context(
          path + ": the log holds " + std::to_string(records) + " commits after checkpoint txn " +
          std::to_string(checkpoint.txn_id) +
          " whose pages are not all in the file; a version 3 open replays them: open the file "
          "writable once with the version 3 build, then upgrade it");
    }
    if ((checkpoint.flags & engine::kMetaFlagOneSync) != 0 && older != nullptr) {
      recovery += (recovery.empty() ? "" : "; ") + std::string("txn ") +
                  std::to_string(checkpoint.txn_id) + " was not durable (" +
                  meta.status().to_string() + "); using txn " + std::to_string(older->txn_id);
      base = *older;
      meta = engine::rewrite_for_v4(file, base);
    }
  }
  if (!meta.is_ok()) return meta.status();
  const int slot = engine::slot_of_epoch(meta->log_epoch);
  ORDO_RETURN_IF_ERROR(replace_meta(file, *meta, engine::kFormatVersion, slot, 1 - slot));
  UpgradeResult r = result_of(*meta, file, true);
  r.recovery = std::move(recovery);
  return r;
}

Result<UpgradeResult> upgrade_file(const std::string& path, uint64_t log_bytes,
                                   DatabaseOpener::BackendFactory factory) {
  // A bad log size is refused whatever the file holds (a file at version 4
  // already included): whole 4 KiB pages in range here, whole pages of the
  // file's size once that is known.
  Options sizes;
  sizes.page_size_bytes = btree::kMinPageSize;
  sizes.log_bytes = log_bytes;
  ORDO_RETURN_IF_ERROR(engine::check_options(sizes));
  io::FileOptions fo;
  fo.create_if_missing = false;
  // Growth to exactly the log area's end (rounded up to the system page):
  // a version 3 open preallocates in its own extents from there.
  fo.extent_bytes = btree::kMinPageSize;
  fo.max_extent_bytes = btree::kMinPageSize;
  fo.backend_factory = std::move(factory);
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<io::PageFile> file, io::PageFile::open(path, fo));
  if (file->data(0, btree::kMinPageSize) == nullptr) {
    return engine::too_short_for_meta(path, file->file_bytes());
  }
  // A valid version 4 meta is a finished upgrade, which logged commits may
  // have followed since: nothing of the file is older any more.
  const MetaSlots current = MetaSlots::read(*file);
  if (const int pick = current.newest_valid(); pick >= 0) {
    return result_of(current.meta[pick], *file, false);
  }
  // A valid version 3 meta: the version 2 step is done (or was never needed).
  if (MetaSlots::read(*file, engine::kV3FormatVersion).newest_valid() >= 0) {
    return upgrade_v3(*file, path, std::string());
  }
  const MetaSlots slots = MetaSlots::read(*file, engine::kV2FormatVersion);
  int pick = slots.newest_valid();
  if (pick < 0) return slots.no_valid_meta(path);
  // The commit a version 2 open takes: a one-sync commit only when its pages
  // verify. (recovery.h's check reads branches of this build's layout, so
  // the version 3 tree checks of the next step do it.)
  std::string recovery;
  Status intact = Status::ok();
  if ((slots.meta[pick].flags & engine::kMetaFlagOneSync) != 0) {
    intact = engine::check_v3_state(*file, slots.meta[pick]);
  }
  if (!intact.is_ok()) {
    ORDO_ASSIGN_OR_RETURN(pick, engine::fall_back_from(slots, pick, intact, &recovery));
  }
  Meta meta = slots.meta[pick];
  Options log_options;
  log_options.page_size_bytes = meta.page_size;
  log_options.log_bytes = log_bytes;
  ORDO_RETURN_IF_ERROR(engine::check_options(log_options));
  const uint64_t area_bytes = log_bytes != 0 ? log_bytes : engine::kDefaultLogBytes;
  meta.log_first_page = meta.page_high_water;
  meta.log_pages = area_bytes / meta.page_size;
  meta.page_high_water += meta.log_pages;
  // check_options(): the area is whole pages, kMinLogBytes at least.
  ORDO_ASSERT(meta.log_pages != 0 && meta.log_pages * meta.page_size == area_bytes);
  meta.flags = 0;
  ORDO_ASSERT(pick == 0 || pick == 1);  // newest_valid(), or the slot fall_back_from() chose
  const int slot = 1 - pick;
  meta.log_epoch = static_cast<uint64_t>(slot);

  // Step 1: the log area, durable with every page before it.
  ORDO_RETURN_IF_ERROR(file->grow_to(meta.page_high_water * meta.page_size));
  meta.file_bytes = file->file_bytes();
  ORDO_RETURN_IF_ERROR(engine::prewrite_log(*file, meta));
  ORDO_RETURN_IF_ERROR(file->sync());
  // Steps 2 and 3: the version 3 meta, then the version 2 meta's slot zeroed.
  ORDO_RETURN_IF_ERROR(replace_meta(*file, meta, engine::kV3FormatVersion, slot, pick));
  return upgrade_v3(*file, path, std::move(recovery));
}

}  // namespace

Result<UpgradeResult> Database::upgrade(const std::string& path, uint64_t log_bytes) {
  return upgrade_file(path, log_bytes, nullptr);
}

Result<UpgradeResult> DatabaseOpener::upgrade(const std::string& path, uint64_t log_bytes,
                                              BackendFactory factory) {
  return upgrade_file(path, log_bytes, std::move(factory));
}

}  // namespace ordo
