#include "ordo/sys/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

#include "ordo/base/errno_status.h"

namespace ordo::sys {

std::string temp_root() {
  // Only a concurrent setenv would race, and nothing in ordo calls it.
  const char* tmp = std::getenv("TMPDIR");  // NOLINT(concurrency-mt-unsafe)
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

Result<std::string> make_temp_dir(std::string_view prefix, std::string_view base) {
  std::string pattern = base.empty() ? temp_root() : std::string(base);
  pattern.append("/").append(prefix).append("XXXXXX");
  std::string path = pattern;  // mkdtemp rewrites the X's, also when it fails
  if (::mkdtemp(path.data()) == nullptr) return base::os_error("mkdtemp " + pattern, errno);
  return path;
}

Result<TempDir> TempDir::make(std::string_view prefix, std::string_view base) {
  ORDO_ASSIGN_OR_RETURN(std::string path, make_temp_dir(prefix, base));
  return TempDir(std::move(path));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, std::string())) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

TempDir::~TempDir() { remove(); }

std::string TempDir::file(std::string_view name) const { return path_ + "/" + std::string(name); }

void TempDir::remove() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace ordo::sys
