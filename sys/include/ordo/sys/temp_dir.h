// Temporary directories: a fresh one from mkdtemp(3), and one removed with
// its contents when its owner goes. Thread-safety: free functions from any
// thread; a TempDir is used by one thread at a time.
#pragma once

#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::sys {

// $TMPDIR when set and not empty, else "/tmp".
std::string temp_root();

// A new directory "<base>/<prefix>XXXXXX" (mode 0700, the X's made unique by
// mkdtemp) with `base` "" meaning temp_root(); returns its path. IOError
// "mkdtemp <pattern>: <errno text>" when it cannot be made.
Result<std::string> make_temp_dir(std::string_view prefix, std::string_view base = "");

// A directory made by make_temp_dir, removed with its contents by the
// destructor (best effort: a failure to remove is ignored). Move-only.
class TempDir {
 public:
  // Errors as make_temp_dir.
  static Result<TempDir> make(std::string_view prefix, std::string_view base = "");

  // Takes over `other`'s directory; `other` is left with none. Assignment
  // first removes this object's own directory.
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Removes the directory with its contents.
  ~TempDir();

  // The directory; "" after a move from it.
  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string file(std::string_view name) const;

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  void remove();
  std::string path_;
};

}  // namespace ordo::sys
