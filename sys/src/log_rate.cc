#include "ordo/sys/log_rate.h"

#include <cstdio>

namespace ordo::sys {

bool RateLimitedLog::print(const std::string& line) {
  std::string more;
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (printed_ && now - last_ < interval_) {
      ++unprinted_;
      return false;
    }
    if (unprinted_ > 0) {
      more = " (" + std::to_string(unprinted_) + " more since the last line)";
    }
    printed_ = true;
    last_ = now;
    unprinted_ = 0;
  }
  std::fprintf(stderr, "%s%s\n", line.c_str(), more.c_str());
  return true;
}

}  // namespace ordo::sys
