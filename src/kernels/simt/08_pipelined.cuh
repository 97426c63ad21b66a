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
// to 23%: docs/ladder.md.) One barrier per k-slice instead of two. Blocks
// are launched in a swizzled order (groups of 8 block-rows) so that the
// blocks resident together share panels of A and B in L2. Where a thread's
// tile is taller than wide, its FFMAs go column by column (kDownColumns).
// A slice's k-steps are unrolled whole, or two per loop iteration where the
// configuration says so for the register path (128x256: +3.5% at 2048^3 NN).
//
// The kernels for unaligned arguments (registered as pipelined_any*) choose
// per operand at launch: an operand whose rows start on 16-byte boundaries
// is read as above; one that is not goes element by element, with 4-byte
// cp.async where no transposing is needed (large unaligned shapes lost 4%
// to element-wise loads into registers; skinny and split ones won 11-41%)
// and through registers where it is. C's groups of four results are stored
// with the widest accesses their addresses allow; split-k parts that would
// add into an unaligned C go to a workspace instead (launch_pipelined).
// On an H100, 127x4097x1000 went from 68% to 89% of cuBLAS (docs/ladder.md).
//
// A with op N costs the most to read (loads into registers, transposing
// stores). Where the call is large enough, the launcher first copies A
// transposed into a workspace and reads that with cp.async instead
// (configs.hpp, copy_a_transposed): at 4096^3 on an H100, 87% -> 90% of
// cuBLAS.
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
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"
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

// AlignedA, AlignedB: the loaders above. AlignedC: C in 16-byte units (else
// each group of four results is stored or added as its address allows).
// Split other than kNone: block z sums k-indices [z * k_per_split, (z + 1) * k_per_split).
template <class Cfg, bool AlignedA, bool AlignedB, bool AlignedC, KSplit Split, bool TransA, bool TransB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    pipelined_kernel(SgemmArgs p, int64_t k_per_split, int64_t part_stride) {
  constexpr bool SplitK = Split != KSplit::kNone;
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, Pad = Cfg::kPad;
  constexpr int TM = Cfg::kTM, TN = Cfg::kTN, FM = Cfg::kFragsM, FN = Cfg::kFragsN;
  constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;
  constexpr bool kTransposeA = !TransA, kTransposeB = TransB;  // the operands that are KContig
  constexpr bool kAsyncA = !kTransposeA, kAsyncB = !kTransposeB;  // copied by cp.async
  // Two stages of both tiles, in dynamic shared memory (large tiles pass the 48 KB static limit).
  extern __shared__ float4 smem[];
  using ATile = float[BK][BM + Pad];
  using BTile = float[BK][BN + Pad];
  ATile* As = reinterpret_cast<ATile*>(smem);
  BTile* Bs = reinterpret_cast<BTile*>(As + 2);

  int bm, bn;
  device::swizzled_block<kSwizzleGroup>(bm, bn);
  const int64_t i0 = int64_t(bm) * BM, j0 = int64_t(bn) * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = warp / Cfg::kWarpsN * Cfg::kWM + lane / Cfg::kLanesN * 4;
  const int col0 = warp % Cfg::kWarpsN * Cfg::kWN + lane % Cfg::kLanesN * 4;
  const int64_t k_begin = SplitK ? blockIdx.z * k_per_split : 0;
  const int64_t k_end = SplitK ? min(p.k, k_begin + k_per_split) : p.k;
  const device::Operand a{p.A, p.lda, p.m, k_end}, b{p.B, p.ldb, p.n, k_end};
  PipelinedLoader<kTransposeA, AlignedA, BM, BK, Pad, Cfg::kThreads> load_a(a, i0, k_begin);
  PipelinedLoader<kTransposeB, AlignedB, BN, BK, Pad, Cfg::kThreads> load_b(b, j0, k_begin);

  // Start bringing slice k0 into stage s ...
  auto fetch = [&](int s, int64_t k0) {
    const bool whole = k0 + BK <= k_end;
    if constexpr (kAsyncA) load_a.copy_async(As[s], a, k0, whole); else load_a.load(a, k0, whole);
    if constexpr (kAsyncB) load_b.copy_async(Bs[s], b, k0, whole); else load_b.load(b, k0, whole);
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
  auto read_fragments = [&](int s, int kk, int buf) {
#pragma unroll
    for (int f = 0; f < FM; ++f) device::lds4(&fa[buf][4 * f], &As[s][kk][row0 + f * kRowStep]);
#pragma unroll
    for (int g = 0; g < FN; ++g) device::lds4(&fb[buf][4 * g], &Bs[s][kk][col0 + g * kColStep]);
  };

  // The order of a step's FFMAs decides where ptxas puts the next step's
  // fragment loads (it schedules the whole unrolled slice itself, whatever
  // the order of the source). Row by row (r outer) with 16 x 8 per thread, it
  // bunches them: six LDS.128 in a row just before the FFMAs that need them,
  // the warp stalled 4 cycles after each. Column by column, down one column
  // and up the next, it spreads them among the FFMAs. On the H100 at 4096^3
  // that made 128 x 256 (16 x 8 per thread) 2.8% (NN) to 7.8% (TN) faster
  // and 64 x 64 (8 x 4) 1.6%; 128 x 128 (8 x 8) lost 2% and keeps rows.
  constexpr bool kDownColumns = TM > TN;
  // k-steps per iteration of the slice's loop: all of them, except where an
  // operand goes through registers and the configuration asks for fewer
  // (Cfg::kStepsPerIterationTransposing; configs.hpp says why).
  constexpr int kUnroll = kAsyncA && kAsyncB ? BK : Cfg::kStepsPerIterationTransposing;
  static_assert(BK % kUnroll == 0 && kUnroll % 2 == 0, "whole pairs of k-steps per iteration");
  float acc[TM][TN] = {};
  fetch(0, k_begin);
  land(0);
  __syncthreads();
  int s = 0;
  for (int64_t k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) fetch(s ^ 1, k0 + BK);  // stage s^1 was last read before the previous barrier
    read_fragments(s, 0, 0);
#pragma unroll 1
    for (int kb = 0; kb < BK; kb += kUnroll) {
#pragma unroll
      for (int h = 0; h < kUnroll; ++h) {
        const int kk = kb + h;
        if (kk + 1 < BK) read_fragments(s, kk + 1, (h + 1) % 2);
#pragma unroll
        for (int u = 0; u < TM * TN; ++u) {
          const int r = kDownColumns ? (u / TM % 2 ? TM - 1 - u % TM : u % TM) : u / TN;
          const int c = kDownColumns ? u / TM : u % TN;
          acc[r][c] += fa[h % 2][r] * fb[h % 2][c];
        }
      }
    }
    if (more) land(s ^ 1);
    __syncthreads();
    s ^= 1;
  }
  if constexpr (Split == KSplit::kParts) p.C += blockIdx.z * part_stride;
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int g = 0; g < FN; ++g) {
      const int64_t i = i0 + row0 + r / 4 * kRowStep + r % 4, j = j0 + col0 + g * kColStep;
      const float4 sums = make_float4(acc[r][4 * g], acc[r][4 * g + 1], acc[r][4 * g + 2], acc[r][4 * g + 3]);
      if constexpr (Split == KSplit::kAtomic) {
        device::add_row4<AlignedC>(p, i, j, sums);
      } else {
        device::store_row4<AlignedC>(p, i, j, sums);
      }
    }
}


}  // namespace

template <class Cfg, bool Aligned, bool SplitK>
cudaError_t launch_pipelined(const SgemmArgs& args, cudaStream_t stream) {
  // A with op N is transposed on its way into the kernel's k-major tile,
  // through registers; with op T it goes straight in by cp.async, faster
  // (configs.hpp). Where the difference pays for a copy of A, the kernel
  // reads a transposed copy (the stream's operand workspace).
  if (args.opA == Op::N && copy_a_transposed(args.m, args.n, args.k, Aligned)) {
    const int64_t ldt = copy_a_ld(args.m);
    void* copy = nullptr;
    if (cudaError_t err = stream_workspace(stream, size_t(args.k * ldt) * sizeof(float), &copy, WorkspaceUse::kOperands);
        err != cudaSuccess) {
      return err;
    }
    SgemmArgs t = args;
    t.opA = Op::T, t.A = static_cast<const float*>(copy), t.lda = ldt;
    if (cudaError_t err = launch_transpose(args.A, args.m, args.k, args.lda, static_cast<float*>(copy), ldt, false, stream);
        err != cudaSuccess) {
      return err;
    }
    return launch_pipelined<Cfg, Aligned, SplitK>(t, stream);
  }
  constexpr size_t kSmem = 2 * sizeof(float) * Cfg::kBK * (Cfg::kBM + Cfg::kBN + 2 * Cfg::kPad);
  int64_t per_split = args.k, splits = 1;
  if constexpr (SplitK) {
    int device = 0, sms = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
    if (cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); err != cudaSuccess) return err;
    const int64_t tiles = device::ceil_div(args.m, Cfg::kBM) * device::ceil_div(args.n, Cfg::kBN);
    per_split = split_depth(args.k, split_count(tiles, args.k, sms, Cfg::kMinBlocks, Cfg::kBK), Cfg::kBK);
    splits = device::ceil_div(args.k, per_split);
  }
  // The parts of a split k add into C atomically where C's rows lie in
  // 16-byte units. Where they do not, atomics cost more (127x4097x1000 NT,
  // only C unaligned: 77% of cuBLAS against 87% aligned), so the parts go
  // to a workspace, each its own matrix with aligned rows, and are summed
  // into C afterwards, in part order.
  SgemmArgs out = args;  // what the kernel writes
  int64_t part_stride = 0;
  bool to_parts = false;
  if constexpr (SplitK && !Aligned) {
    const int64_t ldp = device::ceil_div(args.n, 4) * 4;
    const auto bytes = size_t(splits * args.m * ldp) * sizeof(float);
    to_parts = splits > 1 && !device::in_16_byte_units(args.C, args.ldc) && bytes <= kMaxPartsBytes;
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
  using Yes = std::true_type;
  using No = std::false_type;
  using AlignedC = std::bool_constant<Aligned>;
  auto launch_split = [&](auto aligned_a, auto aligned_b) {
    if constexpr (!SplitK) {
      return launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kNone>{});
    } else if constexpr (Aligned) {
      return launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kAtomic>{});
    } else {
      return to_parts ? launch(aligned_a, aligned_b, Yes{}, KSplitConstant<KSplit::kParts>{})
                      : launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kAtomic>{});
    }
  };
  cudaError_t err = cudaSuccess;
  if constexpr (Aligned) {
    err = launch_split(Yes{}, Yes{});
  } else {  // the kernel for any alignment still reads an operand that is aligned in 16-byte chunks
    const bool a = device::in_16_byte_units(args.A, args.lda), b = device::in_16_byte_units(args.B, args.ldb);
    err = a ? (b ? launch_split(Yes{}, Yes{}) : launch_split(Yes{}, No{}))
            : (b ? launch_split(No{}, Yes{}) : launch_split(No{}, No{}));
  }
  if (err != cudaSuccess || !to_parts) return err;
  return launch_sum_parts(out.C, splits, part_stride, out.ldc, args.beta, args.C, args.m, args.n, args.ldc, stream);
}

}  // namespace tessel::impl
