// A read begun while a checkpoint writes its meta sees every commit that had
// returned. The checkpoint's meta sync is held open (a backend whose sync
// waits for the test), and read-only handles (which read the file, as those
// of other processes do) begin reads meanwhile.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "database_opener.h"
#include "gated_sync_backend.h"
#include "io_test_util.h"
#include "ordo/database.h"

namespace ordo {
namespace {

std::string value_of(Database& db) {
  auto r = db.begin_read();
  if (!r.is_ok()) return r.status().to_string();
  auto v = r->get(r->default_tree(), "x");
  return v.is_ok() ? v->str() : v.status().to_string();
}

TEST(CheckpointReadTest, AReadBegunDuringACheckpointSeesTheCommitThatReturned) {
  io::testing::TempDir dir;
  const std::string path = dir.file("db.ordo");
  auto gate = std::make_shared<testing::SyncGate>();
  auto writer = DatabaseOpener::open(path, Options{}, testing::gated_sync_factory(gate));
  ASSERT_TRUE(writer.is_ok()) << writer.status().to_string();
  for (const char* v : {"A", "B"}) {
    auto w = (*writer)->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "x", v).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  const uint64_t b_txn = (*writer)->info().txn_id;
  ASSERT_EQ((*writer)->info().log.records, 2u) << "both commits are logged";

  Options ro;
  ro.read_only = true;
  auto reader = Database::open(path, ro);
  ASSERT_TRUE(reader.is_ok()) << reader.status().to_string();
  auto held = (*reader)->begin_read();
  ASSERT_TRUE(held.is_ok());
  ASSERT_EQ(held->txn_id(), b_txn);
  held->reset();

  // The checkpoint: its first sync (the pages) passes, the second (the meta
  // just written) waits.
  {
    std::lock_guard<std::mutex> lock(gate->mu);
    gate->syncs_to_pass = 1;
  }
  Status checkpointed;
  std::thread t([&] { checkpointed = (*writer)->checkpoint(); });
  {
    std::unique_lock<std::mutex> lock(gate->mu);
    gate->cv.wait(lock, [&] { return gate->waiting; });
  }
  // The meta of the checkpoint is in the file, its sync not returned.
  ASSERT_TRUE(held->renew().is_ok());
  EXPECT_EQ(held->txn_id(), b_txn) << "a renewed read missed the commit that returned";
  auto v = held->get(held->default_tree(), "x");
  EXPECT_TRUE(v.is_ok() && v->str() == "B");
  auto opened = Database::open(path, ro);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(value_of(**opened), "B") << "a read-only open missed the commit that returned";
  {
    std::lock_guard<std::mutex> lock(gate->mu);
    gate->released = true;
    gate->cv.notify_all();
  }
  t.join();
  EXPECT_TRUE(checkpointed.is_ok()) << checkpointed.to_string();
  EXPECT_EQ((*writer)->info().log.records, 0u) << "the checkpoint took effect";
  held->reset();
  ASSERT_TRUE(held->renew().is_ok());
  EXPECT_EQ(held->txn_id(), b_txn);
  EXPECT_EQ(value_of(**opened), "B");
}

}  // namespace
}  // namespace ordo
