// Status and Result<T>: how every fallible ordo call reports its outcome.
//
// No exception crosses the ordo API. A call that can fail returns a Status (or
// a Result<T> that holds either a T or a non-ok Status). Both are
// [[nodiscard]]: ignoring an error is a compile warning.
//
// Codes (the full set; each function documents which ones it returns):
//   kOk              success.
//   kNotFound        the key, tree or file asked for does not exist.
//   kInvalidArgument a wrong argument: an oversized key or value, a bad option,
//                    a name that is not allowed, a file that is not an ordo
//                    database or has another format version or page size.
//   kCorruption      the file is damaged: the message names the page number and
//                    what failed (checksum, page type, key order, ...).
//   kIOError         the operating system failed a call; errno() holds errno.
//   kBusy            the database file is locked by another open handle.
//   kFull            the disk, the file size limit or the address reservation
//                    is exhausted.
//
// Thread-safety: Status and Result are values; distinct objects may be used
// from distinct threads freely.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ordo {

class [[nodiscard]] Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound,
    kInvalidArgument,
    kCorruption,
    kIOError,
    kBusy,
    kFull,
  };

  Status() = default;

  static Status ok() { return Status(); }
  static Status not_found(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status invalid_argument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  // Corruption found on page `page_number` (or kNoPage when not tied to a page).
  static Status corruption(std::string msg, uint64_t page_number = kNoPage) {
    Status s(Code::kCorruption, std::move(msg));
    s.page_number_ = page_number;
    return s;
  }
  // An operating-system failure; `err` is the errno value.
  static Status io_error(std::string msg, int err) {
    Status s(Code::kIOError, std::move(msg));
    s.errno_ = err;
    return s;
  }
  static Status busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  static Status full(std::string msg) { return Status(Code::kFull, std::move(msg)); }

  bool is_ok() const { return code_ == Code::kOk; }
  explicit operator bool() const { return is_ok(); }
  Code code() const { return code_; }
  bool is_not_found() const { return code_ == Code::kNotFound; }
  bool is_invalid_argument() const { return code_ == Code::kInvalidArgument; }
  bool is_corruption() const { return code_ == Code::kCorruption; }
  bool is_io_error() const { return code_ == Code::kIOError; }
  bool is_busy() const { return code_ == Code::kBusy; }
  bool is_full() const { return code_ == Code::kFull; }

  // The human-readable reason; empty for ok.
  const std::string& message() const { return message_; }
  // errno for kIOError, 0 otherwise.
  int errno_value() const { return errno_; }
  // Page number for kCorruption tied to a page, kNoPage otherwise.
  uint64_t page_number() const { return page_number_; }

  // "Corruption: page 17: checksum mismatch" style text for logs and tools.
  std::string to_string() const {
    if (is_ok()) return "OK";
    std::string out(code_name(code_));
    out += ": ";
    if (page_number_ != kNoPage) {
      out += "page " + std::to_string(page_number_) + ": ";
    }
    out += message_;
    if (errno_ != 0) out += " (errno " + std::to_string(errno_) + ")";
    return out;
  }

  static std::string_view code_name(Code c) {
    switch (c) {
      case Code::kOk: return "OK";
      case Code::kNotFound: return "NotFound";
      case Code::kInvalidArgument: return "InvalidArgument";
      case Code::kCorruption: return "Corruption";
      case Code::kIOError: return "IOError";
      case Code::kBusy: return "Busy";
      case Code::kFull: return "Full";
    }
    return "Unknown";
  }

  static constexpr uint64_t kNoPage = ~uint64_t{0};

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  int errno_ = 0;
  uint64_t page_number_ = kNoPage;
  std::string message_;
};

// Either a value of type T or a non-ok Status.
// REQUIRES: value() only when is_ok(); status() is always valid.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).is_ok() && "Result built from an ok Status has no value");
  }

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }

  const Status& status() const {
    static const Status kOkStatus;
    return is_ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ordo

// Propagate a non-ok Status from an expression returning Status.
#define ORDO_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::ordo::Status ordo_status_ = (expr);     \
    if (!ordo_status_.is_ok()) return ordo_status_; \
  } while (0)

#define ORDO_CONCAT_INNER_(a, b) a##b
#define ORDO_CONCAT_(a, b) ORDO_CONCAT_INNER_(a, b)
// `ORDO_ASSIGN_OR_RETURN(auto x, expr)` for expr returning Result<T>.
#define ORDO_ASSIGN_OR_RETURN(lhs, expr) \
  ORDO_ASSIGN_OR_RETURN_IMPL_(ORDO_CONCAT_(ordo_result_, __LINE__), lhs, expr)
#define ORDO_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.is_ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
