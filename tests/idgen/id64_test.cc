// Id64 value type and Id64Generator.
#include "ordo/id64.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "ordo/clock.h"

namespace ordo {
namespace {

constexpr uint64_t kId64Seed = 0x5eed'0064'1d6e'0002ULL;
constexpr uint64_t kT = kId64EpochMs + 123456789;  // a Unix ms after the ordo epoch

void print_id64_seed(uint64_t seed) {
  std::printf("[   SEED   ] %#llx\n", (unsigned long long)seed);
}

Id64 make_id64(uint64_t rel_ms, uint32_t node, uint32_t seq) {
  return Id64{rel_ms << 22 | uint64_t{node} << 12 | seq};
}

TEST(IdgenId64, EpochIs2020) { EXPECT_EQ(kId64EpochMs, 1577836800000ULL); }

TEST(IdgenId64, FieldsRoundTrip) {
  print_id64_seed(kId64Seed);
  std::mt19937_64 rng(kId64Seed);
  for (int i = 0; i < 100000; ++i) {
    uint64_t rel = rng() & ((uint64_t{1} << 41) - 1);
    uint32_t node = static_cast<uint32_t>(rng() % 1024);
    uint32_t seq = static_cast<uint32_t>(rng() % 4096);
    Id64 id = make_id64(rel, node, seq);
    ASSERT_EQ(id.unix_ms(), rel + kId64EpochMs);
    ASSERT_EQ(id.node(), node);
    ASSERT_EQ(id.sequence(), seq);
    ASSERT_EQ(id.value >> 63, 0u);
  }
  ManualClock clock(kT);
  Id64Generator gen(77, clock);
  Id64 a = gen.next(), b = gen.next();
  EXPECT_EQ(a.unix_ms(), kT);
  EXPECT_EQ(a.node(), 77u);
  EXPECT_EQ(a.sequence(), 0u);
  EXPECT_EQ(a.value, make_id64(kT - kId64EpochMs, 77, 0).value);
  EXPECT_EQ(b.sequence(), 1u);
  EXPECT_EQ(gen.last(), b);
}

TEST(IdgenId64, BigEndianBytesOrderEqualsNumericOrder) {
  print_id64_seed(kId64Seed);
  Id64 known{0x0102030405060708ULL};
  auto be = known.to_big_endian();
  const uint8_t expected[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(std::memcmp(be.data(), expected, 8), 0);
  std::mt19937_64 rng(kId64Seed);
  for (int i = 0; i < 100000; ++i) {
    Id64 a{rng() >> 1}, b{rng() >> 1};
    if (i % 3 == 0) b.value = a.value ^ (uint64_t{1} << (rng() % 63));  // near neighbours
    auto ab = a.to_big_endian(), bb = b.to_big_endian();
    int c = std::memcmp(ab.data(), bb.data(), 8);
    ASSERT_EQ(c < 0, a < b);
    ASSERT_EQ(c == 0, a == b);
    ASSERT_EQ(a < b, a.value < b.value);
    ASSERT_EQ(Id64::from_big_endian(ByteView(ab.data(), ab.size())), a);
  }
}

TEST(IdgenId64, SequenceOverflowMovesToNextMsAndNeverWraps) {
  ManualClock clock(kT);  // frozen
  Id64Generator gen(5, clock);
  Id64 prev = gen.next();
  ASSERT_EQ(prev.sequence(), 0u);
  for (uint32_t s = 1; s <= 4095; ++s) {
    Id64 id = gen.next();
    ASSERT_LT(prev, id);
    ASSERT_EQ(id.unix_ms(), kT);
    ASSERT_EQ(id.sequence(), s);
    prev = id;
  }
  Id64 borrowed = gen.next();
  EXPECT_LT(prev, borrowed);
  EXPECT_EQ(borrowed.unix_ms(), kT + 1) << "overflow moves exactly one ms";
  EXPECT_EQ(borrowed.sequence(), 0u);
  EXPECT_EQ(borrowed.node(), 5u);
  prev = borrowed;
  for (int i = 0; i < 100000; ++i) {
    Id64 id = gen.next();
    ASSERT_LT(prev, id) << i;
    ASSERT_LE(id.unix_ms(), prev.unix_ms() + 1);
    prev = id;
  }
  EXPECT_EQ(prev.unix_ms(), kT + (100000 + 4096) / 4096);
}

TEST(IdgenId64, ClockStepsBackIdsKeepIncreasing) {
  ManualClock clock(kT);
  Id64Generator gen(9, clock);
  Id64 prev = gen.next();
  clock.set_ms(kT - 5);
  for (int i = 0; i < 1000; ++i) {
    Id64 id = gen.next();
    ASSERT_LT(prev, id) << i;
    ASSERT_EQ(id.unix_ms(), kT) << "keeps the last ms while the clock is behind";
    prev = id;
  }
  clock.set_ms(kT + 1);
  Id64 later = gen.next();
  EXPECT_LT(prev, later);
  EXPECT_EQ(later.unix_ms(), kT + 1);
  EXPECT_EQ(later.sequence(), 0u);
}

TEST(IdgenId64, NodeBitsPreserved) {
  for (uint32_t node : {0u, 1u, 512u, 1022u, 1023u}) {
    ManualClock clock(kT);
    Id64Generator gen(node, clock);
    EXPECT_EQ(gen.node(), node);
    for (int i = 0; i < 10000; ++i) {  // crosses two sequence overflows
      Id64 id = gen.next();
      ASSERT_EQ(id.node(), node);
      ASSERT_EQ(id.value >> 63, 0u);
    }
  }
  // Two nodes at the same frozen ms never collide.
  ManualClock clock(kT);
  Id64Generator a(1, clock), b(2, clock);
  std::vector<Id64> all;
  for (int i = 0; i < 10000; ++i) {
    all.push_back(a.next());
    all.push_back(b.next());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(IdgenId64, ClockBeforeEpochReadsAsZero) {
  ManualClock clock(1000);  // 1970
  Id64Generator gen(3, clock);
  Id64 id = gen.next();
  EXPECT_EQ(id.unix_ms(), kId64EpochMs);
  EXPECT_EQ(id.value, make_id64(0, 3, 0).value);
  EXPECT_LT(id, gen.next());
}

TEST(IdgenId64, ClockAfter2089Saturates) {
  ManualClock clock(kId64EpochMs + (uint64_t{1} << 45));
  Id64Generator gen(7, clock);
  Id64 a = gen.next(), b = gen.next();
  EXPECT_EQ(a.unix_ms(), kId64EpochMs + Id64::kMaxRelativeMs);
  EXPECT_EQ(a.value >> 63, 0u);
  EXPECT_EQ(a.node(), 7u);
  EXPECT_LT(a, b);
}

TEST(IdgenId64, ObserveFloor) {
  ManualClock clock(kT);
  // Far in the future, same node.
  {
    Id64Generator gen(4, clock);
    (void)gen.next();
    Id64 floor = make_id64(kT - kId64EpochMs + 10ULL * 365 * 24 * 3600 * 1000, 4, 17);
    gen.observe(floor);
    EXPECT_EQ(gen.last(), floor);
    Id64 id = gen.next();
    EXPECT_LT(floor, id);
    EXPECT_EQ(id.unix_ms(), floor.unix_ms());
    EXPECT_EQ(id.sequence(), 18u);
    gen.observe(make_id64(1, 4, 0));  // lower floor: no effect
    EXPECT_EQ(gen.last(), id);
    EXPECT_LT(id, gen.next());
  }
  // Floors ahead of the clock from a higher node, a lower node, a full
  // sequence; and the zero ID.
  const uint64_t ahead = kT - kId64EpochMs + 1000;
  const Id64 floors[] = {make_id64(ahead, 900, 0), make_id64(ahead, 1, 4095),
                         make_id64(ahead, 4, 4095), Id64{0}};
  for (Id64 floor : floors) {
    Id64Generator gen(4, clock);
    gen.observe(floor);
    Id64 prev = floor;
    for (int i = 0; i < 5000; ++i) {
      Id64 id = gen.next();
      ASSERT_LT(prev, id) << floor.value << " " << i;
      prev = id;
    }
  }
  Id64Generator node0(0, clock);
  clock.set_ms(0);
  node0.observe(Id64{0});
  EXPECT_LT(Id64{0}, node0.next());
}

TEST(IdgenId64, NodeOutOfRangeIsAssertedOrClamped) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ManualClock clock(kT);
#ifdef NDEBUG
  Id64Generator gen(5000, clock);
  EXPECT_EQ(gen.node(), 1023u);
  EXPECT_EQ(gen.next().node(), 1023u);
#else
  EXPECT_DEATH({ Id64Generator gen(1024, clock); }, "node");
#endif
}

TEST(IdgenId64, MonotonicAcrossFourThreads) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 250000;
  Id64Generator gen(42);
  std::vector<std::vector<Id64>> per_thread(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&gen, &out = per_thread[t]] {
      out.reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) out.push_back(gen.next());
    });
  }
  for (auto& th : threads) th.join();
  std::vector<Id64> all;
  for (int t = 0; t < kThreads; ++t) {
    const auto& ids = per_thread[t];
    for (size_t i = 1; i < ids.size(); ++i) {
      if (!(ids[i - 1] < ids[i])) FAIL() << "thread " << t << " not increasing at " << i;
    }
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
  EXPECT_EQ(gen.last(), all.back());
  for (Id64 id : all) ASSERT_EQ(id.node(), 42u);
}

}  // namespace
}  // namespace ordo
