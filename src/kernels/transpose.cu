// dst = src transposed, FP32: a 32 x 32 tile through shared memory, read
// along the source's rows and written along the destination's, so both
// sides are coalesced; the padded row of 33 keeps the column reads free of
// bank conflicts. Used to put an operand into the layout a kernel reads
// fastest (tf32 wgmma's K-major operands; step 08's A, see kernels.hpp).
#include <algorithm>
#include <cstdint>

#include "device/common.cuh"
#include "device/mma.cuh"  // to_tf32
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

constexpr int kTile = 32, kRowsPerPass = 8;

template <bool RoundTf32>
__global__ void __launch_bounds__(kTile * kRowsPerPass)
    transpose_kernel(const float* __restrict__ src, int64_t rows, int64_t cols, int64_t ld, float* __restrict__ dst,
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
        const float v = tile[x][i];
        dst[(c0 + i) * ldd + r0 + x] = RoundTf32 ? __uint_as_float(device::to_tf32(__float_as_uint(v))) : v;
      }
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t launch_transpose(const float* src, int64_t rows, int64_t cols, int64_t ld, float* dst, int64_t ldd,
                             bool round_tf32, cudaStream_t stream) {
  const int64_t tiles_c = device::ceil_div(cols, kTile), tiles_r = device::ceil_div(rows, kTile);
  if (tiles_c > INT32_MAX) return cudaErrorInvalidValue;
  const dim3 grid(unsigned(tiles_c), unsigned(std::min<int64_t>(tiles_r, device::kMaxGridY)));
  const dim3 block(kTile, kRowsPerPass);
  if (round_tf32) {
    transpose_kernel<true><<<grid, block, 0, stream>>>(src, rows, cols, ld, dst, ldd);
  } else {
    transpose_kernel<false><<<grid, block, 0, stream>>>(src, rows, cols, ld, dst, ldd);
  }
  return cudaGetLastError();
}

}  // namespace tessel::impl
