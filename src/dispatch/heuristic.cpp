#include "dispatch/heuristic.hpp"

#include <algorithm>

#include "kernels/simt/configs.hpp"

namespace tessel {

const KernelEntry* pick_by_blocks(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                  int sms) {
  auto blocks = [&](const KernelEntry& e) {
    return ((m + e.info.tile_m - 1) / e.info.tile_m) * ((n + e.info.tile_n - 1) / e.info.tile_n);
  };
  auto area = [](const KernelEntry& e) { return int64_t(e.info.tile_m) * e.info.tile_n; };
  auto fills = [&](const KernelEntry& e) { return blocks(e) >= int64_t(0.9 * sms * e.blocks_per_sm); };
  const KernelEntry* fill = nullptr;   // largest tile that fills the GPU
  const KernelEntry* most = nullptr;   // most blocks (on a tie, the smaller tile: less idle work)
  const KernelEntry* split = nullptr;  // a split-k kernel
  for (const KernelEntry* e : candidates) {
    if (e->info.split_k) {
      if (!split) split = e;
    } else {
      if (fills(*e) && (!fill || area(*e) > area(*fill))) fill = e;
      if (!most || blocks(*e) > blocks(*most) || (blocks(*e) == blocks(*most) && area(*e) < area(*most))) most = e;
    }
  }
  if (fill) return fill;
  if (split && (k >= 2 * impl::kMinSplitDepth || !most)) return split;
  return most;
}

const KernelEntry* pick_by_waves(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int sms) {
  auto area = [](const KernelEntry* e) { return int64_t(e->info.tile_m) * e->info.tile_n; };
  int64_t largest = 0;
  for (const KernelEntry* e : candidates) largest = std::max(largest, area(e));
  const KernelEntry* best = nullptr;
  double best_score = -1.0;
  for (const KernelEntry* e : candidates) {
    const int64_t tiles = ((m + e->info.tile_m - 1) / e->info.tile_m) * ((n + e->info.tile_n - 1) / e->info.tile_n);
    const int64_t waves = (tiles + sms - 1) / sms;
    const double score = double(tiles) / double(waves * sms) * (area(e) == largest ? 1.0 : 0.9);
    if (score > best_score || (score == best_score && area(e) > area(best))) best = e, best_score = score;
  }
  return best;
}

}  // namespace tessel
