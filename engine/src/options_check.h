// The checks Database::open makes of its Options before touching the file.
#pragma once

#include <cstdint>

#include "ordo/options.h"
#include "ordo/status.h"

namespace ordo::engine {

// Options::log_bytes: its default and range.
inline constexpr uint64_t kDefaultLogBytes = 4ull << 20;
inline constexpr uint64_t kMinLogBytes = 64ull << 10;
inline constexpr uint64_t kMaxLogBytes = 1ull << 30;

// Ok when every field is in range; else InvalidArgument naming the first
// field that is not (page size, log bytes, txn memory budget, append fill, id node).
Status check_options(const Options& options);

}  // namespace ordo::engine
