#include "phase_memory.h"

#include <algorithm>

namespace ordo::bench {

PhaseMemory::PhaseMemory(std::chrono::milliseconds interval)
    : sampler_([this, interval] { run_sampler(interval); }) {}

PhaseMemory::~PhaseMemory() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  sampler_.join();
}

void PhaseMemory::begin(std::string_view phase) {
  end();
  const ProcessMemory mem = process_memory();
  std::lock_guard<std::mutex> g(mu_);
  current_ = PhaseFigures{};
  current_.phase = std::string(phase);
  started_ = std::chrono::steady_clock::now();
  open_ = true;
  generation_++;
  record(mem);
}

void PhaseMemory::sample() {
  const ProcessMemory mem = process_memory();
  std::lock_guard<std::mutex> g(mu_);
  record(mem);
}

void PhaseMemory::end() {
  const ProcessMemory mem = process_memory();
  std::lock_guard<std::mutex> g(mu_);
  if (!open_) return;
  record(mem);
  current_.at_end = mem;
  current_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  done_.push_back(current_);
  open_ = false;
}

std::vector<PhaseFigures> PhaseMemory::phases() const {
  std::lock_guard<std::mutex> g(mu_);
  return done_;
}

void PhaseMemory::record(const ProcessMemory& mem) {
  if (!open_) return;
  current_.samples++;
  current_.peak_rss_anon_bytes = std::max(current_.peak_rss_anon_bytes, mem.rss_anon_bytes);
  current_.peak_rss_file_bytes = std::max(current_.peak_rss_file_bytes, mem.rss_file_bytes);
  current_.peak_rss_shmem_bytes = std::max(current_.peak_rss_shmem_bytes, mem.rss_shmem_bytes);
}

void PhaseMemory::run_sampler(std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_cv_.wait_for(lock, interval, [this] { return stop_; })) {
    if (!open_) continue;
    const uint64_t generation = generation_;
    lock.unlock();
    const ProcessMemory mem = process_memory();  // outside the lock: it reads a file
    lock.lock();
    if (generation == generation_) record(mem);  // else it belongs to an ended phase
  }
}

}  // namespace ordo::bench
