// docs/FORMAT.md and the code must state the same layout: this reads the
// tables of the document and compares them with the constants.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "free_entry.h"
#include "io_test_util.h"
#include "log_record.h"
#include "meta.h"
#include "ordo/btree/endian.h"
#include "ordo/btree/page_format.h"
#include "txn_log.h"

namespace ordo {
namespace {

struct Row {
  uint32_t offset;
  uint32_t size;
};

// The (offset, size) rows of the first table after `heading` in FORMAT.md.
std::vector<Row> table_after(const std::string& heading) {
  std::ifstream in(ORDO_FORMAT_MD);
  EXPECT_TRUE(in.good()) << "cannot read " << ORDO_FORMAT_MD;
  std::string line;
  bool in_section = false;
  std::vector<Row> rows;
  std::regex row(R"(^\|\s*(\d+)\s*\|\s*(\d+)\s*\|)");
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) {
      if (in_section && !rows.empty()) break;
      in_section = line.find(heading) != std::string::npos;
      continue;
    }
    std::smatch m;
    if (in_section && std::regex_search(line, m, row)) {
      rows.push_back(
          {static_cast<uint32_t>(std::stoul(m[1])), static_cast<uint32_t>(std::stoul(m[2]))});
    } else if (in_section && !rows.empty() && line.empty()) {
      break;
    }
  }
  return rows;
}

void expect_rows(const std::vector<Row>& doc, const std::vector<Row>& code) {
  ASSERT_EQ(doc.size(), code.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    EXPECT_EQ(doc[i].offset, code[i].offset) << "row " << i;
    EXPECT_EQ(doc[i].size, code[i].size) << "row " << i;
  }
}

TEST(FormatTest, MetaTableMatchesTheCode) {
  using namespace engine;
  expect_rows(
      table_after("Pages 0 and 1"),
      {{kMetaOffMagic, 8},
       {kMetaOffVersion, 4},
       {kMetaOffPageSize, 4},
       {kMetaOffTxnId, 8},
       {kMetaOffHighWater, 8},
       {kMetaOffFileBytes, 8},
       {kMetaOffDefaultTree, kTreeRootBytes},
       {kMetaOffCatalog, kTreeRootBytes},
       {kMetaOffFreeTree, kTreeRootBytes},
       {kMetaOffLastUuid, 16},
       {kMetaOffLastId64, 8},
       {kMetaOffTreeCount, 8},
       {kMetaOffFreePages, 8},
       {kMetaOffFlags, 8},
       {kMetaOffLogFirstPage, 8},
       {kMetaOffLogPages, 8},
       {kMetaOffLogEpoch, 8},
       {kMetaOffKeptTree, kTreeRootBytes},
       {kMetaOffKeptTree + kTreeRootBytes, kMetaChecksumOffset - kMetaOffKeptTree - kTreeRootBytes},
       {kMetaChecksumOffset, 8}});
  EXPECT_EQ(kMetaChecksumOffset + 8, kMetaBytes);
}

TEST(FormatTest, LogRecordHeaderTableMatchesTheCode) {
  using namespace engine;
  auto rows = table_after("## The log");
  expect_rows(rows, {{kLogOffMagic, 8},
                     {kLogOffEpoch, 8},
                     {kLogOffTxnId, 8},
                     {kLogOffOffset, 8},
                     {kLogOffBodyBytes, 4},
                     {kLogOffWriterNonce, 4},
                     {kLogOffBodyChecksum, 8},
                     {kLogOffLink, 8},
                     {kLogOffHeaderChecksum, 8}});
  EXPECT_EQ(rows.back().offset + rows.back().size, kLogHeaderBytes);
  // The encoder puts each field where the table says.
  Meta m;
  m.page_size = 4096;
  m.txn_id = 0x0102030405060708;
  m.log_epoch = 0x1112131415161718;
  m.log_first_page = 2;
  m.log_pages = 16;
  m.page_high_water = 18;
  m.file_bytes = 18 * 4096;
  m.flags = kMetaFlagLogged;
  // The operations after room for the header and meta, as a txn writes them.
  std::vector<std::byte> rec(kLogOpsOffset, std::byte{0xee});
  for (char c : std::string("abc")) rec.push_back(static_cast<std::byte>(c));
  const LogPosition at{8192, m.txn_id, 0x2122232425262728, true};
  const LogPosition next = seal_log_record(m, at, 0x31323334, rec);
  EXPECT_EQ(rec.size(), kLogBlockBytes);
  EXPECT_EQ(rec.size(), log_record_bytes(3));
  EXPECT_EQ(rec.back(), std::byte{0}) << "padding zeroed";
  EXPECT_EQ(std::memcmp(rec.data(), "ORDOLOG1", 8), 0);
  EXPECT_EQ(btree::load_u64(rec.data() + rows[1].offset), m.log_epoch);
  EXPECT_EQ(btree::load_u64(rec.data() + rows[2].offset), m.txn_id);
  EXPECT_EQ(btree::load_u64(rec.data() + rows[3].offset), 8192u);
  EXPECT_EQ(btree::load_u32(rec.data() + rows[4].offset), kMetaBytes + 3);
  EXPECT_EQ(btree::load_u32(rec.data() + rows[5].offset), 0x31323334u);
  EXPECT_EQ(btree::load_u64(rec.data() + rows[7].offset), at.link);
  // The next record links to this whole header.
  EXPECT_EQ(next.link, XXH3_64bits(rec.data(), kLogHeaderBytes));
  EXPECT_EQ(next.offset_bytes, 8192u + kLogBlockBytes);
  EXPECT_EQ(next.txn_id, m.txn_id + 1);
  // The body: the meta, then the operations.
  Meta decoded;
  std::string text;
  EXPECT_EQ(decode_meta(rec.data() + kLogHeaderBytes, &decoded, &text), MetaProblem::kNone) << text;
  EXPECT_EQ(decoded.txn_id, m.txn_id);
  EXPECT_EQ(std::memcmp(rec.data() + kLogHeaderBytes + kMetaBytes, "abc", 3), 0);
}

// A log area in a page file, and records written into it as a writer would.
class LogChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io::FileOptions fo;
    fo.create_if_missing = true;
    auto file = io::PageFile::open(dir_.file("log.ordo"), fo);
    ASSERT_TRUE(file.is_ok()) << file.status().to_string();
    file_ = std::move(*file);
    c_.page_size = 4096;
    c_.txn_id = 40;
    c_.log_first_page = engine::kFirstDataPage;
    c_.log_pages = 16;
    c_.log_epoch = 7;
    c_.page_high_water = c_.log_first_page + c_.log_pages;
    c_.file_bytes = c_.page_high_water * c_.page_size;
    ASSERT_TRUE(file_->grow_to(c_.file_bytes).is_ok());
  }

  // Writes the record of txn `at.txn_id` with one operation byte `op` at
  // `at`; returns the position after it.
  engine::LogPosition write(const engine::LogPosition& at, uint32_t nonce, char op) {
    engine::Meta m = c_;
    m.txn_id = at.txn_id;
    m.flags = engine::kMetaFlagLogged;
    std::vector<std::byte> rec(engine::kLogOpsOffset);
    rec.push_back(static_cast<std::byte>(op));
    // A record without a nonce: sealed with one, then both fields cleared.
    const engine::LogPosition next = engine::seal_log_record(m, at, nonce == 0 ? 1 : nonce, rec);
    if (nonce == 0) strip_nonce(rec.data());
    put(at.offset_bytes, rec);
    return nonce == 0 ? engine::LogPosition{next.offset_bytes, next.txn_id,
                                            XXH3_64bits(rec.data(), engine::kLogHeaderBytes), false}
                      : next;
  }

  // What a build that wrote no nonce and no link left: both fields zero.
  static void strip_nonce(std::byte* rec) {
    std::memset(rec + engine::kLogOffWriterNonce, 0, 4);
    std::memset(rec + engine::kLogOffLink, 0, 8);
    btree::store_u64(rec + engine::kLogOffHeaderChecksum,
                     XXH3_64bits(rec, engine::kLogOffHeaderChecksum));
  }

  void put(uint64_t offset_bytes, const std::vector<std::byte>& rec) {
    const io::WriteSpan span{c_.log_first_page * c_.page_size + offset_bytes, rec.data(),
                             rec.size()};
    ASSERT_TRUE(file_->write(std::span<const io::WriteSpan>(&span, 1), false).is_ok());
  }

  // The txns the log holds after the checkpoint, in order.
  std::vector<uint64_t> scan() const {
    std::vector<uint64_t> txns;
    engine::scan_log(*file_, c_, engine::LogPosition::after(c_), [&](const engine::LogRecord& r) {
      txns.push_back(r.meta.txn_id);
      return true;
    });
    return txns;
  }

  io::testing::TempDir dir_;
  std::unique_ptr<io::PageFile> file_;
  engine::Meta c_;
};

// A life that lost its first record's block leaves records after it; the
// next life appends from the start in the same epoch. None of the old
// records continues the new chain, even where the new life wrote the very
// same operations at the same places.
TEST_F(LogChainTest, RecordsOfAnEarlierLifeNeverContinueALaterOne) {
  using engine::LogPosition;
  LogPosition at = LogPosition::after(c_);
  for (char op : {'a', 'b', 'c', 'd', 'e'}) at = write(at, 0x1111, op);
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42, 43, 44, 45}));
  // The first record lost: the log ends before it.
  put(0, std::vector<std::byte>(engine::kLogBlockBytes));
  EXPECT_TRUE(scan().empty());
  // The next life writes the same operations at the same places.
  at = LogPosition::after(c_);
  at = write(at, 0x2222, 'a');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41}));
  at = write(at, 0x2222, 'b');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42})) << "a record of the dead life was taken";
  // A third life continues the second's chain: its records count.
  at = write(at, 0x3333, 'c');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42, 43}));
}

// Records without a nonce (earlier builds) count as a chain of their own,
// may be followed by records with one, and never follow one.
TEST_F(LogChainTest, RecordsWithoutANonceCountOnlyBeforeAnyWithOne) {
  using engine::LogPosition;
  LogPosition at = LogPosition::after(c_);
  at = write(at, 0, 'a');
  at = write(at, 0, 'b');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42}));
  const LogPosition third = at;
  at = write(at, 0x4444, 'c');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42, 43}));
  write(at, 0, 'd');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42, 43}))
      << "a record without a nonce followed one with";
  // A record with a nonce whose link names another header ends the log.
  LogPosition wrong = third;
  wrong.link ^= 1;
  write(wrong, 0x4444, 'c');
  EXPECT_EQ(scan(), (std::vector<uint64_t>{41, 42}));
}

TEST(FormatTest, LogOperationKindsMatchTheCode) {
  std::ifstream in(ORDO_FORMAT_MD);
  std::stringstream doc;
  doc << in.rdbuf();
  using engine::LogOp;
  const std::pair<LogOp, const char*> kinds[] = {{LogOp::kPut, "put"},
                                                 {LogOp::kAppend, "append"},
                                                 {LogOp::kDel, "del"},
                                                 {LogOp::kDelRange, "del_range"},
                                                 {LogOp::kCreateTree, "create_tree"},
                                                 {LogOp::kDropTree, "drop_tree"},
                                                 {LogOp::kRenameTree, "rename_tree"}};
  for (const auto& [op, name] : kinds) {
    const std::string row = "| " + std::to_string(static_cast<int>(op)) + " | " + name;
    EXPECT_NE(doc.str().find(row), std::string::npos) << row;
  }
}

TEST(FormatTest, TreeRootTableMatchesTheCode) {
  using namespace engine;
  expect_rows(table_after("Tree root encoding"), {{kRootOffPage, 8},
                                                  {kRootOffChecksum, 8},
                                                  {kRootOffEntries, 8},
                                                  {kRootOffDepth, 4},
                                                  {kRootOffFlags, 4}});
}

TEST(FormatTest, PageHeaderTableMatchesTheCode) {
  using namespace btree;
  auto rows = table_after("Tree pages");
  expect_rows(rows, {{kOffType, 1},
                     {kOffFlags, 1},
                     {kOffCount, 2},
                     {kOffCellStart, 4},
                     {kOffTxnId, 8},
                     {kOffCellBytes, 4},
                     {kOffCellBytes + 4, 4}});
  EXPECT_EQ(rows.back().offset + rows.back().size, kHeaderSize);
}

TEST(FormatTest, FreeTreeKeyTableMatchesTheCode) {
  auto rows = table_after("Free tree");
  expect_rows(rows, {{0, 8}, {8, 8}, {16, 4}});
  EXPECT_EQ(rows.back().offset + rows.back().size, engine::kFreeKeyBytes);
  // The encoder puts each field where the table says, big-endian.
  const std::string key = engine::free_key(0x0102030405060708, 0x1112131415161718, 0x21222324);
  ASSERT_EQ(key.size(), engine::kFreeKeyBytes);
  const auto* p = reinterpret_cast<const std::byte*>(key.data());
  EXPECT_EQ(btree::load_be64(p + rows[0].offset), 0x0102030405060708u);
  EXPECT_EQ(btree::load_be64(p + rows[1].offset), 0x1112131415161718u);
  EXPECT_EQ(btree::load_be32(p + rows[2].offset), 0x21222324u);
}

TEST(FormatTest, BranchCellTableMatchesTheCode) {
  std::ifstream in(ORDO_FORMAT_MD);
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const size_t at = text.find("**Branch cell** (" + std::to_string(btree::kBranchCellHeader) +
                              "-byte header, then the key)");
  ASSERT_NE(at, std::string::npos);
  const std::string table = text.substr(at, 600);
  EXPECT_NE(
      table.find("| " + std::to_string(btree::kBranchOffChild) + " | 8 | child page number |"),
      std::string::npos);
  EXPECT_NE(table.find("| " + std::to_string(btree::kBranchOffChecksum) +
                       " | 8 | XXH3-64 of the "
                       "child page |"),
            std::string::npos);
  EXPECT_NE(table.find("| " + std::to_string(btree::kBranchOffEntries) +
                       " | 8 | entries in the child's subtree"),
            std::string::npos);
  EXPECT_NE(table.find("| " + std::to_string(btree::kBranchOffKeyLen) + " | 2 | key length |"),
            std::string::npos);
  EXPECT_NE(
      table.find("| " + std::to_string(btree::kBranchCellHeader) + " | key length | the key |"),
      std::string::npos);
  EXPECT_EQ(btree::kBranchOffKeyLen + 2, btree::kBranchCellHeader);
}

TEST(FormatTest, VersionStatedInTheDocumentMatchesTheCode) {
  std::ifstream in(ORDO_FORMAT_MD);
  std::string first_line;
  std::getline(in, first_line);
  EXPECT_EQ(first_line, "# ordo file format, version " + std::to_string(engine::kFormatVersion));
}

TEST(FormatTest, LimitsStatedInTheDocumentMatchTheCode) {
  std::ifstream in(ORDO_FORMAT_MD);
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(btree::max_key_bytes(4096), 1000u);
  EXPECT_NE(doc.str().find("P/4 − 24 bytes (1000 at 4 KiB)"), std::string::npos);
  EXPECT_EQ(btree::max_inline_value_bytes(4096), 1024u);
  EXPECT_NE(doc.str().find("P/4 bytes (1024 at 4 KiB)"), std::string::npos);
  EXPECT_EQ(btree::kMaxValueBytes, 128u << 20);
  EXPECT_NE(doc.str().find("at most 128 MiB"), std::string::npos);
  EXPECT_EQ(btree::kMaxDepth, 32u);
  EXPECT_NE(doc.str().find("Depth: at most 32"), std::string::npos);
}

}  // namespace
}  // namespace ordo
