// PageFile: one database file. Opens or creates it under an exclusive lock, grows it
// by preallocated extents, maps it read-only for reads and writes through an WriteBackend.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/io/backend.h"
#include "ordo/io/file_options.h"
#include "ordo/status.h"

namespace ordo::io {

// One open database file.
//
// Reads go through a read-only shared mapping of the file placed at the start of an
// address range reserved at open (FileOptions::map_reserve_bytes), so growth maps only
// the new tail and existing pointers never move. Writes go through write(), never
// through the mapping; the mapping sees them as soon as they reach the page cache.
//
// Thread-safety: data(), file_bytes(), stats() and the const accessors may be called
// from any thread, concurrently with each other and with grow_to()/refresh() (existing
// mapped bytes never move). write(), sync() and grow_to() are called by one writer
// thread at a time.
//
// Another process must not shrink the file while it is mapped: reading a mapped page
// past the end of the file raises SIGBUS. ordo never shrinks a file.
class PageFile {
 public:
  // Opens `path`.
  //
  // Writable (options.read_only == false): open(O_RDWR|O_CREAT|O_CLOEXEC, 0644) (no
  // O_CREAT when !create_if_missing), then flock(LOCK_EX|LOCK_NB), retried for up to
  // options.lock_wait_ms while another handle holds it, and held until the
  // PageFile is destroyed. flock locks belong to the open file description, so a second
  // open of the same path is Busy from this process as well as from another one (a
  // forked child inherits the descriptor, and with it the lock, until it exits or execs).
  // When this open created the file or found it empty, its parent directory is fsynced
  // so the file's name is durable (the only directory sync ordo does).
  // Read-only: open(O_RDONLY|O_CLOEXEC), no lock; works while a writer holds the lock.
  //
  // The file may have any length (the engine validates its contents). The mapping
  // covers the length rounded down to the system page size; a partial last page is
  // not readable through data().
  // Returns:
  //   NotFound         the file does not exist (read-only, or !create_if_missing), or a
  //                    directory of the path does not exist.
  //   Busy             "database file <path> is locked by another handle" (after
  //                    options.lock_wait_ms).
  //   InvalidArgument  a bad option (extent_bytes == 0, max_extent_bytes < extent_bytes,
  //                    map_reserve_bytes == 0), or the path is not a regular file.
  //   Full             the file is longer than map_reserve_bytes.
  //   IOError          a system call failed; the message names the path and the call.
  static Result<std::unique_ptr<PageFile>> open(const std::string& path,
                                                const FileOptions& options);

  // Unmaps, closes the backend and the file, and releases the lock. Does not sync.
  // REQUIRES: no pointer from data() is used afterwards.
  ~PageFile();

  PageFile(const PageFile&) = delete;
  PageFile& operator=(const PageFile&) = delete;

  // True if this open created the file or found it empty (length 0).
  bool created() const { return created_; }

  // Current file length in bytes (an atomic load).
  uint64_t file_bytes() const { return file_bytes_.load(std::memory_order_acquire); }

  // Pointer to `size_bytes` at byte `offset_bytes` inside the read-only mapping, or
  // nullptr if any part lies beyond the mapped length (the file length rounded down to
  // the system page size). Valid until the PageFile is destroyed; the bytes are
  // read-only (writing them raises SIGSEGV).
  const std::byte* data(uint64_t offset_bytes, size_t size_bytes) const;

  // Reads up to out.size() bytes at byte `offset_bytes` with pread, not through the
  // mapping: safe while another process shrinks the file (a mapped read past its new
  // end raises SIGBUS). Returns the bytes read, fewer than asked only at the end of the
  // file. IOError when pread fails.
  Result<size_t> read_at(uint64_t offset_bytes, std::span<std::byte> out) const;

  // Ensures file_bytes() >= min_bytes. Does nothing when it already is. Otherwise grows
  // the file with fallocate (mode 0: allocated, reads as zeros) from the current length
  // to the smallest multiple of the growth step that is >= min_bytes, where the step is
  // clamp(file_bytes() / 8, extent_bytes, max_extent_bytes) rounded up to the system
  // page size; capped at map_reserve_bytes. Falls back to ftruncate where fallocate is
  // unsupported (EOPNOTSUPP). When the filesystem has no room for that (ENOSPC, EDQUOT,
  // EFBIG), retries with half the step, then half again, down to min_bytes rounded up
  // to the system page size: a nearly full filesystem still takes a small database, and
  // the next growth tries a whole step again. Then maps the new region into the
  // reserved range.
  // Every failure leaves the file at its old length (a failed fallocate's partial
  // allocation is truncated away) and file_bytes() unchanged; the file stays usable.
  // Returns:
  //   InvalidArgument  the file is read-only.
  //   Full             even min_bytes rounded up to the system page size does not fit
  //                    (ENOSPC/EDQUOT/EFBIG); the message names the path, the byte
  //                    range and the errno text. Also when min_bytes > map_reserve_bytes.
  //                    Retrying after space was freed may succeed.
  //   IOError          fallocate, ftruncate or mmap failed otherwise (the file keeps
  //                    its old length).
  Status grow_to(uint64_t min_bytes);

  // Re-reads the file length (fstat) and maps any growth made by another process, for
  // read-only files following a writer. On a writable file it finds nothing new. If the
  // file shrank, data() stops returning pointers past the new length.
  // Returns IOError when fstat or mmap fails.
  Status refresh();

  // Shrinks the file to `bytes` (ftruncate) when it is longer; for a writer
  // that is closing, so that preallocated space past its last page is given
  // back. REQUIRES: no pointer from data() past `bytes` is used afterwards.
  // Returns InvalidArgument on a read-only file, IOError when ftruncate fails.
  Status shrink_to(uint64_t bytes);

  // Writes the spans through the backend (see WriteBackend::write) and counts them in
  // stats(). Spans may lie beyond file_bytes(): the file then gets longer without
  // preallocation and file_bytes()/data() learn of it only at the next grow_to() or
  // refresh(); the engine grows first.
  // Returns InvalidArgument on a read-only file, else whatever WriteBackend::write returns;
  // messages name the path.
  Status write(std::span<const WriteSpan> spans, bool sync_after);

  // Writes `first`, then `then` only after every write of `first` completed, then
  // fdatasync when `sync_after` (see WriteBackend::write_ordered): a one-sync commit's pages
  // and meta page in one batch. Counted in stats() as write() counts. Returns as write().
  Status write_ordered(std::span<const WriteSpan> first, std::span<const WriteSpan> then,
                       bool sync_after);

  // fdatasync. Returns InvalidArgument on a read-only file, else as WriteBackend::sync.
  Status sync();

  // Writes the spans, each durable by itself when the call returns (see
  // WriteBackend::write_durable: only these bytes are synced). Counted in stats() as
  // one write call with one sync. Returns as write().
  Status write_durable(std::span<const WriteSpan> spans);

  // Reader slots across processes. A read-only handle marks the snapshot it
  // reads with a shared open-file-description lock on byte
  // kReaderSlotBase + txn_id (no data lives there); the writer asks whether
  // any other handle still reads a snapshot in the range that can reach pages
  // before reusing them. Locks vanish with the process, even on SIGKILL.
  // A slot locked twice through one PageFile is one lock: callers count.
  // Returns IOError when fcntl fails; InvalidArgument for txn_id >= 2^62.
  Status lock_reader_slot(uint64_t txn_id);
  Status unlock_reader_slot(uint64_t txn_id);
  // True when another handle holds a slot for a snapshot txn id in
  // [first_txn, end_txn) (ids at or past 2^62 are never slots). IOError when
  // fcntl fails.
  Result<bool> reader_slot_in(uint64_t first_txn, uint64_t end_txn) const;
  static constexpr uint64_t kReaderSlotBase = uint64_t{1} << 62;
  // The snapshot txn ids whose reader slots any handle (of any process)
  // holds on the file at `path`, ascending, each once; at most the lowest
  // kMaxListedReaderSlots. Opens `path` read-only for the query (an open of
  // its own: no handle's slots are hidden from it) and closes it. Slots one
  // handle holds side by side are one lock to the kernel; each of its bytes
  // is listed. Asks F_OFD_GETLK at most 2n + 1 times for n slots listed.
  // Returns NotFound when `path` does not exist; IOError (the errno, the
  // call and the path) when open or fcntl fails.
  static Result<std::vector<uint64_t>> held_reader_slots(const std::string& path);
  static constexpr size_t kMaxListedReaderSlots = 1'000'000;

  // Commit locks. A writer holds an exclusive open-file-description lock on
  // byte kCommitLockBase + txn_id from before it writes that txn's meta page
  // until the commit is settled: durable, or its meta slot restored after a
  // failed write or sync. A handle that reads metas from the file takes a meta
  // only once its commit lock is free, so no reader ever adopts a commit that
  // may still fail. Locks vanish with the process, even on SIGKILL.
  // lock_commit: Busy when another handle holds it (it never should: one
  // writer holds the file's flock), InvalidArgument for txn_id >= 2^61 or a
  // read-only file, IOError when fcntl fails. unlock_commit: IOError when
  // fcntl fails. commit_in_flight: true when another handle holds the lock of
  // `txn_id`; IOError when fcntl fails.
  Status lock_commit(uint64_t txn_id);
  Status unlock_commit(uint64_t txn_id);
  Result<bool> commit_in_flight(uint64_t txn_id) const;
  static constexpr uint64_t kCommitLockBase = uint64_t{1} << 61;

  // "io_uring", "posix", or "none" when read-only.
  std::string_view backend_name() const;

  // A snapshot of the counters (each read atomically, not all together).
  FileStats stats() const;

  // The path given to open().
  const std::string& path() const { return path_; }

 private:
  struct Counters {
    std::atomic<uint64_t> write_calls{0};  // backend submissions (FileStats::write_calls)
    std::atomic<uint64_t> spans_written{0};
    std::atomic<uint64_t> bytes_written{0};
    std::atomic<uint64_t> syncs{0};
    std::atomic<uint64_t> growths{0};
  };

  PageFile(std::string path, const FileOptions& options, int fd, bool created);

  // Maps [mapped_bytes_, round_down(new_file_bytes)) and publishes new_file_bytes.
  // REQUIRES: map_mutex_ held.
  Status map_up_to(uint64_t new_file_bytes);
  // The growth step for the current length, in bytes.
  uint64_t growth_step_bytes() const;
  // Counts one write/write_ordered/sync call: its kernel submissions always, its spans,
  // bytes and sync when `status` is ok.
  void count_call(uint64_t submissions_before, std::span<const WriteSpan> first,
                  std::span<const WriteSpan> then, bool synced, const Status& status);

  const std::string path_;
  const FileOptions options_;
  const int fd_;
  int lock_fd_ = -1;  // holds the flock; see OpenedFile::lock_fd
  const bool created_;
  const uint64_t os_page_size_;
  uint64_t reserve_bytes_ = 0;             // options_.map_reserve_bytes rounded to pages
  std::byte* base_ = nullptr;              // start of the reserved range
  std::unique_ptr<WriteBackend> backend_;  // nullptr when read-only
  std::mutex map_mutex_;                   // serializes grow_to() and refresh()
  std::atomic<uint64_t> file_bytes_{0};
  std::atomic<uint64_t> mapped_bytes_{0};  // multiple of os_page_size_
  Counters counters_;
};

}  // namespace ordo::io
