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
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ordo-test.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
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
  std::string path_;
};

}  // namespace ordo::testing
