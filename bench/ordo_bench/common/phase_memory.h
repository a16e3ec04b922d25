// PhaseMemory: peak resident memory per phase of a run (load, commit,
// verify), anonymous and file-backed apart: the figures docs/BENCHMARKS.md reports.
// VmHWM is one high-water mark for the whole process; this keeps one per
// phase instead, from samples of /proc/self/status taken
//   - when a phase begins and ends,
//   - whenever the workload calls sample() (for example every N nodes), and
//   - every `interval` by a background thread, so that a phase that is one
//     long call (a commit) is sampled too.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "system_figures.h"

namespace ordo::bench {

// One phase: the largest RssAnon and RssFile seen (each its own maximum; they
// need not come from the same sample), and both at the phase's end.
struct PhaseFigures {
  std::string phase;
  double seconds = 0;
  uint64_t samples = 0;
  uint64_t peak_rss_anon_bytes = 0;
  uint64_t peak_rss_file_bytes = 0;
  uint64_t peak_rss_shmem_bytes = 0;
  ProcessMemory at_end;
};

// Thread-safe. Phases do not nest: begin() ends the current phase.
class PhaseMemory {
 public:
  explicit PhaseMemory(std::chrono::milliseconds interval = std::chrono::milliseconds(10));
  ~PhaseMemory();
  PhaseMemory(const PhaseMemory&) = delete;
  PhaseMemory& operator=(const PhaseMemory&) = delete;

  void begin(std::string_view phase);
  void sample();
  void end();

  // Every ended phase, in order.
  std::vector<PhaseFigures> phases() const;

 private:
  void record(const ProcessMemory& mem);  // REQUIRES: mu_ held
  void run_sampler(std::chrono::milliseconds interval);

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  bool open_ = false;        // a phase is running
  uint64_t generation_ = 0;  // phases begun so far
  PhaseFigures current_;
  std::chrono::steady_clock::time_point started_;
  std::vector<PhaseFigures> done_;
  std::thread sampler_;  // last: starts once everything above exists
};

}  // namespace ordo::bench
