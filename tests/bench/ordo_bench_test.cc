// Smoke tests of ordo-bench: each subcommand at a tiny size, its JSON report
// (fields present, counts right) and its files.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "kv_registry.h"
#include "tools_test_util.h"

namespace ordo {
namespace {

using nlohmann::json;
using testing::ProcessResult;
using testing::run_process;
using testing::TempDir;

ProcessResult bench_command(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ORDO_BENCH_PATH, command};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

ProcessResult bench(const std::vector<std::string>& args) { return bench_command("nodes", args); }

// The JSON document a successful run printed; fails the test otherwise.
json parse_report(const ProcessResult& r) {
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << r.out << "\nstderr:\n" << r.err;
  return j;
}

void expect_fields(const json& j, std::initializer_list<const char*> fields) {
  for (const char* field : fields) EXPECT_TRUE(j.contains(field)) << field << " in " << j.dump();
}

// The figures of the JSON contract that `ordo-bench compare` reads: each
// present and a number.
void expect_figures(const json& j, const std::string& workload, const std::string& engine,
                    const std::vector<std::string>& names) {
  EXPECT_EQ(j["workload"], workload);
  EXPECT_EQ(j["engine"], engine);
  ASSERT_TRUE(j["figures"].is_object()) << j.dump();
  for (const std::string& name : names) {
    EXPECT_TRUE(j["figures"].contains(name) && j["figures"][name].is_number())
        << engine << ": " << name << " in " << j["figures"].dump();
  }
}

TEST(OrdoBenchNodesTest, SeqRunReportsEveryField) {
  const ProcessResult r =
      bench({"--nodes", "20000", "--commit-every", "1000", "--json", "--ids", "seq"});
  ASSERT_EQ(r.signal, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  expect_figures(j, "nodes", "ordo",
                 {"nodes_per_s", "file_bytes", "allocated_bytes", "bytes_per_node",
                  "first_window_nodes_per_s", "last_window_nodes_per_s"});
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
  // The load's write calls are ordo's own count of bytes written, less what
  // the create wrote before the load began (its first meta and root pages,
  // and the zeros of its 4 MiB log area).
  const uint64_t calls = run["write_call_bytes"].get<uint64_t>();
  const uint64_t written = run["bytes_written"].get<uint64_t>();
  EXPECT_GT(calls, 20000u * 64u);
  EXPECT_LE(calls, written);
  EXPECT_GE(calls + 64 * 1024 + (4 << 20), written);
  // Without --keep the temporary files are gone.
  EXPECT_FALSE(std::filesystem::exists(run["path"].get<std::string>()));
}

TEST(OrdoBenchNodesTest, KeepLeavesBothFilesUnderPath) {
  TempDir dir;
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

TEST(OrdoBenchNodesTest, OneTxnSpillsAndReportsMemoryPerPhase) {
  const json j = parse_report(
      bench({"--nodes", "20000", "--one-txn", "--txn-budget-mib", "1", "--ids", "seq", "--json"}));
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["one_txn"].get<bool>());
  EXPECT_EQ(j["txn_budget_bytes"], 1u << 20);
  ASSERT_EQ(j["runs"].size(), 1u);
  const json& run = j["runs"][0];
  expect_fields(run, {"one_txn", "load_seconds", "commit_seconds", "txn_budget_bytes",
                      "ids_storage", "phases", "peak_rss_anon_bytes", "pages_spilled"});
  EXPECT_EQ(run["nodes"], 20000u);
  // One commit per tree created before the load (KvEngine::open_table), then the one txn.
  EXPECT_EQ(run["commits"], 3u);
  // 20,000 nodes need far more than 1 MiB of pages: the txn must spill.
  EXPECT_GT(run["pages_spilled"].get<uint64_t>(), 0u);
  EXPECT_NE(run["ids_storage"].get<std::string>().find("file-backed"), std::string::npos);
  ASSERT_EQ(run["phases"].size(), 3u);
  const char* names[] = {"load", "commit", "verify"};
  for (size_t p = 0; p < 3; ++p) {
    const json& phase = run["phases"][p];
    EXPECT_EQ(phase["phase"], names[p]);
    expect_fields(phase, {"seconds", "samples", "peak_rss_anon_bytes", "peak_rss_file_bytes",
                          "end_rss_anon_bytes", "end_rss_file_bytes"});
    EXPECT_GT(phase["peak_rss_anon_bytes"].get<uint64_t>(), 0u);
    EXPECT_GE(phase["peak_rss_anon_bytes"].get<uint64_t>(),
              phase["end_rss_anon_bytes"].get<uint64_t>());
    EXPECT_GE(phase["samples"].get<uint64_t>(), 2u);  // at least its start and its end
  }
  EXPECT_FALSE(std::filesystem::exists(run["path"].get<std::string>()));
}

TEST(OrdoBenchNodesTest, OneTxnExcludesCommitEvery) {
  EXPECT_EQ(bench({"--one-txn", "--commit-every", "10"}).exit_code, 2);
  EXPECT_EQ(bench({"--one-txn", "--txn-budget-mib", "0"}).exit_code, 2);
}

class OrdoBenchEngineTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OrdoBenchEngineTest, NodesReportsTheContractFigures) {
  const json j = parse_report(bench({"--engine", GetParam(), "--nodes", "3000", "--commit-every",
                                     "500", "--window", "1000", "--ids", "seq", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(j, "nodes", GetParam(),
                 {"nodes_per_s", "file_bytes", "allocated_bytes", "bytes_per_node",
                  "first_window_nodes_per_s", "last_window_nodes_per_s"});
  EXPECT_GT(j["figures"]["nodes_per_s"].get<double>(), 0.0);
  EXPECT_GT(j["figures"]["file_bytes"].get<double>(), 3000.0 * 64);
  // Every engine's records reach its files through write calls (those
  // submitted through io_uring are not counted by the kernel's wchar).
  if (GetParam() != "ordo-uring") {
    EXPECT_GT(j["figures"]["write_call_bytes"].get<double>(), 3000.0 * 64);
  }
  ASSERT_EQ(j["curve"].size(), 3u);
  EXPECT_EQ(j["curve"][2][0], 3000u);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["nodes_entries"], 3000u);  // read back by a full scan
  EXPECT_EQ(j["runs"][0]["children_entries"], 3000u);
  EXPECT_FALSE(std::filesystem::exists(j["runs"][0]["path"].get<std::string>()));
}

TEST_P(OrdoBenchEngineTest, NodesWithBothIdKindsSuffixesTheFigures) {
  const json j = parse_report(
      bench({"--engine", GetParam(), "--nodes", "1000", "--commit-every", "250", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(j, "nodes", GetParam(),
                 {"nodes_per_s_seq", "nodes_per_s_random", "file_bytes_random",
                  "last_window_nodes_per_s_seq"});
  EXPECT_EQ(j["curves"].size(), 2u);
}

// Edge IDs: tree "edges" holds every edge, and the engines with pages report
// its leaf fill (ordo's prefix split keeps it high).
TEST_P(OrdoBenchEngineTest, NodesWithEdgeIdsReportsTheEdgeTree) {
  const json j = parse_report(bench({"--engine", GetParam(), "--nodes", "3000", "--commit-every",
                                     "500", "--ids", "edges", "--json"}));
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["runs"].size(), 1u);
  const json& run = j["runs"][0];
  EXPECT_EQ(run["ids"], "edges");
  EXPECT_EQ(run["nodes_entries"], 3000u);
  EXPECT_GT(run["edges"].get<uint64_t>(), 3000u);
  EXPECT_LT(run["edges"].get<uint64_t>(), 8u * 3000);
  EXPECT_EQ(run["edges_entries"], run["edges"]);  // read back by a full scan
  const std::string engine = GetParam();
  const bool is_ordo = ordo::bench::is_ordo_engine(engine);
  if (is_ordo || engine.starts_with("lmdb")) {
    expect_figures(j, "nodes", engine, {"edges_leaf_fill", "edges_leaf_pages"});
    const double fill = j["figures"]["edges_leaf_fill"].get<double>();
    EXPECT_GT(fill, 0.4) << engine;
    EXPECT_LE(fill, 1.0) << engine;
    if (is_ordo) {
      // ~170 leaves over 6 commits; a middle split gives ~0.55.
      EXPECT_GE(fill, 0.85);
    }
  } else {
    EXPECT_FALSE(j["figures"].contains("edges_leaf_fill")) << engine;
  }
}

TEST_P(OrdoBenchEngineTest, CommitReportsLatencyPerPreloadAndTheFloor) {
  const json j = parse_report(
      bench_command("commit", {"--engine", GetParam(), "--preload", "2000,500", "--commits", "20",
                               "--threads", "0", "--floor-samples", "0", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(j, "commit", GetParam(),
                 {"p50_us_500", "p99_us_500", "max_us_500", "p50_us_2000", "p99_us_2000",
                  "max_us_2000", "fdatasync_floor_us"});
  ASSERT_EQ(j["latency_by_preload"].size(), 2u);
  EXPECT_EQ(j["latency_by_preload"][0]["rows"], 500u);  // sorted
  for (const json& at : j["latency_by_preload"]) {
    EXPECT_EQ(at["commit"]["count"], 20u);
    EXPECT_EQ(at["floor"]["count"], 2u);  // a probe every 10 commits
    EXPECT_LE(at["commit"]["p50_us"].get<double>(), at["commit"]["p99_us"].get<double>());
  }
  EXPECT_GT(j["figures"]["fdatasync_floor_us"].get<double>(), 0.0);
  EXPECT_FALSE(std::filesystem::exists(j["path"].get<std::string>()));
}

TEST_P(OrdoBenchEngineTest, ReadsReportsLookupsAndScans) {
  for (const char* key_bytes : {"8", "16"}) {
    const json j = parse_report(bench_command(
        "reads", {"--engine", GetParam(), "--keys", "3000", "--key-bytes", key_bytes, "--lookups",
                  "2000", "--scans", "20", "--scan-length", "100", "--json"}));
    ASSERT_TRUE(j.is_object());
    expect_figures(j, "reads", GetParam(),
                   {"point_lookups_per_s_1t", "point_lookups_per_s_2t", "request_lookups_per_s_1t",
                    "request_lookups_per_s_2t", "scans_per_s"});
    ASSERT_EQ(j["lookups"].size(), 2u);
    EXPECT_EQ(j["lookups"][0]["lookups"], 2000u);
    EXPECT_EQ(j["lookups"][1]["lookups"], 4000u);  // 2 threads
    ASSERT_EQ(j["request_lookups"].size(), 2u);
    EXPECT_EQ(j["request_lookups"][0]["lookups"], 2000u);
    EXPECT_EQ(j["request_lookups"][1]["lookups"], 4000u);
    EXPECT_EQ(j["scanned_keys"], 2000u);
    EXPECT_GT(j["figures"]["scans_per_s"].get<double>(), 0.0);
  }
}

TEST_P(OrdoBenchEngineTest, LinkbenchReportsEveryOpAtEverySize) {
  const json j = parse_report(bench_command(
      "linkbench", {"--engine", GetParam(), "--sizes", "1000,300", "--ops", "small", "--json"}));
  ASSERT_TRUE(j.is_object());
  std::vector<std::string> names;
  for (const char* op :
       {"add_node", "add_link", "update_link", "delete_link", "get_node", "get_links"}) {
    for (const char* n : {"300", "1000"}) {
      for (const char* stat : {"_p50_us_", "_p99_us_", "_max_us_"}) {
        names.push_back(std::string(op) + stat + n);
      }
    }
    names.push_back(std::string(op) + "_p99_growth");
  }
  expect_figures(j, "linkbench", GetParam(), names);
  ASSERT_EQ(j["sizes"].size(), 2u);
  EXPECT_EQ(j["sizes"][0]["nodes"], 300u);  // sorted
  for (const json& at : j["sizes"]) {
    EXPECT_EQ(at["ops"]["add_link"]["count"], 50u);
    EXPECT_EQ(at["ops"]["get_links"]["count"], 50u);
    EXPECT_GT(at["links"].get<uint64_t>(), at["nodes"].get<uint64_t>());
    EXPECT_GT(at["groups_checked"].get<uint64_t>(), 0u);  // the model check ran and passed
    EXPECT_FALSE(std::filesystem::exists(at["path"].get<std::string>()));
  }
  EXPECT_DOUBLE_EQ(j["figures"]["add_link_p99_growth"].get<double>(),
                   j["figures"]["add_link_p99_us_1000"].get<double>() /
                       j["figures"]["add_link_p99_us_300"].get<double>());
}

TEST_P(OrdoBenchEngineTest, TreesReportsLatencyBatchAndFiles) {
  const json j = parse_report(bench_command(
      "trees", {"--engine", GetParam(), "--trees", "200", "--batch", "20", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(
      j, "trees", GetParam(),
      {"p50_us_100", "p99_us_100", "p50_us_200", "p99_us_200", "batch_us", "files_created"});
  EXPECT_EQ(j["trees_checked"], 220u);  // every tree (fewer than 1,000) and the batch read back
  EXPECT_TRUE(j["per_new_table"].is_string());
  ASSERT_EQ(j["checkpoints"].size(), 2u);
  EXPECT_EQ(j["checkpoints"][1]["count"], 100u);
  EXPECT_FALSE(std::filesystem::exists(j["path"].get<std::string>()));
}

TEST_P(OrdoBenchEngineTest, CommitArmsReportThreadsNosyncAndFloors) {
  const json j = parse_report(bench_command(
      "commit", {"--engine", GetParam(), "--preload", "500", "--commits", "10", "--threads", "1,3",
                 "--thread-commits", "5", "--floor-samples", "4", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(j, "commit", GetParam(),
                 {"p50_us_500", "commits_per_s_1t", "commits_per_s_3t", "concurrent_p50_us_3t",
                  "concurrent_p99_us_3t", "fdatasync_floor_us", "floor_overwrite_p50_us",
                  "floor_overwrite_p99_us", "floor_unwritten_p50_us", "floor_unwritten_p99_us"});
  ASSERT_EQ(j["concurrent"].size(), 2u);
  EXPECT_EQ(j["concurrent"][1]["commits"], 15u);
  EXPECT_EQ(j["floor_unwritten"]["count"], 4u);
  EXPECT_GT(j["figures"]["commits_per_s_3t"].get<double>(), 0.0);

  const json nosync = parse_report(bench_command(
      "commit", {"--engine", GetParam(), "--preload", "500", "--commits", "10", "--threads", "2",
                 "--thread-commits", "5", "--floor-samples", "0", "--no-sync", "--json"}));
  ASSERT_TRUE(nosync.is_object());
  expect_figures(nosync, "commit", GetParam(),
                 {"nosync_p50_us_500", "nosync_p99_us_500", "nosync_commits_per_s_2t"});
  EXPECT_EQ(nosync["durable"], false);
  EXPECT_FALSE(nosync["figures"].contains("p50_us_500"));
  EXPECT_FALSE(nosync["figures"].contains("floor_overwrite_p50_us"));
}

TEST_P(OrdoBenchEngineTest, RedbReportsEveryPhase) {
  const json j = parse_report(bench_command(
      "redb",
      {"--engine", GetParam(), "--entries", "2000", "--individual-writes", "20", "--batch-writes",
       "5", "--batch-size", "40", "--iterations", "1", "--read-threads", "1,2", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(j, "redb", GetParam(),
                 {"bulk_load_ms", "individual_writes_ms", "batch_writes_ms", "random_reads_ms",
                  "random_range_reads_ms", "random_reads_1t_ms", "random_reads_2t_ms",
                  "removals_ms", "compaction_ms", "uncompacted_bytes", "compacted_bytes"});
  EXPECT_EQ(j["written"], 2220u);
  EXPECT_EQ(j["reads"], 2220u);        // every pair, by default
  EXPECT_EQ(j["range_reads"], 1110u);  // half of them
  EXPECT_EQ(j["removed"], 1110u);
  EXPECT_EQ(j["key_bytes"], 24u);
  EXPECT_EQ(j["value_bytes"], 150u);
  EXPECT_GT(j["range_entries"].get<uint64_t>(), 1110u);
  EXPECT_GT(j["figures"]["uncompacted_bytes"].get<double>(), 0.0);
  EXPECT_GT(j["figures"]["compacted_bytes"].get<double>(), 0.0);
  EXPECT_FALSE(std::filesystem::exists(j["path"].get<std::string>()));
}

INSTANTIATE_TEST_SUITE_P(Built, OrdoBenchEngineTest,
                         ::testing::ValuesIn(ordo::bench::built_engines()),
                         [](const ::testing::TestParamInfo<std::string>& test_info) {
                           return ordo::testing::test_param_name(test_info.param);
                         });

TEST(OrdoBenchEngineOptionTest, UnknownEngineOrBadSizesAreUsageErrors) {
  EXPECT_EQ(bench({"--engine", "berkeleydb"}).exit_code, 2);
  EXPECT_EQ(bench_command("commit", {"--engine", "berkeleydb"}).exit_code, 2);
  EXPECT_EQ(bench_command("reads", {"--key-bytes", "12"}).exit_code, 2);
  EXPECT_EQ(bench_command("reads", {"--keys", "10", "--scan-length", "100"}).exit_code, 2);
  EXPECT_EQ(bench_command("reads", {"--lookups", "10", "--seconds", "1"}).exit_code, 2);
  EXPECT_EQ(bench_command("commit", {"--preload", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("commit", {"--threads", "x"}).exit_code, 2);
  EXPECT_EQ(bench_command("redb", {"--entries", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("redb", {"--read-threads", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("redb", {"--range-length", "-1"}).exit_code, 2);
  EXPECT_EQ(bench_command("linkbench", {"--ops", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("linkbench", {"--ops", "tiny"}).exit_code, 2);
  EXPECT_EQ(bench_command("linkbench", {"--sizes", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("linkbench", {"--engine", "berkeleydb"}).exit_code, 2);
}

TEST(OrdoBenchChurnTest, BothRunsReportEveryRound) {
  constexpr uint64_t kKeys = 3000, kRounds = 12, kTxnSize = 500;
  const json j = parse_report(bench_command(
      "churn", {"--keys", std::to_string(kKeys), "--rounds", std::to_string(kRounds), "--txn-size",
                std::to_string(kTxnSize), "--commit-protocol", "one-sync", "--json"}));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["workload"], "churn");
  EXPECT_EQ(j["keys"], kKeys);
  EXPECT_EQ(j["value_bytes"], 100u);
  EXPECT_TRUE(j["durable"].get<bool>());
  const uint64_t expected_syncs = j["expected_syncs_per_commit"].get<uint64_t>();
  EXPECT_TRUE(expected_syncs == 1 || expected_syncs == 2) << j["commit_protocol"];
  EXPECT_EQ(j["reader_first"], 6u);
  EXPECT_EQ(j["reader_last"], 10u);
  ASSERT_EQ(j["runs"].size(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    const json& run = j["runs"][r];
    const bool with_reader = r == 1;
    EXPECT_EQ(run["reader"].get<bool>(), with_reader);
    expect_fields(run, {"rows", "used_ratio", "file_ratio", "commits", "syncs_after_open",
                        "syncs_per_commit", "pages_reused"});
    // The load, then 6 txns per round; each commit makes exactly the syncs
    // its protocol calls for (1 for one-sync, 2 for two-sync).
    EXPECT_EQ(run["commits"], 1 + kRounds * (kKeys / kTxnSize));
    EXPECT_EQ(run["syncs_after_open"], expected_syncs * run["commits"].get<uint64_t>());
    EXPECT_DOUBLE_EQ(run["syncs_per_commit"].get<double>(), static_cast<double>(expected_syncs));
    ASSERT_EQ(run["rows"].size(), kRounds + 1);
    for (uint64_t i = 0; i <= kRounds; ++i) {
      const json& row = run["rows"][i];
      expect_fields(row,
                    {"round", "reader_held", "seconds", "file_bytes", "used_bytes", "free_pages",
                     "pending_free_pages", "pages_reused", "pages_reused_in_round"});
      EXPECT_EQ(row["round"], i);
      EXPECT_EQ(row["reader_held"].get<bool>(), with_reader && i >= 6 && i <= 10) << i;
      EXPECT_GE(row["file_bytes"].get<uint64_t>(), row["used_bytes"].get<uint64_t>());
      EXPECT_LE(row["pending_free_pages"].get<uint64_t>(), row["free_pages"].get<uint64_t>());
    }
    EXPECT_GT(run["rows"][0]["used_bytes"].get<uint64_t>(), kKeys * 100);
    EXPECT_DOUBLE_EQ(run["used_ratio"].get<double>(),
                     run["rows"][kRounds]["used_bytes"].get<double>() /
                         run["rows"][0]["used_bytes"].get<double>());
    EXPECT_EQ(run["pages_reused"], run["rows"][kRounds]["pages_reused"]);
    EXPECT_EQ(run["reader_keys_checked"].get<uint64_t>() > 0, with_reader);
    EXPECT_FALSE(std::filesystem::exists(run["path"].get<std::string>()));
  }
}

TEST(OrdoBenchChurnTest, ReaderRoundsMustFitTheRun) {
  EXPECT_EQ(bench_command("churn", {"--rounds", "8"}).exit_code, 2);  // reader until round 10
  EXPECT_EQ(bench_command("churn", {"--reader-first", "7", "--reader-last", "6"}).exit_code, 2);
  EXPECT_EQ(bench_command("churn", {"--txn-size", "0"}).exit_code, 2);
}

TEST(OrdoBenchRecoveryTest, ReplaysEveryRecordOfAFullLog) {
  // A 64 KiB log of one-block records: the run stops once it holds 90%.
  const json j =
      parse_report(bench_command("recovery", {"--preload", "20000", "--log-bytes", "65536",
                                              "--fill-pct", "90", "--opens", "2", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(j, "recovery", "ordo",
                 {"commits", "checkpoints", "log_records", "log_head_bytes", "replayed_records",
                  "replayed_bytes", "file_bytes", "open_clean_ms", "open_process_crash_ms",
                  "open_machine_crash_ms"});
  const json& f = j["figures"];
  EXPECT_GE(f["log_head_bytes"].get<uint64_t>(), 65536u * 90 / 100);
  EXPECT_LE(f["log_head_bytes"].get<uint64_t>(), 65536u);
  EXPECT_GT(f["log_records"].get<uint64_t>(), 0u);
  // The machine-crash image lost every page since the checkpoint: open
  // replayed all of the records.
  EXPECT_EQ(f["replayed_records"], f["log_records"]);
  EXPECT_EQ(f["replayed_bytes"], f["log_head_bytes"]);
  EXPECT_GT(f["open_machine_crash_ms"].get<double>(), 0.0);
}

TEST(OrdoBenchRecoveryTest, BadOptionsAreUsageErrors) {
  EXPECT_EQ(bench_command("recovery", {"--fill-pct", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("recovery", {"--rows-per-commit", "0"}).exit_code, 2);
  EXPECT_EQ(bench_command("recovery", {"--opens", "0"}).exit_code, 2);
}

TEST(OrdoBenchTreesTest, CountsCreatesSyncsAndFiles) {
  TempDir dir;
  constexpr uint64_t kTrees = 300, kBatch = 10;
  const json j = parse_report(bench_command(
      "trees", {"--trees", std::to_string(kTrees), "--batch", std::to_string(kBatch),
                "--commit-protocol", "one-sync", "--path", dir.path(), "--keep", "--json"}));
  ASSERT_TRUE(j.is_object());
  expect_figures(
      j, "trees", "ordo",
      {"p50_us_100", "p99_us_100", "p50_us_300", "p99_us_300", "batch_us", "files_created"});
  EXPECT_EQ(j["figures"]["files_created"], 0u);
  EXPECT_TRUE(j["durable"].get<bool>());
  const uint64_t expected_syncs = j["expected_syncs_per_commit"].get<uint64_t>();
  EXPECT_TRUE(expected_syncs == 1 || expected_syncs == 2) << j["commit_protocol"];
  expect_fields(
      j, {"checkpoints", "p50_ratio", "batch_trees", "batch_txn_us", "files_created_after_open",
          "directory_entries_after_open", "directory_entries_at_end", "commits", "syncs_after_open",
          "syncs_per_commit", "trees_listed"});
  // Checkpoints at 100 and at the last tree; windows (0, 100] and (100, 300].
  ASSERT_EQ(j["checkpoints"].size(), 2u);
  EXPECT_EQ(j["checkpoints"][0]["at"], 100u);
  EXPECT_EQ(j["checkpoints"][0]["count"], 100u);
  EXPECT_EQ(j["checkpoints"][1]["at"], kTrees);
  EXPECT_EQ(j["checkpoints"][1]["count"], kTrees - 100);
  for (const json& c : j["checkpoints"]) {
    expect_fields(c, {"p50_us", "p99_us", "max_us", "tail_p50_us", "tail_p99_us",
                      "pages_written_per_commit", "floor_p50_us"});
    EXPECT_EQ(c["tail_count"], 100u);
    EXPECT_EQ(c["floor_count"], c["count"].get<uint64_t>() / 10);  // a probe every 10 creates
    EXPECT_GT(c["p50_us"].get<double>(), 0.0);
    EXPECT_LE(c["p50_us"].get<double>(), c["p99_us"].get<double>());
    EXPECT_LE(c["p99_us"].get<double>(), c["max_us"].get<double>());
  }
  EXPECT_EQ(j["batch_trees"], kBatch);
  EXPECT_GT(j["batch_txn_us"].get<double>(), 0.0);
  EXPECT_EQ(j["commits"], kTrees + 1);
  EXPECT_EQ(j["syncs_after_open"], expected_syncs * (kTrees + 1));
  EXPECT_EQ(j["files_created_after_open"], 0u);
  EXPECT_EQ(j["directory_entries_at_end"], j["directory_entries_after_open"]);
  EXPECT_EQ(j["trees_listed"], kTrees + kBatch);
  // The database is kept; the sync probe's scratch file is not.
  EXPECT_TRUE(std::filesystem::exists(dir.file("trees.ordo")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("trees.ordo.sync-probe")));
}

TEST(OrdoBenchTreesTest, TwoSyncProtocolMakesTwoSyncsPerCommit) {
  const json j =
      parse_report(bench_command("trees", {"--trees", "120", "--batch", "0", "--commit-protocol",
                                           "two-sync", "--probe-every", "0", "--json"}));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["commit_protocol"], "two-sync");
  EXPECT_EQ(j["expected_syncs_per_commit"], 2u);
  EXPECT_EQ(j["commits"], 121u);
  EXPECT_EQ(j["syncs_after_open"], 242u);
  EXPECT_EQ(j["checkpoints"][0]["floor_count"], 0u);
  EXPECT_EQ(bench_command("trees", {"--commit-protocol", "three-sync"}).exit_code, 2);
}

TEST(OrdoBenchTreesTest, NoSyncSkipsSyncsAndProbes) {
  const json j = parse_report(bench_command("trees", {"--trees", "150", "--no-sync", "--json"}));
  ASSERT_TRUE(j.is_object());
  EXPECT_FALSE(j["durable"].get<bool>());
  EXPECT_EQ(j["expected_syncs_per_commit"], 0u);
  EXPECT_EQ(j["syncs_after_open"], 0u);
  EXPECT_EQ(j["commits"], 151u);
  EXPECT_EQ(j["checkpoints"][0]["floor_count"], 0u);
  EXPECT_EQ(j["files_created_after_open"], 0u);
}

}  // namespace
}  // namespace ordo
