// The trees workload: one txn per tree, timed; a batch; files and syncs.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <optional>
#include <set>

#include "kv_registry.h"
#include "sync_probe.h"
#include "system_figures.h"
#include "trees_workload.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr uint64_t kFirstCheckpoint = 100;

double micros(SteadyClock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// ordo: create_tree inside the txn that puts the key.
class OrdoTrees final : public TreesTarget {
 public:
  explicit OrdoTrees(Database& db) : db_(db) {}

  Status create_one(const std::string& name, uint64_t i) override {
    ORDO_ASSIGN_OR_RETURN(WriteTxn txn, db_.begin_write());
    ORDO_ASSIGN_OR_RETURN(const Tree tree, txn.create_tree(name));
    const std::array<char, 8> value = tree_value(i);
    ORDO_RETURN_IF_ERROR(txn.put(tree, kTreeKey, ByteView(value.data(), value.size())));
    return txn.commit();
  }

  Status create_batch(uint64_t count) override {
    ORDO_ASSIGN_OR_RETURN(WriteTxn txn, db_.begin_write());
    for (uint64_t i = 0; i < count; ++i) {
      ORDO_ASSIGN_OR_RETURN(const Tree tree, txn.create_tree(batch_name(i)));
      const std::array<char, 8> value = tree_value(i);
      ORDO_RETURN_IF_ERROR(txn.put(tree, kTreeKey, ByteView(value.data(), value.size())));
    }
    return txn.commit();
  }

  uint64_t pages_written() const override { return db_.stats().pages_written; }

  // Every tree is listed; a sample of them (and every batch tree) reads back.
  Status check(const TreesConfig& config, TreesRun& run) override {
    ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db_.begin_read());
    ORDO_ASSIGN_OR_RETURN(const std::vector<std::string> names, txn.list_trees());
    run.trees_listed = names.size();
    if (names.size() != config.trees + config.batch) {
      return Status::corruption(fmt::format("list_trees() gives {} trees, expected {}",
                                            names.size(), config.trees + config.batch));
    }
    const uint64_t step = std::max<uint64_t>(1, config.trees / kTreeCheckSamples);
    for (uint64_t i = 0; i < config.trees; i += step, ++run.trees_checked) {
      ORDO_RETURN_IF_ERROR(check_one(txn, tree_name(i), i));
    }
    for (uint64_t i = 0; i < config.batch; ++i, ++run.trees_checked) {
      ORDO_RETURN_IF_ERROR(check_one(txn, batch_name(i), i));
    }
    return Status::ok();
  }

 private:
  static Status check_one(ReadTxn& txn, const std::string& name, uint64_t i) {
    Result<Tree> tree = txn.open_tree(name);
    if (!tree.is_ok()) {
      return Status::corruption(fmt::format("tree {}: {}", name, tree.status().to_string()));
    }
    return check_tree_value(txn.get(*tree, kTreeKey), name, i);
  }

  Database& db_;
};

// A sync probe taken after create number `after`.
struct ProbeSample {
  uint64_t after = 0;
  double us = 0;
};

TreesCheckpoint checkpoint(const TreesConfig& config, const std::vector<double>& latency_us,
                           const std::vector<ProbeSample>& probes, uint64_t from, uint64_t at,
                           uint64_t pages_written) {
  TreesCheckpoint c;
  c.at = at;
  c.from = from;
  std::vector<double> floor;
  for (const ProbeSample& p : probes) {
    if (p.after > from && p.after <= at) floor.push_back(p.us);
  }
  c.floor = summarize_latency(floor);
  const std::span<const double> all(latency_us);
  c.window = summarize_latency(all.subspan(from, at - from));
  const uint64_t tail = std::min(config.tail, at);
  c.tail = summarize_latency(all.subspan(at - tail, tail));
  c.pages_written_per_commit =
      static_cast<double>(pages_written) / static_cast<double>(std::max<uint64_t>(1, at - from));
  return c;
}

}  // namespace

std::string tree_name(uint64_t i) {
  return fmt::format("tree-{:08x}", static_cast<uint32_t>(i * 0x9E3779B1u));
}

std::string batch_name(uint64_t i) { return fmt::format("batch-{:08}", i); }

std::array<char, 8> tree_value(uint64_t i) {
  std::array<char, 8> v;
  for (size_t b = 0; b < v.size(); ++b) v[b] = static_cast<char>(i >> (8 * (7 - b)));
  return v;
}

Status check_tree_value(const Result<ByteView>& got, const std::string& name, uint64_t i) {
  const std::array<char, 8> want = tree_value(i);
  if (!got.is_ok() || *got != ByteView(want.data(), want.size())) {
    return Status::corruption(fmt::format("tree {} does not hold its key", name));
  }
  return Status::ok();
}

Result<TreesRun> run_trees_on(TreesTarget& target, const std::string& dir,
                              const TreesConfig& config, SyncProbe* probe, TreesRun result) {
  ORDO_ASSIGN_OR_RETURN(const std::set<std::string> after_open, directory_entries(dir));
  result.dir_entries_after_open = after_open.size();

  const std::vector<uint64_t> checkpoints = config.checkpoints();
  std::vector<double> latency_us;
  latency_us.reserve(config.trees);
  std::vector<ProbeSample> probes;
  uint64_t from = 0;
  uint64_t pages_at_from = target.pages_written();
  size_t next = 0;
  const SteadyClock::time_point start = SteadyClock::now();
  for (uint64_t i = 0; i < config.trees; ++i) {
    const std::string name = tree_name(i);
    const SteadyClock::time_point t0 = SteadyClock::now();
    ORDO_RETURN_IF_ERROR(target.create_one(name, i));
    latency_us.push_back(micros(SteadyClock::now() - t0));
    if (probe != nullptr && (i + 1) % config.probe_every == 0) {
      ORDO_ASSIGN_OR_RETURN(const double us, probe->probe_us());
      probes.push_back({i + 1, us});
    }
    if (next < checkpoints.size() && i + 1 == checkpoints[next]) {
      const uint64_t pages = target.pages_written();
      result.checkpoints.push_back(
          checkpoint(config, latency_us, probes, from, i + 1, pages - pages_at_from));
      const TreesCheckpoint& c = result.checkpoints.back();
      fmt::print(stderr, "ordo-bench: trees: {} created, p50 {:.0f} us, p99 {:.0f} us{}\n", c.at,
                 c.window.p50_us, c.window.p99_us,
                 probe != nullptr ? fmt::format(", sync floor p50 {:.0f} us", c.floor.p50_us) : "");
      from = i + 1;
      pages_at_from = pages;
      ++next;
    }
  }
  result.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();

  const uint64_t pages_before_batch = target.pages_written();
  const SteadyClock::time_point t0 = SteadyClock::now();
  ORDO_RETURN_IF_ERROR(target.create_batch(config.batch));
  result.batch_txn_us = micros(SteadyClock::now() - t0);
  result.batch_trees = config.batch;
  result.batch_pages_written = target.pages_written() - pages_before_batch;

  ORDO_RETURN_IF_ERROR(target.check(config, result));
  ORDO_ASSIGN_OR_RETURN(const std::set<std::string> at_end, directory_entries(dir));
  result.dir_entries_at_end = at_end.size();
  std::set_difference(at_end.begin(), at_end.end(), after_open.begin(), after_open.end(),
                      std::back_inserter(result.files_created_after_open));
  return result;
}

std::vector<uint64_t> TreesConfig::checkpoints() const {
  std::vector<uint64_t> at;
  for (uint64_t t = kFirstCheckpoint; t <= trees; t *= 10) at.push_back(t);
  if (at.empty() || at.back() != trees) at.push_back(trees);
  return at;
}

double TreesRun::syncs_per_commit() const {
  return stats.commits > 0
             ? static_cast<double>(syncs_after_open()) / static_cast<double>(stats.commits)
             : 0;
}

double TreesRun::p50_ratio() const {
  if (checkpoints.size() < 2 || checkpoints.front().window.p50_us <= 0) return 0;
  return checkpoints.back().window.p50_us / checkpoints.front().window.p50_us;
}

Result<TreesRun> run_trees(const std::string& path, const TreesConfig& config) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  TreesRun result;
  result.path = path;
  // The probe's file is made before the first count: it is ours, not the engine's.
  std::optional<SyncProbe> probe;
  if (config.commits.sync && config.probe_every > 0) {
    ORDO_ASSIGN_OR_RETURN(SyncProbe made, SyncProbe::create(path + ".sync-probe"));
    probe.emplace(std::move(made));
  }
  result.engine = config.engine;
  if (!is_ordo_engine(config.engine)) {
    return run_trees_kv(path, path, config, probe ? &*probe : nullptr, std::move(result));
  }
  ORDO_ASSIGN_OR_RETURN(const std::set<std::string> before, directory_entries(dir));
  result.dir_entries_before_open = before.size();
  Options options;
  config.commits.apply(options);
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::open(path, options));
  result.syncs_at_open = db->stats().syncs;
  OrdoTrees target(*db);
  ORDO_ASSIGN_OR_RETURN(
      result, run_trees_on(target, dir, config, probe ? &*probe : nullptr, std::move(result)));
  result.stats = db->stats();
  result.info = db->info();
  return result;
}

}  // namespace ordo::bench
