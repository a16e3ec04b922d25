// Durability: a writer process killed with SIGKILL in the middle of a load
// leaves exactly its last committed state (or the one in flight, whose commit
// may have finished just before the kill).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/btree/endian.h"

namespace ordo {
namespace {

using testing::be_key;

constexpr int kKeysPerTxn = 500;

std::string value_of(uint64_t i) { return "value-" + std::to_string(i * 31); }

// Child: commits txn after txn, reporting each finished commit on `fd`.
[[noreturn]] void load_forever(const std::string& path, int fd) {
  auto db = testing::open_database(path);
  if (!db.is_ok()) _exit(3);
  for (uint64_t txn = 1;; ++txn) {
    auto w = (*db)->begin_write();
    if (!w.is_ok()) _exit(4);
    auto t = w->create_tree("data");
    for (uint64_t i = (txn - 1) * kKeysPerTxn; i < txn * kKeysPerTxn; ++i) {
      if (!w->put(*t, be_key(i), value_of(i)).is_ok()) _exit(5);
    }
    if (!w->put(w->default_tree(), "count", std::to_string(txn)).is_ok()) _exit(6);
    if (!w->commit().is_ok()) _exit(7);
    if (write(fd, &txn, sizeof txn) != sizeof txn) _exit(8);
  }
}

TEST(CrashTest, SigkillMidLoadKeepsTheLastCommit) {
  io::testing::TempDir dir;
  std::mt19937_64 rng(testing::test_seed(11));
  for (int trial = 0; trial < 6; ++trial) {
    const std::string path = dir.file("crash" + std::to_string(trial));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      load_forever(path, fds[1]);
    }
    close(fds[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 400));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    uint64_t reported = 0, v;
    while (read(fds[0], &v, sizeof v) == sizeof v) reported = v;
    close(fds[0]);

    auto db = testing::open_db(path);
    ASSERT_NE(db, nullptr);
    auto r = db->begin_read();
    uint64_t count = 0;
    auto got = r->get(r->default_tree(), "count");
    if (got.is_ok()) count = std::stoull(got->str());
    std::printf("trial %d: last reported commit %llu, recovered %llu\n", trial,
                (unsigned long long)reported, (unsigned long long)count);
    ASSERT_TRUE(count == reported || count == reported + 1);
    if (count == 0) continue;
    auto t = r->open_tree("data");
    ASSERT_TRUE(t.is_ok());
    testing::Model model;
    for (uint64_t i = 0; i < count * kKeysPerTxn; ++i) model[be_key(i)] = value_of(i);
    testing::expect_tree_equals(*r, *t, model);
  }
}

}  // namespace
}  // namespace ordo
