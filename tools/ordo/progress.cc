#include "progress.h"

#include <fmt/core.h>
#include <unistd.h>

namespace ordo::tool {

Progress::Progress(std::string what, std::string unit, uint64_t min_total)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      min_total_(min_total),
      enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  if (total != 0 && total < min_total_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  if (total == 0) {
    fmt::print(stderr, "\r{} {} {}\033[K", what_, done, unit_);
    return;
  }
  constexpr int kWidth = 30;
  const double frac = done >= total ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(frac * kWidth);
  fmt::print(stderr, "\r{} [{}{}] {:3.0f}%  {} of {} {}\033[K", what_, std::string(filled, '#'),
             std::string(kWidth - filled, '.'), frac * 100, done, total, unit_);
}

void Progress::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace ordo::tool
