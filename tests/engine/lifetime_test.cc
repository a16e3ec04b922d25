// Handles that cannot crash or hang their host: txns that outlive their
// Database, a Database destroyed under reading threads, the writer lock
// (re-entry, try, timeout, across handles), tree handles of other databases,
// Result::value() on an error, fork(), and read txns reset and renewed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/io/page_file.h"

namespace ordo {
namespace {

using namespace std::chrono_literals;
using testing::be_key;
using testing::within;

// A Tree cannot be made by hand from an id and a name.
static_assert(!std::is_constructible_v<Tree, uint32_t, std::string>);
static_assert(std::is_default_constructible_v<Tree>);

class LifetimeTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("db.ordo"); }
  // Commits keys 0..n-1 with `value` into tree "t" (made when missing).
  void fill(Database& db, int n, const std::string& value) {
    auto w = db.begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    auto t = w->create_tree("t");
    ASSERT_TRUE(t.is_ok());
    for (int i = 0; i < n; ++i) ASSERT_TRUE(w->put(*t, be_key(i), value).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  io::testing::TempDir dir_;
};

TEST_F(LifetimeTest, TxnsOutliveTheirDatabase) {
  auto db = testing::open_db(path());
  fill(*db, 100, "v");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  auto t = w->open_tree("t");
  ASSERT_TRUE(t.is_ok());
  auto c = r->cursor(*t);
  ASSERT_TRUE(c.is_ok());
  db.reset();
  // The file stays open (and locked) while the txns live.
  EXPECT_TRUE(testing::open_database(path()).status().is_busy());
  ASSERT_TRUE(c->first().is_ok());
  EXPECT_EQ(c->key().str(), be_key(0));
  EXPECT_EQ(r->get(*t, be_key(7))->str(), "v");
  ASSERT_TRUE(w->put(*t, be_key(7), "new").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  EXPECT_EQ(r->get(*t, be_key(7))->str(), "v");  // its snapshot
  r->abort();
  EXPECT_TRUE(c->next().is_txn_ended());
  // The last txn ended: the file is closed and opens again.
  auto again = testing::open_db(path());
  ASSERT_NE(again, nullptr);
  auto r2 = again->begin_read();
  EXPECT_EQ(r2->get(*r2->open_tree("t"), be_key(7))->str(), "new");
}

TEST_F(LifetimeTest, DatabaseDestroyedWhileThreadsRead) {
  auto db = testing::open_db(path());
  fill(*db, 2000, std::string(300, 'r'));
  std::vector<ReadTxn> txns;
  for (int i = 0; i < 4; ++i) {
    auto r = db->begin_read();
    ASSERT_TRUE(r.is_ok());
    txns.push_back(std::move(*r));
  }
  std::atomic<int> started{0};
  std::atomic<uint64_t> reads{0};
  std::vector<std::thread> readers;
  for (ReadTxn& txn : txns) {
    readers.emplace_back([&, txn = std::move(txn)]() mutable {
      auto t = txn.open_tree("t");
      ASSERT_TRUE(t.is_ok());
      started++;
      const auto until = std::chrono::steady_clock::now() + 300ms;
      while (std::chrono::steady_clock::now() < until) {
        uint64_t n = 0;
        Status s = txn.scan(*t, KeyRange::all(), [&](ByteView, ByteView v) {
          n += v.size() == 300;
          return true;
        });
        ASSERT_TRUE(s.is_ok()) << s.to_string();
        ASSERT_EQ(n, 2000u);
        reads++;
      }
    });
  }
  while (started < 4) std::this_thread::yield();
  db.reset();  // while the threads read
  for (auto& t : readers) t.join();
  EXPECT_GT(reads.load(), 4u);
}

TEST_F(LifetimeTest, SecondBeginWriteOnTheSameThreadIsBusy) {
  auto db = testing::open_db(path());
  within(10s, [&] {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto again = db->begin_write();
    EXPECT_TRUE(again.status().is_busy()) << again.status().to_string();
    EXPECT_TRUE(db->begin_write(1000ms).status().is_busy());
    EXPECT_TRUE(db->try_begin_write().status().is_busy());
    ASSERT_TRUE(w->commit().is_ok());
    EXPECT_TRUE(db->begin_write().is_ok());
  });
}

TEST_F(LifetimeTest, TryAndTimedBeginWriteWhileAnotherThreadWrites) {
  auto db = testing::open_db(path());
  std::promise<void> holding;
  std::promise<void> release;
  std::thread holder([&] {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    holding.set_value();
    release.get_future().wait();
    ASSERT_TRUE(w->put(w->default_tree(), "k", "holder").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  });
  holding.get_future().wait();
  within(10s, [&] {
    EXPECT_TRUE(db->try_begin_write().status().is_busy());
    const auto start = std::chrono::steady_clock::now();
    auto timed = db->begin_write(100ms);
    EXPECT_TRUE(timed.status().is_busy()) << timed.status().to_string();
    EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  });
  release.set_value();
  within(10s, [&] {
    auto w = db->begin_write(5000ms);  // waits for the holder's commit
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    EXPECT_EQ(w->get(w->default_tree(), "k")->str(), "holder");
  });
  holder.join();
}

TEST_F(LifetimeTest, WriteTxnMayEndOnAnotherThread) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  ASSERT_TRUE(w->put(w->default_tree(), "k", "v").is_ok());
  std::thread other([txn = std::move(*w)]() mutable { ASSERT_TRUE(txn.commit().is_ok()); });
  other.join();
  within(10s, [&] {
    auto again = db->begin_write();
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    EXPECT_EQ(again->get(again->default_tree(), "k")->str(), "v");
  });
}

TEST_F(LifetimeTest, OpenWaitsForAnotherWritableHandle) {
  auto first = testing::open_db(path());
  ASSERT_NE(first, nullptr);
  const auto start = std::chrono::steady_clock::now();
  Options wait;
  wait.writer_wait_ms = 100;
  EXPECT_TRUE(testing::open_database(path(), wait).status().is_busy());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  EXPECT_TRUE(testing::open_database(path()).status().is_busy());  // no wait by default
  std::thread closer([&] {
    std::this_thread::sleep_for(100ms);
    first.reset();
  });
  wait.writer_wait_ms = 10'000;
  within(15s, [&] {
    auto second = testing::open_database(path(), wait);
    EXPECT_TRUE(second.is_ok()) << second.status().to_string();
  });
  closer.join();
}

TEST_F(LifetimeTest, TreeHandleOfAnotherDatabaseIsRefused) {
  auto a = testing::open_db(dir_.file("a.ordo"));
  auto b = testing::open_db(dir_.file("b.ordo"));
  fill(*a, 10, "from a");
  fill(*b, 10, "from b");
  auto ra = a->begin_read();
  const Tree tree_of_a = *ra->open_tree("t");
  auto rb = b->begin_read();
  EXPECT_TRUE(rb->get(tree_of_a, be_key(1)).status().is_invalid_argument());
  EXPECT_TRUE(rb->cursor(tree_of_a).status().is_invalid_argument());
  EXPECT_TRUE(rb->tree_stats(tree_of_a).status().is_invalid_argument());
  auto wb = b->begin_write();
  EXPECT_TRUE(wb->put(tree_of_a, "k", "v").is_invalid_argument());
  EXPECT_TRUE(wb->del(tree_of_a, be_key(1)).is_invalid_argument());
  EXPECT_TRUE(wb->del_range(tree_of_a, "", "\xff").status().is_invalid_argument());
  // Refused up front, so the txn is still good.
  ASSERT_TRUE(wb->put(wb->default_tree(), "k", "v").is_ok());
  ASSERT_TRUE(wb->commit().is_ok());
  // The default tree is every database's.
  EXPECT_TRUE(rb->get(Tree(), "k").status().is_not_found());
  // A reopened file is another Database: its trees are opened again.
  ra->abort();
  a.reset();
  a = testing::open_db(dir_.file("a.ordo"));
  auto ra2 = a->begin_read();
  EXPECT_TRUE(ra2->get(tree_of_a, be_key(1)).status().is_invalid_argument());
  EXPECT_EQ(ra2->get(*ra2->open_tree("t"), be_key(1))->str(), "from a");
}

// A Tree names a tree: NotFound once it is dropped, and the tree of that name
// again once one is created (as Tree documents).
TEST_F(LifetimeTest, TreeHandleFollowsItsName) {
  auto db = testing::open_db(path());
  Tree old;
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    auto t = w->create_tree("t");
    ASSERT_TRUE(t.is_ok());
    old = *t;
    ASSERT_TRUE(w->put(old, "k", "first").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  ASSERT_TRUE(w->drop_tree("t").is_ok());
  EXPECT_TRUE(w->get(old, "k").status().is_not_found());
  EXPECT_TRUE(w->put(old, "k", "x").is_not_found());
  auto again = w->create_tree("t");
  ASSERT_TRUE(again.is_ok());
  ASSERT_TRUE(w->put(*again, "k", "second").is_ok());
  auto got = w->get(old, "k");
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(got->str(), "second");
  ASSERT_TRUE(w->commit().is_ok());
}

TEST_F(LifetimeTest, ReadOnlyDatabaseRefusesWrites) {
  { auto db = testing::open_db(path()); }
  Options ro;
  ro.read_only = true;
  auto db = testing::open_database(path(), ro);
  ASSERT_TRUE(db.is_ok());
  EXPECT_TRUE((*db)->begin_write().status().is_invalid_argument());
  EXPECT_TRUE((*db)->try_begin_write().status().is_invalid_argument());
}

using LifetimeDeathTest = LifetimeTest;

TEST_F(LifetimeDeathTest, ValueOfAFailedResultAbortsNamingTheError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Options o;
  o.create_if_missing = false;
  EXPECT_DEATH(
      {
        auto db = testing::open_database(dir_.file("missing.ordo"), o);
        (void)(*db)->begin_read();
      },
      "Result::value\\(\\) called on an error: NotFound: .*missing\\.ordo");
  EXPECT_DEATH(
      {
        Result<int> r = Status::busy("held elsewhere");
        (void)r.value();
      },
      "called on an error: Busy: held elsewhere");
}

// Runs `child` in a forked process; returns its exit code (or 128 + signal).
template <typename Fn>
int in_child(Fn child) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::_Exit(child());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(LifetimeTest, ForkedChildLeavesTheParentsSnapshotAlone) {
  {
    auto db = testing::open_db(path());
    fill(*db, 400, std::string(500, '0'));
  }
  Options ro;
  ro.read_only = true;
  ro.verify_checksums = true;
  auto reader = testing::open_database(path(), ro);
  ASSERT_TRUE(reader.is_ok());
  auto r = (*reader)->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  // The child may not use the inherited handles; destroying them (as a
  // child returning from main does) must release nothing of the parent's.
  const int child = in_child([&] {
    if (!(*reader)->begin_read().status().is_invalid_argument()) return 10;
    if (!r->get(t, be_key(1)).is_ok()) return 11;  // reads its memory; allowed, not useful
    r->abort();
    reader = Status::invalid_argument("destroyed in the child");
    return 0;
  });
  ASSERT_EQ(child, 0);
  // A writer in another process rewrites every key 40 times: with the
  // parent's reader slot gone, it would reuse the snapshot's pages.
  const int writer = in_child([&] {
    auto db = testing::open_database(path());
    if (!db.is_ok()) return 20;
    for (int round = 1; round <= 40; ++round) {
      auto w = (*db)->begin_write();
      if (!w.is_ok()) return 21;
      auto tw = w->open_tree("t");
      for (int i = 0; i < 400; ++i) {
        if (!w->put(*tw, be_key(i), std::string(500, 'a' + round % 26)).is_ok()) return 22;
      }
      if (!w->commit().is_ok()) return 23;
    }
    return 0;
  });
  ASSERT_EQ(writer, 0);
  uint64_t n = 0;
  Status s = r->scan(t, KeyRange::all(), [&](ByteView k, ByteView v) {
    EXPECT_EQ(k.str(), be_key(n));
    EXPECT_EQ(v.str(), std::string(500, '0'));
    ++n;
    return true;
  });
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(n, 400u);
}

TEST_F(LifetimeTest, ForkedChildKeepsTheParentsWriterLockAndFile) {
  auto db = testing::open_db(path());
  fill(*db, 100, "before");
  struct stat before;
  ASSERT_EQ(::stat(path().c_str(), &before), 0);
  auto r = db->begin_read();
  const int child = in_child([&] {
    if (!db->begin_write().status().is_invalid_argument()) return 10;
    if (!db->try_begin_write().status().is_invalid_argument()) return 11;
    r->abort();
    db.reset();  // no trim of the parent's file, no unlock
    return 0;
  });
  ASSERT_EQ(child, 0);
  struct stat after;
  ASSERT_EQ(::stat(path().c_str(), &after), 0);
  EXPECT_EQ(after.st_size, before.st_size);  // the preallocated extent is still there
  EXPECT_TRUE(testing::open_database(path()).status().is_busy());  // still locked by the parent
  // The parent's handle (and its io_uring ring) keeps working.
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  ASSERT_TRUE(w->put(*w->open_tree("t"), be_key(5), "after").is_ok());
  ASSERT_TRUE(w->commit().is_ok());
  EXPECT_EQ(r->get(*r->open_tree("t"), be_key(5))->str(), "before");
  auto r2 = db->begin_read();
  EXPECT_EQ(r2->get(*r2->open_tree("t"), be_key(5))->str(), "after");
}

TEST_F(LifetimeTest, ForkedChildCannotWriteThroughAnInheritedWriteTxn) {
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  ASSERT_TRUE(w->put(w->default_tree(), "k", "parent").is_ok());
  const std::string big(200'000, 'c');  // an overflow run: written to the file at put
  const int child = in_child([&] {
    if (!w->put(w->default_tree(), "k", "child").is_invalid_argument()) return 10;
    if (!w->put(w->default_tree(), "big", big).is_invalid_argument()) return 11;
    if (!w->del(w->default_tree(), "k").is_invalid_argument()) return 12;
    if (w->create_tree("child").is_ok()) return 13;
    return w->commit().is_invalid_argument() ? 0 : 14;
  });
  ASSERT_EQ(child, 0);
  ASSERT_TRUE(w->commit().is_ok());
  auto r = db->begin_read();
  EXPECT_EQ(r->get(r->default_tree(), "k")->str(), "parent");
  EXPECT_TRUE(r->get(r->default_tree(), "big").status().is_not_found());
}

TEST_F(LifetimeTest, ForkedChildLeavesTheParentsLaterValuesAlone) {
  // The child holds a copy of a write txn the parent has since aborted; the
  // parent then commits large values. A write by the child must not reach
  // the pages those values took.
  auto db = testing::open_db(path());
  auto w = db->begin_write();
  ASSERT_TRUE(w.is_ok());
  int to_child[2];
  int from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    char go = 0;
    if (::read(to_child[0], &go, 1) != 1) ::_exit(20);
    const Status s = w->put(w->default_tree(), "late", std::string(200'000, 'x'));
    const char done = s.is_invalid_argument() ? 'y' : 'n';
    if (::write(from_child[1], &done, 1) != 1) ::_exit(21);
    ::_exit(0);
  }
  w->abort();
  const std::string value(200'000, 'p');
  for (int i = 0; i < 2; ++i) {
    auto p = db->begin_write();
    ASSERT_TRUE(p.is_ok());
    ASSERT_TRUE(p->put(p->default_tree(), "v" + std::to_string(i), value).is_ok());
    ASSERT_TRUE(p->commit().is_ok());
  }
  const char go = 'g';
  ASSERT_EQ(::write(to_child[1], &go, 1), 1);
  char done = 0;
  ASSERT_EQ(::read(from_child[0], &done, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
  EXPECT_EQ(done, 'y');
  auto r = db->begin_read();
  for (int i = 0; i < 2; ++i) {
    auto got = r->get(r->default_tree(), "v" + std::to_string(i));
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    EXPECT_EQ(got->str(), value);
  }
  auto report = r->check();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->clean()) << report->problems.front().what;
}

// ReadTxn::reset and renew: one txn object serving snapshot after snapshot.
class ReadTxnRenewTest : public LifetimeTest {
 protected:
  // Pages of the free tree the writer may not reuse yet, as a fresh reader
  // of the last commit counts them.
  uint64_t pending_pages(Database& db) {
    auto r = db.begin_read();
    EXPECT_TRUE(r.is_ok());
    auto fs = r->free_space();
    EXPECT_TRUE(fs.is_ok()) << fs.status().to_string();
    return fs.is_ok() ? fs->pending_pages : 0;
  }
};

TEST_F(ReadTxnRenewTest, RenewedTxnSeesNewerCommits) {
  auto db = testing::open_db(path());
  fill(*db, 10, "v1");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  const uint64_t first = r->txn_id();
  EXPECT_EQ(r->get(t, be_key(3))->str(), "v1");
  r->reset();
  fill(*db, 10, "v2");
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_TRUE(r->live());
  EXPECT_EQ(r->txn_id(), first + 1);
  EXPECT_EQ(r->get(t, be_key(3))->str(), "v2");
  // A live txn renewed moves to the newest commit.
  fill(*db, 10, "v3");
  EXPECT_EQ(r->get(t, be_key(3))->str(), "v2");
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_EQ(r->txn_id(), first + 2);
  EXPECT_EQ(r->get(t, be_key(3))->str(), "v3");
  // No commit in between: the same snapshot again.
  r->reset();
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_EQ(r->txn_id(), first + 2);
  EXPECT_EQ(r->get(t, be_key(9))->str(), "v3");
}

TEST_F(ReadTxnRenewTest, ResetTxnAndItsCursorsReportTxnEnded) {
  auto db = testing::open_db(path());
  fill(*db, 10, "v");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  auto c = r->cursor(t);
  ASSERT_TRUE(c.is_ok());
  ASSERT_TRUE(c->first().is_ok());
  ASSERT_TRUE(c->valid());
  r->reset();
  r->reset();  // nothing more to do
  EXPECT_FALSE(r->live());
  EXPECT_EQ(r->txn_id(), 0u);
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(c->next().is_txn_ended());
  EXPECT_TRUE(r->get(t, be_key(1)).status().is_txn_ended());
  EXPECT_TRUE(r->open_tree("t").status().is_txn_ended());
  EXPECT_TRUE(r->list_trees().status().is_txn_ended());
  EXPECT_TRUE(r->cursor(t).status().is_txn_ended());
  EXPECT_TRUE(r->scan(t, KeyRange::all(), [](ByteView, ByteView) { return true; }).is_txn_ended());
  EXPECT_TRUE(r->tree_stats(t).status().is_txn_ended());
  EXPECT_TRUE(r->free_space().status().is_txn_ended());
  EXPECT_TRUE(r->check().status().is_txn_ended());
  EXPECT_TRUE(r->copy_to(dir_.file("copy.ordo")).status().is_txn_ended());
  // Renewed, the txn reads again; the old cursor stays ended, a new one works.
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_TRUE(c->first().is_txn_ended());
  auto c2 = r->cursor(t);
  ASSERT_TRUE(c2.is_ok());
  ASSERT_TRUE(c2->first().is_ok());
  EXPECT_EQ(c2->key().str(), be_key(0));
  // Renewing a live txn ends its cursors too.
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_TRUE(c2->next().is_txn_ended());
}

TEST_F(ReadTxnRenewTest, AbortedOrMovedFromTxnCannotBeRenewed) {
  auto db = testing::open_db(path());
  fill(*db, 10, "v");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  r->reset();
  r->abort();
  EXPECT_TRUE(r->renew().is_txn_ended());
  auto a = db->begin_read();
  ASSERT_TRUE(a.is_ok());
  a->reset();
  ReadTxn b = std::move(*a);
  EXPECT_TRUE(a->renew().is_txn_ended());
  ASSERT_TRUE(b.renew().is_ok());  // the reset txn moved with its state
  EXPECT_EQ(b.get(*b.open_tree("t"), be_key(2))->str(), "v");
}

TEST_F(ReadTxnRenewTest, ScanEndsWhenItsFunctionResetsOrRenewsTheTxn) {
  auto db = testing::open_db(path());
  fill(*db, 10, "v");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  int calls = 0;
  Status s = r->scan(t, KeyRange::all(), [&](ByteView, ByteView) {
    ++calls;
    r->reset();
    return true;
  });
  EXPECT_TRUE(s.is_txn_ended()) << s.to_string();
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(r->renew().is_ok());
  calls = 0;
  s = r->scan(t, KeyRange::all(), [&](ByteView, ByteView) {
    ++calls;
    EXPECT_TRUE(r->renew().is_ok());
    return true;
  });
  EXPECT_TRUE(s.is_txn_ended()) << s.to_string();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r->get(t, be_key(4))->str(), "v");  // renewed inside: live
}

TEST_F(ReadTxnRenewTest, ResetReleasesTheSnapshotsPagesAndRenewPinsTheNewest) {
  auto db = testing::open_db(path());
  const int n = 400;
  fill(*db, n, std::string(500, '0'));
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  for (int round = 1; round <= 3; ++round) fill(*db, n, std::string(500, 'a' + round));
  const uint64_t held = pending_pages(*db);
  r->reset();
  const uint64_t released = pending_pages(*db);
  // The snapshot reached every page of the first commit: ~50 leaves of 500-byte values.
  EXPECT_GE(held, released + 40) << "held " << held << ", released " << released;
  // Renewed, the txn pins the newest snapshot: 40 rewrites, each of which
  // would reuse its pages were the reader not registered, leave it intact.
  ASSERT_TRUE(r->renew().is_ok());
  for (int round = 4; round <= 44; ++round) {
    fill(*db, n, std::string(500, 'a' + round % 26));
  }
  EXPECT_GT(db->stats().pages_reused, 0u);
  int seen = 0;
  Status s = r->scan(t, KeyRange::all(), [&](ByteView k, ByteView v) {
    EXPECT_EQ(k.str(), be_key(seen));
    EXPECT_EQ(v.str(), std::string(500, 'a' + 3));
    ++seen;
    return true;
  });
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(seen, n);
  auto report = r->check();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->clean());
}

TEST_F(ReadTxnRenewTest, RenewLooksTreesUpAgainAfterACommit) {
  auto db = testing::open_db(path());
  fill(*db, 10, "old");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  EXPECT_EQ(r->get(t, be_key(1))->str(), "old");
  r->reset();
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w->drop_tree("t").is_ok());
    auto t2 = w->create_tree("t");
    ASSERT_TRUE(t2.is_ok());
    ASSERT_TRUE(w->put(*t2, be_key(1), "new").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_EQ(r->get(t, be_key(1))->str(), "new");
  EXPECT_TRUE(r->get(t, be_key(2)).status().is_not_found());
  r->reset();
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w->drop_tree("t").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_TRUE(r->get(t, be_key(1)).status().is_not_found());
}

TEST_F(ReadTxnRenewTest, ReadOnlyHandleRenewsOnTheNewestMetaAndItsReaderSlot) {
  auto db = testing::open_db(path());
  fill(*db, 10, "v1");
  Options ro;
  ro.read_only = true;
  auto reader = testing::open_database(path(), ro);
  ASSERT_TRUE(reader.is_ok()) << reader.status().to_string();
  auto r = (*reader)->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Tree t = *r->open_tree("t");
  const uint64_t first = r->txn_id();
  auto slots = io::PageFile::held_reader_slots(path());
  ASSERT_TRUE(slots.is_ok());
  EXPECT_EQ(*slots, (std::vector<uint64_t>{first}));
  r->reset();
  slots = io::PageFile::held_reader_slots(path());
  ASSERT_TRUE(slots.is_ok());
  EXPECT_TRUE(slots->empty());
  fill(*db, 10, "v2");
  ASSERT_TRUE(r->renew().is_ok());
  EXPECT_EQ(r->txn_id(), first + 1);
  EXPECT_EQ(r->get(t, be_key(5))->str(), "v2");
  slots = io::PageFile::held_reader_slots(path());
  ASSERT_TRUE(slots.is_ok());
  EXPECT_EQ(*slots, (std::vector<uint64_t>{first + 1}));
}

TEST_F(ReadTxnRenewTest, ForkedChildCannotRenew) {
  auto db = testing::open_db(path());
  fill(*db, 10, "v");
  auto r = db->begin_read();
  ASSERT_TRUE(r.is_ok());
  r->reset();
  const int child = in_child([&] {
    if (!r->renew().is_invalid_argument()) return 10;
    if (r->live()) return 11;
    return 0;
  });
  EXPECT_EQ(child, 0);
  ASSERT_TRUE(r->renew().is_ok());
}

}  // namespace
}  // namespace ordo
