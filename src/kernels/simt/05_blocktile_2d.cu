// Ladder step 05 — 2D register blocktiling.
//
// Each thread now computes an 8 x 8 patch of a 128 x 128 block tile. Per
// k-step it loads 8 values of A's tile and 8 of B's into registers and
// forms their outer product: 64 FMAs for 16 shared loads (step 04: 8 FMAs
// for 9), so the kernel leans on registers instead of shared memory, and
// each block reuses every staged value 8x more (128x8 + 8x128 floats per
// k-slice for 16384 results).
//
// What is still slow: 8 scalar loads per operand per k-step (step 06 makes
// them 128-bit), and the threads of a warp read B's tile at a stride of 8
// floats, so those loads conflict in the banks (step 07 fixes the layout).
#include "device/common.cuh"
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

using Cfg = Blocktile2dConfig;

template <bool TransA, bool TransB>
__global__ void __launch_bounds__(Cfg::kThreads) blocktile2d_kernel(SgemmArgs p) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, TM = Cfg::kTM, TN = Cfg::kTN, Pad = Cfg::kPad;
  __shared__ float As[BK][BM + Pad];
  __shared__ float Bs[BK][BN + Pad];
  const int64_t i0 = int64_t(blockIdx.y) * BM, j0 = int64_t(blockIdx.x) * BN;
  const int row0 = threadIdx.x / (BN / TN) * TM;  // this thread's 8 x 8 patch
  const int col0 = threadIdx.x % (BN / TN) * TN;
  const device::Operand a{p.A, p.lda, p.m, p.k}, b{p.B, p.ldb, p.n, p.k};

  float acc[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
    device::copy_tile_scalar<!TransA, BM, BK, Pad, Cfg::kThreads>(As, a, i0, k0);
    device::copy_tile_scalar<TransB, BN, BK, Pad, Cfg::kThreads>(Bs, b, j0, k0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int r = 0; r < TM; ++r) regM[r] = As[kk][row0 + r];
#pragma unroll
      for (int c = 0; c < TN; ++c) regN[c] = Bs[kk][col0 + c];
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] += regM[r] * regN[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      if (i0 + row0 + r < p.m && j0 + col0 + c < p.n) {
        device::store_result(p.C, p.ldc, i0 + row0 + r, j0 + col0 + c, acc[r][c], p.alpha, p.beta);
      }
    }
}

}  // namespace

cudaError_t launch_blocktile_2d(const SgemmArgs& args, cudaStream_t stream) {
  return device::launch_tiled(args, Cfg::kBM, Cfg::kBN, [&](auto ta, auto tb, dim3 grid, const SgemmArgs& p) {
    return device::launch(blocktile2d_kernel<ta, tb>, grid, Cfg::kThreads, 0, stream, p);
  });
}

}  // namespace tessel::impl
