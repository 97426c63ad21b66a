// Ladder step 08 — pipelined: double-buffered shared memory fed by cp.async
// (the device code; the launcher is 08_pipelined_launch.cuh).
//
// Step 07 copies a k-slice, waits, computes, waits again. Here shared memory
// holds two k-slices: while the warps compute on one, the next is on its way.
// Operands whose stored rows run along the tile (A with op T, B with op N) go
// straight to shared memory by cp.async; those that must be transposed (A
// with op N, B with op T) load into registers before the math and are
// stored after it, unless dispatch has them copied transposed first. One
// barrier per slice, before its last k-step, whose fragments are already in
// registers. Blocks run in a swizzled order so that neighbours share panels
// of A and B in L2. Split-k and stream-K schedules reuse the same k-loop.
// docs/ladder.md, "Step 08", has the measurements behind each of these.
#pragma once

#include <algorithm>
#include <type_traits>

#include "device/common.cuh"
#include "device/stream_k.cuh"
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"  // Schedule, launch_plan.hpp
#include "kernels/simt/configs.hpp"

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
// bunches them: six LDS.128 in a row just before the FFMAs that need them.
// Column by column, down one column and up the next, it spreads them among
// the FFMAs: faster for tall thread tiles (16 x 8, 8 x 4); 8 x 8 keeps rows.
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
// kNone: block z sums k-indices [z * k_per_split, (z + 1) * k_per_split);
// kNone: block z multiplies matrix z of a strided batch (`batch`).
// Linear: a grid of gridDim.x blocks takes the first gridDim.x tiles of the
// grouped order over all of C (stream-K's whole waves), not a 2D grid's.
template <class Cfg, bool AlignedA, bool AlignedB, bool AlignedC, KSplit Split, bool TransA, bool TransB,
          bool Linear = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    pipelined_kernel(SgemmArgs p, int64_t k_per_split, int64_t part_stride, MatrixStrides batch) {
  constexpr bool SplitK = Split != KSplit::kNone;
  if constexpr (!SplitK) {
    if (batch.c_array != nullptr) {
      const int64_t z = batch.first + blockIdx.z;
      p.A = device::offset_from(batch.a_array[z], p.A), p.B = device::offset_from(batch.b_array[z], p.B);
      p.C = device::offset_from(batch.c_array[z], p.C);
    } else {
      p.A += blockIdx.z * batch.a, p.B += blockIdx.z * batch.b, p.C += blockIdx.z * batch.c;
    }
  }
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

// Stream-K's shared runs (the plan: kernels/launch_plan.hpp, as step 15;
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
// of the source orders measured for these loops, it ran the shared runs fastest.
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

}  // namespace tessel::impl
