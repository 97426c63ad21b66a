// C = beta * C: what a GEMM reduces to when k == 0 or alpha == 0 (BLAS
// semantics). beta == 0 writes zeros without reading C, so NaN in C goes.
#include "device/common.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

// Threads along a row of C (x), blocks over rows (y): no index division.
// (It divided a flat 64-bit index by n before: 5.4 us for 127 x 4097 on an
// H100 by ncu, 3.9 us now; split-k at 1024^3, which scales C first, went
// from 98% to 101-102% of cuBLAS.)
template <class T>
__global__ void scale_kernel(float beta, T* C, int64_t m, int64_t n, int64_t ldc) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
    T* c = C + i * ldc + j;
    *c = device::from_float<T>(beta == 0.0f ? 0.0f : beta * device::to_float(*c));
  }
}

}  // namespace

cudaError_t launch_scale(float beta, void* C, int64_t m, int64_t n, int64_t ldc, cudaStream_t stream, DType c_type) {
  if (beta == 1.0f) return cudaSuccess;
  constexpr int kThreads = 256;
  if (m == 0 || n == 0) return cudaSuccess;
  const dim3 blocks(unsigned(device::ceil_div(n, kThreads)), unsigned(std::min<int64_t>(m, 65535)));
  return device::with_type(c_type, [&](auto t) {
    using T = decltype(t);
    scale_kernel<T><<<blocks, kThreads, 0, stream>>>(beta, static_cast<T*>(C), m, n, ldc);
    return cudaGetLastError();
  });
}

}  // namespace tessel::impl
