#include "dispatch/heuristic.hpp"

#include <algorithm>

#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/stream_k_plan.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel {

const KernelEntry* pick_by_blocks(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                  int sms) {
  k = std::max<int64_t>(k, 1);
  auto tiles = [&](const KernelEntry& e) {
    return ((m + e.info.tile_m - 1) / e.info.tile_m) * ((n + e.info.tile_n - 1) / e.info.tile_n);
  };
  // The k-depth each block sums: all of k, or a split-k kernel's part (as its launcher cuts it).
  auto depth = [&](const KernelEntry& e) {
    if (!e.info.split_k) return k;
    return impl::split_depth(k, impl::split_count(tiles(e), k, sms, e.blocks_per_sm, e.k_slice), e.k_slice);
  };
  auto blocks = [&](const KernelEntry& e) { return tiles(e) * ((k + depth(e) - 1) / depth(e)); };
  auto area = [](const KernelEntry& e) { return int64_t(e.info.tile_m) * e.info.tile_n; };
  auto fills = [&](const KernelEntry& e) { return blocks(e) >= int64_t(0.9 * sms * e.blocks_per_sm); };
  // The blocks the busiest SM runs, times their volume (area x depth; for
  // split-k, each part's depth plus impl::kSplitPartCost), over the kernel's speed.
  auto time = [&](const KernelEntry& e) {
    const int64_t d = e.info.split_k ? depth(e) + impl::kSplitPartCost : depth(e);
    return double((blocks(e) + sms - 1) / sms) * double(area(e)) * double(d) / e.speed;
  };
  auto faster = [&](const KernelEntry& e, const KernelEntry& than) {
    const double te = time(e), tt = time(than);
    return te < tt || (te == tt && area(e) > area(than));
  };
  const KernelEntry* fill = nullptr;  // the fastest (estimated) of the kernels whose blocks fill the GPU
  const KernelEntry* most = nullptr;  // most blocks (on a tie, the smaller tile: less idle work)
  for (const KernelEntry* e : candidates) {
    if (fills(*e) && (!fill || faster(*e, *fill))) fill = e;
    if (!most || blocks(*e) > blocks(*most) || (blocks(*e) == blocks(*most) && area(*e) < area(*most))) most = e;
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
