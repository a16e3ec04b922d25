#include "trees_report.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "kv_registry.h"

namespace ordo::bench {
namespace {

using json = nlohmann::ordered_json;

// Not measured by a run, but where to check it: the engine's only directory
// open and sync.
constexpr std::string_view kDirectorySyncNote =
    "directory syncs: the engine opens and fsyncs a directory only in "
    "io::sync_parent_directory (io/src/file_handle.cc), called by open_database_file when it "
    "creates the file, i.e. before the counts above start; Stats::syncs counts only the data "
    "file's fdatasyncs. Count them outside the process with: strace -f -c -e "
    "trace=fsync,fdatasync,openat,io_uring_enter";

// What one new tree is on each engine (trees_workload.h).
std::string_view per_table_note(std::string_view engine) {
  if (is_ordo_engine(engine)) return "create_tree inside the txn that puts the key: one commit";
  if (engine == "lmdb" || engine == "lmdb-append") {
    return "mdb_dbi_open(MDB_CREATE) in its own durable txn (a commit), then the put's txn";
  }
  if (engine == "rocksdb") {
    return "CreateColumnFamily (a synced MANIFEST record, a new OPTIONS file; a memtable and "
           "later SST files per family), then the put's synced WriteBatch";
  }
  if (engine == "leveldb") return "nothing (a key prefix), then the put's synced WriteBatch";
  if (engine == "sqlite") {
    return "CREATE TABLE ... WITHOUT ROWID in its own durable transaction, then the put's "
           "transaction";
  }
  if (engine == "wiredtiger" || engine == "wiredtiger-equal-mem") {
    return "WT_SESSION::create (a new file NAME.wt and the directory synced, the metadata's log "
           "record synced), then the put's synced transaction";
  }
  return "?";
}

std::string window_label(const TreesCheckpoint& c) {
  return fmt::format("{}-{}", c.from + 1, c.at);
}

}  // namespace

void print_trees_text(const TreesConfig& config, const TreesRun& run, bool kept) {
  const bool ordo = is_ordo_engine(run.engine);
  fmt::print("trees on {}: {} named trees; per tree: {}; names in scattered order; {}\n",
             run.engine, config.trees, per_table_note(run.engine),
             !config.commits.sync ? "NON-DURABLE (--no-sync)"
             : ordo ? fmt::format("durable {}", protocol_name(config.commits.protocol))
                    : "durable (the engine's durable setting)");
  fmt::print(
      "create latency in microseconds, begin_write (a peer: open_table) to end of commit: "
      "\"window\" = every create after the previous checkpoint up to T; \"last {}\" = the {} "
      "creates ending at T\n\n",
      config.tail, config.tail);
  if (config.commits.sync && config.probe_every > 0) {
    fmt::print(
        "sync floor: one 4 KiB pwrite + fdatasync on a scratch file beside the database after "
        "every {} creates, the machine's own sync latency in the same window{}; \"p50/floor\" = "
        "window p50 / floor p50\n\n",
        config.probe_every,
        ordo ? fmt::format(" (an ordo commit makes {})",
                           config.commits.expected_syncs_per_commit() == 1 ? "1 sync" : "2 syncs")
             : std::string());
  }
  const bool probed = config.commits.sync && config.probe_every > 0;
  fmt::print("{:>8} {:>14} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10} {:>13}", "T", "window", "n", "p50",
             "p99", "max", "last p50", "last p99", "pages/commit");
  fmt::print("{}\n", probed ? fmt::format(" {:>11} {:>10}", "floor p50", "p50/floor") : "");
  for (const TreesCheckpoint& c : run.checkpoints) {
    fmt::print("{:>8} {:>14} {:>7} {:>9.0f} {:>9.0f} {:>9.0f} {:>10.0f} {:>10.0f} {:>13.1f}", c.at,
               window_label(c), c.window.count, c.window.p50_us, c.window.p99_us, c.window.max_us,
               c.tail.p50_us, c.tail.p99_us, c.pages_written_per_commit);
    const double over_floor = c.floor.p50_us > 0 ? c.window.p50_us / c.floor.p50_us : 0.0;
    fmt::print("{}\n",
               probed ? fmt::format(" {:>11.0f} {:>10.2f}", c.floor.p50_us, over_floor) : "");
  }
  if (run.checkpoints.size() >= 2) {
    fmt::print("\np50 at {} / p50 at {} (windows): {:.3f}x\n", run.checkpoints.back().at,
               run.checkpoints.front().at, run.p50_ratio());
  }
  fmt::print("{} trees created in one txn: {:.0f} us ({:.1f} us per tree), {} pages written\n",
             run.batch_trees, run.batch_txn_us,
             run.batch_trees > 0 ? run.batch_txn_us / static_cast<double>(run.batch_trees) : 0.0,
             run.batch_pages_written);
  fmt::print("{} one-tree txns in {:.1f} s\n\n", config.trees, run.seconds);
  fmt::print(
      "directory entries: {} before open, {} once open, {} at the end; files created after "
      "open: {}\n",
      run.dir_entries_before_open, run.dir_entries_after_open, run.dir_entries_at_end,
      run.files_created_after_open.size());
  for (const std::string& name : run.files_created_after_open) fmt::print("  new: {}\n", name);
  if (!is_ordo_engine(run.engine)) {
    fmt::print("trees read back {} (a peer cannot list its tables through KvEngine)\n",
               run.trees_checked);
    if (kept) fmt::print("\nkept {}\n", run.path);
    return;
  }
  fmt::print(
      "commits {}, syncs after open {} ({:.3f} per commit; {} expects {}), file growths {}, io "
      "backend {}\n",
      run.stats.commits, run.syncs_after_open(), run.syncs_per_commit(),
      protocol_name(config.commits.protocol), config.commits.expected_syncs_per_commit(),
      run.stats.file_growths, run.info.io_backend);
  fmt::print("{}\n", kDirectorySyncNote);
  fmt::print("trees listed at the end {}, read back {}\n", run.trees_listed, run.trees_checked);
  if (kept) fmt::print("\nkept {}\n", run.path);
}

std::string trees_json(const TreesConfig& config, const TreesRun& run, bool kept) {
  json j;
  j["workload"] = "trees";
  j["engine"] = run.engine;
  json figures = json::object();
  for (const TreesCheckpoint& c : run.checkpoints) {
    figures["p50_us_" + std::to_string(c.at)] = c.window.p50_us;
    figures["p99_us_" + std::to_string(c.at)] = c.window.p99_us;
  }
  figures["batch_us"] = run.batch_txn_us;
  figures["files_created"] = run.files_created_after_open.size();
  j["figures"] = figures;
  j["per_new_table"] = per_table_note(run.engine);
  j["trees"] = config.trees;
  j["batch"] = config.batch;
  j["tail"] = config.tail;
  j["durable"] = config.commits.sync;
  if (is_ordo_engine(run.engine)) {
    j["commit_protocol"] = protocol_name(config.commits.protocol);
    j["expected_syncs_per_commit"] = config.commits.expected_syncs_per_commit();
  }
  j["kept"] = kept;
  j["path"] = run.path;
  j["seconds"] = run.seconds;
  j["checkpoints"] = json::array();
  for (const TreesCheckpoint& c : run.checkpoints) {
    j["checkpoints"].push_back({{"at", c.at},
                                {"from", c.from},
                                {"count", c.window.count},
                                {"p50_us", c.window.p50_us},
                                {"p99_us", c.window.p99_us},
                                {"max_us", c.window.max_us},
                                {"tail_count", c.tail.count},
                                {"tail_p50_us", c.tail.p50_us},
                                {"tail_p99_us", c.tail.p99_us},
                                {"pages_written_per_commit", c.pages_written_per_commit},
                                {"floor_count", c.floor.count},
                                {"floor_p50_us", c.floor.p50_us},
                                {"floor_p99_us", c.floor.p99_us}});
  }
  j["p50_ratio"] = run.p50_ratio();
  j["probe_every"] = config.commits.sync ? config.probe_every : 0;
  j["batch_trees"] = run.batch_trees;
  j["batch_txn_us"] = run.batch_txn_us;
  j["batch_pages_written"] = run.batch_pages_written;
  j["directory_entries_before_open"] = run.dir_entries_before_open;
  j["directory_entries_after_open"] = run.dir_entries_after_open;
  j["directory_entries_at_end"] = run.dir_entries_at_end;
  j["files_created_after_open"] = run.files_created_after_open.size();
  j["new_files"] = run.files_created_after_open;
  j["trees_checked"] = run.trees_checked;
  if (!is_ordo_engine(run.engine)) return j.dump(2, ' ', false, json::error_handler_t::replace);
  j["commits"] = run.stats.commits;
  j["syncs_after_open"] = run.syncs_after_open();
  j["syncs_per_commit"] = run.syncs_per_commit();
  j["directory_syncs_note"] = kDirectorySyncNote;
  j["pages_written"] = run.stats.pages_written;
  j["file_growths"] = run.stats.file_growths;
  j["file_bytes"] = run.info.file_bytes;
  j["trees_listed"] = run.trees_listed;
  j["page_size_bytes"] = run.info.page_size_bytes;
  j["io_backend"] = run.info.io_backend;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace ordo::bench
