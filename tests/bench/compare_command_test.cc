// `ordo-bench compare` as a program: against the fake child
// (compare_fake_runner.sh: contract JSON with deterministic noise) for the
// CSV, JSON, run order and verdicts, and once, tiny, against the real nodes
// workload.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tools_test_util.h"

namespace ordo {
namespace {

using nlohmann::json;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Runs compare with the fake child in FAKE_MODE `mode`; results in dir/out.
ProcessResult compare_fake(const TempDir& dir, const std::string& mode,
                           std::vector<std::string> args) {
  setenv("FAKE_STATE", dir.file("state").c_str(), 1);
  setenv("FAKE_LOG", dir.file("log").c_str(), 1);
  setenv("FAKE_MODE", mode.c_str(), 1);
  std::vector<std::string> argv = {ORDO_BENCH_PATH,  "compare", "--runner",
                                   FAKE_RUNNER_PATH, "--out",   dir.file("out")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

json load_json(const std::string& path) {
  return json::parse(read_file(path), nullptr, /*allow_exceptions=*/false);
}

TEST(CompareCommandTest, WritesCsvJsonAndRunsAbba) {
  TempDir dir;
  const ProcessResult r = compare_fake(
      dir, "quiet", {"--workload", "nodes-seq", "--rounds", "3", "--", "--nodes", "7"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Engines from the child's --help: ordo and lmdb. Order: A/A pair then lmdb
  // in rounds 0 and 1, lmdb then the A/A pair in round 2; A B in round 0, B A
  // in round 1, A B in round 2.
  EXPECT_EQ(read_file(dir.file("log")),
            "0 ordo\n1 ordo\n2 ordo\n3 lmdb\n4 ordo\n5 ordo\n6 lmdb\n7 ordo\n"
            "8 ordo\n9 lmdb\n10 ordo\n11 ordo\n");
  const std::vector<std::string> csv = lines_of(read_file(dir.file("out/compare.csv")));
  ASSERT_EQ(csv.size(), 1u + 3 * 3);  // header + 3 engines x 3 number figures
  EXPECT_EQ(csv[0].rfind("workload,engine,figure,better,n,median,lo,hi,width_pct,status,", 0), 0u);
  EXPECT_NE(std::find(csv.begin(), csv.end(),
                      "nodes-seq,ordo,file_bytes,lower,4,4096000,4096000,4096000,0.000,resolved,"
                      ",,,,,,"),
            csv.end())
      << read_file(dir.file("out/compare.csv"));
  bool lmdb_speed = false;
  for (const std::string& line : csv) {
    if (line.rfind("nodes-seq,lmdb,nodes_per_s,higher,2,", 0) == 0) {
      lmdb_speed = true;
      EXPECT_NE(line.find(",resolved,ordo/peer: >1 = ordo better"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(lmdb_speed);
  const json j = load_json(dir.file("out/compare.json"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["verdict"], "A/A control ok");
  EXPECT_EQ(j["peers"], json::array({"lmdb"}));
  const json& study = j["studies"][0];
  ASSERT_EQ(study["runs"].size(), 12u);
  EXPECT_EQ(study["runs"][0]["kept"], false);
  EXPECT_EQ(study["runs"][4]["arm"], "B");
  EXPECT_EQ(study["runs"][4]["kept"], true);
  EXPECT_EQ(study["child_argv_example"].back(), "7");
  EXPECT_EQ(study["curves"]["lmdb"].size(), 2u);
  for (const json& row : study["rows"]) {
    if (row["engine"] == "lmdb" && row["figure"] == "nodes_per_s") {
      // ordo 100,000 +-1% against lmdb 50,000 +-1%.
      EXPECT_NEAR(row["ratio"]["median"].get<double>(), 2.0, 0.05);
    }
  }
  EXPECT_NE(r.out.find("A/A control ok"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/nodes-seq-curve.gp")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/nodes-seq-curve.dat")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/runs/nodes-seq-000-r0-ordo.json")));
}

TEST(CompareCommandTest, BaselineRunsTheOtherBinarysOrdo) {
  TempDir dir;
  // The other build: marks its runs in the log, then runs the fake child.
  const std::string baseline = dir.file("baseline.sh");
  {
    std::ofstream script(baseline);
    script << "#!/usr/bin/env bash\necho baseline-binary >> \"$FAKE_LOG\"\nexec "
           << FAKE_RUNNER_PATH << " \"$@\"\n";
  }
  std::filesystem::permissions(baseline, std::filesystem::perms::owner_all);
  const ProcessResult r = compare_fake(dir, "quiet",
                                       {"--workload", "nodes-seq", "--engines", "baseline",
                                        "--baseline", baseline, "--rounds", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Pairs: the A/A control, then ordo against the baseline, which runs the
  // other binary with --engine ordo (in round 2 the baseline pair goes
  // first): A B in round 0, B A in round 1, A B in 2.
  EXPECT_EQ(read_file(dir.file("log")),
            "0 ordo\n1 ordo\n2 ordo\nbaseline-binary\n3 ordo\n4 ordo\n5 ordo\nbaseline-binary\n"
            "6 ordo\n7 ordo\n8 ordo\nbaseline-binary\n9 ordo\n10 ordo\n11 ordo\n");
  const json j = load_json(dir.file("out/compare.json"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["peers"], json::array({"baseline"}));
}

TEST(CompareCommandTest, AbbaCancelsLinearDrift) {
  TempDir dir;
  const ProcessResult r =
      compare_fake(dir, "drift", {"--workload", "nodes-seq", "--engines", "ordo", "--rounds", "4"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(load_json(dir.file("out/compare.json"))["verdict"], "A/A control ok");
}

TEST(CompareCommandTest, SplitAaIsTooNoisy) {
  TempDir dir;
  const ProcessResult r = compare_fake(dir, "split",
                                       {"--workload", "nodes-seq", "--engines", "ordo", "--rounds",
                                        "3", "--interval", "bootstrap", "--seed", "9"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("MACHINE TOO NOISY: RERUN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seed 9"), std::string::npos) << r.out;
  const json j = load_json(dir.file("out/compare.json"));
  EXPECT_EQ(j["verdict"], "machine too noisy: rerun");
  EXPECT_EQ(j["bootstrap_seed"], 9);
  EXPECT_EQ(j["studies"][0]["aa_failures"], json::array({"nodes_per_s", "bytes_per_node"}));
}

TEST(CompareCommandTest, FailedPeerIsReportedWithItsStderrAndDropped) {
  TempDir dir;
  const ProcessResult r = compare_fake(dir, "fail-lmdb", {"--workload", "commit", "--rounds", "3"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("lmdb adapter exploded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dropping the pair ordo/lmdb"), std::string::npos) << r.err;
  const json j = load_json(dir.file("out/compare.json"));
  EXPECT_EQ(j["failed_runs"], 1);
  // Round 0 ran both pairs; rounds 1 and 2 only the A/A pair.
  EXPECT_EQ(j["studies"][0]["runs"].size(), 4u + 2u + 2u);
  // The commit plot: data and script, p50 against preload.
  const std::string dat = read_file(dir.file("out/commit-p50.dat"));
  const size_t ordo = dat.find("# ordo\n10000 ");
  ASSERT_NE(ordo, std::string::npos) << dat;
  EXPECT_EQ(dat.find("\n100000 ", ordo), dat.find('\n', ordo + 7)) << dat;
  EXPECT_NE(read_file(dir.file("out/commit-p50.gp")).find("set logscale x"), std::string::npos);
}

TEST(CompareCommandTest, WithoutGnuplotWritesTheScriptAndSaysSo) {
  TempDir dir;
  // A PATH with what the fake runner needs and no gnuplot.
  std::filesystem::create_directory(dir.file("bin"));
  for (const char* tool : {"bash", "cat"}) {
    std::filesystem::create_symlink(std::string("/bin/") + tool, dir.file("bin/") + tool);
  }
  const std::string saved = getenv("PATH");
  setenv("PATH", dir.file("bin").c_str(), 1);
  const ProcessResult r = compare_fake(dir, "quiet", {"--workload", "nodes-seq", "--rounds", "3"});
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gnuplot not found"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/nodes-seq-curve.gp")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/nodes-seq-curve.png")));
}

TEST(CompareCommandTest, UnknownWorkloadIsAUsageError) {
  TempDir dir;
  const ProcessResult r = compare_fake(dir, "quiet", {"--workload", "bogus"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown workload 'bogus'"), std::string::npos) << r.err;
}

// The real child: the ordo nodes workload prints the contract.
TEST(CompareCommandTest, RealNodesRunAaOnly) {
  TempDir dir;
  const ProcessResult r =
      run_process({ORDO_BENCH_PATH, "compare", "--workload", "nodes-seq", "--engines", "ordo",
                   "--rounds", "2", "--out", dir.file("out"), "--", "--nodes", "2000",
                   "--commit-every", "500", "--window", "1000"});
  ASSERT_NE(r.exit_code, 1) << r.out << r.err;  // 3 (noisy) is possible on a busy machine
  const json j = load_json(dir.file("out/compare.json"));
  ASSERT_FALSE(j.is_discarded());
  const json& study = j["studies"][0];
  EXPECT_EQ(study["runs"].size(), 4u);
  std::vector<std::string> figures;
  for (const json& row : study["rows"]) {
    if (row["engine"] == "ordo") figures.push_back(row["figure"]);
  }
  EXPECT_EQ(figures,
            (std::vector<std::string>{"nodes_per_s", "file_bytes", "allocated_bytes",
                                      "bytes_per_node", "write_call_bytes",
                                      "first_window_nodes_per_s", "last_window_nodes_per_s"}));
  EXPECT_EQ(study["curves"]["ordo"].size(), 2u);
}

}  // namespace
}  // namespace ordo
