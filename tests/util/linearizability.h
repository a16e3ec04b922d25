// A history of operations on keys, recorded by many client threads, and the
// checks run over it after a fault test: no acknowledged write lost, and each
// key's operations linearizable as a register (Wing & Gong's search with
// Lowe's just-in-time linearization and a memo of (linearized ops, value)
// states; keys are checked one by one, which is sound because
// linearizability is compositional).
//
// The model of a key: a register holding a value or nothing. put(v) sets v,
// del() clears it, get() returns it, cas(expected, v) sets v when the
// register holds `expected` (nullopt: nothing) and says whether it did.
// Outcomes: kOk took effect (a get: returned `value`) somewhere between
// invoke and complete; kFailed took no effect and is left out; kUnknown (a
// write whose reply was lost) may take effect at any time after its invoke,
// or never. A get that did not answer (kFailed, kUnknown) says nothing and
// is left out.
//
// Thread-safety: HistoryRecorder may be called from any thread; the check
// functions are pure.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ordo::testing::history {

enum class OpKind : uint8_t { kPut, kGet, kDel, kCas };
enum class Outcome : uint8_t { kOk, kFailed, kUnknown };
const char* op_kind_name(OpKind kind);      // "put", "get", "del", "cas"
const char* outcome_name(Outcome outcome);  // "ok", "failed", "unknown"

struct Operation {
  int client = 0;
  std::string key;
  OpKind kind = OpKind::kGet;
  // put, cas: the value written; get (kOk): the value read, nullopt for
  // "not found"; del: unused.
  std::optional<std::string> value;
  std::optional<std::string> expected;  // cas: the value it compares with
  bool swapped = false;                 // cas, kOk: whether it set the value
  Outcome outcome = Outcome::kUnknown;
  int64_t invoke_ns = 0;    // when the client sent it (any common clock)
  int64_t complete_ns = 0;  // when the client had its answer; >= invoke_ns
};

// "c3 put k=v ok [120,250]" for messages.
std::string describe(const Operation& op);

// Records operations from many threads with their invoke and complete
// times on the steady clock (nanoseconds since the recorder was made).
class HistoryRecorder {
 public:
  HistoryRecorder();
  // Starts an operation now; returns its handle for complete(). `op`'s
  // outcome and times are set by the recorder.
  size_t invoke(Operation op);
  // Ends operation `handle` now with `outcome`; a get's `read` value.
  void complete(size_t handle, Outcome outcome, std::optional<std::string> read = std::nullopt,
                bool swapped = false);
  // Every operation so far; ones not completed are reported kUnknown
  // (a write) with complete_ns the time of the call.
  std::vector<Operation> operations() const;
  int64_t now_ns() const;

 private:
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  std::vector<Operation> ops_;   // guarded by mu_
  std::vector<bool> completed_;  // guarded by mu_
};

struct KeyVerdict {
  std::string key;
  size_t operations = 0;  // the ones the search considered
  bool linearizable = false;
  bool gave_up = false;     // the search ran past its step budget: no verdict
  std::string explanation;  // when not linearizable: the key's operations
};

struct CheckOptions {
  // Search steps allowed per key before it gives up (gave_up, counted as a
  // failure by CheckResult::ok()).
  uint64_t max_steps_per_key = 5'000'000;
};

struct CheckResult {
  std::vector<KeyVerdict> bad;  // keys not linearizable, or given up on
  size_t keys = 0;
  size_t operations = 0;
  bool ok() const { return bad.empty(); }
  // One line per bad key, with its history; "" when ok().
  std::string report() const;
};

// Whether the history of one key is linearizable. `ops` may hold other
// keys' operations: only those of `key` count.
KeyVerdict check_key(const std::string& key, const std::vector<Operation>& ops,
                     const CheckOptions& options = {});
// Every key of `ops`, one by one.
CheckResult check_linearizable(const std::vector<Operation>& ops, const CheckOptions& options = {});

// The acknowledged writes that the final values contradict. `final_values`
// maps each key to what a linearizable read returned after every operation
// of `ops` completed (nullopt: not found); keys of `ops` missing from it are
// not checked. A final value is fine when some write that produced it (ok,
// or unknown) may be the last one: no acknowledged write began after it
// completed (for "not found": after the latest acknowledged del, or no
// write at all was acknowledged). Returns one message per violation.
std::vector<std::string> lost_writes(
    const std::vector<Operation>& ops,
    const std::map<std::string, std::optional<std::string>>& final_values);

}  // namespace ordo::testing::history
