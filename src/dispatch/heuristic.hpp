// Internal: auto-dispatch's built-in choice among configurations of one step.
#pragma once

#include <cstdint>
#include <vector>

#include "dispatch/registry.hpp"

namespace tessel {

// Among candidates that can all take an m x n x k call, of those whose
// blocks fill every one of `sms` SMs (KernelEntry::fill_blocks each: too
// few leave warp schedulers idle; a split-k kernel's blocks are its tiles times
// the parts it cuts k into), the one with the least
// estimated time: the blocks the busiest SM runs (in whole rounds of
// fill_blocks, impl::busiest_sm_blocks), times their volume (tile
// area x k-depth), over the kernel's relative speed (KernelEntry::speed:
// larger tiles reuse more of each load; a partial last wave of large tiles
// can still lose, as 128x256 does at 3072^3; a split-k part costs
// impl::kSplitPartCost of depth more), the larger tile on a tie. If none
// fills, the one with the most blocks (the smaller tile on a tie). Null for
// no candidates.
// batch: a strided batch of that many such calls, each candidate running it in one launch.
const KernelEntry* pick_by_blocks(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                  int sms, int64_t batch = 1);

// Persistent kernels (one block, or cluster of blocks, per SM walking the
// tiles): the estimated time of e for an m x n x k call on `sms` SMs, in
// arbitrary units comparable between kernels: the k-slices the busiest
// cluster works through (whole units in waves, or step 15's stream-K plan
// with its fix-up cost), times one CTA's tile area (a cluster's CTAs work at
// once), over the kernel's relative speed (KernelEntry::speed: smaller tiles
// reuse each load less).
double persistent_time(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int sms, int64_t batch = 1);

// The candidate with the least persistent_time (on a tie, the later one in
// the registry). Null for no candidates.
const KernelEntry* pick_persistent(const std::vector<const KernelEntry*>& candidates, int64_t m, int64_t n, int64_t k,
                                   int sms, int64_t batch = 1);

}  // namespace tessel
