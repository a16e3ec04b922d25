#include "commit_write.h"

#include <cstring>
#include <string>

#include "log_record.h"
#include "ordo/assert.h"

namespace ordo::engine {
namespace {

// A page buffer taken from `buffers` for the length of one commit.
class PageLease {
 public:
  explicit PageLease(PageBuffers& buffers) : buffers_(buffers), page_(buffers.take()) {}
  ~PageLease() {
    if (page_ != nullptr) buffers_.give(page_);
  }
  PageLease(const PageLease&) = delete;
  PageLease& operator=(const PageLease&) = delete;
  std::byte* get() const { return page_; }

 private:
  PageBuffers& buffers_;
  std::byte* const page_;
};

// Puts `before` back into the meta slot of `span` after a failed commit,
// synced when `sync`.
Status restore_slot(io::PageFile& file, const io::WriteSpan& span, const std::byte* before,
                    bool sync) {
  ORDO_ASSERT(span.offset_bytes + span.size_bytes <= 2 * span.size_bytes);  // page 0 or 1
  const io::WriteSpan back{span.offset_bytes, before, span.size_bytes};
  return file.write(std::span<const io::WriteSpan>(&back, 1), sync);
}

// The error of a failed commit `s` whose put-back of `what` failed too.
Status put_back_failed(const Status& s, const std::string& what, const Status& restored,
                       uint64_t txn_id) {
  ORDO_ASSERT(!s.is_ok() && !restored.is_ok());
  const std::string text = s.message() + "; putting back " + what + " failed too (" +
                           restored.to_string() + "): a later open may find txn " +
                           std::to_string(txn_id);
  return s.is_full() ? Status::full(text) : Status::io_error(text, s.errno_value());
}

// True when every span's bytes are what the file's mapping shows.
bool reached_page_cache(const io::PageFile& file, std::span<const io::WriteSpan> spans) {
  ORDO_ASSERT(!spans.empty());  // Asked only after a failed write of some pages.
  for (const io::WriteSpan& span : spans) {
    const std::byte* now = file.data(span.offset_bytes, span.size_bytes);
    if (now == nullptr || std::memcmp(now, span.data, span.size_bytes) != 0) return false;
  }
  return true;
}

}  // namespace

CommitWriteResult write_commit(io::PageFile& file, PageBuffers& buffers,
                               std::span<const io::WriteSpan> pages, const Meta& meta,
                               CommitProtocol protocol, bool sync, MetaTxn txn) {
  const uint32_t ps = meta.page_size;
  const PageLease meta_page(buffers);
  const PageLease before(buffers);
  if (!meta_page.get() || !before.get()) {
    return {Status::full("out of memory for the meta page"), false};
  }
  ORDO_ASSERT(ps != 0 && meta.txn_id != 0);  // txn 0 is the new file's, written at create
  encode_meta(meta, meta_page.get());
  const int slot_index = slot_of_epoch(meta.log_epoch);
  ORDO_ASSERT(slot_index == 0 || slot_index == 1);
  const io::WriteSpan meta_span{static_cast<uint64_t>(slot_index) * ps, meta_page.get(), ps};
  const std::span<const io::WriteSpan> meta_spans(&meta_span, 1);
  // The slot's bytes now: a failed commit puts them back (the meta before
  // the previous one, which open may still fall back to).
  const std::byte* slot = file.data(meta_span.offset_bytes, ps);
  if (slot == nullptr) {
    return {Status::corruption("meta slot " + std::to_string(slot_index) + " is not mapped"),
            false};
  }
  std::memcpy(before.get(), slot, ps);

  bool locked = false;
  if (sync && txn == MetaTxn::kNew) {
    Status s = file.lock_commit(meta.txn_id);
    if (!s.is_ok()) return {s, false};
    locked = true;
  }
  Status s;
  bool pages_failed = false;
  if (protocol == CommitProtocol::kTwoSync) {
    // Pages durable first, then the meta and its own sync.
    s = pages.empty() ? Status::ok() : file.write(pages, sync);
    pages_failed = !s.is_ok();
    if (s.is_ok()) s = file.write(meta_spans, sync);
  } else {
    // One-sync: one batch. The meta starts only after every page write
    // completed (into the page cache), and is skipped when one failed; one
    // fdatasync behind both.
    s = file.write_ordered(pages, meta_spans, sync);
  }
  if (s.is_ok()) {
    if (locked) (void)file.unlock_commit(meta.txn_id);  // held by nobody else; fcntl only
    return {Status::ok(), false};
  }

  // Did any byte of the meta reach the page cache? Then it may be taken for
  // a commit: put the slot back before the lock lets anyone look.
  const bool meta_touched = std::memcmp(slot, before.get(), ps) != 0;
  // Two-sync pages all in the page cache, yet the call failed: their sync did.
  const bool sync_failed = pages_failed && sync && reached_page_cache(file, pages);
  CommitWriteResult out{s, s.is_io_error() || sync_failed || meta_touched};
  if (meta_touched) {
    Status restored = restore_slot(file, meta_span, before.get(), sync);
    if (!restored.is_ok()) {
      out.status =
          put_back_failed(s, "meta slot " + std::to_string(slot_index), restored, meta.txn_id);
      // Readers in other processes keep the previous commit while this
      // handle lives.
      return out;
    }
    ORDO_ASSERT(std::memcmp(slot, before.get(), ps) == 0);  // what every handle reads now
  }
  if (locked) (void)file.unlock_commit(meta.txn_id);
  return out;
}

CommitWriteResult write_logged_commit(io::PageFile& file, std::span<const io::WriteSpan> pages,
                                      const Meta& meta, const LogPosition& at,
                                      uint32_t writer_nonce, bool sync,
                                      std::vector<std::byte>& record, LogPosition* next) {
  ORDO_ASSERT((meta.flags & kMetaFlagLogged) != 0 && meta.txn_id != 0);
  ORDO_ASSERT(record.size() >= kLogOpsOffset);  // the operations after the header and meta
  const uint64_t bytes = log_record_bytes(record.size() - kLogOpsOffset);
  const uint64_t offset_bytes = at.offset_bytes;
  ORDO_ASSERT(offset_bytes % kLogBlockBytes == 0 && offset_bytes + bytes <= log_area_bytes(meta));
  // Pages first, unsynced: they reach the page cache before the record, so a
  // reader that takes the record finds them; until the record is durable
  // nothing reaches them.
  if (!pages.empty()) {
    Status s = file.write(pages, false);
    if (!s.is_ok()) return {s, s.is_io_error()};
  }
  const LogPosition after = seal_log_record(meta, at, writer_nonce, record);
  ORDO_ASSERT(record.size() == bytes);
  const uint64_t file_offset = meta.log_first_page * meta.page_size + offset_bytes;
  const std::byte* place = file.data(file_offset, kLogBlockBytes);
  if (place == nullptr) return {Status::corruption("log area is not mapped"), false};
  std::byte before[kLogBlockBytes];
  std::memcpy(before, place, kLogBlockBytes);

  if (sync) {
    Status s = file.lock_commit(meta.txn_id);
    if (!s.is_ok()) return {s, false};
  }
  const io::WriteSpan span{file_offset, record.data(), bytes};
  Status s = sync ? file.write_durable(std::span<const io::WriteSpan>(&span, 1))
                  : file.write(std::span<const io::WriteSpan>(&span, 1), false);
  CommitWriteResult out{s, false};
  if (!s.is_ok() && std::memcmp(place, before, kLogBlockBytes) != 0) {
    // Some of the record may be in the page cache, or on disk: put its first
    // block back, so its header no longer names this txn.
    out.poison = true;
    const io::WriteSpan back{file_offset, before, kLogBlockBytes};
    const std::span<const io::WriteSpan> backs(&back, 1);
    Status restored = sync ? file.write_durable(backs) : file.write(backs, false);
    if (!restored.is_ok()) {
      out.status = put_back_failed(s, "the log block at " + std::to_string(offset_bytes), restored,
                                   meta.txn_id);
      return out;  // the lock stays: readers keep the previous commit while this handle lives
    }
  } else if (!s.is_ok()) {
    out.poison = s.is_io_error();
  }
  if (sync) (void)file.unlock_commit(meta.txn_id);
  if (out.status.is_ok()) *next = after;
  return out;
}

}  // namespace ordo::engine
