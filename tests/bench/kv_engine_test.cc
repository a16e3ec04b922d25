// Conformance of every engine adapter built into ordo-bench (kv_engine.h):
// the same puts, deletes, gets, scans and reopen, against a std::map.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kv_registry.h"
#include "tools_test_util.h"

namespace ordo::bench {
namespace {

using Model = std::map<std::string, std::string>;

// 8-byte big-endian i: byte order is numeric order.
std::string key_of(uint64_t i) {
  std::string k(8, '\0');
  for (int b = 0; b < 8; ++b) k[b] = static_cast<char>(i >> (56 - 8 * b));
  return k;
}

std::string value_of(uint64_t i, int version) {
  return "value-" + std::to_string(i) + "-v" + std::to_string(version);
}

class KvEngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string store() const { return dir_.file("store"); }

  std::unique_ptr<KvEngine> open() {
    Result<std::unique_ptr<KvEngine>> kv = open_engine(GetParam(), store(), KvOptions{});
    EXPECT_TRUE(kv.is_ok()) << kv.status().to_string();
    return kv.is_ok() ? std::move(kv).value() : nullptr;
  }

  // Every entry of `table` by a full scan.
  static Model read_all(KvEngine& kv, TableId table) {
    Model out;
    Result<std::unique_ptr<KvRead>> read = kv.begin_read();
    EXPECT_TRUE(read.is_ok()) << read.status().to_string();
    if (!read.is_ok()) return out;
    Result<uint64_t> n = (*read)->scan(table, ByteView(), UINT64_MAX, [&](ByteView k, ByteView v) {
      out.emplace(k.str(), v.str());
    });
    EXPECT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n.is_ok() ? *n : 0, out.size());
    return out;
  }

  ordo::testing::TempDir dir_;
};

TEST_P(KvEngineTest, PutGetScanDeleteAndReopen) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->name(), GetParam());
  Result<TableId> a = kv->open_table("alpha");
  Result<TableId> b = kv->open_table("beta");
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << a.status().to_string() << b.status().to_string();
  Model alpha, beta;
  // Two commits of ascending keys (what lmdb-append can append), then one of
  // overwrites and deletes in the middle.
  for (uint64_t batch = 0; batch < 2; ++batch) {
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    for (uint64_t i = batch * 100; i < (batch + 1) * 100; ++i) {
      ASSERT_TRUE((*w)->put(*a, key_of(i), value_of(i, 1)).is_ok());
      alpha[key_of(i)] = value_of(i, 1);
      if (i % 3 == 0) {
        ASSERT_TRUE((*w)->put(*b, key_of(i), "b").is_ok());
        beta[key_of(i)] = "b";
      }
    }
    ASSERT_TRUE((*w)->commit().is_ok());
  }
  {
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    for (uint64_t i = 10; i < 20; ++i) {
      ASSERT_TRUE((*w)->put(*a, key_of(i), value_of(i, 2)).is_ok());
      alpha[key_of(i)] = value_of(i, 2);
    }
    ASSERT_TRUE((*w)->del(*a, key_of(50)).is_ok());
    ASSERT_TRUE((*w)->del(*a, key_of(5000)).is_ok());  // absent: not an error
    alpha.erase(key_of(50));
    Status s = (*w)->commit();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
  }
  {  // A write that is not committed leaves nothing.
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE((*w)->put(*a, key_of(7), "never").is_ok());
  }
  EXPECT_EQ(read_all(*kv, *a), alpha);
  EXPECT_EQ(read_all(*kv, *b), beta);
  {
    Result<std::unique_ptr<KvRead>> r = kv->begin_read();
    ASSERT_TRUE(r.is_ok());
    Result<ByteView> v = (*r)->get(*a, key_of(15));
    ASSERT_TRUE(v.is_ok()) << v.status().to_string();
    EXPECT_EQ(v->str(), value_of(15, 2));
    EXPECT_TRUE((*r)->get(*a, key_of(50)).status().is_not_found());
    EXPECT_TRUE((*r)->get(*b, key_of(1)).status().is_not_found());
    // A scan from a key that is absent starts at the next one, stops at the limit.
    std::string keys;
    Result<uint64_t> n = (*r)->scan(*a, key_of(49), 3, [&](ByteView k, ByteView) {
      keys += std::to_string(static_cast<uint8_t>(k[7])) + ",";
    });
    ASSERT_TRUE(n.is_ok());
    EXPECT_EQ(*n, 3u);
    EXPECT_EQ(keys, "49,51,52,");
    // Tables do not see each other's keys at their ends.
    n = (*r)->scan(*b, key_of(199), 10, [](ByteView, ByteView) {});
    ASSERT_TRUE(n.is_ok());
    EXPECT_EQ(*n, 0u);
  }
  ASSERT_TRUE(kv->close().is_ok());
  kv.reset();

  kv = open();
  ASSERT_NE(kv, nullptr);
  b = kv->open_table("beta");  // in another order than before
  a = kv->open_table("alpha");
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(read_all(*kv, *a), alpha);
  EXPECT_EQ(read_all(*kv, *b), beta);
}

TEST_P(KvEngineTest, SnapshotDoesNotSeeLaterCommits) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  Result<std::unique_ptr<KvRead>> before = kv->begin_read();
  ASSERT_TRUE(before.is_ok());
  EXPECT_TRUE((*before)->get(*t, key_of(1)).status().is_not_found());  // pins the snapshot
  Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
  ASSERT_TRUE(w.is_ok());
  ASSERT_TRUE((*w)->put(*t, key_of(1), "one").is_ok());
  ASSERT_TRUE((*w)->commit().is_ok());
  EXPECT_TRUE((*before)->get(*t, key_of(1)).status().is_not_found());
  before->reset();
  Result<std::unique_ptr<KvRead>> after = kv->begin_read();
  ASSERT_TRUE(after.is_ok());
  Result<ByteView> v = (*after)->get(*t, key_of(1));
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  EXPECT_EQ(v->str(), "one");
}

TEST_P(KvEngineTest, RequestReaderSeesEachCallsLastCommit) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  Result<std::unique_ptr<KvRead>> r = kv->begin_request_reads();
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE((*r)->get(*t, key_of(1)).status().is_not_found());
  for (int version = 1; version <= 3; ++version) {
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE((*w)->put(*t, key_of(1), value_of(1, version)).is_ok());
    ASSERT_TRUE((*w)->put(*t, key_of(2), value_of(2, version)).is_ok());
    ASSERT_TRUE((*w)->commit().is_ok());
    // Each call takes a new snapshot; the value is the reader's own copy.
    Result<ByteView> v = (*r)->get(*t, key_of(1));
    ASSERT_TRUE(v.is_ok()) << v.status().to_string();
    EXPECT_EQ(v->str(), value_of(1, version));
    uint64_t seen = 0;
    Result<uint64_t> n = (*r)->scan(*t, key_of(0), 10, [&](ByteView k, ByteView value) {
      EXPECT_EQ(value.str(), value_of(seen + 1, version));
      ++seen;
    });
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(*n, 2u);
  }
}

// The snapshot is the one current at begin_read, before any read (SQLite
// takes its snapshot at the first read instead: kv_engine.h).
TEST_P(KvEngineTest, SnapshotIsTakenAtBeginRead) {
  if (GetParam() == "sqlite") GTEST_SKIP() << "snapshot at the first read";
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  Result<std::unique_ptr<KvRead>> before = kv->begin_read();
  ASSERT_TRUE(before.is_ok());
  Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
  ASSERT_TRUE(w.is_ok());
  ASSERT_TRUE((*w)->put(*t, key_of(1), "one").is_ok());
  ASSERT_TRUE((*w)->commit().is_ok());
  EXPECT_TRUE((*before)->get(*t, key_of(1)).status().is_not_found());
  Result<uint64_t> n = (*before)->scan(*t, ByteView(), 10, [](ByteView, ByteView) {});
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  EXPECT_EQ(*n, 0u);
}

// Keys are raw bytes in unsigned byte order, a key before its extensions,
// zero bytes included.
TEST_P(KvEngineTest, KeysAreBytesInUnsignedOrder) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  using namespace std::string_literals;
  const std::vector<std::string> sorted = {"\x00"s, "\x00\x00"s, "\x01"s, "\x01\x7f"s, "\x7f"s,
                                           "\x80"s, "\x80\x01"s, "\xff"s, "\xff\x00"s};
  {
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok());
    for (size_t i = sorted.size(); i-- > 0;) {
      ASSERT_TRUE((*w)->put(*t, sorted[i], "v" + std::to_string(i)).is_ok());
    }
    ASSERT_TRUE((*w)->commit().is_ok());
  }
  Result<std::unique_ptr<KvRead>> r = kv->begin_read();
  ASSERT_TRUE(r.is_ok());
  std::vector<std::string> keys;
  std::vector<std::string> values;
  Result<uint64_t> n = (*r)->scan(*t, ByteView(), UINT64_MAX, [&](ByteView k, ByteView v) {
    keys.push_back(k.str());
    values.push_back(v.str());
  });
  ASSERT_TRUE(n.is_ok()) << n.status().to_string();
  EXPECT_EQ(keys, sorted);
  for (size_t i = 0; i < sorted.size() && i < values.size(); ++i) {
    EXPECT_EQ(values[i], "v" + std::to_string(i));
  }
  // A scan from an absent key (a zero byte in it) starts at the next key.
  keys.clear();
  n = (*r)->scan(*t, "\x80\x00"s, 1, [&](ByteView k, ByteView) { keys.push_back(k.str()); });
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(keys, std::vector<std::string>{"\x80\x01"});
  // A scan from past the last key visits nothing.
  n = (*r)->scan(*t, "\xff\x00\x00"s, 10, [](ByteView, ByteView) {});
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(*n, 0u);
  Result<ByteView> v = (*r)->get(*t, "\x00\x00"s);
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  EXPECT_EQ(v->str(), "v1");
}

constexpr uint64_t kThreads = 4;
constexpr uint64_t kPerThread = 25;

// kThreads threads at once, each making kPerThread put_concurrent calls
// put(thread, k) -> {key, value}, until its first error; each thread's last
// status.
template <typename MakePut>
std::vector<Status> put_from_threads(KvEngine& kv, TableId table, MakePut put) {
  std::vector<Status> results(kThreads);
  std::vector<std::thread> threads;
  for (uint64_t th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      for (uint64_t k = 0; k < kPerThread && results[th].is_ok(); ++k) {
        const auto [key, value] = put(th, k);
        results[th] = kv.put_concurrent(table, key, value);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  return results;
}

TEST_P(KvEngineTest, ConcurrentPutsFromThreadsAllCommit) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  const std::vector<Status> results = put_from_threads(*kv, *t, [](uint64_t th, uint64_t k) {
    const uint64_t i = th * kPerThread + k;
    return std::pair(key_of(i), value_of(i, 1));
  });
  Model expected;
  for (uint64_t i = 0; i < kThreads * kPerThread; ++i) expected[key_of(i)] = value_of(i, 1);
  for (const Status& s : results) EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(read_all(*kv, *t), expected);
}

// Concurrent puts of one key all succeed (an engine that detects the
// conflict runs the loser again); the last one committed stays.
TEST_P(KvEngineTest, ConcurrentPutsOfOneKeyAllCommit) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  const std::vector<Status> results = put_from_threads(*kv, *t, [](uint64_t th, uint64_t k) {
    return std::pair(key_of(7), value_of(th, static_cast<int>(k)));
  });
  for (const Status& s : results) EXPECT_TRUE(s.is_ok()) << s.to_string();
  const Model all = read_all(*kv, *t);
  ASSERT_EQ(all.size(), 1u);
  bool last_of_a_thread = false;
  for (uint64_t th = 0; th < kThreads; ++th) {
    last_of_a_thread |= all.begin()->second == value_of(th, kPerThread - 1);
  }
  EXPECT_TRUE(last_of_a_thread) << all.begin()->second;
}

TEST_P(KvEngineTest, CompactKeepsEveryEntry) {
  std::unique_ptr<KvEngine> kv = open();
  ASSERT_NE(kv, nullptr);
  Result<TableId> t = kv->open_table("t");
  ASSERT_TRUE(t.is_ok());
  Model expected;
  {
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok());
    for (uint64_t i = 0; i < 2000; ++i) {
      ASSERT_TRUE((*w)->put(*t, key_of(i), value_of(i, 1)).is_ok());
      if (i % 2 == 0) expected[key_of(i)] = value_of(i, 1);
    }
    ASSERT_TRUE((*w)->commit().is_ok());
  }
  {
    Result<std::unique_ptr<KvWrite>> w = kv->begin_write();
    ASSERT_TRUE(w.is_ok());
    for (uint64_t i = 1; i < 2000; i += 2) ASSERT_TRUE((*w)->del(*t, key_of(i)).is_ok());
    ASSERT_TRUE((*w)->commit().is_ok());
  }
  Result<std::string> where = kv->compact(dir_.file("compact"));
  ASSERT_TRUE(where.is_ok()) << where.status().to_string();
  EXPECT_TRUE(*where == store() || *where == dir_.file("compact")) << *where;
  EXPECT_TRUE(std::filesystem::exists(*where));
  EXPECT_EQ(read_all(*kv, *t), expected);  // the store itself is unchanged in content
  if (*where == store()) return;
  // A compact copy opens as a store of the same engine with the same entries.
  ASSERT_TRUE(kv->close().is_ok());
  kv.reset();
  Result<std::unique_ptr<KvEngine>> copy = open_engine(GetParam(), *where, KvOptions{});
  ASSERT_TRUE(copy.is_ok()) << copy.status().to_string();
  Result<TableId> ct = (*copy)->open_table("t");
  ASSERT_TRUE(ct.is_ok());
  EXPECT_EQ(read_all(**copy, *ct), expected);
}

TEST(KvRegistryTest, UnknownOrUnbuiltEngineIsInvalidArgument) {
  ordo::testing::TempDir dir;
  EXPECT_TRUE(open_engine("nosuch", dir.file("x"), {}).status().is_invalid_argument());
  for (const std::string& name : known_engines()) {
    if (!engine_built(name)) {
      EXPECT_TRUE(open_engine(name, dir.file(name), {}).status().is_invalid_argument()) << name;
      EXPECT_NE(engine_missing_reason(name).find("not built"), std::string::npos);
    }
  }
  EXPECT_TRUE(engine_built("ordo"));
}

// MDB_APPEND refuses a key below the last one; the adapter puts it plainly
// and counts it, so a run on unsorted keys says so.
TEST(KvLmdbAppendTest, UnsortedKeysFallBackToPlainPutsAndAreCounted) {
  if (!engine_built("lmdb-append")) GTEST_SKIP() << engine_missing_reason("lmdb-append");
  ordo::testing::TempDir dir;
  Result<std::unique_ptr<KvEngine>> kv = open_engine("lmdb-append", dir.file("s"), {});
  ASSERT_TRUE(kv.is_ok()) << kv.status().to_string();
  Result<TableId> t = (*kv)->open_table("t");
  ASSERT_TRUE(t.is_ok());
  Result<std::unique_ptr<KvWrite>> w = (*kv)->begin_write();
  ASSERT_TRUE(w.is_ok());
  for (uint64_t i : {5, 6, 7, 1, 8, 2}) ASSERT_TRUE((*w)->put(*t, key_of(i), "v").is_ok());
  ASSERT_TRUE((*w)->commit().is_ok());
  const auto counters = (*kv)->counters();
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0].first, "append_fallback_puts");
  EXPECT_EQ(counters[0].second, 2.0);
  Result<std::unique_ptr<KvRead>> r = (*kv)->begin_read();
  ASSERT_TRUE(r.is_ok());
  Result<uint64_t> n = (*r)->scan(*t, ByteView(), 100, [](ByteView, ByteView) {});
  ASSERT_TRUE(n.is_ok());
  EXPECT_EQ(*n, 6u);
}

INSTANTIATE_TEST_SUITE_P(Built, KvEngineTest, ::testing::ValuesIn(built_engines()),
                         [](const ::testing::TestParamInfo<std::string>& test_info) {
                           return ordo::testing::test_param_name(test_info.param);
                         });

}  // namespace
}  // namespace ordo::bench
