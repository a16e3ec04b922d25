// Uuid value type and UuidV7Generator (RFC 9562 sections 5.7 and 6.2).
#include "ordo/uuid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ordo/clock.h"
#include "ordo/uuid_v7_generator.h"

namespace ordo {
namespace {

constexpr uint64_t kSeed = 0x5eed'0007'1d6e'0001ULL;
constexpr uint64_t kExampleMs = 1645557742000ULL;  // RFC 9562 Appendix A.6
constexpr char kExample[] = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F";

void print_seed(uint64_t seed) { std::printf("[   SEED   ] %#llx\n", (unsigned long long)seed); }

UuidV7Generator::Options options(int counter_bits, uint64_t seed = kSeed) {
  UuidV7Generator::Options o;
  o.counter_bits = counter_bits;
  o.seed = seed;
  return o;
}

// The counter as laid out by UuidV7Generator: rand_a, then the top of rand_b.
uint64_t counter_of(const Uuid& id, int counter_bits) {
  uint64_t hi = (uint64_t{id.bytes[6]} & 0x0f) << 8 | id.bytes[7];
  uint64_t lo = 0;
  for (int i = 8; i < 16; ++i) lo = (lo << 8) | id.bytes[i];
  int low_bits = counter_bits - 12;
  uint64_t low = low_bits == 0 ? 0 : (lo >> (62 - low_bits)) & ((uint64_t{1} << low_bits) - 1);
  return (hi << low_bits) | low;
}

std::string to_upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Reads frozen_ms until unfreeze(), then the system clock.
class SwitchableClock : public Clock {
 public:
  explicit SwitchableClock(uint64_t frozen_ms) : frozen_ms_(frozen_ms) {}
  void unfreeze() { frozen_.store(false); }
  uint64_t now_ms() override { return frozen_.load() ? frozen_ms_ : system_clock().now_ms(); }

 private:
  const uint64_t frozen_ms_;
  std::atomic<bool> frozen_{true};
};

// ---- Clock ----

TEST(IdgenClock, ManualClockSetsAndAdvances) {
  ManualClock clock(1000);
  EXPECT_EQ(clock.now_ms(), 1000u);
  clock.advance_ms(5);
  EXPECT_EQ(clock.now_ms(), 1005u);
  clock.set_ms(7);
  EXPECT_EQ(clock.now_ms(), 7u);
}

TEST(IdgenClock, SystemClockIsUnixMilliseconds) {
  uint64_t expected = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
  uint64_t got = system_clock().now_ms();
  EXPECT_LT(got > expected ? got - expected : expected - got, 5000u);
  EXPECT_EQ(&system_clock(), &system_clock());
}

// ---- Uuid value ----

TEST(IdgenUuid, ParsesRfc9562ExampleV7) {
  Result<Uuid> r = Uuid::parse(kExample);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Uuid& u = *r;
  EXPECT_EQ(u.unix_ms(), 0x017F22E279B0ULL);
  EXPECT_EQ(u.unix_ms(), kExampleMs);
  EXPECT_EQ(u.version(), 7);
  EXPECT_EQ(u.variant(), 2);
  EXPECT_EQ(u.bytes[0], 0x01);
  EXPECT_EQ(u.bytes[15], 0x8f);
  EXPECT_EQ(u.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
  EXPECT_FALSE(u.is_nil());
}

TEST(IdgenUuid, NilAndFieldDecoding) {
  Uuid nil;
  EXPECT_TRUE(nil.is_nil());
  EXPECT_EQ(nil.to_string(), "00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(nil.unix_ms(), 0u);
  EXPECT_EQ(nil.version(), 0);

  Uuid u;
  u.bytes[15] = 1;
  EXPECT_FALSE(u.is_nil());
  const std::pair<uint8_t, int> variants[] = {{0x00, 0}, {0x7f, 0}, {0x80, 2}, {0xbf, 2},
                                              {0xc0, 6}, {0xdf, 6}, {0xe0, 7}, {0xff, 7}};
  for (auto [byte, variant] : variants) {
    u.bytes[8] = byte;
    EXPECT_EQ(u.variant(), variant) << "byte 8 = " << int{byte};
  }
  u.bytes[6] = 0x4a;
  EXPECT_EQ(u.version(), 4);
  for (int i = 0; i < 6; ++i) u.bytes[i] = static_cast<uint8_t>(0xa0 + i);
  EXPECT_EQ(u.unix_ms(), 0xa0a1a2a3a4a5ULL);
}

TEST(IdgenUuid, StringAndBytesRoundTrip) {
  print_seed(kSeed);
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < 20000; ++i) {
    Uuid x;
    for (auto& b : x.bytes) b = static_cast<uint8_t>(rng());
    std::string text = x.to_string();
    ASSERT_EQ(text.size(), 36u);
    for (char c : text) ASSERT_TRUE(c == '-' || std::isdigit(c) || (c >= 'a' && c <= 'f')) << text;
    Result<Uuid> lower = Uuid::parse(text);
    ASSERT_TRUE(lower.is_ok()) << text << ": " << lower.status().to_string();
    ASSERT_EQ(*lower, x) << text;
    Result<Uuid> upper = Uuid::parse(to_upper(text));
    ASSERT_TRUE(upper.is_ok()) << to_upper(text);
    ASSERT_EQ(*upper, x);
    ASSERT_EQ(Uuid::from_bytes(x.view()), x);
    ASSERT_EQ(x.view().size(), 16u);
    ASSERT_EQ(std::memcmp(x.view().data(), x.bytes.data(), 16), 0);
  }
}

TEST(IdgenUuid, ParseRejectsMalformed) {
  const std::string good = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
  std::vector<std::pair<std::string, std::string>> bad = {
      {"", "36"},
      {good.substr(0, 35), "36"},
      {good + "0", "36"},
      {"017f22e279b07cc398c4dc0c0c07398f", "36"},              // no dashes
      {"{" + good.substr(0, 34) + "}", "non-hex"},             // braces, right length
      {"017f22e20-79b0-7cc3-98c4-dc0c0c07398f", "36"},         // extra digit
      {"017f22e2079b0-7cc3-98c4-dc0c0c07398f", "position 8"},  // dash replaced
      {"017f22e2-79b0x7cc3-98c4-dc0c0c07398f", "position 13"},
      {"017f22e2-79b0-7cc3098c4-dc0c0c07398f", "position 18"},
      {"017f22e2-79b0-7cc3-98c4+dc0c0c07398f", "position 23"},
      {"017f22e-279b0-7cc3-98c4-dc0c0c07398f", "position 7"},  // dash moved
      {"g17f22e2-79b0-7cc3-98c4-dc0c0c07398f", "non-hex"},
      {"017f22e2-79b0-7cc3-98c4-dc0c0c07398z", "non-hex"},
      {"017f22e2-79b0-7Gc3-98c4-dc0c0c07398f", "non-hex"},
      {"017f22e2-79b0-7cc3-98c4-dc0c0c07 98f", "non-hex"},
      {good.substr(0, 32) + '\0' + "98f", "non-hex"},
      {good.substr(0, 32) + "\xc3\xa9" + "8f", "non-hex"},  // UTF-8 e-acute
  };
  for (const auto& [text, why] : bad) {
    Result<Uuid> r = Uuid::parse(text);
    ASSERT_FALSE(r.is_ok()) << "accepted: " << text;
    EXPECT_TRUE(r.status().is_invalid_argument()) << r.status().to_string();
    EXPECT_NE(r.status().message().find(why), std::string::npos)
        << "message \"" << r.status().message() << "\" should mention " << why;
  }
  EXPECT_TRUE(Uuid::parse(good).is_ok());
}

TEST(IdgenUuid, OrderIsByteOrder) {
  print_seed(kSeed);
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < 20000; ++i) {
    Uuid a, b;
    for (auto& x : a.bytes) x = static_cast<uint8_t>(rng() & 3);  // small alphabet: many ties
    b = a;
    b.bytes[rng() % 16] = static_cast<uint8_t>(rng() & 3);
    int c = std::memcmp(a.bytes.data(), b.bytes.data(), 16);
    ASSERT_EQ(a < b, c < 0);
    ASSERT_EQ(a == b, c == 0);
    ASSERT_EQ(a > b, c > 0);
    ASSERT_EQ(a.view().compare(b.view()) < 0, c < 0);
  }
}

// ---- UuidV7Generator ----

TEST(IdgenUuidV7, GeneratorAtRfcExampleTimeEncodesTimestamp) {
  ManualClock clock(kExampleMs);
  UuidV7Generator gen(clock, options(42));
  Uuid id = gen.next();
  const uint8_t expected[6] = {0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0};
  EXPECT_EQ(std::memcmp(id.bytes.data(), expected, 6), 0) << id.to_string();
  EXPECT_EQ(id.unix_ms(), kExampleMs);
  EXPECT_EQ(id.version(), 7);
  EXPECT_EQ(id.variant(), 2);
}

TEST(IdgenUuidV7, VersionAndVariantOnEveryId) {
  for (int bits : {12, 13, 20, 32, 41, 42}) {
    ManualClock clock(kExampleMs);
    UuidV7Generator gen(clock, options(bits));
    EXPECT_EQ(gen.counter_bits(), bits);
    for (int i = 0; i < 20000; ++i) {
      if (i % 7 == 0) clock.advance_ms(1);
      Uuid id = gen.next();
      ASSERT_EQ(id.version(), 7) << bits << " " << id.to_string();
      ASSERT_EQ(id.variant(), 2) << bits << " " << id.to_string();
    }
  }
  UuidV7Generator system_gen;
  for (int i = 0; i < 1000; ++i) {
    Uuid id = system_gen.next();
    ASSERT_EQ(id.version(), 7);
    ASSERT_EQ(id.variant(), 2);
  }
}

TEST(IdgenUuidV7, CounterOverflowMovesToNextMsAndNeverWraps) {
  print_seed(kSeed);
  constexpr uint64_t kT = kExampleMs;
  ManualClock clock(kT);  // frozen for the whole test
  UuidV7Generator gen(clock, options(12));
  Uuid prev = gen.next();
  ASSERT_EQ(prev.unix_ms(), kT);
  uint64_t first_counter = counter_of(prev, 12);
  EXPECT_LT(first_counter, 2048u) << "a new ms starts in the lower half";
  int in_first_ms = 1;
  uint64_t ms_steps = 0;
  for (int i = 0; i < 50000; ++i) {
    Uuid id = gen.next();
    ASSERT_LT(prev, id) << i;
    uint64_t c = counter_of(id, 12), pc = counter_of(prev, 12);
    if (id.unix_ms() == prev.unix_ms()) {
      ASSERT_EQ(c, pc + 1) << "counter increments by one within a ms";
    } else {
      ASSERT_EQ(id.unix_ms(), prev.unix_ms() + 1) << "overflow moves exactly one ms";
      ASSERT_EQ(pc, 4095u) << "ms moves only when the counter is used up";
      ASSERT_LT(c, 2048u) << "restarted counter has headroom";
      ++ms_steps;
    }
    if (id.unix_ms() == kT) ++in_first_ms;
    prev = id;
  }
  EXPECT_EQ(in_first_ms, static_cast<int>(4096 - first_counter));
  EXPECT_GE(ms_steps, 50000u / 4096);
  EXPECT_LE(ms_steps, 50000u / 2048 + 1);
  EXPECT_EQ(gen.last(), prev);
}

TEST(IdgenUuidV7, NewMsCounterStartsRandomInLowerHalf) {
  print_seed(kSeed);
  for (int bits : {12, 42}) {
    ManualClock clock(kExampleMs);
    UuidV7Generator gen(clock, options(bits));
    std::vector<uint64_t> starts;
    for (int i = 0; i < 1000; ++i) {
      clock.advance_ms(1);
      Uuid id = gen.next();
      ASSERT_EQ(id.unix_ms(), clock.now_ms());
      uint64_t c = counter_of(id, bits);
      ASSERT_LT(c, uint64_t{1} << (bits - 1)) << bits;
      starts.push_back(c);
    }
    std::sort(starts.begin(), starts.end());
    size_t distinct = std::unique(starts.begin(), starts.end()) - starts.begin();
    EXPECT_GT(distinct, bits == 12 ? 500u : 990u) << "starts are random, bits=" << bits;
    EXPECT_GT(starts.back(), (uint64_t{1} << (bits - 1)) / 2) << "spread over the lower half";
  }
}

TEST(IdgenUuidV7, SameSeedSameIdsOtherSeedOtherIds) {
  print_seed(kSeed);
  ManualClock clock(kExampleMs);
  UuidV7Generator a(clock, options(42, kSeed));
  UuidV7Generator b(clock, options(42, kSeed));
  UuidV7Generator c(clock, options(42, kSeed + 1));
  int differ = 0;
  std::vector<uint32_t> low_words;
  for (int i = 0; i < 1000; ++i) {
    Uuid x = a.next(), y = b.next(), z = c.next();
    ASSERT_EQ(x, y);
    differ += x != z;
    low_words.push_back(uint32_t{x.bytes[12]} << 24 | uint32_t{x.bytes[13]} << 16 |
                        uint32_t{x.bytes[14]} << 8 | x.bytes[15]);
  }
  EXPECT_EQ(differ, 1000);
  std::sort(low_words.begin(), low_words.end());
  EXPECT_GT(std::unique(low_words.begin(), low_words.end()) - low_words.begin(), 990)
      << "the low 32 bits are random per ID";
}

TEST(IdgenUuidV7, ClockStepsBackIdsKeepIncreasing) {
  constexpr uint64_t kT = kExampleMs + 1000;
  ManualClock clock(kT);
  UuidV7Generator gen(clock, options(42));
  Uuid prev = gen.next();
  clock.set_ms(kT - 5);
  for (int i = 0; i < 1000; ++i) {
    Uuid id = gen.next();
    ASSERT_LT(prev, id) << i;
    ASSERT_EQ(id.unix_ms(), kT) << "keeps the last ms while the clock is behind";
    prev = id;
  }
  clock.set_ms(kT + 1);
  Uuid later = gen.next();
  EXPECT_LT(prev, later);
  EXPECT_EQ(later.unix_ms(), kT + 1);
}

TEST(IdgenUuidV7, ClockStepsBackWithSmallCounterBorrowsAhead) {
  constexpr uint64_t kT = kExampleMs + 1000;
  ManualClock clock(kT);
  UuidV7Generator gen(clock, options(12));
  Uuid prev = gen.next();
  clock.set_ms(kT - 5);
  for (int i = 0; i < 20000; ++i) {
    Uuid id = gen.next();
    ASSERT_LT(prev, id) << i;
    ASSERT_LE(id.unix_ms(), prev.unix_ms() + 1);
    prev = id;
  }
  EXPECT_GT(prev.unix_ms(), kT);
}

// Scenario: 100,000 IDs with a frozen clock, then 1,000,000 with the real one.
TEST(IdgenUuidV7, FrozenClockThenSystemClockStrictlyIncreasing) {
  print_seed(kSeed);
  for (int bits : {42, 12}) {
    SwitchableClock clock(system_clock().now_ms());
    UuidV7Generator gen(clock, options(bits));
    Uuid prev = gen.next();
    const uint64_t frozen_ms = prev.unix_ms();
    for (int i = 0; i < 100000; ++i) {
      Uuid id = gen.next();
      ASSERT_LT(prev, id) << "bits=" << bits << " frozen i=" << i;
      prev = id;
    }
    if (bits == 42) {
      EXPECT_EQ(prev.unix_ms(), frozen_ms) << "42-bit counter does not run out in 100k";
    } else {
      EXPECT_GE(prev.unix_ms(), frozen_ms + 100000 / 4096) << "12-bit counter borrowed ms";
    }
    clock.unfreeze();
    for (int i = 0; i < 1000000; ++i) {
      Uuid id = gen.next();
      if (!(prev < id)) FAIL() << "bits=" << bits << " system i=" << i;
      prev = id;
    }
    EXPECT_LE(prev.unix_ms(), system_clock().now_ms() + 1000) << "no runaway borrowing";
  }
}

TEST(IdgenUuidV7, ObserveFloorFarInFuture) {
  print_seed(kSeed);
  ManualClock clock(kExampleMs);
  UuidV7Generator gen(clock, options(42));
  (void)gen.next();

  ManualClock future_clock(kExampleMs + 10ULL * 365 * 24 * 3600 * 1000);
  UuidV7Generator other(future_clock, options(42, kSeed + 9));
  Uuid floor = other.next();
  gen.observe(floor);
  EXPECT_EQ(gen.last(), floor) << "last() is the high-water mark, floor included";
  Uuid prev = floor;
  for (int i = 0; i < 1000; ++i) {
    Uuid id = gen.next();
    ASSERT_LT(prev, id) << i;
    ASSERT_EQ(id.unix_ms(), floor.unix_ms());
    prev = id;
  }
  // A lower floor afterwards changes nothing.
  gen.observe(Uuid::parse(kExample).value());
  EXPECT_EQ(gen.last(), prev);
  EXPECT_LT(prev, gen.next());
}

TEST(IdgenUuidV7, ObserveFloorFromWiderCounterAndForeignLayouts) {
  print_seed(kSeed);
  ManualClock clock(kExampleMs);
  // Floors minted with a 42-bit counter, observed by a 12-bit generator.
  UuidV7Generator wide(clock, options(42, kSeed));
  UuidV7Generator narrow(clock, options(12, kSeed + 1));
  for (int i = 0; i < 1000; ++i) {
    Uuid floor = wide.next();
    narrow.observe(floor);
    Uuid id = narrow.next();
    ASSERT_LT(floor, id) << i;
  }
  // A 12-bit floor with a full counter: the next ID must leave that ms.
  Uuid full = Uuid::parse("017f22e2-79b0-7fff-bfff-ffffffffffff").value();
  UuidV7Generator g12(clock, options(12));
  g12.observe(full);
  Uuid after = g12.next();
  EXPECT_LT(full, after);
  EXPECT_EQ(after.unix_ms(), kExampleMs + 1);
  // Foreign layouts (version 8, variant 0b111, version 4) in the same ms.
  for (const char* text :
       {"017f22e2-79b0-8000-0000-000000000000", "017f22e2-79b0-7000-e000-000000000000",
        "017f22e2-79b0-4fff-bfff-ffffffffffff"}) {
    Uuid f = Uuid::parse(text).value();
    UuidV7Generator g(clock, options(42));
    g.observe(f);
    Uuid id = g.next();
    EXPECT_LT(f, id) << text;
  }
}

TEST(IdgenUuidV7, ClockBeyond48BitsSaturates) {
  ManualClock clock(uint64_t{1} << 50);
  UuidV7Generator gen(clock, options(42));
  Uuid a = gen.next(), b = gen.next();
  EXPECT_EQ(a.unix_ms(), UuidV7Generator::kMaxUnixMs);
  EXPECT_LT(a, b);
  EXPECT_EQ(b.version(), 7);
}

TEST(IdgenUuidV7, CounterBitsOutOfRangeIsAssertedOrClamped) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ManualClock clock(kExampleMs);
#ifdef NDEBUG
  EXPECT_EQ(UuidV7Generator(clock, options(50)).counter_bits(), 42);
  EXPECT_EQ(UuidV7Generator(clock, options(3)).counter_bits(), 12);
#else
  EXPECT_DEATH({ UuidV7Generator g(clock, options(50)); }, "counter_bits");
  EXPECT_DEATH({ UuidV7Generator g(clock, options(11)); }, "counter_bits");
#endif
}

// Scenario: 4 threads x 1,000,000 IDs from one generator.
TEST(IdgenUuidV7, MonotonicAcrossFourThreads) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 1000000;
  UuidV7Generator gen;
  std::vector<std::vector<Uuid>> per_thread(kThreads);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&gen, &out = per_thread[t]] {
      out.reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) out.push_back(gen.next());
    });
  }
  for (auto& th : threads) th.join();
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[   INFO   ] %d x %d UUIDv7 in %.2f s\n", kThreads, kPerThread, gen_s);

  std::vector<Uuid> all;
  all.reserve(size_t{kThreads} * kPerThread);
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
}

// Scenario: 8 threads x 100,000 IDs: no duplicates.
TEST(IdgenUuidV7, NoDuplicatesAcrossEightThreads) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 100000;
  UuidV7Generator gen;
  std::vector<std::vector<Uuid>> per_thread(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&gen, &out = per_thread[t]] {
      out.reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) out.push_back(gen.next());
    });
  }
  for (auto& th : threads) th.join();
  std::vector<Uuid> all;
  for (const auto& ids : per_thread) {
    ASSERT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate ID";
  EXPECT_EQ(all.size(), size_t{kThreads} * kPerThread);
}

}  // namespace
}  // namespace ordo
