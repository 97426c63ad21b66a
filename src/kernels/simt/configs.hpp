// Tile parameters of the FP32 (SIMT) ladder, all in one place. The numbers
// behind each choice are in docs/ladder.md, under the step that uses it.
//
//   BM x BN   the block's tile of C        BK   the k-slice staged per step
//   TM x TN   one thread's tile of C       Pad  floats of padding per shared row
//   WM x WN   one warp's tile of C (steps 07, 08): its 32 lanes form a 4 x 8
//             grid, each lane holding (WM/4) x (WN/8) results as 4x4 fragments
#pragma once

namespace tessel::impl {

struct NaiveConfig {  // steps 01 and 02: one thread per element of C
  static constexpr int kBlock = 32;  // 32 x 32 threads per block
};

struct SmemConfig {  // step 03
  static constexpr int kTile = 32;  // block tile: 32 x 32 of C, 32-deep k slices
  static constexpr int kPad = 1;    // floats of padding per shared-memory row
};

struct Blocktile1dConfig {  // step 04
  static constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 8, kPad = 4;
  static constexpr int kThreads = kBM * kBN / kTM;  // 512
};

struct Blocktile2dConfig {  // steps 05 and 06
  static constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8, kPad = 4;
  static constexpr int kThreads = kBM * kBN / (kTM * kTN);  // 256
};

// Steps 07 and 08. MinBlocks: blocks per SM asked of the register allocator.
// StepsTransposing: step 08's k-steps per loop iteration where an operand
// goes through registers (BK: the slice unrolled whole). CopyAtStep: with
// both operands by cp.async, the k-step before which the next slice's copy
// is issued (0: at the slice's start).
template <int BM, int BN, int BK, int WM, int WN, int MinBlocks = 1, int StepsTransposing = BK, int CopyAtStep = 0>
struct WarptileConfig {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kWM = WM, kWN = WN, kPad = 4;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kStepsPerIterationTransposing = StepsTransposing;
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

// Step 08's compiled configurations (each a registered kernel).
// 8x8 per lane in <= 128 registers: 2 blocks an SM; two k-steps per
// iteration on the register path (unrolled whole it spills); copy before step 2.
using Pipelined128x128 = WarptileConfig<128, 128, 8, 32, 64, 2, 2, 2>;
// 16x8 per lane, one block an SM, for large outputs; two k-steps per
// iteration on the register path; with both operands by cp.async the
// slice unrolled whole and the next copy issued before k-step 9 of 16.
using Pipelined128x256 = WarptileConfig<128, 256, 16, 64, 64, 1, 2, 9>;
// The same tile on Hopper's TMA loop: 32-deep slices (two stages, 96 KiB)
// run as two loop iterations of 16 unrolled k-steps — half the barriers of
// 16-deep slices with a loop body no longer than theirs (unrolled whole, the
// body outgrows the instruction cache). The loop reads kStepsPerIteration.
struct PipelinedTma128x256 : WarptileConfig<128, 256, 32, 64, 64, 1, 32, 9> {
  static constexpr int kStepsPerIteration = 16;
};
// 64x64 on 2 warps of 16x4 per lane (4 blocks an SM): small outputs.
using Pipelined64x64 = WarptileConfig<64, 64, 16, 64, 32, 4>;
// 64x64 on 4 warps of 8x4 per lane: split-k where its blocks are few (more
// warps to hide loads; dispatch's choice), and every unaligned split-k call.
using Pipelined64x64Warps4 = WarptileConfig<64, 64, 16, 32, 32, 4>;
// 64x256 on 4 warps of 16x8 per lane (two blocks an SM): the 128x256 lane tile for outputs of up to
// 64 rows, k split across blocks.
using Pipelined64x256 = WarptileConfig<64, 256, 16, 64, 64, 2, 2, 9>;
// Unaligned 128x128 on 4 warps of 16x8 per lane (element-wise loads want the taller lane tile).
using PipelinedAny128x128 = WarptileConfig<128, 128, 16, 64, 64, 2, 2>;

}  // namespace tessel::impl
