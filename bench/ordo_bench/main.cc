// ordo-bench: the benchmark driver of docs/BENCHMARKS.md.
//
//   ordo-bench nodes [--engine E] [--nodes N] [--fanout F] [--commit-every C | --one-txn]
//                    [--txn-budget-mib M] [--ids seq|random|edges] [--seed S] [--window W]
//                    [--path DIR] [--keep] [--json]
//   ordo-bench commit [--engine E] [--preload N1,N2,...] [--commits K] [--probe-every P]
//                     [--no-sync] [--threads T1,T2,...] [--thread-commits C]
//                     [--floor-samples F] [--seed S] [--path DIR] [--keep] [--json]
//   ordo-bench reads [--engine E] [--keys N] [--key-bytes 8|16] [--lookups L | --seconds T]
//                    [--scans S] [--scan-length K] [--seed S] [--path DIR] [--keep] [--json]
//   ordo-bench linkbench [--engine E] [--sizes N1,N2,...] [--ops K|small] [--seed S]
//                        [--path DIR] [--keep] [--json]
//   ordo-bench churn [--keys K] [--rounds R] [--txn-size T] [--reader-first A]
//                    [--reader-last B] [--no-sync] [--commit-protocol log|one-sync|two-sync]
//                    [--path DIR] [--keep] [--json]
//   ordo-bench trees [--engine E] [--trees T] [--batch B] [--tail N] [--probe-every P]
//                    [--no-sync] [--commit-protocol log|one-sync|two-sync] [--path DIR] [--keep]
//                    [--json]
//   ordo-bench redb [--engine E] [--entries N] [--individual-writes I] [--batch-writes B]
//                   [--batch-size M] [--reads R] [--range-reads S] [--range-length L]
//                   [--iterations K] [--read-threads T1,T2,...] [--seed S] [--path DIR]
//                   [--keep] [--json]
//   ordo-bench recovery [--preload P] [--value-bytes V] [--rows-per-commit C] [--log-bytes L]
//                       [--fill-pct F] [--max-commits K] [--opens R] [--path DIR] [--keep]
//                       [--json]
//                    Open times after a crash with a full log (ordo only,
//                    recovery_workload.h): clean, after a process crash, after a
//                    machine crash (every record replayed).
//   ordo-bench compare --workload W[,W...] [--engines ordo,lmdb,...] [--rounds R]
//                    [--out DIR] [--interval minmax|bootstrap] [--seed S] [-- child args...]
//                    W: nodes (= nodes-seq,nodes-random), nodes-seq, nodes-random,
//                    nodes-edges, commit, reads, trees, linkbench, redb. Each run is a
//                    fresh `ordo-bench W --engine E --json --path <fresh dir> [child args]`,
//                    in ABBA rounds per peer plus an
//                    A/A control of ordo against itself; round 0 dropped. Writes
//                    DIR/compare.csv, DIR/compare.json, DIR/runs/ (each child's JSON) and
//                    PNG plots through gnuplot (compare_command.h).
//   ordo-bench replicated-run [--engine ordo|etcd] [--seconds S] [--warmup W]
//                    [--clients 1,16] [--no-failover] [--tls] [--etcd PATH]
//                    [--ordo-node PATH] [--path DIR] [--keep] [--json]
//                    A fresh 3-node cluster on 127.0.0.1 (ordo-node or etcd), durable
//                    puts of 16-byte keys and 100-byte values with 1 then 16 clients,
//                    then the leader killed: puts/s, p50/p99 us, failover ms
//                    (bench/ordo_bench/replicated/replicated_workload.h).
//   ordo-bench replicated [--rounds R] [--seconds S] [--warmup W] [--out DIR] [--seed S]
//                    [--tls] [--target FIGURE>=BOUND|FIGURE<=BOUND ...]
//                    The study of ordo against etcd on compare's machinery: ABBA rounds of
//                    replicated-run, A/A control ordo/ordo, bootstrap 95% intervals of
//                    the ratios ordo/etcd and the verdicts of the targets given
//                    (DIR/targets.csv).
//                    Each run ~2 x (S + W) + ~3 s; R rounds = 4 R runs.
//   ordo-bench python [--rounds R] [--rows N] [--groups calls,ingest,...] [--out DIR]
//                    [--seed S] [--script PATH] [--module-path DIR]
//                    [--target FIGURE>=BOUND|FIGURE<=BOUND ...]
//                    The study of ordo's Python package against py-lmdb on compare's
//                    machinery; the child is bench/python/ordo_py_bench.py
//                    (python_command.h).
//
// --engine E: ordo (default), lmdb, lmdb-append (MDB_APPEND puts; a key that
// cannot append is put plainly and counted), rocksdb, leveldb, sqlite,
// wiredtiger (its default cache), wiredtiger-equal-mem (a cache of ordo's
// txn memory budget, KvOptions::ordo_txn_budget_bytes); each
// peer with its durable settings (kv_<engine>.cc) and only when CMake found
// its package (else exit 2 naming the package). churn runs on ordo only;
// trees on a peer makes each tree a table with KvEngine::open_table, then
// puts its key in a txn of its own (trees_workload.h says what each peer
// does per new table); --commit-protocol is ordo's.
// With --json each run prints one JSON document with "workload", "engine"
// and "figures" (a flat name -> number object; see *_report.h/*_command.h).
//
// Default sizes and their cost on a 2-core VM whose fdatasync takes ~1-4 ms:
//   nodes             1,000,000 nodes, a durable commit per 10,000, seq then
//                     random IDs: seconds to a minute per ID kind and engine
//                     (random IDs on LMDB and SQLite are the slow ones).
//   nodes --one-txn   as nodes, one commit; the headline figure is --nodes 10000000
//                     (seq ids: ~25 s; random ids: ~2 min, the txn spills ~27 GB).
//   commit            preloads 10,000, 100,000, 1,000,000 rows, 1,000 one-row
//                     durable commits at each, then 100 per thread on 1 and on 8
//                     threads at once, then 2 x 100 floor probes: 3,900 syncing
//                     commits, ~20-50 s.
//   reads             1,000,000 rows, 1,000,000 lookups per thread with 1 and
//                     2 threads, on one snapshot per thread and then with a
//                     read txn per lookup, 1,000 scans of 1,000 keys: seconds (ordo, LMDB)
//                     to about a minute (RocksDB, SQLite).
//   linkbench         a fresh store per N = 10,000, 100,000, 1,000,000: N nodes and
//                     ~5N links preloaded (10,000 puts per commit), then 1,000 of
//                     each of the 6 ops: 4,000 durable txns per N, 12,000 in all;
//                     measured 18-38 s per engine.
//   redb              1,000,000 pairs bulk-loaded, 1,000 durable one-pair commits,
//                     100 txns of 1,000, reads of all 1,101,000 pairs (3 runs, then on
//                     1, 2, 4 threads), 550,500 range reads of 10 (3 runs), removal of
//                     half in one txn, compaction.
//   churn             100,000 keys, 20 rounds of 100 txns, twice: 4,002 durable
//                     commits, ~45 s.
//   trees             100,000 durable one-tree txns: ~11 min on ordo (measured
//                     11m20s); --no-sync runs the same in seconds, not durable.
//                     Peers at --trees 10000: leveldb 5 s, lmdb 25 s, sqlite 90 s;
//                     rocksdb writes a new OPTIONS file per column family, each
//                     create slower than the last: --trees 1000 took 152 s, so
//                     100,000 is out of reach there.
//
//   compare           runs x (seconds of one run); e.g. --workload nodes-seq --rounds 5 with
//                     no peer: 10 runs of 1,000,000 nodes, ~1 min.
//
// Exit codes: 0 ok, 1 a run failed (engine error or failed verification; the
// reason on stderr), 2 bad command line or an engine not built in, 3 compare:
// the A/A control failed ("machine too noisy: rerun").
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "churn_command.h"
#include "commit_command.h"
#include "commit_settings.h"
#include "compare_command.h"
#include "kv_registry.h"
#include "linkbench_command.h"
#include "nodes_command.h"
#include "python_command.h"
#include "reads_command.h"
#include "recovery_command.h"
#include "redb_command.h"
#include "replicated_command.h"
#include "trees_command.h"

namespace {

constexpr int kExitUsage = 2;

// --path, --keep and --json, the same for every subcommand.
void add_output_options(CLI::App& sub, std::string& dir, bool& keep, bool& json) {
  sub.add_option("--path", dir,
                 "Directory for the database files (default: a fresh temporary one)");
  sub.add_flag("--keep", keep, "Keep the database files and print their paths");
  sub.add_flag("--json", json, "Print one JSON document");
}

// --engine: any known name; whether it is built is checked after parsing
// (engine_usable), so that a missing peer gets its own message.
void add_engine_option(CLI::App& sub, std::string& engine) {
  sub.add_option("--engine", engine,
                 fmt::format("Engine (default ordo; built here: {})",
                             fmt::join(ordo::bench::built_engines(), ", ")))
      ->check(CLI::IsMember(ordo::bench::known_engines()));
}

// False (after saying why on stderr) when `engine` is not built in.
bool engine_usable(const std::string& engine) {
  if (ordo::bench::engine_built(engine)) return true;
  std::fprintf(stderr, "ordo-bench: %s\n", ordo::bench::engine_missing_reason(engine).c_str());
  return false;
}

// --no-sync and --commit-protocol, for the workloads of many small commits.
struct CommitArgs {
  bool no_sync = false;
  std::string protocol;  // empty: the engine's default

  ordo::bench::CommitSettings settings() const {
    ordo::bench::CommitSettings s;
    s.sync = !no_sync;
    if (const auto p = ordo::bench::parse_protocol(protocol)) s.protocol = *p;
    return s;
  }
};

void add_commit_options(CLI::App& sub, CommitArgs& args) {
  sub.add_flag("--no-sync", args.no_sync,
               "Options::sync_commits=false: atomic but not durable commits (a shortcut; "
               "durable is the default)");
  sub.add_option("--commit-protocol", args.protocol,
                 fmt::format("log, one-sync or two-sync (default: the engine's, {})",
                             ordo::bench::protocol_name(ordo::Options{}.commit_protocol)))
      ->check(CLI::IsMember({"log", "one-sync", "two-sync"}));
}

struct NodesArgs {
  ordo::bench::NodesCommand command;
  std::string ids;
  std::string engine = "ordo";
  uint64_t budget_mib = 0;  // 0: the engine's default budget
};

void add_nodes_options(CLI::App& nodes, NodesArgs& args) {
  ordo::bench::NodesConfig& config = args.command.config;
  nodes.add_option("--nodes", config.nodes, "Nodes to create")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  nodes.add_option("--fanout", config.fanout, "Children per parent")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI::Option* every =
      nodes.add_option("--commit-every", config.commit_every, "Nodes per durable commit")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
  nodes
      .add_flag("--one-txn", config.one_txn,
                "All nodes in one write txn, one durable commit at the end; reports peak "
                "RssAnon/RssFile per phase")
      ->excludes(every);
  nodes
      .add_option("--txn-budget-mib", args.budget_mib,
                  "Options::txn_memory_budget_bytes in MiB (default: the engine's, 256)")
      ->check(CLI::PositiveNumber);
  nodes.add_option("--window", config.window_nodes, "Nodes per point of the speed curve")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  nodes
      .add_option("--ids", args.ids,
                  "ID kind: seq, random, or edges (seq IDs plus 1-8 edges per node to random "
                  "earlier nodes in tree \"edges\"; default: seq then random)")
      ->check(CLI::IsMember({"seq", "random", "edges"}));
  nodes.add_option("--seed", config.seed, "Seed of the random IDs and of the edges")
      ->capture_default_str();
  add_engine_option(nodes, config.engine);
  add_output_options(nodes, args.command.dir, args.command.keep, args.command.json);
}

void add_churn_options(CLI::App& churn, ordo::bench::ChurnCommand& command, CommitArgs& commit) {
  ordo::bench::ChurnConfig& config = command.config;
  churn.add_option("--keys", config.keys, "Keys loaded (8-byte big-endian, 100-byte values)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  churn.add_option("--rounds", config.rounds, "Rounds; each updates every key once")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  churn.add_option("--txn-size", config.txn_size, "Updates per txn")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  churn
      .add_option("--reader-first", config.reader_first,
                  "Second run: a reader begins before this round")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  churn
      .add_option("--reader-last", config.reader_last,
                  "Second run: the reader ends after this round")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  add_commit_options(churn, commit);
  add_output_options(churn, command.dir, command.keep, command.json);
}

void add_trees_options(CLI::App& trees, ordo::bench::TreesCommand& command, CommitArgs& commit) {
  ordo::bench::TreesConfig& config = command.config;
  add_engine_option(trees, config.engine);
  trees.add_option("--trees", config.trees, "Trees to create, one txn each")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  trees.add_option("--batch", config.batch, "Trees then created in one txn")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  trees.add_option("--tail", config.tail, "Creates in the \"last N\" window of each checkpoint")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  trees
      .add_option("--probe-every", config.probe_every,
                  "One 4 KiB fdatasync probe (the sync floor) after every N creates; 0: none")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_commit_options(trees, commit);
  add_output_options(trees, command.dir, command.keep, command.json);
}

struct CompareArgs {
  ordo::bench::CompareCommand command;
  std::string interval = "minmax";
};

void add_compare_options(CLI::App& compare, CompareArgs& args) {
  ordo::bench::CompareCommand& c = args.command;
  compare
      .add_option("--workload", c.workloads,
                  "nodes (= nodes-seq,nodes-random), nodes-seq, nodes-random, nodes-edges, "
                  "commit, reads, trees, linkbench, redb; comma-separated for several")
      ->delimiter(',')
      ->required();
  compare
      .add_option("--engines", c.engines,
                  "Engines, comma-separated (ordo is always in; default: every engine the "
                  "workload's --engine accepts)")
      ->delimiter(',');
  compare.add_option("--rounds", c.rounds, "Rounds per pair, round 0 included and dropped")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  compare.add_option("--out", c.out, "Directory for compare.csv, compare.json, plots, runs/")
      ->capture_default_str();
  compare
      .add_option("--interval", args.interval,
                  "minmax (of the kept rounds) or bootstrap (95% of the median)")
      ->capture_default_str()
      ->check(CLI::IsMember({"minmax", "bootstrap"}));
  compare.add_option("--seed", c.interval.seed, "Seed of the bootstrap resampling")
      ->capture_default_str();
  compare
      .add_option("--baseline", c.baseline,
                  "Another build's ordo-bench: its ordo is the peer \"baseline\" (a build "
                  "before a change against this one; with --engines baseline, the only peer)")
      ->check(CLI::ExistingFile);
  // For tests: the program run as the child instead of this one.
  compare.add_option("--runner", c.runner, "Child binary (testing)")->group("");
  compare.add_option("child-args", c.extra_args, "After --: arguments passed to every run");
}

void add_commit_options(CLI::App& commit, ordo::bench::CommitCommand& command) {
  ordo::bench::CommitConfig& config = command.config;
  add_engine_option(commit, config.engine);
  commit
      .add_option("--preload", config.preloads,
                  "Rows preloaded before each round of timed commits, a comma-separated list")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  commit.add_option("--commits", config.commits, "One-row durable commits timed per preload size")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  commit
      .add_option("--probe-every", config.probe_every,
                  "One 4 KiB fdatasync probe (the floor) after every N commits; 0: none")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  commit.add_option("--seed", config.seed, "Seed of the rows picked")->capture_default_str();
  commit.add_flag(
      "--no-sync", [&config](int64_t) { config.sync = false; },
      "Commits not durable (ordo sync_commits=false, LMDB MDB_NOSYNC, RocksDB and "
      "LevelDB sync=false, SQLite synchronous=OFF, WiredTiger transaction_sync "
      "method=none); commit figures named nosync_*");
  commit
      .add_option("--threads", config.threads,
                  "Concurrent-commit arms at the largest preload: T threads committing at once, "
                  "a comma-separated list (0: none)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(0u, 256u));
  commit
      .add_option("--thread-commits", config.thread_commits,
                  "One-row commits per thread in each concurrent arm")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  commit
      .add_option("--floor-samples", config.floor_samples,
                  "4 KiB pwrite + fdatasync probes of each kind (over written blocks, into "
                  "fallocated unwritten ones) after the commits; 0: none")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{0}, uint64_t{1'000'000}));
  add_output_options(commit, command.output.dir, command.output.keep, command.output.json);
}

void add_reads_options(CLI::App& reads, ordo::bench::ReadsCommand& command) {
  ordo::bench::ReadsConfig& config = command.config;
  add_engine_option(reads, config.engine);
  reads.add_option("--keys", config.keys, "Rows loaded (64-byte values)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  reads.add_option("--key-bytes", config.key_bytes, "Key length: 8 or 16 bytes")
      ->capture_default_str()
      ->check(CLI::IsMember({8, 16}));
  CLI::Option* lookups = reads.add_option("--lookups", config.lookups, "Point lookups per thread")
                             ->capture_default_str()
                             ->check(CLI::PositiveNumber);
  reads
      .add_option("--seconds", config.seconds,
                  "Run each lookup phase this long instead of a fixed count")
      ->check(CLI::PositiveNumber)
      ->excludes(lookups);
  reads.add_option("--scans", config.scans, "Range scans")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  reads.add_option("--scan-length", config.scan_length, "Consecutive keys per scan")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  reads.add_option("--seed", config.seed, "Seed of the keys looked up")->capture_default_str();
  add_output_options(reads, command.output.dir, command.output.keep, command.output.json);
}

void add_redb_options(CLI::App& redb, ordo::bench::RedbCommand& command) {
  ordo::bench::RedbConfig& config = command.config;
  add_engine_option(redb, config.engine);
  redb.add_option("--entries", config.entries, "Pairs bulk-loaded in one durable txn")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  redb.add_option("--individual-writes", config.individual_writes,
                  "Pairs then written one per durable commit")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  redb.add_option("--batch-writes", config.batch_writes, "Durable txns of --batch-size pairs")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  redb.add_option("--batch-size", config.batch_size, "Pairs per batch txn")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  redb.add_option("--reads", config.reads,
                  "Random reads per run (default 0: every pair written, each once)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  redb.add_option("--range-reads", config.range_reads,
                  "Range reads per run (default 0: half the pairs written)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  redb.add_option("--range-length", config.range_length, "Entries per range read")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  redb.add_option("--iterations", config.iterations,
                  "Runs of the one-thread read phases; the median is reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  redb.add_option("--read-threads", config.read_threads,
                  "Thread counts of the threaded reads of every pair, a comma-separated list")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  redb.add_option("--seed", config.seed, "Seed of the key-value pairs")->capture_default_str();
  add_output_options(redb, command.output.dir, command.output.keep, command.output.json);
}

// --ops of linkbench: a count, or "small".
constexpr uint64_t kSmallLinkbenchOps = 50;

void add_linkbench_options(CLI::App& linkbench, ordo::bench::LinkbenchCommand& command,
                           std::string& ops) {
  ordo::bench::LinkbenchConfig& config = command.config;
  add_engine_option(linkbench, config.engine);
  linkbench
      .add_option("--sizes", config.sizes,
                  "Nodes preloaded (each with about 5 links), a fresh store per size, a "
                  "comma-separated list")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  linkbench
      .add_option("--ops", ops,
                  fmt::format("Timed operations of each kind per size: a count, or small ({})",
                              kSmallLinkbenchOps))
      ->default_str(std::to_string(config.ops_per_type))
      ->check([](const std::string& v) -> std::string {
        const bool count = !v.empty() && v.size() < 19 &&
                           v.find_first_not_of("0123456789") == std::string::npos &&
                           v.find_first_not_of('0') != std::string::npos;
        return v == "small" || count ? "" : "must be a positive count or small, not " + v;
      });
  linkbench.add_option("--seed", config.seed, "Seed of the graph and of the operations")
      ->capture_default_str();
  add_output_options(linkbench, command.output.dir, command.output.keep, command.output.json);
}

void add_replicated_run_options(CLI::App& sub, ordo::bench::ReplicatedRunCommand& command) {
  ordo::bench::ReplicatedConfig& config = command.config;
  sub.add_option("--engine", command.engine, "Store: ordo (ordo-node) or etcd")
      ->capture_default_str()
      ->check(CLI::IsMember({"ordo", "etcd"}));
  sub.add_option("--seconds", config.seconds, "Measured seconds per client count")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--warmup", config.warmup_seconds, "Seconds before each measured window")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--clients", config.clients, "Client counts, comma-separated (1-99)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1, 99));
  sub.add_flag(
      "--no-failover", [&config](int64_t) { config.failover = false; },
      "Do not kill the leader at the end");
  sub.add_flag("--tls", command.tls,
               "Mutual TLS on the client ports of both engines (and etcd's peer port, ordo's "
               "snapshot port), with throwaway certificates");
  sub.add_option("--etcd", command.etcd_binary, "The etcd binary")->capture_default_str();
  sub.add_option("--ordo-node", command.node_binary, "The ordo-node binary")->capture_default_str();
  add_output_options(sub, command.output.dir, command.output.keep, command.output.json);
}

void add_recovery_options(CLI::App& sub, ordo::bench::RecoveryCommand& command) {
  ordo::bench::RecoveryConfig& config = command.config;
  sub.add_option("--preload", config.preload, "Rows loaded before the checkpoint")
      ->capture_default_str();
  sub.add_option("--value-bytes", config.value_bytes, "Bytes of each value")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--rows-per-commit", config.rows_per_commit, "Rows of each logged txn")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--log-bytes", config.log_bytes, "Options::log_bytes (0: the default)")
      ->capture_default_str();
  sub.add_option("--fill-pct", config.fill_pct, "Stop once the log holds this share of its area")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  sub.add_option("--max-commits", config.max_commits, "Or after this many txns")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--opens", config.opens, "Opens of each image")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  add_output_options(sub, command.dir, command.keep, command.json);
}

void add_python_options(CLI::App& sub, ordo::bench::PythonCommand& command) {
  sub.add_option("--rounds", command.rounds, "Rounds, round 0 included and dropped")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  sub.add_option("--rows", command.rows, "Rows of the ingest and scan groups")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  sub.add_option("--groups", command.groups, "Phase groups")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember(ordo::bench::kPythonGroups));
  sub.add_option("--out", command.out, "Directory for the results")->capture_default_str();
  sub.add_option("--seed", command.seed, "Seed of the bootstrap resampling")->capture_default_str();
  sub.add_option("--script", command.script, "The child script")->capture_default_str();
  sub.add_option("--module-path", command.module_dir,
                 "Directory of the ordo module (default: this build's; empty: an installed one)")
      ->capture_default_str();
  sub.add_option("--target", command.targets,
                 "A target judged on the ratio ordo/lmdb: FIGURE>=BOUND or FIGURE<=BOUND");
}

void add_replicated_options(CLI::App& sub, ordo::bench::ReplicatedCommand& command) {
  sub.add_option("--rounds", command.rounds, "Rounds, round 0 included and dropped")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  sub.add_option("--seconds", command.seconds, "Measured seconds per client count per run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_option("--warmup", command.warmup_seconds, "Seconds before each measured window")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--out", command.out, "Directory for the results")->capture_default_str();
  sub.add_option("--seed", command.seed, "Seed of the bootstrap resampling")->capture_default_str();
  sub.add_flag("--tls", command.tls, "Both engines with mutual TLS (as replicated-run --tls)");
  sub.add_option("--etcd", command.etcd_binary, "The etcd binary (default /usr/bin/etcd)");
  sub.add_option("--ordo-node", command.node_binary, "The ordo-node binary (default: built here)");
  sub.add_option("--target", command.targets,
                 "A target judged on the ratio ordo/etcd: FIGURE>=BOUND or FIGURE<=BOUND "
                 "(repeatable; e.g. puts_per_s_1>=2)");
}

int run(int argc, char** argv) {
  CLI::App app{"ordo benchmark driver (docs/BENCHMARKS.md workloads)", "ordo-bench"};
  app.require_subcommand(1);
  NodesArgs nodes_args;
  CLI::App* nodes = app.add_subcommand("nodes", "Content-repository node creation");
  add_nodes_options(*nodes, nodes_args);
  ordo::bench::ChurnCommand churn_command;
  CommitArgs churn_commit;
  CLI::App* churn = app.add_subcommand(
      "churn", "Updates in small txns, without and with a held reader: file size, free pages");
  add_churn_options(*churn, churn_command, churn_commit);
  ordo::bench::RecoveryCommand recovery_command;
  CLI::App* recovery = app.add_subcommand(
      "recovery", "Open times after a crash with a full log: clean, process crash, replay");
  add_recovery_options(*recovery, recovery_command);
  ordo::bench::TreesCommand trees_command;
  CommitArgs trees_commit;
  CLI::App* trees = app.add_subcommand(
      "trees", "One durable txn per new named tree: latency, files created, syncs");
  add_trees_options(*trees, trees_command, trees_commit);
  CompareArgs compare_args;
  CLI::App* compare = app.add_subcommand(
      "compare", "Interleaved ABBA study of ordo against peers and itself (docs/BENCHMARKS.md)");
  add_compare_options(*compare, compare_args);
  ordo::bench::CommitCommand commit_command;
  CLI::App* commit = app.add_subcommand(
      "commit", "One-row durable commits after preloading N rows, beside the fdatasync floor");
  add_commit_options(*commit, commit_command);
  ordo::bench::ReadsCommand reads_command;
  CLI::App* reads = app.add_subcommand(
      "reads",
      "Random point lookups (1 and 2 threads; on one snapshot, then a read txn per lookup) and "
      "range scans after a load");
  add_reads_options(*reads, reads_command);
  ordo::bench::LinkbenchCommand linkbench_command;
  std::string linkbench_ops;
  CLI::App* linkbench = app.add_subcommand(
      "linkbench", "A graph store's write path: p50/p99/max of six operations at each size N");
  add_linkbench_options(*linkbench, linkbench_command, linkbench_ops);
  ordo::bench::RedbCommand redb_command;
  CLI::App* redb = app.add_subcommand(
      "redb", "redb's benchmark phases: loads, writes, reads, range reads, removals, compaction");
  add_redb_options(*redb, redb_command);
  ordo::bench::ReplicatedRunCommand replicated_run_command;
  CLI::App* replicated_run = app.add_subcommand(
      "replicated-run", "One run: a fresh 3-node ordo-node or etcd cluster, puts, failover");
  add_replicated_run_options(*replicated_run, replicated_run_command);
  ordo::bench::ReplicatedCommand replicated_command;
  CLI::App* replicated = app.add_subcommand(
      "replicated", "Interleaved study of replicated ordo (ordo-node) against etcd");
  add_replicated_options(*replicated, replicated_command);
  ordo::bench::PythonCommand python_command;
  CLI::App* python =
      app.add_subcommand("python", "Interleaved study of ordo's Python package against py-lmdb");
  add_python_options(*python, python_command);
  try {
    app.parse(argc, argv);
    const ordo::bench::ChurnConfig& c = churn_command.config;
    const ordo::bench::ReadsConfig& r = reads_command.config;
    if (reads->parsed() && r.keys < r.scan_length) {
      throw CLI::ValidationError("--keys/--scan-length", "need keys >= scan length (" +
                                                             std::to_string(r.keys) + ", " +
                                                             std::to_string(r.scan_length) + ")");
    }
    if (churn->parsed() && !(c.reader_first <= c.reader_last && c.reader_last <= c.rounds)) {
      throw CLI::ValidationError(
          "--reader-first/--reader-last",
          "need reader-first <= reader-last <= rounds (" + std::to_string(c.reader_first) + ", " +
              std::to_string(c.reader_last) + ", " + std::to_string(c.rounds) + ")");
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (replicated_run->parsed()) {
    return ordo::bench::run_replicated_run_command(replicated_run_command);
  }
  if (python->parsed()) {
    python_command.command.assign(argv, argv + argc);
    return ordo::bench::run_python_command(python_command);
  }
  if (replicated->parsed()) {
    replicated_command.command.assign(argv, argv + argc);
    return ordo::bench::run_replicated_command(replicated_command);
  }
  if (recovery->parsed()) return ordo::bench::run_recovery_command(recovery_command);
  if (churn->parsed()) {
    churn_command.config.commits = churn_commit.settings();
    return ordo::bench::run_churn_command(churn_command);
  }
  if (compare->parsed()) {
    ordo::bench::CompareCommand& c = compare_args.command;
    if (compare_args.interval == "bootstrap") {
      c.interval.method = ordo::bench::IntervalMethod::kBootstrap;
    }
    c.command.assign(argv, argv + argc);
    // Without --engines: every peer built into this binary (the child);
    // ordo's own variants only when named.
    if (c.engines.empty() && c.runner.empty()) {
      c.engines = ordo::bench::built_engines();
      std::erase_if(c.engines, [](const std::string& e) { return e.starts_with("ordo-"); });
    }
    return ordo::bench::run_compare_command(c);
  }
  if (commit->parsed()) {
    std::vector<uint64_t>& preloads = commit_command.config.preloads;
    std::sort(preloads.begin(), preloads.end());
    preloads.erase(std::unique(preloads.begin(), preloads.end()), preloads.end());
    std::vector<unsigned>& threads = commit_command.config.threads;
    std::erase(threads, 0u);
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    if (!engine_usable(commit_command.config.engine)) return kExitUsage;
    return ordo::bench::run_commit_command(commit_command);
  }
  if (redb->parsed()) {
    if (!engine_usable(redb_command.config.engine)) return kExitUsage;
    return ordo::bench::run_redb_command(redb_command);
  }
  if (reads->parsed()) {
    if (!engine_usable(reads_command.config.engine)) return kExitUsage;
    return ordo::bench::run_reads_command(reads_command);
  }
  if (linkbench->parsed()) {
    ordo::bench::LinkbenchConfig& config = linkbench_command.config;
    std::sort(config.sizes.begin(), config.sizes.end());
    config.sizes.erase(std::unique(config.sizes.begin(), config.sizes.end()), config.sizes.end());
    if (linkbench_ops == "small") config.ops_per_type = kSmallLinkbenchOps;
    if (!linkbench_ops.empty() && linkbench_ops != "small") {
      config.ops_per_type = std::stoull(linkbench_ops);
    }
    if (!engine_usable(config.engine)) return kExitUsage;
    return ordo::bench::run_linkbench_command(linkbench_command);
  }
  if (trees->parsed()) {
    trees_command.config.commits = trees_commit.settings();
    if (!engine_usable(trees_command.config.engine)) return kExitUsage;
    return ordo::bench::run_trees_command(trees_command);
  }
  ordo::bench::NodesCommand& command = nodes_args.command;
  if (!engine_usable(command.config.engine)) return kExitUsage;
  if (nodes_args.ids == "seq") command.kinds = {ordo::bench::IdKind::kSeq};
  if (nodes_args.ids == "random") command.kinds = {ordo::bench::IdKind::kRandom};
  if (nodes_args.ids == "edges") command.kinds = {ordo::bench::IdKind::kEdges};
  if (nodes_args.budget_mib != 0) command.config.txn_budget_bytes = nodes_args.budget_mib << 20;
  return ordo::bench::run_nodes_command(command);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Only allocation or output failures get here; the engine reports by Status.
    std::fprintf(stderr, "ordo-bench: %s\n", e.what());
    return 1;
  }
}
