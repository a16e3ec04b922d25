#include "uring_backend.h"

#include <cerrno>
#include <string>

#include "ordo/base/errno_status.h"

namespace ordo::io {
namespace {

// user_data of the sync operation; writes carry their run index.
constexpr uint64_t kSyncTag = ~uint64_t{0};
// Total EINTR/EAGAIN retries allowed in one call before it fails.
constexpr int kMaxRetries = 1000;

// What to check when io_uring cannot be set up.
std::string_view setup_hint(int err) {
  switch (err) {
    case ENOSYS:
      return " (kernel without io_uring, or blocked by a seccomp filter; choose the POSIX "
             "backend)";
    case EPERM:
      return " (io_uring disabled by sysctl kernel.io_uring_disabled or by a container "
             "policy; choose the POSIX backend)";
    case ENOMEM:
      return " (RLIMIT_MEMLOCK too low for the rings on kernels before 5.12)";
    default:
      return "";
  }
}

}  // namespace

Result<std::unique_ptr<WriteBackend>> UringBackend::create(int fd) {
  std::unique_ptr<UringBackend> backend(new UringBackend(fd));
  const int rc = io_uring_queue_init(kUringQueueEntries, &backend->ring_, 0);
  if (rc < 0) {
    return Status::io_error(
        "io_uring_queue_init: " + base::errno_text(-rc) + std::string(setup_hint(-rc)), -rc);
  }
  backend->ring_ready_ = true;
  // The probe exists from kernel 5.6; without it, trust the kernel (WRITEV and FSYNC
  // came with io_uring itself in 5.1).
  if (io_uring_probe* probe = io_uring_get_probe_ring(&backend->ring_)) {
    const bool supported = io_uring_opcode_supported(probe, IORING_OP_WRITEV) &&
                           io_uring_opcode_supported(probe, IORING_OP_FSYNC);
    io_uring_free_probe(probe);
    if (!supported) {
      return Status::io_error(
          "io_uring lacks IORING_OP_WRITEV or IORING_OP_FSYNC (kernel too old or "
          "restricted; choose the POSIX backend)",
          EOPNOTSUPP);
    }
  }
  // The file is not registered with the ring: a registered file is held by the
  // ring until its asynchronous teardown, so after a crash (SIGKILL) the
  // flock would outlive the process and a restart would find the file Busy.
  backend->fixed_file_ = false;
  backend->max_in_flight_ = backend->ring_.cq.ring_entries;
  return std::unique_ptr<WriteBackend>(std::move(backend));
}

UringBackend::~UringBackend() {
  if (!ring_ready_) return;
  // The ring holds a reference to a registered file and tears down asynchronously;
  // unregistering first (synchronous) lets close(fd) release the flock at once.
  if (fixed_file_) (void)io_uring_unregister_files(&ring_);
  io_uring_queue_exit(&ring_);
}

Status UringBackend::write(std::span<const WriteSpan> spans, bool sync_after) {
  if (!sync_after) return unsynced_.write(spans, false);
  ORDO_RETURN_IF_ERROR(plan_.build(spans));
  return run_batch(kFirstPlan, sync_after);
}

Status UringBackend::write_ordered(std::span<const WriteSpan> first,
                                   std::span<const WriteSpan> then, bool sync_after) {
  if (!sync_after) return unsynced_.write_ordered(first, then, false);
  ORDO_RETURN_IF_ERROR(plan_.build(first));
  ORDO_RETURN_IF_ERROR(then_plan_.build(then));
  const size_t operations = plan_.runs().size() + then_plan_.runs().size() + (sync_after ? 1 : 0);
  if (chain_fits(operations)) {
    ORDO_RETURN_IF_ERROR(run_chain(sync_after));
    if (!chain_incomplete_) return Status::ok();
  }
  // What the chain left (or all of it, when it did not fit), group after group. Runs
  // the chain finished have no bytes left and are skipped.
  ORDO_RETURN_IF_ERROR(run_batch(kFirstPlan, false));
  return run_batch(kThenPlan, sync_after);
}

Status UringBackend::sync() {
  ORDO_RETURN_IF_ERROR(plan_.build({}));
  return run_batch(kFirstPlan, /*sync_after=*/true);
}

void UringBackend::reset_batch(bool sync_after, bool chained) {
  pending_head_ = 0;
  in_flight_ = 0;
  sync_after_ = sync_after;
  sync_wanted_ = sync_after;
  chained_ = chained;
  chain_incomplete_ = false;
  retries_ = 0;
  error_ = Status::ok();
}

Status UringBackend::run_batch(uint32_t id, bool sync_after) {
  if (broken_) {
    return Status::io_error("io_uring ring is unusable after an earlier io_uring_enter failure",
                            EIO);
  }
  reset_batch(sync_after, /*chained=*/false);
  active_plan_ = id;
  std::span<const WriteRun> runs = plan(id).runs();
  pending_.clear();
  pending_.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].size_bytes > 0) pending_.push_back(static_cast<uint32_t>(i));
  }

  while (true) {
    if (error_.is_ok()) queue_operations();
    if (in_flight_ == 0) break;
    submit_and_wait();
    if (broken_) break;
    reap_completions();
  }
  return std::move(error_);
}

bool UringBackend::chain_fits(size_t operations) const {
  return operations > 0 && operations <= ring_.sq.ring_entries && operations <= max_in_flight_;
}

Status UringBackend::run_chain(bool sync_after) {
  if (broken_) {
    return Status::io_error("io_uring ring is unusable after an earlier io_uring_enter failure",
                            EIO);
  }
  reset_batch(sync_after, /*chained=*/true);
  const int file = fixed_file_ ? 0 : fd_;
  io_uring_sqe* last = nullptr;
  for (const uint32_t id : {kFirstPlan, kThenPlan}) {
    std::span<WriteRun> runs = plan(id).runs();
    std::span<iovec> iovecs = plan(id).iovecs();
    for (size_t i = 0; i < runs.size(); ++i) {
      last = next_sqe();  // chain_fits(): never nullptr
      io_uring_prep_writev(last, file, &iovecs[runs[i].first_iov],
                           static_cast<unsigned>(runs[i].iov_count), runs[i].offset_bytes);
      // Linked: the next operation starts only after this one wrote all its bytes; a
      // failed or short write cancels the rest of the chain.
      last->flags |= file_flags() | IOSQE_IO_LINK;
      io_uring_sqe_set_data64(last, (uint64_t{id} << 32) | i);
    }
  }
  if (sync_after) {
    last = next_sqe();
    io_uring_prep_fsync(last, file, IORING_FSYNC_DATASYNC);
    last->flags |= file_flags();
    io_uring_sqe_set_data64(last, kSyncTag);
    sync_wanted_ = false;
  } else if (last != nullptr) {
    last->flags &= static_cast<uint8_t>(~IOSQE_IO_LINK);
  }
  while (in_flight_ > 0) {
    submit_and_wait();
    if (broken_) break;
    reap_completions();
  }
  return std::move(error_);
}

io_uring_sqe* UringBackend::next_sqe() {
  if (in_flight_ >= max_in_flight_) return nullptr;
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) return nullptr;
  ++in_flight_;
  return sqe;
}

void UringBackend::queue_operations() {
  const int file = fixed_file_ ? 0 : fd_;
  std::span<WriteRun> runs = plan(active_plan_).runs();
  std::span<iovec> iovecs = plan(active_plan_).iovecs();
  while (pending_head_ < pending_.size()) {
    io_uring_sqe* sqe = next_sqe();
    if (sqe == nullptr) return;
    const uint32_t index = pending_[pending_head_++];
    const WriteRun& run = runs[index];
    io_uring_prep_writev(sqe, file, &iovecs[run.first_iov], static_cast<unsigned>(run.iov_count),
                         run.offset_bytes);
    sqe->flags |= file_flags();
    io_uring_sqe_set_data64(sqe, (uint64_t{active_plan_} << 32) | index);
  }
  if (!sync_wanted_) return;
  io_uring_sqe* sqe = next_sqe();
  if (sqe == nullptr) return;
  io_uring_prep_fsync(sqe, file, IORING_FSYNC_DATASYNC);
  // Drain: starts only after every earlier submitted operation completed.
  sqe->flags |= file_flags() | IOSQE_IO_DRAIN;
  io_uring_sqe_set_data64(sqe, kSyncTag);
  sync_wanted_ = false;
}

void UringBackend::submit_and_wait() {
  // Waiting for the whole batch (not just one completion) refills the queue in full
  // batches: one io_uring_enter per kUringQueueEntries operations.
  ++submissions_;
  const int rc = io_uring_submit_and_wait(&ring_, in_flight_);
  if (rc >= 0) return;
  // EINTR: a signal; EAGAIN/EBUSY: kernel short of memory or completions to reap first.
  if ((rc == -EINTR || rc == -EAGAIN || rc == -EBUSY) && may_retry("io_uring_enter", -rc)) {
    return;
  }
  // The ring cannot be driven any more; what is in flight completes on ring teardown.
  record_error(base::os_error("io_uring_enter", -rc));
  broken_ = true;
}

void UringBackend::reap_completions() {
  io_uring_cqe* cqe = nullptr;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe != nullptr) {
    const uint64_t tag = io_uring_cqe_get_data64(cqe);
    const int result = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);
    --in_flight_;
    if (tag == kSyncTag) {
      on_sync_completion(result);
    } else {
      on_write_completion(tag, result);
    }
  }
}

void UringBackend::on_write_completion(uint64_t tag, int result) {
  const auto run_index = static_cast<uint32_t>(tag);
  WritePlan& owner = plan(static_cast<uint32_t>(tag >> 32));
  WriteRun& run = owner.runs()[run_index];
  // Built only on error paths: the normal path allocates nothing.
  auto what = [&run] { return "io_uring writev at offset " + std::to_string(run.offset_bytes); };
  if (result < 0) {
    if (result == -EINTR || result == -EAGAIN) {
      if (may_retry("io_uring writev", -result)) retry_write(run_index);
    } else if (result == -ECANCELED && chained_) {
      chain_incomplete_ = true;  // behind a short or retryable write: not written
    } else {
      record_error(base::write_error(what(), -result));
    }
    return;
  }
  if (result == 0) {
    record_error(Status::io_error(what() + " wrote nothing", EIO));
    return;
  }
  advance_run(run, owner.iovecs(), static_cast<uint64_t>(result));
  if (run.size_bytes == 0) return;
  // Short write: submit the rest; a sync already queued may have run before it.
  retry_write(run_index);
  if (sync_after_ && !chained_) sync_wanted_ = true;
}

void UringBackend::on_sync_completion(int result) {
  if (result >= 0) return;
  if (result == -EINTR || result == -EAGAIN) {
    if (may_retry("io_uring fdatasync", -result)) retry_sync();
    return;
  }
  if (result == -ECANCELED && chained_) {
    chain_incomplete_ = true;
    return;
  }
  record_error(base::write_error("io_uring fdatasync", -result));
}

void UringBackend::retry_write(uint32_t run_index) {
  if (chained_) {
    chain_incomplete_ = true;  // run_batch writes what the run has left
  } else {
    pending_.push_back(run_index);
  }
}

void UringBackend::retry_sync() {
  if (chained_) {
    chain_incomplete_ = true;
  } else {
    sync_wanted_ = true;
  }
}

bool UringBackend::may_retry(std::string_view what, int err) {
  if (++retries_ <= kMaxRetries) return true;
  record_error(base::os_error(
      std::string(what) + " (still failing after " + std::to_string(kMaxRetries) + " retries)",
      err));
  return false;
}

void UringBackend::record_error(Status status) {
  if (error_.is_ok()) error_ = std::move(status);
}

}  // namespace ordo::io
