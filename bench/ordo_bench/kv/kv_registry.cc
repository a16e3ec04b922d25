#include "kv_registry.h"

#include <sys/stat.h>

#include <cerrno>

namespace ordo::bench {
namespace {

struct EngineEntry {
  std::string_view name;
  std::string_view package;  // what CMake looks for
  bool built;
};

// ORDO_BENCH_HAVE_<PEER> is defined by bench/CMakeLists.txt when it found the
// peer's package.
#ifdef ORDO_BENCH_HAVE_LMDB
constexpr bool kHaveLmdb = true;
#else
constexpr bool kHaveLmdb = false;
#endif
#ifdef ORDO_BENCH_HAVE_ROCKSDB
constexpr bool kHaveRocksdb = true;
#else
constexpr bool kHaveRocksdb = false;
#endif
#ifdef ORDO_BENCH_HAVE_LEVELDB
constexpr bool kHaveLeveldb = true;
#else
constexpr bool kHaveLeveldb = false;
#endif
#ifdef ORDO_BENCH_HAVE_SQLITE
constexpr bool kHaveSqlite = true;
#else
constexpr bool kHaveSqlite = false;
#endif
#ifdef ORDO_BENCH_HAVE_WIREDTIGER
constexpr bool kHaveWiredtiger = true;
#else
constexpr bool kHaveWiredtiger = false;
#endif

constexpr EngineEntry kEngines[] = {
    {"ordo", "", true},
    {"lmdb", "liblmdb-dev (lmdb.pc)", kHaveLmdb},
    {"lmdb-append", "liblmdb-dev (lmdb.pc)", kHaveLmdb},
    {"rocksdb", "librocksdb-dev (rocksdb.pc or RocksDBConfig.cmake)", kHaveRocksdb},
    {"leveldb", "libleveldb-dev (leveldbConfig.cmake)", kHaveLeveldb},
    {"sqlite", "libsqlite3-dev (sqlite3.pc)", kHaveSqlite},
    {"wiredtiger", "libwiredtiger-dev (wiredtiger.pc)", kHaveWiredtiger},
    {"wiredtiger-equal-mem", "libwiredtiger-dev (wiredtiger.pc)", kHaveWiredtiger},
    {"ordo-uring", "", true},   // ordo with IoBackend::kUring
    {"ordo-verify", "", true},  // ordo with verify_checksums
};

const EngineEntry* find(std::string_view name) {
  for (const EngineEntry& e : kEngines) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& known_engines() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const EngineEntry& e : kEngines) v.emplace_back(e.name);
    return v;
  }();
  return names;
}

std::vector<std::string> built_engines() {
  std::vector<std::string> v;
  for (const EngineEntry& e : kEngines) {
    if (e.built) v.emplace_back(e.name);
  }
  return v;
}

bool engine_built(std::string_view name) {
  const EngineEntry* e = find(name);
  return e != nullptr && e->built;
}

std::string engine_missing_reason(std::string_view name) {
  const EngineEntry* e = find(name);
  if (e == nullptr) return "unknown engine \"" + std::string(name) + "\"";
  if (e->built) return "";
  return "engine \"" + std::string(name) + "\" is not built in: CMake did not find " +
         std::string(e->package) +
         " when configuring, or ORDO_BENCH_PEERS was OFF (install it, "
         "e.g. with tools/dev, and reconfigure)";
}

Status make_store_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::io_error("mkdir " + path, errno);
  }
  return Status::ok();
}

Result<std::unique_ptr<KvEngine>> open_engine(std::string_view name, const std::string& path,
                                              const KvOptions& options) {
  if (!engine_built(name)) return Status::invalid_argument(engine_missing_reason(name));
  if (name == "ordo" || name == "ordo-uring" || name == "ordo-verify") {
    return open_ordo_kv(path, options, name);
  }
#ifdef ORDO_BENCH_HAVE_LMDB
  if (name == "lmdb" || name == "lmdb-append") {
    return open_lmdb_kv(path, options, name == "lmdb-append");
  }
#endif
#ifdef ORDO_BENCH_HAVE_ROCKSDB
  if (name == "rocksdb") return open_rocksdb_kv(path, options);
#endif
#ifdef ORDO_BENCH_HAVE_LEVELDB
  if (name == "leveldb") return open_leveldb_kv(path, options);
#endif
#ifdef ORDO_BENCH_HAVE_SQLITE
  if (name == "sqlite") return open_sqlite_kv(path, options);
#endif
#ifdef ORDO_BENCH_HAVE_WIREDTIGER
  if (name == "wiredtiger" || name == "wiredtiger-equal-mem") {
    return open_wiredtiger_kv(path, options, name == "wiredtiger-equal-mem");
  }
#endif
  return Status::invalid_argument(engine_missing_reason(name));
}

}  // namespace ordo::bench
