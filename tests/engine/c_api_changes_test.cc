// The C API of changes between snapshots: kept snapshots, ordo_changes,
// ordo_begin_read_at, delta copies.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c_handles.h"
#include "ordo/ordo.h"
#include "temp_dir.h"

namespace {

using Db = ordo::testing::CDb;
using Txn = ordo::testing::CTxn;

struct Seen {
  std::string key;
  std::optional<std::string> old_value, new_value;
};

int collect(void* ctx, const void* key, size_t key_len, const void* old_value, size_t old_len,
            const void* new_value, size_t new_len) {
  auto* out = static_cast<std::vector<Seen>*>(ctx);
  Seen s;
  s.key.assign(static_cast<const char*>(key), key_len);
  if (old_value != nullptr) s.old_value.emplace(static_cast<const char*>(old_value), old_len);
  if (new_value != nullptr) s.new_value.emplace(static_cast<const char*>(new_value), new_len);
  out->push_back(s);
  return 0;
}

class CApiChangesTest : public ::testing::Test {
 protected:
  Db open(const std::string& name) {
    ordo_db* db = nullptr;
    EXPECT_EQ(ordo_open(dir_.file(name).c_str(), nullptr, &db, &err_), ORDO_OK) << err_.message;
    return Db(db);
  }
  void put(ordo_db* db, const std::string& k, const std::string& v, bool del = false) {
    ordo_txn* t = nullptr;
    ASSERT_EQ(ordo_begin_write(db, &t, &err_), ORDO_OK) << err_.message;
    const int rc = del ? ordo_del(t, nullptr, k.data(), k.size(), &err_)
                       : ordo_put(t, nullptr, k.data(), k.size(), v.data(), v.size(), &err_);
    EXPECT_EQ(rc, ORDO_OK) << err_.message;
    EXPECT_EQ(ordo_txn_commit(t, &err_), ORDO_OK) << err_.message;
    ordo_txn_free(t);
  }
  ordo::testing::TempDir dir_;
  ordo_error err_{};
};

TEST_F(CApiChangesTest, KeepChangesAndDelta) {
  Db db = open("c.ordo");
  put(db.get(), "a", "1");
  put(db.get(), "b", "2");
  uint64_t kept = 0;
  ASSERT_EQ(ordo_keep_snapshot(db.get(), &kept, &err_), ORDO_OK) << err_.message;
  size_t count = 0;
  ASSERT_EQ(ordo_kept_snapshots(db.get(), nullptr, 0, &count, &err_), ORDO_OK);
  EXPECT_EQ(count, 1u);
  uint64_t ids[4] = {};
  ASSERT_EQ(ordo_kept_snapshots(db.get(), ids, 4, &count, &err_), ORDO_OK);
  EXPECT_EQ(ids[0], kept);
  {
    ordo_txn* at = nullptr;
    ASSERT_EQ(ordo_begin_read_at(db.get(), kept, &at, &err_), ORDO_OK) << err_.message;
    Txn guard(at);
  }
  put(db.get(), "a", "10");
  put(db.get(), "b", "", true);
  put(db.get(), "c", "3");
  ordo_txn* t = nullptr;
  ASSERT_EQ(ordo_begin_read(db.get(), &t, &err_), ORDO_OK);
  Txn txn(t);
  std::vector<Seen> seen;
  ASSERT_EQ(ordo_changes(t, nullptr, kept, collect, &seen, &err_), ORDO_OK) << err_.message;
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].key, "a");
  EXPECT_EQ(seen[0].old_value, "1");
  EXPECT_EQ(seen[0].new_value, "10");
  EXPECT_EQ(seen[1].key, "b");
  EXPECT_EQ(seen[1].new_value, std::nullopt);
  EXPECT_EQ(seen[2].key, "c");
  EXPECT_EQ(seen[2].old_value, std::nullopt);
  EXPECT_EQ(ordo_changes(t, nullptr, kept - 1, collect, &seen, &err_), ORDO_NOT_FOUND);
  EXPECT_NE(std::string(err_.message).find("is not held"), std::string::npos) << err_.message;
  EXPECT_EQ(ordo_changes(t, nullptr, kept, nullptr, nullptr, &err_), ORDO_INVALID_ARGUMENT);
  const std::string delta = dir_.file("d.odl");
  ASSERT_EQ(ordo_copy_delta(t, delta.c_str(), kept, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(ordo_copy_delta(t, delta.c_str(), kept, &err_), ORDO_INVALID_ARGUMENT);
  // A database at another txn refuses it.
  Db other = open("other.ordo");
  put(other.get(), "z", "z");
  EXPECT_EQ(ordo_apply_delta(other.get(), delta.c_str(), &err_), ORDO_INVALID_ARGUMENT);
  EXPECT_EQ(ordo_apply_delta(other.get(), dir_.file("none").c_str(), &err_), ORDO_NOT_FOUND);
  ASSERT_EQ(ordo_release_snapshot(db.get(), kept, &err_), ORDO_OK) << err_.message;
  EXPECT_EQ(ordo_release_snapshot(db.get(), kept, &err_), ORDO_NOT_FOUND);
}

}  // namespace
