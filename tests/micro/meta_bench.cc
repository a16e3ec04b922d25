// The meta page: encode (with its XXH3) and decode-and-verify, as every
// commit and every open do.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "meta.h"

namespace {

constexpr uint32_t kMetaPageSize = 4096;

ordo::engine::Meta sample_meta() {
  ordo::engine::Meta meta;
  meta.page_size = kMetaPageSize;
  meta.txn_id = 12345;
  meta.page_high_water = 16'000;  // within file_bytes / page_size = 16,384 pages
  meta.file_bytes = 64ull << 20;
  meta.default_tree = {.root = 77, .depth = 3, .entries = 1'000'000, .root_checksum = 9};
  meta.catalog = {.root = 78, .depth = 1, .entries = 2, .root_checksum = 10};
  meta.tree_count = 2;
  return meta;
}

void BM_MetaEncode(benchmark::State& state) {
  const ordo::engine::Meta meta = sample_meta();
  std::vector<std::byte> page(kMetaPageSize);
  for (auto _ : state) {
    ordo::engine::encode_meta(meta, page.data());
    benchmark::DoNotOptimize(page.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MetaEncode);

void BM_MetaDecode(benchmark::State& state) {
  std::vector<std::byte> page(kMetaPageSize);
  ordo::engine::encode_meta(sample_meta(), page.data());
  ordo::engine::Meta meta;
  std::string text;
  for (auto _ : state) {
    const auto problem = ordo::engine::decode_meta(page.data(), &meta, &text);
    if (problem != ordo::engine::MetaProblem::kNone) {
      state.SkipWithError(text.c_str());
      return;
    }
    benchmark::DoNotOptimize(meta.txn_id);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MetaDecode);

}  // namespace
