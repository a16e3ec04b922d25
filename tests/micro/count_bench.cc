// Counting the entries of a 1,000-key range in a tree of 10 million entries
// built by append, in memory: btree::count_range (two descents over the
// branch entry counts) against a cursor walking the range.
#include <benchmark/benchmark.h>

#include <memory>

#include "micro_pages.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/tree.h"

namespace {

constexpr uint32_t kCountPageSize = 4096;
constexpr uint64_t kCountEntries = 10'000'000;
constexpr uint64_t kRangeKeys = 1000;

// Built once for both benchmarks (a few seconds, ~350 MB).
struct BigTree {
  ordo::micro::MemoryPages pages{kCountPageSize};
  ordo::btree::TreeRoot tree;
  ordo::Status status;
  BigTree() {
    for (uint64_t i = 0; i < kCountEntries && status.is_ok(); ++i) {
      const ordo::micro::Key k = ordo::micro::key(i);
      status = ordo::btree::append(pages, tree, ordo::ByteView(k.data(), k.size()),
                                   ordo::ByteView(ordo::micro::value_bytes()), 1.0);
    }
  }
};

BigTree& big_tree() {
  static auto* t = new BigTree();
  return *t;
}

// The range [start, start + 1000) for iteration `n`, spread over the tree.
uint64_t range_start(uint64_t n) { return (n * 7'919'993) % (kCountEntries - kRangeKeys); }

void BM_CountRange1000(benchmark::State& state) {
  BigTree& t = big_tree();
  if (!t.status.is_ok()) return state.SkipWithError(t.status.to_string().c_str());
  uint64_t n = 0;
  for (auto _ : state) {
    const uint64_t start = range_start(n++);
    const ordo::micro::Key from = ordo::micro::key(start),
                           to = ordo::micro::key(start + kRangeKeys);
    const ordo::ByteView end(to.data(), to.size());
    auto c =
        ordo::btree::count_range(t.pages, t.tree, ordo::ByteView(from.data(), from.size()), &end);
    if (!c.is_ok() || *c != kRangeKeys) return state.SkipWithError("wrong count");
    benchmark::DoNotOptimize(*c);
  }
  state.counters["depth"] = t.tree.depth;
}
BENCHMARK(BM_CountRange1000);

void BM_WalkRange1000(benchmark::State& state) {
  BigTree& t = big_tree();
  if (!t.status.is_ok()) return state.SkipWithError(t.status.to_string().c_str());
  uint64_t n = 0;
  for (auto _ : state) {
    const uint64_t start = range_start(n++);
    const ordo::micro::Key from = ordo::micro::key(start),
                           to = ordo::micro::key(start + kRangeKeys);
    const ordo::ByteView end(to.data(), to.size());
    ordo::btree::Cursor cursor(t.pages, t.tree);
    ordo::Status s = cursor.seek(ordo::ByteView(from.data(), from.size()));
    uint64_t seen = 0;
    while (s.is_ok() && cursor.valid() && cursor.key().compare(end) < 0) {
      ++seen;
      s = cursor.next();
    }
    if (!s.is_ok() || seen != kRangeKeys) return state.SkipWithError("wrong walk");
    benchmark::DoNotOptimize(seen);
  }
}
BENCHMARK(BM_WalkRange1000);

}  // namespace
