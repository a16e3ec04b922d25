// A commit whose write or sync fails is never seen: not by a reader of
// another handle opened while it fails or afterwards, not by a later open,
// not by a retry's readers. Each input is the smallest that showed a failed
// commit taken for a commit: EIO and ENOSPC from the commit's fdatasync in
// both protocols, a disk that fails every sync, and a reader that opens while
// the commit's sync is still running.
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <memory>
#include <string>

#include "database_opener.h"
#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/testing/fault_backend.h"
#include "ordo/io/testing/fault_log.h"

namespace ordo {
namespace {

using io::testing::FaultLog;

const char* protocol_name(CommitProtocol p) {
  return p == CommitProtocol::kOneSync   ? "one-sync"
         : p == CommitProtocol::kTwoSync ? "two-sync"
                                         : "log";
}

Status put_k(Database& db, const std::string& value) {
  auto w = db.begin_write();
  if (!w.is_ok()) return w.status();
  ORDO_RETURN_IF_ERROR(w->put(w->default_tree(), "k", value));
  return w->commit();
}

// k and the snapshot's txn id, as "value@txn".
std::string k_at(ReadTxn& r) {
  auto v = r.get(r.default_tree(), "k");
  return (v.is_ok() ? v->str() : v.status().to_string()) + "@" + std::to_string(r.txn_id());
}

std::string k_at(Database& db) {
  auto r = db.begin_read();
  if (!r.is_ok()) return r.status().to_string();
  return k_at(*r);
}

std::unique_ptr<Database> open_read_only(const std::string& path) {
  Options ro;
  ro.read_only = true;
  ro.verify_checksums = true;
  return testing::open_db(path, ro);
}

struct Faulty {
  std::shared_ptr<FaultLog> log = std::make_shared<FaultLog>();
  std::unique_ptr<Database> db;
};

Faulty open_faulty(const std::string& path, CommitProtocol protocol) {
  Faulty f;
  Options o;
  o.commit_protocol = protocol;
  o.verify_checksums = true;
  auto db = DatabaseOpener::open(path, o, io::testing::fault_backend_factory(f.log));
  EXPECT_TRUE(db.is_ok()) << db.status().to_string();
  if (db.is_ok()) f.db = std::move(db).value();
  return f;
}

// The sync that makes the commit durable: of its meta page, the only one of
// one-sync, the second of two-sync; of its log record, the only one of a
// logged commit.
size_t meta_sync(CommitProtocol p) { return p == CommitProtocol::kTwoSync ? 1 : 0; }

constexpr CommitProtocol kAllProtocols[] = {CommitProtocol::kOneSync, CommitProtocol::kTwoSync,
                                            CommitProtocol::kLog};

// A {k: old}; B {k: new} whose sync of the meta fails with EIO -> IOError,
// the handle poisoned; a read-only handle opened now, the poisoned handle and
// a reopen after it closed all read k = old at txn 1, with nothing to
// recover from.
TEST(FailedCommitTest, EioAtTheCommitsSyncLeavesThePreviousCommit) {
  for (CommitProtocol protocol : kAllProtocols) {
    SCOPED_TRACE(protocol_name(protocol));
    testing::TempDir dir;
    const std::string path = dir.file("eio.ordo");
    Faulty f = open_faulty(path, protocol);
    ASSERT_TRUE(f.db);
    ASSERT_TRUE(put_k(*f.db, "old").is_ok());
    f.log->fail_sync_at(meta_sync(protocol), EIO);
    Status s = put_k(*f.db, "new");
    ASSERT_TRUE(s.is_io_error()) << s.to_string();
    EXPECT_EQ(s.errno_value(), EIO);
    EXPECT_NE(s.message().find("was not committed"), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find("reopen"), std::string::npos) << s.to_string();
    EXPECT_EQ(f.log->failed_count(), 1u);

    auto other = open_read_only(path);
    EXPECT_EQ(k_at(*other), "old@1");
    EXPECT_EQ(k_at(*f.db), "old@1");
    auto w = f.db->begin_write();
    EXPECT_TRUE(w.status().is_io_error()) << w.status().to_string();
    other.reset();
    f.db.reset();

    auto reopened = testing::open_db(path);
    EXPECT_EQ(k_at(*reopened), "old@1");
    EXPECT_EQ(reopened->info().recovery, "");
    auto r = reopened->begin_read();
    testing::expect_check_clean(*r);
  }
}

// Also when the pages' own sync fails (two-sync): the meta was never written.
TEST(FailedCommitTest, NoSpaceAtThePagesSyncOfTwoSyncPoisonsAndLeavesThePreviousCommit) {
  testing::TempDir dir;
  const std::string path = dir.file("pages.ordo");
  Faulty f = open_faulty(path, CommitProtocol::kTwoSync);
  ASSERT_TRUE(f.db);
  ASSERT_TRUE(put_k(*f.db, "old").is_ok());
  f.log->fail_sync_at(0, ENOSPC);
  Status s = put_k(*f.db, "new");
  ASSERT_TRUE(s.is_full()) << s.to_string();
  EXPECT_TRUE(f.db->begin_write().status().is_io_error());
  EXPECT_EQ(k_at(*open_read_only(path)), "old@1");
  f.db.reset();
  EXPECT_EQ(k_at(*testing::open_db(path)), "old@1");
}

// ENOSPC from fdatasync: Full, and the handle is poisoned as for EIO (the
// page cache state is unknown). A reader R opened after the failure reads A
// at txn 1; after a reopen the retry C commits, and R's snapshot still reads
// A while a new snapshot reads C.
TEST(FailedCommitTest, NoSpaceAtTheCommitsSyncLeavesThePreviousCommitAndARetryKeepsSnapshots) {
  for (CommitProtocol protocol : kAllProtocols) {
    SCOPED_TRACE(protocol_name(protocol));
    testing::TempDir dir;
    const std::string path = dir.file("nospace.ordo");
    Faulty f = open_faulty(path, protocol);
    ASSERT_TRUE(f.db);
    ASSERT_TRUE(put_k(*f.db, "A").is_ok());
    f.log->fail_sync_at(meta_sync(protocol), ENOSPC);
    Status s = put_k(*f.db, "B");
    ASSERT_TRUE(s.is_full()) << s.to_string();
    EXPECT_NE(s.message().find("reopen"), std::string::npos) << s.to_string();
    Status again = put_k(*f.db, "C");
    EXPECT_TRUE(again.is_io_error()) << again.to_string();

    auto r_db = open_read_only(path);
    auto r = r_db->begin_read();
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(k_at(*r), "A@1");

    f.db.reset();
    Faulty g = open_faulty(path, protocol);
    ASSERT_TRUE(g.db);
    EXPECT_EQ(k_at(*g.db), "A@1");
    ASSERT_TRUE(put_k(*g.db, "C").is_ok());
    ASSERT_TRUE(put_k(*g.db, "D").is_ok());  // may reuse pages only snapshots before R's held
    EXPECT_EQ(k_at(*r), "A@1");
    testing::expect_check_clean(*r);
    EXPECT_EQ(k_at(*r_db), "D@3");
  }
}

// No retry: B fails at its sync with ENOSPC; close; reopen shows A.
TEST(FailedCommitTest, NoSpaceAtTheSyncThenReopenShowsThePreviousCommit) {
  for (CommitProtocol protocol : kAllProtocols) {
    SCOPED_TRACE(protocol_name(protocol));
    testing::TempDir dir;
    const std::string path = dir.file("noretry.ordo");
    Faulty f = open_faulty(path, protocol);
    ASSERT_TRUE(f.db);
    ASSERT_TRUE(put_k(*f.db, "A").is_ok());
    f.log->fail_sync_at(meta_sync(protocol), ENOSPC);
    ASSERT_TRUE(put_k(*f.db, "B").is_full());
    f.db.reset();
    EXPECT_EQ(k_at(*testing::open_db(path)), "A@1");
  }
}

// ENOSPC from a page write (before the meta is written): Full, the handle
// stays usable, the retry on the same handle commits.
TEST(FailedCommitTest, NoSpaceFromAPageWriteLeavesTheHandleUsable) {
  for (CommitProtocol protocol : kAllProtocols) {
    SCOPED_TRACE(protocol_name(protocol));
    testing::TempDir dir;
    const std::string path = dir.file("write.ordo");
    Faulty f = open_faulty(path, protocol);
    ASSERT_TRUE(f.db);
    ASSERT_TRUE(put_k(*f.db, "A").is_ok());
    f.log->fail_write_at(0, ENOSPC);
    ASSERT_TRUE(put_k(*f.db, "B").is_full());
    EXPECT_EQ(k_at(*open_read_only(path)), "A@1");
    ASSERT_TRUE(put_k(*f.db, "C").is_ok());
    EXPECT_EQ(k_at(*f.db), "C@2");
    EXPECT_EQ(k_at(*open_read_only(path)), "C@2");
  }
}

// A disk whose every sync fails: the put-back cannot be made durable, which
// the error says; the page cache, and so every handle while the machine
// runs, shows the previous commit.
TEST(FailedCommitTest, EverySyncFailingLeavesThePreviousCommitVisible) {
  for (int err : {EIO, ENOSPC}) {
    for (CommitProtocol protocol : kAllProtocols) {
      SCOPED_TRACE(std::string(protocol_name(protocol)) + (err == EIO ? ", EIO" : ", ENOSPC"));
      testing::TempDir dir;
      const std::string path = dir.file("dead.ordo");
      Faulty f = open_faulty(path, protocol);
      ASSERT_TRUE(f.db);
      ASSERT_TRUE(put_k(*f.db, "A").is_ok());
      f.log->fail_syncs_from(0, err);
      Status s = put_k(*f.db, "B");
      ASSERT_FALSE(s.is_ok());
      EXPECT_TRUE(err == EIO ? s.is_io_error() : s.is_full()) << s.to_string();
      if (protocol != CommitProtocol::kTwoSync) {
        // One-sync wrote the meta (a logged commit its record) before its
        // sync: putting it back needs a sync too.
        EXPECT_NE(s.message().find("failed too"), std::string::npos) << s.to_string();
      }
      EXPECT_EQ(k_at(*open_read_only(path)), "A@1");
      f.db.reset();
      EXPECT_EQ(k_at(*open_read_only(path)), "A@1");
    }
  }
}

// A backend whose sync runs `during_sync` first: what another handle sees
// while a commit's sync is in progress.
class HookedBackend final : public io::WriteBackend {
 public:
  HookedBackend(std::unique_ptr<io::WriteBackend> real, std::function<void()>* during_sync)
      : real_(std::move(real)), during_sync_(during_sync) {}
  std::string_view name() const override { return "hooked"; }
  Status write(std::span<const io::WriteSpan> spans, bool sync_after) override {
    ORDO_RETURN_IF_ERROR(real_->write(spans, false));
    return sync_after ? sync() : Status::ok();
  }
  Status sync() override {
    if (*during_sync_) (*during_sync_)();
    return real_->sync();
  }
  uint64_t submissions() const override { return real_->submissions(); }

 private:
  std::unique_ptr<io::WriteBackend> real_;
  std::function<void()>* during_sync_;
};

// While the commit of txn 2 syncs, its meta is in the page cache: a read-only
// handle opened then, and a new snapshot of one opened before, read txn 1.
// Once the commit returned they read txn 2.
TEST(FailedCommitTest, ACommitIsNotTakenByOtherHandlesBeforeItsSyncReturned) {
  for (CommitProtocol protocol : kAllProtocols) {
    SCOPED_TRACE(protocol_name(protocol));
    testing::TempDir dir;
    const std::string path = dir.file("inflight.ordo");
    std::function<void()> during_sync;
    Options o;
    o.commit_protocol = protocol;
    auto db =
        DatabaseOpener::open(path, o, [&](int fd) -> Result<std::unique_ptr<io::WriteBackend>> {
          ORDO_ASSIGN_OR_RETURN(auto real, io::make_backend(fd, io::BackendKind::kPosix));
          return std::unique_ptr<io::WriteBackend>(
              new HookedBackend(std::move(real), &during_sync));
        });
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    ASSERT_TRUE(put_k(**db, "A").is_ok());
    auto before = open_read_only(path);
    EXPECT_EQ(k_at(*before), "A@1");
    int syncs_seen = 0;
    int in_flight_seen = 0;
    during_sync = [&] {
      ++syncs_seen;
      auto now = open_read_only(path);
      EXPECT_EQ(k_at(*now), "A@1");
      EXPECT_EQ(k_at(*before), "A@1");
      const MetaInfo& slot0 = now->info().metas[0];  // txn 2's, once its meta is written
      if (slot0.txn_id == 2) {
        ++in_flight_seen;
        EXPECT_FALSE(slot0.valid);
        EXPECT_EQ(slot0.problem, "txn 2 is being committed");
      }
    };
    ASSERT_TRUE(put_k(**db, "B").is_ok());
    during_sync = nullptr;
    EXPECT_EQ(syncs_seen, protocol == CommitProtocol::kTwoSync ? 2 : 1);
    // The meta's sync of a checkpoint commit; a logged commit writes no meta
    // slot (its record's lock kept the reader on txn 1 all the same).
    EXPECT_EQ(in_flight_seen, protocol == CommitProtocol::kLog ? 0 : 1);
    EXPECT_EQ(k_at(*before), "B@2");
    EXPECT_EQ(k_at(*open_read_only(path)), "B@2");
  }
}

}  // namespace
}  // namespace ordo
