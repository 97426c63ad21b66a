// Ladder step 07 — warptiling.
//
// Steps 05/06 hand each thread an 8 x 8 patch with no thought for how a
// warp's 32 patches sit in the tile, and the warp's reads of B's shared
// tile conflict in the banks. Here the tiling has three levels: the block
// tile (128 x 128) is cut into warp tiles (32 x 64, 8 warps), and inside a
// warp the 32 lanes form a 4 x 8 grid, each lane holding 2 x 2 fragments of
// 4 x 4 results spaced 16 rows and 32 columns apart. Per k-step a lane
// reads two float4 of A (lanes in a row of the grid read the same address:
// broadcast) and two of B (the 8 lanes of a row read 128 consecutive
// bytes): no bank conflicts, and each value read feeds 8 FMAs. The warp's
// writes of C are 128-byte rows as well.
#include "device/common.cuh"
#include "device/tile_load.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

using Cfg = WarptileDefault;

template <bool TransA, bool TransB>
__global__ void __launch_bounds__(Cfg::kThreads) warptile_kernel(SgemmArgs p) {
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, Pad = Cfg::kPad;
  constexpr int TM = Cfg::kTM, TN = Cfg::kTN, FM = Cfg::kFragsM, FN = Cfg::kFragsN;
  constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;  // fragment spacing
  __shared__ __align__(16) float As[BK][BM + Pad];
  __shared__ __align__(16) float Bs[BK][BN + Pad];
  const int64_t i0 = int64_t(blockIdx.y) * BM, j0 = int64_t(blockIdx.x) * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = warp / Cfg::kWarpsN * Cfg::kWM + lane / Cfg::kLanesN * 4;  // first row of fragment 0
  const int col0 = warp % Cfg::kWarpsN * Cfg::kWN + lane % Cfg::kLanesN * 4;  // first column of fragment 0
  const device::Operand a{p.A, p.lda, p.m, p.k}, b{p.B, p.ldb, p.n, p.k};
  device::VecTileLoader<!TransA, BM, BK, Pad, Cfg::kThreads> load_a;
  device::VecTileLoader<TransB, BN, BK, Pad, Cfg::kThreads> load_b;

  float acc[TM][TN] = {};
  float fa[TM], fb[TN];
  for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
    load_a.load(a, i0, k0);
    load_b.load(b, j0, k0);
    load_a.store(As);
    load_b.store(Bs);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int f = 0; f < FM; ++f) device::lds4(&fa[4 * f], &As[kk][row0 + f * kRowStep]);
#pragma unroll
      for (int g = 0; g < FN; ++g) device::lds4(&fb[4 * g], &Bs[kk][col0 + g * kColStep]);
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] += fa[r] * fb[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int g = 0; g < FN; ++g) {
      const int64_t i = i0 + row0 + r / 4 * kRowStep + r % 4, j = j0 + col0 + g * kColStep;
      device::store_row4(p, i, j, device::get4(acc, r, 4 * g));
    }
}

}  // namespace

cudaError_t launch_warptile(const SgemmArgs& args, cudaStream_t stream) {
  return device::launch_tiled(args, Cfg::kBM, Cfg::kBN, [&](auto ta, auto tb, dim3 grid, const SgemmArgs& p) {
    return device::launch(warptile_kernel<ta, tb>, grid, Cfg::kThreads, 0, stream, p);
  });
}

}  // namespace tessel::impl
