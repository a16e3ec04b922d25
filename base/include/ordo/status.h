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
//                    a name that is not allowed, a tree handle of another
//                    database, a file of another page size than asked for, a
//                    handle used in a forked child.
//   kCorruption      the file is damaged: the message names the page number and
//                    what failed (checksum, page type, key order, ...).
//   kIOError         the operating system failed a call; errno() holds errno.
//   kBusy            the writer lock is held: by another open handle of the
//                    file (this process or another), or by a write txn that is
//                    still open (a second begin_write on its thread, a
//                    try_begin_write, or a begin_write whose timeout ran out).
//   kFull            the disk, the file size limit or the address reservation
//                    is exhausted.
//   kNotOrdoFile     the file is not an ordo database (no ordo magic where
//                    the meta pages should be, or empty).
//   kVersionMismatch the file is an ordo database of a format version this
//                    build does not read (LMDB's MDB_VERSION_MISMATCH).
//   kTxnEnded        the txn was committed, aborted or moved from, or the
//                    cursor's txn was (LMDB's MDB_BAD_TXN).
//   kNeedsRecovery   a read-only open found commits in the file's log whose
//                    pages are not all in the file (a crash of the machine,
//                    or damage such as a cut file: the message names it);
//                    only a writable open can replay them.
//   kCompareFailed   a guard of a replicated WriteBatch (check_value,
//                    check_absent, check_present) did not hold, so the batch
//                    changed nothing; the message names the guard. No engine
//                    call returns it (WriteTxn::insert and compare_and_set
//                    answer false instead).
//
// Codes are stable: a program branches on code() (or the is_*() helpers),
// never on message(), whose wording may change.
//
// Thread-safety: Status and Result are values; distinct objects may be used
// from distinct threads freely.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
    kNotOrdoFile,
    kVersionMismatch,
    kTxnEnded,
    kNeedsRecovery,
    kCompareFailed,
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
  static Status not_ordo_file(std::string msg) {
    return Status(Code::kNotOrdoFile, std::move(msg));
  }
  static Status version_mismatch(std::string msg) {
    return Status(Code::kVersionMismatch, std::move(msg));
  }
  static Status txn_ended(std::string msg) { return Status(Code::kTxnEnded, std::move(msg)); }
  static Status needs_recovery(std::string msg) {
    return Status(Code::kNeedsRecovery, std::move(msg));
  }
  static Status compare_failed(std::string msg) {
    return Status(Code::kCompareFailed, std::move(msg));
  }

  bool is_ok() const { return code_ == Code::kOk; }
  explicit operator bool() const { return is_ok(); }
  Code code() const { return code_; }
  bool is_not_found() const { return code_ == Code::kNotFound; }
  bool is_invalid_argument() const { return code_ == Code::kInvalidArgument; }
  bool is_corruption() const { return code_ == Code::kCorruption; }
  bool is_io_error() const { return code_ == Code::kIOError; }
  bool is_busy() const { return code_ == Code::kBusy; }
  bool is_full() const { return code_ == Code::kFull; }
  bool is_not_ordo_file() const { return code_ == Code::kNotOrdoFile; }
  bool is_version_mismatch() const { return code_ == Code::kVersionMismatch; }
  bool is_txn_ended() const { return code_ == Code::kTxnEnded; }
  bool is_needs_recovery() const { return code_ == Code::kNeedsRecovery; }
  bool is_compare_failed() const { return code_ == Code::kCompareFailed; }

  // The human-readable reason; empty for ok.
  const std::string& message() const { return message_; }
  // errno for kIOError, 0 otherwise.
  int errno_value() const { return errno_; }
  // Page number for kCorruption tied to a page, kNoPage otherwise.
  uint64_t page_number() const { return page_number_; }

  // The same status (code, errno, page number) with "<prefix>: " put before
  // its message; ok stays ok.
  Status with_context(std::string_view prefix) const {
    if (is_ok()) return *this;
    Status s = *this;
    s.message_ = std::string(prefix) + ": " + message_;
    return s;
  }

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
      case Code::kOk:
        return "OK";
      case Code::kNotFound:
        return "NotFound";
      case Code::kInvalidArgument:
        return "InvalidArgument";
      case Code::kCorruption:
        return "Corruption";
      case Code::kIOError:
        return "IOError";
      case Code::kBusy:
        return "Busy";
      case Code::kFull:
        return "Full";
      case Code::kNotOrdoFile:
        return "NotOrdoFile";
      case Code::kVersionMismatch:
        return "VersionMismatch";
      case Code::kTxnEnded:
        return "TxnEnded";
      case Code::kNeedsRecovery:
        return "NeedsRecovery";
      case Code::kCompareFailed:
        return "CompareFailed";
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

namespace detail {
// Result::value() on an error: a program bug, like dereferencing a null
// pointer. Says which error was ignored, then aborts (no exception crosses
// the API).
[[noreturn, gnu::cold, gnu::noinline]] inline void value_of_error(const Status& status) {
  std::fprintf(stderr, "ordo: Result::value() called on an error: %s\n",
               status.to_string().c_str());
  std::fflush(stderr);
  std::abort();
}
}  // namespace detail

// Either a value of type T or a non-ok Status.
//
// value(), operator* and operator-> REQUIRE is_ok(): on an error they print
// "ordo: Result::value() called on an error: <status>" to stderr and abort
// the process. Check is_ok() (or use ORDO_ASSIGN_OR_RETURN) first.
// status() is always valid: ok when the Result holds a value. A Result built
// from an ok Status holds InvalidArgument instead (there is no value to hold).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).is_ok()) {
      v_ = Status::invalid_argument("Result built from an ok Status holds no value");
    }
  }

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }

  const Status& status() const {
    static const Status kOkStatus;
    return is_ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(checked()); }

 private:
  T& checked() {
    T* v = std::get_if<T>(&v_);
    if (v == nullptr) [[unlikely]]
      detail::value_of_error(*std::get_if<Status>(&v_));
    return *v;
  }
  std::variant<T, Status> v_;
};

}  // namespace ordo

// Propagate a non-ok Status from an expression returning Status.
#define ORDO_RETURN_IF_ERROR(expr)                  \
  do {                                              \
    ::ordo::Status ordo_status_ = (expr);           \
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
