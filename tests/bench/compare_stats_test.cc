// The statistics of `ordo-bench compare` as pure functions: median and
// interval, the per-round ratio, the 10% unresolved rule, the ABBA order,
// round 0 dropped and the A/A verdict; and the child contract parsing.
#include "compare_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "compare_analysis.h"
#include "compare_study.h"
#include "compare_workloads.h"

namespace ordo::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(CompareStatsTest, MinMaxIntervalAndNearestRankMedian) {
  const std::vector<double> odd = {5, 1, 3};
  const Summary s = summarize(odd, IntervalSpec{});
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.lo, 1);
  EXPECT_EQ(s.hi, 5);
  // Of an even count, nearest rank gives the lower middle value.
  const std::vector<double> even = {40, 10, 30, 20};
  EXPECT_EQ(summarize(even, IntervalSpec{}).median, 20);
  EXPECT_EQ(summarize({}, IntervalSpec{}).count, 0u);
}

TEST(CompareStatsTest, UnresolvedWhenWiderThanTenPercentOfTheMedian) {
  const std::vector<double> narrow = {95, 100, 105};  // width 10 = 10%: resolved
  EXPECT_NEAR(summarize(narrow, IntervalSpec{}).width_fraction(), 0.10, 1e-12);
  EXPECT_FALSE(summarize(narrow, IntervalSpec{}).unresolved());
  const std::vector<double> wide = {94, 100, 105};
  EXPECT_TRUE(summarize(wide, IntervalSpec{}).unresolved());
  EXPECT_TRUE(Summary{}.unresolved());  // no rounds: nothing resolved
  const std::vector<double> zeros = {0, 0};
  EXPECT_FALSE(summarize(zeros, IntervalSpec{}).unresolved());
}

TEST(CompareStatsTest, BootstrapIsSeededAndInsideTheRange) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  IntervalSpec spec{IntervalMethod::kBootstrap, 7, 2000};
  const Summary a = summarize(v, spec);
  const Summary b = summarize(v, spec);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_EQ(a.median, 5);
  EXPECT_GE(a.lo, 1);
  EXPECT_LE(a.hi, 10);
  EXPECT_LT(a.lo, a.median);
  EXPECT_GT(a.hi, a.median);
  // Narrower than the whole range: the median of 10 draws rarely reaches an end.
  EXPECT_GT(a.lo, 1);
  EXPECT_LT(a.hi, 10);
}

TEST(CompareStatsTest, RatiosPairTheSameRoundAndSkipMissingOnes) {
  const Paired rounds{{10, 20, kNaN, 40, 50}, {5, 10, 10, kNaN, 0}};
  EXPECT_EQ(per_round_ratios(rounds), (std::vector<double>{2, 2}));
}

// Two arms that both count zero (files created) agree: ratio 1, so the A/A
// control of such a figure passes.
TEST(CompareStatsTest, BothZeroIsARatioOfOne) {
  const Paired rounds{{0, 0, 3}, {0, 0, 0}};
  EXPECT_EQ(per_round_ratios(rounds), (std::vector<double>{1, 1}));
}

TEST(CompareStatsTest, FigureDirections) {
  EXPECT_EQ(figure_direction("nodes_per_s"), Better::kHigher);
  EXPECT_EQ(figure_direction("point_lookups_per_s_1t"), Better::kHigher);
  EXPECT_EQ(figure_direction("p99_us_10000"), Better::kLower);
  EXPECT_EQ(figure_direction("fdatasync_floor_us"), Better::kLower);
  EXPECT_EQ(figure_direction("bulk_load_ms"), Better::kLower);
  EXPECT_EQ(figure_direction("random_reads_4t_ms"), Better::kLower);
  EXPECT_EQ(figure_direction("compacted_bytes"), Better::kLower);
  EXPECT_EQ(figure_direction("nosync_commits_per_s_8t"), Better::kHigher);
  EXPECT_EQ(figure_direction("floor_unwritten_p99_us"), Better::kLower);
  EXPECT_EQ(figure_direction("file_bytes"), Better::kLower);
  EXPECT_EQ(figure_direction("edges_leaf_fill"), Better::kHigher);
  EXPECT_EQ(figure_direction("edges_leaf_pages_seq"), Better::kLower);
  EXPECT_EQ(figure_direction("bytes_per_node"), Better::kLower);
  EXPECT_EQ(figure_direction("files_created"), Better::kLower);
  EXPECT_EQ(figure_direction("scan_columns_rss_peak_mib"), Better::kLower);
  EXPECT_EQ(figure_direction("get_call_cpu_us_per_row"), Better::kLower);
  EXPECT_EQ(figure_direction("ingest_put_many_per_s"), Better::kHigher);
  EXPECT_EQ(figure_direction("leaf_fill"), Better::kUnknown);
  EXPECT_EQ(ratio_reading(Better::kLower), "ordo/peer: <1 = ordo better");
}

TEST(CompareStatsTest, AbbaOrderRoundMajor) {
  const std::vector<PlannedRun> plan = plan_study(2, 5);
  ASSERT_EQ(plan.size(), 20u);
  std::string order;
  for (const PlannedRun& p : plan) {
    order += std::to_string(p.round) + std::to_string(p.pair) + (p.arm == Arm::kA ? "A" : "B");
    order += ' ';
  }
  EXPECT_EQ(order,
            "00A 00B 01A 01B 10B 10A 11B 11A 21A 21B 20A 20B 31B 31A 30B 30A "
            "40A 40B 41A 41B ");
  EXPECT_FALSE(is_kept_round(0));
  EXPECT_TRUE(is_kept_round(1));
}

// A successful run of pair `pair`, arm `arm`, in `round`, with one figure.
RunRecord run(const StudyPairs& pairs, int round, size_t pair, Arm arm, double nodes_per_s,
              bool ok = true) {
  RunRecord r;
  r.plan = {round, pair, arm};
  r.label = pairs.label(pair, arm);
  r.ok = ok;
  if (ok) {
    r.report.figures = {{"nodes_per_s", nodes_per_s}, {"file_bytes", 4096}};
    r.report.curve = {{10, nodes_per_s}, {20, nodes_per_s / 2}};
  }
  return r;
}

const FigureRow& row_of(const StudyResult& s, const std::string& label, const std::string& fig) {
  for (const FigureRow& r : s.rows) {
    if (r.label == label && r.figure == fig) return r;
  }
  static const FigureRow kNone;
  ADD_FAILURE() << "no row " << label << " " << fig;
  return kNone;
}

TEST(CompareAnalysisTest, DropsRoundZeroAndPairsRatiosByRound) {
  const StudyPairs pairs{{"lmdb"}};
  std::vector<RunRecord> runs;
  // Round 0 is wild and must not count.
  runs.push_back(run(pairs, 0, 0, Arm::kA, 1));
  runs.push_back(run(pairs, 0, 0, Arm::kB, 1000));
  runs.push_back(run(pairs, 0, 1, Arm::kA, 1));
  runs.push_back(run(pairs, 0, 1, Arm::kB, 1000));
  for (int r = 1; r <= 3; ++r) {
    runs.push_back(run(pairs, r, 0, Arm::kA, 100 + r));
    runs.push_back(run(pairs, r, 0, Arm::kB, 100 + r));
    runs.push_back(run(pairs, r, 1, Arm::kA, 100));
    runs.push_back(run(pairs, r, 1, Arm::kB, 50 * r));
  }
  const StudyResult s = analyze_study(pairs, 4, runs, IntervalSpec{});
  const FigureRow& ordo = row_of(s, "ordo", "nodes_per_s");
  EXPECT_FALSE(ordo.has_ratio);
  EXPECT_EQ(ordo.values.size(), 6u);  // the A arms of both pairs, rounds 1-3
  EXPECT_EQ(ordo.value.lo, 100);
  EXPECT_EQ(ordo.value.hi, 103);
  const FigureRow& lmdb = row_of(s, "lmdb", "nodes_per_s");
  EXPECT_EQ(lmdb.values, (std::vector<double>{50, 100, 150}));
  EXPECT_EQ(lmdb.ratios, (std::vector<double>{2, 1, 100.0 / 150}));
  EXPECT_EQ(lmdb.ratio.median, 1);
  EXPECT_TRUE(lmdb.ratio.unresolved());
  EXPECT_EQ(lmdb.better, Better::kHigher);
  const FigureRow& aa = row_of(s, "ordo-aa", "nodes_per_s");
  EXPECT_EQ(aa.ratios, (std::vector<double>{1, 1, 1}));
  EXPECT_TRUE(s.aa_ok());
  // Curves: median per point over the kept rounds.
  ASSERT_EQ(s.curves.size(), 3u);
  EXPECT_EQ(s.curves[2].label, "lmdb");
  EXPECT_EQ(s.curves[2].points, (std::vector<std::pair<double, double>>{{10, 100}, {20, 50}}));
}

TEST(CompareAnalysisTest, AaIntervalWithoutOneIsAFailure) {
  const StudyPairs pairs{{}};
  std::vector<RunRecord> runs;
  for (int r = 0; r <= 3; ++r) {
    runs.push_back(run(pairs, r, 0, Arm::kA, 110 + r));
    runs.push_back(run(pairs, r, 0, Arm::kB, 100));
  }
  const StudyResult s = analyze_study(pairs, 4, runs, IntervalSpec{});
  EXPECT_EQ(s.aa_failures, (std::vector<std::string>{"nodes_per_s"}));  // file_bytes is 1.0
  EXPECT_FALSE(s.aa_ok());
}

TEST(CompareAnalysisTest, FailedRunsAreMissingRounds) {
  const StudyPairs pairs{{"lmdb"}};
  std::vector<RunRecord> runs;
  for (int r = 0; r <= 2; ++r) {
    runs.push_back(run(pairs, r, 0, Arm::kA, 100));
    runs.push_back(run(pairs, r, 0, Arm::kB, 100));
    runs.push_back(run(pairs, r, 1, Arm::kA, 100));
    runs.push_back(run(pairs, r, 1, Arm::kB, 50, /*ok=*/r != 1));
  }
  const StudyResult s = analyze_study(pairs, 3, runs, IntervalSpec{});
  EXPECT_EQ(row_of(s, "lmdb", "nodes_per_s").ratios, (std::vector<double>{2}));
  // No A/A rounds at all: the control cannot pass.
  const StudyResult none = analyze_study(pairs, 1, runs, IntervalSpec{});
  EXPECT_FALSE(none.aa_ok());
}

TEST(CompareStudyTest, ParsesTheChildContract) {
  const Result<ChildReport> r = parse_child_report(
      R"({"workload":"nodes","engine":"ordo","figures":{"nodes_per_s":5.5,"note":"x"},)"
      R"("curve":[[1,2],[3,4]]})");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->figures.size(), 1u);
  EXPECT_EQ(r->figures[0].first, "nodes_per_s");
  EXPECT_EQ(r->figures[0].second, 5.5);
  EXPECT_EQ(r->curve.size(), 2u);
  EXPECT_FALSE(parse_child_report("not json").is_ok());
  EXPECT_FALSE(parse_child_report(R"({"figures":{}})").is_ok());
  EXPECT_FALSE(parse_child_report(R"({"figures":{"a":1},"curve":[[1]]})").is_ok());
}

TEST(CompareWorkloadsTest, ExpandsNodesAndBuildsTheChildCommand) {
  const Result<std::vector<WorkloadSpec>> specs =
      expand_workloads({"nodes", "commit", "nodes-seq"});
  ASSERT_TRUE(specs.is_ok());
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[0].name, "nodes-seq");
  EXPECT_EQ((*specs)[1].name, "nodes-random");
  EXPECT_EQ((*specs)[2].subcommand, "commit");
  EXPECT_FALSE(expand_workloads({"bogus"}).is_ok());
  // nodes-edges only by its own name.
  const Result<std::vector<WorkloadSpec>> edges = expand_workloads({"nodes-edges", "nodes"});
  ASSERT_TRUE(edges.is_ok());
  ASSERT_EQ(edges->size(), 3u);
  EXPECT_EQ((*edges)[0].name, "nodes-edges");
  EXPECT_EQ((*edges)[0].subcommand, "nodes");
  EXPECT_EQ((*edges)[0].args, (std::vector<std::string>{"--ids", "edges"}));
  const Result<std::vector<WorkloadSpec>> redb = expand_workloads({"redb"});
  ASSERT_TRUE(redb.is_ok());
  EXPECT_EQ((*redb)[0].subcommand, "redb");
  EXPECT_EQ(child_argv("/bin/ob", (*specs)[0], "lmdb", "/d", {"--nodes", "5"}),
            (std::vector<std::string>{"/bin/ob", "nodes", "--ids", "seq", "--engine", "lmdb",
                                      "--json", "--path", "/d", "--nodes", "5"}));
}

TEST(CompareWorkloadsTest, ExpandsThePythonGroups) {
  const Result<std::vector<WorkloadSpec>> specs =
      expand_workloads({"python-getmany", "python-scan", "python-getmany"});
  ASSERT_TRUE(specs.is_ok());
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ((*specs)[0].name, "python-getmany");
  EXPECT_EQ((*specs)[0].subcommand, "getmany");
  EXPECT_EQ((*specs)[1].subcommand, "scan");
  for (const std::string& group : kPythonGroups) {
    EXPECT_TRUE(expand_workloads({"python-" + group}).is_ok()) << group;
  }
  const Result<std::vector<WorkloadSpec>> bogus = expand_workloads({"python-bogus"});
  ASSERT_FALSE(bogus.is_ok());
  EXPECT_NE(bogus.status().message().find("python-GROUP (calls, ingest"), std::string::npos);
  EXPECT_FALSE(expand_workloads({"python-"}).is_ok());
}

TEST(CompareWorkloadsTest, ReadsEngineChoicesFromHelp) {
  EXPECT_EQ(parse_engine_choices("Options:\n  --engine TEXT:{ordo,lmdb, sqlite} Storage\n"),
            (std::vector<std::string>{"ordo", "lmdb", "sqlite"}));
  EXPECT_TRUE(parse_engine_choices("  --nodes UINT\n").empty());
}

}  // namespace
}  // namespace ordo::bench
