// Helpers for the tests that run the `ordo` tool: run it, parse its JSON,
// read files whole, quote for a shell.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tools_test_util.h"

namespace ordo::testing {

inline ProcessResult ordo_tool(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ORDO_TOOL_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// Runs `command` with /bin/sh -c (for redirections and limits).
inline ProcessResult shell(const std::string& command) {
  return run_process({"/bin/sh", "-c", command});
}

inline std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline nlohmann::json parse_json(const ProcessResult& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << r.out << "\nstderr:\n" << r.err;
  return j;
}

inline std::string read_file(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path, std::ios::binary).rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A dump without its mapsize= lines (the file's size, not its contents).
inline std::string without_mapsize(std::string d) {
  for (size_t at; (at = d.find("mapsize=")) != std::string::npos;) {
    d.erase(at, d.find('\n', at) - at + 1);
  }
  return d;
}

// True when every byte of `text` is printable ASCII, a tab or a newline, or
// part of valid UTF-8 (what the tool may print in messages).
inline bool terminal_safe(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) continue;
    if (c < 0x80) return false;
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || i + len > text.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += len - 1;
  }
  return true;
}

}  // namespace ordo::testing
