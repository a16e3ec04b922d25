// The churn workload: load, rounds of updates, figures after each.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <optional>

#include "churn_workload.h"

namespace ordo::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Values read back by a check: about this many, spread over the key range.
constexpr uint64_t kCheckSamples = 1000;

std::array<char, 8> churn_key(uint64_t i) {
  std::array<char, 8> key;
  for (size_t b = 0; b < key.size(); ++b) key[b] = static_cast<char>(i >> (8 * (7 - b)));
  return key;
}

// Key i's value in round r (0: the load): the key, the round, then a
// filler that differs by round, so every update really changes the value.
std::array<char, kChurnValueBytes> churn_value(uint64_t i, uint64_t round) {
  std::array<char, kChurnValueBytes> value;
  const std::array<char, 8> key = churn_key(i);
  const std::array<char, 8> r = churn_key(round);
  std::memcpy(value.data(), key.data(), key.size());
  std::memcpy(value.data() + 8, r.data(), r.size());
  for (size_t b = 16; b < value.size(); ++b) value[b] = static_cast<char>('a' + (round + b) % 26);
  return value;
}

ByteView view(const auto& bytes) { return ByteView(bytes.data(), bytes.size()); }

// Keys [from, to) get their round-`round` value, in one write txn.
Status write_range(Database& db, uint64_t from, uint64_t to, uint64_t round) {
  ORDO_ASSIGN_OR_RETURN(WriteTxn txn, db.begin_write());
  const Tree tree = txn.default_tree();
  for (uint64_t i = from; i < to; ++i) {
    ORDO_RETURN_IF_ERROR(txn.put(tree, view(churn_key(i)), view(churn_value(i, round))));
  }
  return txn.commit();
}

Status check_key(Txn& txn, uint64_t i, uint64_t round) {
  Result<ByteView> got = txn.get(txn.default_tree(), view(churn_key(i)));
  if (!got.is_ok())
    return Status::corruption(fmt::format("key {}: {}", i, got.status().to_string()));
  const auto want = churn_value(i, round);
  if (got->size() != want.size() || std::memcmp(got->data(), want.data(), want.size()) != 0) {
    return Status::corruption(fmt::format(
        "key {} does not hold its round-{} value (snapshot of txn {})", i, round, txn.txn_id()));
  }
  return Status::ok();
}

// Every key holds its round-`round` value in `txn`'s view: checked on a
// sample of keys and the last one. Returns the number of keys read.
Result<uint64_t> check_round(Txn& txn, const ChurnConfig& config, uint64_t round) {
  const uint64_t step = std::max<uint64_t>(1, config.keys / kCheckSamples);
  uint64_t checked = 0;
  for (uint64_t i = 0; i < config.keys; i += step, ++checked) {
    ORDO_RETURN_IF_ERROR(check_key(txn, i, round));
  }
  if ((config.keys - 1) % step != 0) {
    ORDO_RETURN_IF_ERROR(check_key(txn, config.keys - 1, round));
    ++checked;
  }
  return checked;
}

Result<ChurnRow> measure(Database& db, uint64_t round, bool reader_held, double seconds,
                         uint64_t reused_before) {
  ChurnRow row;
  row.round = round;
  row.reader_held = reader_held;
  row.seconds = seconds;
  const DatabaseInfo info = db.info();
  row.file_bytes = info.file_bytes;
  row.used_bytes = info.current.page_high_water * info.page_size_bytes;
  {
    ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db.begin_read());
    ORDO_ASSIGN_OR_RETURN(const FreeSpace free, txn.free_space());
    row.free_pages = free.free_pages;
    row.pending_free_pages = free.pending_pages;
  }
  row.pages_reused = db.stats().pages_reused;
  row.pages_reused_in_round = row.pages_reused - reused_before;
  return row;
}

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

Result<ChurnRun> run(Database& db, const ChurnConfig& config, bool with_reader) {
  ChurnRun result;
  result.with_reader = with_reader;
  result.syncs_at_open = db.stats().syncs;

  SteadyClock::time_point start = SteadyClock::now();
  ORDO_RETURN_IF_ERROR(write_range(db, 0, config.keys, 0));
  ORDO_ASSIGN_OR_RETURN(ChurnRow loaded, measure(db, 0, false, seconds_since(start), 0));
  result.rows.push_back(loaded);

  std::optional<ReadTxn> reader;
  for (uint64_t round = 1; round <= config.rounds; ++round) {
    if (with_reader && round == config.reader_first) {
      ORDO_ASSIGN_OR_RETURN(ReadTxn txn, db.begin_read());
      reader.emplace(std::move(txn));
    }
    const uint64_t reused_before = db.stats().pages_reused;
    start = SteadyClock::now();
    for (uint64_t from = 0; from < config.keys; from += config.txn_size) {
      ORDO_RETURN_IF_ERROR(
          write_range(db, from, std::min(config.keys, from + config.txn_size), round));
    }
    ORDO_ASSIGN_OR_RETURN(
        ChurnRow row, measure(db, round, reader.has_value(), seconds_since(start), reused_before));
    result.rows.push_back(row);
    if (reader && round == config.reader_last) {
      // The snapshot still shows the round before the reader began.
      ORDO_ASSIGN_OR_RETURN(result.reader_keys_checked,
                            check_round(*reader, config, config.reader_first - 1));
      reader.reset();
    }
  }
  ORDO_ASSIGN_OR_RETURN(ReadTxn last, db.begin_read());
  ORDO_RETURN_IF_ERROR(check_round(last, config, config.rounds).status());
  result.stats = db.stats();
  result.info = db.info();
  return result;
}

}  // namespace

double ChurnRun::used_ratio() const {
  if (rows.empty() || rows.front().used_bytes == 0) return 0;
  return static_cast<double>(rows.back().used_bytes) / static_cast<double>(rows.front().used_bytes);
}

double ChurnRun::file_ratio() const {
  if (rows.empty() || rows.front().file_bytes == 0) return 0;
  return static_cast<double>(rows.back().file_bytes) / static_cast<double>(rows.front().file_bytes);
}

std::string churn_run_label(const ChurnRun& run) {
  return run.with_reader ? "reader held" : "no reader";
}

Result<ChurnRun> run_churn(const std::string& path, const ChurnConfig& config, bool with_reader) {
  Options options;
  config.commits.apply(options);
  ORDO_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::open(path, options));
  ORDO_ASSIGN_OR_RETURN(ChurnRun result, run(*db, config, with_reader));
  result.path = path;
  return result;
}

}  // namespace ordo::bench
