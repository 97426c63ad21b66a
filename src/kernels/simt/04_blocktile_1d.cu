// Ladder step 04 — 1D register blocktiling.
//
// Step 03 spends two shared-memory loads on every FMA. Here each thread
// computes a column of TM = 8 results of a 64 x 64 block tile: per k-step it
// loads one value of B's tile into a register and reuses it for 8 FMAs
// against 8 values of A's tile, which all threads of a warp read at the same
// address (a broadcast). Shared loads per FMA drop from 2 to about 1.1, and
// each block now stages 64x8 + 8x64 floats per k-slice for 64x64 results.
//
// Both tiles are kept k-major in shared memory (S[k][x]); the copy walks
// each operand's stored rows, so it is coalesced for every op.
#include "device/common.cuh"
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

using Cfg = Blocktile1dConfig;

template <bool TransA, bool TransB>
__global__ void __launch_bounds__(Cfg::kThreads) blocktile1d_kernel(SgemmArgs p) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, TM = Cfg::kTM, Pad = Cfg::kPad;
  __shared__ float As[BK][BM + Pad];
  __shared__ float Bs[BK][BN + Pad];
  const int64_t i0 = int64_t(blockIdx.y) * BM, j0 = int64_t(blockIdx.x) * BN;
  const int col = threadIdx.x % BN;          // this thread's column of the tile
  const int row0 = threadIdx.x / BN * TM;    // and its first of TM rows
  const device::Operand a{p.A, p.lda, p.m, p.k}, b{p.B, p.ldb, p.n, p.k};

  float acc[TM] = {};
  for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
    device::copy_tile_scalar<!TransA, BM, BK, Pad, Cfg::kThreads>(As, a, i0, k0);
    device::copy_tile_scalar<TransB, BN, BK, Pad, Cfg::kThreads>(Bs, b, j0, k0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float bv = Bs[kk][col];
#pragma unroll
      for (int r = 0; r < TM; ++r) acc[r] += As[kk][row0 + r] * bv;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    if (i0 + row0 + r < p.m && j0 + col < p.n) {
      device::store_result(p.C, p.ldc, i0 + row0 + r, j0 + col, acc[r], p.alpha, p.beta);
    }
  }
}

}  // namespace

cudaError_t launch_blocktile_1d(const SgemmArgs& args, cudaStream_t stream) {
  return device::launch_tiled(args, Cfg::kBM, Cfg::kBN, [&](auto ta, auto tb, dim3 grid, const SgemmArgs& p) {
    return device::launch(blocktile1d_kernel<ta, tb>, grid, Cfg::kThreads, 0, stream, p);
  });
}

}  // namespace tessel::impl
