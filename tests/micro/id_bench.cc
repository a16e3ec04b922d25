// ID generation: UUIDv7 and the 64-bit form, one generator shared by the
// benchmark's threads (1 and 2), as a database's writers and readers share it.
#include <benchmark/benchmark.h>

#include "ordo/id64.h"
#include "ordo/uuid_v7_generator.h"

namespace {

void BM_UuidV7Next(benchmark::State& state) {
  static ordo::UuidV7Generator generator;
  for (auto _ : state) benchmark::DoNotOptimize(generator.next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UuidV7Next)->Threads(1)->Threads(2)->UseRealTime();

void BM_Id64Next(benchmark::State& state) {
  static ordo::Id64Generator generator(/*node=*/1);
  for (auto _ : state) benchmark::DoNotOptimize(generator.next());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Id64Next)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
