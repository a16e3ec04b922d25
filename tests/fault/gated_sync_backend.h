// A real (POSIX) backend whose syncs a test can hold open or slow down: the
// window between a meta's write and its sync returning, where readers of
// other handles look at the file.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "ordo/io/backend.h"
#include "ordo/io/file_options.h"

namespace ordo::testing {

// What the syncs of a GatedSyncBackend do; shared with the test.
struct SyncGate {
  std::mutex mu;
  std::condition_variable cv;
  // -1: syncs pass. Else that many syncs pass, and the next one waits (and
  // sets `waiting`) until `released`.
  int syncs_to_pass = -1;
  bool waiting = false;
  bool released = false;
  // Each sync sleeps this long first (a slow disk).
  std::chrono::microseconds delay{0};
};

// sync(), and write() with sync_after, go through the gate; everything else
// straight to the real backend.
class GatedSyncBackend final : public io::WriteBackend {
 public:
  GatedSyncBackend(std::unique_ptr<io::WriteBackend> real, std::shared_ptr<SyncGate> gate)
      : real_(std::move(real)), gate_(std::move(gate)) {}

  std::string_view name() const override { return "gated"; }
  Status write(std::span<const io::WriteSpan> spans, bool sync_after) override {
    if (!sync_after) return real_->write(spans, false);
    ORDO_RETURN_IF_ERROR(real_->write(spans, false));
    through_gate();
    return real_->sync();
  }
  Status sync() override {
    through_gate();
    return real_->sync();
  }
  Status write_durable(std::span<const io::WriteSpan> spans) override {
    return real_->write_durable(spans);
  }
  uint64_t submissions() const override { return real_->submissions(); }

 private:
  void through_gate() {
    std::unique_lock<std::mutex> lock(gate_->mu);
    if (gate_->delay.count() > 0) {
      const auto delay = gate_->delay;
      lock.unlock();
      std::this_thread::sleep_for(delay);
      lock.lock();
    }
    if (gate_->syncs_to_pass < 0) return;
    if (gate_->syncs_to_pass-- > 0) return;
    gate_->waiting = true;
    gate_->cv.notify_all();
    gate_->cv.wait(lock, [&] { return gate_->released; });
  }

  std::unique_ptr<io::WriteBackend> real_;
  std::shared_ptr<SyncGate> gate_;
};

// A FileOptions::backend_factory (DatabaseOpener::open) of GatedSyncBackends
// over POSIX, all through `gate`.
inline decltype(io::FileOptions::backend_factory) gated_sync_factory(
    std::shared_ptr<SyncGate> gate) {
  return [gate](int fd) -> Result<std::unique_ptr<io::WriteBackend>> {
    ORDO_ASSIGN_OR_RETURN(auto real, io::make_backend(fd, io::BackendKind::kPosix));
    return std::unique_ptr<io::WriteBackend>(new GatedSyncBackend(std::move(real), gate));
  };
}

}  // namespace ordo::testing
