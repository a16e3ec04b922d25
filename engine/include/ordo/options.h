// Options for Database::open.
#pragma once

#include <cstdint>

#include "ordo/clock.h"

namespace ordo {

// Which write path carries page writes and syncs (Options::io_backend). The
// choice comes from Options alone: ordo reads no environment variable. The
// backend in use is reported by Database::info().io_backend.
enum class IoBackend {
  // The default, today POSIX (pwritev and fdatasync from the committing
  // thread): faster than io_uring for buffered writes, which a ring hands to
  // a kernel worker (docs/BENCHMARKS.md).
  kAuto,
  // io_uring. A writable open fails with IOError where a ring cannot be set
  // up (a kernel without io_uring, io_uring disabled by sysctl or a seccomp
  // or container policy, RLIMIT_MEMLOCK too low); the message names the
  // reason.
  kUring,
  kPosix,  // pwritev + fdatasync, whatever the kernel offers
};

// How a commit makes itself durable (docs/FORMAT.md, "Commit protocol").
enum class CommitProtocol {
  // Every commit is a checkpoint: pages, fdatasync, meta page, fdatasync.
  kTwoSync,
  // Pages, meta page, one fdatasync. Open then trusts the newest meta only
  // when every page its txn wrote verifies against its checksum, else uses
  // the previous meta; that check reads only the last txn's pages.
  // The cost: a page of the last commit damaged after that commit was made
  // (a bad sector, a bit flip) looks like a commit torn by a crash, so open
  // uses the previous commit and the last one's changes are gone; the
  // ID high-water marks go back with it. DatabaseInfo::recovery says so.
  // With kTwoSync the same damage is reported as Corruption when read.
  kOneSync,
  // A commit appends one log record (the txn's operations) to the file's log
  // area and makes that record alone durable (pwritev2 with RWF_DSYNC); its
  // pages go to the page cache and reach the disk at the next checkpoint
  // (fdatasync, then the meta page, then fdatasync), taken when the log area
  // is full, when a txn's operations are larger than a quarter of it (such a
  // txn commits as a checkpoint: its data is not written twice), and when
  // the last writable handle closes. Open replays the records written after
  // the last checkpoint. Readers of every process see each commit at once.
  kLog,
};

struct Options {
  // Page size in bytes for a new file: a power of two from 4096 to 65536.
  // For an existing file, 0 accepts the file's page size and any other value
  // must equal it (else InvalidArgument).
  uint32_t page_size_bytes = 0;

  // Create the file when missing (ignored with read_only).
  bool create_if_missing = true;

  // Writable opens: how long open() waits, in ms, while another writable
  // handle of the file (in this process or another) holds its writer lock,
  // before it returns Busy. 0: Busy at once. A process that waits for
  // another to finish its writes sets this; within one handle, txns wait
  // with Database::begin_write.
  uint32_t writer_wait_ms = 0;

  // Open for reading only: no writer lock is taken, begin_write() is
  // InvalidArgument. Works while another process writes: each read txn reads
  // the newest commit on disk and pins it with a reader slot (a shared byte
  // lock in the file), so the writer does not reuse pages it can reach.
  bool read_only = false;

  // The write path of a writable handle (see IoBackend); a read-only open
  // writes nothing and ignores it. A value outside the enum is
  // InvalidArgument.
  IoBackend io_backend = IoBackend::kAuto;

  // The file grows by fallocate in extents of
  // clamp(file_bytes / 8, extent_bytes, max_extent_bytes) bytes, so that
  // steady-state commits change no file metadata. When the filesystem has
  // less room than that, the step is halved down to what the commit needs;
  // only when even that does not fit does the commit fail with Full.
  uint64_t extent_bytes = 64ull << 20;
  uint64_t max_extent_bytes = 1ull << 30;

  // When a writable handle is destroyed, give back the preallocated space
  // past the last page in use (ftruncate to the page high-water mark), so a
  // closed file is no larger than its pages. The next writable open grows it
  // again, in extents, at its first commit that needs a new page. Skipped
  // after a failed write or sync (the handle is poisoned).
  bool trim_on_close = true;

  // Address space reserved for the read mapping; also the largest file size.
  // Reserving costs no memory.
  uint64_t map_reserve_bytes = 256ull << 30;

  // How a commit is made durable (CommitProtocol; the log by default).
  // With each, a crash at any point leaves a committed state for open to
  // find.
  CommitProtocol commit_protocol = CommitProtocol::kLog;

  // Bytes of the log area of a new file (a multiple of the page size, at
  // least 64 KiB, at most 1 GiB): it bounds the work open does after a crash
  // (replaying at most this many bytes of records) and sets how often
  // commits take a checkpoint. An existing file keeps its own; 0 takes the
  // default for a new file.
  uint64_t log_bytes = 0;

  // false skips the sync of each commit's log record (kLog) or pages and meta
  // (kOneSync, kTwoSync): commits are atomic but not durable across a power
  // failure or OS crash (a process crash loses nothing); after such a crash
  // open finds the state of the last checkpoint or of a later commit, with
  // every commit before it (a prefix of the commits, never one with a gap).
  // Checkpoints still sync: with kLog when the log area fills, when a txn is
  // too large for a record, at close and at Database::checkpoint(). For bulk
  // loads that can be redone.
  bool sync_commits = true;

  // Node number (0..1023) placed in 64-bit IDs from WriteTxn::next_id64(), so
  // that several databases can mint IDs that never collide.
  uint32_t id_node = 0;

  // Check every page read against the XXH3 checksum its parent holds (and
  // overflow runs against theirs): a damaged or misdirected page is then
  // Corruption instead of wrong data. Costs one hash per page visited.
  // Txn::check always verifies, whatever this says.
  bool verify_checksums = false;

  // Memory a write txn may hold, in bytes. Dirty pages get all of it but a
  // reserve of 1/32 (at most 8 MiB) for the txn's other bookkeeping; past
  // that, dirty leaf pages the txn is not working on are written early
  // (spilled) to their new page numbers and dropped from memory, so a txn of
  // any size runs in bounded memory. At least 1 MiB.
  uint64_t txn_memory_budget_bytes = 256ull << 20;

  // Freed pages a write txn may take out of the free tree while it looks for
  // adjacent room for one overflow value (free runs merge only once both are
  // taken out); past it, the value goes to the end of the file. Bounds the
  // memory (a few MiB at the default) and the free-tree rewrite a heavily
  // fragmented file costs per large value, as libmdbx's rp_augment_limit
  // does. At least 1; the C API uses the default.
  uint64_t run_reclaim_limit_pages = 65536;

  // Fill factor of pages built by WriteTxn::append, 0.5 to 1.0: lower leaves
  // room for later inserts between appended keys.
  double append_fill = 1.0;

  // Time source of the ID generators (Unix ms). nullptr: the system clock.
  // A ManualClock (clock.h) sets the time the IDs carry. The clock must
  // outlive the Database and every txn made from it.
  Clock* clock = nullptr;
};

}  // namespace ordo
