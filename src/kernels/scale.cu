// Passes over C alone. C = beta * C: what a GEMM reduces to when k == 0 or
// alpha == 0 (BLAS semantics), and atomic split-k's first step. C = sum of
// FP32 parts + beta * C, rounded once to C's type: split-k's last step.
// beta == 0 does not read C, so NaN in C goes.
#include "device/common.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

// Threads along a row of C (x), blocks over rows (y): no index division.
// The scale takes four columns per thread; the parts' sum, no faster that
// way, keeps one (docs/ladder.md, "Step 08", split-k).
constexpr int kColumns = 4;
constexpr int kThreads = 256;
// The parts' sum gives a column up to 8 threads while the output has few
// columns (up to this many threads in all; more measured slower, H100).
constexpr int64_t kSumThreads = int64_t(1) << 16;

// Four columns of a row as one access (4 * sizeof(T) bytes).
template <class T>
struct alignas(kColumns * sizeof(T)) Four {
  T v[kColumns];
};

// Whether a grouped GEMM writes row i of its m rows (GroupedRows).
__device__ bool written(const GroupedRows& g, int64_t i, int64_t m) {
  if (g.counts != nullptr) return i % g.capacity < min(max(g.counts[i / g.capacity], int64_t(0)), g.capacity);
  if (g.offsets != nullptr) {
    return i >= min(max(g.offsets[0], int64_t(0)), m) && i < min(max(g.offsets[g.groups], int64_t(0)), m);
  }
  return true;
}

// C[i][j..j+3] = beta * C[i][j..j+3]: one access where all four are inside
// the row and their address allows, else element by element. With device
// matrices: matrix first + blockIdx.z of them.
template <class T>
__global__ void scale_kernel(float beta, T* C, int64_t m, int64_t n, int64_t ldc, GroupedRows rows,
                             DeviceMatrices matrices, int64_t first) {
  const int64_t z = first + blockIdx.z;
  if (matrices.c_array != nullptr) C = static_cast<T*>(matrices.c_array[z]);
  if (matrices.problems != nullptr) {  // sizes clamped to the bounds m x n
    const GemmProblem& q = matrices.problems[z];
    C = static_cast<T*>(q.C), ldc = q.ldc;
    m = min(max(q.m, int64_t(0)), m), n = min(max(q.n, int64_t(0)), n);
  }
  const int64_t j = kColumns * (int64_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (j >= n) return;
  auto scaled = [beta](T c) { return device::from_float<T>(beta == 0.0f ? 0.0f : beta * device::to_float(c)); };
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
    if (!written(rows, i, m)) continue;
    T* c = C + i * ldc + j;
    if (j + kColumns <= n && reinterpret_cast<uintptr_t>(c) % sizeof(Four<T>) == 0) {
      Four<T>& four = *reinterpret_cast<Four<T>*>(c);
      Four<T> out;
      if (beta == 0.0f) {  // C is not read
#pragma unroll
        for (int e = 0; e < kColumns; ++e) out.v[e] = device::from_float<T>(0.0f);
      } else {
        const Four<T> old = four;
#pragma unroll
        for (int e = 0; e < kColumns; ++e) out.v[e] = scaled(old.v[e]);
      }
      four = out;
    } else {
      for (int e = 0; e < kColumns && j + e < n; ++e) c[e] = scaled(c[e]);
    }
  }
}

// A warp's lanes split into `ways` groups (1, 2, 4 or 8) over the same 32 / ways
// columns: group w adds parts w, w + ways, ...; shuffles then add the groups'
// sums in a fixed order, so every run gives the same bits.
template <class T>
__global__ void sum_parts_kernel(const float* parts, int64_t count, int64_t part_stride, int64_t ldp, float beta,
                                 T* C, int64_t m, int64_t n, int64_t ldc, int ways) {
  device::wait_for_prior_grid();  // the parts' kernel may still run (launch_sum_parts' after_trigger)
  const int lane = threadIdx.x % 32, columns = 32 / ways, way = lane / columns;
  const int64_t j = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * columns + lane % columns;
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
    float sum = 0.0f;
    if (j < n) {
      const float* part = parts + i * ldp + j;
#pragma unroll 8
      for (int64_t z = way; z < count; z += ways) sum += part[z * part_stride];
    }
    for (int d = columns; d < 32; d *= 2) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (way == 0 && j < n) {
      T* c = C + i * ldc + j;
      *c = device::from_float<T>(beta == 0.0f ? sum : sum + beta * device::to_float(*c));
    }
  }
}

// Blocks of `block_columns` columns along a row, over rows (at most kMaxGridY of them; each takes every
// gridDim.y-th row).
dim3 row_grid(int64_t m, int64_t n, int block_columns) {
  return dim3(unsigned(device::ceil_div(n, int64_t(block_columns))), unsigned(std::min(m, device::kMaxGridY)));
}

}  // namespace

cudaError_t launch_sum_parts(const float* parts, int64_t count, int64_t part_stride, int64_t ldp, float beta, void* C,
                             int64_t m, int64_t n, int64_t ldc, cudaStream_t stream, DType c_type, bool after_trigger) {
  if (m == 0 || n == 0) return cudaSuccess;
  return device::with_type(c_type, [&](auto t) {
    using T = decltype(t);
    int ways = 1;
    while (ways < 8 && 2 * ways <= count && 2 * ways * m * n <= kSumThreads) ways *= 2;
    return device::launch_after(after_trigger, sum_parts_kernel<T>, row_grid(m, n, kThreads / ways), kThreads, 0,
                                stream, parts, count, part_stride, ldp, beta, static_cast<T*>(C), m, n, ldc, ways);
  });
}

cudaError_t launch_scale(float beta, void* C, int64_t m, int64_t n, int64_t ldc, cudaStream_t stream, DType c_type,
                         GroupedRows rows, DeviceMatrices matrices, int64_t count) {
  if (beta == 1.0f) return cudaSuccess;
  if (m == 0 || n == 0) return cudaSuccess;
  return device::with_type(c_type, [&](auto t) {
    using T = decltype(t);
    dim3 grid = row_grid(m, n, kThreads * kColumns);
    const int64_t walked = matrices.c_array != nullptr || matrices.problems != nullptr ? count : 1;
    for (int64_t first = 0; first < walked; first += device::kMaxGridZ) {
      grid.z = unsigned(std::min(device::kMaxGridZ, walked - first));
      if (cudaError_t err = device::launch(scale_kernel<T>, grid, kThreads, 0, stream, beta, static_cast<T*>(C), m, n,
                                           ldc, rows, matrices, first);
          err != cudaSuccess) {
        return err;
      }
    }
    return cudaSuccess;
  });
}

}  // namespace tessel::impl
