// The one temporary-directory helper of the tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ordo::testing {

// A fresh directory from mkdtemp under $TMPDIR (or /tmp), removed with its
// contents on destruction. Aborts when no directory can be made: no test can
// run without one.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    make(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  }
  // Under `base` (for example /dev/shm, where fdatasync costs nothing).
  explicit TempDir(const std::string& base) { make(base); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path()/name
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  void make(const std::string& base) {
    std::string pattern = base + "/ordo-test.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }

  std::string path_;
};

}  // namespace ordo::testing
