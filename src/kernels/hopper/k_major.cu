// Transposing copies that put tf32 operands K-major (see k_major.hpp): a
// 32 x 32 tile through shared memory, read along the source's rows and
// written along the destination's, so both sides are coalesced; the padded
// row of 33 keeps the column reads free of bank conflicts.
#include "kernels/hopper/k_major.hpp"

#include <algorithm>
#include <cstdint>

#include "device/common.cuh"
#include "device/mma.cuh"  // to_tf32
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kTile = 32, kRowsPerPass = 8;

// dst (cols x rows, ldd) = src (rows x cols, ld) transposed, rounded to tf32.
__global__ void __launch_bounds__(kTile * kRowsPerPass)
    transpose_tf32(const float* __restrict__ src, int64_t rows, int64_t cols, int64_t ld, float* __restrict__ dst,
                   int64_t ldd) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = threadIdx.x, y = threadIdx.y;
  const int64_t c0 = int64_t(blockIdx.x) * kTile, tiles_r = device::ceil_div(rows, kTile);
  for (int64_t br = blockIdx.y; br < tiles_r; br += gridDim.y) {
    const int64_t r0 = br * kTile;
    for (int i = y; i < kTile; i += kRowsPerPass) {
      if (r0 + i < rows && c0 + x < cols) tile[i][x] = src[(r0 + i) * ld + c0 + x];
    }
    __syncthreads();
    for (int i = y; i < kTile; i += kRowsPerPass) {
      if (c0 + i < cols && r0 + x < rows) {
        dst[(c0 + i) * ldd + r0 + x] = __uint_as_float(device::to_tf32(__float_as_uint(tile[x][i])));
      }
    }
    __syncthreads();
  }
}

cudaError_t transpose(const float* src, int64_t rows, int64_t cols, int64_t ld, float* dst, int64_t ldd,
                      cudaStream_t stream) {
  const int64_t tiles_c = device::ceil_div(cols, kTile), tiles_r = device::ceil_div(rows, kTile);
  if (tiles_c > INT32_MAX) return cudaErrorInvalidValue;
  const dim3 grid(unsigned(tiles_c), unsigned(std::min<int64_t>(tiles_r, 65535)));
  transpose_tf32<<<grid, dim3(kTile, kRowsPerPass), 0, stream>>>(src, rows, cols, ld, dst, ldd);
  return cudaGetLastError();
}

}  // namespace

cudaError_t k_major_operands(const GemmArgs& a, cudaStream_t stream, GemmArgs* out) {
  *out = a;
  const bool copy_a = a.opA == Op::T, copy_b = a.opB == Op::N;
  if (!copy_a && !copy_b) return cudaSuccess;
  const int64_t ld = (a.k + 3) / 4 * 4;  // copies: rows of k values, 16-byte aligned
  const size_t a_bytes = copy_a ? (size_t(a.m) * ld * sizeof(float) + 255) / 256 * 256 : 0;
  const size_t b_bytes = copy_b ? size_t(a.n) * ld * sizeof(float) : 0;
  void* ws = nullptr;
  if (cudaError_t err = stream_workspace(stream, a_bytes + b_bytes, &ws, WorkspaceUse::kOperands); err != cudaSuccess) {
    return err;
  }
  if (copy_a) {  // A stored k x m -> m x k
    float* dst = static_cast<float*>(ws);
    if (cudaError_t err = transpose(static_cast<const float*>(a.A), a.k, a.m, a.lda, dst, ld, stream);
        err != cudaSuccess) {
      return err;
    }
    out->A = dst, out->lda = ld, out->opA = Op::N;
  }
  if (copy_b) {  // B stored k x n -> n x k
    float* dst = reinterpret_cast<float*>(static_cast<char*>(ws) + a_bytes);
    if (cudaError_t err = transpose(static_cast<const float*>(a.B), a.k, a.n, a.ldb, dst, ld, stream);
        err != cudaSuccess) {
      return err;
    }
    out->B = dst, out->ldb = ld, out->opB = Op::T;
  }
  return cudaSuccess;
}

}  // namespace tessel::impl
