// C = beta * C: what a GEMM reduces to when k == 0 or alpha == 0 (BLAS
// semantics). beta == 0 writes zeros without reading C, so NaN in C goes.
#include "device/common.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

template <class T>
__global__ void scale_kernel(float beta, T* C, int64_t m, int64_t n, int64_t ldc) {
  const int64_t total = m * n;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    T* c = C + (e / n) * ldc + e % n;
    *c = device::from_float<T>(beta == 0.0f ? 0.0f : beta * device::to_float(*c));
  }
}

}  // namespace

cudaError_t launch_scale(float beta, void* C, int64_t m, int64_t n, int64_t ldc, cudaStream_t stream, DType c_type) {
  if (beta == 1.0f) return cudaSuccess;
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>(device::ceil_div(m * n, kThreads), 65536);
  return device::with_type(c_type, [&](auto t) {
    using T = decltype(t);
    scale_kernel<T><<<unsigned(blocks), kThreads, 0, stream>>>(beta, static_cast<T*>(C), m, n, ldc);
    return cudaGetLastError();
  });
}

}  // namespace tessel::impl
