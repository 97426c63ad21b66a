// Internal: a pointer-array batch on the Hopper cluster kernels (cluster.cuh).
// Its pointers live on the device, so its tensor maps are made there: a block
// per matrix copies the host-made maps of A, B and C and points them at the
// matrix (tensormap.replace), before the GEMM kernel reads them. TMA reads
// boxes from 16-byte boundaries only, so a matrix whose A or B starts off one
// (off_tma) is multiplied by its block here instead, element by element, and
// the GEMM kernel, which reads its map's aligned address, stores nothing for it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "device/common.cuh"
#include "device/mma.cuh"
#include "device/sm90.cuh"

namespace tessel::impl {

__device__ __forceinline__ bool off_tma(const void* const* a_array, const void* const* b_array, int64_t i) {
  return ((reinterpret_cast<uintptr_t>(a_array[i]) | reinterpret_cast<uintptr_t>(b_array[i])) & 15) != 0;
}

// The block of make_pointer_maps, and the tiles it multiplies a matrix in (FP32, 4 x 4 results a thread).
constexpr int kMapThreads = 256, kApartTile = 64, kApartK = 16;

// C = alpha op(A) op(B) + beta C for one matrix (p's sizes), any alignment.
template <class T, class Out, bool TA, bool TB>
__device__ void multiply_apart(const device::TcParams<T, Out>& p, const void* a, const void* b, void* C) {
  const auto* A = static_cast<const device::a_type_t<T>*>(a);
  const auto* B = static_cast<const device::b_type_t<T>*>(b);
  __shared__ float sa[kApartK][kApartTile + 1], sb[kApartK][kApartTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  for (int64_t i0 = 0; i0 < p.m; i0 += kApartTile) {
    for (int64_t j0 = 0; j0 < p.n; j0 += kApartTile) {
      float acc[4][4] = {};
      for (int64_t k0 = 0; k0 < p.k; k0 += kApartK) {
        for (int e = threadIdx.x; e < kApartK * kApartTile; e += kMapThreads) {
          const int kk = e / kApartTile, r = e % kApartTile;
          const int64_t i = i0 + r, j = j0 + r, k = k0 + kk;
          sa[kk][r] = i < p.m && k < p.k ? device::to_float(A[TA ? k * p.lda + i : i * p.lda + k]) : 0.0f;
          sb[kk][r] = j < p.n && k < p.k ? device::to_float(B[TB ? j * p.ldb + k : k * p.ldb + j]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kApartK; ++kk) {
#pragma unroll
          for (int a = 0; a < 4; ++a) {
#pragma unroll
            for (int b = 0; b < 4; ++b) acc[a][b] += sa[kk][4 * ty + a] * sb[kk][4 * tx + b];
          }
        }
        __syncthreads();
      }
      for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
          const int64_t i = i0 + 4 * ty + a, j = j0 + 4 * tx + b;
          if (i >= p.m || j >= p.n) continue;
          auto store = [&](auto* c) {
            using CT = std::remove_pointer_t<decltype(c)>;
            const float v = p.alpha * acc[a][b];
            CT& out = c[i * p.ldc + j];
            out = device::from_float<CT>(p.beta != 0.0f ? v + p.beta * device::to_float(out) : v);
          };
          if (p.c_f32) {
            store(static_cast<float*>(C));
          } else {
            store(static_cast<Out*>(C));
          }
        }
      }
    }
  }
}

// Problem g of a grouped GEMM of problems, its sizes clamped to the call's bounds m, n, k.
__device__ __forceinline__ GemmProblem clamped_problem(const GemmProblem* problems, int64_t g, int64_t m, int64_t n,
                                                       int64_t k) {
  GemmProblem q = problems[g];
  q.m = min(max(q.m, int64_t(0)), m), q.n = min(max(q.n, int64_t(0)), n), q.k = min(max(q.k, int64_t(0)), k);
  return q;
}
template <class P>
__device__ __forceinline__ GemmProblem clamped_problem(const P& p, int64_t g) {
  return clamped_problem(p.problems, g, p.m, p.n, p.k);
}

// Whether problem q is multiplied by its maps block (multiply_apart) rather than the GEMM kernel: no k
// to walk, or A or B where TMA cannot read them (pointer or rows off 16 bytes, rows 2^40 bytes apart).
template <class T>
__device__ __forceinline__ bool problem_apart(const GemmProblem& q) {
  const auto off = [](const void* at, int64_t ld) {
    const uint64_t row = uint64_t(ld) * sizeof(T);
    return ((reinterpret_cast<uintptr_t>(at) | row) & 15) != 0 || ld < 1 || row >= (uint64_t(1) << 40);
  };
  return q.k == 0 || off(q.A, q.lda) || off(q.B, q.ldb);
}

// Whether problem q's C takes TMA stores (make_store_map's rule: C, ldc and its rows in 16-byte units).
template <class CT>
__device__ __forceinline__ bool problem_stores_by_tma(const GemmProblem& q) {
  const uint64_t row = uint64_t(q.ldc) * sizeof(CT);
  return ((reinterpret_cast<uintptr_t>(q.C) | row | uint64_t(q.n) * sizeof(CT)) & 15) == 0 && q.ldc >= 1 &&
         row < (uint64_t(1) << 40);
}

// A copy of the host-made map `from` at `to` over a matrix of `outer` rows of `inner` elements, rows
// `row_bytes` apart, at `at` (rounded down to 16 bytes: valid to read where its results are never stored).
__device__ __forceinline__ void point_map(const CUtensorMap& from, CUtensorMap* to, const void* at, int64_t inner = 0,
                                          int64_t outer = 0, uint64_t row_bytes = 0) {
  const uint4* src = reinterpret_cast<const uint4*>(&from);
  uint4* dst = reinterpret_cast<uint4*>(to);
#pragma unroll
  for (int w = 0; w < int(sizeof(CUtensorMap) / sizeof(uint4)); ++w) dst[w] = src[w];
  const uintptr_t aligned = reinterpret_cast<uintptr_t>(at) & ~uintptr_t(15);
  device::sm90::replace_tensor_map_address(to, reinterpret_cast<const void*>(aligned));
  if (row_bytes == 0) return;  // the extents and strides of `from`
  device::sm90::replace_tensor_map_extent<0>(to, uint32_t(inner));
  device::sm90::replace_tensor_map_extent<1>(to, uint32_t(outer));
  device::sm90::replace_tensor_map_stride<1>(to, row_bytes);
}

// Block i: matrix i's maps (maps[3 i ..], from a, b and, where C's rows take TMA stores, c), or the matrix itself.
template <class T, class Out, bool TA, bool TB>
__global__ void __launch_bounds__(kMapThreads)
    pointer_maps_kernel(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                        const __grid_constant__ CUtensorMap c, bool map_c, device::TcParams<T, Out> p,
                        CUtensorMap* maps) {
  namespace sm90 = device::sm90;
  sm90::launch_dependents();  // the GEMM kernel's CTAs set up meanwhile, then wait for these maps
  const int64_t i = blockIdx.x;
  const void* pa = p.a_array[i];
  const void* pb = p.b_array[i];
  // An address off 16 bytes (off_tma) rounded down: valid to read, its results never stored.
  if (threadIdx.x == 0) {
    point_map(a, &maps[3 * i], pa), point_map(b, &maps[3 * i + 1], pb);
    if (map_c) point_map(c, &maps[3 * i + 2], p.c_array[i]);  // used only where it is 16-byte aligned
    sm90::release_tensor_maps();
  }
  if (off_tma(p.a_array, p.b_array, i)) {
    if constexpr (sizeof(T) == 1) device::fold_scales(p);
    multiply_apart<T, Out, TA, TB>(p, pa, pb, p.c_array[i]);
  }
}

// Block g: problem g's maps (maps[3 g ..]: A's, B's and, where its C takes TMA stores, C's) over its own
// sizes and rows, or (problem_apart) the problem itself. Empty problems have neither.
template <class T, class Out, bool TA, bool TB>
__global__ void __launch_bounds__(kMapThreads)
    problem_maps_kernel(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                        const __grid_constant__ CUtensorMap c, bool map_c, device::ProblemParams<T, Out> p,
                        CUtensorMap* maps) {
  namespace sm90 = device::sm90;
  sm90::launch_dependents();  // the GEMM kernel's CTAs set up meanwhile, then wait for these maps
  const int64_t g = blockIdx.x;
  const GemmProblem q = clamped_problem(p, g);
  if (q.m == 0 || q.n == 0) return;
  if (problem_apart<T>(q)) {
    device::TcParams<T, Out> one = p;
    one.m = q.m, one.n = q.n, one.k = q.k, one.lda = q.lda, one.ldb = q.ldb, one.ldc = q.ldc;
    if constexpr (sizeof(T) == 1) device::fold_scales(one);
    multiply_apart<T, Out, TA, TB>(one, q.A, q.B, q.C);
    return;
  }
  if (threadIdx.x != 0) return;
  // A: op N stored m x k, op T k x m. B: op N stored k x n, op T n x k.
  point_map(a, &maps[3 * g], q.A, TA ? q.m : q.k, TA ? q.k : q.m, uint64_t(q.lda) * sizeof(T));
  point_map(b, &maps[3 * g + 1], q.B, TB ? q.k : q.n, TB ? q.n : q.k, uint64_t(q.ldb) * sizeof(T));
  const size_t c_bytes = p.c_f32 ? sizeof(float) : sizeof(Out);
  if (map_c && (p.c_f32 ? problem_stores_by_tma<float>(q) : problem_stores_by_tma<Out>(q))) {
    point_map(c, &maps[3 * g + 2], q.C, q.n, q.m, uint64_t(q.ldc) * c_bytes);
  }
  sm90::release_tensor_maps();
}

}  // namespace tessel::impl
