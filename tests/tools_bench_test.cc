// Smoke test of `ordo-bench nodes`: a small run, its JSON report and its files.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tools_test_util.h"

namespace ordo {
namespace {

using nlohmann::json;
using testing::ProcessResult;
using testing::run_process;
using testing::ScopedTempDir;

ProcessResult bench(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ORDO_BENCH_PATH, "nodes"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

TEST(OrdoBenchNodesTest, SeqRunReportsEveryField) {
  const ProcessResult r =
      bench({"--nodes", "20000", "--commit-every", "1000", "--json", "--ids", "seq"});
  ASSERT_EQ(r.signal, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["runs"].size(), 1u);
  const json& run = j["runs"][0];
  for (const char* field : {"engine", "ids", "nodes", "seconds", "nodes_per_s", "curve",
                            "file_bytes", "allocated_bytes", "bytes_per_node", "leaf_fill"}) {
    EXPECT_TRUE(run.contains(field)) << field;
  }
  EXPECT_EQ(run["engine"], "ordo");
  EXPECT_EQ(run["ids"], "seq");
  EXPECT_EQ(run["nodes"], 20000u);
  EXPECT_GT(run["nodes_per_s"].get<double>(), 0.0);
  ASSERT_FALSE(run["curve"].empty());
  EXPECT_EQ(run["curve"].back()["at"], 20000u);
  EXPECT_GT(run["file_bytes"].get<uint64_t>(), 20000u * 64u);
  EXPECT_DOUBLE_EQ(run["bytes_per_node"].get<double>(), run["file_bytes"].get<double>() / 20000.0);
  EXPECT_GT(run["leaf_fill"].get<double>(), 0.0);
  EXPECT_LE(run["leaf_fill"].get<double>(), 1.0);
  EXPECT_GE(run["commits"].get<uint64_t>(), 20u);
  // Without --keep the temporary files are gone.
  EXPECT_FALSE(std::filesystem::exists(run["path"].get<std::string>()));
}

TEST(OrdoBenchNodesTest, KeepLeavesBothFilesUnderPath) {
  ScopedTempDir dir;
  const ProcessResult r = bench({"--nodes", "3000", "--commit-every", "500", "--fanout", "3",
                                 "--path", dir.path(), "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("nodes-seq.ordo")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("nodes-random.ordo")));
  EXPECT_NE(r.out.find("random/seq"), std::string::npos) << r.out;
  // A second run never reuses a file.
  const ProcessResult again = bench({"--nodes", "10", "--path", dir.path()});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
}

TEST(OrdoBenchNodesTest, BadOptionsAreUsageErrors) {
  EXPECT_EQ(bench({"--ids", "sideways"}).exit_code, 2);
  EXPECT_EQ(bench({"--nodes", "0"}).exit_code, 2);
  EXPECT_EQ(bench({"--fanout", "-1"}).exit_code, 2);
}

}  // namespace
}  // namespace ordo
