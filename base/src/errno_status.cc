#include "ordo/base/errno_status.h"

#include <cerrno>
#include <cstring>

namespace ordo::base {

std::string errno_text(int err) {
  char buffer[128];
  // GNU strerror_r: returns a pointer to the text (maybe not `buffer`).
  return std::string(strerror_r(err, buffer, sizeof(buffer)));
}

bool is_no_space_errno(int err) { return err == ENOSPC || err == EDQUOT || err == EFBIG; }

Status os_error(std::string_view what, int err) {
  return Status::io_error(std::string(what) + ": " + errno_text(err), err);
}

Status write_error(std::string_view what, int err) {
  if (is_no_space_errno(err)) return Status::full(std::string(what) + ": " + errno_text(err));
  return os_error(what, err);
}

}  // namespace ordo::base
