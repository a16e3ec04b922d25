// The engines ordo-bench knows, which of them this build has, and opening
// one by name.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kv_engine.h"

namespace ordo::bench {

// Every engine name --engine accepts, whether built or not: ordo, lmdb,
// lmdb-append, rocksdb, leveldb, sqlite, wiredtiger, wiredtiger-equal-mem
// (WiredTiger with a cache of ordo's memory budget), and ordo's variants
// ordo-uring (IoBackend::kUring) and ordo-verify (verify_checksums).
const std::vector<std::string>& known_engines();

// Whether `name` is ordo or one of its variants (one file, not a directory).
inline bool is_ordo_engine(std::string_view name) {
  return name == "ordo" || name.starts_with("ordo-");
}

// The engines compiled into this build (ordo always; a peer when CMake found
// its package).
std::vector<std::string> built_engines();

bool engine_built(std::string_view name);

// Why `name` is not available: the Debian package CMake did not find.
std::string engine_missing_reason(std::string_view name);

// Opens the store of engine `name` at `path`, creating it when missing.
// ordo keeps its store in the file `path`; the peers in the directory `path`
// (created when missing). InvalidArgument for an unknown or unbuilt engine;
// otherwise what the engine reports.
Result<std::unique_ptr<KvEngine>> open_engine(std::string_view name, const std::string& path,
                                              const KvOptions& options);

// For the adapters: creates the directory `path` unless it exists. IOError
// when mkdir fails otherwise.
Status make_store_directory(const std::string& path);

// The adapters' own openers (one per file, kv_<engine>.cc), same contract.
// `variant`: "ordo", "ordo-uring" or "ordo-verify" (kv_ordo.cc).
Result<std::unique_ptr<KvEngine>> open_ordo_kv(const std::string& path, const KvOptions& options,
                                               std::string_view variant);
Result<std::unique_ptr<KvEngine>> open_lmdb_kv(const std::string& path, const KvOptions& options,
                                               bool append);
Result<std::unique_ptr<KvEngine>> open_rocksdb_kv(const std::string& path,
                                                  const KvOptions& options);
Result<std::unique_ptr<KvEngine>> open_leveldb_kv(const std::string& path,
                                                  const KvOptions& options);
Result<std::unique_ptr<KvEngine>> open_sqlite_kv(const std::string& path, const KvOptions& options);
// `equal_mem`: cache_size = options.ordo_txn_budget_bytes ("wiredtiger-equal-mem");
// otherwise WiredTiger's default cache ("wiredtiger").
Result<std::unique_ptr<KvEngine>> open_wiredtiger_kv(const std::string& path,
                                                     const KvOptions& options, bool equal_mem);

}  // namespace ordo::bench
