// Operand copies a plan makes before its GEMM: transposed (FP32, 16-bit or FP8),
// to put an operand into the layout a kernel reads fastest or at all (tf32 and
// FP8 wgmma's K-major operands; step 08's A; the swapped wgmma tiles' narrow A),
// or as it is with its rows in 16-byte units, so that an operand the caller did
// not align can still go to the aligned kernels.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "device/common.cuh"
#include "device/mma.cuh"  // to_tf32
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kTile = 32, kThreads = 256, kWarps = kThreads / 32;

// The transpose: a tile through shared memory, read along the source's rows
// (16 bytes per lane where the source's rows allow it) and written along the
// destination's, so both sides are coalesced; the padded rows keep the column
// reads free of bank conflicts.

// A tile of 32 Pack rows x Cols columns of src, elements E (FP32, or the
// bits of 16-bit or FP8 values; Pack = 4 / sizeof(E), so that each lane writes 4 bytes of a
// destination row: one FP32 value, two 16-bit or four FP8 ones). Vec4: Cols = 128, each
// lane reads 4 elements of a row at once (src in 16-byte units), so a thread
// has 4 loads' worth in flight rather than one, and keeps element e of its
// four at column 32 e + lane of the tile (each store and load of a warp then
// hits 32 banks); else Cols = 32, one element per lane.
template <class E, bool RoundTf32, bool Vec4>
__global__ void __launch_bounds__(kThreads)
    transpose_kernel(const E* __restrict__ src, int64_t rows, int64_t cols, int64_t ld, E* __restrict__ dst,
                     int64_t ldd, MatrixStrides batch) {
  src += blockIdx.z * batch.a, dst += blockIdx.z * batch.c;  // matrix z of a batch
  using Vec = std::conditional_t<sizeof(E) == 4, float4, std::conditional_t<sizeof(E) == 2, ushort4, uchar4>>;  // four
  constexpr int kPack = 4 / int(sizeof(E)), kRows = kTile * kPack;
  constexpr int kCols = Vec4 ? 128 : 32;
  __shared__ E tile[kRows][kCols + 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t c0 = int64_t(blockIdx.x) * kCols, tiles_r = device::ceil_div(rows, kRows);
  for (int64_t br = blockIdx.y; br < tiles_r; br += gridDim.y) {
    const int64_t r0 = br * kRows;
#pragma unroll
    for (int i = warp; i < kRows; i += kWarps) {  // warp by warp along src's rows
      const int64_t r = r0 + i;
      if (r >= rows) continue;
      if constexpr (Vec4) {
        const int64_t c = c0 + 4 * lane;
        if (c + 4 <= cols) {
          const Vec v = *reinterpret_cast<const Vec*>(src + r * ld + c);
          tile[i][lane] = E(v.x), tile[i][32 + lane] = E(v.y), tile[i][64 + lane] = E(v.z), tile[i][96 + lane] = E(v.w);
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
      const int64_t r = r0 + kPack * lane;  // this lane's first element of dst's row
      if (c0 + j >= cols || r >= rows) continue;
      const int col = Vec4 ? j % 4 * 32 + j / 4 : j;
      E* out = dst + (c0 + j) * ldd + r;
      if constexpr (kPack == 1) {
        const E v = tile[lane][col];
        *out = RoundTf32 ? __uint_as_float(device::to_tf32(__float_as_uint(v))) : v;
      } else if (r + kPack <= rows) {  // four bytes at once (dst rows in 16-byte units)
        uint32_t word = 0;
#pragma unroll
        for (int e = 0; e < kPack; ++e) word |= uint32_t(tile[kPack * lane + e][col]) << (8 * int(sizeof(E)) * e);
        *reinterpret_cast<uint32_t*>(out) = word;
      } else {
        for (int e = 0; r + e < rows; ++e) out[e] = tile[kPack * lane + e][col];
      }
    }
    __syncthreads();
  }
}

// dst = src, rows x cols of 1-, 2- or 4-byte elements (copied as bits), each
// block kCopyColumns of a row at a time: a warp reads and writes 32
// neighbouring elements, whatever the source's alignment.
constexpr int kCopyPerThread = 4, kCopyColumns = kThreads * kCopyPerThread;
template <class Bits>
__global__ void __launch_bounds__(kThreads)
    realign_kernel(const Bits* __restrict__ src, int64_t rows, int64_t cols, int64_t ld, Bits* __restrict__ dst,
                   int64_t ldd, MatrixStrides batch) {
  src += blockIdx.z * batch.a, dst += blockIdx.z * batch.c;  // matrix z of a batch
  const int64_t c0 = int64_t(blockIdx.x) * kCopyColumns + threadIdx.x;
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    Bits v[kCopyPerThread];
#pragma unroll
    for (int e = 0; e < kCopyPerThread; ++e) {  // every load issued before the first store
      const int64_t c = c0 + e * kThreads;
      if (c < cols) v[e] = src[r * ld + c];
    }
#pragma unroll
    for (int e = 0; e < kCopyPerThread; ++e) {
      const int64_t c = c0 + e * kThreads;
      if (c < cols) dst[r * ldd + c] = v[e];
    }
  }
}

// `matrices` matrices of a batch, src_stride and dst_stride elements apart: on
// the grid's z dimension, kMaxGridZ at a time; launch(z, src, dst) launches z of them.
template <class Launch>
cudaError_t each_matrices(const void* src, void* dst, size_t element_bytes, int64_t matrices, int64_t src_stride,
                          int64_t dst_stride, Launch&& launch) {
  for (int64_t z0 = 0; z0 < matrices; z0 += device::kMaxGridZ) {
    const int64_t bytes = int64_t(element_bytes);
    if (cudaError_t err = launch(unsigned(std::min(device::kMaxGridZ, matrices - z0)),
                                 static_cast<const char*>(src) + z0 * src_stride * bytes,
                                 static_cast<char*>(dst) + z0 * dst_stride * bytes);
        err != cudaSuccess) {
      return err;
    }
  }
  return cudaSuccess;
}

cudaError_t launch_realign(const void* src, int64_t rows, int64_t cols, int64_t ld, void* dst, int64_t ldd,
                           size_t element_bytes, cudaStream_t stream, int64_t matrices, int64_t src_stride,
                           int64_t dst_stride) {
  const int64_t blocks = device::ceil_div(cols, int64_t(kCopyColumns));
  if (blocks > INT32_MAX) return cudaErrorInvalidValue;
  const MatrixStrides batch{src_stride, 0, dst_stride};
  return each_matrices(src, dst, element_bytes, matrices, src_stride, dst_stride, [&](unsigned z, const void* s, void* d) {
    const dim3 grid(unsigned(blocks), unsigned(std::min<int64_t>(rows, device::kMaxGridY)), z);
    auto go = [&](auto bits) {
      using Bits = decltype(bits);
      return device::launch(realign_kernel<Bits>, grid, kThreads, 0, stream, static_cast<const Bits*>(s), rows, cols,
                            ld, static_cast<Bits*>(d), ldd, batch);
    };
    return element_bytes == 1 ? go(uint8_t{}) : element_bytes == 2 ? go(uint16_t{}) : go(uint32_t{});
  });
}

}  // namespace

cudaError_t launch_transpose(const void* src, int64_t rows, int64_t cols, int64_t ld, void* dst, int64_t ldd,
                             size_t element_bytes, bool round_tf32, cudaStream_t stream, int64_t matrices,
                             int64_t src_stride, int64_t dst_stride) {
  const MatrixStrides batch{src_stride, 0, dst_stride};
  auto launch = [&](auto element, auto round, auto vec4) {
    using E = decltype(element);
    constexpr int kCols = decltype(vec4)::value ? 128 : 32;
    const int64_t tiles_c = device::ceil_div(cols, kCols);
    const int64_t tiles_r = device::ceil_div(rows, int64_t(kTile) * 4 / int64_t(sizeof(E)));
    if (tiles_c > INT32_MAX) return cudaErrorInvalidValue;
    return each_matrices(src, dst, element_bytes, matrices, src_stride, dst_stride, [&](unsigned z, const void* s, void* d) {
      const dim3 grid(unsigned(tiles_c), unsigned(std::min<int64_t>(tiles_r, device::kMaxGridY)), z);
      return device::launch(transpose_kernel<E, decltype(round)::value && sizeof(E) == 4, decltype(vec4)::value>, grid,
                            kThreads, 0, stream, static_cast<const E*>(s), rows, cols, ld, static_cast<E*>(d), ldd,
                            batch);
    });
  };
  // Vector loads where every matrix's rows are in 16-byte units.
  const bool vec4 = in_16_byte_units(src, ld, element_bytes) && (matrices == 1 || src_stride * int64_t(element_bytes) % 16 == 0);
  if (element_bytes == 1) {
    return device::with_bools(false, vec4, [&](auto round, auto v) { return launch(uint8_t{}, round, v); });
  }
  if (element_bytes == 2) {
    return device::with_bools(false, vec4, [&](auto round, auto v) { return launch(uint16_t{}, round, v); });
  }
  return device::with_bools(round_tf32, vec4, [&](auto round, auto v) { return launch(float{}, round, v); });
}

namespace {

// One operand as stored: rows x cols; A with op N is m x k, with op T k x m;
// B with op N is k x n, with op T n x k. Its copy of each of `matrices`
// matrices, in whole 256-byte units (0 bytes when not copied): transposed,
// cols rows of realigned_ld(rows) elements; realigned, rows of
// realigned_ld(cols). bytes: all of them.
struct Stored {
  int64_t rows, cols, matrices;
  size_t each, bytes;
};
enum class Copy { kNone, kFlip, kRealign };
Stored stored(Copy copy, bool outer_first, int64_t outer, int64_t k, size_t element_bytes, int64_t matrices) {
  const int64_t rows = outer_first ? outer : k, cols = outer_first ? k : outer;
  const size_t bytes = copy == Copy::kFlip      ? size_t(cols * realigned_ld(rows, element_bytes)) * element_bytes
                       : copy == Copy::kRealign ? size_t(rows * realigned_ld(cols, element_bytes)) * element_bytes
                                                : 0;
  const size_t each = (bytes + 255) / 256 * 256;
  return Stored{rows, cols, matrices, each, each * size_t(matrices)};
}
Copy copy_of(bool flip, bool realign) { return flip ? Copy::kFlip : realign ? Copy::kRealign : Copy::kNone; }
// The matrices of a batch an operand of `stride` has: one where it is shared.
int64_t matrices(const GemmArgs& a, int64_t stride) { return a.batch > 1 && stride != 0 ? a.batch : 1; }
Stored stored_a(const GemmArgs& a, Copy copy) {
  return stored(copy, a.opA == Op::N, a.m, a.k, size_of(a.precision.ab), matrices(a, a.stride_a));
}
Stored stored_b(const GemmArgs& a, Copy copy) {
  return stored(copy, a.opB == Op::T, a.n, a.k, size_of(a.precision.ab), matrices(a, a.stride_b));
}

}  // namespace

size_t operand_copy_bytes(const GemmArgs& args, bool flip_a, bool flip_b, bool realign_a, bool realign_b) {
  return stored_a(args, copy_of(flip_a, realign_a)).bytes + stored_b(args, copy_of(flip_b, realign_b)).bytes;
}

cudaError_t copy_operands(GemmArgs* args, const LaunchPlan& plan, cudaStream_t stream) {
  const Copy copy_a = copy_of(plan.copy_a, plan.realign_a), copy_b = copy_of(plan.copy_b, plan.realign_b);
  if (copy_a == Copy::kNone && copy_b == Copy::kNone) return cudaSuccess;
  const size_t element_bytes = size_of(args->precision.ab);
  const Stored a = stored_a(*args, copy_a), b = stored_b(*args, copy_b);
  void* ws = nullptr;
  if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kOperands, &ws); err != cudaSuccess) {
    return err;
  }
  auto copy = [&](Copy how, const Stored& s, const void*& ptr, int64_t& ld, int64_t& stride, Op& op, void* dst) {
    const int64_t each = int64_t(s.each / element_bytes);  // the copies' stride
    if (how == Copy::kRealign) {
      const int64_t ldd = realigned_ld(s.cols, element_bytes);
      const cudaError_t err =
          launch_realign(ptr, s.rows, s.cols, ld, dst, ldd, element_bytes, stream, s.matrices, stride, each);
      if (err == cudaSuccess) ptr = dst, ld = ldd, stride = s.matrices > 1 ? each : 0;
      return err;
    }
    const int64_t ldd = realigned_ld(s.rows, element_bytes);
    const cudaError_t err = launch_transpose(ptr, s.rows, s.cols, ld, dst, ldd, element_bytes, plan.round_tf32, stream,
                                             s.matrices, stride, each);
    if (err == cudaSuccess) ptr = dst, ld = ldd, stride = s.matrices > 1 ? each : 0, op = op == Op::N ? Op::T : Op::N;
    return err;
  };
  void* const b_copy = static_cast<char*>(ws) + a.bytes;
  if (copy_a != Copy::kNone) {
    if (cudaError_t err = copy(copy_a, a, args->A, args->lda, args->stride_a, args->opA, ws); err != cudaSuccess) {
      return err;
    }
  }
  return copy_b != Copy::kNone ? copy(copy_b, b, args->B, args->ldb, args->stride_b, args->opB, b_copy) : cudaSuccess;
}

}  // namespace tessel::impl
