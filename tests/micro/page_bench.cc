// One page: leaf and branch search, filling a leaf by appends against
// inserts in random order, and the XXH3 checksum of a page.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "micro_pages.h"
#include "ordo/btree/node.h"
#include "ordo/btree/tree.h"

namespace {

using ordo::ByteView;
using ordo::micro::Key;
using ordo::micro::key;

constexpr uint32_t kPageSize = 4096;
constexpr uint64_t kSeed = 42;

// Keys 0..n-1 in a fixed random order, for lookups of entries that exist.
std::vector<Key> shuffled_keys(uint32_t n) {
  std::vector<Key> keys;
  for (uint32_t i = 0; i < n; ++i) keys.push_back(key(i));
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(kSeed));
  return keys;
}

// Looks up every entry of a full page built by `build`, in a fixed random
// order, with `search(view, key)`; items are lookups.
template <typename Search>
void search_page(benchmark::State& state, std::vector<std::byte> (*build)(uint32_t, uint32_t*),
                 Search search) {
  uint32_t n = 0;
  const std::vector<std::byte> page = build(kPageSize, &n);
  const ordo::btree::NodeView view(page.data(), kPageSize);
  const std::vector<Key> keys = shuffled_keys(n);
  size_t i = 0;
  for (auto _ : state) {
    const Key& k = keys[i++ % keys.size()];
    benchmark::DoNotOptimize(search(view, ByteView(k.data(), k.size())));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["entries"] = n;
}

void BM_LeafSearch(benchmark::State& state) {
  search_page(state, ordo::micro::full_leaf, [](const ordo::btree::NodeView& v, ByteView k) {
    bool found = false;
    return v.leaf_lower_bound(k, &found);
  });
}
BENCHMARK(BM_LeafSearch);

void BM_BranchSearch(benchmark::State& state) {
  search_page(state, ordo::micro::full_branch,
              [](const ordo::btree::NodeView& v, ByteView k) { return v.branch_child_index(k); });
}
BENCHMARK(BM_BranchSearch);

// Fills an empty leaf with 16-byte keys and 64-byte values, in `order`; one
// iteration is one whole page, items are inserts.
void fill_leaf(benchmark::State& state, const std::vector<Key>& order) {
  std::vector<std::byte> page(kPageSize);
  const uint32_t cell =
      ordo::btree::leaf_cell_size(ordo::micro::kKeyBytes, ordo::micro::kValueBytes);
  const ByteView value(ordo::micro::value_bytes());
  for (auto _ : state) {
    ordo::btree::NodeEditor editor(page.data(), kPageSize);
    editor.init(ordo::btree::PageType::kLeaf, 1);
    for (const Key& k : order) {
      if (!editor.fits(cell)) break;
      const ByteView kv(k.data(), k.size());
      bool found = false;
      editor.insert_leaf(editor.view().leaf_lower_bound(kv, &found), kv, value);
    }
    benchmark::DoNotOptimize(page.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(order.size()));
}

uint32_t leaf_capacity() {
  uint32_t n = 0;
  (void)ordo::micro::full_leaf(kPageSize, &n);
  return n;
}

void BM_LeafInsertAppend(benchmark::State& state) {
  std::vector<Key> keys;
  for (uint32_t i = 0; i < leaf_capacity(); ++i) keys.push_back(key(i));
  fill_leaf(state, keys);
}
BENCHMARK(BM_LeafInsertAppend);

void BM_LeafInsertRandom(benchmark::State& state) {
  fill_leaf(state, shuffled_keys(leaf_capacity()));
}
BENCHMARK(BM_LeafInsertRandom);

void BM_Xxh3Page(benchmark::State& state) {
  uint32_t n = 0;
  const std::vector<std::byte> page = ordo::micro::full_leaf(kPageSize, &n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ordo::btree::page_checksum(page.data(), kPageSize));
  }
  state.SetBytesProcessed(state.iterations() * kPageSize);
}
BENCHMARK(BM_Xxh3Page);

}  // namespace
