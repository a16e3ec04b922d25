// Database::upgrade: converts a version 2 file to version 3 in place
// (docs/FORMAT.md, "Version history"). Tree, free-tree and overflow pages are
// the same in both versions, so only the metas change and a log area is added.
//
// Crash safety, step by step (every write goes through the page cache; what
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

Result<UpgradeResult> upgrade_file(const std::string& path, uint64_t log_bytes,
                                   DatabaseOpener::BackendFactory factory) {
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
  // A valid version 3 meta is a finished upgrade (step 2 above), which logged
  // commits may have followed since: nothing of the file is version 2 any more.
  const MetaSlots current = MetaSlots::read(*file);
  if (const int pick = current.newest_valid(); pick >= 0) {
    return result_of(current.meta[pick], *file, false);
  }
  const MetaSlots slots = MetaSlots::read(*file, engine::kV2FormatVersion);
  int pick = slots.newest_valid();
  if (pick < 0) return slots.no_valid_meta(path);
  // The commit a version 2 open takes: a one-sync commit only when its pages verify.
  std::string recovery;
  if (Status intact = engine::verify_slot_commit(*file, slots, pick); !intact.is_ok()) {
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
  // Step 2: the version 3 meta. When its write or sync fails, the slot's old
  // bytes are put back, as a failed commit puts its slot back
  // (docs/FORMAT.md, "Failed commits"): no open takes a meta that the disk
  // may not hold.
  const std::byte* old = file->data(meta.page_size * static_cast<uint64_t>(slot), meta.page_size);
  if (old == nullptr) {
    return Status::corruption("meta slot " + std::to_string(slot) + " is past the mapped file");
  }
  const std::vector<std::byte> previous(old, old + meta.page_size);
  std::vector<std::byte> page(meta.page_size);
  engine::encode_meta(meta, page.data());
  if (Status written = write_slot(*file, slot, page); !written.is_ok()) {
    const Status put_back = write_slot(*file, slot, previous);
    if (put_back.is_ok()) return written;
    return written.with_context(
        "the version 3 meta may be in the page cache, not on disk (putting "
        "the old slot back failed: " +
        put_back.to_string() + ")");
  }
  // Step 3: the version 2 meta's slot.
  std::fill(page.begin(), page.end(), std::byte{0});
  ORDO_RETURN_IF_ERROR(write_slot(*file, pick, page));
  UpgradeResult r = result_of(meta, *file, true);
  r.recovery = std::move(recovery);
  return r;
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
