#include "linearizability.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ordo::testing::history {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int kNothing = -1;  // the register holds no value

// One operation of one key as the search sees it: values as small ints.
struct KeyOp {
  size_t source = 0;  // index into the caller's operations
  OpKind kind = OpKind::kGet;
  Outcome outcome = Outcome::kOk;
  int value = kNothing;
  int expected = kNothing;
  bool swapped = false;
  int64_t invoke_ns = 0;
  int64_t complete_ns = 0;  // kNever for an unknown outcome
};

// The register's next value when `op` is applied to `state`, or false when
// its observed result rules that out.
bool apply(const KeyOp& op, int state, int& next) {
  switch (op.kind) {
    case OpKind::kPut:
      next = op.value;
      return true;
    case OpKind::kDel:
      next = kNothing;
      return true;
    case OpKind::kGet:
      next = state;
      return state == op.value;
    case OpKind::kCas:
      if (op.outcome == Outcome::kUnknown) {
        next = state == op.expected ? op.value : state;
        return true;
      }
      if (op.swapped) {
        next = op.value;
        return state == op.expected;
      }
      next = state;
      return state != op.expected;
  }
  return false;
}

// Call and return events in a doubly linked list (index 0 is the head);
// a linearized operation's two events are taken out and put back on
// backtracking (Lowe's lift / unlift).
struct Event {
  bool is_call = false;
  size_t op = 0;
  size_t match = 0;  // the other event of the same operation
  size_t prev = 0;
  size_t next = 0;
  int64_t time_ns = 0;
};

class Search {
 public:
  explicit Search(const std::vector<KeyOp>& ops) : ops_(ops), linearized_((ops.size() + 63) / 64) {
    struct Timed {
      int64_t time_ns;
      bool is_call;
      size_t op;
    };
    std::vector<Timed> order;
    for (size_t i = 0; i < ops.size(); ++i) {
      order.push_back({ops[i].invoke_ns, true, i});
      order.push_back({ops[i].complete_ns, false, i});
    }
    // At equal times a call comes first: the two operations count as
    // concurrent, the reading that flags fewer histories.
    std::stable_sort(order.begin(), order.end(), [](const Timed& a, const Timed& b) {
      if (a.time_ns != b.time_ns) return a.time_ns < b.time_ns;
      return a.is_call && !b.is_call;
    });
    events_.resize(order.size() + 1);
    std::vector<size_t> call_of(ops.size()), return_of(ops.size());
    for (size_t i = 0; i < order.size(); ++i) {
      Event& e = events_[i + 1];
      e.is_call = order[i].is_call;
      e.op = order[i].op;
      e.time_ns = order[i].time_ns;
      e.prev = i;
      e.next = i + 2 <= order.size() ? i + 2 : 0;
      (e.is_call ? call_of : return_of)[e.op] = i + 1;
    }
    events_[0].next = order.empty() ? 0 : 1;
    for (size_t i = 0; i < ops.size(); ++i) {
      events_[call_of[i]].match = return_of[i];
      events_[return_of[i]].match = call_of[i];
    }
  }

  // True: linearizable; false: not; nullopt: over the step budget.
  // After a false run(): the most operations any order linearized, and the
  // operation whose end it could not get past then.
  size_t deepest() const { return deepest_; }
  size_t stuck_op() const { return stuck_op_; }

  std::optional<bool> run(uint64_t max_steps) {
    int state = kNothing;
    struct Frame {
      size_t call;
      int state;
    };
    std::vector<Frame> stack;
    size_t at = events_[0].next;
    for (uint64_t steps = 0; events_[0].next != 0; ++steps) {
      if (steps > max_steps) return std::nullopt;
      const Event& e = events_[at];
      if (e.is_call) {
        int next = kNothing;
        if (apply(ops_[e.op], state, next)) {
          set_bit(e.op, true);
          if (memo_.insert(memo_key(next)).second) {
            stack.push_back({at, state});
            state = next;
            lift(at);
            at = events_[0].next;
            continue;
          }
          set_bit(e.op, false);
        }
        at = e.next;
      } else {
        // Every operation with a known end is linearized: the rest are
        // writes of unknown outcome, which can all take effect last.
        if (e.time_ns == kNever) return true;
        if (stack.size() >= deepest_) {
          deepest_ = stack.size();
          stuck_op_ = e.op;
        }
        if (stack.empty()) return false;
        Frame top = stack.back();
        stack.pop_back();
        state = top.state;
        set_bit(events_[top.call].op, false);
        unlift(top.call);
        at = events_[top.call].next;
      }
    }
    return true;
  }

 private:
  void set_bit(size_t op, bool on) {
    uint64_t bit = uint64_t{1} << (op % 64);
    if (on) {
      linearized_[op / 64] |= bit;
    } else {
      linearized_[op / 64] &= ~bit;
    }
  }
  std::string memo_key(int state) const {
    std::string key(linearized_.size() * 8 + sizeof state, '\0');
    std::memcpy(key.data(), linearized_.data(), linearized_.size() * 8);
    std::memcpy(key.data() + linearized_.size() * 8, &state, sizeof state);
    return key;
  }
  void unlink(size_t i) {
    events_[events_[i].prev].next = events_[i].next;
    if (events_[i].next != 0) events_[events_[i].next].prev = events_[i].prev;
  }
  void relink(size_t i) {
    events_[events_[i].prev].next = i;
    if (events_[i].next != 0) events_[events_[i].next].prev = i;
  }
  void lift(size_t call) {
    unlink(call);
    unlink(events_[call].match);
  }
  void unlift(size_t call) {
    relink(events_[call].match);
    relink(call);
  }

  const std::vector<KeyOp>& ops_;
  std::vector<Event> events_;
  std::vector<uint64_t> linearized_;
  std::unordered_set<std::string> memo_;
  size_t deepest_ = 0;
  size_t stuck_op_ = 0;
};

// Each unknown write left pending would double the states the search
// visits. With no cas on the key, an unknown put of a value no other write
// writes is settled: read by nobody, it is left out (taking effect could
// only constrain the reads after it); read, it took effect before the first
// read of its value completed, which becomes its end. Both keep the
// verdict the same.
std::vector<KeyOp> settle_unknown_puts(std::vector<KeyOp> ops) {
  std::unordered_map<int, int> writers;         // value -> writes of it
  std::unordered_map<int, int64_t> first_read;  // value -> earliest end of a read of it
  for (const KeyOp& op : ops) {
    if (op.kind == OpKind::kCas) return ops;
    if (op.kind == OpKind::kPut) ++writers[op.value];
    if (op.kind == OpKind::kGet && op.value != kNothing) {
      auto [it, added] = first_read.emplace(op.value, op.complete_ns);
      if (!added) it->second = std::min(it->second, op.complete_ns);
    }
  }
  std::vector<KeyOp> out;
  for (KeyOp op : ops) {
    if (op.kind == OpKind::kPut && op.outcome == Outcome::kUnknown && writers[op.value] == 1) {
      auto read = first_read.find(op.value);
      if (read == first_read.end()) continue;
      // A read that ended before the write began is flagged by the search.
      op.complete_ns = std::max(read->second, op.invoke_ns);
    }
    out.push_back(op);
  }
  return out;
}

std::string show_value(const std::optional<std::string>& v) {
  if (!v.has_value()) return "<none>";
  std::string shown = v->size() > 40 ? v->substr(0, 40) + "..." : *v;
  return "'" + shown + "'";
}

std::string show_time(int64_t ns) {
  if (ns == kNever) return "never";
  return std::to_string(ns / 1000) + "us";
}

}  // namespace

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kPut:
      return "put";
    case OpKind::kGet:
      return "get";
    case OpKind::kDel:
      return "del";
    case OpKind::kCas:
      return "cas";
  }
  return "?";
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnknown:
      return "unknown";
  }
  return "?";
}

std::string describe(const Operation& op) {
  std::string s = "c" + std::to_string(op.client) + " " + op_kind_name(op.kind) + " " + op.key;
  switch (op.kind) {
    case OpKind::kPut:
      s += " := " + show_value(op.value);
      break;
    case OpKind::kGet:
      if (op.outcome == Outcome::kOk) s += " -> " + show_value(op.value);
      break;
    case OpKind::kDel:
      break;
    case OpKind::kCas:
      s += " " + show_value(op.expected) + " => " + show_value(op.value);
      if (op.outcome == Outcome::kOk) s += op.swapped ? " (swapped)" : " (not swapped)";
      break;
  }
  return s + " " + outcome_name(op.outcome) + " [" + show_time(op.invoke_ns) + ", " +
         show_time(op.complete_ns) + "]";
}

HistoryRecorder::HistoryRecorder() : start_(std::chrono::steady_clock::now()) {}

int64_t HistoryRecorder::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start_)
      .count();
}

size_t HistoryRecorder::invoke(Operation op) {
  op.outcome = Outcome::kUnknown;
  std::lock_guard lock(mu_);
  // Read the clock under the lock: handles are in invoke order.
  op.invoke_ns = now_ns();
  op.complete_ns = op.invoke_ns;
  ops_.push_back(std::move(op));
  completed_.push_back(false);
  return ops_.size() - 1;
}

void HistoryRecorder::complete(size_t handle, Outcome outcome, std::optional<std::string> read,
                               bool swapped) {
  std::lock_guard lock(mu_);
  Operation& op = ops_.at(handle);
  op.complete_ns = now_ns();
  op.outcome = outcome;
  op.swapped = swapped;
  if (op.kind == OpKind::kGet) op.value = std::move(read);
  completed_[handle] = true;
}

std::vector<Operation> HistoryRecorder::operations() const {
  std::lock_guard lock(mu_);
  std::vector<Operation> out = ops_;
  const int64_t now = now_ns();
  for (size_t i = 0; i < out.size(); ++i) {
    if (!completed_[i]) out[i].complete_ns = now;
  }
  return out;
}

KeyVerdict check_key(const std::string& key, const std::vector<Operation>& ops,
                     const CheckOptions& options) {
  KeyVerdict verdict;
  verdict.key = key;
  std::unordered_map<std::string, int> ids;
  auto id_of = [&](const std::optional<std::string>& v) {
    if (!v.has_value()) return kNothing;
    return ids.emplace(*v, static_cast<int>(ids.size())).first->second;
  };
  std::vector<KeyOp> key_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Operation& op = ops[i];
    if (op.key != key || op.outcome == Outcome::kFailed) continue;
    // A read without an answer says nothing.
    if (op.kind == OpKind::kGet && op.outcome != Outcome::kOk) continue;
    KeyOp k;
    k.source = i;
    k.kind = op.kind;
    k.outcome = op.outcome;
    k.value = id_of(op.value);
    k.expected = id_of(op.expected);
    k.swapped = op.swapped;
    k.invoke_ns = op.invoke_ns;
    k.complete_ns =
        op.outcome == Outcome::kUnknown ? kNever : std::max(op.complete_ns, op.invoke_ns);
    key_ops.push_back(k);
  }
  key_ops = settle_unknown_puts(std::move(key_ops));
  verdict.operations = key_ops.size();
  Search search(key_ops);
  std::optional<bool> result = search.run(options.max_steps_per_key);
  verdict.linearizable = result.value_or(false);
  verdict.gave_up = !result.has_value();
  if (!verdict.linearizable) {
    std::vector<const Operation*> shown;
    for (const KeyOp& k : key_ops) shown.push_back(&ops[k.source]);
    std::stable_sort(shown.begin(), shown.end(), [](const Operation* a, const Operation* b) {
      return a->invoke_ns < b->invoke_ns;
    });
    if (verdict.gave_up) {
      verdict.explanation =
          "no verdict within the step budget; " + std::to_string(shown.size()) + " operations\n";
    } else {
      // The operations around the one no order gets past, in invoke order.
      const Operation* stuck = key_ops.empty() ? nullptr : &ops[key_ops[search.stuck_op()].source];
      verdict.explanation = "no order of its " + std::to_string(shown.size()) +
                            " operations is a register's; at best " +
                            std::to_string(search.deepest()) +
                            " are linearized before this one must end: " +
                            (stuck ? describe(*stuck) : std::string()) + "\n";
      size_t at = std::find(shown.begin(), shown.end(), stuck) - shown.begin();
      const size_t from = at > 30 ? at - 30 : 0;
      const size_t to = std::min(shown.size(), at + 10);
      if (from > 0) verdict.explanation += "    ... " + std::to_string(from) + " earlier\n";
      for (size_t i = from; i < to; ++i) {
        verdict.explanation += (i == at ? "  > " : "    ") + describe(*shown[i]) + "\n";
      }
      if (to < shown.size())
        verdict.explanation += "    ... " + std::to_string(shown.size() - to) + " later\n";
    }
  }
  return verdict;
}

CheckResult check_linearizable(const std::vector<Operation>& ops, const CheckOptions& options) {
  CheckResult result;
  std::map<std::string, std::vector<Operation>> by_key;
  for (const Operation& op : ops) by_key[op.key].push_back(op);
  for (const auto& [key, key_ops] : by_key) {
    ++result.keys;
    result.operations += key_ops.size();
    KeyVerdict v = check_key(key, key_ops, options);
    if (!v.linearizable) result.bad.push_back(std::move(v));
  }
  return result;
}

std::string CheckResult::report() const {
  std::string out;
  for (const KeyVerdict& v : bad) out += "key " + v.key + ": " + v.explanation;
  return out;
}

std::vector<std::string> lost_writes(
    const std::vector<Operation>& ops,
    const std::map<std::string, std::optional<std::string>>& final_values) {
  // Per key: the latest invoke of an acknowledged write, and the latest end
  // of a write that may have produced each final value.
  struct Writes {
    const Operation* last_acked = nullptr;  // the acknowledged write invoked last
    int64_t producer_end = std::numeric_limits<int64_t>::min();  // of the final value
    bool produced = false;
  };
  std::map<std::string, Writes> by_key;
  for (const Operation& op : ops) {
    auto final_it = final_values.find(op.key);
    if (final_it == final_values.end() || op.outcome == Outcome::kFailed) continue;
    const bool write = op.kind == OpKind::kPut || op.kind == OpKind::kDel ||
                       (op.kind == OpKind::kCas && (op.outcome == Outcome::kUnknown || op.swapped));
    if (!write) continue;
    Writes& w = by_key[op.key];
    if (op.outcome == Outcome::kOk &&
        (w.last_acked == nullptr || op.invoke_ns > w.last_acked->invoke_ns)) {
      w.last_acked = &op;
    }
    const std::optional<std::string> result = op.kind == OpKind::kDel ? std::nullopt : op.value;
    if (result == final_it->second) {
      w.produced = true;
      const int64_t end = op.outcome == Outcome::kUnknown ? kNever : op.complete_ns;
      w.producer_end = std::max(w.producer_end, end);
    }
  }
  std::vector<std::string> lost;
  for (const auto& [key, w] : by_key) {
    if (w.last_acked == nullptr) continue;
    const std::optional<std::string>& final_value = final_values.at(key);
    if (!w.produced) {
      lost.push_back("key " + key + " ends as " + show_value(final_value) +
                     ", which no write may have produced; the last acknowledged write: " +
                     describe(*w.last_acked));
    } else if (w.producer_end < w.last_acked->invoke_ns) {
      lost.push_back("key " + key + " ends as " + show_value(final_value) +
                     ", written before this acknowledged write began: " + describe(*w.last_acked));
    }
  }
  return lost;
}

}  // namespace ordo::testing::history
