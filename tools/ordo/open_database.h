// Opening a database for inspection, and reporting failures the same way in
// every subcommand.
#pragma once

#include <memory>
#include <string>

#include "ordo/database.h"
#include "ordo/status.h"

namespace ordo::tool {

// Prints "ordo: PATH: STATUS" on stderr.
void report_error(const std::string& path, const Status& status);

// Opens `path` read-only (no lock: works while another process writes it).
// On failure reports the status and returns null.
std::unique_ptr<Database> open_for_inspection(const std::string& path);

// Prints `text` and a newline on stdout (a JSON document).
void print_line(const std::string& text);

}  // namespace ordo::tool
