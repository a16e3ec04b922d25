#include "errno_status.h"

#include <cerrno>
#include <cstring>

namespace ordo::io {

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

Status with_context(const Status& status, std::string_view prefix) {
  std::string message = std::string(prefix) + ": " + status.message();
  switch (status.code()) {
    case Status::Code::kOk:
      return status;
    case Status::Code::kNotFound:
      return Status::not_found(std::move(message));
    case Status::Code::kInvalidArgument:
      return Status::invalid_argument(std::move(message));
    case Status::Code::kCorruption:
      return Status::corruption(std::move(message), status.page_number());
    case Status::Code::kIOError:
      return Status::io_error(std::move(message), status.errno_value());
    case Status::Code::kBusy:
      return Status::busy(std::move(message));
    case Status::Code::kFull:
      return Status::full(std::move(message));
  }
  return status;
}

}  // namespace ordo::io
