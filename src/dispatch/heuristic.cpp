#include "dispatch/heuristic.hpp"

#include <algorithm>
#include <cstdint>

#include "dispatch/plan.hpp"

namespace tessel {

const KernelEntry* pick_by_blocks(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                  int sms, int64_t batch) {
  struct Estimate {
    int64_t blocks = 0, area = 0;
    bool fills = false;
    double time = 0.0;
  };
  auto tiles_of = [&](const KernelEntry& e) {
    return ((m + e.info.tile_m - 1) / e.info.tile_m) * ((n + e.info.tile_n - 1) / e.info.tile_n) * batch;
  };
  // From the entry's schedule (plan_schedule): its blocks (split-k: times
  // its parts; stream-K: those its plan starts), whether they fill every SM
  // (fill_blocks each), and the busiest SM's work times the tile area over
  // the kernel's speed.
  auto estimate = [&](const KernelEntry& e) {
    Estimate est;
    int64_t busiest = 0;
    const impl::LaunchPlan plan = plan_schedule(e, m, n, k, sms, &busiest, batch);
    est.blocks = tiles_of(e) * plan.splits;
    est.area = int64_t(e.info.tile_m) * e.info.tile_n;
    const int fill = e.info.ladder_step == 8 ? impl::fill_blocks(e.simt) : 1;
    est.fills = est.blocks >= int64_t(0.9 * sms * fill);
    if (plan.stream_k.sharing > 0) {
      const int slots = sms * e.blocks_per_sm;
      est.blocks = plan.stream_k.whole > 0 ? slots : plan.stream_k.sharing;
      est.fills = est.blocks >= int64_t(0.9 * slots);
    }
    const double per_block = e.stream_k ? double(e.blocks_per_sm) : 1.0;  // stream-K counts a slot's slices
    est.time = per_block * double(busiest) * double(est.area) / e.speed;
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

double persistent_time(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int sms, int64_t batch) {
  int64_t busiest = 0;
  plan_schedule(e, m, n, k, sms, &busiest, batch);
  return double(busiest) * double(e.info.tile_m) * double(e.info.tile_n) / e.speed;
}

const KernelEntry* pick_persistent(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                   int sms, int64_t batch) {
  const KernelEntry* best = nullptr;
  double best_time = 0.0;
  for (const KernelEntry* e : candidates) {
    const double time = persistent_time(*e, m, n, k, sms, batch);
    if (!best || time <= best_time) best = e, best_time = time;  // a tie goes to the later kernel
  }
  return best;
}

}  // namespace tessel
