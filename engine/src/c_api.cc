// The C API (ordo/ordo.h) over the C++ API: each entry point checks its C
// arguments, makes one C++ call and turns the Status into a code and an
// ordo_error. guard() keeps every exception on this side.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ordo/assert.h"
#include "ordo/database.h"
#include "ordo/ordo.h"
#include "savepoint_handles.h"

using ordo::ByteView;
using ordo::Result;
using ordo::Status;

struct ordo_db {
  std::unique_ptr<ordo::Database> db;
};

struct ordo_txn {
  std::unique_ptr<ordo::Txn> owned;  // null when lent (ordo_batch's txn)
  ordo::Txn* txn = nullptr;
  ordo::WriteTxn* writer = nullptr;  // `txn` as a WriteTxn; null for a read txn
  int scans = 0;                     // ordo_scan calls of this txn in progress
  bool free_when_scans_end = false;  // ordo_txn_free was called from a scan callback
  bool lent = false;                 // ordo_batch's: its caller's function must not free it
  std::string old_value;             // ordo_replace's last old value, which it points into
};

struct ordo_cursor {
  ordo::Cursor cursor;
};

struct ordo_tree {
  ordo::Tree tree;
};

namespace {

using Code = Status::Code;
static_assert(ORDO_OK == static_cast<int>(Code::kOk));
static_assert(ORDO_NOT_FOUND == static_cast<int>(Code::kNotFound));
static_assert(ORDO_INVALID_ARGUMENT == static_cast<int>(Code::kInvalidArgument));
static_assert(ORDO_CORRUPTION == static_cast<int>(Code::kCorruption));
static_assert(ORDO_IO_ERROR == static_cast<int>(Code::kIOError));
static_assert(ORDO_BUSY == static_cast<int>(Code::kBusy));
static_assert(ORDO_FULL == static_cast<int>(Code::kFull));
static_assert(ORDO_NOT_ORDO_FILE == static_cast<int>(Code::kNotOrdoFile));
static_assert(ORDO_VERSION_MISMATCH == static_cast<int>(Code::kVersionMismatch));
static_assert(ORDO_TXN_ENDED == static_cast<int>(Code::kTxnEnded));
static_assert(ORDO_NEEDS_RECOVERY == static_cast<int>(Code::kNeedsRecovery));
static_assert(ORDO_COMPARE_FAILED == static_cast<int>(Code::kCompareFailed));
// The last Status code: every one up to it has its ORDO_* constant.
constexpr int kLastStatusCode = ORDO_COMPARE_FAILED;
static_assert(ORDO_UUID_BYTES == ordo::Uuid::kSize);
static_assert(ORDO_UUID_STRING_SIZE == ordo::Uuid::kStringLength + 1);

// Where an empty view points: callers get a non-NULL pointer for every
// success (Rust slices may not be built from NULL).
constexpr unsigned char kNoBytes[1] = {0};

// An options struct larger than this is not an ordo_options of any version.
constexpr size_t kMaxOptionsBytes = 4096;

void fill(ordo_error* err, int code, int sys_errno, uint64_t page_number, std::string_view text) {
  if (err == nullptr) return;
  err->code = code;
  err->sys_errno = sys_errno;
  err->page_number = page_number;
  const size_t n = std::min(text.size(), sizeof(err->message) - 1);
  ORDO_ASSERT(n < sizeof(err->message));  // room for the terminating NUL
  std::memcpy(err->message, text.data(), n);
  err->message[n] = '\0';
}

int report(const char* fn, const Status& s, ordo_error* err) {
  if (err != nullptr) {
    if (s.is_ok()) {
      fill(err, ORDO_OK, 0, UINT64_MAX, "");
    } else {
      fill(err, static_cast<int>(s.code()), s.errno_value(), s.page_number(),
           s.with_context(fn).to_string());
    }
  }
  // Every Status code has its ORDO_* constant (the static_asserts above).
  ORDO_ASSERT(static_cast<int>(s.code()) >= ORDO_OK &&
              static_cast<int>(s.code()) <= kLastStatusCode);
  return static_cast<int>(s.code());
}

// Reports without allocating: for exceptions, including bad_alloc.
int report_exception(const char* fn, int code, const char* what, ordo_error* err) {
  ORDO_ASSERT(code == ORDO_NO_MEMORY || code == ORDO_INTERNAL);  // the codes of no Status
  if (err != nullptr) {
    fill(err, code, 0, UINT64_MAX, "");
    std::snprintf(err->message, sizeof(err->message), "%s: %s: %s", ordo_code_name(code), fn, what);
  }
  return code;
}

// Runs `body` (returning Status) for the C function `fn`; no exception leaves.
template <typename Body>
int guard(const char* fn, ordo_error* err, Body&& body) noexcept {
  try {
    return report(fn, body(), err);
  } catch (const std::bad_alloc&) {
    return report_exception(fn, ORDO_NO_MEMORY, "out of memory", err);
  } catch (const std::exception& e) {
    return report_exception(fn, ORDO_INTERNAL, e.what(), err);
  } catch (...) {
    return report_exception(fn, ORDO_INTERNAL, "unknown exception", err);
  }
}

// As guard() for functions that report nothing (free functions).
template <typename Body>
void quietly(Body&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

Status null_arg(const char* what) {
  return Status::invalid_argument(std::string(what) + " is NULL");
}

// A NULL out pointer is refused; a valid one is cleared so errors leave NULL.
template <typename T>
Status clear_out(T** out, const char* what) {
  if (out == nullptr) return null_arg(what);
  *out = nullptr;
  return Status::ok();
}

// (data, len) from C: NULL only with length 0.
Result<ByteView> bytes(const void* data, size_t len, const char* what) {
  if (data == nullptr && len != 0) {
    return Status::invalid_argument(std::string(what) + " is NULL with length " +
                                    std::to_string(len));
  }
  return ByteView(data, len);
}

void put_bytes(ByteView v, const void** data, size_t* len) {
  ORDO_ASSERT(data != nullptr && len != nullptr);  // out_bytes() refused NULL ones
  *data = v.data() != nullptr ? static_cast<const void*>(v.data()) : kNoBytes;
  *len = v.size();
}

Status out_bytes(const void** data, size_t* len, const char* what) {
  if (data == nullptr || len == nullptr) return null_arg(what);
  *data = nullptr;
  *len = 0;
  return Status::ok();
}

const ordo::Tree& tree_of(const ordo_tree* tree) {
  static const ordo::Tree kDefaultTree;
  return tree != nullptr ? tree->tree : kDefaultTree;
}

Result<ordo::Txn*> txn_of(ordo_txn* txn) {
  if (txn == nullptr) return null_arg("txn");
  ORDO_ASSERT(txn->txn != nullptr);  // Set by begin_txn, or by ordo_batch for its lent txn.
  return txn->txn;
}

Result<ordo::WriteTxn*> writer_of(ordo_txn* txn) {
  if (txn == nullptr) return null_arg("txn");
  if (txn->writer == nullptr) return Status::invalid_argument("a read txn cannot write");
  ORDO_ASSERT(txn->txn == txn->writer);  // one txn, seen as a Txn and as a WriteTxn
  return txn->writer;
}

Result<ordo::Cursor*> cursor_of(ordo_cursor* cursor) {
  if (cursor == nullptr) return null_arg("cursor");
  return &cursor->cursor;
}

Result<ordo::Database*> db_of(const ordo_db* db) {
  if (db == nullptr) return null_arg("db");
  ORDO_ASSERT(db->db != nullptr);  // ordo_open makes an ordo_db only around an open database
  return db->db.get();
}

// The range [from, to), or [from, end) for a NULL `to`.
Result<ordo::KeyRange> range_of(const void* from, size_t from_len, const void* to, size_t to_len) {
  ORDO_ASSIGN_OR_RETURN(ByteView lo, bytes(from, from_len, "from"));
  if (to == nullptr) {
    if (to_len != 0) return Status::invalid_argument("to is NULL (no upper bound) with a length");
    return ordo::KeyRange::starting_at(lo);
  }
  return ordo::KeyRange::between(lo, ByteView(to, to_len));
}

Status to_options(const ordo_options* in, ordo::Options* out) {
  if (in == nullptr) return Status::ok();
  if (in->struct_size < sizeof(ordo_options) || in->struct_size > kMaxOptionsBytes) {
    return Status::invalid_argument("options struct_size " + std::to_string(in->struct_size) +
                                    " is not that of an " + "ordo_options of this library (" +
                                    std::to_string(sizeof(ordo_options)) +
                                    " bytes): fill it with ordo_options_init");
  }
  // A newer caller's fields past ours: refused unless left at zero.
  const auto* raw = reinterpret_cast<const unsigned char*>(in);
  for (size_t i = sizeof(ordo_options); i < in->struct_size; ++i) {
    if (raw[i] != 0) {
      return Status::invalid_argument("options byte " + std::to_string(i) +
                                      " belongs to a field this library version does not know");
    }
  }
  out->page_size_bytes = in->page_size_bytes;
  out->writer_wait_ms = in->writer_wait_ms;
  out->extent_bytes = in->extent_bytes;
  out->max_extent_bytes = in->max_extent_bytes;
  out->map_reserve_bytes = in->map_reserve_bytes;
  out->txn_memory_budget_bytes = in->txn_memory_budget_bytes;
  out->append_fill = in->append_fill;
  out->id_node = in->id_node;
  out->create_if_missing = in->create_if_missing;
  out->read_only = in->read_only;
  out->sync_commits = in->sync_commits;
  out->verify_checksums = in->verify_checksums;
  out->trim_on_close = in->trim_on_close;
  out->log_bytes = in->log_bytes;
  switch (in->commit_protocol) {
    case ORDO_COMMIT_ONE_SYNC:
      out->commit_protocol = ordo::CommitProtocol::kOneSync;
      break;
    case ORDO_COMMIT_TWO_SYNC:
      out->commit_protocol = ordo::CommitProtocol::kTwoSync;
      break;
    case ORDO_COMMIT_LOG:
      out->commit_protocol = ordo::CommitProtocol::kLog;
      break;
    default:
      return Status::invalid_argument("unknown commit_protocol " +
                                      std::to_string(in->commit_protocol));
  }
  switch (in->io_backend) {
    case ORDO_IO_AUTO:
      out->io_backend = ordo::IoBackend::kAuto;
      break;
    case ORDO_IO_URING:
      out->io_backend = ordo::IoBackend::kUring;
      break;
    case ORDO_IO_POSIX:
      out->io_backend = ordo::IoBackend::kPosix;
      break;
    default:
      return Status::invalid_argument("unknown io_backend " + std::to_string(in->io_backend));
  }
  return Status::ok();
}

// Makes an ordo_txn from what `begin` (a Database member call) returns.
template <typename Begin>
Status begin_txn(ordo_db* db, ordo_txn** out, Begin begin) {
  ORDO_RETURN_IF_ERROR(clear_out(out, "txn"));
  if (db == nullptr) return null_arg("db");
  ORDO_ASSERT(db->db != nullptr);
  auto result = begin(*db->db);
  if (!result.is_ok()) return result.status();
  using TxnType = std::remove_cvref_t<decltype(result.value())>;
  auto made = std::make_unique<ordo_txn>();
  auto txn = std::make_unique<TxnType>(std::move(result).value());
  if constexpr (std::is_same_v<TxnType, ordo::WriteTxn>) made->writer = txn.get();
  made->txn = txn.get();
  made->owned = std::move(txn);
  ORDO_ASSERT(made->txn != nullptr && made->scans == 0 && !made->lent);
  *out = made.release();
  return Status::ok();
}

Status tree_handle(Result<ordo::Tree> tree, ordo_tree** out) {
  ORDO_ASSERT(out != nullptr && *out == nullptr);  // clear_out() checked and cleared it
  if (!tree.is_ok()) return tree.status();
  *out = new ordo_tree{std::move(tree).value()};
  return Status::ok();
}

// Counts a running scan, so that the txn is not ended or freed under it.
class ScanScope {
 public:
  explicit ScanScope(ordo_txn* txn) : txn_(txn) {
    ORDO_ASSERT(txn_ != nullptr && txn_->scans >= 0);
    ++txn_->scans;
  }
  ~ScanScope() {
    ORDO_ASSERT(txn_->scans > 0);  // counted by this scope's constructor
    if (--txn_->scans == 0 && txn_->free_when_scans_end) delete txn_;
  }
  ScanScope(const ScanScope&) = delete;
  ScanScope& operator=(const ScanScope&) = delete;

 private:
  ordo_txn* txn_;
};

Status scan(ordo_txn* txn, const ordo_tree* tree, Result<ordo::KeyRange> range, ordo_scan_fn fn,
            void* ctx) {
  if (txn == nullptr) return null_arg("txn");
  if (fn == nullptr) return null_arg("fn");
  if (!range.is_ok()) return range.status();
  ORDO_ASSERT(txn->txn != nullptr);  // set by begin_txn, or by ordo_batch for its lent txn
  ScanScope scope(txn);
  return txn->txn->scan(tree_of(tree), *range, [&](ByteView key, ByteView value) {
    const void* k = nullptr;
    const void* v = nullptr;
    size_t key_len = 0;
    size_t value_len = 0;
    put_bytes(key, &k, &key_len);
    put_bytes(value, &v, &value_len);
    return fn(ctx, k, key_len, v, value_len) == 0 && !txn->free_when_scans_end;
  });
}

Status lent_txn() {
  return Status::invalid_argument(
      "the txn of ordo_batch is ended by ordo_batch: return from the batch function instead");
}

Status ending_in_scan(const ordo_txn* txn) {
  ORDO_ASSERT(txn->scans >= 0);  // ScanScope counts up and down in pairs
  if (txn->scans == 0) return Status::ok();
  return Status::invalid_argument("the txn cannot end inside its own scan callback");
}

// Why a cursor has no key or value to give.
Status off_entry(const ordo::Cursor& c) {
  ORDO_ASSERT(!c.valid());  // callers ask only for a cursor off its entries
  Status s = c.status();
  if (s.is_txn_ended() || s.is_not_found() || s.is_corruption()) return s;
  return Status::invalid_argument("cursor is not on an entry");
}

// A getter of one Database property, `*out = (db->*get)()`.
template <typename T, typename Get>
int db_property(const char* fn, const ordo_db* db, T* out, ordo_error* err, Get get) {
  return guard(fn, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(const ordo::Database* d, db_of(db));
    if (out == nullptr) return null_arg("out");
    *out = (d->*get)();
    return Status::ok();
  });
}

// The read txn of `txn`: InvalidArgument for NULL, a write txn, or a call from
// its own scan callback (it cannot end or move to another snapshot there).
Result<ordo::ReadTxn*> reader_of(ordo_txn* txn) {
  if (txn == nullptr) return null_arg("txn");
  if (txn->writer != nullptr) {
    return Status::invalid_argument("a write txn cannot be reset or renewed");
  }
  ORDO_RETURN_IF_ERROR(ending_in_scan(txn));
  ORDO_ASSERT(txn->txn != nullptr && txn->owned != nullptr);  // not a lent (write) txn
  return static_cast<ordo::ReadTxn*>(txn->txn);               // begin_txn made a ReadTxn
}

// A versioned report struct of the caller's (ordo.h, "Reports and copies"):
// Ok when `out` is non-NULL and its struct_size is that of some version of T
// (at least `first_version_bytes`, the size of T's first version). Checked
// before the work, so that a bad struct costs nothing and changes nothing.
template <typename T>
Status check_report_struct(const T* out, size_t first_version_bytes, const char* what) {
  if (out == nullptr) return null_arg(what);
  if (out->struct_size < first_version_bytes || out->struct_size > kMaxOptionsBytes) {
    return Status::invalid_argument(std::string(what) + " struct_size " +
                                    std::to_string(out->struct_size) +
                                    " is not that of any version (this library's is " +
                                    std::to_string(sizeof(T)) + " bytes): set it to sizeof");
  }
  return Status::ok();
}

// Copies `ours` (this library's version, filled in) into the caller's `out`
// as far as its struct_size reaches, keeping struct_size and zeroing a
// newer header's tail. REQUIRES: check_report_struct(out) was Ok.
template <typename T>
void fill_report(T* out, const T& ours) {
  const size_t size = out->struct_size;
  ORDO_ASSERT(size >= sizeof(size_t) && size <= kMaxOptionsBytes);  // check_report_struct()
  auto* raw = reinterpret_cast<unsigned char*>(out);
  const size_t known = std::min(size, sizeof(T));
  std::memcpy(raw + sizeof(size_t), reinterpret_cast<const unsigned char*>(&ours) + sizeof(size_t),
              known - sizeof(size_t));
  if (size > sizeof(T)) std::memset(raw + sizeof(T), 0, size - sizeof(T));
}

}  // namespace

extern "C" {

const char* ordo_code_name(int code) {
  switch (code) {
    case ORDO_NO_MEMORY:
      return "NoMemory";
    case ORDO_INTERNAL:
      return "Internal";
    default:
      break;
  }
  if (code < ORDO_OK || code > kLastStatusCode) return "Unknown";
  // Status::code_name returns views of string literals: NUL-terminated.
  return Status::code_name(static_cast<Code>(code)).data();
}

const char* ordo_version(void) { return ORDO_VERSION_STRING; }

int ordo_options_init(ordo_options* options, size_t struct_size, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (options == nullptr) return null_arg("options");
    if (struct_size < sizeof(ordo_options) || struct_size > kMaxOptionsBytes) {
      return Status::invalid_argument("struct_size " + std::to_string(struct_size) +
                                      " is not the size of an ordo_options (" +
                                      std::to_string(sizeof(ordo_options)) + " bytes here)");
    }
    std::memset(static_cast<void*>(options), 0, struct_size);
    const ordo::Options d;
    options->struct_size = struct_size;
    options->page_size_bytes = d.page_size_bytes;
    options->writer_wait_ms = d.writer_wait_ms;
    options->extent_bytes = d.extent_bytes;
    options->max_extent_bytes = d.max_extent_bytes;
    options->map_reserve_bytes = d.map_reserve_bytes;
    options->txn_memory_budget_bytes = d.txn_memory_budget_bytes;
    options->append_fill = d.append_fill;
    options->id_node = d.id_node;
    options->commit_protocol =
        d.commit_protocol == ordo::CommitProtocol::kTwoSync   ? ORDO_COMMIT_TWO_SYNC
        : d.commit_protocol == ordo::CommitProtocol::kOneSync ? ORDO_COMMIT_ONE_SYNC
                                                              : ORDO_COMMIT_LOG;
    options->log_bytes = d.log_bytes;
    options->io_backend = ORDO_IO_AUTO;
    options->create_if_missing = d.create_if_missing;
    options->read_only = d.read_only;
    options->sync_commits = d.sync_commits;
    options->verify_checksums = d.verify_checksums;
    options->trim_on_close = d.trim_on_close;
    return Status::ok();
  });
}

// ---- Database

int ordo_open(const char* path, const ordo_options* options, ordo_db** db, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(clear_out(db, "db"));
    if (path == nullptr) return null_arg("path");
    ordo::Options opts;
    ORDO_RETURN_IF_ERROR(to_options(options, &opts));
    auto opened = ordo::Database::open(path, opts);
    if (!opened.is_ok()) return opened.status();
    *db = new ordo_db{std::move(opened).value()};
    return Status::ok();
  });
}

void ordo_db_close(ordo_db* db) {
  quietly([&] { delete db; });
}

int ordo_db_page_size(const ordo_db* db, uint32_t* out, ordo_error* err) {
  return db_property(__func__, db, out, err, &ordo::Database::page_size_bytes);
}

int ordo_db_max_key_bytes(const ordo_db* db, uint32_t* out, ordo_error* err) {
  return db_property(__func__, db, out, err, &ordo::Database::max_key_bytes);
}

int ordo_db_max_value_bytes(const ordo_db* db, uint64_t* out, ordo_error* err) {
  return db_property(__func__, db, out, err, &ordo::Database::max_value_bytes);
}

int ordo_db_max_inline_value_bytes(const ordo_db* db, uint32_t* out, ordo_error* err) {
  return db_property(__func__, db, out, err, &ordo::Database::max_inline_value_bytes);
}

// ---- Transactions

int ordo_begin_read(ordo_db* db, ordo_txn** txn, ordo_error* err) {
  return guard(__func__, err, [&] {
    return begin_txn(db, txn, [](ordo::Database& d) { return d.begin_read(); });
  });
}

int ordo_begin_write(ordo_db* db, ordo_txn** txn, ordo_error* err) {
  return guard(__func__, err, [&] {
    return begin_txn(db, txn, [](ordo::Database& d) { return d.begin_write(); });
  });
}

int ordo_try_begin_write(ordo_db* db, ordo_txn** txn, ordo_error* err) {
  return guard(__func__, err, [&] {
    return begin_txn(db, txn, [](ordo::Database& d) { return d.try_begin_write(); });
  });
}

int ordo_begin_write_timeout(ordo_db* db, uint32_t timeout_ms, ordo_txn** txn, ordo_error* err) {
  return guard(__func__, err, [&] {
    return begin_txn(db, txn, [&](ordo::Database& d) {
      return d.begin_write(std::chrono::milliseconds(timeout_ms));
    });
  });
}

int ordo_txn_commit(ordo_txn* txn, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (txn != nullptr && txn->writer == nullptr) {
      return Status::invalid_argument(
          "a read txn has nothing to commit: end it with ordo_txn_abort");
    }
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_RETURN_IF_ERROR(ending_in_scan(txn));
    return w->commit();
  });
}

int ordo_txn_abort(ordo_txn* txn, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    ORDO_RETURN_IF_ERROR(ending_in_scan(txn));
    t->abort();  // ordo_batch's txn: refused, and the batch function fails
    if (txn->lent) return lent_txn();
    ORDO_ASSERT(!t->live());  // an owned txn ends on abort
    return Status::ok();
  });
}

int ordo_txn_reset(ordo_txn* txn, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::ReadTxn * r, reader_of(txn));
    r->reset();
    ORDO_ASSERT(!r->live());  // reader_of() gave a read txn, which reset() always ends
    return Status::ok();
  });
}

int ordo_txn_renew(ordo_txn* txn, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::ReadTxn * r, reader_of(txn));
    const Status s = r->renew();
    ORDO_ASSERT(s.is_ok() == r->live());  // renewed, or left reset
    return s;
  });
}

void ordo_txn_free(ordo_txn* txn) {
  if (txn == nullptr || txn->lent) return;
  if (txn->scans > 0) {
    // Called from a scan callback: the scan stops and frees it on its way out.
    txn->free_when_scans_end = true;
    return;
  }
  // Not lent, so begin_txn made it and owns its txn.
  ORDO_ASSERT(txn->owned != nullptr && txn->scans == 0);
  quietly([&] { delete txn; });
}

int ordo_batch(ordo_db* db, ordo_batch_fn fn, void* ctx, ordo_error* err) {
  int returned = ORDO_OK;  // what this caller's function returned last
  const int rc = guard(__func__, err, [&]() -> Status {
    if (db == nullptr) return null_arg("db");
    if (fn == nullptr) return null_arg("fn");
    return db->db->batch([&](ordo::WriteTxn& w) -> Status {
      ordo_txn lent;
      lent.txn = &w;
      lent.writer = &w;
      lent.lent = true;
      returned = fn(ctx, &lent);
      // Its scans ended with their callbacks; ordo_txn_free left it alone.
      ORDO_ASSERT(lent.scans == 0 && !lent.free_when_scans_end && lent.owned == nullptr);
      if (returned == ORDO_OK) return Status::ok();
      return Status::invalid_argument("the batch function returned " + std::to_string(returned));
    });
  });
  if (rc == ORDO_OK || returned == ORDO_OK) return rc;
  // The function's own failure: its code is this caller's outcome.
  fill(err, returned, 0, UINT64_MAX,
       std::string(ordo_code_name(returned)) + ": ordo_batch: the batch function returned " +
           std::to_string(returned));
  return returned;
}

bool ordo_txn_live(const ordo_txn* txn) { return txn != nullptr && txn->txn->live(); }

bool ordo_txn_writable(const ordo_txn* txn) { return txn != nullptr && txn->writer != nullptr; }

int ordo_txn_id(const ordo_txn* txn, uint64_t* id, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (txn == nullptr) return null_arg("txn");
    if (id == nullptr) return null_arg("id");
    if (!txn->txn->live()) return Status::txn_ended("txn already committed or aborted");
    *id = txn->txn->txn_id();
    ORDO_ASSERT(txn->writer == nullptr || *id != 0);  // a write txn commits txn 1 or later
    return Status::ok();
  });
}

// ---- Trees

int ordo_tree_create(ordo_txn* txn, const void* name, size_t name_len, ordo_tree** tree,
                     ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(clear_out(tree, "tree"));
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView n, bytes(name, name_len, "name"));
    return tree_handle(w->create_tree(n.view()), tree);
  });
}

int ordo_tree_open(ordo_txn* txn, const void* name, size_t name_len, ordo_tree** tree,
                   ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(clear_out(tree, "tree"));
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView n, bytes(name, name_len, "name"));
    return tree_handle(t->open_tree(n.view()), tree);
  });
}

void ordo_tree_free(ordo_tree* tree) {
  quietly([&] { delete tree; });
}

int ordo_tree_name(const ordo_tree* tree, const char** name, size_t* name_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (name == nullptr || name_len == nullptr) return null_arg("name or name_len");
    const std::string& s = tree_of(tree).name();
    *name = s.c_str();
    *name_len = s.size();
    return Status::ok();
  });
}

int ordo_tree_drop(ordo_txn* txn, const void* name, size_t name_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView n, bytes(name, name_len, "name"));
    return w->drop_tree(n.view());
  });
}

int ordo_tree_rename(ordo_txn* txn, const void* from, size_t from_len, const void* to,
                     size_t to_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView f, bytes(from, from_len, "from"));
    ORDO_ASSIGN_OR_RETURN(ByteView t, bytes(to, to_len, "to"));
    return w->rename_tree(f.view(), t.view());
  });
}

int ordo_tree_list(ordo_txn* txn, ordo_tree_list_fn fn, void* ctx, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    if (fn == nullptr) return null_arg("fn");
    auto names = t->list_trees();
    if (!names.is_ok()) return names.status();
    for (const std::string& name : *names) {
      if (fn(ctx, name.c_str(), name.size()) != 0) break;
    }
    return Status::ok();
  });
}

// ---- Reports and copies

int ordo_db_info(ordo_db* db, ordo_database_info* info, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(const ordo::Database* d, db_of(db));
    ORDO_RETURN_IF_ERROR(check_report_struct(info, sizeof(ordo_database_info), "info"));
    const ordo::DatabaseInfo i = d->info();
    ordo_database_info out{};
    out.page_size_bytes = i.page_size_bytes;
    out.format_version = i.format_version;
    out.file_bytes = i.file_bytes;
    out.txn_id = i.txn_id;
    out.page_high_water = i.current.page_high_water;
    out.free_pages = i.current.free_pages;
    out.pages_used = i.pages_used;
    out.tree_count = i.current.tree_count;
    fill_report(info, out);
    return Status::ok();
  });
}

int ordo_db_check(ordo_db* db, ordo_check_report* report, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (db == nullptr) return null_arg("db");
    ORDO_RETURN_IF_ERROR(check_report_struct(report, sizeof(ordo_check_report), "report"));
    ORDO_ASSIGN_OR_RETURN(ordo::ReadTxn r, db->db->begin_read());
    ORDO_ASSIGN_OR_RETURN(const ordo::CheckReport c, r.check());
    ordo_check_report out{};
    out.problems = c.problems.size();
    out.truncated = c.truncated;
    out.txn_id = r.txn_id();
    out.high_water_pages = c.high_water_pages;
    out.tree_pages = c.tree_pages;
    out.overflow_pages = c.overflow_pages;
    out.free_pages = c.free_pages;
    out.trees = c.trees;
    out.entries = c.entries;
    out.log_records = c.log_records;
    out.first_problem_page = UINT64_MAX;
    if (!c.problems.empty()) {
      out.first_problem_page = c.problems[0].page_number;
      const std::string& what = c.problems[0].what;
      const size_t n = std::min(what.size(), sizeof(out.first_problem) - 1);
      std::memcpy(out.first_problem, what.data(), n);
      out.first_problem[n] = '\0';
    }
    fill_report(report, out);
    return Status::ok();
  });
}

int ordo_db_copy(ordo_db* db, const char* path, uint32_t flags, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (db == nullptr) return null_arg("db");
    if (path == nullptr) return null_arg("path");
    if ((flags & ~uint32_t{ORDO_COPY_COMPACT | ORDO_COPY_OVERWRITE}) != 0) {
      return Status::invalid_argument("unknown flags " + std::to_string(flags));
    }
    ordo::CopyOptions options;
    options.compact = (flags & ORDO_COPY_COMPACT) != 0;
    options.overwrite = (flags & ORDO_COPY_OVERWRITE) != 0;
    return db->db->copy_to(path, options).status();
  });
}

int ordo_tree_stats(ordo_txn* txn, const ordo_tree* tree, ordo_tree_statistics* stats,
                    ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    ORDO_RETURN_IF_ERROR(check_report_struct(stats, sizeof(ordo_tree_statistics), "stats"));
    ORDO_ASSIGN_OR_RETURN(const ordo::TreeStats s, t->tree_stats(tree_of(tree)));
    ordo_tree_statistics out{};
    out.entries = s.entries;
    out.depth = s.depth;
    out.leaf_pages = s.leaf_pages;
    out.branch_pages = s.branch_pages;
    out.leaf_fill = s.leaf_fill;
    out.overflow_pages = s.overflow_pages;
    out.overflow_values = s.overflow_values;
    out.key_bytes = s.key_bytes;
    out.value_bytes = s.value_bytes;
    fill_report(stats, out);
    return Status::ok();
  });
}

// ---- Reads and writes

int ordo_get(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
             const void** value, size_t* value_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(out_bytes(value, value_len, "value or value_len"));
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    auto found = t->get(tree_of(tree), k);
    if (!found.is_ok()) return found.status();
    put_bytes(*found, value, value_len);
    return Status::ok();
  });
}

int ordo_put(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
             const void* value, size_t value_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(ByteView v, bytes(value, value_len, "value"));
    return w->put(tree_of(tree), k, v);
  });
}

int ordo_del(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
             ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    return w->del(tree_of(tree), k);
  });
}

int ordo_del_range(ordo_txn* txn, const ordo_tree* tree, const void* from, size_t from_len,
                   const void* to, size_t to_len, uint64_t* removed, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (removed != nullptr) *removed = 0;
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(const ordo::KeyRange range, range_of(from, from_len, to, to_len));
    auto n = w->del_range(tree_of(tree), range);
    if (!n.is_ok()) return n.status();
    if (removed != nullptr) *removed = *n;
    return Status::ok();
  });
}

int ordo_append(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                const void* value, size_t value_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(ByteView v, bytes(value, value_len, "value"));
    return w->append(tree_of(tree), k, v);
  });
}

int ordo_insert(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                const void* value, size_t value_len, bool* inserted, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (inserted != nullptr) *inserted = false;
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(ByteView v, bytes(value, value_len, "value"));
    ORDO_ASSIGN_OR_RETURN(const bool done, w->insert(tree_of(tree), k, v));
    if (inserted != nullptr) *inserted = done;
    return Status::ok();
  });
}

int ordo_replace(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                 const void* value, size_t value_len, const void** old_value, size_t* old_len,
                 bool* existed, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (existed != nullptr) *existed = false;
    const bool want_old = old_value != nullptr || old_len != nullptr;
    if (want_old) {
      ORDO_RETURN_IF_ERROR(out_bytes(old_value, old_len, "old_value or old_len"));
    }
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(ByteView v, bytes(value, value_len, "value"));
    ORDO_ASSIGN_OR_RETURN(std::optional<std::string> old, w->replace(tree_of(tree), k, v));
    if (existed != nullptr) *existed = old.has_value();
    txn->old_value = old ? std::move(*old) : std::string();
    if (want_old) put_bytes(ByteView(txn->old_value), old_value, old_len);
    return Status::ok();
  });
}

int ordo_compare_and_set(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len,
                         const void* expected, size_t expected_len, const void* desired,
                         size_t desired_len, uint32_t flags, bool* applied, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (applied != nullptr) *applied = false;
    if ((flags & ~uint32_t{ORDO_CAS_EXPECT_ABSENT | ORDO_CAS_DELETE}) != 0) {
      return Status::invalid_argument("unknown flags " + std::to_string(flags));
    }
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(ByteView e, bytes(expected, expected_len, "expected"));
    ORDO_ASSIGN_OR_RETURN(ByteView d, bytes(desired, desired_len, "desired"));
    std::optional<ByteView> expect;
    std::optional<ByteView> desire;
    if ((flags & ORDO_CAS_EXPECT_ABSENT) != 0) {
      if (expected != nullptr) {
        return Status::invalid_argument("expected given with ORDO_CAS_EXPECT_ABSENT");
      }
    } else {
      expect = e;
    }
    if ((flags & ORDO_CAS_DELETE) != 0) {
      if (desired != nullptr) return Status::invalid_argument("desired given with ORDO_CAS_DELETE");
    } else {
      desire = d;
    }
    ORDO_ASSIGN_OR_RETURN(const bool done, w->compare_and_set(tree_of(tree), k, expect, desire));
    if (applied != nullptr) *applied = done;
    return Status::ok();
  });
}

int ordo_scan(ordo_txn* txn, const ordo_tree* tree, const void* from, size_t from_len,
              const void* to, size_t to_len, ordo_scan_fn fn, void* ctx, ordo_error* err) {
  return guard(__func__, err,
               [&] { return scan(txn, tree, range_of(from, from_len, to, to_len), fn, ctx); });
}

int ordo_scan_prefix(ordo_txn* txn, const ordo_tree* tree, const void* prefix, size_t prefix_len,
                     ordo_scan_fn fn, void* ctx, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ByteView p, bytes(prefix, prefix_len, "prefix"));
    return scan(txn, tree, ordo::KeyRange::prefix(p), fn, ctx);
  });
}

// ---- Cursors

int ordo_cursor_open(ordo_txn* txn, const ordo_tree* tree, ordo_cursor** cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(clear_out(cursor, "cursor"));
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    auto c = t->cursor(tree_of(tree));
    if (!c.is_ok()) return c.status();
    *cursor = new ordo_cursor{std::move(c).value()};
    return Status::ok();
  });
}

void ordo_cursor_free(ordo_cursor* cursor) {
  quietly([&] { delete cursor; });
}

int ordo_cursor_first(ordo_cursor* cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    return c->first();
  });
}

int ordo_cursor_last(ordo_cursor* cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    return c->last();
  });
}

int ordo_cursor_seek(ordo_cursor* cursor, const void* key, size_t key_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    return c->seek(k);
  });
}

int ordo_cursor_next(ordo_cursor* cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    return c->next();
  });
}

int ordo_cursor_prev(ordo_cursor* cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    return c->prev();
  });
}

bool ordo_cursor_valid(ordo_cursor* cursor) {
  bool valid = false;
  quietly([&] { valid = cursor != nullptr && cursor->cursor.valid(); });
  return valid;
}

int ordo_cursor_key(ordo_cursor* cursor, const void** key, size_t* key_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(out_bytes(key, key_len, "key or key_len"));
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    if (!c->valid()) return off_entry(*c);
    put_bytes(c->key(), key, key_len);
    return Status::ok();
  });
}

int ordo_cursor_value(ordo_cursor* cursor, const void** value, size_t* value_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(out_bytes(value, value_len, "value or value_len"));
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    if (!c->valid()) return off_entry(*c);
    const ByteView v = c->value();
    // A damaged overflow value reads as empty and sets the cursor's status.
    if (v.empty() && c->status().is_corruption()) return c->status();
    put_bytes(v, value, value_len);
    return Status::ok();
  });
}

int ordo_cursor_status(ordo_cursor* cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    return c->status();
  });
}

int ordo_cursor_put(ordo_cursor* cursor, const void* key, size_t key_len, const void* value,
                    size_t value_len, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(ByteView v, bytes(value, value_len, "value"));
    return c->put(k, v);
  });
}

int ordo_cursor_del(ordo_cursor* cursor, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Cursor * c, cursor_of(cursor));
    return c->del();
  });
}

// ---- IDs

int ordo_next_id(ordo_txn* txn, uint8_t out[ORDO_UUID_BYTES], ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    if (out == nullptr) return null_arg("out");
    auto id = w->next_id();
    if (!id.is_ok()) return id.status();
    ORDO_ASSERT(id->version() == 7);  // the generator makes UUIDv7s
    std::memcpy(out, id->bytes.data(), ORDO_UUID_BYTES);
    return Status::ok();
  });
}

int ordo_next_id64(ordo_txn* txn, uint64_t* out, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    if (out == nullptr) return null_arg("out");
    auto id = w->next_id64();
    if (!id.is_ok()) return id.status();
    *out = id->value;
    return Status::ok();
  });
}

int ordo_uuid_format(const uint8_t uuid[ORDO_UUID_BYTES], char* buf, size_t buf_len,
                     ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (uuid == nullptr) return null_arg("uuid");
    if (buf == nullptr) return null_arg("buf");
    if (buf_len < ORDO_UUID_STRING_SIZE) {
      return Status::invalid_argument("buf of " + std::to_string(buf_len) +
                                      " bytes is too small for 36 characters and a NUL");
    }
    ordo::Uuid id;
    std::memcpy(id.bytes.data(), uuid, ORDO_UUID_BYTES);
    const std::string text = id.to_string();
    ORDO_ASSERT(text.size() + 1 == ORDO_UUID_STRING_SIZE);  // what buf_len was checked against
    std::memcpy(buf, text.c_str(), text.size() + 1);
    return Status::ok();
  });
}

int ordo_uuid_parse(const char* text, size_t text_len, uint8_t out[ORDO_UUID_BYTES],
                    ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (out == nullptr) return null_arg("out");
    ORDO_ASSIGN_OR_RETURN(ByteView t, bytes(text, text_len, "text"));
    auto id = ordo::Uuid::parse(t.view());
    if (!id.is_ok()) return id.status();
    std::memcpy(out, id->bytes.data(), ORDO_UUID_BYTES);
    return Status::ok();
  });
}

}  // extern "C"

// Savepoints: ordo_savepoint carries a Savepoint's two fields.
namespace {

ordo_savepoint to_c(const ordo::Savepoint& sp) {
  return ordo_savepoint{{ordo::SavepointHandles::txn_tag(sp), ordo::SavepointHandles::serial(sp)}};
}

Result<ordo::Savepoint> from_c(const ordo_savepoint* sp) {
  if (sp == nullptr) return null_arg("savepoint");
  return ordo::SavepointHandles::make(sp->opaque[0], sp->opaque[1]);
}

}  // namespace

extern "C" {

int ordo_savepoint_take(ordo_txn* txn, ordo_savepoint* out, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (out == nullptr) return null_arg("out");
    *out = ordo_savepoint{{0, 0}};
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(const ordo::Savepoint sp, w->savepoint());
    *out = to_c(sp);
    return Status::ok();
  });
}

int ordo_savepoint_rollback(ordo_txn* txn, const ordo_savepoint* sp, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(const ordo::Savepoint s, from_c(sp));
    return w->rollback_to(s);
  });
}

int ordo_savepoint_release(ordo_txn* txn, const ordo_savepoint* sp, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::WriteTxn * w, writer_of(txn));
    ORDO_ASSIGN_OR_RETURN(const ordo::Savepoint s, from_c(sp));
    return w->release(s);
  });
}

}  // extern "C"

// ---- Counting and positions

namespace {

Status count_into(ordo_txn* txn, const ordo_tree* tree, const Result<ordo::KeyRange>& range,
                  uint64_t* count) {
  if (count == nullptr) return Status::invalid_argument("count is NULL");
  *count = 0;
  ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
  if (!range.is_ok()) return range.status();
  ORDO_ASSIGN_OR_RETURN(*count, t->count(tree_of(tree), *range));
  return Status::ok();
}

}  // namespace

int ordo_count(ordo_txn* txn, const ordo_tree* tree, const void* from, size_t from_len,
               const void* to, size_t to_len, uint64_t* count, ordo_error* err) {
  return guard(__func__, err,
               [&] { return count_into(txn, tree, range_of(from, from_len, to, to_len), count); });
}

int ordo_count_prefix(ordo_txn* txn, const ordo_tree* tree, const void* prefix, size_t prefix_len,
                      uint64_t* count, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    const Result<ByteView> p = bytes(prefix, prefix_len, "prefix");
    if (!p.is_ok()) {
      if (count != nullptr) *count = 0;
      return p.status();
    }
    return count_into(txn, tree, ordo::KeyRange::prefix(*p), count);
  });
}

int ordo_rank(ordo_txn* txn, const ordo_tree* tree, const void* key, size_t key_len, uint64_t* rank,
              ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (rank == nullptr) return Status::invalid_argument("rank is NULL");
    *rank = 0;
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    ORDO_ASSIGN_OR_RETURN(ByteView k, bytes(key, key_len, "key"));
    ORDO_ASSIGN_OR_RETURN(*rank, t->rank(tree_of(tree), k));
    return Status::ok();
  });
}

int ordo_cursor_at(ordo_txn* txn, const ordo_tree* tree, uint64_t index, ordo_cursor** cursor,
                   ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_RETURN_IF_ERROR(clear_out(cursor, "cursor"));
    ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
    auto c = t->at(tree_of(tree), index);
    if (!c.is_ok()) return c.status();
    *cursor = new ordo_cursor{std::move(c).value()};
    return Status::ok();
  });
}

// ---- Changes between snapshots, kept snapshots, delta copies

namespace {

Result<ordo::ReadTxn*> read_txn_of(ordo_txn* txn) {
  ORDO_ASSIGN_OR_RETURN(ordo::Txn * t, txn_of(txn));
  if (txn->writer != nullptr) {
    return Status::invalid_argument("changes and delta copies are read txn calls");
  }
  ORDO_ASSERT(txn->txn == t);
  return static_cast<ordo::ReadTxn*>(t);  // a txn without a writer is a ReadTxn
}

}  // namespace

int ordo_keep_snapshot(ordo_db* db, uint64_t* txn_id, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (txn_id == nullptr) return null_arg("txn_id");
    *txn_id = 0;
    ORDO_ASSIGN_OR_RETURN(ordo::Database * d, db_of(db));
    ORDO_ASSIGN_OR_RETURN(*txn_id, d->keep_snapshot());
    return Status::ok();
  });
}

int ordo_release_snapshot(ordo_db* db, uint64_t txn_id, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Database * d, db_of(db));
    ORDO_ASSERT(d != nullptr);
    return d->release_snapshot(txn_id);
  });
}

int ordo_kept_snapshots(ordo_db* db, uint64_t* txn_ids, size_t capacity, size_t* count,
                        ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    if (count == nullptr) return null_arg("count");
    *count = 0;
    if (txn_ids == nullptr && capacity != 0) return null_arg("txn_ids");
    ORDO_ASSIGN_OR_RETURN(ordo::Database * d, db_of(db));
    ORDO_ASSIGN_OR_RETURN(std::vector<uint64_t> kept, d->kept_snapshots());
    ORDO_DCHECK(std::is_sorted(kept.begin(), kept.end()));  // ascending, as documented
    for (size_t i = 0; i < kept.size() && i < capacity; ++i) txn_ids[i] = kept[i];
    *count = kept.size();
    return Status::ok();
  });
}

int ordo_begin_read_at(ordo_db* db, uint64_t txn_id, ordo_txn** txn, ordo_error* err) {
  return guard(__func__, err, [&] {
    return begin_txn(db, txn, [txn_id](ordo::Database& d) { return d.begin_read_at(txn_id); });
  });
}

int ordo_changes(ordo_txn* txn, const ordo_tree* tree, uint64_t since_txn, ordo_change_fn fn,
                 void* ctx, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::ReadTxn * r, read_txn_of(txn));
    if (fn == nullptr) return null_arg("fn");
    ScanScope scope(txn);
    ORDO_ASSIGN_OR_RETURN(ordo::ChangeCursor c, r->changes(tree_of(tree), since_txn));
    for (;;) {
      ORDO_ASSIGN_OR_RETURN(bool more, c.next());
      if (!more) return Status::ok();
      ORDO_ASSERT(c.old_value() || c.new_value());  // a change has a side
      const void* k = nullptr;
      size_t key_len = 0;
      put_bytes(c.key(), &k, &key_len);
      const void* o = nullptr;
      const void* n = nullptr;
      size_t old_len = 0;
      size_t new_len = 0;
      if (auto v = c.old_value()) put_bytes(*v, &o, &old_len);
      if (auto v = c.new_value()) put_bytes(*v, &n, &new_len);
      if (fn(ctx, k, key_len, o, old_len, n, new_len) != 0 || txn->free_when_scans_end) {
        return Status::ok();
      }
    }
  });
}

int ordo_copy_delta(ordo_txn* txn, const char* path, uint64_t since_txn, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::ReadTxn * r, read_txn_of(txn));
    if (path == nullptr) return null_arg("path");
    return r->copy_delta_to(path, since_txn).status();
  });
}

int ordo_apply_delta(ordo_db* db, const char* path, ordo_error* err) {
  return guard(__func__, err, [&]() -> Status {
    ORDO_ASSIGN_OR_RETURN(ordo::Database * d, db_of(db));
    if (path == nullptr) return null_arg("path");
    return d->apply_delta(path).status();
  });
}
