// Step 09: tensor cores through WMMA (nvcuda::wmma), f16, bf16 and tf32.
//
// What changes over the FP32 ladder: the inner product is no longer an
// FFMA per thread but a warp-wide matrix instruction. A warp owns a 64x32
// piece of the block's 128x128 tile as 4x2 accumulator fragments of 16x16
// and, per 16-deep (8 for tf32) step of k, loads 4 A and 2 B fragments from
// shared memory and issues 8 mma_syncs; each one does 16*16*16 multiply-adds
// on the tensor cores, which run many times the FP32 pipe's rate.
//
// Block and warp tiling as in steps 05-07 (the seed's v07 kernel); shared
// rows padded by 16 bytes so that fragment loads of consecutive rows do not
// fall in the same banks. Unlike the seed it is correct on every shape: the
// global -> shared copy checks bounds element by element (zeros outside),
// handles both orientations of each operand, and needs no alignment, and
// the epilogue goes through a per-warp staging tile in shared memory so
// that only the elements inside C are written, with alpha/beta in FP32.
// That element-wise copy is also why it is slow: the next step replaces
// it with cp.async and ldmatrix.
#include <mma.h>

#include "device/common.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"
#include "kernels/tensor/configs.hpp"

namespace tessel::impl {
namespace {

namespace wmma = nvcuda::wmma;

// The WMMA shape and fragment element type for each input type.
template <class T>
struct WmmaType {
  static constexpr int kK = 16;
  using Frag = T;
};
template <>
struct WmmaType<float> {  // tf32
  static constexpr int kK = 8;
  using Frag = wmma::precision::tf32;
};

template <class T, bool TA, bool TB>
__global__ void __launch_bounds__(WmmaConfig::kThreads) wmma_kernel(const T* A, const T* B, void* C, int64_t m,
                                                                    int64_t n, int64_t k, int64_t lda, int64_t ldb,
                                                                    int64_t ldc, float alpha, float beta, bool c_f32) {
  using Cfg = WmmaConfig;
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Cfg::kBK, WM = Cfg::kWM, WN = Cfg::kWN;
  constexpr int kPad = 16 / int(sizeof(T));  // 16 bytes
  constexpr int kK = WmmaType<T>::kK, FM = WM / 16, FN = WN / 16;
  using Frag = typename WmmaType<T>::Frag;

  __shared__ __align__(128) T sA[BM][BK + kPad];  // op(A) tile, m x k
  __shared__ __align__(128) T sB[BK][BN + kPad];  // op(B) tile, k x n
  __shared__ __align__(128) float stage[Cfg::kThreads / 32][16 * 16];

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int bm, bn;
  device::grouped_tile<8>(blockIdx.x, int(device::ceil_div(m, BM)), int(device::ceil_div(n, BN)), bm, bn);
  const int64_t i0 = int64_t(bm) * BM, j0 = int64_t(bn) * BN;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;

  wmma::fragment<wmma::accumulator, 16, 16, kK, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int64_t k0 = 0; k0 < k; k0 += BK) {
    // Consecutive threads take consecutive stored elements (coalesced for either op).
    for (int e = tid; e < BM * BK; e += Cfg::kThreads) {
      const int r = TA ? e % BM : e / BK, c = TA ? e / BM : e % BK;  // r along m, c along k
      const int64_t gi = i0 + r, gk = k0 + c;
      sA[r][c] = gi < m && gk < k ? (TA ? A[gk * lda + gi] : A[gi * lda + gk]) : T(0.0f);
    }
    for (int e = tid; e < BK * BN; e += Cfg::kThreads) {
      const int r = TB ? e % BK : e / BN, c = TB ? e / BK : e % BN;  // r along k, c along n
      const int64_t gk = k0 + r, gj = j0 + c;
      sB[r][c] = gk < k && gj < n ? (TB ? B[gj * ldb + gk] : B[gk * ldb + gj]) : T(0.0f);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += kK) {
      wmma::fragment<wmma::matrix_a, 16, 16, kK, Frag, wmma::row_major> fa[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, kK, Frag, wmma::row_major> fb[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        wmma::load_matrix_sync(fa[i], &sA[wm0 + i * 16][kk], BK + kPad);
        if constexpr (sizeof(T) == 4) {
          for (int x = 0; x < fa[i].num_elements; ++x) fa[i].x[x] = wmma::__float_to_tf32(fa[i].x[x]);
        }
      }
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        wmma::load_matrix_sync(fb[j], &sB[kk][wn0 + j * 16], BN + kPad);
        if constexpr (sizeof(T) == 4) {
          for (int x = 0; x < fb[j].num_elements; ++x) fb[j].x[x] = wmma::__float_to_tf32(fb[j].x[x]);
        }
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }

  // Epilogue: each 16x16 accumulator goes through the warp's staging tile;
  // lanes then write the elements inside C, 8 each.
  float* st = stage[warp];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      wmma::store_matrix_sync(st, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int64_t row = i0 + wm0 + i * 16 + e / 16, col = j0 + wn0 + j * 16 + e % 16;
        if (row >= m || col >= n) continue;
        const float v = alpha * st[e];
        if (c_f32) {
          float* c = static_cast<float*>(C) + row * ldc + col;
          *c = beta != 0.0f ? v + beta * *c : v;
        } else {
          T* c = static_cast<T*>(C) + row * ldc + col;
          *c = device::from_float<T>(beta != 0.0f ? v + beta * device::to_float(*c) : v);
        }
      }
      __syncwarp();
    }
}

}  // namespace

cudaError_t launch_wmma(const GemmArgs& a, cudaStream_t stream) {
  using Cfg = WmmaConfig;
  const int64_t tiles = device::ceil_div(a.m, Cfg::kBM) * device::ceil_div(a.n, Cfg::kBN);
  if (tiles > INT32_MAX) return cudaErrorInvalidConfiguration;
  return device::with_type(a.precision.ab, [&](auto t) {
    using T = decltype(t);
    return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) {
      wmma_kernel<T, ta, tb><<<unsigned(tiles), Cfg::kThreads, 0, stream>>>(
          static_cast<const T*>(a.A), static_cast<const T*>(a.B), a.C, a.m, a.n, a.k, a.lda, a.ldb, a.ldc, a.alpha,
          a.beta, a.precision.c == DType::kF32);
      return cudaGetLastError();
    });
  });
}

}  // namespace tessel::impl
