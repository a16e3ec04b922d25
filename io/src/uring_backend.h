// UringBackend: the io_uring WriteBackend. One write() is one batch: an IORING_OP_WRITEV per
// coalesced run, then (if asked) an IORING_OP_FSYNC with IORING_FSYNC_DATASYNC and
// IOSQE_IO_DRAIN, so the sync starts only after every write of the batch completed.
// One write_ordered() is one chain: every write of both groups and the sync linked
// (IOSQE_IO_LINK) in one submission. A call that asks for no sync is written with
// pwritev from the calling thread: a buffered write only copies into the page cache,
// and through the ring it would be handed to a kernel worker thread (two context
// switches per call, ~10x the cost of a small non-durable commit on ext4).
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ordo/io/backend.h"
#include "posix_backend.h"
#include "write_plan.h"

namespace ordo::io {

// Completion state lives in the backend (the plan's runs and a queue of run indexes,
// reused across calls): no allocation per operation in steady state. Every CQE is
// checked; EINTR/EAGAIN are resubmitted; a short write has its rest resubmitted and, if
// a sync was asked, is followed by another drained sync. When there are more runs than
// free submission slots, writes go in several submissions, all before the sync. write()
// returns only once nothing of the call is in flight.
// Thread-safety: as WriteBackend (one writer at a time; no SINGLE_ISSUER, so the writer may
// change threads between calls).
class UringBackend final : public WriteBackend {
 public:
  // Sets up a ring of kUringQueueEntries entries for `fd` (registered as a fixed file
  // when the kernel allows). Returns IOError naming the reason and what to check when
  // io_uring_queue_init fails or the kernel lacks IORING_OP_WRITEV/IORING_OP_FSYNC.
  static Result<std::unique_ptr<WriteBackend>> create(int fd);

  ~UringBackend() override;

  std::string_view name() const override { return "io_uring"; }
  Status write(std::span<const WriteSpan> spans, bool sync_after) override;
  Status write_ordered(std::span<const WriteSpan> first, std::span<const WriteSpan> then,
                       bool sync_after) override;
  Status sync() override;
  // pwritev2 with RWF_DSYNC from the calling thread, as PosixBackend: one small record
  // waits for its own flush either way, and the thread saves a handoff.
  Status write_durable(std::span<const WriteSpan> spans) override {
    return unsynced_.write_durable(spans);
  }
  // io_uring_enter calls plus the pwritev calls of writes without a sync.
  uint64_t submissions() const override { return submissions_ + unsynced_.submissions(); }

 private:
  // Which plan a write belongs to (the high half of its user_data).
  enum PlanId : uint32_t { kFirstPlan = 0, kThenPlan = 1 };

  explicit UringBackend(int fd) : fd_(fd), unsynced_(fd) {}

  WritePlan& plan(uint32_t id) { return id == kThenPlan ? then_plan_ : plan_; }
  // Clears the state of one batch or chain.
  void reset_batch(bool sync_after, bool chained);
  // Submits what is left of plan `id` (runs with bytes to write) and a sync when
  // `sync_after`, and waits until nothing is in flight. Returns the first error seen.
  Status run_batch(uint32_t id, bool sync_after);
  // Submits both plans and the sync (when `sync_after`) as one linked chain and waits
  // for it. Leaves chain_incomplete_ set when something must be finished by run_batch
  // (a short write, a retryable error, or an operation cancelled behind one).
  // REQUIRES: the chain fits (chain_fits()). Returns the first error seen.
  Status run_chain(bool sync_after);
  bool chain_fits(size_t operations) const;
  // Fills free submission slots with pending writes, then the sync once none is left.
  void queue_operations();
  // Submits queued entries and waits until every operation in flight completed.
  void submit_and_wait();
  // Handles every available completion.
  void reap_completions();
  void on_write_completion(uint64_t tag, int result);
  void on_sync_completion(int result);
  // An operation to do again: queued in a batch, left to the slow path in a chain.
  void retry_write(uint32_t run_index);
  void retry_sync();
  // Counts one EINTR/EAGAIN retry; records an error when there were too many.
  bool may_retry(std::string_view what, int err);
  void record_error(Status status);
  // A free submission entry counted as in flight, or nullptr when the SQ ring is full or
  // as many operations are in flight as the CQ ring holds.
  io_uring_sqe* next_sqe();
  // IOSQE_FIXED_FILE when fd_ is registered, else 0.
  uint8_t file_flags() const { return fixed_file_ ? IOSQE_FIXED_FILE : 0; }

  const int fd_;
  io_uring ring_{};
  bool ring_ready_ = false;     // io_uring_queue_init succeeded
  bool fixed_file_ = false;     // fd_ registered as fixed file 0
  bool broken_ = false;         // io_uring_enter failed unrecoverably; every call fails
  unsigned max_in_flight_ = 0;  // CQ ring size: never more operations than CQ slots
  uint64_t submissions_ = 0;    // io_uring_enter calls
  PosixBackend unsynced_;       // writes asked without a sync
  WritePlan plan_;              // write(), and the first group of write_ordered()
  WritePlan then_plan_;         // the second group of write_ordered()

  // State of the batch or chain being run (valid during run_batch/run_chain only).
  uint32_t active_plan_ = kFirstPlan;  // the plan run_batch writes
  bool chained_ = false;               // run_chain: retries go to the slow path
  bool chain_incomplete_ = false;
  std::vector<uint32_t> pending_;  // run indexes to (re)submit, consumed from pending_head_
  size_t pending_head_ = 0;
  unsigned in_flight_ = 0;  // prepared SQEs whose CQE was not reaped yet
  bool sync_after_ = false;
  bool sync_wanted_ = false;  // a sync must still be queued
  int retries_ = 0;
  Status error_;
};

}  // namespace ordo::io
