// Database::batch: group commit. Callers queue (batch_queue.h); the caller at
// the front runs its group's functions in one write txn and commits once.
#include <algorithm>
#include <exception>
#include <vector>

#include "batch_queue.h"
#include "db_impl.h"
#include "ordo/assert.h"
#include "txn_impl.h"
#include "txn_internals.h"

namespace ordo {
namespace {

using Member = engine::BatchQueue::Member;

// Runs `m`'s function in `txn` (whose implementation is `impl`); false when
// the member failed, with its outcome set.
bool run_member(Member& m, WriteTxn& txn, WriteTxnImpl* impl) {
  ORDO_ASSERT(m.fn != nullptr && impl != nullptr);
  Status s;
  try {
    s = (*m.fn)(txn);
  } catch (...) {
    m.exception = std::current_exception();
    m.status = Status::invalid_argument("the batch function threw");
    return false;
  }
  // Checked in this order: `impl` is gone once the txn ended or was replaced.
  auto now = TxnInternals::impl(txn);
  if (!now.is_ok() || *now != impl || impl->end_asked()) {
    s = Status::invalid_argument(
        "the batch function committed, aborted or moved the batch's write txn; batch() ends it");
  } else if (s.is_ok() && !impl->failure().is_ok()) {
    s = impl->failure();  // it went on past an error that left the txn unusable
  } else {
    // Its savepoints end with it: the next function cannot roll back into it.
    impl->end_savepoints();
  }
  m.status = s;
  return s.is_ok();
}

// Commits the functions of `pending` in one write txn. A member that fails
// gets its own outcome; the txn is rolled back and the rest run again in a
// fresh one. Every other member gets the outcome of the commit.
void run_group(const std::shared_ptr<DatabaseImpl>& db, std::vector<Member*> pending) {
  while (!pending.empty()) {
    Result<WriteTxn> txn = TxnFactory::begin_write(db, engine::WriterGate::Wait::forever());
    if (!txn.is_ok()) {
      for (Member* m : pending) m->status = txn.status();
      return;
    }
    auto* impl = static_cast<WriteTxnImpl*>(TxnInternals::impl(*txn).value());
    impl->set_lent(true);
    auto failed = std::find_if_not(pending.begin(), pending.end(),
                                   [&](Member* m) { return run_member(*m, *txn, impl); });
    if (failed == pending.end()) {
      impl->set_lent(false);
      const Status s = txn->commit();
      for (Member* m : pending) m->status = s;
      return;
    }
    ORDO_ASSERT(!(*failed)->status.is_ok());  // run_member() set its own outcome
    pending.erase(failed);
    db->counters().batch_rollbacks++;
    // `txn` goes out of scope: its destructor rolls back whatever it holds.
  }
}

// Finishes the group when the leader leaves, whatever way it leaves, so that
// no member waits forever.
class GroupScope {
 public:
  GroupScope(engine::BatchQueue& queue, std::vector<Member*> group)
      : queue_(queue), group_(std::move(group)) {
    ORDO_ASSERT(!group_.empty());  // take_group() includes the leader
  }
  ~GroupScope() { queue_.finish(group_); }
  GroupScope(const GroupScope&) = delete;
  GroupScope& operator=(const GroupScope&) = delete;
  const std::vector<Member*>& group() const { return group_; }

 private:
  engine::BatchQueue& queue_;
  std::vector<Member*> group_;
};

void lead(const std::shared_ptr<DatabaseImpl>& db, Member& leader) {
  engine::BatchQueue& queue = db->batch_queue();
  GroupScope scope(queue, queue.take_group(leader));
  ORDO_ASSERT(scope.group().front() == &leader &&
              scope.group().size() <= engine::BatchQueue::kMaxGroup);
  for (Member* m : scope.group()) {
    m->status = Status::io_error("the batch group ended before its commit", 0);  // until decided
  }
  auto& c = db->counters();
  c.batch_groups++;
  c.batch_members += scope.group().size();
  run_group(db, scope.group());
}

}  // namespace

Status Database::batch(const BatchFn& fn) {
  // A copy: the queue and the file stay while this call runs, even when the
  // Database is destroyed meanwhile.
  const std::shared_ptr<DatabaseImpl> db = impl_;
  ORDO_RETURN_IF_ERROR(db->check_writable());
  if (!fn) return Status::invalid_argument("the batch function is empty");
  if (db->writer_gate().held_by_this_thread()) {
    return Status::busy(
        "this thread holds the open write txn: commit or abort it before calling batch()");
  }
  Member me(fn);
  if (db->batch_queue().join(me)) lead(db, me);
  // A leader's write txn ended with its group; a member never held the gate.
  ORDO_ASSERT(!db->writer_gate().held_by_this_thread());
  if (me.exception) std::rethrow_exception(me.exception);
  return me.status;
}

}  // namespace ordo
