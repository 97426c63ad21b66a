// Ladder step 08 — pipelined: double-buffered shared memory fed by cp.async.
//
// Step 07 copies a k-slice, waits at a barrier, computes, waits again: while
// the copy is in flight the FMA units idle, and while they work no memory
// request is outstanding. Here shared memory holds two k-slices. While the
// warps compute on one, the next is already on its way into the other:
//   * operands whose stored rows run along the tile's x dimension (A with
//     op T, B with op N) go straight from global to shared memory with
//     cp.async (16 bytes, no registers, edges zero-filled by the hardware);
//   * operands that must be transposed on the way (A with op N, B with op T)
//     are loaded into registers (LDG.128) before the math and written to
//     shared memory after it, so their latency hides behind the FMAs too.
// (Copying them with 4-byte cp.async instead, one element at a time, lost up
// to 23%: docs/ladder.md.) One barrier per k-slice instead of two, and it
// comes before the slice's last k-step, whose fragments are already in
// registers: the next slice's first fragments then load while that step's
// FFMAs run, and warps that reach the barrier late hold the others up
// less (cuBLAS's SGEMM kernels place it so; on an H100 this and loading
// whole slices without bounds tests took 128 x 256 at 4096^3 from 91% to
// 97% of cuBLAS). Blocks
// are launched in a swizzled order (groups of 8 block-rows) so that the
// blocks resident together share panels of A and B in L2. Where a thread's
// tile is taller than wide, its FFMAs go column by column (multiply_fragments).
// Where both operands go by cp.async, the next slice's copy is issued
// part-way through the slice (configs.hpp, CopyAtStep), not at its top,
// where every warp's first fragment loads come right after the barrier:
// 128 x 256 at 4096^3 TN on an H100, 97% -> 100% of cuBLAS.
// A slice's k-steps are unrolled whole, or two per loop iteration where the
// configuration says so for the register path (128x256: +3.5% at 2048^3 NN;
// the 128x128 ones: no spills, up to +16 points of cuBLAS at 2048^3 NT).
//
// The kernels for unaligned arguments (registered as pipelined_any*) choose
// per operand at launch: an operand whose rows start on 16-byte boundaries
// is read as above; one that is not goes element by element, with 4-byte
// cp.async where no transposing is needed (large unaligned shapes lost 4%
// to element-wise loads into registers; skinny and split ones won 11-41%)
// and through registers where it is. C's groups of four results are stored
// with the widest accesses their addresses allow; split-k parts that would
// add into an unaligned C go to a workspace instead (launch_pipelined).
// On an H100, 127x4097x1000 went from 68% to 89% of cuBLAS (docs/ladder.md);
// the split-k kernel's blocks of 4 warps (configs.hpp) took TT to 93-94%.
//
// A with op N costs the most to read (loads into registers, transposing
// stores), and B with op T likewise. Where that costs more than a copy (a
// large call whose blocks fill every SM), the launcher first copies such an
// operand transposed into a workspace and reads that with cp.async instead
// (configs.hpp, copy_pays): on an H100, 4096^3 NN 94.8% -> 98.3% of cuBLAS
// (A), NT 90.5% -> 98% (B); 1200x1200x400 NN (64x64 tiles, split-k) 52 -> 46 us.
//
// Stream-K (the pipelined_128x256_streamk schedule): where the tiles do not
// come out in whole waves, the full waves go to the tile kernel and the
// remainder's k-slices are shared out evenly among a second launch of one
// block per SM, partial sums handed between blocks through a workspace
// (pipelined_stream_k_kernel). On an H100, 3072^3 went from 95% (split-k)
// to 101% of cuBLAS, 2560^3 89 -> 97%, when one persistent kernel took the
// whole tiles too; its k-loop there ran 8-9% slower than the tile kernel's
// (more registers, another schedule). With the whole waves in the tile
// kernel (twenty-second session): 2560^3 NN 738 -> 698 us, 3072^3 1204 ->
// 1168, 5120^3 5429 (split-k) -> 5222.
//
// The seed worklogs' double-buffered kernels came out slower than their
// warptiled ones; see docs/ladder.md for what we measured here and why.
//
// The launchers are instantiated in 08_pipelined.cu, 08_pipelined_any.cu (any
// alignment) and, for the 128 x 256 configuration, 08_pipelined_128x256.cu,
// which ptxas compiles at its highest register-usage level (CMakeLists.txt): +1.7% there, -2% for the
// 128 x 128 configuration (docs/ladder.md, "What limits the best kernel now").
#pragma once

#include <algorithm>
#include <type_traits>

#include "device/common.cuh"
#include "device/stream_k.cuh"
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"
#include "kernels/stream_k_plan.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kSwizzleGroup = 8;

// How one operand is read: 16-byte chunks when Aligned (pointer and leading
// dimension in 16-byte units), else element by element; either way
// straight into shared memory with cp.async when it needs no transposing,
// through registers when it does (KContig).
template <bool KContig, bool Aligned, int MN, int BK, int Pad, int Threads>
using PipelinedLoader =
    std::conditional_t<Aligned || KContig, device::StreamingTileLoader<KContig, MN, BK, Pad, Threads, Aligned>,
                       device::ElementTileLoader<KContig, MN, BK, Pad, Threads>>;

// How the parts of a split k meet. kAtomic: each adds alpha times its sums
// into C atomically (C was scaled by beta first). kParts: part z stores alpha
// times its sums into its own matrix at C + z * part_stride (a workspace),
// which launch_sum_parts adds up into the real C afterwards.
enum class KSplit { kNone, kAtomic, kParts };
template <KSplit S>
using KSplitConstant = std::integral_constant<KSplit, S>;

// This thread's first row and column of its fragments in the block's tile.
template <class Cfg>
__device__ __forceinline__ void lane_origin(int& row0, int& col0) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  row0 = warp / Cfg::kWarpsN * Cfg::kWM + lane / Cfg::kLanesN * 4;
  col0 = warp % Cfg::kWarpsN * Cfg::kWN + lane % Cfg::kLanesN * 4;
}

// This thread's fragments of k-step kk from a stage's k-major tiles (rows of
// RowA and RowB floats): its TM values of op(A) and TN of op(B).
template <class Cfg, int RowA, int RowB>
__device__ __forceinline__ void read_fragments(float (&fa)[Cfg::kTM], float (&fb)[Cfg::kTN], const float (*As)[RowA],
                                               const float (*Bs)[RowB], int kk, int row0, int col0) {
  constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;
#pragma unroll
  for (int f = 0; f < Cfg::kFragsM; ++f) device::lds4(&fa[4 * f], &As[kk][row0 + f * kRowStep]);
#pragma unroll
  for (int g = 0; g < Cfg::kFragsN; ++g) device::lds4(&fb[4 * g], &Bs[kk][col0 + g * kColStep]);
}

// One k-step's FFMAs: acc += fa fb^T.
// The order of a step's FFMAs decides where ptxas puts the next step's
// fragment loads (it schedules the whole unrolled slice itself, whatever
// the order of the source). Row by row (r outer) with 16 x 8 per thread, it
// bunches them: six LDS.128 in a row just before the FFMAs that need them,
// the warp stalled 4 cycles after each. Column by column, down one column
// and up the next, it spreads them among the FFMAs. On the H100 at 4096^3
// that made 128 x 256 (16 x 8 per thread) 2.8% (NN) to 7.8% (TN) faster
// and 64 x 64 (8 x 4) 1.6%; 128 x 128 (8 x 8) lost 2% and keeps rows.
// UpFirst: the serpentine starts up its first column instead of down.
template <class Cfg, bool UpFirst>
__device__ __forceinline__ void multiply_fragments(float (&acc)[Cfg::kTM][Cfg::kTN], const float (&fa)[Cfg::kTM],
                                                   const float (&fb)[Cfg::kTN]) {
  constexpr int TM = Cfg::kTM, TN = Cfg::kTN;
  constexpr bool kDownColumns = TM > TN;
#pragma unroll
  for (int u = 0; u < TM * TN; ++u) {
    const bool up = (u / TM % 2 == 1) != UpFirst;
    const int r = kDownColumns ? (up ? TM - 1 - u % TM : u % TM) : u / TN;
    const int c = kDownColumns ? u / TM : u % TN;
    acc[r][c] += fa[r] * fb[c];
  }
}

// acc = this thread's share of the BM x BN tile of op(A) op(B) at (i0, j0),
// summed over k-indices [k_begin, k_end): the pipelined k-loop. Ends with
// the block past a barrier, its shared memory free for the next call.
// AlignedA, AlignedB: the loaders above. UpFirst: as multiply_fragments.
template <class Cfg, bool AlignedA, bool AlignedB, bool TransA, bool TransB, bool UpFirst = false>
__device__ __forceinline__ void accumulate_tile(const SgemmArgs& p, float4* smem, int64_t i0, int64_t j0,
                                                int64_t k_begin, int64_t k_end, float (&acc)[Cfg::kTM][Cfg::kTN]) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, Pad = Cfg::kPad;
  constexpr int TM = Cfg::kTM, TN = Cfg::kTN;
  constexpr bool kTransposeA = !TransA, kTransposeB = TransB;  // the operands that are KContig
  constexpr bool kAsyncA = !kTransposeA, kAsyncB = !kTransposeB;  // copied by cp.async
  // Two stages of both tiles, in dynamic shared memory (large tiles pass the 48 KB static limit).
  using ATile = float[BK][BM + Pad];
  using BTile = float[BK][BN + Pad];
  ATile* As = reinterpret_cast<ATile*>(smem);
  BTile* Bs = reinterpret_cast<BTile*>(As + 2);

  int row0, col0;
  lane_origin<Cfg>(row0, col0);
  const device::Operand a{p.A, p.lda, p.m, k_end}, b{p.B, p.ldb, p.n, k_end};
  PipelinedLoader<kTransposeA, AlignedA, BM, BK, Pad, Cfg::kThreads> load_a(a, i0, k_begin);
  PipelinedLoader<kTransposeB, AlignedB, BN, BK, Pad, Cfg::kThreads> load_b(b, j0, k_begin);

  // Start bringing slice k0 into stage s ...
  auto fetch = [&](int s, int64_t k0) {
    if (k0 + BK <= k_end) {  // a whole slice: nothing to test against k
      if constexpr (kAsyncA) load_a.copy_async(As[s]); else load_a.load();
      if constexpr (kAsyncB) load_b.copy_async(Bs[s]); else load_b.load();
    } else {
      if constexpr (kAsyncA) load_a.copy_async_edge(As[s], a, k0); else load_a.load_edge(a, k0);
      if constexpr (kAsyncB) load_b.copy_async_edge(Bs[s], b, k0); else load_b.load_edge(b, k0);
    }
    device::cp_async_commit();
    load_a.advance();
    load_b.advance();
  };
  // ... and finish it (this thread's part; a barrier must follow).
  auto land = [&](int s) {
    if constexpr (!kAsyncA) load_a.store(As[s]);
    if constexpr (!kAsyncB) load_b.store(Bs[s]);
    device::cp_async_wait_all();
  };
  // Fragments in registers are double-buffered too: step kk+1's are read
  // from shared memory while step kk's FMAs run.
  float fa[2][TM], fb[2][TN];
  auto read = [&](int s, int kk, int buf) { read_fragments<Cfg>(fa[buf], fb[buf], As[s], Bs[s], kk, row0, col0); };
  // k-steps per iteration of the slice's loop: all of them, except where an
  // operand goes through registers and the configuration asks for fewer
  // (Cfg::kStepsPerIterationTransposing; configs.hpp says why).
  constexpr int kUnroll = kAsyncA && kAsyncB ? BK : Cfg::kStepsPerIterationTransposing;
  static_assert(BK % kUnroll == 0 && kUnroll % 2 == 0, "whole pairs of k-steps per iteration");
  // With both operands by cp.async, the next slice's copy may be issued
  // later than the slice's start: before its k-step kCopyAt
  // (Cfg::kCopyAtStep; configs.hpp has the measurements).
  constexpr int kCopyAt = kAsyncA && kAsyncB ? Cfg::kCopyAtStep : 0;
  static_assert(kCopyAt >= 0 && kCopyAt + 1 < BK, "the copy is issued before the slice's last step");
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0.0f;
  auto multiply = [&](int buf) { multiply_fragments<Cfg, UpFirst>(acc, fa[buf], fb[buf]); };
  fetch(0, k_begin);
  land(0);
  __syncthreads();
  read(0, 0, 0);
  int s = 0;
  for (int64_t k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    // Stage s^1 was last read before the previous barrier.
    if (kCopyAt == 0 && more) fetch(s ^ 1, k0 + BK);
#pragma unroll 1
    for (int kb = 0; kb < BK - kUnroll; kb += kUnroll) {
#pragma unroll
      for (int h = 0; h < kUnroll; ++h) {
        read(s, kb + h + 1, (h + 1) % 2);
        multiply(h % 2);
      }
    }
#pragma unroll
    for (int h = 0; h < kUnroll; ++h) {  // the slice's last kUnroll steps
      if (kCopyAt > 0 && h == kCopyAt && more) fetch(s ^ 1, k0 + BK);
      if (h + 1 < kUnroll) {
        read(s, BK - kUnroll + h + 1, (h + 1) % 2);
      } else if (more) {
        // The last step's fragments are in registers: the next slice can
        // land and the block meet at the barrier now, and that slice's first
        // fragments load while this step's FFMAs run instead of after them
        // (as in cuBLAS's SGEMM kernels).
        land(s ^ 1);
        __syncthreads();
        read(s ^ 1, 0, 0);
      }
      multiply(h % 2);
    }
    s ^= 1;
  }
  __syncthreads();  // every warp is done with the last slice's stage
}

// The tile's results into C (alpha * acc + beta * C), or added into C
// (alpha * acc) where Split is kAtomic. AlignedC: C in 16-byte units (else
// each group of four results is stored or added as its address allows).
template <class Cfg, bool AlignedC, KSplit Split>
__device__ __forceinline__ void store_tile(const SgemmArgs& p, int64_t i0, int64_t j0,
                                           const float (&acc)[Cfg::kTM][Cfg::kTN]) {
  constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;
  int row0, col0;
  lane_origin<Cfg>(row0, col0);
#pragma unroll
  for (int r = 0; r < Cfg::kTM; ++r)
#pragma unroll
    for (int g = 0; g < Cfg::kFragsN; ++g) {
      const int64_t i = i0 + row0 + r / 4 * kRowStep + r % 4, j = j0 + col0 + g * kColStep;
      const float4 sums = device::get4(acc, r, 4 * g);
      if constexpr (Split == KSplit::kAtomic) {
        device::add_row4<AlignedC>(p, i, j, sums);
      } else {
        device::store_row4<AlignedC>(p, i, j, sums);
      }
    }
}

// This block's tile (row bm, column bn of tiles): with Linear the
// blockIdx.x-th of the grouped order over all of C, else the 2D grid's
// swizzled order.
template <class Cfg, bool Linear>
__device__ __forceinline__ void block_tile(const SgemmArgs& p, int& bm, int& bn) {
  if constexpr (Linear) {
    device::grouped_tile<kSwizzleGroup>(blockIdx.x, int(device::ceil_div(p.m, Cfg::kBM)),
                                        int(device::ceil_div(p.n, Cfg::kBN)), bm, bn);
  } else {
    device::swizzled_block<kSwizzleGroup>(bm, bn);
  }
}

// One block per tile (split-k: per tile and part of k). Split other than
// kNone: block z sums k-indices [z * k_per_split, (z + 1) * k_per_split).
// Linear: a grid of gridDim.x blocks takes the first gridDim.x tiles of the
// grouped order over all of C (stream-K's whole waves), not a 2D grid's.
template <class Cfg, bool AlignedA, bool AlignedB, bool AlignedC, KSplit Split, bool TransA, bool TransB,
          bool Linear = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    pipelined_kernel(SgemmArgs p, int64_t k_per_split, int64_t part_stride) {
  constexpr bool SplitK = Split != KSplit::kNone;
  extern __shared__ float4 smem[];
  int bm, bn;
  block_tile<Cfg, Linear>(p, bm, bn);
  const int64_t i0 = int64_t(bm) * Cfg::kBM, j0 = int64_t(bn) * Cfg::kBN;
  const int64_t k_begin = SplitK ? blockIdx.z * k_per_split : 0;
  const int64_t k_end = SplitK ? min(p.k, k_begin + k_per_split) : p.k;
  float acc[Cfg::kTM][Cfg::kTN];
  accumulate_tile<Cfg, AlignedA, AlignedB, TransA, TransB>(p, smem, i0, j0, k_begin, k_end, acc);
  if constexpr (Split == KSplit::kParts) p.C += blockIdx.z * part_stride;
  store_tile<Cfg, AlignedC, Split>(p, i0, j0, acc);
}

// Stream-K's shared runs (the plan: kernels/stream_k_plan.hpp, as step 15;
// the whole tiles [0, sk.whole) went to pipelined_kernel, Linear, launched
// before this). The k-slices of tiles sk.whole onwards, laid end to end tile
// after tile, go in equal runs to blocks 0..sk.sharing-1 (the grid). A block
// walks its run from the end backwards: the first segment it takes may end
// before its tile does, and then its sums go to the block's slot in the
// workspace for the block that owns the tile (the one holding the tile's
// last slices), which takes that segment last and adds the earlier blocks'
// sums before it stores the tile. walk_stream_k_run is that walk (both
// step-08 stream-K kernels): accumulate(i0, j0, s0, s1, acc) sums slices
// [s0, s1) of the tile at (i0, j0) into acc for each segment, the walk hands
// the sums over or stores them.
template <class Cfg, class Accumulate>
__device__ __forceinline__ void walk_stream_k_run(const SgemmArgs& p, const StreamKWork& sk, Accumulate&& accumulate) {
  constexpr int BK = Cfg::kBK, TM = Cfg::kTM, TN = Cfg::kTN, kVec4s = TM * TN / 4;
  const int tiles_m = int(device::ceil_div(p.m, Cfg::kBM)), tiles_n = int(device::ceil_div(p.n, Cfg::kBN));
  const int slices = int(device::ceil_div(p.k, BK));
  const int block = blockIdx.x, t = threadIdx.x;
  const int begin = sk.run_begin(block);
  auto slot = [&](int b) { return reinterpret_cast<float4*>(sk.partials) + int64_t(b) * kVec4s * Cfg::kThreads; };
  auto sync = [] { __syncthreads(); };
  for (int pos = sk.run_begin(block + 1); pos > begin;) {
    // The next segment: slices [s0, s1) of tile `unit`.
    const int unit_start = (pos - 1) / slices * slices, from = max(begin, unit_start);
    const int unit = sk.whole + unit_start / slices, s0 = from - unit_start, s1 = pos - unit_start;
    pos = from;
    int bm, bn;
    device::grouped_tile<kSwizzleGroup>(unit, tiles_m, tiles_n, bm, bn);
    const int64_t i0 = int64_t(bm) * Cfg::kBM, j0 = int64_t(bn) * Cfg::kBN;
    float acc[TM][TN];
    accumulate(i0, j0, s0, s1, acc);
    if (s1 < slices) {  // the tile's last slices belong to a later block: hand these sums to it
      device::save_partial<Cfg::kThreads, kVec4s>(
          slot(block), sk.flags + block, t, [&](int i) { return device::get4(acc, 4 * i / TN, 4 * i % TN); }, sync);
      continue;
    }
    if (s0 > 0) {  // earlier blocks summed the first slices: add theirs
      const int unit_start = (unit - sk.whole) * slices;
      for (int b = block - 1;; --b) {
        device::add_partial<Cfg::kThreads, kVec4s>(
            slot(b), sk.flags + b, t, [&](int i, float4 v) { device::add4(acc, 4 * i / TN, 4 * i % TN, v); }, sync);
        if (sk.run_begin(b) <= unit_start) break;
      }
    }
    store_tile<Cfg, true, KSplit::kNone>(p, i0, j0, acc);
  }
}

// The cp.async loop's runs. Its FFMAs go in the other serpentine (UpFirst):
// of 19 source orders measured for the stream-K kernel's loops (H100,
// 128x256, TN, twenty-first session), that one ran its shared runs fastest.
template <class Cfg, bool TransA, bool TransB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    pipelined_stream_k_kernel(SgemmArgs p, StreamKWork sk) {
  extern __shared__ float4 smem[];
  walk_stream_k_run<Cfg>(p, sk, [&](int64_t i0, int64_t j0, int s0, int s1, float (&acc)[Cfg::kTM][Cfg::kTN]) {
    accumulate_tile<Cfg, true, true, TransA, TransB, true>(p, smem, i0, j0, int64_t(s0) * Cfg::kBK,
                                                           min(p.k, int64_t(s1) * Cfg::kBK), acc);
  });
}

}  // namespace

// The current device's SM count.
inline cudaError_t current_sms(int& sms) {
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  return cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
}

template <class Cfg, bool Aligned, Schedule S>
cudaError_t launch_pipelined(const SgemmArgs& args, cudaStream_t stream) {
  constexpr bool SplitK = S == Schedule::kSplitK;
  int sms = 0;
  if (cudaError_t err = current_sms(sms); err != cudaSuccess) return err;
  const int64_t tiles = device::ceil_div(args.m, Cfg::kBM) * device::ceil_div(args.n, Cfg::kBN);
  // Stream-K: one block per SM slot, sharing the last waves' k-slices where
  // the plan says that pays (kSimtStreamK); else the tile schedule.
  StreamKWork sk;
  const int slots = sms * Cfg::kMinBlocks;
  if constexpr (S == Schedule::kStreamK) {
    static_assert(Aligned, "stream-K is compiled for the aligned kernels only");
    static_cast<StreamKPlan&>(sk) = plan_step08_stream_k(tiles, args.k, Cfg::kBK, slots);
    if (sk.sharing == 0) return launch_pipelined<Cfg, Aligned, Schedule::kTiles>(args, stream);
  }
  int64_t per_split = args.k, splits = 1;
  if constexpr (SplitK) {
    per_split = split_k_depth<Cfg, Aligned>(tiles, args.k, sms);
    splits = device::ceil_div(args.k, per_split);
  }
  // A with op N and B with op T are transposed on their way into the
  // kernel's k-major tiles, through registers; with the other op they go
  // straight in by cp.async, faster. Where the difference pays for a copy
  // (configs.hpp, copy_pays), the kernel reads a transposed copy (the
  // stream's operand workspace). Stream-K always does: its register path
  // lost 10-17% where the tile schedule's did not (H100, NN against TN;
  // 3072^3, 4096x4096x1024, 8192x1024x8192).
  auto copies = [&](int64_t mn, bool b) {
    if constexpr (S == Schedule::kStreamK) return copy_fits(mn, args.k);
    return copy_pays(2.0 * double(args.m) * double(args.n) * double(args.k), mn, args.k, tiles * splits, slots,
                     register_path<Cfg, Aligned>(b, splits > 1));
  };
  const bool copy_a = args.opA == Op::N && copies(args.m, false);
  const bool copy_b = args.opB == Op::T && copies(args.n, true);
  if (copy_a || copy_b) {
    SgemmArgs t = args;
    if (cudaError_t err = flip_operands(&t, copy_a, copy_b, false, stream); err != cudaSuccess) return err;
    return launch_pipelined<Cfg, Aligned, S>(t, stream);
  }
  constexpr size_t kSmem = 2 * sizeof(float) * Cfg::kBK * (Cfg::kBM + Cfg::kBN + 2 * Cfg::kPad);
  if constexpr (S == Schedule::kStreamK) {
    if (cudaError_t err = stream_k_workspace(stream, slots, Cfg::kBM * Cfg::kBN, &sk.flags, &sk.partials);
        err != cudaSuccess) {
      return err;
    }
    // Two launches: the whole waves' tiles by the tile kernel, at its speed,
    // then the remainder's runs.
    return device::with_ops(args.opA, args.opB, [&](auto ta, auto tb) {
      auto tiles_kernel = pipelined_kernel<Cfg, true, true, true, KSplit::kNone, ta, tb, true>;
      auto runs_kernel = pipelined_stream_k_kernel<Cfg, ta, tb>;
      for (const void* kernel : {reinterpret_cast<const void*>(tiles_kernel), reinterpret_cast<const void*>(runs_kernel)}) {
        if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem));
            err != cudaSuccess) {
          return err;
        }
      }
      if (sk.whole > 0) tiles_kernel<<<unsigned(sk.whole), Cfg::kThreads, kSmem, stream>>>(args, args.k, 0);
      runs_kernel<<<unsigned(sk.sharing), Cfg::kThreads, kSmem, stream>>>(args, sk);
      return cudaGetLastError();
    });
  }
  // The parts of a split k add into C atomically where C's rows lie in
  // 16-byte units. Where they do not, atomics cost more (127x4097x1000 NT,
  // only C unaligned: 77% of cuBLAS against 87% aligned), so the parts go
  // to a workspace, each its own matrix with aligned rows, and are summed
  // into C afterwards, in part order, except for a small C
  // (kMinPartsOutput), where the second launch costs more.
  SgemmArgs out = args;  // what the kernel writes
  int64_t part_stride = 0;
  bool to_parts = false;
  if constexpr (SplitK && !Aligned) {
    const int64_t ldp = device::ceil_div(args.n, 4) * 4;
    const auto bytes = size_t(splits * args.m * ldp) * sizeof(float);
    to_parts = splits > 1 && !device::in_16_byte_units(args.C, args.ldc) && bytes <= kMaxPartsBytes &&
               args.m * args.n >= kMinPartsOutput;
    if (to_parts) {
      void* parts = nullptr;
      if (cudaError_t err = stream_workspace(stream, bytes, &parts, WorkspaceUse::kSplitParts); err != cudaSuccess) {
        return err;
      }
      out.C = static_cast<float*>(parts), out.ldc = ldp, out.beta = 0.0f, part_stride = args.m * ldp;
    }
  }
  if (SplitK && !to_parts) {  // C = beta * C now; the parts then add alpha * (their share of op(A) op(B)).
    if (cudaError_t err = launch_scale(args.beta, args.C, args.m, args.n, args.ldc, stream); err != cudaSuccess) return err;
  }
  auto launch = [&](auto aligned_a, auto aligned_b, auto aligned_c, auto split) {
    return device::with_ops(args.opA, args.opB, [&](auto ta, auto tb) {
      auto kernel = pipelined_kernel<Cfg, aligned_a, aligned_b, aligned_c, split, ta, tb>;
      if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem));
          err != cudaSuccess) {
        return err;
      }
      return device::split_rows(out, Cfg::kBM, [&](const SgemmArgs& p) {
        const dim3 grid(device::ceil_div(p.n, Cfg::kBN), device::ceil_div(p.m, Cfg::kBM), unsigned(splits));
        kernel<<<grid, Cfg::kThreads, kSmem, stream>>>(p, per_split, part_stride);
        return cudaGetLastError();
      });
    });
  };
  using AlignedC = device::Bool<Aligned>;
  auto launch_split = [&](auto aligned_a, auto aligned_b) {
    if constexpr (!SplitK) {
      return launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kNone>{});
    } else if constexpr (Aligned) {
      return launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kAtomic>{});
    } else {
      return to_parts ? launch(aligned_a, aligned_b, device::Bool<true>{}, KSplitConstant<KSplit::kParts>{})
                      : launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kAtomic>{});
    }
  };
  cudaError_t err = cudaSuccess;
  if constexpr (Aligned) {
    err = launch_split(device::Bool<true>{}, device::Bool<true>{});
  } else {  // the kernel for any alignment still reads an operand that is aligned in 16-byte chunks
    err = device::with_bools(device::in_16_byte_units(args.A, args.lda), device::in_16_byte_units(args.B, args.ldb),
                             launch_split);
  }
  if (err != cudaSuccess || !to_parts) return err;
  return launch_sum_parts(out.C, splits, part_stride, out.ldc, args.beta, args.C, args.m, args.n, args.ldc, stream);
}

}  // namespace tessel::impl
