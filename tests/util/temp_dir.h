// The tests' temporary directory: sys::TempDir (sys/include/ordo/sys/temp_dir.h)
// made at construction, so that a test can declare one as a member or a local.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "ordo/sys/temp_dir.h"

namespace ordo::testing {

// A fresh directory "ordo-test.XXXXXX" under $TMPDIR (or /tmp), removed with
// its contents on destruction. Aborts when no directory can be made: no test
// can run without one.
class TempDir {
 public:
  TempDir() : dir_(make("")) {}
  // Under `base` (for example /dev/shm, where fdatasync costs nothing).
  explicit TempDir(const std::string& base) : dir_(make(base)) {}

  const std::string& path() const { return dir_.path(); }
  // path()/name
  std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  static sys::TempDir make(const std::string& base) {
    Result<sys::TempDir> dir = sys::TempDir::make("ordo-test.", base);
    if (!dir.is_ok()) {
      std::fprintf(stderr, "%s\n", dir.status().to_string().c_str());
      std::abort();
    }
    return std::move(*dir);
  }

  sys::TempDir dir_;
};

// The whole of the file at `path` ("" when it cannot be read): a test's
// look at a log or an output file.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace ordo::testing
