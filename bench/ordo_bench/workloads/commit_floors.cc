// The floor burst of the commit workload: the two kinds of 4 KiB durable
// write (sync_probe.h), alternating so that both see the same drift of the
// disk.
#include <vector>

#include "commit_workload.h"
#include "sync_probe.h"

namespace ordo::bench {
namespace {

constexpr unsigned kOverwriteBlocks = 256;  // 1 MiB written before the probes

}  // namespace

Result<CommitFloors> measure_floors(const CommitProbePaths& probes, const CommitConfig& config) {
  CommitFloors floors;
  if (config.floor_samples == 0) return floors;
  ORDO_ASSIGN_OR_RETURN(
      SyncProbe overwrite,
      SyncProbe::create(probes.overwrite, ProbeBlocks::kOverwrite, kOverwriteBlocks));
  ORDO_ASSIGN_OR_RETURN(SyncProbe unwritten,
                        SyncProbe::create(probes.unwritten, ProbeBlocks::kUnwritten,
                                          static_cast<unsigned>(config.floor_samples)));
  std::vector<double> overwrite_us, unwritten_us;
  for (uint64_t k = 0; k < config.floor_samples; ++k) {
    ORDO_ASSIGN_OR_RETURN(const double o, overwrite.probe_us());
    ORDO_ASSIGN_OR_RETURN(const double u, unwritten.probe_us());
    overwrite_us.push_back(o);
    unwritten_us.push_back(u);
  }
  floors.overwrite = summarize_latency(overwrite_us);
  floors.unwritten = summarize_latency(unwritten_us);
  return floors;
}

}  // namespace ordo::bench
