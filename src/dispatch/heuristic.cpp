#include "dispatch/heuristic.hpp"

#include <algorithm>
#include <cstdint>

#include "kernels/hopper/configs.hpp"
#include "kernels/stream_k_plan.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel {

const KernelEntry* pick_by_blocks(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                  int sms) {
  k = std::max<int64_t>(k, 1);
  struct Estimate {
    int64_t blocks = 0, area = 0;
    bool fills = false;
    double time = 0.0;
  };
  auto tiles_of = [&](const KernelEntry& e) {
    return ((m + e.info.tile_m - 1) / e.info.tile_m) * ((n + e.info.tile_n - 1) / e.info.tile_n);
  };
  auto estimate = [&](const KernelEntry& e) {
    Estimate est;
    const int64_t tiles = tiles_of(e);
    // The k-depth each block sums: all of k, or a split-k kernel's part (as its launcher cuts it).
    const int64_t depth =
        e.info.split_k ? impl::split_depth(k, impl::split_count(tiles, k, sms, e.fill_blocks, e.k_slice), e.k_slice)
                       : k;
    est.blocks = tiles * ((k + depth - 1) / depth);
    est.area = int64_t(e.info.tile_m) * e.info.tile_n;
    est.fills = est.blocks >= int64_t(0.9 * sms * e.fill_blocks);
    // The blocks the busiest SM runs, times their volume (area x depth; for
    // split-k, each part's depth plus impl::kSplitPartCost), over the kernel's speed.
    const int64_t volume_depth = e.info.split_k ? depth + impl::kSplitPartCost : depth;
    if (!e.stream_k) {
      est.time = double(impl::busiest_sm_blocks(est.blocks, sms, e.fill_blocks)) * double(est.area) *
                 double(volume_depth) / e.speed;
      return est;
    }
    // Step 08's stream-K (the persistent ones go to pick_persistent): the plan's busiest block.
    const int slots = sms * e.blocks_per_sm;
    int64_t busiest = 0;
    const impl::StreamKPlan plan = impl::plan_step08_stream_k(tiles, k, e.k_slice, slots, &busiest, e.stream_k_cost);
    if (plan.sharing > 0) {  // the blocks its launcher starts
      est.blocks = plan.whole > 0 ? slots : plan.sharing;
      est.fills = est.blocks >= int64_t(0.9 * slots);
    }
    est.time = double(e.blocks_per_sm) * double(busiest) * double(e.k_slice) * double(est.area) / e.speed;
    return est;
  };
  // Split-k over many waves of whole tiles, where stream-K can take the call instead (impl::kSplitKMostWaves).
  const bool stream_k = std::any_of(candidates.begin(), candidates.end(), [](const KernelEntry* e) { return e->stream_k; });
  auto many_waves = [&](const KernelEntry& e) { return tiles_of(e) >= impl::kSplitKMostWaves * sms * e.blocks_per_sm; };
  const KernelEntry* fill = nullptr;  // the fastest (estimated) of the kernels whose blocks fill the GPU
  const KernelEntry* most = nullptr;  // most blocks (on a tie, the smaller tile: less idle work)
  Estimate best_fill, best_most;
  for (const KernelEntry* e : candidates) {
    if (e->info.split_k && stream_k && many_waves(*e)) continue;
    const Estimate est = estimate(*e);
    if (est.fills && (!fill || est.time < best_fill.time || (est.time == best_fill.time && est.area > best_fill.area))) {
      fill = e, best_fill = est;
    }
    if (!most || est.blocks > best_most.blocks || (est.blocks == best_most.blocks && est.area < best_most.area)) {
      most = e, best_most = est;
    }
  }
  return fill ? fill : most;
}

double persistent_time(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int sms) {
  const int64_t units = impl::ClusterUnits(m, n, e.info.tile_m, e.info.tile_n, e.cluster).count();
  const int clusters = std::max(1, sms / e.cluster);
  const int64_t slices = (std::max<int64_t>(k, 1) + impl::kSliceK - 1) / impl::kSliceK;
  int64_t busiest = impl::whole_units_slices(units, slices, clusters);
  if (e.stream_k) impl::plan_stream_k(units, slices, clusters, &busiest);
  return double(busiest) * double(e.cluster) * double(e.info.tile_m) * double(e.info.tile_n) / e.speed;
}

const KernelEntry* pick_persistent(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                   int sms) {
  const KernelEntry* best = nullptr;
  double best_time = 0.0;
  for (const KernelEntry* e : candidates) {
    const double time = persistent_time(*e, m, n, k, sms);
    if (!best || time <= best_time) best = e, best_time = time;  // a tie goes to the later kernel
  }
  return best;
}

}  // namespace tessel
