#include "run_failure.h"

#include <fmt/core.h>

namespace ordo::bench {

void report_failure(std::string_view what, const std::string& path, const Status& status) {
  fmt::print(stderr, "ordo-bench: {} FAILED for {}: {}\n", what, path, status.to_string());
}

}  // namespace ordo::bench
