// The checks Database::open makes of its Options before touching the file.
#pragma once

#include "ordo/options.h"
#include "ordo/status.h"

namespace ordo::engine {

// Ok when every field is in range; else InvalidArgument naming the first
// field that is not (page size, txn memory budget, append fill, id node).
Status check_options(const Options& options);

}  // namespace ordo::engine
