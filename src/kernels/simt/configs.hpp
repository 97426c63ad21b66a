// Tile parameters of the FP32 (SIMT) ladder, all in one place.
//
//   BM x BN   the block's tile of C        BK   the k-slice staged per step
//   TM x TN   one thread's tile of C       Pad  floats of padding per shared row
//   WM x WN   one warp's tile of C (steps 07, 08): its 32 lanes form a 4 x 8
//             grid, each lane holding (WM/4) x (WN/8) results as 4x4 fragments
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/kernels.hpp"  // flipped_ld
#include "kernels/stream_k_plan.hpp"

namespace tessel::impl {

struct NaiveConfig {  // steps 01 and 02: one thread per element of C
  static constexpr int kBlock = 32;  // 32 x 32 threads per block
};

struct SmemConfig {  // step 03
  static constexpr int kTile = 32;  // block tile: 32 x 32 of C, 32-deep k slices
  static constexpr int kPad = 1;    // floats of padding per shared-memory row
};

struct Blocktile1dConfig {  // step 04, the worklog's starting point
  static constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 8, kPad = 4;
  static constexpr int kThreads = kBM * kBN / kTM;  // 512
};

struct Blocktile2dConfig {  // steps 05 and 06
  static constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8, kPad = 4;
  static constexpr int kThreads = kBM * kBN / (kTM * kTN);  // 256
};

template <int BM, int BN, int BK, int WM, int WN, int MinBlocks = 1, int StepsTransposing = BK, int CopyAtStep = 0>
struct WarptileConfig {  // steps 07 and 08
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kWM = WM, kWN = WN, kPad = 4;
  static constexpr int kMinBlocks = MinBlocks;  // blocks per SM asked of the register allocator
  // Step 08: k-steps per iteration of a slice's loop when an operand goes
  // through registers (BK: the whole slice unrolled).
  static constexpr int kStepsPerIterationTransposing = StepsTransposing;
  // Step 08, both operands by cp.async: the k-step of a slice before which
  // the next slice's copy is issued (0: at the slice's start).
  static constexpr int kCopyAtStep = CopyAtStep;
  static constexpr int kLanesM = 4, kLanesN = 8;
  static constexpr int kTM = WM / kLanesM, kTN = WN / kLanesN;  // per-lane results
  static constexpr int kFragsM = kTM / 4, kFragsN = kTN / 4;    // 4x4 fragments per lane
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
  static_assert(kTM % 4 == 0 && kTN % 4 == 0, "lanes hold whole 4x4 fragments");
  static_assert(BK % 4 == 0, "k-slices are copied in 16-byte chunks");
};

using WarptileDefault = WarptileConfig<128, 128, 8, 32, 64>;  // 256 threads, 8x8 per lane

// Step 08's compiled configurations (each a registered kernel). Measured
// alternatives that lost (256x128, 8-warp 128x128 with k16, 4-warp 128x128
// for aligned calls, 128x256 with k8 or k32) are in docs/ladder.md.
// The 128x128 configurations run two k-steps per iteration on the register
// path too: the whole slice unrolled, with the barrier inside its last step
// (sixteenth session), no longer fit in 128 registers (ptxas spilled 12-56
// bytes). On the H100, pipelined 2048^3 NT 69% -> 85% of cuBLAS, NN 84 ->
// 87%, TT 85 -> 88%, 4096^3 NT and TT +1.5-1.7 points, NN even;
// pipelined_any 2047^3 NN, NT, TT and 4095^3 NT, TT +1.8-3.5 points; TN and
// 4095^3 NN (A copied: all cp.async) unchanged.
// With both operands by cp.async the 128x128 configuration issues the next
// slice's copy before k-step 2 of 8: on the H100, TN 2048^3 85.6% -> 89.7% of
// cuBLAS, 4096^3 86.8 -> 91.0% (before step 1: the same; 3 or 4: as at the
// start or slower). The 64x64 and unaligned configurations keep the copy at
// the slice's start: later copies there ran up to 18% slower, or mixed
// (64x64 before step 2: 2048^3 +1.2%, 1024^3 -0.5%).
using Pipelined128x128 = WarptileConfig<128, 128, 8, 32, 64, 2, 2, 2>;  // 8x8 per lane, <= 128 registers: 2 blocks/SM
// 128x256 runs its k-steps two per loop iteration where an operand goes
// through registers: on the H100, NN at 2048^3 87.5% -> 90.9% of cuBLAS
// (unrolled by 4: 87.0%; with the sixteenth session's loop, the whole slice
// unrolled: NT and TT 90-96% -> 83-87%), while TN, all cp.async, keeps the
// whole 16-step slice unrolled (two or four steps per iteration: 4096^3
// 96.9-97.2% -> 91-92%, although ncu's no_instruction stalls fell 54 k -> 9 k).
//
// With both operands by cp.async it issues the next slice's copy before
// k-step 9 of the slice's 16 instead of at its start. On the H100, against
// the start, 4096^3 TN 96.6-97.1% -> 99.8-101.1% of cuBLAS (50.0 -> 51.7
// TFLOP/s), NN (A copied) 95.2-95.5 -> 98.3-100.0, 2048^3 TN 94.5 -> 96.7;
// before step 8: 0.6% slower at 4096^3 to 8192^3, 0.3% faster at 2048^3;
// before steps 4, 6, 7 or 10: 0.2-1.4% slower than 8; before 12: slower
// than at the start.
using Pipelined128x256 = WarptileConfig<128, 256, 16, 64, 64, 1, 2, 9>;  // 16x8 per lane, 1 block/SM: large outputs
// The same tile on Hopper's TMA loop (pipelined_128x256_streamk_tma) with
// 32-deep k-slices (two stages: 96 KiB) run as two loop iterations of 16
// unrolled k-steps: half the barriers and mbarrier waits of 16-deep slices,
// and a loop body no longer than theirs. On the H100 (twenty-sixth session,
// TN, us): 2048^3 340 -> 331, 4096^3 2628 -> 2586-2595, 8192^3 20772 ->
// 20151, 4096x4096x8192 5256 -> 5090. 32-deep slices unrolled whole ran
// 8-14% slower at 2048^3 and 4096x4096x8192 (ncu: no_instruction stalls
// x3, the 4,400-instruction loop outgrowing the instruction cache) though
// 1.3% faster at 4096^3. The next slice's copy goes before k-step 9 of the
// first iteration (unrolled whole, before step 17 ran as fast, before 25
// up to 1% slower).
// (The TMA loop has no register path: kStepsPerIterationTransposing, the
// base's, goes unread; kStepsPerIteration is its loop's.)
struct PipelinedTma128x256 : WarptileConfig<128, 256, 32, 64, 64, 1, 32, 9> {
  static constexpr int kStepsPerIteration = 16;
};
// 64x64 over 2 warps of 16x4 with 16-deep slices (the 128x256 kernel's
// tall thread tile; 4 blocks/SM): against 4 warps of 8x4 with 8-deep slices
// on the H100, +11% at 4096^3 (+10-32% for the split-k and unaligned
// variants), +12% at 3072^3, -8% at 2048^3 (where auto takes 128x256).
// (4 warps of 8x4 with 16-deep slices serve split-k where its blocks are
// few: Pipelined64x64Warps4 below.)
using Pipelined64x64 = WarptileConfig<64, 64, 16, 64, 32, 4>;  // 16x4 per lane, 64 threads: small outputs
// Split-k's 64x64 tiles run on 4 warps of 8x4 per lane where that pays (113
// registers: 4 blocks, 16 warps an SM; the 2-warp blocks' 167-199 allow at
// most 6 blocks, 12 warps). A block that waits on its loads then has more
// warps to hide them with:
//   * for any alignment, always: element-wise loads (4-byte cp.async, loads
//     into registers) wait longest. On the H100 (twenty-fourth session, us,
//     two rounds, 2 warps -> 4): 127x4097x1000 NN 39.2 -> 37.7, TT 40.2 ->
//     38.8 (ncu: the GEMM kernel 33.4 -> 32.0 us, issue slots 69 -> 76%;
//     cuBLAS's 30.3), 255x33x1024 13.7 -> 11.3, 127x127x4096 20.0 -> 17.6,
//     2047x129x4096 NN 111.7 -> 95.7, 257x257x1000 18.5 -> 17.3 (every op
//     pair alike or better); 513x1025x4096 NN 142.3 -> 144.2 and TT 143.6 ->
//     146.9 the losses;
//   * aligned, where the 2-warp blocks would number at most
//     kFourWarpSplitMostBlocks an SM (pipelined_splitk's launcher): there the
//     4-warp kernel, with its own split count (fill_blocks: 4 blocks) and
//     copy rule (register_path), won every shape measured (auto, us, NN):
//     256^3 12.7 -> 10.6 (TN 83.5 -> 99.5% of cuBLAS), 512^3 17.1 -> 16.0,
//     704^3 30.1 -> 26.8, 832^3 38.8 -> 37.2, 300x300x5000 40.2 -> 34.1,
//     2048x128x2048 42.1 -> 35.9, 4096x64x300 by name 18.3 -> 16.7. With
//     more blocks it lost TN (896^3, 784 blocks: 41.5 -> 44.7; 1152^3 79.0
//     -> 85.7), but where an operand goes through registers (NN, NT, TT) it
//     won up to kFourWarpSplitMostBlocksTransposing an SM: nine shapes of
//     720-784 blocks, none slower (768x768x400 NN 28.2 -> 24.9, 896^3 NT
//     53.8 -> 49.0, 1200x1200x400 NT 51.1 -> 45.1, 3072x256x768 NT 57.1 ->
//     45.0); 1152^3 (1296 blocks) keeps 2 warps.
// The tile kernels keep 2 warps: 4 lost at 3071^3 and 4095^3 for any
// alignment (NN 3169 -> 3287) and were mixed below.
using Pipelined64x64Warps4 = WarptileConfig<64, 64, 16, 32, 32, 4>;  // 8x4 per lane, 128 threads
constexpr int kFourWarpSplitMostBlocks = 4;
constexpr int kFourWarpSplitMostBlocksTransposing = 6;
// The unaligned 128x128 kernel (element-wise global loads) runs on 4 warps
// with 16x8 per lane: +17% at 4096^3 over 8 warps of 8x8 on the H100 (+9% at
// 3072^3, -1% at 5120^3). The aligned one keeps 8x8, which the 4-warp shape
// beat at 4096^3 (+2.6%) but lost to at 3072^3 (-12%) and 5120^3 (-3%),
// the shapes tuning gives it (docs/ladder.md).
using PipelinedAny128x128 = WarptileConfig<128, 128, 16, 64, 64, 2, 2>;  // 16x8 per lane, 128 threads

// Step 08's split-k variants cut k into at most kMaxSplits parts, about
// kMinSplitDepth deep at the least (k / kMinSplitDepth rounded); each part
// adds its sums to C atomically (C scaled by beta first). Beyond its FMAs a
// part costs about kSplitPartCost of k-depth (fitted on the H100: 128x256
// tiles at 1024^3 and 3072^3 cut 2 to 8 ways). On the H100, 1024x1024x300 in
// two 160-deep parts ran 14% slower than uncut; 127x4097x1000 in four
// 256-deep parts 5% faster than in three. The least depth was 256 until
// small outputs' blocks were counted in rounds (fill_blocks); 64 since (H100,
// auto-dispatch, nineteenth session): 256^3 56 -> 95% of cuBLAS (TN 51 ->
// 82%), 384^3 76 -> 124%, 512^3 75 -> 105%, 640^3 91 -> 116%, 512x512x256
// 75 -> 112%, 1536^3 NN 81 -> 103%; least depth 128: 256^3 74%.
constexpr int64_t kMinSplitDepth = 64;
constexpr int64_t kMaxSplits = 64;
constexpr int64_t kSplitPartCost = 32;
// Where a stream-K kernel can take the call, the dispatcher passes over
// split-k once the whole tiles fill this many waves: with C scaled first and
// every part adding into it, split-k then ran slower than whole tiles or
// stream-K at every size measured on the H100 (auto, 128x256, NN, us, split-k
// -> whole tiles: 6144^3 9096 -> 9003, 7424^3 16080 -> 15681, 7680^3 17543 ->
// 17452, 7936^3 19395 -> 19321, 8192^3 21339 -> 21229; TN alike; split-k ->
// stream-K from 4864^3 to 6912^3; twenty-second session).
constexpr int64_t kSplitKMostWaves = 4;
// Split-k parts that cannot add into C atomically at full speed (C not in
// 16-byte units) go to a workspace of at most this many bytes (else they add),
// where C has at least kMinPartsOutput elements: below that the second
// kernel that sums the parts costs more than the atomics save. Measured on
// the H100 (auto, twenty-third session, us, parts -> atomics, NN): 101x101x8192
// 25.6 -> 22.0, 127x127x4096 22.5 -> 20.0, 255x33x1024 15.6 -> 14.0,
// 33x255x2048 16.9 -> 14.0 (every op pair alike); 257x257x1000 18.6 -> 18.8,
// 201x301x3000 27.6 -> 28.3, 511x129x2048 24.6 -> 27.1, 127x4097x1000
// 39.4 -> 43.8.
constexpr size_t kMaxPartsBytes = size_t(64) << 20;
constexpr int64_t kMinPartsOutput = 32768;

// Step 08's stream-K schedule (pipelined_128x256_streamk), in 16-deep slices
// of 128 x 256 tiles (~2.6 us each on an H100): every full wave goes whole
// to the tile kernel, and only the remainder's k-slices are shared (by the
// stream-K kernel, launched after it). Fitted to the H100 (twenty-second
// session, ncu durations of the two kernels at eight shapes, TN): the
// shared runs took 7% longer per slice than whole tiles, plus about one
// slice per piece a tile is cut into (its hand-over); 0.1 and 1 here, and
// sharing where that is estimated to save 3% or more. Measured against the
// tile schedule at 4096^3 (3.9 waves; estimated 0.6% faster) the two
// launches were 0.5% slower, and at 4096x4096x1024 and 7168^3 (also 0.88 of
// a wave left over) 1.3-1.6%: no sharing there. Where it shares it beat
// main's earlier stream-K (the last full wave shared with the remainder, at
// most 2 whole waves) and split-k (H100, NN, us): 2560^3 738 -> 698, 3072^3
// 1204 -> 1168, 3328^3 1524 -> 1481, 4352^3 3318 (split-k) -> 3233, 5120^3
// 5429 -> 5222, 6912^3 12991 -> 12718.
constexpr StreamKCost kSimtStreamK{1, 0.03, 16, 0.1, 0};
// The same on Hopper's TMA-fed loop (pipelined_128x256_streamk_tma, 209-211
// registers where step 08's stream-K kernel needs 254): at 4096^3 TN (H100,
// ncu) the 396 whole tiles took 1.99 ms (2.59 us a slice) and the shared
// runs, 225 slices a block plus hand-overs, 617 us: 5% longer a slice with
// one slice per piece. Timed, sharing came out about 0.7% short of that
// estimate (the second launch's start). With 32-deep slices
// (PipelinedTma128x256, twenty-sixth session) the same costs, counted in
// 32-deep slices, matched sharing forced on and off at 18 shapes (TN,
// H100): the estimate's ratio to whole tiles came within 0.3-0.9% of the
// measured one, short of it, and every shape estimated to save 1% or more
// ran faster shared (1536^3 to 8192^3, 8192x8192x1024: 0.9-38%), every
// other ran faster whole (2048^3 and 2048x2048x4096, one partial wave:
// 2.8-4.5%; 7168^3, 4096x4096x1024, 1024x8192x8192, 8192x1024x8192:
// 0.3-0.4%).
constexpr StreamKCost kSimtTmaStreamK{1, 0.01, 16, 0.05, 0};
// Its plan for `tiles` tiles of depth k in bk-deep slices on `slots` block
// slots (SMs x blocks per SM): read by its launcher and by the dispatcher.
inline StreamKPlan plan_step08_stream_k(int64_t tiles, int64_t k, int bk, int slots, int64_t* busiest = nullptr,
                                       const StreamKCost& cost = kSimtStreamK) {
  return plan_stream_k(tiles, (k + bk - 1) / bk, slots, busiest, cost);
}

// Step 08 reads A with op N (and B with op T) through registers, transposing
// it into its k-major tile; A with op T (B with op N) goes straight in by
// cp.async, which is faster (H100, 4096^3, 128x256 tiles: TN 47.2 against NN
// 44.9 TFLOP/s). Where it pays, its launcher first copies such an operand
// transposed (8 bytes moved per element: 47 us for 4096 x 4096 on the H100)
// and reads the copy by cp.async (copy_pays). What the register path costs
// depends on the kernel and on whether its blocks fill the SMs: with fewer
// blocks than slots the extra loads and stores go in issue slots that would
// idle anyway. Measured on the H100 (twentieth session, auto-dispatch with
// the copy forced on and off; times in us):
//   * aligned 64x64 tiles (2-warp blocks): where the blocks filled every
//     slot, 1200x1200x400 NN 52.3 -> 45.6 (split-k), 896^3 56.6 -> 47.7,
//     1152^3 99.7 -> 86.3, 1536x1536x256 57.5 -> 47.7, 3000x3000x300 165 ->
//     148 (NT and TT alike); where they did not, 1000^3 64.4 -> 70.4,
//     1024x1024x300 24.1 -> 28.9; small calls lose the copy's ~4.5 us (256^3
//     12.7 -> 17.3, 640^3 22.7 -> 27.7);
//   * 128x256 tiles: 4096x4096x1024 NN 722 -> 701, NT 771 -> 717, TT 752 ->
//     702; 4096^3 NN 94.8 -> 98.3% of cuBLAS, NT 90.5 -> 98, TT 94.8 -> 102.7;
//     one wave or less lost (2048x2048x512 98 -> 105) or broke even (2048^3);
//     8192x1024x8192 (A 8192 x 8192) lost;
//   * unaligned kernels (earlier sessions): 3071^3 +4%, 4095^3 +5%, 2047^3
//     -3%, 127x4097x1000 NN 39.2 -> 42.4.
// The rule below fits all of these: the register path costs a fraction of
// the FLOPs' time at a nominal 45 TFLOP/s (0.4 for the aligned 64x64 tiles,
// 0.05 for the others), the copy its launch and its bytes.
constexpr double kCopyNominalFlops = 45e12;        // FLOP/s
constexpr double kCopyLaunchSeconds = 4.5e-6;      // a small call's loss to the copy
constexpr double kCopyBytesPerSecond = 2.7e12;     // the copy's 8 bytes per element
constexpr size_t kMaxCopyBytes = size_t(256) << 20;  // each copy's workspace
// Whether the copy of an operand of mn x k (k rows of mn values, each row in
// 16-byte units, as flip_operands makes it) fits kMaxCopyBytes.
inline bool copy_fits(int64_t mn, int64_t k) {
  return k * flipped_ld(mn) * int64_t(sizeof(float)) <= int64_t(kMaxCopyBytes);
}
// What reading an operand through registers adds to a step-08 kernel: a
// fraction of the GEMM's FLOPs' time at kCopyNominalFlops, paid where the
// kernel's blocks fill every slot, or also with fewer blocks (`when_short`).
// B with op T on the one-block-per-SM tiles (128x256) pays it there too: at
// 2048^3 (128 tiles on 132 SMs) the copy took TT from 94.0 to 97.3% of
// cuBLAS and NT from 90.2 to 91.9, 1920^3 (120 tiles) TT 88.9 -> 92.3, NT
// 88.8 -> 90.1, while A with op N broke even (2048^3 NN 95.5 -> 94.9, 1920^3
// 98.5 -> 97.8).
// An aligned step-08 kernel whose blocks have fewer than 4 warps (the 64x64
// tiles): its register path costs the most, and it fills an SM with fewer
// blocks than it holds (register_path, fill_blocks).
template <class Cfg, bool Aligned>
constexpr bool few_warp_blocks() {
  return Aligned && Cfg::kThreads < 128;
}
struct RegisterPath {
  double cost;
  bool when_short;
};
// B with op T costs the one-block-per-SM tiles more where k is not split:
// 0.07 of the FLOPs' time. Measured on the H100 (auto, twenty-second
// session, us) with the copy turned on by 0.08: 1024x8192x8192 NT 2962 ->
// 2912, TT 2938 -> 2884; 1536x8192x1024 NT 574 -> 553, TT 566 -> 544;
// 1024x8192x2048 NT 753 -> 744; 1024x4096x4096 TT 738 -> 732, NT 755 ->
// 760. 0.07 keeps the first two and leaves out 2048x2048x512, where the
// copy lost (98 -> 105, above). With k split it lost too (1024x1024x8192 NT
// 384 -> 395, 1024x2048x8192 NT 755 -> 774): 0.05 there.
template <class Cfg, bool Aligned>
constexpr RegisterPath register_path(bool b_with_op_t, bool split_k = false) {
  if (few_warp_blocks<Cfg, Aligned>()) return {0.4, false};
  const bool big_b = b_with_op_t && Aligned && Cfg::kMinBlocks == 1;
  return {big_b && !split_k ? 0.07 : 0.05, big_b};
}
// Whether to copy transposed an operand of mn x k for a GEMM of `flops`
// launched as `blocks` blocks on `slots` block slots (SMs x blocks each holds).
inline bool copy_pays(double flops, int64_t mn, int64_t k, int64_t blocks, int64_t slots, RegisterPath path) {
  if ((blocks < slots && !path.when_short) || !copy_fits(mn, k)) return false;
  const double saved = path.cost * flops / kCopyNominalFlops;
  const double cost = kCopyLaunchSeconds + 8.0 * double(mn) * double(k) / kCopyBytesPerSecond;
  return saved > cost;
}

// The k-depth of each part when k is cut into `splits` parts of whole bk-deep slices.
inline int64_t split_depth(int64_t k, int64_t splits, int64_t bk) {
  return ((k + splits - 1) / splits + bk - 1) / bk * bk;
}

// The blocks an SM needs before a step-08 kernel runs at full speed there:
// as many as it is compiled to hold (kMinBlocks), except an aligned kernel
// whose blocks have fewer than 4 warps (64x64 tiles: 2 warps a block, 4
// blocks held): enough blocks for 4 warps, one per warp scheduler. On the
// H100, 512^3 cut into 256 blocks of 64x64 (two per SM, 128-deep parts) ran
// at 105% of cuBLAS, into 128 (one per SM, 256-deep: the same work per SM) at
// 75%, and 1024x1024x300 uncut in 256 at 92%, cut in two (512 blocks) at 82%;
// counting 4 as full, 4096x64x300 went to 128x256 tiles (61% against
// 95-100%). The unaligned
// 64x64 kernel, its loads element-wise, keeps 4 (127x4097x1000 in four
// parts ran 5% faster than in three). The dispatcher and split_count count
// an SM's blocks in rounds of this many (busiest_sm_blocks): a round with
// fewer takes about as long as a full one.
template <class Cfg, bool Aligned>
constexpr int fill_blocks() {
  return few_warp_blocks<Cfg, Aligned>() ? 128 / Cfg::kThreads : Cfg::kMinBlocks;
}

// The blocks the busiest of `sms` SMs runs, in whole rounds of `fill`.
inline int64_t busiest_sm_blocks(int64_t blocks, int sms, int fill) {
  const int64_t per_sm = (blocks + sms - 1) / sms;
  return (per_sm + fill - 1) / fill * fill;
}

// How many parts to cut k (>= 1) into for `tiles` output tiles on `sms` SMs
// that each need `fill` blocks (fill_blocks): of the counts whose blocks fill
// every SM, the one whose busiest SM has the least to do (busiest_sm_blocks
// times their depth plus kSplitPartCost), the fewest on a tie; if none
// fills (k too shallow to cut that often), as many as k allows.
inline int64_t split_count(int64_t tiles, int64_t k, int sms, int fill, int64_t bk) {
  const int64_t most = std::max<int64_t>(1, std::min(kMaxSplits, (k + kMinSplitDepth / 2) / kMinSplitDepth));
  const int64_t slots = int64_t(sms) * fill;
  int64_t best = most, best_work = -1;
  for (int64_t s = 1; s <= most; ++s) {
    const int64_t depth = split_depth(k, s, bk), blocks = tiles * ((k + depth - 1) / depth);
    if (10 * blocks < 9 * slots) continue;  // leaves SMs short of blocks
    const int64_t work = busiest_sm_blocks(blocks, sms, fill) * (depth + kSplitPartCost);
    if (best_work < 0 || work < best_work) best = s, best_work = work;
  }
  return best;
}

// The depth of each part where a step-08 split-k kernel of Cfg cuts k (>= 1)
// for `tiles` tiles on `sms` SMs.
template <class Cfg, bool Aligned>
int64_t split_k_depth(int64_t tiles, int64_t k, int sms) {
  return split_depth(k, split_count(tiles, k, sms, fill_blocks<Cfg, Aligned>(), Cfg::kBK), Cfg::kBK);
}

// Whether aligned split-k on 64x64 tiles (pipelined_splitk) runs blocks of 4
// warps (Pipelined64x64Warps4): where the 2-warp kernel (Pipelined64x64)
// would launch at most kFourWarpSplitMostBlocks blocks an SM, or
// kFourWarpSplitMostBlocksTransposing where an operand is transposed on its
// way in (`transposing`: A with op N or B with op T).
inline bool split_k_four_warps(int64_t m, int64_t n, int64_t k, int sms, bool transposing) {
  using Cfg = Pipelined64x64;
  const int64_t tiles = ((m + Cfg::kBM - 1) / Cfg::kBM) * ((n + Cfg::kBN - 1) / Cfg::kBN);
  const int64_t depth = split_k_depth<Cfg, true>(tiles, k, sms);
  const int most = transposing ? kFourWarpSplitMostBlocksTransposing : kFourWarpSplitMostBlocks;
  return tiles * ((k + depth - 1) / depth) <= int64_t(most) * sms;
}
}  // namespace tessel::impl
