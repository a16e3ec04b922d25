// The C API's savepoints (ordo_savepoint_take, _rollback, _release), called
// only through C functions: rollback and nesting, trees across a rollback,
// a cursor after one, misuse, and savepoints inside an ordo_batch callback.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "c_handles.h"
#include "ordo/ordo.h"
#include "temp_dir.h"

namespace {

using Db = ordo::testing::CDb;
using Txn = ordo::testing::CTxn;
using Cursor = ordo::testing::CCursor;
using Tree = ordo::testing::CTree;

class CApiSavepointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ordo_db* db = nullptr;
    ASSERT_EQ(ordo_open(dir_.file("db.ordo").c_str(), nullptr, &db, &err_), ORDO_OK)
        << err_.message;
    db_.reset(db);
  }
  Txn write() {
    ordo_txn* t = nullptr;
    EXPECT_EQ(ordo_begin_write(db_.get(), &t, &err_), ORDO_OK) << err_.message;
    return Txn(t);
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
    return std::string(static_cast<const char*>(v), n);
  }
  ordo_savepoint take(ordo_txn* txn) {
    ordo_savepoint sp;
    EXPECT_EQ(ordo_savepoint_take(txn, &sp, &err_), ORDO_OK) << err_.message;
    return sp;
  }
  void expect_error(int rc, int code, const char* part) {
    EXPECT_EQ(rc, code) << ordo_code_name(rc) << ": " << err_.message;
    EXPECT_EQ(err_.code, code);
    EXPECT_NE(std::strstr(err_.message, part), nullptr) << part << " not in: " << err_.message;
  }

  ordo::testing::TempDir dir_;
  Db db_;
  ordo_error err_{};
};

TEST_F(CApiSavepointTest, RollbackNestingAndRelease) {
  Txn w = write();
  ASSERT_EQ(put(w.get(), nullptr, "a", "1"), ORDO_OK);
  const ordo_savepoint outer = take(w.get());
  ASSERT_EQ(put(w.get(), nullptr, "a", "2"), ORDO_OK);
  const ordo_savepoint inner = take(w.get());
  ASSERT_EQ(put(w.get(), nullptr, "b", "3"), ORDO_OK);
  ASSERT_EQ(ordo_savepoint_rollback(w.get(), &inner, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(get(w.get(), nullptr, "a"), "2");
  EXPECT_EQ(get(w.get(), nullptr, "b"), "<NotFound>");
  ASSERT_EQ(ordo_savepoint_rollback(w.get(), &outer, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(get(w.get(), nullptr, "a"), "1");
  // The inner one ended with the rollback to the outer one.
  expect_error(ordo_savepoint_release(w.get(), &inner, &err_), ORDO_INVALID_ARGUMENT,
               "no longer open");
  ASSERT_EQ(put(w.get(), nullptr, "c", "4"), ORDO_OK);
  ASSERT_EQ(ordo_savepoint_release(w.get(), &outer, &err_), ORDO_OK) << err_.message;
  expect_error(ordo_savepoint_rollback(w.get(), &outer, &err_), ORDO_INVALID_ARGUMENT,
               "no longer open");
  ASSERT_EQ(ordo_txn_commit(w.get(), &err_), ORDO_OK) << err_.message;
  expect_error(ordo_savepoint_rollback(w.get(), &outer, &err_), ORDO_TXN_ENDED, "");

  ordo_txn* r = nullptr;
  ASSERT_EQ(ordo_begin_read(db_.get(), &r, &err_), ORDO_OK);
  Txn read(r);
  EXPECT_EQ(get(r, nullptr, "a"), "1");
  EXPECT_EQ(get(r, nullptr, "c"), "4");
  EXPECT_EQ(get(r, nullptr, "b"), "<NotFound>");
}

TEST_F(CApiSavepointTest, TreesAndCursorsAcrossARollback) {
  Txn w = write();
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(put(w.get(), nullptr, "k" + std::to_string(i), "v"), ORDO_OK);
  }
  const ordo_savepoint sp = take(w.get());
  ordo_tree* t = nullptr;
  ASSERT_EQ(ordo_tree_create(w.get(), "new", 3, &t, &err_), ORDO_OK);
  Tree tree(t);
  ASSERT_EQ(put(w.get(), tree.get(), "x", "y"), ORDO_OK);
  ordo_cursor* c = nullptr;
  ASSERT_EQ(ordo_cursor_open(w.get(), nullptr, &c, &err_), ORDO_OK);
  Cursor cursor(c);
  ASSERT_EQ(ordo_cursor_seek(c, "k5", 2, &err_), ORDO_OK);
  ASSERT_EQ(ordo_del(w.get(), nullptr, "k5", 2, &err_), ORDO_OK);
  ASSERT_EQ(ordo_savepoint_rollback(w.get(), &sp, &err_), ORDO_OK) << err_.message;
  // The tree made after the savepoint is gone; the cursor re-seeks its key.
  EXPECT_EQ(get(w.get(), tree.get(), "x"), "<NotFound>");
  EXPECT_EQ(get(w.get(), nullptr, "k5"), "v");
  ASSERT_TRUE(ordo_cursor_valid(c));
  const void* k = nullptr;
  size_t kl = 0;
  ASSERT_EQ(ordo_cursor_key(c, &k, &kl, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(std::string(static_cast<const char*>(k), kl), "k5");
}

TEST_F(CApiSavepointTest, MisuseIsReported) {
  ordo_savepoint zero;
  std::memset(&zero, 0, sizeof zero);
  Txn w = write();
  expect_error(ordo_savepoint_take(w.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT, "out");
  expect_error(ordo_savepoint_take(nullptr, &zero, &err_), ORDO_INVALID_ARGUMENT, "txn");
  expect_error(ordo_savepoint_rollback(w.get(), nullptr, &err_), ORDO_INVALID_ARGUMENT,
               "savepoint");
  expect_error(ordo_savepoint_rollback(w.get(), &zero, &err_), ORDO_INVALID_ARGUMENT, "names none");
  ordo_savepoint garbage;
  garbage.opaque[0] = 12345;
  garbage.opaque[1] = 678;
  expect_error(ordo_savepoint_release(w.get(), &garbage, &err_), ORDO_INVALID_ARGUMENT,
               "another write txn");
  const ordo_savepoint mine = take(w.get());
  garbage.opaque[0] = mine.opaque[0];
  expect_error(ordo_savepoint_release(w.get(), &garbage, &err_), ORDO_INVALID_ARGUMENT,
               "no longer open");
  ASSERT_EQ(ordo_txn_abort(w.get(), &err_), ORDO_OK);
  ordo_txn* r = nullptr;
  ASSERT_EQ(ordo_begin_read(db_.get(), &r, &err_), ORDO_OK);
  Txn read(r);
  expect_error(ordo_savepoint_take(r, &zero, &err_), ORDO_INVALID_ARGUMENT, "read txn");
}

int batch_with_savepoint(void* ctx, ordo_txn* txn) {
  (void)ctx;
  if (ordo_put(txn, nullptr, "kept", 4, "1", 1, nullptr) != ORDO_OK) return 1;
  ordo_savepoint sp;
  if (ordo_savepoint_take(txn, &sp, nullptr) != ORDO_OK) return 1;
  if (ordo_put(txn, nullptr, "undone", 6, "1", 1, nullptr) != ORDO_OK) return 1;
  return ordo_savepoint_rollback(txn, &sp, nullptr);
}

TEST_F(CApiSavepointTest, InsideABatchCallback) {
  ASSERT_EQ(ordo_batch(db_.get(), batch_with_savepoint, nullptr, &err_), ORDO_OK) << err_.message;
  ordo_txn* r = nullptr;
  ASSERT_EQ(ordo_begin_read(db_.get(), &r, &err_), ORDO_OK);
  Txn read(r);
  EXPECT_EQ(get(r, nullptr, "kept"), "1");
  EXPECT_EQ(get(r, nullptr, "undone"), "<NotFound>");
}

}  // namespace
