// A tmpfs mounted for a test's lifetime: a small disk that fills up.
#pragma once

#include <sys/mount.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace ordo::testing {

// A tmpfs of `size` ("16m") mounted on `dir` (made when missing) while the
// object lives. Mounting needs root: mounted() is false and error() EPERM
// where it is not permitted, and the test skips.
class TmpfsMount {
 public:
  TmpfsMount(const std::string& dir, const std::string& size) : dir_(dir) {
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    const std::string data = "size=" + size;
    if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, data.c_str()) == 0) {
      mounted_ = true;
    } else {
      errno_ = errno;
    }
  }
  ~TmpfsMount() {
    // Lazy: a handle the test still holds after a failed assertion does not keep it mounted.
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  // Grows (or shrinks) the mounted tmpfs to `size`; errno on false.
  bool resize(const std::string& size) {
    const std::string data = "size=" + size;
    return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV,
                   data.c_str()) == 0;
  }
  bool mounted() const { return mounted_; }
  int error() const { return errno_; }

 private:
  std::string dir_;
  bool mounted_ = false;
  int errno_ = 0;
};

}  // namespace ordo::testing
