// Internal: auto-dispatch's built-in choice among configurations of one step.
#pragma once

#include <cstdint>
#include <vector>

#include "dispatch/registry.hpp"

namespace tessel {

// Among candidates that can all take an m x n x k call, the largest block
// tile whose block count fills every one of `sms` SMs with as many blocks as
// it holds (larger tiles reuse more of each load; too few blocks leave SMs
// idle); failing that, a split-k kernel when k is deep enough to split;
// else the tile that gives the most blocks (the smaller on a tie). Null for
// no candidates.
const KernelEntry* pick_by_blocks(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                  int sms);

// Among persistent kernels (one block per SM walking the tiles), the one
// whose tiles fill the waves best: tiles / (waves x sms), with a 10% toll on
// any tile smaller than the largest (less reuse of each load). Null for no
// candidates.
const KernelEntry* pick_by_waves(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int sms);

}  // namespace tessel
