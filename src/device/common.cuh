// Small pieces every SIMT kernel shares: op-aware element access, the
// alpha/beta epilogue, the choice among the four op instantiations, and the
// split of launches whose grid would pass CUDA's 65535 limit on gridDim.y.
#pragma once

#include <tessel/tessel.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

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

// C(i, j..j+3) = alpha * acc + beta * C(i, j..j+3) for the columns inside n;
// one 16-byte access when all four are inside and their address allows it
// (always with Aligned: C 16-byte aligned and ldc a multiple of 4, the
// registry's alignment = 4).
template <bool Aligned = true>
__device__ __forceinline__ void store_row4(const SgemmArgs& p, int64_t i, int64_t j, float4 acc) {
  if (i >= p.m) return;
  float* c = p.C + i * p.ldc + j;
  if ((Aligned || reinterpret_cast<uintptr_t>(c) % 16 == 0) && j + 4 <= p.n) {
    float4 out = make_float4(p.alpha * acc.x, p.alpha * acc.y, p.alpha * acc.z, p.alpha * acc.w);
    if (p.beta != 0.0f) {
      const float4 old = *reinterpret_cast<const float4*>(c);
      out = make_float4(out.x + p.beta * old.x, out.y + p.beta * old.y, out.z + p.beta * old.z, out.w + p.beta * old.w);
    }
    *reinterpret_cast<float4*>(c) = out;
  } else {
    const float a[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (j + e < p.n) store_result(p.C, p.ldc, i, j + e, a[e], p.alpha, p.beta);
    }
  }
}

// C[i][j..j+3] += alpha * acc, atomically (split-k: the parts of k add up
// in C), for the columns inside C. On sm_90 and later, when all four are
// inside, as few vector atomics as the address allows: one 16-byte add
// (always, with Aligned), two 8-byte adds, or 4 + 8 + 4 bytes.
template <bool Aligned = true>
__device__ __forceinline__ void add_row4(const SgemmArgs& p, int64_t i, int64_t j, float4 acc) {
  if (i >= p.m) return;
  float* c = p.C + i * p.ldc + j;
  const float4 v = make_float4(p.alpha * acc.x, p.alpha * acc.y, p.alpha * acc.z, p.alpha * acc.w);
#if __CUDA_ARCH__ >= 900
  if (j + 4 <= p.n) {
    const auto at = reinterpret_cast<uintptr_t>(c);
    if (Aligned || at % 16 == 0) {
      atomicAdd(reinterpret_cast<float4*>(c), v);
    } else if (at % 8 == 0) {
      atomicAdd(reinterpret_cast<float2*>(c), make_float2(v.x, v.y));
      atomicAdd(reinterpret_cast<float2*>(c + 2), make_float2(v.z, v.w));
    } else {
      atomicAdd(c, v.x);
      atomicAdd(reinterpret_cast<float2*>(c + 1), make_float2(v.y, v.z));
      atomicAdd(c + 3, v.w);
    }
    return;
  }
#endif
  const float a[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    if (j + e < p.n) atomicAdd(c + e, a[e]);
  }
}

// dst[0..3] = src[0..3] as one 16-byte shared-memory load (src 16-byte aligned).
__device__ __forceinline__ void lds4(float* dst, const float* src) {
  const float4 v = *reinterpret_cast<const float4*>(src);
  dst[0] = v.x, dst[1] = v.y, dst[2] = v.z, dst[3] = v.w;
}

// Results c..c+3 of row r of a thread's tile of sums, as one float4 (for
// 16-byte stores), and the other way: v added to them.
template <int TM, int TN>
__device__ __forceinline__ float4 get4(const float (&acc)[TM][TN], int r, int c) {
  return make_float4(acc[r][c], acc[r][c + 1], acc[r][c + 2], acc[r][c + 3]);
}
template <int TM, int TN>
__device__ __forceinline__ void add4(float (&acc)[TM][TN], int r, int c, float4 v) {
  acc[r][c] += v.x, acc[r][c + 1] += v.y, acc[r][c + 2] += v.z, acc[r][c + 3] += v.w;
}

// Block order for L2 reuse: consecutive blocks walk down a group of `Group`
// block-rows before moving one block-column right, so the blocks running
// at the same time share a few panels of A and of B instead of one panel
// of A and all of B.
// grouped_tile maps a linear block id over tiles_m x tiles_n tiles;
// swizzled_block does it for the 2D grid (gridDim.y x gridDim.x tiles).
template <int Group>
__device__ __forceinline__ void grouped_tile(int id, int tiles_m, int tiles_n, int& bm, int& bn) {
  const int per_group = Group * tiles_n;
  const int first_m = id / per_group * Group;
  const int rows = min(Group, tiles_m - first_m);
  bm = first_m + id % per_group % rows;
  bn = id % per_group / rows;
}

template <int Group>
__device__ __forceinline__ void swizzled_block(int& bm, int& bn) {
  grouped_tile<Group>(blockIdx.y * gridDim.x + blockIdx.x, gridDim.y, gridDim.x, bm, bn);
}

template <bool B>
using Bool = std::integral_constant<bool, B>;

// Calls launch(Bool<a>{}, Bool<b>{}): one template instantiation per pair of runtime flags.
template <class F>
cudaError_t with_bools(bool a, bool b, F&& launch) {
  if (a) return b ? launch(Bool<true>{}, Bool<true>{}) : launch(Bool<true>{}, Bool<false>{});
  return b ? launch(Bool<false>{}, Bool<true>{}) : launch(Bool<false>{}, Bool<false>{});
}

// Calls launch(Bool<opA == T>, Bool<opB == T>): one template instantiation per op pair.
template <class F>
cudaError_t with_ops(Op opA, Op opB, F&& launch) {
  return with_bools(opA == Op::T, opB == Op::T, launch);
}

// Enqueues kernel<<<grid, block, smem, stream>>>(args...) and returns this
// launch's own error, never one the caller left pending (cudaGetLastError
// would return that); a failed launch leaves no error pending behind it.
// after_trigger (compute capability 9.0): programmatic dependent launch, the
// kernel may start before the one before it on the stream has finished, once
// that one lets it (griddepcontrol.launch_dependents); it must call
// wait_for_prior_grid before it reads what that one wrote.
template <class... Params, class... Args>
cudaError_t launch_after(bool after_trigger, void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                         cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid, config.blockDim = block, config.dynamicSmemBytes = smem, config.stream = stream;
  config.attrs = &attr, config.numAttrs = after_trigger ? 1 : 0;
  const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (err != cudaSuccess) cudaGetLastError();
  return err;
}
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                   Args&&... args) {
  return launch_after(false, kernel, grid, block, smem, stream, std::forward<Args>(args)...);
}

// Waits until the kernel before this one on the stream has finished and its
// writes are visible (a no-op unless launched after its trigger).
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// base advanced by the bytes that `offset` holds as an address (a pointer
// made from a null base: a pointer-array batch's offsets into its matrices).
template <class T>
__device__ __forceinline__ T* offset_from(const void* base, T* offset) {
  return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(base) + reinterpret_cast<uintptr_t>(offset));
}

constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kMaxGridZ = 65535;

__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

// The launcher most kernels share: one instantiation per op pair, row
// tiles on gridDim.y (split as above), column tiles on gridDim.x.
// enqueue(Bool<opA == T>, Bool<opB == T>, grid, sub-problem) launches the kernel and returns its error.
template <class F>
cudaError_t launch_tiled(const SgemmArgs& args, int64_t tile_m, int64_t tile_n, F&& enqueue) {
  return with_ops(args.opA, args.opB, [&](auto ta, auto tb) {
    return split_rows(args, tile_m, [&](const SgemmArgs& p) {
      return enqueue(ta, tb, dim3(unsigned(ceil_div(p.n, tile_n)), unsigned(ceil_div(p.m, tile_m))), p);
    });
  });
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
