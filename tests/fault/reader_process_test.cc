// Reader processes and one writer: every read txn a reader process begins
// (a new read-only handle, or a renewed read txn) sees every commit that had
// returned before it began, while the writer commits, takes checkpoints,
// wraps the log and closes and reopens its handle. The writer's syncs are
// slowed, so the windows where a meta or record is written but not yet
// synced are wide. The readers are forked before the writer opens the
// file; they share with it, through shared memory, the number of the last
// commit that returned, and report what they saw.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "database_opener.h"
#include "gated_sync_backend.h"
#include "io_test_util.h"
#include "ordo/database.h"

namespace ordo {
namespace {

constexpr int kReaders = 3;
constexpr uint64_t kCommits = 1200;

struct ReaderReport {
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> stale{0};   // read a commit older than one that had returned
  std::atomic<uint64_t> busy{0};    // a begin that raced the writer too often (Busy)
  std::atomic<uint64_t> failed{0};  // any other error
  char first_problem[512] = {};
};

struct Shared {
  std::atomic<uint64_t> returned{0};  // "n" of the last commit that returned
  std::atomic<bool> stop{false};
  ReaderReport readers[kReaders];
};

void note(ReaderReport& r, const std::string& what) {
  if (r.first_problem[0] == 0) {
    std::snprintf(r.first_problem, sizeof r.first_problem, "%s", what.c_str());
  }
}

uint64_t value_of(ReadTxn& txn, Status* s) {
  auto v = txn.get(txn.default_tree(), "n");
  if (!v.is_ok()) {
    *s = v.status();
    return 0;
  }
  return std::stoull(v->str());
}

// A reader process: reads until told to stop; every 8th read on a handle
// opened for it, the others on a renewed read txn of a handle it keeps.
void read_until_stopped(const std::string& path, Shared& shared, ReaderReport& report) {
  Options ro;
  ro.read_only = true;
  std::unique_ptr<Database> kept;
  std::optional<ReadTxn> txn;
  for (uint64_t i = 0; !shared.stop.load(); ++i) {
    const uint64_t before = shared.returned.load();
    if (before == 0) continue;  // the file is not there yet
    Status s;
    uint64_t got = 0;
    if (i % 8 == 0 || !kept) {
      txn.reset();
      auto db = Database::open(path, ro);
      if (!db.is_ok()) {
        s = db.status();
      } else {
        auto r = (*db)->begin_read();
        if (r.is_ok()) got = value_of(*r, &s);
        if (!r.is_ok()) s = r.status();
        kept = std::move(db).value();
      }
    } else {
      if (!txn) {
        auto r = kept->begin_read();
        if (r.is_ok()) txn.emplace(std::move(r).value());
        if (!r.is_ok()) s = r.status();
      } else {
        txn->reset();
        s = txn->renew();
      }
      if (s.is_ok() && txn) got = value_of(*txn, &s);
    }
    if (s.is_busy()) {
      report.busy++;
      continue;
    }
    if (!s.is_ok()) {
      report.failed++;
      note(report, "read " + std::to_string(i) + ": " + s.to_string());
      continue;
    }
    report.reads++;
    if (got < before) {
      report.stale++;
      note(report, "read " + std::to_string(i) + " saw commit " + std::to_string(got) +
                       " after commit " + std::to_string(before) + " had returned");
    }
  }
}

TEST(ReaderProcessTest, EveryReadSeesEveryCommitThatReturnedBeforeIt) {
  io::testing::TempDir dir;
  const std::string path = dir.file("db.ordo");
  void* mem =
      ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  Shared* shared = new (mem) Shared();
  pid_t children[kReaders];
  for (int i = 0; i < kReaders; ++i) {
    children[i] = ::fork();
    ASSERT_GE(children[i], 0);
    if (children[i] == 0) {
      read_until_stopped(path, *shared, shared->readers[i]);
      std::_Exit(0);
    }
  }

  auto gate = std::make_shared<testing::SyncGate>();
  gate->delay = std::chrono::microseconds(1500);
  Options o;
  o.log_bytes = 64 << 10;  // wraps every few dozen commits
  std::unique_ptr<Database> db;
  uint64_t reopens = 0, checkpoints = 0;
  for (uint64_t n = 1; n <= kCommits && !HasFailure(); ++n) {
    if (!db || n % 150 == 0) {
      db.reset();  // a close: a checkpoint
      auto opened = DatabaseOpener::open(path, o, testing::gated_sync_factory(gate));
      ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
      db = std::move(opened).value();
      reopens++;
    }
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "n", std::to_string(n)).is_ok());
    ASSERT_TRUE(
        w->put(w->default_tree(), "pad" + std::to_string(n % 40), std::string(300, 'p')).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
    shared->returned.store(n);
    if (n % 9 == 0) {
      ASSERT_TRUE(db->checkpoint().is_ok());
      checkpoints++;
    }
  }
  db.reset();
  shared->stop.store(true);
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "reader exit status " << status;
  }
  uint64_t reads = 0;
  for (int i = 0; i < kReaders; ++i) {
    const ReaderReport& r = shared->readers[i];
    std::printf("reader %d: %llu reads, %llu stale, %llu busy, %llu failed\n", i,
                static_cast<unsigned long long>(r.reads.load()),
                static_cast<unsigned long long>(r.stale.load()),
                static_cast<unsigned long long>(r.busy.load()),
                static_cast<unsigned long long>(r.failed.load()));
    EXPECT_EQ(r.stale.load(), 0u) << "reader " << i << ": " << r.first_problem;
    EXPECT_EQ(r.failed.load(), 0u) << "reader " << i << ": " << r.first_problem;
    reads += r.reads.load();
  }
  std::printf("%llu commits, %llu checkpoints, %llu opens of the writer, %llu reads\n",
              static_cast<unsigned long long>(kCommits),
              static_cast<unsigned long long>(checkpoints),
              static_cast<unsigned long long>(reopens), static_cast<unsigned long long>(reads));
  EXPECT_GT(reads, kCommits) << "the readers read too little to tell";
  shared->~Shared();
  ::munmap(mem, sizeof(Shared));
}

}  // namespace
}  // namespace ordo
