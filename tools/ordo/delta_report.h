// The report of a delta file written (`ordo copy --since`) or applied
// (`ordo restore`), the same for both.
#pragma once

#include <string>

#include "ordo/changes.h"

namespace ordo::tool {

// Prints on stdout "VERB PATH: txn B -> txn T: ..." or, with `as_json`, one
// JSON object; `path` is the delta file.
void print_delta(const char* verb, const std::string& path, const DeltaResult& result,
                 bool as_json);

}  // namespace ordo::tool
