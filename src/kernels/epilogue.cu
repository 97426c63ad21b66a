// The epilogue pass: D = act(row_scale[i] * col_scale[j] * X(i, j) + beta * C(i, j) + bias),
// from the FP32 product X (alpha applied) that the GEMM wrote to the workspace, rounded
// once to C's type; act's input also to pre_activation where asked. Without X (k == 0 or
// alpha == 0) the product is 0. beta == 0 does not read C, so NaN in C goes.
#include "device/activation.cuh"
#include "device/common.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

constexpr int kThreads = 256;

// Threads along a row (x), blocks over rows (y, every gridDim.y-th row): a column's
// scale and bias are read once per thread.
template <class T>
__global__ void __launch_bounds__(kThreads)
    epilogue_kernel(const float* __restrict__ x, int64_t ldx, float beta, T* C, int64_t m, int64_t n, int64_t ldc,
                    Epilogue e) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const T* bias = static_cast<const T*>(e.bias);
  const float col_scale = e.col_scale ? e.col_scale[j] : 1.0f;
  const float col_bias = bias && !e.bias_per_row ? device::to_float(bias[j]) : 0.0f;
  T* pre = static_cast<T*>(e.pre_activation);
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
    float v = 0.0f;
    if (x) v = (e.row_scale ? e.row_scale[i] : 1.0f) * col_scale * x[i * ldx + j];
    T* c = C + i * ldc + j;
    if (beta != 0.0f) v += beta * device::to_float(*c);
    v += bias && e.bias_per_row ? device::to_float(bias[i]) : col_bias;
    if (pre) pre[i * e.ld_pre + j] = device::from_float<T>(v);
    *c = device::from_float<T>(device::activate(v, e.activation));
  }
}

}  // namespace

cudaError_t launch_epilogue(const float* x, int64_t ldx, float beta, void* C, int64_t m, int64_t n, int64_t ldc,
                            DType c_type, const Epilogue& epilogue, cudaStream_t stream) {
  if (m == 0 || n == 0) return cudaSuccess;
  const dim3 grid(unsigned(device::ceil_div(n, int64_t(kThreads))), unsigned(std::min(m, device::kMaxGridY)));
  return device::with_type(c_type, [&](auto t) {
    using T = decltype(t);
    return device::launch(epilogue_kernel<T>, grid, kThreads, 0, stream, x, ldx, beta, static_cast<T*>(C), m, n, ldc,
                          epilogue);
  });
}

}  // namespace tessel::impl
