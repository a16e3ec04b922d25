// How every subcommand reports a run that failed.
#pragma once

#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::bench {

// Exit code of a failed run (an engine error or a failed check).
inline constexpr int kExitError = 1;

// "ordo-bench: WHAT FAILED for PATH: STATUS" on stderr.
void report_failure(std::string_view what, const std::string& path, const Status& status);

}  // namespace ordo::bench
