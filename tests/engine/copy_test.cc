// ReadTxn::copy_to / copy_to_fd / Database::copy_to: a copy of one snapshot,
// page for page or compacted, that checks clean and holds exactly what the
// snapshot held, while the writer goes on; the target rules.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/inspect.h"

namespace ordo {
namespace {

using Contents = std::map<std::string, testing::Model>;  // tree name ("" default) -> entries

Contents read_all(Txn& txn) {
  Contents out;
  auto read_tree = [&](const Tree& t, const std::string& name) {
    testing::Model& m = out[name];
    EXPECT_TRUE(txn.scan(t, KeyRange::all(),
                         [&](ByteView k, ByteView v) {
                           m[k.str()] = v.str();
                           return true;
                         })
                    .is_ok());
  };
  read_tree(txn.default_tree(), "");
  auto names = txn.list_trees();
  EXPECT_TRUE(names.is_ok());
  for (const auto& name : *names) read_tree(*txn.open_tree(name), name);
  return out;
}

// A database with several trees, overflow values, deletes (free pages) and a
// dropped tree.
void build(Database& db, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 4; ++round) {
    auto w = db.begin_write();
    ASSERT_TRUE(w.is_ok());
    auto a = w->create_tree("alpha");
    auto b = w->create_tree("beta\x01\xff");
    for (int i = 0; i < 1500; ++i) {
      const std::string k = testing::be_key(rng() % 5000);
      const size_t len = rng() % 40 == 0 ? 1500 + rng() % 9000 : rng() % 120;
      ASSERT_TRUE(w->put(*a, k, std::string(len, static_cast<char>('a' + round))).is_ok());
      if (i % 3 == 0) {
        ASSERT_TRUE(w->put(*b, "k" + std::to_string(rng() % 2000), "v").is_ok());
      }
    }
    ASSERT_TRUE(w->put(w->default_tree(), "round", std::to_string(round)).is_ok());
    ASSERT_TRUE(w->put(w->default_tree(), "", "empty key").is_ok());
    if (round == 1) {
      auto g = w->create_tree("gone");
      for (int i = 0; i < 500; ++i) ASSERT_TRUE(w->put(*g, testing::be_key(i), "x").is_ok());
    }
    if (round == 2) {
      ASSERT_TRUE(w->drop_tree("gone").is_ok());
    }
    if (round == 3) {
      ASSERT_TRUE(w->del_range(*a, testing::be_key(0), testing::be_key(2000)).is_ok());
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
}

void expect_copy_equals(const std::string& path, const Contents& expected, uint64_t txn_id,
                        bool compact) {
  Options ro;
  ro.read_only = true;
  ro.verify_checksums = true;
  auto db = testing::open_database(path, ro);
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto r = (*db)->begin_read();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->txn_id(), txn_id);
  auto report = r->check();
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->clean()) << report->problems[0].what;
  EXPECT_TRUE((*db)->info().recovery.empty());
  EXPECT_EQ(read_all(*r), expected);
  if (compact) {
    EXPECT_EQ(report->free_pages, 0u);
    EXPECT_EQ(report->free_tree_entries, 0u);
    EXPECT_EQ(report->tree_pages + report->overflow_pages + report->log_pages + 2,
              report->high_water_pages);
  }
}

class CopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::open_db(dir_.file("src.ordo"));
    ASSERT_NE(db_, nullptr);
    build(*db_, testing::test_seed(7));
  }
  io::testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(CopyTest, PlainAndCompactHoldTheSnapshotWhileTheWriterGoesOn) {
  auto r = db_->begin_read();
  ASSERT_TRUE(r.is_ok());
  const Contents expected = read_all(*r);
  // Commits after the snapshot reuse and free pages; the copies must not see them.
  for (int i = 0; i < 5; ++i) {
    auto w = db_->begin_write();
    auto a = w->open_tree("alpha");
    for (int k = 0; k < 300; ++k) ASSERT_TRUE(w->put(*a, testing::be_key(k * 7), "later").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto plain = r->copy_to(dir_.file("plain.ordo"));
  ASSERT_TRUE(plain.is_ok()) << plain.status().to_string();
  auto compact = r->copy_to(dir_.file("compact.ordo"), CopyOptions{.compact = true});
  ASSERT_TRUE(compact.is_ok()) << compact.status().to_string();
  expect_copy_equals(dir_.file("plain.ordo"), expected, r->txn_id(), false);
  expect_copy_equals(dir_.file("compact.ordo"), expected, r->txn_id(), true);
  EXPECT_EQ(plain->txn_id, r->txn_id());
  EXPECT_GT(plain->free_pages, 0u);
  EXPECT_EQ(compact->free_pages, 0u);
  EXPECT_LT(compact->pages, plain->pages);
  EXPECT_EQ(plain->trees, 2u);
  uint64_t entries = 0;
  for (const auto& [name, m] : expected) entries += m.size();
  EXPECT_EQ(plain->entries, entries);
  EXPECT_EQ(compact->entries, entries);
  struct stat st;
  ASSERT_EQ(::stat(dir_.file("compact.ordo").c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), compact->bytes);
}

TEST_F(CopyTest, ACopyIsAWorkingDatabase) {
  ASSERT_TRUE(db_->copy_to(dir_.file("c.ordo"), CopyOptions{.compact = true}).is_ok());
  auto copy = testing::open_db(dir_.file("c.ordo"));
  ASSERT_NE(copy, nullptr);
  const uint64_t before = db_->info().txn_id;
  EXPECT_EQ(copy->info().txn_id, before);
  EXPECT_EQ(copy->info().id_high_water, db_->info().id_high_water);
  for (int i = 0; i < 3; ++i) {
    auto w = copy->begin_write();
    auto a = w->open_tree("alpha");
    ASSERT_TRUE(a.is_ok());
    for (int k = 0; k < 2000; ++k) ASSERT_TRUE(w->put(*a, testing::be_key(k), "new").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  auto r = copy->begin_read();
  testing::expect_check_clean(*r);
}

TEST_F(CopyTest, AnExistingTargetIsRefusedUnlessOverwriting) {
  const std::string target = dir_.file("exists.ordo");
  std::ofstream(target) << "precious";
  auto refused = db_->copy_to(target);
  EXPECT_TRUE(refused.status().is_invalid_argument()) << refused.status().to_string();
  std::stringstream text;
  text << std::ifstream(target).rdbuf();
  EXPECT_EQ(text.str(), "precious");
  auto replaced = db_->copy_to(target, CopyOptions{.overwrite = true});
  ASSERT_TRUE(replaced.is_ok()) << replaced.status().to_string();
  EXPECT_NE(testing::open_db(target), nullptr);
}

TEST_F(CopyTest, TheSourceADirectoryAndAMissingDirectoryAreRefused) {
  EXPECT_TRUE(db_->copy_to(dir_.file("src.ordo"), CopyOptions{.overwrite = true})
                  .status()
                  .is_invalid_argument());
  EXPECT_TRUE(db_->copy_to(dir_.path()).status().is_invalid_argument());
  EXPECT_TRUE(db_->copy_to(dir_.file("no/such/dir/c.ordo")).status().is_not_found());
  // Nothing but the source is left behind: no temporary files.
  int files = 0;
  for (auto it = std::filesystem::directory_iterator(dir_.path()); it != decltype(it)(); ++it) {
    files++;
  }
  EXPECT_EQ(files, 1);
}

// A streamed copy (a pipe) is byte for byte the file copy, and its progress
// only rises, to the pages written (a compact stream is planned in a first
// pass that reports nothing).
TEST_F(CopyTest, AStreamedCopyEqualsTheFileCopy) {
  for (bool compact : {false, true}) {
    auto r = db_->begin_read();
    const std::string path = dir_.file(compact ? "f-compact.ordo" : "f-plain.ordo");
    ASSERT_TRUE(r->copy_to(path, CopyOptions{.compact = compact}).is_ok());
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::string streamed;
    std::thread reader([&] {
      char buf[65536];
      ssize_t n;
      while ((n = ::read(fds[0], buf, sizeof buf)) > 0) streamed.append(buf, n);
    });
    std::vector<std::pair<uint64_t, uint64_t>> reports;  // (pages done, pages total)
    CopyOptions options{.compact = compact};
    options.progress = [&](uint64_t done, uint64_t total) { reports.emplace_back(done, total); };
    auto result = r->copy_to_fd(fds[1], options);
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    ASSERT_TRUE(result.is_ok()) << result.status().to_string();
    std::stringstream file;
    file << std::ifstream(path, std::ios::binary).rdbuf();
    EXPECT_EQ(streamed.size(), result->bytes);
    EXPECT_TRUE(streamed == file.str()) << "compact " << compact;
    ASSERT_FALSE(reports.empty());
    for (size_t i = 1; i < reports.size(); ++i) {
      EXPECT_GE(reports[i].first, reports[i - 1].first)
          << "compact " << compact << ", report " << i;
    }
    EXPECT_EQ(reports.back().first, result->pages) << "compact " << compact;
  }
}

// The database itself, by a symlink or a hard link, and a FIFO are never
// replaced, even with overwrite; the FIFO stays a FIFO.
TEST(CopyEdgeTest, TargetsThatAreNeverReplaced) {
  io::testing::TempDir dir;
  const std::string src = dir.file("src.ordo");
  auto db = testing::open_db(src);
  ASSERT_NE(db, nullptr);
  ASSERT_EQ(::symlink(src.c_str(), dir.file("link").c_str()), 0);
  ASSERT_EQ(::link(src.c_str(), dir.file("hard").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  for (const char* name : {"link", "hard", "fifo"}) {
    SCOPED_TRACE(name);
    auto r = db->copy_to(dir.file(name), CopyOptions{.overwrite = true});
    EXPECT_TRUE(r.status().is_invalid_argument()) << r.status().to_string();
  }
  struct stat st;
  ASSERT_EQ(::lstat(dir.file("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link")));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(e.path().filename().string());
  }
  EXPECT_EQ(names.size(), 4u) << "a temporary file was left";
}

TEST(CopyEdgeTest, EmptyDatabaseAndDeepTrees) {
  io::testing::TempDir dir;
  auto db = testing::open_db(dir.file("src.ordo"));
  ASSERT_NE(db, nullptr);
  for (bool compact : {false, true}) {
    const std::string path = dir.file(compact ? "e1.ordo" : "e0.ordo");
    ASSERT_TRUE(db->copy_to(path, CopyOptions{.compact = compact}).is_ok());
    expect_copy_equals(path, Contents{{"", {}}}, 0, compact);
  }
  // 1000-byte keys: four to a branch page, so the compact build stacks many levels.
  Contents expected;
  {
    auto w = db->begin_write();
    auto t = w->create_tree("deep");
    for (int i = 0; i < 3000; ++i) {
      std::string k(1000, 'k');
      k.replace(0, 8, testing::be_key(i));
      ASSERT_TRUE(w->put(*t, k, std::to_string(i)).is_ok());
      expected["deep"][k] = std::to_string(i);
    }
    ASSERT_TRUE(w->commit().is_ok());
  }
  expected[""] = {};
  ASSERT_TRUE(db->copy_to(dir.file("deep.ordo"), CopyOptions{.compact = true}).is_ok());
  expect_copy_equals(dir.file("deep.ordo"), expected, 1, true);
  auto copy = testing::open_database(dir.file("deep.ordo"), Options{.read_only = true});
  auto r = (*copy)->begin_read();
  auto stats = r->tree_stats(*r->open_tree("deep"));
  ASSERT_TRUE(stats.is_ok());
  EXPECT_GE(stats->depth, 4u);
  EXPECT_GT(stats->leaf_fill, 0.7);
}

}  // namespace
}  // namespace ordo
