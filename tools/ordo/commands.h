// The subcommands of the `ordo` tool. Each one prints its report on stdout
// (text, or one JSON object with `json`), its errors on stderr, and returns
// the process exit code.
#pragma once

#include <string>

namespace ordo::tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // the file could not be opened or read
inline constexpr int kExitUsage = 2;  // bad command line

// `ordo info FILE`: page size, format, file length, both meta pages, ID
// high-water marks.
int run_info(const std::string& path, bool json);

// `ordo stat FILE`: shape and fill of the default tree and every named tree.
int run_stat(const std::string& path, bool json);

// `ordo check FILE`: full integrity walk; exit 0 when clean, 1 with the list
// of problems (page number and what) otherwise.
int run_check(const std::string& path, bool json);

}  // namespace ordo::tool
