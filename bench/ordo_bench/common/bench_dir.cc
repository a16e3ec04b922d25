#include "bench_dir.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "ordo/sys/temp_dir.h"

namespace ordo::bench {
namespace fs = std::filesystem;

Result<BenchDir> BenchDir::open(const std::string& dir, bool keep) {
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Status::io_error("cannot create directory " + dir, ec.value());
    return BenchDir(dir, /*owns_dir=*/false, keep);
  }
  ORDO_ASSIGN_OR_RETURN(std::string made, sys::make_temp_dir("ordo-bench-"));
  return BenchDir(std::move(made), /*owns_dir=*/true, keep);
}

BenchDir::BenchDir(std::string dir, bool owns_dir, bool keep)
    : dir_(std::move(dir)), owns_dir_(owns_dir), keep_(keep) {}

BenchDir::BenchDir(BenchDir&& other) noexcept
    : dir_(std::move(other.dir_)),
      owns_dir_(other.owns_dir_),
      keep_(other.keep_),
      files_(std::move(other.files_)) {
  other.owns_dir_ = false;
  other.keep_ = true;  // the moved-from object removes nothing
  other.files_.clear();
}

BenchDir::~BenchDir() {
  if (keep_) return;
  std::error_code ec;  // best effort: a leftover temp file is not worth a failure
  if (owns_dir_) {
    fs::remove_all(dir_, ec);
    return;
  }
  for (const std::string& file : files_) fs::remove_all(file, ec);  // a peer's store is a directory
}

Result<std::string> BenchDir::new_file(std::string_view name) {
  std::string path = (fs::path(dir_) / name).string();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(path, ec))) {
    return Status::invalid_argument(path + " already exists: remove it or choose another --path");
  }
  files_.push_back(path);
  return path;
}

Status write_text_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::io_error("cannot write " + path, errno);
  return Status::ok();
}

}  // namespace ordo::bench
