// Internal: the kernel registry. One table (registry.cpp) that the
// dispatcher, the CLI and the tests all read; a new kernel is one new file
// plus one row there. An entry carries what dispatch needs to plan a call
// on the kernel, as plain numbers: the tile parameters stay in kernels/.
#pragma once

#include <string_view>
#include <vector>

#include "dispatch/cost_model.hpp"
#include "kernels/kernels.hpp"

namespace tessel {

// Which operands a kernel has copied transposed before it runs (dispatch decides and copies: copy_operands).
enum class Copies {
  kNone,
  kWherePays,    // step 08: A with op N, B with op T, where copy_pays (always with stream-K sharing)
  kTransposing,  // A with op N, B with op T, always (step 08's TMA loop reads no other layout)
  kKMajor,       // A with op T, B with op N, rounded to tf32 (tf32 wgmma reads K-major only)
  kAKMajor,      // A with op T (the swapped kernels' narrow operand is K-major)
};

struct KernelEntry {
  KernelInfo info;
  impl::LaunchFn launch;
  int blocks_per_sm = 1;    // blocks one SM holds at once (a stream-K kernel's slots per SM)
  bool persistent = false;  // one block (or cluster) per SM walks the tiles
  int cluster = 1;          // CTAs per cluster of a persistent kernel (they walk units of `cluster` row tiles)
  double speed = 1.0;       // throughput per tile area relative to the step's fastest configuration
  bool stream_k = false;    // the last waves may be shared out by k-slices
  int k_slice = 1;          // k-slice depth (split-k parts and stream-K runs are whole slices)
  impl::SimtShape simt{};   // step 08: the configuration as the cost model sees it
  impl::StreamKCost stream_k_cost = impl::kSimtStreamK;  // step 08's stream-K: what sharing costs
  Copies copies = Copies::kNone;
  // Aligned split-k on 64x64 tiles: the 4-warp configuration dispatch runs
  // instead where the 2-warp blocks are few (impl::kFourWarpSplitMostBlocks).
  impl::LaunchFn four_warps = nullptr;
  impl::SimtShape four_warps_simt{};
  // A persistent kernel's clusters (blocks) that the GPU runs at once; the plan's grid.
  impl::ResidentFn resident = nullptr;
  // Step 16's blocks an SM holds of the kernel a call launches: the plan's waves.
  impl::SmallMResidentFn small_m_resident = nullptr;
  // A registered kernel that takes the calls this one cannot (TMA's 32-bit
  // coordinates, a 2D grid's rows): dispatch plans those on it instead.
  const char* fallback = nullptr;
  int64_t auto_max_m = 0;  // auto-dispatch's candidates: m up to this (0: any); by name, any m
  // Its stores apply GemmArgs::epilogue (device/fused_epilogue.cuh) where its plan writes C directly;
  // else it writes the FP32 product and a pass applies the epilogue.
  bool fused_epilogue = false;
  bool small_m_mma = false;  // step 16 on tensor cores: plan_small_m splits k among a block's warps first
  bool swaps = false;        // runs every call swapped, Cᵀ = Bᵀ·Aᵀ (its tile and plan in that frame)
  bool shallow_k = false;    // step 18: auto-dispatch's where k is shallow (shallow_k_pays)
  bool few_tiles = false;    // single CTAs splitting k: auto-dispatch's where the output has few tiles (few_tiles_pay)
};

// In ladder order.
const std::vector<KernelEntry>& registry();
const KernelEntry* find_entry(std::string_view name);

}  // namespace tessel
