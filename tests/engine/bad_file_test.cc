// Files that are not, or no longer, valid ordo databases: open must report
// what is wrong with InvalidArgument or Corruption, never crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <random>

#include "engine_test_util.h"
#include "io_test_util.h"
#include "ordo/inspect.h"

namespace ordo {
namespace {

class BadFileTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("db.ordo"); }
  void write_file(const std::string& bytes) {
    std::ofstream(path(), std::ios::binary | std::ios::trunc) << bytes;
  }
  // A small valid database with a few commits.
  void make_db() {
    Options o;
    o.extent_bytes = 1 << 20;
    // Two-sync: damage to the last commit is reported rather than rolled back.
    o.commit_protocol = CommitProtocol::kTwoSync;
    auto db = testing::open_db(path(), o);
    for (int t = 0; t < 3; ++t) {
      auto w = db->begin_write();
      for (int i = 0; i < 3000; ++i) {
        ASSERT_TRUE(w->put(w->default_tree(), std::to_string(i), std::string(50, 'v')).is_ok());
      }
      ASSERT_TRUE(w->commit().is_ok());
    }
  }
  void patch(uint64_t offset, const std::string& bytes) {
    int fd = ::open(path().c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, bytes.data(), bytes.size(), offset), (ssize_t)bytes.size());
    ::close(fd);
  }
  Status open_status(bool read_only = false) {
    Options o;
    o.read_only = read_only;
    return testing::open_database(path(), o).status();
  }
  io::testing::TempDir dir_;
};

TEST_F(BadFileTest, TextFileIsNotAnOrdoDatabase) {
  write_file(std::string(20000, 'x'));
  Status s = open_status();
  EXPECT_TRUE(s.is_not_ordo_file()) << s.to_string();
  EXPECT_NE(s.message().find("not an ordo database"), std::string::npos) << s.to_string();
}

TEST_F(BadFileTest, TinyAndEmptyFiles) {
  write_file("hello");
  EXPECT_TRUE(open_status().is_not_ordo_file()) << open_status().to_string();
  write_file("");
  EXPECT_TRUE(open_status(true).is_not_ordo_file()) << open_status(true).to_string();
}

// A create cut short after its growth and before its first meta write
// leaves a file of zeros: a writable open makes it a new database (nothing
// in it to lose), a read-only one says what it is. One byte that is not zero
// and the file is left alone.
TEST_F(BadFileTest, AFileOfZerosFromAnUnfinishedCreateIsMadeNew) {
  write_file(std::string(1 << 20, '\0'));
  Status ro = open_status(true);
  EXPECT_TRUE(ro.is_not_ordo_file()) << ro.to_string();
  EXPECT_NE(ro.message().find("holds only zeros"), std::string::npos) << ro.to_string();
  {
    auto db = testing::open_db(path());
    EXPECT_NE(db->info().recovery.find("held only zeros"), std::string::npos)
        << db->info().recovery;
    auto w = db->begin_write();
    ASSERT_TRUE(w->put(w->default_tree(), "k", "v").is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  {
    auto db = testing::open_db(path());
    EXPECT_EQ(db->info().recovery, "");
    auto r = db->begin_read();
    EXPECT_EQ(r->get(r->default_tree(), "k")->str(), "v");
  }

  std::string almost(1 << 20, '\0');
  almost[(1 << 20) - 1] = 'x';
  write_file(almost);
  Status s = open_status();
  EXPECT_TRUE(s.is_not_ordo_file()) << s.to_string();
  EXPECT_NE(s.message().find("no ordo magic"), std::string::npos) << s.to_string();
  std::ifstream in(path(), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), almost);
}

// Random bytes over one page of a valid file: the metas still open it, and a
// damaged page that a tree uses is Corruption in check() and in a full read,
// with and without checksum verification (without it, the structural checks
// behind the checksums must catch the damage or read around it safely).
TEST_F(BadFileTest, RandomBytesOverATreePageAreCorruption) {
  make_db();
  std::string original;
  {
    std::ifstream in(path(), std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::vector<uint64_t> tree_pages;
  {
    Options o;
    o.read_only = true;
    auto db = testing::open_db(path(), o);
    auto r = db->begin_read();
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    auto map = inspect::page_map(*r);
    ASSERT_TRUE(map.is_ok()) << map.status().to_string();
    for (const auto& pg : map->pages) {
      if (pg.kind == inspect::PageKind::kBranch || pg.kind == inspect::PageKind::kLeaf) {
        tree_pages.push_back(pg.page);
      }
    }
  }
  ASSERT_GT(tree_pages.size(), 10u);
  std::mt19937_64 rng(testing::test_seed(3));
  for (int i = 0; i < 24; ++i) {
    uint64_t page = tree_pages[rng() % tree_pages.size()];
    std::string bytes(4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    write_file(original);
    patch(page * 4096, bytes);
    SCOPED_TRACE("page " + std::to_string(page) + ", round " + std::to_string(i));
    Options o;
    o.read_only = true;
    o.verify_checksums = i % 2 == 0;
    auto db = testing::open_database(path(), o);
    if (!db.is_ok()) {  // the catalog's pages are read at open
      EXPECT_TRUE(db.status().is_corruption()) << db.status().to_string();
      continue;
    }
    auto r = (*db)->begin_read();
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    auto report = r->check();
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    EXPECT_FALSE(report->clean());
    // A full read either meets the damage as Corruption or ends cleanly.
    auto c = r->cursor(r->default_tree());
    ASSERT_TRUE(c.is_ok());
    Status s = c->first();
    for (size_t steps = 0; s.is_ok() && c->valid() && steps < 20000; ++steps) s = c->next();
    EXPECT_TRUE(s.is_ok() || s.is_corruption()) << s.to_string();
  }
}

TEST_F(BadFileTest, TruncatedDatabaseIsCorruption) {
  make_db();
  ASSERT_EQ(::truncate(path().c_str(), 3 * 4096), 0);
  Status s = open_status();
  EXPECT_TRUE(s.is_corruption()) << s.to_string();
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.to_string();
  ASSERT_EQ(::truncate(path().c_str(), 100), 0);
  s = open_status();
  EXPECT_TRUE(s.is_corruption()) << s.to_string();
}

TEST_F(BadFileTest, BothMetasCorruptIsCorruption) {
  make_db();
  patch(100, "garbage");
  patch(4096 + 100, "garbage");
  Status s = open_status();
  EXPECT_TRUE(s.is_corruption()) << s.to_string();
  EXPECT_NE(s.message().find("meta"), std::string::npos) << s.to_string();
}

TEST_F(BadFileTest, OneCorruptMetaFallsBackToTheOther) {
  make_db();
  uint64_t txn;
  {
    auto db = testing::open_db(path());
    txn = db->info().txn_id;
  }
  patch((txn % 2) * 4096 + 20, "x");  // newest meta torn
  auto db = testing::open_database(path());
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  EXPECT_EQ((*db)->info().txn_id, txn - 1);
  auto r = (*db)->begin_read();
  EXPECT_EQ(r->get(r->default_tree(), "5")->str(), std::string(50, 'v'));
}

TEST_F(BadFileTest, UnknownFormatVersionIsVersionMismatch) {
  make_db();
  // Both metas claim version 99, with checksums that match.
  for (int slot = 0; slot < 2; ++slot) {
    std::vector<std::byte> bytes = io::testing::pread_file(path(), slot * 4096, 4096);
    ASSERT_EQ(bytes.size(), 4096u);
    std::string page(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    page[8] = 99;
    page[9] = page[10] = page[11] = 0;
    uint64_t sum = XXH3_64bits(page.data(), 248);  // docs/FORMAT.md: the meta checksum
    std::memcpy(page.data() + 248, &sum, 8);
    patch(slot * 4096, page);
  }
  Status s = open_status();
  EXPECT_TRUE(s.is_version_mismatch()) << s.to_string();
  EXPECT_NE(s.message().find("version 99"), std::string::npos) << s.to_string();
}

TEST_F(BadFileTest, PageSizeMismatchIsInvalidArgument) {
  make_db();
  Options o;
  o.page_size_bytes = 8192;
  Status s = testing::open_database(path(), o).status();
  EXPECT_TRUE(s.is_invalid_argument()) << s.to_string();
  EXPECT_NE(s.message().find("page size"), std::string::npos);
}

TEST_F(BadFileTest, DamagedTreePageIsCorruptionOnRead) {
  make_db();
  {
    auto db = testing::open_db(path());
    auto r = db->begin_read();
    auto stats = r->tree_stats(r->default_tree());
    ASSERT_TRUE(stats.is_ok());
    ASSERT_GE(stats->depth, 2u);
  }
  // Overwrite every data page's header with garbage: reads must fail cleanly.
  int64_t size = io::testing::file_size(path());
  for (int64_t off = 2 * 4096; off < size; off += 4096) patch(off, std::string(24, '\x7f'));
  auto db = testing::open_database(path());
  ASSERT_TRUE(db.is_ok()) << db.status().to_string();
  auto r = (*db)->begin_read();
  auto got = r->get(r->default_tree(), "5");
  EXPECT_TRUE(got.status().is_corruption()) << got.status().to_string();
  auto c = r->cursor(r->default_tree());
  EXPECT_TRUE(c->first().is_corruption());
  EXPECT_TRUE(r->tree_stats(r->default_tree()).status().is_corruption());
  auto w = (*db)->begin_write();
  EXPECT_TRUE(w->put(w->default_tree(), "new", "v").is_corruption());
  w->abort();
  // The conditional writes meet the damage in their one descent, as put does.
  const Tree t;
  const std::function<Status(WriteTxn&)> writes[] = {
      [&](WriteTxn& txn) { return txn.insert(t, "new", "v").status(); },
      [&](WriteTxn& txn) { return txn.replace(t, "5", "v").status(); },
      [&](WriteTxn& txn) {
        return txn.compare_and_set(t, "5", std::nullopt, ByteView("v")).status();
      },
      [&](WriteTxn& txn) {
        return txn.compare_and_set(t, "5", ByteView("x"), std::nullopt).status();
      },
  };
  for (const auto& write : writes) {
    auto txn = (*db)->begin_write();
    ASSERT_TRUE(txn.is_ok());
    const Status s = write(*txn);
    EXPECT_TRUE(s.is_corruption()) << s.to_string();
    // The txn can only be aborted now, as after a put that met damage.
    EXPECT_TRUE(txn->put(t, "k", "v").is_invalid_argument());
  }
}

TEST_F(BadFileTest, FlippedCellByteIsCaughtOnlyWithVerification) {
  Options two_sync;
  two_sync.commit_protocol = CommitProtocol::kTwoSync;
  {
    auto db = testing::open_db(path(), two_sync);
    auto w = db->begin_write();
    for (int i = 0; i < 3000; ++i) {
      ASSERT_TRUE(w->put(w->default_tree(), std::to_string(i), std::string(50, 'v')).is_ok());
    }
    ASSERT_TRUE(w->put(w->default_tree(), "big", std::string(20000, 'b')).is_ok());
    ASSERT_TRUE(w->commit().is_ok());
  }
  // The last byte of a page belongs to its first cell: structure stays valid.
  int64_t size = io::testing::file_size(path());
  uint64_t high_water;
  {
    Options ro;
    ro.read_only = true;
    auto db = testing::open_db(path(), ro);
    high_water = db->info().current.page_high_water;
  }
  ASSERT_LT(high_water * 4096, static_cast<uint64_t>(size) + 1);
  for (uint64_t pg = 2; pg < high_water; ++pg) {
    std::vector<std::byte> b = io::testing::pread_file(path(), pg * 4096 + 4095, 1);
    patch(pg * 4096 + 4095, std::string(1, static_cast<char>(~static_cast<uint8_t>(b[0]))));
  }
  Options verify;
  verify.verify_checksums = true;
  auto checked = testing::open_db(path(), verify);
  auto r = checked->begin_read();
  auto got = r->get(r->default_tree(), "5");
  EXPECT_TRUE(got.status().is_corruption()) << got.status().to_string();
  EXPECT_NE(got.status().message().find("checksum"), std::string::npos);
  EXPECT_NE(got.status().page_number(), Status::kNoPage);
  EXPECT_TRUE(r->tree_stats(r->default_tree()).status().is_corruption());
  auto w = checked->begin_write();
  EXPECT_TRUE(w->put(w->default_tree(), "x", "y").is_corruption());
  w->abort();
  r = Status::invalid_argument("done");
  checked.reset();
  // Without verification the same reads succeed: damage inside cells is only
  // found by checksums.
  auto unchecked = std::move(testing::open_database(path()).value());
  auto r2 = unchecked->begin_read();
  EXPECT_TRUE(r2->get(r2->default_tree(), "5").is_ok());
}

}  // namespace
}  // namespace ordo
