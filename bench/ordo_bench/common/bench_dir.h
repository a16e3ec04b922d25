// BenchDir: where a benchmark puts its database files, and their removal
// afterwards.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ordo/status.h"

namespace ordo::bench {

// Move-only. Thread-compatible (one thread).
class BenchDir {
 public:
  // `dir` empty: a fresh directory (sys::make_temp_dir) under $TMPDIR (or /tmp), removed
  // with its contents at the end unless `keep`. Otherwise `dir` (created when
  // missing) is the user's: only the files this run made are removed, unless
  // `keep`. IOError when a directory cannot be made.
  static Result<BenchDir> open(const std::string& dir, bool keep);

  BenchDir(BenchDir&& other) noexcept;
  BenchDir& operator=(BenchDir&&) = delete;
  ~BenchDir();

  // The path for a new database file or store directory `name` in this
  // directory.
  // InvalidArgument if something already exists there: runs never reuse a file.
  Result<std::string> new_file(std::string_view name);

  const std::string& path() const { return dir_; }
  bool keep() const { return keep_; }

 private:
  BenchDir(std::string dir, bool owns_dir, bool keep);

  std::string dir_;
  bool owns_dir_ = false;  // made by us: remove it whole
  bool keep_ = false;
  std::vector<std::string> files_;
};

// Writes `text` to `path`, replacing what was there. IOError when it cannot.
Status write_text_file(const std::string& path, std::string_view text);

}  // namespace ordo::bench
