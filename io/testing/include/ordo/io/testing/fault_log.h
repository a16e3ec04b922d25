// FaultLog: what a FaultBackend did to one file, in order, and the failures it is told
// to inject. Tests only; the engine never links it.
//
// The log holds the file's bytes from the moment recording started (start()) and every
// op since: one write op per WriteSpan (its offset and a copy of its bytes), one op per
// sync, and for a durable write (WriteBackend::write_durable) its write op followed by a
// range-sync op naming it, each with the file length seen by fstat right after it. From that it
// builds the file as a crash would leave it (image()) and lists every such state (crash_points()).
//
// Crash model (docs/FORMAT.md "What ordo assumes of the disk"): a completed sync makes
// every earlier completed write durable, and the file length fstat reported at that sync
// too; a completed range sync makes its one write durable, and nothing else. Of the
// other writes issued after the last completed sync, any subset may have landed,
// in any order, and a write may be torn at 512-byte sector boundaries. File growth
// (fallocate) after the last sync may be lost. Failed ops (injected or real) are
// assumed to have changed nothing.
//
// Thread-safety: every method locks one mutex, so a test may read the log while the
// backend writes through it. One FaultBackend records into a log at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "ordo/io/testing/crash_point.h"
#include "ordo/status.h"

namespace ordo::io::testing {

class FaultBackend;

// One recorded op.
struct FaultOp {
  // kSyncRange: the durable half of a write_durable() span; it makes the write op
  // `synced_op` (the op just before it) durable.
  enum class Kind : uint8_t { kWrite, kSync, kSyncRange };

  Kind kind = Kind::kWrite;
  uint64_t offset_bytes = 0;    // kWrite: where the bytes go
  std::vector<std::byte> data;  // kWrite: a copy of the span's bytes
  size_t synced_op = 0;         // kSyncRange: index of the write op it makes durable
  uint64_t file_bytes = 0;      // file length (fstat) right after the op
  int error = 0;                // 0 when performed; else the errno it failed with

  bool failed() const { return error != 0; }
  uint64_t end_bytes() const { return offset_bytes + data.size(); }
};

class FaultLog {
 public:
  FaultLog() = default;
  FaultLog(const FaultLog&) = delete;
  FaultLog& operator=(const FaultLog&) = delete;

  // Starts recording on `fd` (open for reading): forgets every recorded op and takes
  // the file's current bytes (pread of [0, fstat length)) as the initial image.
  // Injected failures set before the call stay armed. fault_backend_factory() calls
  // it for every backend it builds.
  // Returns IOError (errno) when fstat or pread fails; the log is then empty.
  Status start(int fd);

  // The file's bytes when start() was called.
  std::vector<std::byte> initial_image() const;

  // Recorded ops, performed and failed, in issue order.
  size_t op_count() const;
  // REQUIRES: i < op_count(). The reference stays valid until the next start().
  const FaultOp& op(size_t i) const;
  // Performed (not failed) write and sync ops (range syncs count as syncs), and failed
  // ops of any kind.
  size_t write_count() const;
  size_t sync_count() const;
  size_t failed_count() const;

  // Writes pending at a crash after `after_ops` ops: the performed writes issued after
  // the last performed sync in [0, after_ops). Variant indexes count these.
  // REQUIRES: after_ops <= op_count().
  size_t pending_write_count(size_t after_ops) const;
  // Their op indexes, in issue order (a variant's write k is op(result[k])).
  // REQUIRES: after_ops <= op_count().
  std::vector<size_t> pending_write_ops(size_t after_ops) const;

  // The file after a crash at `point`: the initial image with every performed write
  // before the last performed sync in [0, after_ops), cut or zero-extended to the
  // length fstat gave at that sync (or the initial length when there is none), then the
  // pending writes the variant keeps applied in issue order; the file extends (zeros in
  // between) to cover any kept byte past that length.
  // Returns InvalidArgument when after_ops > op_count() or the variant names a pending
  // write that does not exist (kPrefix index > pending count; kDropOne/kTorn index >=
  // pending count; kSubset: more landed flags than pending writes, or a torn range
  // past the torn write's end).
  // Cost: one copy of the file, plus replaying the writes since the last image's sync
  // (images asked for in ascending after_ops order replay each write once).
  Result<std::vector<std::byte>> image(const CrashPoint& point) const;

  // Every crash point with after_ops in [from_op, op_count()], in ascending after_ops
  // order. For each after_ops with n pending writes: kPrefix(0..n), kDropOne(i) for
  // i < n - 1, and kTorn(n - 1) with first_half_sectors() and alternate_sectors(). Points
  // whose image is obviously the same as one listed before are left out: kDropOne(n-1)
  // (= kPrefix(n-1)), torn masks that keep all or none of the write, the prefixes a
  // write adds nothing to (kPrefix(j < n) after a write op, listed at the op before),
  // and after_ops following a failed op. The point at after_ops == from_op is complete.
  std::vector<CrashPoint> crash_points(size_t from_op = 0) const;

  // Failure injection. Each is checked before an op is performed; a failing op is
  // recorded with error set and not performed, and the backend returns what a real one
  // would (Full for ENOSPC/EDQUOT/EFBIG, IOError carrying the errno otherwise).
  //
  // The write op `nth_write` write ops from now fails with `err` (0: the next one). Only
  // that op; later ones proceed. Write ops are counted whether they succeed or fail.
  void fail_write_at(size_t nth_write, int err);
  // The same for sync ops.
  void fail_sync_at(size_t nth_sync, int err);
  // A disk that keeps failing: the write op (sync op) `nth` ops from now and every one
  // after it fail with `err`, until clear_failures().
  void fail_writes_from(size_t nth_write, int err);
  void fail_syncs_from(size_t nth_sync, int err);
  // A disk with `bytes` free from now: a write op fails with ENOSPC when the bytes of
  // the write ops performed since this call plus its own size exceed `bytes`; so do
  // all later writes until clear_failures() (a full disk stays full).
  void enospc_after_bytes(uint64_t bytes);
  // Disarms every injected failure (frees the space, cancels pending EIOs).
  void clear_failures();

 private:
  friend class FaultBackend;

  // The errno the next write op of `size_bytes` must fail with, or 0; counts the op.
  int admit_write(uint64_t size_bytes);
  // The errno the next sync op must fail with, or 0; counts the op.
  int admit_sync();
  // Appends an op (performed when op.error == 0).
  void record(FaultOp op);

  // REQUIRES: mutex_ held. Index of the last performed sync in [0, after_ops), if any.
  std::optional<size_t> last_sync_before(size_t after_ops) const;
  // REQUIRES: mutex_ held. Indexes of the performed writes in (last sync, after_ops)
  // that no range sync in [0, after_ops) made durable.
  std::vector<size_t> pending_writes(size_t after_ops) const;
  // REQUIRES: mutex_ held. Indexes of the writes after the last sync before
  // `after_ops` that a performed range sync in [0, after_ops) made durable.
  std::vector<size_t> range_synced_writes(size_t after_ops) const;
  // REQUIRES: mutex_ held. The durable image of a crash after `after_ops` ops.
  std::vector<std::byte> durable_image(size_t after_ops) const;
  // REQUIRES: mutex_ held. The image after the last sync before `after_ops` (cached).
  std::vector<std::byte> synced_image(size_t after_ops) const;

  mutable std::mutex mutex_;
  std::vector<std::byte> initial_;
  std::deque<FaultOp> ops_;  // a deque: op() references survive appends
  size_t performed_writes_ = 0;
  size_t performed_syncs_ = 0;
  size_t failed_ = 0;

  // Injection state; survives start().
  uint64_t writes_admitted_ = 0;  // write ops seen since construction
  uint64_t syncs_admitted_ = 0;
  std::map<uint64_t, int> write_failures_;  // admitted-write number -> errno
  std::map<uint64_t, int> sync_failures_;
  std::optional<std::pair<uint64_t, int>> writes_fail_from_;  // first failing number, errno
  std::optional<std::pair<uint64_t, int>> syncs_fail_from_;
  std::optional<uint64_t> space_bytes_;  // enospc_after_bytes() budget
  uint64_t space_used_bytes_ = 0;

  // Durable image after the performed sync at op `cache_sync_`, kept so images asked
  // for in order replay each write once.
  mutable std::optional<size_t> cache_sync_;
  mutable std::vector<std::byte> cache_image_;
};

}  // namespace ordo::io::testing
