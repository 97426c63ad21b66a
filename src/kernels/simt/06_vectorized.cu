// Ladder step 06 — vectorised (128-bit) memory access.
//
// Same tiling as step 05 (128 x 128 block, 8 x 8 per thread), but every
// memory access that can be 16 bytes wide now is: each thread copies its
// part of a k-slice with float4 global loads (LDG.128), reads its 8 values
// of A and of B out of shared memory as two float4 each (LDS.128), and
// writes C four floats at a time. A quarter of the load/store instructions
// for the same bytes leaves more issue slots to the FMAs.
//
// 16-byte accesses need 16-byte aligned A, B, C and leading dimensions that
// are multiples of 4: the registry records alignment = 4, the dispatcher
// sends other calls elsewhere, and asking for this kernel by name with them
// is refused. Tile edges are still exact: chunks cut by an edge are read
// element by element and zero-filled.
#include "device/common.cuh"
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

using Cfg = Blocktile2dConfig;

template <bool TransA, bool TransB>
__global__ void __launch_bounds__(Cfg::kThreads) vectorized_kernel(SgemmArgs p) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, TM = Cfg::kTM, TN = Cfg::kTN, Pad = Cfg::kPad;
  __shared__ __align__(16) float As[BK][BM + Pad];
  __shared__ __align__(16) float Bs[BK][BN + Pad];
  const int64_t i0 = int64_t(blockIdx.y) * BM, j0 = int64_t(blockIdx.x) * BN;
  const int row0 = threadIdx.x / (BN / TN) * TM;
  const int col0 = threadIdx.x % (BN / TN) * TN;
  const device::Operand a{p.A, p.lda, p.m, p.k}, b{p.B, p.ldb, p.n, p.k};
  device::VecTileLoader<!TransA, BM, BK, Pad, Cfg::kThreads> load_a;
  device::VecTileLoader<TransB, BN, BK, Pad, Cfg::kThreads> load_b;

  float acc[TM][TN] = {};
  float regM[TM], regN[TN];
  for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
    load_a.load(a, i0, k0);
    load_b.load(b, j0, k0);
    load_a.store(As);
    load_b.store(Bs);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int r = 0; r < TM; r += 4) device::lds4(&regM[r], &As[kk][row0 + r]);
#pragma unroll
      for (int c = 0; c < TN; c += 4) device::lds4(&regN[c], &Bs[kk][col0 + c]);
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
    for (int c = 0; c < TN; c += 4) {
      device::store_row4(p, i0 + row0 + r, j0 + col0 + c, device::get4(acc, r, c));
    }
}

}  // namespace

cudaError_t launch_vectorized(const SgemmArgs& args, cudaStream_t stream) {
  return device::launch_tiled(args, Cfg::kBM, Cfg::kBN, [&](auto ta, auto tb, dim3 grid, const SgemmArgs& p) {
    return device::launch(vectorized_kernel<ta, tb>, grid, Cfg::kThreads, 0, stream, p);
  });
}

}  // namespace tessel::impl
