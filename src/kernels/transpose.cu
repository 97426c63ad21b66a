// dst = src transposed, FP32: a tile through shared memory, read along the
// source's rows (16 bytes per lane where the source's rows allow it) and
// written along the destination's, so both sides are coalesced; the padded
// rows keep the column reads free of bank conflicts. Used to put an operand
// into the layout a kernel reads fastest (tf32 wgmma's K-major operands;
// step 08's A, see kernels.hpp).
#include <algorithm>
#include <cstdint>

#include "device/common.cuh"
#include "device/mma.cuh"  // to_tf32
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kTile = 32, kThreads = 256, kWarps = kThreads / 32;

// A tile of 32 rows x Cols columns of src. Vec4: Cols = 128, each lane reads
// 16 bytes of a row (src in 16-byte units), so a thread has 64 bytes of
// loads in flight rather than 16, and keeps element e of its four at column
// 32 e + lane of the tile (each store and load of a warp then hits 32
// banks); else Cols = 32, one element per lane.
template <bool RoundTf32, bool Vec4>
__global__ void __launch_bounds__(kThreads)
    transpose_kernel(const float* __restrict__ src, int64_t rows, int64_t cols, int64_t ld, float* __restrict__ dst,
                     int64_t ldd) {
  constexpr int kCols = Vec4 ? 128 : 32;
  __shared__ float tile[kTile][kCols + 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t c0 = int64_t(blockIdx.x) * kCols, tiles_r = device::ceil_div(rows, kTile);
  for (int64_t br = blockIdx.y; br < tiles_r; br += gridDim.y) {
    const int64_t r0 = br * kTile;
#pragma unroll
    for (int i = warp; i < kTile; i += kWarps) {  // warp by warp along src's rows
      const int64_t r = r0 + i;
      if (r >= rows) continue;
      if constexpr (Vec4) {
        const int64_t c = c0 + 4 * lane;
        if (c + 4 <= cols) {
          const float4 v = *reinterpret_cast<const float4*>(src + r * ld + c);
          tile[i][lane] = v.x, tile[i][32 + lane] = v.y, tile[i][64 + lane] = v.z, tile[i][96 + lane] = v.w;
        } else {
          for (int e = 0; c + e < cols; ++e) tile[i][32 * e + lane] = src[r * ld + c + e];
        }
      } else if (c0 + lane < cols) {
        tile[i][lane] = src[r * ld + c0 + lane];
      }
    }
    __syncthreads();
#pragma unroll 4
    for (int j = warp; j < kCols; j += kWarps) {  // warp by warp along dst's rows
      if (c0 + j < cols && r0 + lane < rows) {
        const float v = tile[lane][Vec4 ? j % 4 * 32 + j / 4 : j];
        dst[(c0 + j) * ldd + r0 + lane] = RoundTf32 ? __uint_as_float(device::to_tf32(__float_as_uint(v))) : v;
      }
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t launch_transpose(const float* src, int64_t rows, int64_t cols, int64_t ld, float* dst, int64_t ldd,
                             bool round_tf32, cudaStream_t stream) {
  auto launch = [&](auto round, auto vec4) {
    constexpr int kCols = decltype(vec4)::value ? 128 : 32;
    const int64_t tiles_c = device::ceil_div(cols, kCols), tiles_r = device::ceil_div(rows, kTile);
    if (tiles_c > INT32_MAX) return cudaErrorInvalidValue;
    const dim3 grid(unsigned(tiles_c), unsigned(std::min<int64_t>(tiles_r, device::kMaxGridY)));
    return device::launch(transpose_kernel<decltype(round)::value, decltype(vec4)::value>, grid, kThreads, 0, stream, src,
                          rows, cols, ld, dst, ldd);
  };
  return device::with_bools(round_tf32, device::in_16_byte_units(src, ld), launch);
}

namespace {

// One operand as stored: rows x cols; A with op N is m x k, with op T k x m;
// B with op N is k x n, with op T n x k. bytes: of its copy, cols rows of
// flipped_ld(rows), in whole 256-byte units (0 when not copied).
struct Stored {
  int64_t rows, cols;
  size_t bytes;
};
Stored stored(bool flip, bool outer_first, int64_t outer, int64_t k) {
  const int64_t rows = outer_first ? outer : k, cols = outer_first ? k : outer;
  return Stored{rows, cols, flip ? (size_t(cols * flipped_ld(rows)) * sizeof(float) + 255) / 256 * 256 : 0};
}
Stored stored_a(const GemmArgs& a, bool flip) { return stored(flip, a.opA == Op::N, a.m, a.k); }
Stored stored_b(const GemmArgs& a, bool flip) { return stored(flip, a.opB == Op::T, a.n, a.k); }

}  // namespace

size_t flipped_bytes(const GemmArgs& args, bool flip_a, bool flip_b) {
  return stored_a(args, flip_a).bytes + stored_b(args, flip_b).bytes;
}

cudaError_t flip_operands(GemmArgs* args, const LaunchPlan& plan, cudaStream_t stream) {
  if (!plan.copy_a && !plan.copy_b) return cudaSuccess;
  const Stored a = stored_a(*args, plan.copy_a), b = stored_b(*args, plan.copy_b);
  void* ws = nullptr;
  if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kOperands, &ws); err != cudaSuccess) {
    return err;
  }
  auto flip = [&](const Stored& s, const void*& ptr, int64_t& ld, Op& op, float* dst) {
    const int64_t ldd = flipped_ld(s.rows);
    const cudaError_t err =
        launch_transpose(static_cast<const float*>(ptr), s.rows, s.cols, ld, dst, ldd, plan.round_tf32, stream);
    if (err == cudaSuccess) ptr = dst, ld = ldd, op = op == Op::N ? Op::T : Op::N;
    return err;
  };
  float* const a_copy = static_cast<float*>(ws);
  float* const b_copy = reinterpret_cast<float*>(static_cast<char*>(ws) + a.bytes);
  if (plan.copy_a) {
    if (cudaError_t err = flip(a, args->A, args->lda, args->opA, a_copy); err != cudaSuccess) return err;
  }
  return plan.copy_b ? flip(b, args->B, args->ldb, args->opB, b_copy) : cudaSuccess;
}

}  // namespace tessel::impl
