// Internal: the cost model behind auto-dispatch's plans — how many parts
// split-k cuts k into, whether stream-K shares the last waves, whether an
// FP32 operand is copied transposed first — and the constants fitted to the
// H100 that drive it (docs/ladder.md, "Auto-dispatch", has the
// measurements). Plain C++; dispatch/plan.cpp and dispatch/heuristic.cpp
// read it, the kernels never do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/launch_plan.hpp"

namespace tessel::impl {

// ---- stream-K ---------------------------------------------------------------

// What sharing costs and must save, per kernel family: fixup_slices, the
// cost of handing a unit's partial sums between clusters, in k-slice times;
// min_gain, the fraction of the whole-units time sharing must save;
// min_run, the fewest shared k-slices per cluster; shared_slowdown, how much
// longer a shared slice takes than a whole unit's; full_waves_shared, how
// many full waves before the remainder are shared with it; max_pieces, the
// most runs one unit is cut across (0: any).
struct StreamKCost {
  int fixup_slices;
  double min_gain;
  int min_run;
  double shared_slowdown;
  int full_waves_shared;
  int max_pieces = 0;
};
// Step 15: 64-deep wgmma slices, 128 KiB handed over per CTA, the last full wave shared with the remainder.
constexpr StreamKCost kWgmmaStreamK{10, 0.05, 4, 0.0, 1};
// Step 15 on single CTAs for small m: slices are memory-bound and short, and
// the owner waits for the hand-overs and adds them one after another: each
// costs about 15 slices (H100, bf16 m <= 512 of the LLM and skinny suites).
constexpr StreamKCost kSoloWgmmaStreamK{15, 0.05, 4, 0.0, 1};
// Step 08's cp.async stream-K (16-deep slices): only the remainder is shared; a shared slice is 10% slower.
// A unit's owner adds its hand-overs one after another: a 64 x 64 x 65536 call cut one 128 x 256 tile into 265
// runs and took 7x cuBLAS's time (H100; split-k's 64 x 64 tiles: 0.27 -> 0.067 ms); so at most 8 runs a unit.
constexpr StreamKCost kSimtStreamK{1, 0.03, 16, 0.1, 0, 8};
// Step 08's TMA loop (32-deep slices): shared slices 5% slower, sharing where it saves 1%.
constexpr StreamKCost kSimtTmaStreamK{1, 0.01, 16, 0.05, 0, 8};

// Slices the busiest cluster works through when every unit goes whole.
inline int64_t whole_units_slices(int64_t units, int64_t slices, int clusters) {
  return (units + clusters - 1) / clusters * slices;
}

// The plan for `units` units of `slices` k-slices on `clusters` clusters:
// where the units do not come out in even waves, share the remainder (and
// cost.full_waves_shared full waves) if that saves cost.min_gain; *busiest:
// the estimated slice times of the busiest cluster, hand-overs included.
// (Shared slices are counted in int: sharing only where units * slices < 2^31.)
inline StreamKPlan plan_stream_k(int64_t units, int64_t slices, int clusters, int64_t* busiest = nullptr,
                                 const StreamKCost& cost = kWgmmaStreamK) {
  StreamKPlan plan;
  plan.whole = int(units);
  const int64_t whole_time = whole_units_slices(units, slices, clusters);
  if (busiest) *busiest = whole_time;
  if (units % clusters == 0 || units * slices > INT32_MAX) return plan;
  const int64_t whole_waves = std::max<int64_t>(0, units / clusters - cost.full_waves_shared);
  StreamKPlan shared;
  shared.whole = int(whole_waves * clusters);
  shared.shared_slices = int((units - shared.whole) * slices);
  // Runs of at least cost.min_run slices, and long enough that no unit is cut across more than max_pieces.
  const int64_t min_run =
      std::max<int64_t>(cost.min_run, cost.max_pieces > 1 ? (slices + cost.max_pieces - 2) / (cost.max_pieces - 1) : 1);
  shared.sharing = int(std::clamp<int64_t>(shared.shared_slices / min_run, 1, clusters));
  const int64_t run = (shared.shared_slices + shared.sharing - 1) / shared.sharing;
  const int64_t pieces = (slices + run - 1) / run + 1;  // most runs one unit is cut across
  const auto time = int64_t(double(shared.whole / clusters * slices) + double(run) * (1.0 + cost.shared_slowdown) +
                            double(cost.fixup_slices * pieces) + 0.5);
  if (time > (1.0 - cost.min_gain) * double(whole_time)) return plan;
  if (busiest) *busiest = time;
  return shared;
}

// Step 08's stream-K plan for `tiles` tiles of depth k in bk-deep slices on `slots` block slots.
inline StreamKPlan plan_step08_stream_k(int64_t tiles, int64_t k, int bk, int slots, int64_t* busiest,
                                       const StreamKCost& cost) {
  return plan_stream_k(tiles, (k + bk - 1) / bk, slots, busiest, cost);
}

// ---- split-k on the tensor-core kernels -------------------------------------

// Tensor cores add each mma's products into the FP32 accumulators with
// truncation, so the error of one accumulation chain grows like its length
// (about 2^-24 per mma step), not like its square root: no part of k deeper
// than this (about 2e-4 relative for tf32's 8-deep steps) where the parts fit.
constexpr int64_t kMaxChainDepth = 32768;
// A part is at least this many k-slices; beyond its slices it costs about
// kPersistentPartCost slice times (its FP32 tile out, and its share of the sum).
constexpr int64_t kMinPartSlices = 4;
constexpr int64_t kPersistentPartCost = 8;
// The parts' sum, a second launch reading them all, costs about this many slice
// times of the kernel's tile (4-8 us under Nsight Compute on the H100).
constexpr int64_t kPersistentPartsSumCost = 12;
// Steps 09-10: the parts' sum (a second launch) costs about this much k-depth of one block's tile.
constexpr int64_t kTensorPartsSumCost = 512;

// ---- tf32 with B op N -----------------------------------------------------------

// The tf32 wgmma kernels run op pair (N, N) swapped (plan.hpp, swaps_operands)
// where 4 k >= kTf32SwapDepthQuarters m; with shallower k, B's copy (n k values) costs less than
// the swap's transposed stores of C (m n values, direct stores instead of TMA):
// H100, suites: the swap lost up to 20% at k <= m / 4, 1-4% at k = m / 2, and
// won or tied from k = 3m / 4 on.
constexpr int64_t kTf32SwapDepthQuarters = 3;  // k >= m * 3 / 4
// Where B is still copied, the tf32 wgmma kernels run it at more than this
// many rows; at fewer, copying B transposed cost more than the wgmma saved over
// step 10's mma.sync, which reads B as it is (H100: 64 and 128 rows x
// 4096-28672 x 2048-14336, 0.31-0.39x cuBLAS against 0.49-0.69x).
constexpr int64_t kTf32CopyBMinM = 128;

// ---- step 14 on single CTAs, k split (few_tiles_pay) ------------------------------

// Single CTAs with a part of k each beat the cluster tiles (a pair's second CTA past m) and step 15's single
// CTAs (the owner adds the hand-overs one after another) where the output has at most one 64 x 64 tile per
// kSplitSoloSmsPerTile SMs (H200, bf16: 64 x 64 x 65536 0.69 -> 0.77 of cuBLAS); at one per 2 SMs step 15 won
// (64 x 4096 x 4096: 0.75 against 0.89). tf32 has no single-CTA stream-K: one tile high or wide suffices there.
constexpr int64_t kSplitSoloSmsPerTile = 4;

// ---- step 16: small m ---------------------------------------------------------

// The blocks an SM holds of the FP32 stream where the GPU cannot be asked (the kernel's occupancy
// at m = 1; at m = 16 it is 2).
constexpr int64_t kSmallMBlocksPerSm = 4;
// What a block of the FP32 stream costs beyond its chunks of k (staging, the warps' sums, the stores),
// in chunks: the plan's parts trade it against the last wave's idle SMs.
constexpr double kSmallMBlockChunks = 0.5;
// Split-k parts of the FP32 stream are summed by the last block of a column block to arrive while that
// block adds at most this many values (rows x columns x parts); beyond, a second launch costs less (H200,
// 16 x 512 x 32768 op N, 2048 values a block: 54 us summed in the kernel, 43 us by a second launch).
constexpr int64_t kSmallMArrivalMaxSums = 4096;
// ... and at m <= kSmallMArrivalMaxM: at m = 16 the kernels with that tail ran 1-4% slower than the second
// launch saves (H200, llm shapes of 16 rows), at m <= 4 up to 12% faster.
constexpr int64_t kSmallMArrivalMaxM = 4;
// Step 16 on tensor cores: a block's warps split k while each keeps at least
// kSmallMmaMinRounds rounds of loads.
constexpr int64_t kSmallMmaMinRounds = 2;
// What a block of step 16 on tensor cores costs beyond its k-slices, in slices (kSmallMmaSliceK), where the plan
// trades parts of k against a partial last round (the FP32 stream's block cost, kSmallMBlockChunks, in k).
constexpr double kSmallMmaBlockSlices = 1.0;
// Auto-dispatch runs B with op N on it at m <= 8, k >= 4096, n >= 512: there
// it beat the wgmma tiles (bf16, H100, LLM suite); with fewer columns or
// shallower k its few blocks run too few rounds each, and at m > 8 the tiles won.
constexpr int64_t kSmallMmaOpNMaxM = 8;
constexpr int64_t kSmallMmaOpNMinK = 4096;
constexpr int64_t kSmallMmaOpNMinN = 512;
// With B op T it runs them on one 8-row mma tile (m <= 8), and on two over
// fewer than 6144 columns: from there the TMA-fed tiles streamed B faster
// (bf16, H100: docs/ladder.md, step 16).
constexpr int64_t kSmallMmaOneTileMaxM = 8;
constexpr int64_t kSmallMmaOpTTwoTileMinN = 6144;
// Step 16 on Hopper, the swapped 64 x 16 tiles (16-bit or tf32 inputs, A with op N and
// A, B in 16-byte units for TMA): where they measured faster than step 16's stream and
// the tiles (bf16, H100, LLM and skinny suites): from kSwapMinK deep (the
// shallowest measured); with B op N up to kSwapOpNMaxN columns (wider: the stream);
// with op T from kSwapOpTMinK deep and kSwapOpTMinN wide (shallower or narrower:
// the stream). Above kSwapFewRowsMaxM rows only below kSwapManyRowsMaxN columns
// (from there step 15's single CTAs won).
constexpr int64_t kSwapMinK = 512;
constexpr int64_t kSwapOpNMaxN = 16384;
constexpr int64_t kSwapOpTMinK = 6144;
constexpr int64_t kSwapOpTMinN = 1024;
constexpr int64_t kSwapFewRowsMaxM = 8;
constexpr int64_t kSwapManyRowsMaxN = 14336;
// tf32 (a weight with op N read into registers): at every depth and width, except with
// B op N at m <= kSwapTf32StreamMaxM over kSwapManyRowsMaxN columns or more, where step
// 16's stream won (tf32, H100, LLM and skinny suites: m <= 16 1.009x cuBLAS against 0.897).
constexpr int64_t kSwapTf32StreamMaxM = 4;
// FP32 (not tf32) calls run step 16 on CUDA cores: with B op T at m <= 8, or a
// weight (n k) of at least 3.5 Mi values; with op N at m <= 4, or with k of at
// least 1024 and a weight of at least 2^18. Elsewhere the 64x64 split-k tiles
// measured faster (H100: 16 x 16 x 8192, 16 x 7168 x 576, op T 12-16 x 1-3 Mi values).
constexpr int64_t kSmallMFmaOpTMaxM = 8;
constexpr int64_t kSmallMFmaOpTMinWeight = int64_t(7) << 19;
constexpr int64_t kSmallMFmaOpNMaxM = 4;
constexpr int64_t kSmallMFmaOpNMinK = 1024;
constexpr int64_t kSmallMFmaOpNMinWeight = int64_t(1) << 18;

// ---- step 18: shallow k -----------------------------------------------------

// The deepest k auto-dispatch runs step 18 at, by precision and outputs (m n): where it measured faster
// than the tiles (H100, weight-gradient shapes of 512-32768 x 512-8192, k = 1-32): with FP32 C, up to
// 16 deep against step 08's FP32 tiles; 16 against tf32's wgmma below kShallowTf32WideOutputs values
// (at 4096 x 4096 x 16 the tiles were faster), else 8; 2 against 16-bit inputs' wgmma (at 4 it lost
// 0.4-0.9% over the suites' calls); with 16-bit C never (it writes 1.2-1.5 TB/s there).
constexpr int64_t kShallowTf32WideOutputs = int64_t(1) << 24;
constexpr int64_t shallow_max_k(const Precision& p, int64_t outputs) {
  if (p.c != DType::kF32) return 0;
  if (p.ab != DType::kF32) return 2;
  if (p.compute == Compute::kTF32) return outputs < kShallowTf32WideOutputs ? 16 : 8;
  return 16;
}
// And over at least this many columns (a warp's lanes take 128).
constexpr int64_t kShallowMinN = 64;

// ---- step 08: split-k -------------------------------------------------------

// A step-08 configuration as the cost model sees it (the tiles themselves
// are in kernels/simt/configs.hpp).
struct SimtShape {
  int threads = 0;       // per block
  int min_blocks = 1;    // blocks an SM is compiled to hold
  int bk = 1;            // k-slice depth
  bool aligned = true;   // 16-byte loads only (else any alignment)
};

// Split-k cuts k into at most kMaxSplits parts of about kMinSplitDepth or
// more (the persistent kernels: up to a part per cluster where those are more);
// beyond its FMAs a part costs about kSplitPartCost of k-depth.
constexpr int64_t kMinSplitDepth = 64;
constexpr int64_t kMaxSplits = 64;
constexpr int64_t kSplitPartCost = 32;
// Where stream-K can take the call, split-k is passed over once the whole tiles fill this many waves.
constexpr int64_t kSplitKMostWaves = 4;
// Split-k parts of a C not in 16-byte units go to a workspace of at most
// this size, and only where C has kMinPartsOutput elements or more (below
// that the second kernel costs more than the slow atomics save).
constexpr size_t kMaxPartsBytes = size_t(64) << 20;
constexpr int64_t kMinPartsOutput = 32768;

// An aligned configuration whose blocks have fewer than 4 warps (64x64 on 2 warps).
constexpr bool few_warp_blocks(const SimtShape& s) { return s.aligned && s.threads < 128; }

// The blocks an SM needs before a configuration runs at full speed: as many
// as it holds, except that few-warp blocks count full at 4 warps an SM.
constexpr int fill_blocks(const SimtShape& s) { return few_warp_blocks(s) ? 128 / s.threads : s.min_blocks; }

// The blocks the busiest of `sms` SMs runs, in whole rounds of `fill`.
inline int64_t busiest_sm_blocks(int64_t blocks, int sms, int fill) {
  const int64_t per_sm = (blocks + sms - 1) / sms;
  return (per_sm + fill - 1) / fill * fill;
}

// The k-depth of each part when k is cut into `splits` parts of whole bk-deep slices.
inline int64_t split_depth(int64_t k, int64_t splits, int64_t bk) {
  return ((k + splits - 1) / splits + bk - 1) / bk * bk;
}

// Whether `blocks` blocks take at least 90% of `slots` (the blocks all SMs hold at once): fewer leave SMs idle.
inline bool fills_slots(int64_t blocks, int64_t slots) { return 10 * blocks >= 9 * slots; }

// How many parts to cut k (>= 1) into for `tiles` tiles on `sms` SMs needing
// `fill` blocks each: of the counts whose blocks fill every SM, the one whose
// busiest SM has the least to do (the fewest on a tie); else as many as k allows.
inline int64_t split_count(int64_t tiles, int64_t k, int sms, int fill, int64_t bk) {
  const int64_t most = std::max<int64_t>(1, std::min(kMaxSplits, (k + kMinSplitDepth / 2) / kMinSplitDepth));
  const int64_t slots = int64_t(sms) * fill;
  int64_t best = most, best_work = -1;
  for (int64_t s = 1; s <= most; ++s) {
    const int64_t depth = split_depth(k, s, bk), blocks = tiles * ((k + depth - 1) / depth);
    if (!fills_slots(blocks, slots)) continue;
    const int64_t work = busiest_sm_blocks(blocks, sms, fill) * (depth + kSplitPartCost);
    if (best_work < 0 || work < best_work) best = s, best_work = work;
  }
  return best;
}

// Aligned split-k on 64x64 tiles runs 4-warp blocks where its 2-warp blocks
// would be at most this many an SM (more where an operand is transposed on
// its way in): a block waiting on loads then has more warps to hide them.
constexpr int kFourWarpSplitMostBlocks = 4;
constexpr int kFourWarpSplitMostBlocksTransposing = 6;

// ---- step 08: copying an operand transposed first ---------------------------

// Step 08 transposes A with op N (B with op T) through registers on its way
// into shared memory; a transposed copy made first lets cp.async read it
// instead. The register path costs a fraction of the FLOPs' time at a
// nominal rate; the copy its launch and its 8 bytes per element.
constexpr double kCopyNominalFlops = 45e12;          // FLOP/s
constexpr double kCopyLaunchSeconds = 4.5e-6;
constexpr double kCopyBytesPerSecond = 2.7e12;
constexpr size_t kMaxCopyBytes = size_t(256) << 20;  // each copy's workspace

// Whether the copy of an operand of mn x k fits kMaxCopyBytes.
inline bool copy_fits(int64_t mn, int64_t k) {
  return k * flipped_ld(mn) * int64_t(sizeof(float)) <= int64_t(kMaxCopyBytes);
}

// What reading an operand through registers adds: `cost` of the FLOPs' time,
// paid where the blocks fill every slot, or also with fewer (`when_short`).
struct RegisterPath {
  double cost;
  bool when_short;
};
// Few-warp blocks pay the most; B with op T on one-block-per-SM tiles pays
// more where k is not split, and even where the blocks do not fill the SMs.
constexpr RegisterPath register_path(const SimtShape& s, bool b_with_op_t, bool split_k) {
  if (few_warp_blocks(s)) return {0.4, false};
  const bool big_b = b_with_op_t && s.aligned && s.min_blocks == 1;
  return {big_b && !split_k ? 0.07 : 0.05, big_b};
}

// Whether to copy transposed an operand of mn x k for a GEMM of `flops`
// launched as `blocks` blocks on `slots` block slots.
inline bool copy_pays(double flops, int64_t mn, int64_t k, int64_t blocks, int64_t slots, RegisterPath path) {
  if ((blocks < slots && !path.when_short) || !copy_fits(mn, k)) return false;
  const double saved = path.cost * flops / kCopyNominalFlops;
  const double cost = kCopyLaunchSeconds + 8.0 * double(mn) * double(k) / kCopyBytesPerSecond;
  return saved > cost;
}

// ---- operands not in 16-byte units: realigned copies -------------------------

// An operand whose pointer or leading dimension is not in 16-byte units
// keeps the aligned kernels (tensor cores, TMA, 16-byte loads) from a call,
// leaving the element-wise ones: WMMA `_any`, which ran the unaligned suite's
// f16/bf16 calls at 13-21 TFLOP/s on the H100 (a fifth of cuBLAS or less),
// and step 08 `_any` at about kUnalignedSimtSpeed of step 08. Auto-dispatch
// copies such an operand into the workspace with aligned rows first where the
// copy (its launch, its bytes read and written) costs less than that loss.
constexpr double kUnalignedTensorFlops = 20e12;  // f16, bf16 (tf32: half)
constexpr double kUnalignedSimtSpeed = 0.8;
constexpr double kAlignedTensorFlops = 600e12;  // f16, bf16 (tf32: half)
constexpr double kAlignedSimtFlops = 45e12;

// Whether copies of `copy_bytes` (the operands' elements, read once and
// written once) pay for a GEMM of `flops` at precision p.
inline bool realign_pays(double flops, double copy_bytes, const Precision& p) {
  const bool tensor = p.ab != DType::kF32 || p.compute == Compute::kTF32;
  const double scale = p.ab == DType::kF32 ? 0.5 : 1.0;  // tf32 runs at half the 16-bit rates
  const double lost = tensor ? flops / (kUnalignedTensorFlops * scale) - flops / (kAlignedTensorFlops * scale)
                             : flops / kAlignedSimtFlops * (1.0 / kUnalignedSimtSpeed - 1.0);
  return copy_bytes <= double(kMaxCopyBytes) && kCopyLaunchSeconds + 2.0 * copy_bytes / kCopyBytesPerSecond < lost;
}

}  // namespace tessel::impl
