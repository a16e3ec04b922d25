// Edges of the log and of kept snapshots: a kept snapshot checks clean, a
// delta of a tree created or renamed empty, a file cut short that needs a
// replay (NeedsRecovery, naming the damage), and a newest checkpoint that is
// damaged with commits logged after it (the loss said in recovery).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/database.h"

namespace ordo {
namespace {

class LogEdgesTest : public ::testing::Test {
 protected:
  void commit(Database& db, const std::string& key, const std::string& value) {
    auto w = db.begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), key, value).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }

  io::testing::TempDir dir_;
};

TEST_F(LogEdgesTest, AKeptSnapshotChecksClean) {
  const std::string path = dir_.file("kept.ordo");
  uint64_t kept = 0;
  {
    auto db = testing::open_db(path);
    ASSERT_NE(db, nullptr);
    commit(*db, "a", "1");
    auto k = db->keep_snapshot();
    ASSERT_TRUE(k.is_ok()) << k.status().to_string();
    kept = *k;
    auto at = db->begin_read_at(kept);
    ASSERT_TRUE(at.is_ok()) << at.status().to_string();
    testing::expect_check_clean(*at);
    // More commits, logged and checkpointed, after it.
    for (int i = 0; i < 20; ++i) commit(*db, "b" + std::to_string(i), std::string(200, 'b'));
    ASSERT_TRUE(db->checkpoint().is_ok());
    commit(*db, "c", "3");
    at = db->begin_read_at(kept);
    ASSERT_TRUE(at.is_ok());
    testing::expect_check_clean(*at);
  }
  auto db = testing::open_db(path);
  ASSERT_NE(db, nullptr);
  auto at = db->begin_read_at(kept);
  ASSERT_TRUE(at.is_ok()) << at.status().to_string();
  auto v = at->get(at->default_tree(), "a");
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->str(), "1");
  testing::expect_check_clean(*at);
}

// A delta over commits that create a tree and leave it empty, or rename an
// empty tree, writes the tree's record and no keys; applied, the copy has
// the empty tree under its new name.
TEST_F(LogEdgesTest, DeltaOfATreeCreatedOrRenamedEmpty) {
  auto db = testing::open_db(dir_.file("src.ordo"));
  ASSERT_NE(db, nullptr);
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "a", "1").is_ok());
    ASSERT_TRUE(w->create_tree("to_rename").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto base = db->keep_snapshot();
  ASSERT_TRUE(base.is_ok());
  {
    auto at = db->begin_read_at(*base);
    ASSERT_TRUE(at.is_ok());
    ASSERT_TRUE(at->copy_to(dir_.file("copy.ordo")).is_ok());
  }
  {
    auto w = db->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "b", "2").is_ok());
    ASSERT_TRUE(w->create_tree("empty").is_ok());
    ASSERT_TRUE(w->rename_tree("to_rename", "renamed").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto now = db->begin_read();
  ASSERT_TRUE(now.is_ok());
  const std::string delta = dir_.file("d.odl");
  auto wrote = now->copy_delta_to(delta, *base);
  ASSERT_TRUE(wrote.is_ok()) << wrote.status().to_string();
  EXPECT_EQ(wrote->trees, 4u);  // the default tree, "empty", "renamed", "to_rename"
  auto copy = testing::open_db(dir_.file("copy.ordo"));
  ASSERT_NE(copy, nullptr);
  auto applied = copy->apply_delta(delta);
  ASSERT_TRUE(applied.is_ok()) << applied.status().to_string();
  auto got = copy->begin_read();
  ASSERT_TRUE(got.is_ok());
  auto trees = got->list_trees();
  ASSERT_TRUE(trees.is_ok());
  EXPECT_EQ(*trees, (std::vector<std::string>{"empty", "renamed"}));
  EXPECT_EQ(testing::read_state(*got), testing::read_state(*now));
  testing::expect_check_clean(*got);
}

// The file of a database that died with commits in its log (a copy of the
// file while the writer has it open), cut short: a read-only open says the
// file needs a replay and why, a writable open replays every commit.
TEST_F(LogEdgesTest, AFileCutShortNeedsRecoveryAndSaysWhy) {
  const std::string live = dir_.file("live.ordo");
  const std::string cut = dir_.file("cut.ordo");
  auto db = testing::open_db(live);
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 14; ++i) commit(*db, "k" + std::to_string(i), std::string(900, 'v'));
  const DatabaseInfo info = db->info();
  ASSERT_EQ(info.log.records, 14u) << "every commit logged since the checkpoint";
  std::vector<std::byte> bytes = io::testing::read_file(live);
  // The pages of the last txns lie past the log; cut the file between the
  // log's end and the high-water mark.
  const uint64_t log_end = (info.log.first_page * info.page_size_bytes) + info.log.area_bytes;
  const uint64_t high_water = info.current.page_high_water * info.page_size_bytes;
  ASSERT_LT(log_end + info.page_size_bytes, high_water);
  bytes.resize(high_water - info.page_size_bytes);
  ASSERT_TRUE(io::testing::write_file(cut, bytes));

  Options ro;
  ro.read_only = true;
  auto refused = Database::open(cut, ro);
  ASSERT_TRUE(refused.status().is_needs_recovery()) << refused.status().to_string();
  const std::string why = refused.status().message();
  EXPECT_NE(why.find("txns 1..14 are in the log"), std::string::npos) << why;
  EXPECT_NE(why.find("file ends before the pages of txn"), std::string::npos) << why;
  EXPECT_NE(why.find("writable open replays them"), std::string::npos) << why;
  EXPECT_EQ(io::testing::read_file(cut), bytes) << "a read-only open wrote to the file";

  auto replayed = testing::open_db(cut);
  ASSERT_NE(replayed, nullptr);
  EXPECT_NE(replayed->info().log.replayed.find("replayed txns 1..14"), std::string::npos)
      << replayed->info().log.replayed;
  auto r = replayed->begin_read();
  ASSERT_TRUE(r.is_ok());
  auto want = db->begin_read();
  ASSERT_TRUE(want.is_ok());
  EXPECT_EQ(testing::read_state(*r), testing::read_state(*want));
  testing::expect_check_clean(*r);

  // Closed (a checkpoint of txn 14, the log's records left behind it), then
  // cut the same way: that checkpoint names pages past the end, so open
  // falls back to the one before it and its records, and says both.
  r = Status::txn_ended("done");
  want = Status::txn_ended("done");
  replayed.reset();
  db.reset();
  bytes = io::testing::read_file(live);
  bytes.resize(high_water - info.page_size_bytes);
  ASSERT_TRUE(io::testing::write_file(cut, bytes));
  refused = Database::open(cut, ro);
  ASSERT_TRUE(refused.status().is_needs_recovery()) << refused.status().to_string();
  const std::string closed_why = refused.status().message();
  EXPECT_NE(closed_why.find("(txn 14) is unusable"), std::string::npos) << closed_why;
  EXPECT_NE(closed_why.find("truncated"), std::string::npos) << closed_why;
  EXPECT_NE(closed_why.find("txns 1..14 are in the log"), std::string::npos) << closed_why;
  replayed = testing::open_db(cut);
  ASSERT_NE(replayed, nullptr);
  r = replayed->begin_read();
  ASSERT_TRUE(r.is_ok());
  auto k13 = r->get(r->default_tree(), "k13");
  EXPECT_TRUE(k13.is_ok()) << k13.status().to_string();
  testing::expect_check_clean(*r);
}

// A file cut below the high-water mark of its newest checkpoint, with
// commits logged after that checkpoint: those commits may have reused pages
// of the checkpoint before it, so open refuses to fall back to it (read-only
// and writable alike), names the cut, and leaves the file as it was.
TEST_F(LogEdgesTest, AFileCutBelowItsNewestCheckpointWithCommitsAfterItIsRefused) {
  const std::string live = dir_.file("live.ordo");
  const std::string cut = dir_.file("cut.ordo");
  auto db = testing::open_db(live);
  ASSERT_NE(db, nullptr);
  commit(*db, "a", "1");
  ASSERT_TRUE(db->checkpoint().is_ok());
  const uint64_t older_high_water = db->info().current.page_high_water;
  for (int i = 0; i < 40; ++i) commit(*db, "b" + std::to_string(i), std::string(900, 'b'));
  ASSERT_TRUE(db->checkpoint().is_ok());
  const DatabaseInfo newer = db->info();
  ASSERT_LT(older_high_water + 1, newer.current.page_high_water) << "the file grew between them";
  for (int i = 0; i < 5; ++i) commit(*db, "b" + std::to_string(i), "rewritten");
  ASSERT_EQ(db->info().log.records, 5u);
  std::vector<std::byte> bytes = io::testing::read_file(live);  // as a process crash leaves it
  bytes.resize((newer.current.page_high_water - 1) * newer.page_size_bytes);
  ASSERT_TRUE(io::testing::write_file(cut, bytes));

  for (bool read_only : {true, false}) {
    Options o;
    o.read_only = read_only;
    auto refused = Database::open(cut, o);
    ASSERT_TRUE(refused.status().is_corruption())
        << (read_only ? "read-only: " : "writable: ") << refused.status().to_string();
    const std::string why = refused.status().message();
    EXPECT_NE(why.find("was cut short"), std::string::npos) << why;
    EXPECT_NE(why.find("(txn " + std::to_string(newer.current.txn_id) + ")"), std::string::npos)
        << why;
    EXPECT_NE(why.find("5 commits logged after"), std::string::npos) << why;
    EXPECT_EQ(io::testing::read_file(cut), bytes) << "an open that refused changed the file";
  }
}

// The newest checkpoint's slot damaged in a file with commits logged after
// it: open falls back to the older checkpoint, and says that those commits
// are lost.
TEST_F(LogEdgesTest, ADamagedCheckpointWithCommitsAfterItSaysTheyAreLost) {
  const std::string live = dir_.file("live.ordo");
  const std::string damaged = dir_.file("damaged.ordo");
  auto db = testing::open_db(live);
  ASSERT_NE(db, nullptr);
  commit(*db, "a", "1");
  ASSERT_TRUE(db->checkpoint().is_ok());
  const DatabaseInfo at_checkpoint = db->info();
  for (int i = 0; i < 5; ++i) commit(*db, "b" + std::to_string(i), "2");
  ASSERT_EQ(db->info().log.records, 5u);
  ASSERT_EQ(db->info().log.epoch, at_checkpoint.log.epoch);
  std::vector<std::byte> bytes = io::testing::read_file(live);
  const uint64_t slot = at_checkpoint.log.epoch % 2;
  bytes[slot * at_checkpoint.page_size_bytes + 20] ^= std::byte{0x40};  // in its txn id
  ASSERT_TRUE(io::testing::write_file(damaged, bytes));
  auto opened = testing::open_db(damaged);
  ASSERT_NE(opened, nullptr);
  const std::string recovery = opened->info().recovery;
  const uint64_t first = at_checkpoint.txn_id + 1;
  EXPECT_NE(recovery.find("meta " + std::to_string(slot) + " is unusable"), std::string::npos)
      << recovery;
  EXPECT_NE(recovery.find("the log holds 5 commits (txns " + std::to_string(first) + ".." +
                          std::to_string(first + 4) + ")"),
            std::string::npos)
      << recovery;
  EXPECT_NE(recovery.find("they are lost"), std::string::npos) << recovery;
}

}  // namespace
}  // namespace ordo
