// Small pieces every SIMT kernel shares: op-aware element access, the
// alpha/beta epilogue, the choice among the four op instantiations, and the
// split of launches whose grid would pass CUDA's 65535 limit on gridDim.y.
#pragma once

#include <tessel/tessel.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace tessel::device {

// Element (r, c) of op(X), where X is stored row-major with leading dimension ld.
template <bool Trans>
__device__ __forceinline__ float load_op(const float* X, int64_t ld, int64_t r, int64_t c) {
  return Trans ? X[c * ld + r] : X[r * ld + c];
}

// C(i, j) = alpha * acc + beta * C(i, j); with beta == 0, C is not read.
__device__ __forceinline__ void store_result(float* C, int64_t ldc, int64_t i, int64_t j, float acc,
                                             float alpha, float beta) {
  float* c = C + i * ldc + j;
  *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

template <bool B>
using Bool = std::integral_constant<bool, B>;

// Calls launch(Bool<opA == T>, Bool<opB == T>): one template instantiation per op pair.
template <class F>
cudaError_t with_ops(Op opA, Op opB, F&& launch) {
  if (opA == Op::N) {
    return opB == Op::N ? launch(Bool<false>{}, Bool<false>{}) : launch(Bool<false>{}, Bool<true>{});
  }
  return opB == Op::N ? launch(Bool<true>{}, Bool<false>{}) : launch(Bool<true>{}, Bool<true>{});
}

constexpr int64_t kMaxGridY = 65535;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Launches launch(sub) over slices of the rows of C, each at most
// kMaxGridY * rows_per_block rows, for kernels that put row tiles on gridDim.y.
template <class F>
cudaError_t split_rows(const SgemmArgs& args, int64_t rows_per_block, F&& launch) {
  const int64_t step = kMaxGridY * rows_per_block;
  for (int64_t i0 = 0; i0 < args.m; i0 += step) {
    SgemmArgs sub = args;
    sub.m = std::min(step, args.m - i0);
    sub.A = args.A + (args.opA == Op::N ? i0 * args.lda : i0);
    sub.C = args.C + i0 * args.ldc;
    if (cudaError_t err = launch(sub); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

// The same over slices of the columns of C, for kernels that put column tiles on gridDim.y.
template <class F>
cudaError_t split_cols(const SgemmArgs& args, int64_t cols_per_block, F&& launch) {
  const int64_t step = kMaxGridY * cols_per_block;
  for (int64_t j0 = 0; j0 < args.n; j0 += step) {
    SgemmArgs sub = args;
    sub.n = std::min(step, args.n - j0);
    sub.B = args.B + (args.opB == Op::N ? j0 : j0 * args.ldb);
    sub.C = args.C + j0;
    if (cudaError_t err = launch(sub); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace tessel::device
