// Step 18: shallow k (an outer product): C = alpha A op(B) + beta C with k of a few values.
//
// With k of a few values, each element of C costs 2k flops and one store:
// the call is bound by how fast C is written (a weight gradient over a few
// tokens: m x n = the weight, k = the tokens), and a tensor-core tile spends
// its time loading a k-slice padded to 64 and in its epilogue, with one
// block an SM. Here the stores are kept in flight:
//  - each lane stores 16 bytes of a row of C (4 FP32 or 8 16-bit values), a
//    warp 512 bytes, and keeps kShallowLaneValues sums: a block of
//    kShallowWarps warps takes 64 x 128 values of FP32 C, 32 x 256 of 16-bit C;
//  - the tile's rows of A and columns of B are staged in shared memory as
//    FP32, kShallowChunkK values of k at a time (any op, any alignment:
//    element by element);
//  - kShallowBlocksPerSm blocks an SM walk the tiles, each issuing the next
//    chunk's loads (of its tile, or of its next tile) before this chunk's
//    multiply-adds and the tile's stores, so that their latency hides;
//  - FP32 multiply-adds for every input type (tf32 calls are computed in
//    FP32), rounded once to C's type; where C's rows are not in 16-byte
//    units, element by element.
#include <algorithm>

#include "device/common.cuh"
#include "device/mma.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

constexpr int kThreads = kShallowWarps * 32;
constexpr int kChunk = kShallowChunkK;
static_assert(kChunk % 4 == 0, "the multiply-adds take k four values at a time");

// The tile of a block for C of type Out: a lane's kV columns of kRowsPerWarp rows.
template <class Out>
struct Tile {
  static constexpr int kV = 16 / int(sizeof(Out));
  static constexpr int kRowsPerWarp = kShallowLaneValues / kV;
  static constexpr int kRows = shallow_rows(sizeof(Out)), kColumns = shallow_columns(sizeof(Out));
  static_assert(kRows == kShallowWarps * kRowsPerWarp && kColumns == 32 * kV, "one tile, two spellings");
  static constexpr int kAPerThread = kRows * kChunk / kThreads, kBPerThread = kChunk * kColumns / kThreads;
};

// The values of one operand a thread stages: its t-th is row (A) or column (B) mn0 + t * dmn of the
// tile and k q0 + t * dq of the chunk, `step` * t elements past its first. Neighbouring threads take
// neighbouring addresses: along k where the operand is stored with k contiguous (k_inner).
struct Slots {
  int mn0, q0, dmn, dq;
  int64_t step;
};
template <int kExtent>
__device__ __forceinline__ Slots slots(bool k_inner, int64_t ld) {
  const int idx = threadIdx.x;
  constexpr int kAlongK = kThreads / kChunk, kAlongMn = kThreads / kExtent;  // what one step of t covers
  if (k_inner) return {idx / kChunk, idx % kChunk, kAlongK, 0, kAlongK * ld};
  return {idx % kExtent, idx / kExtent, 0, kAlongMn, kAlongMn * ld};
}

// 16 bytes of C at `at` (kV values) to FP32, and back, rounded to Out.
template <class Out, int kV>
__device__ __forceinline__ void load_row16(const Out* at, float (&v)[kV]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(at);
  const Out* e = reinterpret_cast<const Out*>(&raw);
#pragma unroll
  for (int i = 0; i < kV; ++i) v[i] = device::to_float(e[i]);
}
template <class Out, int kV>
__device__ __forceinline__ void store_row16(Out* at, const float (&v)[kV]) {
  uint4 raw;
  Out* e = reinterpret_cast<Out*>(&raw);
#pragma unroll
  for (int i = 0; i < kV; ++i) e[i] = device::from_float<Out>(v[i]);
  *reinterpret_cast<uint4*>(at) = raw;
}

// A lane's results: rows i0 .. i0 + kRowsPerWarp - 1, columns j .. j + kV - 1 (those inside C).
template <class Out, class P, int kRowsPerWarp, int kV>
__device__ __forceinline__ void store_tile(const P& p, int64_t i0, int64_t j, const float (&acc)[kRowsPerWarp][kV],
                                           bool c_rows16) {
  if (j >= p.n) return;
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int64_t i = i0 + r;
    if (i >= p.m) break;
    Out* at = static_cast<Out*>(p.C) + i * p.ldc + j;
    if (c_rows16 && j + kV <= p.n) {
      float v[kV] = {};
      if (p.beta != 0.0f) load_row16(at, v);
#pragma unroll
      for (int e = 0; e < kV; ++e) v[e] = p.beta == 0.0f ? p.alpha * acc[r][e] : p.alpha * acc[r][e] + p.beta * v[e];
      store_row16(at, v);
    } else {
      for (int e = 0; e < kV && j + e < p.n; ++e) {
        const float old = p.beta == 0.0f ? 0.0f : device::to_float(at[e]);
        at[e] = device::from_float<Out>(p.beta == 0.0f ? p.alpha * acc[r][e] : p.alpha * acc[r][e] + p.beta * old);
      }
    }
  }
}

// Block b walks the tiles b, b + gridDim.x, ... (tile t: row tile t / tiles_n, column tile t % tiles_n),
// each chunk of k by chunk: the next chunk's loads (of this tile or the block's next) are issued before
// this one's multiply-adds and the tile's stores, so that their latency hides behind them.
// c_rows16: C and ldc allow 16-byte stores at every lane's first column.
template <class T, class Out>
__global__ void __launch_bounds__(kThreads, kShallowBlocksPerSm)
    shallow_k_kernel(device::TcParams<T> p, int64_t tiles_n, int64_t tiles, bool a_t, bool b_t, bool c_rows16) {
  using Tl = Tile<Out>;
  constexpr int kV = Tl::kV, kRowsPerWarp = Tl::kRowsPerWarp;
  // Rows padded by 4 values: the staging stores spread over the banks, float4 reads stay aligned.
  __shared__ __align__(16) float sa[Tl::kRows][kChunk + 4];
  __shared__ __align__(16) float sb[kChunk][Tl::kColumns + 4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = warp * kRowsPerWarp, c0 = lane * kV;
  const Slots as = slots<Tl::kRows>(!a_t, p.lda), bs = slots<Tl::kColumns>(b_t, p.ldb);
  float av[Tl::kAPerThread], bv[Tl::kBPerThread];
  auto load = [&](int64_t tile, int64_t kc) {
    const int64_t row0 = tile / tiles_n * Tl::kRows, col0 = tile % tiles_n * Tl::kColumns;
    const int depth = int(p.k - kc < kChunk ? p.k - kc : kChunk);
    const T* pa = p.A + (a_t ? (kc + as.q0) * p.lda + row0 + as.mn0 : (row0 + as.mn0) * p.lda + kc + as.q0);
    const T* pb = p.B + (b_t ? (col0 + bs.mn0) * p.ldb + kc + bs.q0 : (kc + bs.q0) * p.ldb + col0 + bs.mn0);
#pragma unroll
    for (int t = 0; t < Tl::kAPerThread; ++t) {
      const bool in = row0 + as.mn0 + t * as.dmn < p.m && as.q0 + t * as.dq < depth;
      av[t] = in ? device::to_float(pa[t * as.step]) : 0.0f;
    }
#pragma unroll
    for (int t = 0; t < Tl::kBPerThread; ++t) {
      const bool in = col0 + bs.mn0 + t * bs.dmn < p.n && bs.q0 + t * bs.dq < depth;
      bv[t] = in ? device::to_float(pb[t * bs.step]) : 0.0f;
    }
  };
  float acc[kRowsPerWarp][kV] = {};
  int64_t tile = blockIdx.x, kc = 0;
  if (tile < tiles) load(tile, kc);
  while (tile < tiles) {
    const int depth = int(p.k - kc < kChunk ? p.k - kc : kChunk);
    __syncthreads();  // the previous chunk is no longer read
#pragma unroll
    for (int t = 0; t < Tl::kAPerThread; ++t) sa[as.mn0 + t * as.dmn][as.q0 + t * as.dq] = av[t];
#pragma unroll
    for (int t = 0; t < Tl::kBPerThread; ++t) sb[bs.q0 + t * bs.dq][bs.mn0 + t * bs.dmn] = bv[t];
    __syncthreads();
    const int64_t this_tile = tile;
    kc += kChunk;
    if (kc >= p.k) tile += gridDim.x, kc = 0;
    if (tile < tiles) load(tile, kc);
#pragma unroll 1
    for (int q = 0; q < depth; q += 4) {  // past depth the staged values are zeros
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        float b[kV];
#pragma unroll
        for (int e = 0; e < kV; e += 4) {
          const float4 four = *reinterpret_cast<const float4*>(&sb[q + s][c0 + e]);
          b[e] = four.x, b[e + 1] = four.y, b[e + 2] = four.z, b[e + 3] = four.w;
        }
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) {
          const float a = sa[r0 + r][q + s];  // one address for the warp
#pragma unroll
          for (int e = 0; e < kV; ++e) acc[r][e] = fmaf(a, b[e], acc[r][e]);
        }
      }
    }
    if (kc == 0) {  // the tile's last chunk: its results out, the sums cleared
      store_tile<Out>(p, this_tile / tiles_n * Tl::kRows + r0, this_tile % tiles_n * Tl::kColumns + c0, acc, c_rows16);
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r)
#pragma unroll
        for (int e = 0; e < kV; ++e) acc[r][e] = 0.0f;
    }
  }
}

template <class T, class Out>
cudaError_t launch_typed(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using Tl = Tile<Out>;
  const device::TcParams<T> p = device::tc_params<T>(a);
  const int64_t tiles_n = device::ceil_div(a.n, Tl::kColumns);
  const int64_t tiles = device::ceil_div(a.m, Tl::kRows) * tiles_n;
  const bool c_rows16 = a.ldc % Tl::kV == 0 && reinterpret_cast<uintptr_t>(a.C) % 16 == 0;
  const bool a_t = a.opA == Op::T, b_t = a.opB == Op::T;
  const int64_t most = std::min<int64_t>(tiles, INT32_MAX);  // a 1D grid's limit
  const int64_t grid = plan.clusters > 0 ? std::min<int64_t>(most, plan.clusters) : most;
  return device::launch(shallow_k_kernel<T, Out>, dim3(unsigned(grid)), kThreads, 0, stream, p, tiles_n, tiles, a_t,
                        b_t, c_rows16);
}

template <class T>
cudaError_t launch_for_c(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  if constexpr (sizeof(T) == 2) {
    if (a.precision.c == a.precision.ab) return launch_typed<T, T>(a, plan, stream);
  }
  return launch_typed<T, float>(a, plan, stream);  // C is FP32 (validated)
}

}  // namespace

cudaError_t launch_shallow_k(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  if (a.batch > 1 || grouped(a) || device_matrices(a)) return cudaErrorInvalidValue;
  if (is_fp8(a.precision.ab)) return cudaErrorInvalidValue;
  return device::with_type(a.precision.ab, [&](auto t) { return launch_for_c<decltype(t)>(a, plan, stream); });
}

}  // namespace tessel::impl
