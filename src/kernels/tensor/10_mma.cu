// Step 10: mma.sync tensor-core GEMM with ldmatrix and a multistage cp.async pipeline.
//
// What changes over step 09 (WMMA):
//  - The warp-level instruction is PTX mma.sync (m16n8k16 for f16/bf16,
//    m16n8k8 for tf32) instead of the opaque wmma fragments, so we choose
//    the register layout and can feed it with ldmatrix: one instruction
//    loads four 8x8 blocks straight into fragment registers (and .trans
//    transposes 16-bit blocks on the way, so every op pair reads its tiles
//    as stored: no transposing copies, no element-wise shared stores).
//  - Global -> shared copies are cp.async, 16 bytes each, Stages k-slices
//    in flight: the copies of slice kt + Stages - 1 run while the tensor
//    cores work on slice kt. The SMs need no registers and no instructions
//    to stage data, and one __syncthreads per slice suffices.
//  - Shared tiles are XOR-swizzled by 16-byte chunk (device::SwizzledTile)
//    instead of padded: ldmatrix and the cp.async stores hit 32 distinct
//    banks and no shared memory is wasted.
//  - Tails cost nothing on full tiles: cp.async's source size zero-fills
//    rows past m/n and columns past k (partial chunks too), and only the
//    epilogue checks bounds.
//  - B fragments are loaded so that each n8 fragment's two registers are
//    a pair (device::mn_half/k_half): HMMA reads its B operand as a
//    register pair, and any other order costs two moves per mma.
//  - A 1D grid walks tiles in groups of block-rows (device::grouped_tile)
//    so that blocks running together share panels of A and B in L2; where
//    the plan splits k, each row of the grid takes one part (take_part).
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 16 bytes (the
// registry's alignment); C takes any alignment (2-element vector stores
// when C and ldc allow).
#include <algorithm>

#include "device/common.cuh"
#include "device/mma.cuh"
#include "kernels/kernels.hpp"
#include "kernels/tensor/configs.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

template <class Cfg, class T, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) mma_kernel(device::TcParams<T> p, KPart part) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, WM = Cfg::kWM, WN = Cfg::kWN, S = Cfg::kStages;
  constexpr int BK = Cfg::kKBytes / int(sizeof(T));
  constexpr int kMmaK = device::Mma<T>::kK, FM = WM / 16, FN = WN / 16;
  constexpr bool k32 = sizeof(T) == 4;
  // Tiles as stored: A is [BM][BK] for op N, [BK][BM] for op T; B is [BK][BN] for op N, [BN][BK] for op T.
  using TileA = device::SwizzledTile<T, TA ? BK : BM, TA ? BM : BK, TA && k32>;
  using TileB = device::SwizzledTile<T, TB ? BN : BK, TB ? BK : BN, !TB && k32>;
  static_assert(TileA::kChunks >= 8 || !TA, "[k][mn] tiles need rows of >= 128 bytes (FragmentOffsets)");
  static_assert(TileB::kChunks >= 8 || TB, "[k][mn] tiles need rows of >= 128 bytes (FragmentOffsets)");

  extern __shared__ uint4 smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + S * TileA::kElems;

  device::take_part(p, part, TA, TB);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int bm, bn;
  device::grouped_tile<Cfg::kGroup>(blockIdx.x, int(device::ceil_div(p.m, BM)), int(device::ceil_div(p.n, BN)), bm, bn);
  const int64_t i0 = int64_t(bm) * BM, j0 = int64_t(bn) * BN;
  const int wm0 = warp / Cfg::kWarpsN * WM, wn0 = warp % Cfg::kWarpsN * WN;
  const int rows_m = int(std::min<int64_t>(p.m - i0, BM)), cols_n = int(std::min<int64_t>(p.n - j0, BN));

  // Copies of the k-slices of this block's panels of A and B, in order.
  device::SliceCopier<TileA, Cfg::kThreads, T, TA> copy_a(TA ? p.A + i0 : p.A + i0 * p.lda, p.lda, tid);
  device::SliceCopier<TileB, Cfg::kThreads, T, !TB> copy_b(TB ? p.B + j0 * p.ldb : p.B + j0, p.ldb, tid);
  int64_t k_left = p.k;  // k values not yet copied
  auto load_slice = [&](int s) {
    const int depth = int(std::min<int64_t>(k_left, BK));
    copy_a.copy(sA + s * TileA::kElems, p.lda, depth, rows_m, p.A, tid);
    copy_b.copy(sB + s * TileB::kElems, p.ldb, depth, cols_n, p.B, tid);
    k_left -= BK;
  };

  // ldmatrix reads every tile but 32-bit ones stored [k][mn] (ldmatrix
  // cannot transpose 32-bit elements: those go element by element).
  constexpr int kSteps = BK / kMmaK;
  constexpr bool kLdsmA = !TA || !k32, kLdsmB = TB || !k32;
  const device::FragmentOffsets<TileA, !TA, false, FM, kSteps, kMmaK> offA(wm0, lane);
  const device::FragmentOffsets<TileB, TB, true, FN, kSteps, kMmaK> offB(wn0, lane);

  float acc[FM][2 * FN][4] = {};
  const int64_t slices = device::ceil_div(p.k, BK);
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < slices) load_slice(s);
    device::cp_async_commit();
  }
  // Stage being read and stage being written, as counters (not kt % S: a 64-bit modulo).
  int read = 0, write = S - 1;
  for (int64_t kt = 0; kt < slices; ++kt) {
    device::cp_async_wait<S - 2>();  // slice kt has landed (for this thread) ...
    __syncthreads();                 // ... for every thread, and slice kt - 1 is no longer read
    if (kt + S - 1 < slices) load_slice(write);
    device::cp_async_commit();

    const T* a = sA + read * TileA::kElems;
    const T* b = sB + read * TileB::kElems;
    read = read == S - 1 ? 0 : read + 1;
    write = write == S - 1 ? 0 : write + 1;
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      uint32_t fa[FM][4], fb[FN][4];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        if constexpr (kLdsmA) device::load_fragment_at<!TA>(fa[i], a + offA.at(i, step));
        else device::load_fragment_kmajor32<TileA, false>(fa[i], a, wm0 + i * 16, step * kMmaK, lane);
      }
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        if constexpr (kLdsmB) device::load_fragment_at<TB>(fb[j], b + offB.at(j, step));
        else device::load_fragment_kmajor32<TileB, true>(fb[j], b, wn0 + j * 16, step * kMmaK, lane);
      }
      device::mma_warp_step<T>(acc, fa, fb);
    }
  }

  device::store_warp_tile<T, FM, FN>(p, acc, i0 + wm0, j0 + wn0, lane);
}

}  // namespace

template <class Cfg, DType AB>
cudaError_t launch_mma(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  const int64_t tiles = device::ceil_div(a.m, Cfg::kBM) * device::ceil_div(a.n, Cfg::kBN);
  if (tiles > INT32_MAX || a.precision.ab != AB) return cudaErrorInvalidValue;
  return with_split_parts(a, plan, stream, [&](const GemmArgs& out, const KPart& part, unsigned parts) {
    const device::TcParams<T> p = device::tc_params<T>(out);
    return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) {
      auto kernel = mma_kernel<Cfg, T, ta, tb>;
      if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes);
          err != cudaSuccess) {
        return err;
      }
      return device::launch(kernel, dim3(unsigned(tiles), parts), Cfg::kThreads, Cfg::kSmemBytes, stream, p, part);
    });
  });
}

// The configurations the registry lists (src/dispatch/registry.cpp).
template cudaError_t launch_mma<Mma128x128, DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_mma<Mma64x64, DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_mma<Mma128x128, DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_mma<Mma64x64, DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_mma<MmaTf32_128x128, DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_mma<Mma64x64, DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
