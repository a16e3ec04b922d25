// The C API (ordo/ordo.h), called only through its C functions: the whole
// surface, each misuse returning its code and a message naming the problem,
// and handle lifetimes (txns and cursors after commit, after ordo_db_close).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "c_handles.h"
#include "ordo/ordo.h"
#include "temp_dir.h"

namespace {

using Db = ordo::testing::CDb;
using Txn = ordo::testing::CTxn;
using Cursor = ordo::testing::CCursor;
using Tree = ordo::testing::CTree;

using ordo::testing::TempDir;

std::string str(const void* data, size_t len) {
  return std::string(static_cast<const char*>(data), len);
}

bool contains(const char* text, const char* part) { return std::strstr(text, part) != nullptr; }

// Collects the entries a scan visits; stops after `limit` when set.
struct Visit {
  std::vector<std::pair<std::string, std::string>> seen;
  size_t limit = SIZE_MAX;
  static int fn(void* ctx, const void* k, size_t kl, const void* v, size_t vl) {
    auto* self = static_cast<Visit*>(ctx);
    self->seen.emplace_back(str(k, kl), str(v, vl));
    return self->seen.size() >= self->limit ? 1 : 0;
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : seen) out.push_back(k);
    return out;
  }
};

class CApiTest : public ::testing::Test {
 protected:
  std::string path() const { return dir_.file("db.ordo"); }

  Db open(const std::string& p, const ordo_options* o = nullptr) {
    ordo_db* db = nullptr;
    EXPECT_EQ(ordo_open(p.c_str(), o, &db, &err_), ORDO_OK) << err_.message;
    return Db(db);
  }
  Txn write(ordo_db* db) {
    ordo_txn* t = nullptr;
    EXPECT_EQ(ordo_begin_write(db, &t, &err_), ORDO_OK) << err_.message;
    return Txn(t);
  }
  Txn read(ordo_db* db) {
    ordo_txn* t = nullptr;
    EXPECT_EQ(ordo_begin_read(db, &t, &err_), ORDO_OK) << err_.message;
    return Txn(t);
  }
  Tree create(ordo_txn* txn, const std::string& name) {
    ordo_tree* t = nullptr;
    EXPECT_EQ(ordo_tree_create(txn, name.data(), name.size(), &t, &err_), ORDO_OK) << err_.message;
    return Tree(t);
  }
  Tree open_tree(ordo_txn* txn, const std::string& name) {
    ordo_tree* t = nullptr;
    EXPECT_EQ(ordo_tree_open(txn, name.data(), name.size(), &t, &err_), ORDO_OK) << err_.message;
    return Tree(t);
  }
  Cursor cursor(ordo_txn* txn, const ordo_tree* tree) {
    ordo_cursor* c = nullptr;
    EXPECT_EQ(ordo_cursor_open(txn, tree, &c, &err_), ORDO_OK) << err_.message;
    return Cursor(c);
  }
  int put(ordo_txn* txn, const ordo_tree* tree, const std::string& k, const std::string& v) {
    return ordo_put(txn, tree, k.data(), k.size(), v.data(), v.size(), &err_);
  }
  // The value of `k`, or "<code name>" when the get fails.
  std::string get(ordo_txn* txn, const ordo_tree* tree, const std::string& k) {
    const void* v = nullptr;
    size_t n = 0;
    const int rc = ordo_get(txn, tree, k.data(), k.size(), &v, &n, &err_);
    if (rc != ORDO_OK) return std::string("<") + ordo_code_name(rc) + ">";
    EXPECT_NE(v, nullptr);
    return str(v, n);
  }
  std::vector<std::string> scan_keys(ordo_txn* txn, const ordo_tree* tree) {
    Visit visit;
    EXPECT_EQ(ordo_scan(txn, tree, nullptr, 0, nullptr, 0, Visit::fn, &visit, &err_), ORDO_OK)
        << err_.message;
    return visit.keys();
  }
  // Expects `rc` to be `code` with a message that names `part`.
  void expect_error(int rc, int code, const char* part) {
    EXPECT_EQ(rc, code) << ordo_code_name(rc) << ": " << err_.message;
    EXPECT_EQ(err_.code, code);
    EXPECT_TRUE(contains(err_.message, ordo_code_name(code))) << err_.message;
    EXPECT_TRUE(contains(err_.message, part)) << "'" << part << "' not in: " << err_.message;
  }

  TempDir dir_;
  ordo_error err_{};
};

TEST_F(CApiTest, VersionAndCodeNames) {
  EXPECT_STREQ(ordo_version(), "0.1.0");
  const std::map<int, const char*> names = {
      {ORDO_OK, "OK"},
      {ORDO_NOT_FOUND, "NotFound"},
      {ORDO_INVALID_ARGUMENT, "InvalidArgument"},
      {ORDO_CORRUPTION, "Corruption"},
      {ORDO_IO_ERROR, "IOError"},
      {ORDO_BUSY, "Busy"},
      {ORDO_FULL, "Full"},
      {ORDO_NOT_ORDO_FILE, "NotOrdoFile"},
      {ORDO_VERSION_MISMATCH, "VersionMismatch"},
      {ORDO_TXN_ENDED, "TxnEnded"},
      {ORDO_NEEDS_RECOVERY, "NeedsRecovery"},
      {ORDO_COMPARE_FAILED, "CompareFailed"},
      {ORDO_NO_MEMORY, "NoMemory"},
      {ORDO_INTERNAL, "Internal"},
      {-1, "Unknown"},
      {12, "Unknown"},
      {99, "Unknown"},
  };
  for (const auto& [code, name] : names) EXPECT_STREQ(ordo_code_name(code), name) << code;
}

TEST_F(CApiTest, OptionsInitGivesTheDefaults) {
  ordo_options o;
  std::memset(&o, 0xab, sizeof o);
  ASSERT_EQ(ordo_options_init(&o, sizeof o, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.page_size_bytes, 0u);
  EXPECT_EQ(o.writer_wait_ms, 0u);
  EXPECT_EQ(o.extent_bytes, 64ull << 20);
  EXPECT_EQ(o.max_extent_bytes, 1ull << 30);
  EXPECT_EQ(o.map_reserve_bytes, 256ull << 30);
  EXPECT_EQ(o.txn_memory_budget_bytes, 256ull << 20);
  EXPECT_EQ(o.append_fill, 1.0);
  EXPECT_EQ(o.id_node, 0u);
  EXPECT_EQ(o.commit_protocol, ORDO_COMMIT_LOG);
  EXPECT_EQ(o.log_bytes, 0u);
  EXPECT_EQ(o.io_backend, ORDO_IO_AUTO);
  EXPECT_TRUE(o.create_if_missing);
  EXPECT_FALSE(o.read_only);
  EXPECT_TRUE(o.sync_commits);
  EXPECT_FALSE(o.verify_checksums);
  EXPECT_TRUE(o.trim_on_close);
  // err is filled on success too.
  EXPECT_EQ(err_.code, ORDO_OK);
  EXPECT_EQ(err_.sys_errno, 0);
  EXPECT_EQ(err_.page_number, UINT64_MAX);
  EXPECT_STREQ(err_.message, "");
}

TEST_F(CApiTest, OptionsOfAnotherSizeAreRefused) {
  ordo_options o;
  expect_error(ordo_options_init(nullptr, sizeof o, &err_), ORDO_INVALID_ARGUMENT,
               "options is NULL");
  expect_error(ordo_options_init(&o, sizeof o - 8, &err_), ORDO_INVALID_ARGUMENT, "struct_size");
  ASSERT_EQ(ordo_options_init(&o, sizeof o, &err_), ORDO_OK);
  int sentinel = 0;
  ordo_db* db = reinterpret_cast<ordo_db*>(&sentinel);  // set to NULL on error
  o.struct_size = sizeof o - 8;
  expect_error(ordo_open(path().c_str(), &o, &db, &err_), ORDO_INVALID_ARGUMENT, "struct_size");
  EXPECT_EQ(db, nullptr);
  o.struct_size = sizeof o;
  o.commit_protocol = 7;
  expect_error(ordo_open(path().c_str(), &o, &db, &err_), ORDO_INVALID_ARGUMENT, "commit_protocol");
  o.commit_protocol = ORDO_COMMIT_TWO_SYNC;
  o.io_backend = -1;
  expect_error(ordo_open(path().c_str(), &o, &db, &err_), ORDO_INVALID_ARGUMENT, "io_backend");
  o.io_backend = ORDO_IO_POSIX;
  o.page_size_bytes = 1000;  // refused by the engine
  EXPECT_EQ(ordo_open(path().c_str(), &o, &db, &err_), ORDO_INVALID_ARGUMENT) << err_.message;

  // A newer caller's struct: fields past this library's are accepted only when zero.
  struct Newer {
    ordo_options known;
    uint64_t added;
  } newer;
  ASSERT_EQ(ordo_options_init(&newer.known, sizeof newer, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(newer.added, 0u);
  EXPECT_EQ(newer.known.struct_size, sizeof newer);
  newer.added = 1;
  expect_error(ordo_open(path().c_str(), &newer.known, &db, &err_), ORDO_INVALID_ARGUMENT,
               "does not know");
  newer.added = 0;
  newer.known.commit_protocol = ORDO_COMMIT_TWO_SYNC;
  Db opened = open(path(), &newer.known);
  EXPECT_NE(opened, nullptr);
}

TEST_F(CApiTest, OpenWithOptionsAndLimits) {
  ordo_options o;
  ASSERT_EQ(ordo_options_init(&o, sizeof o, &err_), ORDO_OK);
  o.page_size_bytes = 8192;
  o.verify_checksums = true;
  o.io_backend = ORDO_IO_POSIX;
  Db db = open(path(), &o);
  ASSERT_NE(db, nullptr);
  uint32_t page = 0, key = 0, inline_value = 0;
  uint64_t value = 0;
  ASSERT_EQ(ordo_db_page_size(db.get(), &page, &err_), ORDO_OK);
  ASSERT_EQ(ordo_db_max_key_bytes(db.get(), &key, &err_), ORDO_OK);
  ASSERT_EQ(ordo_db_max_value_bytes(db.get(), &value, &err_), ORDO_OK);
  ASSERT_EQ(ordo_db_max_inline_value_bytes(db.get(), &inline_value, &err_), ORDO_OK);
  EXPECT_EQ(page, 8192u);
  EXPECT_EQ(key, 8192u / 4 - 24);
  EXPECT_EQ(value, 128ull << 20);
  EXPECT_EQ(inline_value, 8192u / 4);
  expect_error(ordo_db_page_size(nullptr, &page, &err_), ORDO_INVALID_ARGUMENT, "db is NULL");
  expect_error(ordo_db_max_key_bytes(db.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "out is NULL");
  db.reset();
  // Another page size than the file's.
  o.page_size_bytes = 4096;
  ordo_db* again = nullptr;
  expect_error(ordo_open(path().c_str(), &o, &again, &err_), ORDO_INVALID_ARGUMENT, "page size");
  EXPECT_EQ(again, nullptr);
  o.page_size_bytes = 0;
  Db reopened = open(path(), &o);
  ASSERT_NE(reopened, nullptr);
  ASSERT_EQ(ordo_db_page_size(reopened.get(), &page, &err_), ORDO_OK);
  EXPECT_EQ(page, 8192u);
}

TEST_F(CApiTest, RoundTripThroughReopen) {
  {
    Db db = open(path());
    ASSERT_NE(db, nullptr);
    Txn w = write(db.get());
    ASSERT_TRUE(ordo_txn_live(w.get()));
    ASSERT_TRUE(ordo_txn_writable(w.get()));
    Tree nodes = create(w.get(), "nodes");
    Tree edges = create(w.get(), "edges");
    Tree scratch = create(w.get(), "scratch");
    ASSERT_TRUE(nodes && edges && scratch);
    for (int i = 0; i < 500; ++i) {
      char k[16];
      std::snprintf(k, sizeof k, "n%04d", i);
      ASSERT_EQ(put(w.get(), nodes.get(), k, "node " + std::to_string(i)), ORDO_OK) << err_.message;
      ASSERT_EQ(put(w.get(), scratch.get(), k, std::string(300, 's')), ORDO_OK);
    }
    ASSERT_EQ(put(w.get(), edges.get(), "a->b", "1"), ORDO_OK);
    ASSERT_EQ(put(w.get(), edges.get(), "a->c", "2"), ORDO_OK);
    ASSERT_EQ(put(w.get(), edges.get(), "b->c", "3"), ORDO_OK);
    ASSERT_EQ(put(w.get(), nullptr, "in-default", "d"), ORDO_OK);
    const std::string big(100000, 'B');  // overflow pages
    ASSERT_EQ(put(w.get(), nodes.get(), "big", big), ORDO_OK);
    EXPECT_EQ(get(w.get(), nodes.get(), "n0007"), "node 7");
    EXPECT_EQ(get(w.get(), nodes.get(), "big"), big);
    EXPECT_EQ(get(w.get(), nodes.get(), "missing"), "<NotFound>");
    EXPECT_TRUE(contains(err_.message, "ordo_get")) << err_.message;

    // Scans: bounded, unbounded, prefix, stopped early.
    Visit range;
    ASSERT_EQ(ordo_scan(w.get(), nodes.get(), "n0010", 5, "n0013", 5, Visit::fn, &range, &err_),
              ORDO_OK);
    EXPECT_EQ(range.keys(), (std::vector<std::string>{"n0010", "n0011", "n0012"}));
    EXPECT_EQ(range.seen[1].second, "node 11");
    Visit tail;
    ASSERT_EQ(ordo_scan(w.get(), nodes.get(), "n0498", 5, nullptr, 0, Visit::fn, &tail, &err_),
              ORDO_OK);
    EXPECT_EQ(tail.keys(), (std::vector<std::string>{"n0498", "n0499"}));
    Visit prefix;
    ASSERT_EQ(ordo_scan_prefix(w.get(), edges.get(), "a->", 3, Visit::fn, &prefix, &err_), ORDO_OK);
    EXPECT_EQ(prefix.keys(), (std::vector<std::string>{"a->b", "a->c"}));
    Visit stopped;
    stopped.limit = 4;
    ASSERT_EQ(ordo_scan(w.get(), nodes.get(), nullptr, 0, nullptr, 0, Visit::fn, &stopped, &err_),
              ORDO_OK);
    EXPECT_EQ(stopped.seen.size(), 4u);
    EXPECT_EQ(stopped.seen[0].first, "big");

    // Range deletes: half-open, then to the end.
    uint64_t removed = 0;
    ASSERT_EQ(ordo_del_range(w.get(), nodes.get(), "n0100", 5, "n0200", 5, &removed, &err_),
              ORDO_OK)
        << err_.message;
    EXPECT_EQ(removed, 100u);
    EXPECT_EQ(get(w.get(), nodes.get(), "n0099"), "node 99");
    EXPECT_EQ(get(w.get(), nodes.get(), "n0100"), "<NotFound>");
    EXPECT_EQ(get(w.get(), nodes.get(), "n0200"), "node 200");
    ASSERT_EQ(ordo_del_range(w.get(), nodes.get(), "n0400", 5, nullptr, 0, &removed, &err_),
              ORDO_OK);
    EXPECT_EQ(removed, 100u);
    ASSERT_EQ(ordo_del_range(w.get(), nodes.get(), "z", 1, "a", 1, nullptr, &err_), ORDO_OK);
    ASSERT_EQ(ordo_del(w.get(), nodes.get(), "n0000", 5, &err_), ORDO_OK);
    expect_error(ordo_del(w.get(), nodes.get(), "n0000", 5, &err_), ORDO_NOT_FOUND,
                 "key not found");

    // A cursor delete loop empties a tree.
    Cursor c = cursor(w.get(), scratch.get());
    ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
    int deleted = 0;
    while (ordo_cursor_valid(c.get())) {
      const void* k = nullptr;
      size_t kl = 0;
      ASSERT_EQ(ordo_cursor_key(c.get(), &k, &kl, &err_), ORDO_OK);
      char want[16];
      std::snprintf(want, sizeof want, "n%04d", deleted);
      ASSERT_EQ(str(k, kl), want);
      ASSERT_EQ(ordo_cursor_del(c.get(), &err_), ORDO_OK) << err_.message;
      ++deleted;
    }
    EXPECT_EQ(deleted, 500);
    EXPECT_EQ(ordo_cursor_status(c.get(), &err_), ORDO_OK) << err_.message;
    EXPECT_TRUE(scan_keys(w.get(), scratch.get()).empty());

    uint64_t id = 0;
    ASSERT_EQ(ordo_txn_id(w.get(), &id, &err_), ORDO_OK);
    EXPECT_GT(id, 0u);
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
    EXPECT_FALSE(ordo_txn_live(w.get()));
  }
  // Reopen and read back.
  Db db = open(path());
  ASSERT_NE(db, nullptr);
  Txn r = read(db.get());
  ASSERT_FALSE(ordo_txn_writable(r.get()));
  struct Names {
    std::vector<std::string> all;
    static int fn(void* ctx, const char* name, size_t len) {
      EXPECT_EQ(name[len], '\0');
      static_cast<Names*>(ctx)->all.emplace_back(name, len);
      return 0;
    }
  } names;
  ASSERT_EQ(ordo_tree_list(r.get(), Names::fn, &names, &err_), ORDO_OK);
  EXPECT_EQ(names.all, (std::vector<std::string>{"edges", "nodes", "scratch"}));
  Tree nodes = open_tree(r.get(), "nodes");
  Tree edges = open_tree(r.get(), "edges");
  Tree scratch = open_tree(r.get(), "scratch");
  const char* name = nullptr;
  size_t name_len = 0;
  ASSERT_EQ(ordo_tree_name(nodes.get(), &name, &name_len, &err_), ORDO_OK);
  EXPECT_EQ(str(name, name_len), "nodes");
  ASSERT_EQ(ordo_tree_name(nullptr, &name, &name_len, &err_), ORDO_OK);
  EXPECT_EQ(name_len, 0u);
  EXPECT_EQ(get(r.get(), nodes.get(), "n0001"), "node 1");
  EXPECT_EQ(get(r.get(), nodes.get(), "n0000"), "<NotFound>");
  EXPECT_EQ(get(r.get(), nodes.get(), "n0150"), "<NotFound>");
  EXPECT_EQ(get(r.get(), nodes.get(), "n0399"), "node 399");
  EXPECT_EQ(get(r.get(), nodes.get(), "n0400"), "<NotFound>");
  EXPECT_EQ(get(r.get(), nodes.get(), "big"), std::string(100000, 'B'));
  EXPECT_EQ(get(r.get(), edges.get(), "b->c"), "3");
  EXPECT_EQ(get(r.get(), nullptr, "in-default"), "d");
  EXPECT_EQ(scan_keys(r.get(), nodes.get()).size(), 1u + 99 + 200);
  EXPECT_TRUE(scan_keys(r.get(), scratch.get()).empty());
  // A read cursor backwards from the end, with value().
  Cursor c = cursor(r.get(), edges.get());
  ASSERT_EQ(ordo_cursor_last(c.get(), &err_), ORDO_OK);
  std::vector<std::string> seen;
  while (ordo_cursor_valid(c.get())) {
    const void* k = nullptr;
    const void* v = nullptr;
    size_t kl = 0, vl = 0;
    ASSERT_EQ(ordo_cursor_key(c.get(), &k, &kl, &err_), ORDO_OK);
    ASSERT_EQ(ordo_cursor_value(c.get(), &v, &vl, &err_), ORDO_OK);
    seen.push_back(str(k, kl) + "=" + str(v, vl));
    ASSERT_EQ(ordo_cursor_prev(c.get(), &err_), ORDO_OK);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"b->c=3", "a->c=2", "a->b=1"}));
  ASSERT_EQ(ordo_cursor_seek(c.get(), "a->bb", 5, &err_), ORDO_OK);
  const void* k = nullptr;
  size_t kl = 0;
  ASSERT_EQ(ordo_cursor_key(c.get(), &k, &kl, &err_), ORDO_OK);
  EXPECT_EQ(str(k, kl), "a->c");
  ASSERT_EQ(ordo_cursor_next(c.get(), &err_), ORDO_OK);
  ASSERT_EQ(ordo_cursor_next(c.get(), &err_), ORDO_OK);
  EXPECT_FALSE(ordo_cursor_valid(c.get()));
  expect_error(ordo_cursor_key(c.get(), &k, &kl, &err_), ORDO_INVALID_ARGUMENT, "not on an entry");
  EXPECT_EQ(k, nullptr);
  ASSERT_EQ(ordo_txn_abort(r.get(), &err_), ORDO_OK);
}

TEST_F(CApiTest, EmptyKeysAndValues) {
  Db db = open(path());
  Txn w = write(db.get());
  ASSERT_EQ(ordo_put(w.get(), nullptr, nullptr, 0, nullptr, 0, &err_), ORDO_OK) << err_.message;
  ASSERT_EQ(ordo_put(w.get(), nullptr, "k", 1, "", 0, &err_), ORDO_OK);
  const void* v = nullptr;
  size_t n = 99;
  ASSERT_EQ(ordo_get(w.get(), nullptr, nullptr, 0, &v, &n, &err_), ORDO_OK) << err_.message;
  EXPECT_NE(v, nullptr);  // never NULL on success
  EXPECT_EQ(n, 0u);
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  Txn r = read(db.get());
  Visit all;
  ASSERT_EQ(ordo_scan(r.get(), nullptr, nullptr, 0, nullptr, 0, Visit::fn, &all, &err_), ORDO_OK);
  ASSERT_EQ(all.seen.size(), 2u);
  EXPECT_EQ(all.seen[0], std::make_pair(std::string(), std::string()));
  EXPECT_EQ(all.seen[1], std::make_pair(std::string("k"), std::string()));
  Cursor c = cursor(r.get(), nullptr);
  ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
  const void* k = nullptr;
  ASSERT_EQ(ordo_cursor_key(c.get(), &k, &n, &err_), ORDO_OK);
  EXPECT_NE(k, nullptr);
  EXPECT_EQ(n, 0u);
}

TEST_F(CApiTest, NullHandlesAndPointersAreInvalidArgument) {
  Db db = open(path());
  Txn w = write(db.get());
  const void* v = nullptr;
  size_t n = 0;
  ordo_txn* txn = nullptr;
  ordo_tree* tree = nullptr;
  ordo_cursor* cur = nullptr;
  ordo_db* dbp = nullptr;
  uint8_t id[ORDO_UUID_BYTES];
  uint64_t u64 = 0;
  expect_error(ordo_open(nullptr, nullptr, &dbp, &err_), ORDO_INVALID_ARGUMENT, "path is NULL");
  expect_error(ordo_open(path().c_str(), nullptr, nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "db is NULL");
  expect_error(ordo_begin_read(nullptr, &txn, &err_), ORDO_INVALID_ARGUMENT, "db is NULL");
  expect_error(ordo_begin_write(nullptr, &txn, &err_), ORDO_INVALID_ARGUMENT, "db is NULL");
  expect_error(ordo_try_begin_write(db.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "txn is NULL");
  expect_error(ordo_begin_write_timeout(nullptr, 10, &txn, &err_), ORDO_INVALID_ARGUMENT,
               "db is NULL");
  expect_error(ordo_txn_commit(nullptr, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_txn_abort(nullptr, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_txn_id(nullptr, &u64, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_txn_id(w.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT, "id is NULL");
  EXPECT_FALSE(ordo_txn_live(nullptr));
  EXPECT_FALSE(ordo_txn_writable(nullptr));
  expect_error(ordo_tree_create(nullptr, "t", 1, &tree, &err_), ORDO_INVALID_ARGUMENT,
               "txn is NULL");
  expect_error(ordo_tree_create(w.get(), "t", 1, nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "tree is NULL");
  expect_error(ordo_tree_create(w.get(), nullptr, 3, &tree, &err_), ORDO_INVALID_ARGUMENT,
               "name is NULL with length 3");
  expect_error(ordo_tree_create(w.get(), nullptr, 0, &tree, &err_), ORDO_INVALID_ARGUMENT,
               "tree name is empty");
  expect_error(ordo_tree_open(nullptr, "t", 1, &tree, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_tree_drop(nullptr, "t", 1, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_tree_rename(w.get(), "t", 1, nullptr, 2, &err_), ORDO_INVALID_ARGUMENT,
               "to is NULL with length 2");
  expect_error(ordo_tree_list(w.get(), nullptr, nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "fn is NULL");
  expect_error(ordo_tree_name(nullptr, nullptr, &n, &err_), ORDO_INVALID_ARGUMENT, "NULL");
  expect_error(ordo_get(nullptr, nullptr, "k", 1, &v, &n, &err_), ORDO_INVALID_ARGUMENT,
               "txn is NULL");
  expect_error(ordo_get(w.get(), nullptr, nullptr, 1, &v, &n, &err_), ORDO_INVALID_ARGUMENT,
               "key is NULL with length 1");
  expect_error(ordo_get(w.get(), nullptr, "k", 1, nullptr, &n, &err_), ORDO_INVALID_ARGUMENT,
               "value or value_len is NULL");
  expect_error(ordo_put(nullptr, nullptr, "k", 1, "v", 1, &err_), ORDO_INVALID_ARGUMENT,
               "txn is NULL");
  expect_error(ordo_put(w.get(), nullptr, nullptr, 5, "v", 1, &err_), ORDO_INVALID_ARGUMENT,
               "key is NULL with length 5");
  expect_error(ordo_put(w.get(), nullptr, "k", 1, nullptr, 1, &err_), ORDO_INVALID_ARGUMENT,
               "value is NULL with length 1");
  expect_error(ordo_del(w.get(), nullptr, nullptr, 1, &err_), ORDO_INVALID_ARGUMENT, "key is NULL");
  expect_error(ordo_append(w.get(), nullptr, "k", 1, nullptr, 1, &err_), ORDO_INVALID_ARGUMENT,
               "value is NULL");
  expect_error(ordo_del_range(w.get(), nullptr, nullptr, 1, nullptr, 0, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "from is NULL with length 1");
  expect_error(ordo_del_range(w.get(), nullptr, nullptr, 0, nullptr, 4, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "to is NULL");
  expect_error(ordo_scan(w.get(), nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "fn is NULL");
  expect_error(ordo_scan(nullptr, nullptr, nullptr, 0, nullptr, 0, Visit::fn, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_scan_prefix(w.get(), nullptr, nullptr, 2, Visit::fn, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "prefix is NULL with length 2");
  expect_error(ordo_cursor_open(nullptr, nullptr, &cur, &err_), ORDO_INVALID_ARGUMENT,
               "txn is NULL");
  expect_error(ordo_cursor_open(w.get(), nullptr, nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "cursor is NULL");
  expect_error(ordo_cursor_first(nullptr, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_last(nullptr, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_next(nullptr, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_prev(nullptr, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_seek(nullptr, "k", 1, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_key(nullptr, &v, &n, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_value(nullptr, &v, &n, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_status(nullptr, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  expect_error(ordo_cursor_put(nullptr, "k", 1, "v", 1, &err_), ORDO_INVALID_ARGUMENT,
               "cursor is NULL");
  expect_error(ordo_cursor_del(nullptr, &err_), ORDO_INVALID_ARGUMENT, "cursor is NULL");
  EXPECT_FALSE(ordo_cursor_valid(nullptr));
  Cursor c = cursor(w.get(), nullptr);
  expect_error(ordo_cursor_seek(c.get(), nullptr, 1, &err_), ORDO_INVALID_ARGUMENT,
               "key is NULL with length 1");
  expect_error(ordo_cursor_key(c.get(), nullptr, &n, &err_), ORDO_INVALID_ARGUMENT,
               "key or key_len is NULL");
  expect_error(ordo_next_id(nullptr, id, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_next_id(w.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT, "out is NULL");
  expect_error(ordo_next_id64(w.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT, "out is NULL");
  expect_error(ordo_uuid_format(nullptr, nullptr, 0, &err_), ORDO_INVALID_ARGUMENT, "uuid is NULL");
  expect_error(ordo_uuid_parse(nullptr, 36, id, &err_), ORDO_INVALID_ARGUMENT,
               "text is NULL with length 36");
  // The txn is still good after all that.
  ASSERT_EQ(put(w.get(), nullptr, "k", "v"), ORDO_OK) << err_.message;
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
  // Free functions take NULL; a NULL err is allowed everywhere.
  ordo_db_close(nullptr);
  ordo_txn_free(nullptr);
  ordo_cursor_free(nullptr);
  ordo_tree_free(nullptr);
  EXPECT_EQ(ordo_put(nullptr, nullptr, "k", 1, "v", 1, nullptr), ORDO_INVALID_ARGUMENT);
  EXPECT_EQ(ordo_options_init(nullptr, 0, nullptr), ORDO_INVALID_ARGUMENT);
}

TEST_F(CApiTest, OversizedKeysAndNamesAreInvalidArgument) {
  Db db = open(path());
  uint32_t max_key = 0;
  ASSERT_EQ(ordo_db_max_key_bytes(db.get(), &max_key, &err_), ORDO_OK);
  Txn w = write(db.get());
  const std::string fits(max_key, 'k');
  const std::string too_long(max_key + 1, 'k');
  ASSERT_EQ(put(w.get(), nullptr, fits, "v"), ORDO_OK) << err_.message;
  expect_error(put(w.get(), nullptr, too_long, "v"), ORDO_INVALID_ARGUMENT, "ordo_put");
  Tree t = create(w.get(), fits);
  EXPECT_NE(t, nullptr);
  ordo_tree* none = nullptr;
  expect_error(ordo_tree_create(w.get(), too_long.data(), too_long.size(), &none, &err_),
               ORDO_INVALID_ARGUMENT, "exceeds the maximum");
  EXPECT_EQ(none, nullptr);
  ordo_cursor* c = nullptr;
  ASSERT_EQ(ordo_cursor_open(w.get(), nullptr, &c, &err_), ORDO_OK);
  Cursor owned(c);
  expect_error(ordo_cursor_put(c, too_long.data(), too_long.size(), "v", 1, &err_),
               ORDO_INVALID_ARGUMENT, "ordo_cursor_put");
  // Refused up front: the txn commits.
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
}

TEST_F(CApiTest, WritesThroughAReadTxnAreInvalidArgument) {
  Db db = open(path());
  {
    Txn w = write(db.get());
    Tree t = create(w.get(), "t");
    ASSERT_EQ(put(w.get(), t.get(), "a", "1"), ORDO_OK);
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  }
  Txn r = read(db.get());
  Tree t = open_tree(r.get(), "t");
  const char* why = "read txn";
  expect_error(put(r.get(), t.get(), "b", "2"), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_del(r.get(), t.get(), "a", 1, &err_), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_del_range(r.get(), t.get(), nullptr, 0, nullptr, 0, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_append(r.get(), t.get(), "z", 1, "v", 1, &err_), ORDO_INVALID_ARGUMENT, why);
  ordo_tree* made = nullptr;
  expect_error(ordo_tree_create(r.get(), "u", 1, &made, &err_), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_tree_drop(r.get(), "t", 1, &err_), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_tree_rename(r.get(), "t", 1, "u", 1, &err_), ORDO_INVALID_ARGUMENT, why);
  uint8_t id[ORDO_UUID_BYTES];
  uint64_t id64 = 0;
  expect_error(ordo_next_id(r.get(), id, &err_), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_next_id64(r.get(), &id64, &err_), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_txn_commit(r.get(), &err_), ORDO_INVALID_ARGUMENT, "ordo_txn_abort");
  EXPECT_TRUE(ordo_txn_live(r.get()));
  Cursor c = cursor(r.get(), t.get());
  ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
  expect_error(ordo_cursor_put(c.get(), "b", 1, "2", 1, &err_), ORDO_INVALID_ARGUMENT, why);
  expect_error(ordo_cursor_del(c.get(), &err_), ORDO_INVALID_ARGUMENT, why);
  EXPECT_EQ(get(r.get(), t.get(), "a"), "1");
  // A read-only database has no write txn.
  ordo_options o;
  ASSERT_EQ(ordo_options_init(&o, sizeof o, &err_), ORDO_OK);
  o.read_only = true;
  Db ro = open(path(), &o);
  ASSERT_NE(ro, nullptr);
  ordo_txn* none = nullptr;
  expect_error(ordo_begin_write(ro.get(), &none, &err_), ORDO_INVALID_ARGUMENT, "read-only");
  expect_error(ordo_try_begin_write(ro.get(), &none, &err_), ORDO_INVALID_ARGUMENT, "read-only");
  EXPECT_EQ(none, nullptr);
}

TEST_F(CApiTest, CallsOnACommittedTxnReportTxnEnded) {
  Db db = open(path());
  Txn w = write(db.get());
  Tree t = create(w.get(), "t");
  ASSERT_EQ(put(w.get(), t.get(), "a", "1"), ORDO_OK);
  ASSERT_EQ(put(w.get(), t.get(), "b", "2"), ORDO_OK);
  Cursor c = cursor(w.get(), t.get());
  ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  const void* v = nullptr;
  size_t n = 0;
  uint64_t u64 = 0;
  uint8_t id[ORDO_UUID_BYTES];
  ordo_tree* tree = nullptr;
  ordo_cursor* cur = nullptr;
  Visit visit;
  const char* why = "txn already committed";
  expect_error(ordo_txn_commit(w.get(), &err_), ORDO_TXN_ENDED, why);
  expect_error(put(w.get(), t.get(), "k", "v"), ORDO_TXN_ENDED, why);
  expect_error(ordo_get(w.get(), t.get(), "a", 1, &v, &n, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_del(w.get(), t.get(), "a", 1, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_del_range(w.get(), t.get(), "a", 1, "z", 1, &u64, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_append(w.get(), t.get(), "z", 1, "v", 1, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_tree_create(w.get(), "u", 1, &tree, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_tree_open(w.get(), "t", 1, &tree, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_tree_drop(w.get(), "t", 1, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_tree_rename(w.get(), "t", 1, "u", 1, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_tree_list(
                   w.get(), [](void*, const char*, size_t) { return 0; }, nullptr, &err_),
               ORDO_TXN_ENDED, why);
  expect_error(ordo_scan(w.get(), t.get(), nullptr, 0, nullptr, 0, Visit::fn, &visit, &err_),
               ORDO_TXN_ENDED, why);
  expect_error(ordo_scan_prefix(w.get(), t.get(), "a", 1, Visit::fn, &visit, &err_), ORDO_TXN_ENDED,
               why);
  expect_error(ordo_cursor_open(w.get(), t.get(), &cur, &err_), ORDO_TXN_ENDED, why);
  expect_error(ordo_next_id(w.get(), id, &err_), ORDO_TXN_ENDED, "");
  expect_error(ordo_next_id64(w.get(), &u64, &err_), ORDO_TXN_ENDED, "");
  expect_error(ordo_txn_id(w.get(), &u64, &err_), ORDO_TXN_ENDED, why);
  EXPECT_EQ(tree, nullptr);
  EXPECT_EQ(cur, nullptr);
  EXPECT_TRUE(visit.seen.empty());
  EXPECT_FALSE(ordo_txn_live(w.get()));
  EXPECT_EQ(ordo_txn_abort(w.get(), &err_), ORDO_OK);  // nothing left to end

  // The cursor of the committed txn.
  const char* cursor_why = "the cursor's txn was committed";
  EXPECT_FALSE(ordo_cursor_valid(c.get()));
  expect_error(ordo_cursor_first(c.get(), &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_last(c.get(), &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_next(c.get(), &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_prev(c.get(), &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_seek(c.get(), "a", 1, &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_key(c.get(), &v, &n, &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_value(c.get(), &v, &n, &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_put(c.get(), "k", 1, "v", 1, &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_del(c.get(), &err_), ORDO_TXN_ENDED, cursor_why);
  expect_error(ordo_cursor_status(c.get(), &err_), ORDO_TXN_ENDED, cursor_why);
}

TEST_F(CApiTest, CursorOfAFreedOrAbortedTxnReportsTxnEnded) {
  Db db = open(path());
  {
    Txn w = write(db.get());
    ASSERT_EQ(put(w.get(), nullptr, "a", "1"), ORDO_OK);
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  }
  for (int how = 0; how < 3; ++how) {
    SCOPED_TRACE(how);
    Txn txn = how == 0 ? read(db.get()) : write(db.get());
    Cursor c = cursor(txn.get(), nullptr);
    ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
    ASSERT_TRUE(ordo_cursor_valid(c.get()));
    if (how == 1) {
      ASSERT_EQ(ordo_txn_abort(txn.get(), &err_), ORDO_OK);
    } else {
      txn.reset();  // ordo_txn_free: read txns and live write txns alike
    }
    EXPECT_FALSE(ordo_cursor_valid(c.get()));
    expect_error(ordo_cursor_next(c.get(), &err_), ORDO_TXN_ENDED, "txn");
    const void* k = nullptr;
    size_t n = 0;
    expect_error(ordo_cursor_key(c.get(), &k, &n, &err_), ORDO_TXN_ENDED, "txn");
  }
}

TEST_F(CApiTest, ReadTxnResetAndRenewed) {
  Db db = open(path());
  auto commit_value = [&](const std::string& v) {
    Txn w = write(db.get());
    ASSERT_EQ(put(w.get(), nullptr, "k", v), ORDO_OK) << err_.message;
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
  };
  ASSERT_NO_FATAL_FAILURE(commit_value("v1"));
  Txn r = read(db.get());
  uint64_t first = 0;
  ASSERT_EQ(ordo_txn_id(r.get(), &first, &err_), ORDO_OK);
  Cursor c = cursor(r.get(), nullptr);
  ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
  ASSERT_EQ(ordo_txn_reset(r.get(), &err_), ORDO_OK) << err_.message;
  ASSERT_EQ(ordo_txn_reset(r.get(), &err_), ORDO_OK) << err_.message;  // already reset
  EXPECT_FALSE(ordo_txn_live(r.get()));
  EXPECT_EQ(get(r.get(), nullptr, "k"), "<TxnEnded>");
  uint64_t id = 0;
  expect_error(ordo_txn_id(r.get(), &id, &err_), ORDO_TXN_ENDED, "txn");
  expect_error(ordo_cursor_next(c.get(), &err_), ORDO_TXN_ENDED, "txn");
  ASSERT_NO_FATAL_FAILURE(commit_value("v2"));
  ASSERT_EQ(ordo_txn_renew(r.get(), &err_), ORDO_OK) << err_.message;
  EXPECT_TRUE(ordo_txn_live(r.get()));
  ASSERT_EQ(ordo_txn_id(r.get(), &id, &err_), ORDO_OK);
  EXPECT_EQ(id, first + 1);
  EXPECT_EQ(get(r.get(), nullptr, "k"), "v2");
  expect_error(ordo_cursor_first(c.get(), &err_), ORDO_TXN_ENDED, "txn");  // ended for good
  // Neither inside the txn's own scan callback.
  struct Ctx {
    ordo_txn* txn;
    int reset_rc = ORDO_OK;
    int renew_rc = ORDO_OK;
  } ctx{r.get()};
  auto fn = [](void* p, const void*, size_t, const void*, size_t) {
    auto* x = static_cast<Ctx*>(p);
    x->reset_rc = ordo_txn_reset(x->txn, nullptr);
    x->renew_rc = ordo_txn_renew(x->txn, nullptr);
    return 0;
  };
  ASSERT_EQ(ordo_scan(r.get(), nullptr, nullptr, 0, nullptr, 0, fn, &ctx, &err_), ORDO_OK)
      << err_.message;
  EXPECT_EQ(ctx.reset_rc, ORDO_INVALID_ARGUMENT);
  EXPECT_EQ(ctx.renew_rc, ORDO_INVALID_ARGUMENT);
  EXPECT_EQ(get(r.get(), nullptr, "k"), "v2");
  // Write txns, NULL, and an aborted txn.
  {
    Txn w = write(db.get());
    expect_error(ordo_txn_reset(w.get(), &err_), ORDO_INVALID_ARGUMENT, "write txn");
    expect_error(ordo_txn_renew(w.get(), &err_), ORDO_INVALID_ARGUMENT, "write txn");
  }
  expect_error(ordo_txn_reset(nullptr, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  expect_error(ordo_txn_renew(nullptr, &err_), ORDO_INVALID_ARGUMENT, "txn is NULL");
  ASSERT_EQ(ordo_txn_reset(r.get(), &err_), ORDO_OK);
  ASSERT_EQ(ordo_txn_abort(r.get(), &err_), ORDO_OK);
  expect_error(ordo_txn_renew(r.get(), &err_), ORDO_TXN_ENDED, "txn");
}

TEST_F(CApiTest, TreeHandleOfAnotherDatabaseIsRefused) {
  Db a = open(dir_.file("a.ordo"));
  Db b = open(dir_.file("b.ordo"));
  Txn wa = write(a.get());
  Tree of_a = create(wa.get(), "t");
  ASSERT_EQ(put(wa.get(), of_a.get(), "k", "a"), ORDO_OK);
  ASSERT_EQ(ordo_txn_commit(wa.get(), &err_), ORDO_OK);
  Txn wb = write(b.get());
  Tree of_b = create(wb.get(), "t");
  const char* why = "another Database";
  expect_error(put(wb.get(), of_a.get(), "k", "b"), ORDO_INVALID_ARGUMENT, why);
  const void* v = nullptr;
  size_t n = 0;
  expect_error(ordo_get(wb.get(), of_a.get(), "k", 1, &v, &n, &err_), ORDO_INVALID_ARGUMENT, why);
  ordo_cursor* c = nullptr;
  expect_error(ordo_cursor_open(wb.get(), of_a.get(), &c, &err_), ORDO_INVALID_ARGUMENT, why);
  Visit visit;
  expect_error(ordo_scan(wb.get(), of_a.get(), nullptr, 0, nullptr, 0, Visit::fn, &visit, &err_),
               ORDO_INVALID_ARGUMENT, why);
  // Refused up front: the txn goes on.
  ASSERT_EQ(put(wb.get(), of_b.get(), "k", "b"), ORDO_OK);
  ASSERT_EQ(ordo_txn_commit(wb.get(), &err_), ORDO_OK);
  Txn ra = read(a.get());
  EXPECT_EQ(get(ra.get(), of_a.get(), "k"), "a");
}

TEST_F(CApiTest, SecondBeginWriteOnTheSameThreadIsBusy) {
  Db db = open(path());
  Txn w = write(db.get());
  ordo_txn* again = nullptr;
  expect_error(ordo_begin_write(db.get(), &again, &err_), ORDO_BUSY, "this thread already holds");
  expect_error(ordo_try_begin_write(db.get(), &again, &err_), ORDO_BUSY, "");
  expect_error(ordo_begin_write_timeout(db.get(), 50, &again, &err_), ORDO_BUSY, "");
  EXPECT_EQ(again, nullptr);
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  ordo_txn* next = nullptr;
  ASSERT_EQ(ordo_try_begin_write(db.get(), &next, &err_), ORDO_OK) << err_.message;
  ordo_txn_free(next);
}

TEST_F(CApiTest, TimedBeginWriteWhileAnotherThreadWrites) {
  Db db = open(path());
  Txn w = write(db.get());
  std::thread other([&] {
    ordo_error err;
    ordo_txn* t = nullptr;
    EXPECT_EQ(ordo_try_begin_write(db.get(), &t, &err), ORDO_BUSY);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(ordo_begin_write_timeout(db.get(), 100, &t, &err), ORDO_BUSY);
    EXPECT_TRUE(contains(err.message, "timed out")) << err.message;
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
    EXPECT_EQ(t, nullptr);
  });
  other.join();
  ASSERT_EQ(put(w.get(), nullptr, "k", "v"), ORDO_OK);
  // The write txn may end on another thread; then this thread writes again.
  std::thread committer([&] { EXPECT_EQ(ordo_txn_commit(w.get(), nullptr), ORDO_OK); });
  committer.join();
  Txn next = write(db.get());
  EXPECT_EQ(get(next.get(), nullptr, "k"), "v");
}

// ordo_batch's callback context: puts `key` = `value`, or what `mode` says.
struct BatchWork {
  enum Mode { kPut, kPutThenFail, kCommit, kAbortAndFree, kNested };
  std::string key;
  std::string value;
  Mode mode = kPut;
  ordo_db* db = nullptr;  // kNested
  int inner = -1;         // what the call the mode makes returned
  int calls = 0;
  static int fn(void* ctx, ordo_txn* txn) {
    auto* w = static_cast<BatchWork*>(ctx);
    w->calls++;
    if (!ordo_txn_live(txn) || !ordo_txn_writable(txn)) return ORDO_INTERNAL;
    const int rc = ordo_put(txn, nullptr, w->key.data(), w->key.size(), w->value.data(),
                            w->value.size(), nullptr);
    if (rc != ORDO_OK) return rc;
    switch (w->mode) {
      case kPut:
        return ORDO_OK;
      case kPutThenFail:
        return ORDO_NOT_FOUND;
      case kCommit:
        w->inner = ordo_txn_commit(txn, nullptr);
        return ORDO_OK;
      case kAbortAndFree:
        w->inner = ordo_txn_abort(txn, nullptr);
        ordo_txn_free(txn);  // does nothing: the handle is ordo_batch's
        return ordo_txn_live(txn) ? ORDO_OK : ORDO_INTERNAL;
      case kNested: {
        BatchWork inner_work{"nested", "v"};
        w->inner = ordo_batch(w->db, BatchWork::fn, &inner_work, nullptr);
        return ORDO_OK;
      }
    }
    return ORDO_INTERNAL;
  }
};

TEST_F(CApiTest, BatchCommitsTheCallersChangesAndReportsItsOwnFailure) {
  Db db = open(path());
  BatchWork ok{"a", "1"};
  ASSERT_EQ(ordo_batch(db.get(), BatchWork::fn, &ok, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(err_.code, ORDO_OK);
  BatchWork fails{"b", "2", BatchWork::kPutThenFail};
  expect_error(ordo_batch(db.get(), BatchWork::fn, &fails, &err_), ORDO_NOT_FOUND,
               "the batch function returned 1");
  EXPECT_EQ(fails.calls, 1);
  BatchWork commits{"c", "3", BatchWork::kCommit};
  expect_error(ordo_batch(db.get(), BatchWork::fn, &commits, &err_), ORDO_INVALID_ARGUMENT,
               "batch");
  EXPECT_EQ(commits.inner, ORDO_INVALID_ARGUMENT);
  BatchWork aborts{"d", "4", BatchWork::kAbortAndFree};
  expect_error(ordo_batch(db.get(), BatchWork::fn, &aborts, &err_), ORDO_INVALID_ARGUMENT, "batch");
  EXPECT_EQ(aborts.inner, ORDO_INVALID_ARGUMENT);
  BatchWork nests{"e", "5", BatchWork::kNested, db.get()};
  ASSERT_EQ(ordo_batch(db.get(), BatchWork::fn, &nests, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(nests.inner, ORDO_BUSY);
  Txn r = read(db.get());
  EXPECT_EQ(get(r.get(), nullptr, "a"), "1");
  EXPECT_EQ(get(r.get(), nullptr, "b"), "<NotFound>");
  EXPECT_EQ(get(r.get(), nullptr, "c"), "<NotFound>");
  EXPECT_EQ(get(r.get(), nullptr, "d"), "<NotFound>");
  EXPECT_EQ(get(r.get(), nullptr, "e"), "5");
  EXPECT_EQ(get(r.get(), nullptr, "nested"), "<NotFound>");
  // Misuse: NULL arguments; the thread that holds the write txn.
  expect_error(ordo_batch(nullptr, BatchWork::fn, &ok, &err_), ORDO_INVALID_ARGUMENT, "db");
  expect_error(ordo_batch(db.get(), nullptr, &ok, &err_), ORDO_INVALID_ARGUMENT, "fn");
  Txn w = write(db.get());
  BatchWork held{"f", "6"};
  expect_error(ordo_batch(db.get(), BatchWork::fn, &held, &err_), ORDO_BUSY, "write txn");
  EXPECT_EQ(held.calls, 0);
}

TEST_F(CApiTest, BatchFromManyThreads) {
  Db db = open(path());
  constexpr int kThreads = 4;
  constexpr int kCalls = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        BatchWork work{"t" + std::to_string(t) + "-" + std::to_string(i), std::to_string(i * t)};
        ordo_error err;
        EXPECT_EQ(ordo_batch(db.get(), BatchWork::fn, &work, &err), ORDO_OK) << err.message;
      }
    });
  }
  for (auto& t : threads) t.join();
  Txn r = read(db.get());
  EXPECT_EQ(scan_keys(r.get(), nullptr).size(), static_cast<size_t>(kThreads * kCalls));
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kCalls; ++i) {
      EXPECT_EQ(get(r.get(), nullptr, "t" + std::to_string(t) + "-" + std::to_string(i)),
                std::to_string(i * t));
    }
  }
}

// A batch function that adds one to the decimal counter under "n" with
// ordo_get and ordo_compare_and_set.
int increment_counter(void*, ordo_txn* txn) {
  const void* v = nullptr;
  size_t n = 0;
  ordo_error err;
  int rc = ordo_get(txn, nullptr, "n", 1, &v, &n, &err);
  if (rc != ORDO_OK && rc != ORDO_NOT_FOUND) return rc;
  const bool present = rc == ORDO_OK;
  const std::string old = present ? str(v, n) : "";
  const std::string next = std::to_string(present ? std::stoull(old) + 1 : 1);
  bool applied = false;
  rc = ordo_compare_and_set(txn, nullptr, "n", 1, present ? old.data() : nullptr, old.size(),
                            next.data(), next.size(), present ? 0 : ORDO_CAS_EXPECT_ABSENT,
                            &applied, &err);
  if (rc != ORDO_OK) return rc;
  return applied ? ORDO_OK : ORDO_BUSY;
}

TEST_F(CApiTest, InsertReplaceAndCompareAndSet) {
  Db db = open(path());
  uint32_t inline_max = 0;
  ASSERT_EQ(ordo_db_max_inline_value_bytes(db.get(), &inline_max, &err_), ORDO_OK);
  const std::string big(3 * inline_max, 'B');
  Txn w = write(db.get());
  Tree t = create(w.get(), "t");
  bool inserted = false;
  ASSERT_EQ(ordo_insert(w.get(), t.get(), "k", 1, "v1", 2, &inserted, &err_), ORDO_OK)
      << err_.message;
  EXPECT_TRUE(inserted);
  ASSERT_EQ(ordo_insert(w.get(), t.get(), "k", 1, "v2", 2, &inserted, &err_), ORDO_OK);
  EXPECT_FALSE(inserted);
  ASSERT_EQ(ordo_insert(w.get(), t.get(), "big", 3, big.data(), big.size(), nullptr, &err_),
            ORDO_OK);
  EXPECT_EQ(get(w.get(), t.get(), "k"), "v1");

  // replace: the old value, an overflow one too, from the txn's buffer.
  const void* old = nullptr;
  size_t old_len = 99;
  bool existed = true;
  ASSERT_EQ(ordo_replace(w.get(), t.get(), "new", 3, "n", 1, &old, &old_len, &existed, &err_),
            ORDO_OK)
      << err_.message;
  EXPECT_FALSE(existed);
  EXPECT_NE(old, nullptr);
  EXPECT_EQ(old_len, 0u);
  ASSERT_EQ(ordo_replace(w.get(), t.get(), "big", 3, "small", 5, &old, &old_len, &existed, &err_),
            ORDO_OK);
  EXPECT_TRUE(existed);
  EXPECT_EQ(str(old, old_len), big);
  ASSERT_EQ(ordo_replace(w.get(), t.get(), "k", 1, "v3", 2, nullptr, nullptr, nullptr, &err_),
            ORDO_OK);
  EXPECT_EQ(get(w.get(), t.get(), "k"), "v3");

  // compare_and_set: values, absence, deletion.
  bool applied = true;
  ASSERT_EQ(ordo_compare_and_set(w.get(), t.get(), "k", 1, "v1", 2, "x", 1, 0, &applied, &err_),
            ORDO_OK);
  EXPECT_FALSE(applied);
  ASSERT_EQ(ordo_compare_and_set(w.get(), t.get(), "k", 1, "v3", 2, "x", 1, 0, &applied, &err_),
            ORDO_OK);
  EXPECT_TRUE(applied);
  ASSERT_EQ(ordo_compare_and_set(w.get(), t.get(), "k", 1, nullptr, 0, "y", 1,
                                 ORDO_CAS_EXPECT_ABSENT, &applied, &err_),
            ORDO_OK);
  EXPECT_FALSE(applied);
  // NULL with length 0 is the empty value, not absence.
  ASSERT_EQ(ordo_compare_and_set(w.get(), t.get(), "e", 1, nullptr, 0, "y", 1, 0, &applied, &err_),
            ORDO_OK);
  EXPECT_FALSE(applied);
  ASSERT_EQ(ordo_compare_and_set(w.get(), t.get(), "e", 1, nullptr, 0, nullptr, 0,
                                 ORDO_CAS_EXPECT_ABSENT, &applied, &err_),
            ORDO_OK);
  EXPECT_TRUE(applied);
  EXPECT_EQ(get(w.get(), t.get(), "e"), "");
  ASSERT_EQ(ordo_compare_and_set(w.get(), t.get(), "k", 1, "x", 1, nullptr, 0, ORDO_CAS_DELETE,
                                 &applied, &err_),
            ORDO_OK);
  EXPECT_TRUE(applied);
  EXPECT_EQ(get(w.get(), t.get(), "k"), "<NotFound>");

  // Misuse.
  expect_error(ordo_compare_and_set(w.get(), t.get(), "k", 1, "x", 1, "y", 1, 4, &applied, &err_),
               ORDO_INVALID_ARGUMENT, "flags");
  expect_error(ordo_compare_and_set(w.get(), t.get(), "k", 1, "x", 1, "y", 1,
                                    ORDO_CAS_EXPECT_ABSENT, &applied, &err_),
               ORDO_INVALID_ARGUMENT, "expected");
  expect_error(ordo_compare_and_set(w.get(), t.get(), "k", 1, "x", 1, "y", 1, ORDO_CAS_DELETE,
                                    &applied, &err_),
               ORDO_INVALID_ARGUMENT, "desired");
  expect_error(ordo_replace(w.get(), t.get(), "k", 1, "v", 1, &old, nullptr, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "old_value");
  expect_error(ordo_insert(w.get(), t.get(), nullptr, 1, "v", 1, &inserted, &err_),
               ORDO_INVALID_ARGUMENT, "key");
  uint32_t max_key = 0;
  ASSERT_EQ(ordo_db_max_key_bytes(db.get(), &max_key, &err_), ORDO_OK);
  const std::string long_key(max_key + 1, 'k');
  expect_error(
      ordo_insert(w.get(), t.get(), long_key.data(), long_key.size(), "v", 1, &inserted, &err_),
      ORDO_INVALID_ARGUMENT, "key");
  expect_error(ordo_insert(nullptr, t.get(), "k", 1, "v", 1, &inserted, &err_),
               ORDO_INVALID_ARGUMENT, "txn");
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
  expect_error(ordo_insert(w.get(), t.get(), "k", 1, "v", 1, &inserted, &err_), ORDO_TXN_ENDED,
               "ordo_insert");
  expect_error(ordo_replace(w.get(), t.get(), "k", 1, "v", 1, &old, &old_len, &existed, &err_),
               ORDO_TXN_ENDED, "ordo_replace");
  Txn r = read(db.get());
  expect_error(ordo_compare_and_set(r.get(), t.get(), "k", 1, nullptr, 0, "v", 1,
                                    ORDO_CAS_EXPECT_ABSENT, &applied, &err_),
               ORDO_INVALID_ARGUMENT, "read txn");
  EXPECT_EQ(get(r.get(), t.get(), "big"), "small");
  EXPECT_EQ(get(r.get(), t.get(), "new"), "n");
  EXPECT_EQ(get(r.get(), t.get(), "e"), "");
  EXPECT_EQ(scan_keys(r.get(), t.get()), (std::vector<std::string>{"big", "e", "new"}));
}

TEST_F(CApiTest, BatchCompareAndSetCountsEveryIncrement) {
  Db db = open(path());
  constexpr int kThreads = 4;
  constexpr int kCalls = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        ordo_error err;
        EXPECT_EQ(ordo_batch(db.get(), increment_counter, nullptr, &err), ORDO_OK) << err.message;
      }
    });
  }
  for (auto& t : threads) t.join();
  Txn r = read(db.get());
  EXPECT_EQ(get(r.get(), nullptr, "n"), std::to_string(kThreads * kCalls));
}

TEST_F(CApiTest, InfoCheckCopyAndTreeStats) {
  Db db = open(path());
  {
    Txn w = write(db.get());
    Tree t = create(w.get(), "t");
    for (int i = 0; i < 500; ++i) {
      ASSERT_EQ(put(w.get(), t.get(), "key" + std::to_string(i), std::string(100, 'v')), ORDO_OK);
    }
    ASSERT_EQ(put(w.get(), nullptr, "big", std::string(10000, 'B')), ORDO_OK);
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
    Txn d = write(db.get());  // leaves free pages behind
    ASSERT_EQ(ordo_del_range(d.get(), t.get(), "key1", 4, "key3", 4, nullptr, &err_), ORDO_OK);
    ASSERT_EQ(ordo_txn_commit(d.get(), &err_), ORDO_OK) << err_.message;
  }
  ordo_database_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(ordo_db_info(db.get(), &info, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(info.struct_size, sizeof info);
  EXPECT_EQ(info.page_size_bytes, 4096u);
  EXPECT_EQ(info.format_version, 4u);
  EXPECT_EQ(info.txn_id, 2u);  // two commits
  EXPECT_EQ(info.tree_count, 1u);
  EXPECT_GT(info.page_high_water, 0u);
  EXPECT_EQ(info.pages_used + info.free_pages, info.page_high_water);
  EXPECT_GE(info.file_bytes, info.page_high_water * info.page_size_bytes);

  ordo_check_report report{};
  report.struct_size = sizeof report;
  ASSERT_EQ(ordo_db_check(db.get(), &report, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(report.problems, 0u) << report.first_problem;
  EXPECT_FALSE(report.truncated);
  EXPECT_STREQ(report.first_problem, "");
  EXPECT_EQ(report.first_problem_page, UINT64_MAX);
  EXPECT_EQ(report.txn_id, info.txn_id);
  EXPECT_EQ(report.trees, 2u);
  EXPECT_EQ(report.high_water_pages, info.page_high_water);
  EXPECT_EQ(report.free_pages, info.free_pages);
  EXPECT_EQ(report.overflow_pages, 3u);

  Txn r = read(db.get());
  Tree t = open_tree(r.get(), "t");
  ordo_tree_statistics stats{};
  stats.struct_size = sizeof stats;
  ASSERT_EQ(ordo_tree_stats(r.get(), t.get(), &stats, &err_), ORDO_OK) << err_.message;
  const size_t left = scan_keys(r.get(), t.get()).size();
  EXPECT_EQ(stats.entries, left);
  EXPECT_EQ(stats.key_bytes + stats.value_bytes > 100 * left, true);
  EXPECT_GE(stats.depth, 2u);
  EXPECT_GT(stats.leaf_pages, 1u);
  EXPECT_GT(stats.leaf_fill, 0.0);
  EXPECT_LE(stats.leaf_fill, 1.0);
  ASSERT_EQ(ordo_tree_stats(r.get(), nullptr, &stats, &err_), ORDO_OK);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.overflow_values, 1u);
  EXPECT_EQ(stats.overflow_pages, 3u);

  // Copies, plain and compact; the compact one has no free page.
  const std::string plain = dir_.file("plain.ordo");
  const std::string compact = dir_.file("compact.ordo");
  ASSERT_EQ(ordo_db_copy(db.get(), plain.c_str(), 0, &err_), ORDO_OK) << err_.message;
  ASSERT_EQ(ordo_db_copy(db.get(), compact.c_str(), ORDO_COPY_COMPACT, &err_), ORDO_OK)
      << err_.message;
  expect_error(ordo_db_copy(db.get(), plain.c_str(), 0, &err_), ORDO_INVALID_ARGUMENT, "exists");
  ASSERT_EQ(ordo_db_copy(db.get(), plain.c_str(), ORDO_COPY_OVERWRITE, &err_), ORDO_OK)
      << err_.message;
  expect_error(ordo_db_copy(db.get(), plain.c_str(), 8, &err_), ORDO_INVALID_ARGUMENT, "flags");
  expect_error(ordo_db_copy(db.get(), nullptr, 0, &err_), ORDO_INVALID_ARGUMENT, "path");
  expect_error(ordo_db_copy(db.get(), dir_.file("no/such/dir.ordo").c_str(), 0, &err_),
               ORDO_NOT_FOUND, "ordo_db_copy");
  for (const std::string& p : {plain, compact}) {
    Db copy = open(p);
    ordo_database_info ci{};
    ci.struct_size = sizeof ci;
    ASSERT_EQ(ordo_db_info(copy.get(), &ci, &err_), ORDO_OK);
    EXPECT_EQ(ci.txn_id, info.txn_id);
    EXPECT_EQ(ci.tree_count, 1u);
    if (p == compact) {
      EXPECT_EQ(ci.free_pages, 0u);
      EXPECT_LT(ci.page_high_water, info.page_high_water);
    }
    Txn cr = read(copy.get());
    Tree ct = open_tree(cr.get(), "t");
    EXPECT_EQ(scan_keys(cr.get(), ct.get()).size(), left);
    EXPECT_EQ(get(cr.get(), nullptr, "big"), std::string(10000, 'B'));
    ordo_check_report cc{};
    cc.struct_size = sizeof cc;
    ASSERT_EQ(ordo_db_check(copy.get(), &cc, &err_), ORDO_OK);
    EXPECT_EQ(cc.problems, 0u) << cc.first_problem;
  }

  // Versioned structs: too small is refused before any work; a newer, larger
  // one gets its unknown tail zeroed.
  ordo_database_info small{};
  small.struct_size = sizeof(size_t);
  expect_error(ordo_db_info(db.get(), &small, &err_), ORDO_INVALID_ARGUMENT, "struct_size");
  ordo_check_report small_report{};
  small_report.struct_size = sizeof small_report - 1;
  expect_error(ordo_db_check(db.get(), &small_report, &err_), ORDO_INVALID_ARGUMENT, "struct_size");
  expect_error(ordo_tree_stats(r.get(), nullptr, nullptr, &err_), ORDO_INVALID_ARGUMENT, "stats");
  expect_error(ordo_db_info(nullptr, &info, &err_), ORDO_INVALID_ARGUMENT, "db");
  struct Newer {
    ordo_database_info known;
    uint64_t later_field;
  } newer;
  std::memset(&newer, 0xff, sizeof newer);
  newer.known.struct_size = sizeof newer;
  ASSERT_EQ(ordo_db_info(db.get(), &newer.known, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(newer.known.struct_size, sizeof newer);
  EXPECT_EQ(newer.known.txn_id, info.txn_id);
  EXPECT_EQ(newer.later_field, 0u);
  // A tree that does not exist in the txn.
  Txn w = write(db.get());
  ASSERT_EQ(ordo_tree_drop(w.get(), "t", 1, &err_), ORDO_OK);
  expect_error(ordo_tree_stats(w.get(), t.get(), &stats, &err_), ORDO_NOT_FOUND, "t");
}

TEST_F(CApiTest, SecondWritableOpenIsBusy) {
  Db first = open(path());
  ASSERT_NE(first, nullptr);
  ordo_db* second = nullptr;
  expect_error(ordo_open(path().c_str(), nullptr, &second, &err_), ORDO_BUSY, "");
  EXPECT_EQ(second, nullptr);
  ordo_options o;
  ASSERT_EQ(ordo_options_init(&o, sizeof o, &err_), ORDO_OK);
  o.writer_wait_ms = 50;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ordo_open(path().c_str(), &o, &second, &err_), ORDO_BUSY);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  // Read-only opens take no writer lock.
  o.read_only = true;
  Db reader = open(path(), &o);
  EXPECT_NE(reader, nullptr);
}

TEST_F(CApiTest, FilesThatAreNotDatabases) {
  std::ofstream(path()) << "name,value\nalpha,1\nbeta,2\n";
  ordo_db* db = nullptr;
  expect_error(ordo_open(path().c_str(), nullptr, &db, &err_), ORDO_NOT_ORDO_FILE,
               "not an ordo database");
  EXPECT_EQ(db, nullptr);
  std::ofstream(dir_.file("big.txt")) << std::string(20000, 'x');
  expect_error(ordo_open(dir_.file("big.txt").c_str(), nullptr, &db, &err_), ORDO_NOT_ORDO_FILE,
               "not an ordo database");
  ordo_options o;
  ASSERT_EQ(ordo_options_init(&o, sizeof o, &err_), ORDO_OK);
  o.create_if_missing = false;
  expect_error(ordo_open(dir_.file("missing.ordo").c_str(), &o, &db, &err_), ORDO_NOT_FOUND,
               "missing.ordo");
  expect_error(ordo_open(dir_.file("no/such/dir/x.ordo").c_str(), nullptr, &db, &err_),
               ORDO_NOT_FOUND, "No such file");
  // A directory: the OS refuses to open it for writing.
  expect_error(ordo_open(dir_.file("").c_str(), nullptr, &db, &err_), ORDO_IO_ERROR, "errno");
  EXPECT_NE(err_.sys_errno, 0);
  EXPECT_EQ(db, nullptr);
}

TEST_F(CApiTest, TxnAndCursorOutliveTheDatabaseHandle) {
  Db db = open(path());
  {
    Txn w = write(db.get());
    for (char k = 'a'; k <= 'e'; ++k) ASSERT_EQ(put(w.get(), nullptr, {k}, {k, k}), ORDO_OK);
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  }
  Txn r = read(db.get());
  Txn w = write(db.get());
  Cursor c = cursor(r.get(), nullptr);
  db.reset();  // ordo_db_close
  // The file stays open and locked while the txns live.
  ordo_db* other = nullptr;
  EXPECT_EQ(ordo_open(path().c_str(), nullptr, &other, &err_), ORDO_BUSY) << err_.message;
  ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK) << err_.message;
  const void* k = nullptr;
  size_t n = 0;
  ASSERT_EQ(ordo_cursor_key(c.get(), &k, &n, &err_), ORDO_OK);
  EXPECT_EQ(str(k, n), "a");
  ASSERT_EQ(put(w.get(), nullptr, "c", "new"), ORDO_OK);
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(get(r.get(), nullptr, "c"), "cc");  // its snapshot
  w.reset();
  r.reset();
  expect_error(ordo_cursor_next(c.get(), &err_), ORDO_TXN_ENDED, "");
  // The last txn is gone: the file is closed and opens again.
  Db again = open(path());
  ASSERT_NE(again, nullptr);
  Txn r2 = read(again.get());
  EXPECT_EQ(get(r2.get(), nullptr, "c"), "new");
}

TEST_F(CApiTest, CursorWritesAndDroppedTree) {
  Db db = open(path());
  Txn w = write(db.get());
  Tree t = create(w.get(), "t");
  Cursor c = cursor(w.get(), t.get());
  ASSERT_EQ(ordo_cursor_put(c.get(), "b", 1, "2", 1, &err_), ORDO_OK) << err_.message;
  ASSERT_TRUE(ordo_cursor_valid(c.get()));
  ASSERT_EQ(put(w.get(), t.get(), "a", "1"), ORDO_OK);
  ASSERT_EQ(put(w.get(), t.get(), "c", "3"), ORDO_OK);
  const void* v = nullptr;
  size_t n = 0;
  ASSERT_EQ(ordo_cursor_value(c.get(), &v, &n, &err_), ORDO_OK);  // still on "b"
  EXPECT_EQ(str(v, n), "2");
  ASSERT_EQ(ordo_cursor_del(c.get(), &err_), ORDO_OK);
  ASSERT_EQ(ordo_cursor_key(c.get(), &v, &n, &err_), ORDO_OK);  // moved to "c"
  EXPECT_EQ(str(v, n), "c");
  ASSERT_EQ(ordo_cursor_next(c.get(), &err_), ORDO_OK);
  expect_error(ordo_cursor_del(c.get(), &err_), ORDO_INVALID_ARGUMENT, "not on an entry");
  // Drop, rename: handles to the old names report NotFound.
  Tree u = create(w.get(), "u");
  ASSERT_EQ(ordo_tree_rename(w.get(), "u", 1, "v", 1, &err_), ORDO_OK) << err_.message;
  expect_error(put(w.get(), u.get(), "k", "v"), ORDO_NOT_FOUND, "u");
  Tree renamed = open_tree(w.get(), "v");
  ASSERT_EQ(put(w.get(), renamed.get(), "k", "v"), ORDO_OK);
  expect_error(ordo_tree_rename(w.get(), "v", 1, "t", 1, &err_), ORDO_INVALID_ARGUMENT, "exists");
  ASSERT_EQ(ordo_cursor_first(c.get(), &err_), ORDO_OK);
  ASSERT_EQ(ordo_tree_drop(w.get(), "t", 1, &err_), ORDO_OK) << err_.message;
  EXPECT_FALSE(ordo_cursor_valid(c.get()));
  expect_error(ordo_cursor_key(c.get(), &v, &n, &err_), ORDO_NOT_FOUND, "t");
  expect_error(ordo_cursor_first(c.get(), &err_), ORDO_NOT_FOUND, "t");
  expect_error(ordo_tree_drop(w.get(), "t", 1, &err_), ORDO_NOT_FOUND, "t");
  expect_error(ordo_tree_drop(w.get(), nullptr, 0, &err_), ORDO_INVALID_ARGUMENT, "default tree");
  ordo_tree* gone = nullptr;
  expect_error(ordo_tree_open(w.get(), "t", 1, &gone, &err_), ORDO_NOT_FOUND, "no tree named");
  EXPECT_EQ(gone, nullptr);
}

TEST_F(CApiTest, AppendLoadsAscendingKeys) {
  Db db = open(path());
  Txn w = write(db.get());
  for (int i = 0; i < 2000; ++i) {
    char k[16];
    std::snprintf(k, sizeof k, "%08d", i);
    ASSERT_EQ(ordo_append(w.get(), nullptr, k, 8, "v", 1, &err_), ORDO_OK) << err_.message;
  }
  expect_error(ordo_append(w.get(), nullptr, "0", 1, "v", 1, &err_), ORDO_INVALID_ARGUMENT,
               "ordo_append");
  EXPECT_EQ(scan_keys(w.get(), nullptr).size(), 2000u);
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
}

TEST_F(CApiTest, ScanCallbackMayWriteButNotEndTheTxn) {
  Db db = open(path());
  Txn w = write(db.get());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(put(w.get(), nullptr, std::to_string(i), "v"), ORDO_OK);
  struct Ctx {
    ordo_txn* txn;
    int visited = 0;
    int end_rc = ORDO_OK;
    int commit_rc = ORDO_OK;
  } ctx{w.get()};
  // Deletes each entry it visits; tries to end the txn once.
  auto fn = [](void* p, const void* k, size_t kl, const void*, size_t) {
    auto* c = static_cast<Ctx*>(p);
    const std::string key = str(k, kl);  // the view dies with the delete
    EXPECT_EQ(ordo_del(c->txn, nullptr, key.data(), key.size(), nullptr), ORDO_OK);
    if (c->visited++ == 10) {
      c->end_rc = ordo_txn_abort(c->txn, nullptr);
      c->commit_rc = ordo_txn_commit(c->txn, nullptr);
    }
    return 0;
  };
  ASSERT_EQ(ordo_scan(w.get(), nullptr, nullptr, 0, nullptr, 0, fn, &ctx, &err_), ORDO_OK)
      << err_.message;
  EXPECT_EQ(ctx.visited, 1000);
  EXPECT_EQ(ctx.end_rc, ORDO_INVALID_ARGUMENT);
  EXPECT_EQ(ctx.commit_rc, ORDO_INVALID_ARGUMENT);
  EXPECT_TRUE(scan_keys(w.get(), nullptr).empty());
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);
  // Freeing the txn from its own callback stops the scan and frees it after.
  ordo_txn* r = nullptr;
  {
    Txn w2 = write(db.get());
    for (int i = 0; i < 10; ++i) ASSERT_EQ(put(w2.get(), nullptr, std::to_string(i), "v"), ORDO_OK);
    ASSERT_EQ(ordo_txn_commit(w2.get(), &err_), ORDO_OK);
  }
  ASSERT_EQ(ordo_begin_read(db.get(), &r, &err_), ORDO_OK);
  struct FreeCtx {
    ordo_txn* txn;
    int visited = 0;
  } free_ctx{r};
  auto free_fn = [](void* p, const void*, size_t, const void*, size_t) {
    auto* c = static_cast<FreeCtx*>(p);
    if (++c->visited == 3) ordo_txn_free(c->txn);
    return 0;
  };
  EXPECT_EQ(ordo_scan(r, nullptr, nullptr, 0, nullptr, 0, free_fn, &free_ctx, &err_), ORDO_OK);
  EXPECT_EQ(free_ctx.visited, 3);  // r is freed now (ASan checks)
}

TEST_F(CApiTest, IdsAndUuidText) {
  Db db = open(path());
  Txn w = write(db.get());
  uint8_t a[ORDO_UUID_BYTES], b[ORDO_UUID_BYTES];
  ASSERT_EQ(ordo_next_id(w.get(), a, &err_), ORDO_OK) << err_.message;
  ASSERT_EQ(ordo_next_id(w.get(), b, &err_), ORDO_OK);
  EXPECT_LT(std::memcmp(a, b, ORDO_UUID_BYTES), 0);  // byte order is time order
  EXPECT_EQ(a[6] >> 4, 7);                           // version 7
  EXPECT_EQ(a[8] >> 6, 2);                           // RFC 9562 variant
  uint64_t x = 0, y = 0;
  ASSERT_EQ(ordo_next_id64(w.get(), &x, &err_), ORDO_OK);
  ASSERT_EQ(ordo_next_id64(w.get(), &y, &err_), ORDO_OK);
  EXPECT_LT(x, y);
  EXPECT_EQ(x >> 63, 0u);
  ASSERT_EQ(ordo_put(w.get(), nullptr, a, sizeof a, "node", 4, &err_), ORDO_OK);
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK);

  char text[ORDO_UUID_STRING_SIZE];
  ASSERT_EQ(ordo_uuid_format(a, text, sizeof text, &err_), ORDO_OK);
  EXPECT_EQ(std::strlen(text), 36u);
  EXPECT_EQ(text[8], '-');
  EXPECT_EQ(text[14], '7');
  uint8_t parsed[ORDO_UUID_BYTES];
  ASSERT_EQ(ordo_uuid_parse(text, 36, parsed, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(std::memcmp(parsed, a, sizeof a), 0);
  const uint8_t known[ORDO_UUID_BYTES] = {0x01, 0x8f, 0x2c, 0x3a, 0x4b, 0x5c, 0x7d, 0x6e,
                                          0x8f, 0x70, 0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6};
  ASSERT_EQ(ordo_uuid_format(known, text, sizeof text, &err_), ORDO_OK);
  EXPECT_STREQ(text, "018f2c3a-4b5c-7d6e-8f70-8192a3b4c5d6");
  expect_error(ordo_uuid_format(known, text, 36, &err_), ORDO_INVALID_ARGUMENT, "too small");
  expect_error(ordo_uuid_parse("018f2c3a-4b5c-7d6e-8f70", 23, parsed, &err_), ORDO_INVALID_ARGUMENT,
               "ordo_uuid_parse");
  expect_error(ordo_uuid_parse("018f2c3a+4b5c-7d6e-8f70-8192a3b4c5d6", 36, parsed, &err_),
               ORDO_INVALID_ARGUMENT, "-");
  // IDs never go backwards across a reopen.
  db.reset();
  w.reset();
  Db again = open(path());
  Txn w2 = write(again.get());
  uint8_t c[ORDO_UUID_BYTES];
  ASSERT_EQ(ordo_next_id(w2.get(), c, &err_), ORDO_OK);
  EXPECT_LT(std::memcmp(b, c, ORDO_UUID_BYTES), 0);
}

TEST_F(CApiTest, ErrorStructIsOverwrittenByEachCall) {
  Db db = open(path());
  Txn r = read(db.get());
  const void* v = nullptr;
  size_t n = 0;
  EXPECT_EQ(ordo_get(r.get(), nullptr, "nope", 4, &v, &n, &err_), ORDO_NOT_FOUND);
  EXPECT_STREQ(err_.message, "NotFound: ordo_get: key not found");
  EXPECT_EQ(err_.page_number, UINT64_MAX);
  EXPECT_EQ(v, nullptr);
  EXPECT_EQ(n, 0u);
  uint64_t id = 0;
  EXPECT_EQ(ordo_txn_id(r.get(), &id, &err_), ORDO_OK);
  EXPECT_EQ(err_.code, ORDO_OK);
  EXPECT_STREQ(err_.message, "");
  // A long message is cut to fit, NUL-terminated.
  const std::string name(900, 'n');
  ordo_tree* t = nullptr;
  EXPECT_EQ(ordo_tree_open(r.get(), name.data(), name.size(), &t, &err_), ORDO_NOT_FOUND);
  EXPECT_EQ(std::strlen(err_.message), sizeof(err_.message) - 1);
}

// ordo_count, ordo_count_prefix, ordo_rank and ordo_cursor_at, in a write
// txn (its own writes) and a read txn.
TEST_F(CApiTest, CountRankAndCursorAt) {
  Db db = open(path());
  {
    Txn w = write(db.get());
    Tree t = create(w.get(), "t");
    for (int i = 0; i < 5000; ++i) {
      char k[16];
      std::snprintf(k, sizeof k, "k%05d", i);
      ASSERT_EQ(put(w.get(), t.get(), k, "v"), ORDO_OK) << err_.message;
    }
    uint64_t n = 0;
    ASSERT_EQ(ordo_count(w.get(), t.get(), "k01000", 6, "k02000", 6, &n, &err_), ORDO_OK)
        << err_.message;
    EXPECT_EQ(n, 1000u);
    ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
  }
  Txn r = read(db.get());
  Tree t = open_tree(r.get(), "t");
  uint64_t n = 0;
  ASSERT_EQ(ordo_count(r.get(), t.get(), nullptr, 0, nullptr, 0, &n, &err_), ORDO_OK);
  EXPECT_EQ(n, 5000u);
  ASSERT_EQ(ordo_count(r.get(), t.get(), "k04990", 6, nullptr, 0, &n, &err_), ORDO_OK);
  EXPECT_EQ(n, 10u);
  ASSERT_EQ(ordo_count_prefix(r.get(), t.get(), "k012", 4, &n, &err_), ORDO_OK);
  EXPECT_EQ(n, 100u);
  uint64_t rank = 0;
  ASSERT_EQ(ordo_rank(r.get(), t.get(), "k03000", 6, &rank, &err_), ORDO_OK);
  EXPECT_EQ(rank, 3000u);
  ASSERT_EQ(ordo_rank(r.get(), t.get(), "k03000x", 7, &rank, &err_), ORDO_OK);
  EXPECT_EQ(rank, 3001u);  // absent: the position it would take
  ordo_cursor* c = nullptr;
  ASSERT_EQ(ordo_cursor_at(r.get(), t.get(), 4321, &c, &err_), ORDO_OK) << err_.message;
  Cursor owned(c);
  ASSERT_TRUE(ordo_cursor_valid(c));
  const void* key = nullptr;
  size_t key_len = 0;
  ASSERT_EQ(ordo_cursor_key(c, &key, &key_len, &err_), ORDO_OK);
  EXPECT_EQ(str(key, key_len), "k04321");
  ASSERT_EQ(ordo_cursor_next(c, &err_), ORDO_OK);
  ASSERT_EQ(ordo_cursor_key(c, &key, &key_len, &err_), ORDO_OK);
  EXPECT_EQ(str(key, key_len), "k04322");

  ordo_cursor* past = reinterpret_cast<ordo_cursor*>(&n);  // cleared on error
  expect_error(ordo_cursor_at(r.get(), t.get(), 5000, &past, &err_), ORDO_NOT_FOUND, "position");
  EXPECT_EQ(past, nullptr);
  expect_error(ordo_count(r.get(), t.get(), nullptr, 0, nullptr, 0, nullptr, &err_),
               ORDO_INVALID_ARGUMENT, "count");
  expect_error(ordo_rank(nullptr, t.get(), "k", 1, &rank, &err_), ORDO_INVALID_ARGUMENT, "txn");
}

}  // namespace
