// `ordo info` and `ordo check` on a file whose newest meta slot is written
// whole (checksum matches) but unusable: both report the slot they passed
// over and why; with neither slot usable both fail naming the two problems.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstring>
#include <string>

#include "ordo/database.h"
#include "ordo_util.h"

namespace ordo {
namespace {

using testing::ordo_tool;
using testing::parse_json;
using testing::ProcessResult;
using testing::TempDir;

constexpr uint64_t kPage = 4096;

class ToolMetaFallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("db.ordo");
    Options o;
    o.commit_protocol = CommitProtocol::kTwoSync;  // every commit a checkpoint in its slot
    auto db = Database::open(path_, o);
    ASSERT_TRUE(db.is_ok()) << db.status().to_string();
    for (const char* key : {"one", "two"}) {  // txn 1 in slot 1, txn 2 in slot 0
      auto w = (*db)->begin_write();
      ASSERT_TRUE(w.is_ok());
      ASSERT_TRUE(w->put(w->default_tree(), key, key).is_ok());
      ASSERT_TRUE(w->commit().is_ok());
    }
  }

  // Sets the page high-water (and the file length the meta records) of
  // `slot` to far past the end of the file, with a checksum that matches.
  void break_slot(int slot) {
    std::string page = testing::read_file(path_).substr(slot * kPage, kPage);
    ASSERT_EQ(page.size(), kPage);
    const uint64_t high_water = 1'000'000, file_bytes = high_water * kPage;
    std::memcpy(page.data() + 24, &high_water, 8);
    std::memcpy(page.data() + 32, &file_bytes, 8);
    const uint64_t sum = XXH3_64bits(page.data(), 248);  // docs/FORMAT.md: the meta checksum
    std::memcpy(page.data() + 248, &sum, 8);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, page.data(), page.size(), static_cast<off_t>(slot * kPage)),
              static_cast<ssize_t>(kPage));
    ::close(fd);
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(ToolMetaFallbackTest, InfoAndCheckReportTheUnusableNewestSlot) {
  break_slot(0);
  const ProcessResult info = ordo_tool({"info", path_});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("meta 0 (txn 2) is unusable"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("truncated"), std::string::npos) << info.out;
  const auto info_json = parse_json(ordo_tool({"info", "--json", path_}));
  EXPECT_EQ(info_json["txn_id"], 1);
  EXPECT_NE(info_json["recovery"].get<std::string>().find("using meta 1 (txn 1)"),
            std::string::npos)
      << info_json.dump();

  const ProcessResult check = ordo_tool({"check", path_});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("meta 0 (txn 2) is unusable"), std::string::npos) << check.out;
  const auto check_json = parse_json(ordo_tool({"check", "--json", path_}));
  EXPECT_EQ(check_json["clean"], false);
  EXPECT_NE(check_json["recovery"].get<std::string>().find("unusable"), std::string::npos)
      << check_json.dump();
}

TEST_F(ToolMetaFallbackTest, NeitherSlotUsableFailsNamingBoth) {
  break_slot(0);
  break_slot(1);
  for (const char* command : {"info", "check"}) {
    const ProcessResult r = ordo_tool({command, path_});
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("meta 0: txn 2"), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find("meta 1: txn 1"), std::string::npos) << command << ": " << r.err;
  }
}

}  // namespace
}  // namespace ordo
