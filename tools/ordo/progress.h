// A progress bar on stderr for long commands (check, copy, dump, load),
// drawn only when stderr is a terminal, at most ten times a second, and
// erased when done. Silent otherwise, so scripts and logs never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ordo::tool {

class Progress {
 public:
  // `what`: "checked", "copied", ...; `unit`: "pages", "records", "bytes".
  // `min_total`: below this total nothing is drawn (small jobs are quick).
  Progress(std::string what, std::string unit, uint64_t min_total = 65536);
  ~Progress();
  // `total` 0: unknown (shows the count only).
  void update(uint64_t done, uint64_t total);
  // Erases the bar (also done by the destructor).
  void finish();

 private:
  std::string what_, unit_;
  uint64_t min_total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace ordo::tool
