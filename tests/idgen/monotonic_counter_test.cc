// MonotonicCounter, the order shared by UuidV7Generator and Id64Generator,
// with a plain layout: the ID is ms << 8 | counter (counter 0..255).
#include "ordo/monotonic_counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace ordo {
namespace {

constexpr uint64_t kCounterMax = 255;
constexpr uint64_t kMaxMs = (uint64_t{1} << 40) - 1;

struct TestId {
  uint64_t value = 0;
  uint64_t ms() const { return value >> 8; }
  uint64_t counter() const { return value & kCounterMax; }
  auto operator<=>(const TestId&) const = default;
};

TestId make(uint64_t ms, uint64_t counter) { return TestId{ms << 8 | counter}; }

// Counter starts at `start` on each new millisecond.
TestId next(MonotonicCounter<TestId>& c, uint64_t now_ms, uint64_t start = 0) {
  return c.next(
      now_ms, [start] { return start; }, make);
}

TEST(IdgenMonotonicCounter, NewMillisecondTakesTheStartValue) {
  MonotonicCounter<TestId> c(kMaxMs, kCounterMax);
  EXPECT_EQ(c.last(), TestId{});
  EXPECT_EQ(next(c, 100, 7), make(100, 7));
  EXPECT_EQ(next(c, 100, 7), make(100, 8));
  EXPECT_EQ(next(c, 101, 3), make(101, 3));
  EXPECT_EQ(c.last(), make(101, 3));
  EXPECT_EQ(c.counter_max(), kCounterMax);
}

TEST(IdgenMonotonicCounter, ClockGoingBackwardsKeepsTheLastMillisecond) {
  MonotonicCounter<TestId> c(kMaxMs, kCounterMax);
  TestId prev = next(c, 1000);
  // Back by one, back by much, to zero, then the ms it started from.
  for (uint64_t now : {999u, 500u, 0u, 1000u}) {
    TestId id = next(c, now);
    ASSERT_LT(prev, id) << "clock at " << now;
    EXPECT_EQ(id.ms(), 1000u) << "clock at " << now;
    prev = id;
  }
  EXPECT_EQ(prev.counter(), 4u);
  // Behind long enough to use up the counter: the ms moves on by one.
  for (uint64_t i = prev.counter() + 1; i <= kCounterMax; ++i) prev = next(c, 10);
  EXPECT_EQ(prev, make(1000, kCounterMax));
  EXPECT_EQ(next(c, 10), make(1001, 0));
}

TEST(IdgenMonotonicCounter, CounterOverflowWithinOneMillisecondBorrowsTheNext) {
  MonotonicCounter<TestId> c(kMaxMs, kCounterMax);
  const uint64_t start = 200;
  TestId prev = next(c, 50, start);
  for (uint64_t counter = start + 1; counter <= kCounterMax; ++counter) {
    TestId id = next(c, 50, start);
    ASSERT_EQ(id, make(50, counter));
    prev = id;
  }
  // The counter never wraps: the next ms, from the start value again.
  TestId borrowed = next(c, 50, start);
  EXPECT_LT(prev, borrowed);
  EXPECT_EQ(borrowed, make(51, start));
  // The clock reaching the borrowed ms counts on within it.
  EXPECT_EQ(next(c, 51, start), make(51, start + 1));
}

TEST(IdgenMonotonicCounter, ObserveOfALargerIdMovesTheFloor) {
  MonotonicCounter<TestId> c(kMaxMs, kCounterMax);
  (void)next(c, 100);
  const TestId floor = make(5000, 9);
  c.observe(floor.ms(), floor.counter(), floor);
  EXPECT_EQ(c.last(), floor);
  TestId id = next(c, 100);
  EXPECT_EQ(id, make(5000, 10)) << "counts on from the floor while the clock is behind";

  // A smaller floor changes neither the position nor last().
  c.observe(200, 0, make(200, 0));
  EXPECT_EQ(c.last(), id);
  EXPECT_EQ(next(c, 100), make(5000, 11));

  // A floor in the same ms with a larger counter moves the counter only.
  c.observe(5000, 100, make(5000, 100));
  EXPECT_EQ(next(c, 100), make(5000, 101));

  // A floor at a full counter: the next ID is in the following ms.
  MonotonicCounter<TestId> fresh(kMaxMs, kCounterMax);
  fresh.observe(70, kCounterMax, make(70, kCounterMax));
  EXPECT_EQ(next(fresh, 3), make(71, 0));
}

TEST(IdgenMonotonicCounter, ObservedPositionMayDifferFromTheFloor) {
  // A generator places a foreign floor at a position of its own; last() still
  // reports the floor itself.
  MonotonicCounter<TestId> c(kMaxMs, kCounterMax);
  const TestId foreign{make(40, 3).value};
  c.observe(40, kCounterMax, foreign);
  EXPECT_EQ(c.last(), foreign);
  EXPECT_EQ(next(c, 40), make(41, 0));
}

TEST(IdgenMonotonicCounter, IncreasesAcrossTwoThreads) {
  MonotonicCounter<TestId> c(kMaxMs, kCounterMax);
  constexpr int kPerThread = 100000;
  std::vector<TestId> ids[2];
  std::vector<std::thread> threads;
  for (auto& out : ids) {
    threads.emplace_back([&c, &out] {
      for (int i = 0; i < kPerThread; ++i) out.push_back(next(c, 7));  // frozen clock
    });
  }
  for (auto& t : threads) t.join();
  std::vector<TestId> all;
  for (const auto& v : ids) {
    for (size_t i = 1; i < v.size(); ++i) ASSERT_LT(v[i - 1], v[i]);
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
  EXPECT_EQ(c.last(), all.back());
  // 2 * 100000 IDs at 256 a ms from ms 7: every position used once.
  EXPECT_EQ(all.back(), TestId{make(7, 0).value + 2 * kPerThread - 1});
}

}  // namespace
}  // namespace ordo
