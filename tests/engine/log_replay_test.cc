// Recovery with the log after a crash of the machine: the file as the last
// checkpoint left it (every page written since then lost) with the log area as
// the synced records left it. Open must replay every record, say so, and take
// a checkpoint; a read-only open must refuse until then.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"

namespace ordo {
namespace {

using testing::be_key;

using io::testing::read_file;
using io::testing::write_file;

class LogReplayTest : public ::testing::Test {
 protected:
  Options options() const {
    Options o;
    o.log_bytes = 256 << 10;
    o.extent_bytes = 1 << 20;
    return o;
  }
  io::testing::TempDir dir_;
};

TEST_F(LogReplayTest, MachineCrashReplaysEveryRecordSinceTheCheckpoint) {
  const uint64_t seed = testing::test_seed(2026);
  std::mt19937_64 rng(seed);
  testing::Model main_model, edges_model;
  auto db = testing::open_db(dir_.file("live.ordo"), options());
  ASSERT_NE(db, nullptr);
  {
    auto w = db->begin_write();
    for (uint64_t i = 0; i < 2000; ++i) {
      const std::string v = "v0-" + std::to_string(i);
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), v).is_ok());
      main_model[be_key(i)] = v;
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  ASSERT_TRUE(db->checkpoint().is_ok());
  const DatabaseInfo at_checkpoint = db->info();
  ASSERT_EQ(at_checkpoint.log.records, 0u);
  const std::vector<std::byte> checkpoint_image = read_file(dir_.file("live.ordo"));

  // Puts over scattered keys, appends, a delete range and a new tree: every
  // kind of record operation, each txn one record.
  const int kTxns = 24;
  for (int t = 0; t < kTxns; ++t) {
    auto w = db->begin_write();
    for (int k = 0; k < 8; ++k) {
      const uint64_t i = rng() % 4000;
      const std::string v = "v" + std::to_string(t + 1) + "-" + std::to_string(i);
      ASSERT_TRUE(w->put(w->default_tree(), be_key(i), v).is_ok());
      main_model[be_key(i)] = v;
    }
    if (t == 5) {
      auto n = w->del_range(w->default_tree(), be_key(100), be_key(200));
      ASSERT_TRUE(n.is_ok()) << n.status().to_string();
      main_model.erase(main_model.lower_bound(be_key(100)), main_model.lower_bound(be_key(200)));
    }
    auto edges = t == 3 ? w->create_tree("edges") : w->open_tree("edges");
    if (t >= 3) {
      ASSERT_TRUE(edges.is_ok()) << edges.status().to_string();
      const std::string k = be_key(10'000 + t);
      ASSERT_TRUE(w->put(*edges, k, "e").is_ok());
      edges_model[k] = "e";
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  const DatabaseInfo last = db->info();
  ASSERT_EQ(last.log.epoch, at_checkpoint.log.epoch) << "a checkpoint came between the commits";
  ASSERT_EQ(last.log.records, static_cast<uint64_t>(kTxns));

  // The crash image: the checkpoint's file, the log area as the records left it.
  const std::vector<std::byte> live = read_file(dir_.file("live.ordo"));
  const uint64_t log_at = last.log.first_page * last.page_size_bytes;
  ASSERT_LE(log_at + last.log.area_bytes, checkpoint_image.size());
  std::vector<std::byte> image = checkpoint_image;
  std::memcpy(image.data() + log_at, live.data() + log_at, last.log.area_bytes);
  ASSERT_TRUE(write_file(dir_.file("crash.ordo"), image)) << dir_.file("crash.ordo");
  ASSERT_TRUE(write_file(dir_.file("crash-ro.ordo"), image)) << dir_.file("crash-ro.ordo");

  Options ro = options();
  ro.read_only = true;
  auto refused = testing::open_database(dir_.file("crash-ro.ordo"), ro);
  ASSERT_TRUE(refused.status().is_needs_recovery()) << refused.status().to_string();
  EXPECT_NE(refused.status().message().find("open the database writable"), std::string::npos)
      << refused.status().to_string();

  auto replayed = testing::open_db(dir_.file("crash.ordo"), options());
  ASSERT_NE(replayed, nullptr);
  const DatabaseInfo info = replayed->info();
  EXPECT_FALSE(info.log.replayed.empty());
  EXPECT_EQ(info.log.replayed_records, static_cast<uint64_t>(kTxns));
  EXPECT_EQ(info.log.replayed_bytes, last.log.head_bytes);
  EXPECT_EQ(info.txn_id, last.txn_id);
  EXPECT_EQ(info.log.records, 0u) << "open took a checkpoint after the replay";
  EXPECT_GT(info.log.epoch, last.log.epoch);
  {
    auto r = replayed->begin_read();
    ASSERT_TRUE(r.is_ok());
    testing::expect_tree_equals(*r, r->default_tree(), main_model);
    auto edges = r->open_tree("edges");
    ASSERT_TRUE(edges.is_ok()) << edges.status().to_string();
    testing::expect_tree_equals(*r, *edges, edges_model);
    auto report = r->check();
    ASSERT_TRUE(report.is_ok());
    EXPECT_TRUE(report->clean()) << report->problems.front().what;
  }
  replayed.reset();

  // Now a read-only open has nothing to refuse, and a second writable open
  // nothing to replay.
  auto again = testing::open_db(dir_.file("crash.ordo"), options());
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->info().log.replayed.empty());
  EXPECT_EQ(again->info().log.replayed_records, 0u);
  again.reset();
  EXPECT_TRUE(testing::open_database(dir_.file("crash.ordo"), ro).is_ok());
}

TEST_F(LogReplayTest, ProcessCrashTakesTheLastRecordWithoutReplay) {
  auto db = testing::open_db(dir_.file("live.ordo"), options());
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->checkpoint().is_ok());
  for (uint64_t i = 0; i < 10; ++i) {
    auto w = db->begin_write();
    ASSERT_TRUE(w->put(w->default_tree(), be_key(i), "x").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  ASSERT_EQ(db->info().log.records, 10u);
  // Every page is in the page cache, as a process that died leaves them.
  ASSERT_TRUE(write_file(dir_.file("copy.ordo"), read_file(dir_.file("live.ordo"))))
      << dir_.file("copy.ordo");
  auto reopened = testing::open_db(dir_.file("copy.ordo"), options());
  ASSERT_NE(reopened, nullptr);
  const DatabaseInfo info = reopened->info();
  EXPECT_TRUE(info.log.replayed.empty()) << info.log.replayed;
  EXPECT_EQ(info.log.replayed_records, 0u);
  EXPECT_EQ(info.log.records, 10u);
  EXPECT_EQ(info.txn_id, db->info().txn_id);
}

}  // namespace
}  // namespace ordo
