// A cursor walking a whole tree of 100,000 entries built by append (leaves
// ~100% full, as a time-ordered load leaves them), in memory.
#include <benchmark/benchmark.h>

#include "micro_pages.h"
#include "ordo/btree/cursor.h"
#include "ordo/btree/tree.h"

namespace {

constexpr uint32_t kTreePageSize = 4096;
constexpr uint64_t kEntries = 100'000;

void BM_CursorNext(benchmark::State& state) {
  ordo::micro::MemoryPages pages(kTreePageSize);
  ordo::btree::TreeRoot tree;
  for (uint64_t i = 0; i < kEntries; ++i) {
    const ordo::micro::Key k = ordo::micro::key(i);
    const ordo::Status s = ordo::btree::append(pages, tree, ordo::ByteView(k.data(), k.size()),
                                               ordo::ByteView(ordo::micro::value_bytes()), 1.0);
    if (!s.is_ok()) {
      state.SkipWithError(s.to_string().c_str());
      return;
    }
  }
  uint64_t seen = 0;
  for (auto _ : state) {
    ordo::btree::Cursor cursor(pages, tree);
    ordo::Status s = cursor.first();
    while (s.is_ok() && cursor.valid()) {
      benchmark::DoNotOptimize(cursor.key().data());
      ++seen;
      s = cursor.next();
    }
    if (!s.is_ok()) {
      state.SkipWithError(s.to_string().c_str());
      return;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(seen));
  state.counters["depth"] = tree.depth;
}
BENCHMARK(BM_CursorNext)->Unit(benchmark::kMillisecond);

}  // namespace
