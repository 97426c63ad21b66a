// Internal: the kernel registry. One table (registry.cpp) that the
// dispatcher, the CLI and the tests all read; a new kernel is one new file
// plus one row there.
#pragma once

#include <string_view>
#include <vector>

#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"  // kSimtStreamK

namespace tessel {

struct KernelEntry {
  KernelInfo info;
  impl::LaunchFn launch;
  int blocks_per_sm = 1;  // blocks one SM holds at once (a stream-K kernel's slots per SM)
  bool persistent = false;  // one block (or cluster) per SM walks the tiles (the dispatcher's time estimate)
  // cluster: CTAs per cluster of a persistent kernel (they walk units of
  // `cluster` row tiles). speed: throughput per tile area relative to the
  // step's fastest configuration (both dispatcher estimates use it).
  // stream_k: a persistent kernel's last waves are shared out by k-slices
  // (step 15).
  // k_slice: a split-k kernel cuts k into parts of whole k_slice-deep slices.
  int cluster = 1;
  double speed = 1.0;
  bool stream_k = false;
  int k_slice = 1;
  int fill_blocks = 1;  // blocks an SM needs to run at full speed (impl::fill_blocks)
  // A step-08 stream-K kernel's plan costs (the dispatcher plans as its launcher does).
  impl::StreamKCost stream_k_cost = impl::kSimtStreamK;
};

// In ladder order.
const std::vector<KernelEntry>& registry();
const KernelEntry* find_entry(std::string_view name);

}  // namespace tessel
