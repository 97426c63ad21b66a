// Ladder step 03 — shared-memory cache blocking.
//
// Steps 01/02 read every operand from global memory k times over: each
// element of A is loaded by all n threads of its row. Here a block of
// 32 x 32 threads first copies a 32 x 32 tile of op(A) and one of op(B) into
// shared memory (each thread one element of each), waits at a barrier, and
// then every thread runs its 32-long partial dot product out of on-chip
// memory. Global traffic per block drops by the tile width (32x fewer loads).
//
// For any op the copy is coalesced: the warp's threads walk the operand's
// contiguous dimension, so a transposed operand is written transposed into
// its tile. Rows are padded by one float so that such a transposed write
// spreads over all 32 banks instead of hitting one. Tails (m, n or k not a
// multiple of 32) are filled with zeros and the barrier stays uniform.
#include "device/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/simt/configs.hpp"

namespace tessel::impl {
namespace {

template <int T, int Pad, bool Trans>
__device__ __forceinline__ void load_tile(float (&tile)[T][T + Pad], const float* X, int64_t ld,
                                          int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  // tile[r][c] = op(X)(r0 + r, c0 + c); threadIdx.x runs along X's contiguous dimension.
  const int r = Trans ? threadIdx.x : threadIdx.y;
  const int c = Trans ? threadIdx.y : threadIdx.x;
  const bool inside = r0 + r < rows && c0 + c < cols;
  tile[r][c] = inside ? device::load_op<Trans>(X, ld, r0 + r, c0 + c) : 0.0f;
}

template <bool TransA, bool TransB>
__global__ void smem_kernel(SgemmArgs p) {
  constexpr int T = SmemConfig::kTile, Pad = SmemConfig::kPad;
  __shared__ float As[T][T + Pad];  // op(A)(i0 + r, q0 + c)
  __shared__ float Bs[T][T + Pad];  // op(B)(q0 + r, j0 + c)
  const int64_t i0 = int64_t(blockIdx.y) * T, j0 = int64_t(blockIdx.x) * T;
  const int ty = threadIdx.y, tx = threadIdx.x;

  float acc = 0.0f;
  for (int64_t q0 = 0; q0 < p.k; q0 += T) {
    load_tile<T, Pad, TransA>(As, p.A, p.lda, i0, q0, p.m, p.k);
    load_tile<T, Pad, TransB>(Bs, p.B, p.ldb, q0, j0, p.k, p.n);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < T; ++q) acc += As[ty][q] * Bs[q][tx];
    __syncthreads();  // the next copy must not overwrite tiles still being read
  }
  if (i0 + ty < p.m && j0 + tx < p.n) {
    device::store_result(p.C, p.ldc, i0 + ty, j0 + tx, acc, p.alpha, p.beta);
  }
}

}  // namespace

cudaError_t launch_smem(const SgemmArgs& args, cudaStream_t stream) {
  constexpr int T = SmemConfig::kTile;
  return device::launch_tiled(args, T, T, [&](auto ta, auto tb, dim3 grid, const SgemmArgs& p) {
    return device::launch(smem_kernel<ta, tb>, grid, dim3(T, T), 0, stream, p);
  });
}

}  // namespace tessel::impl
