// Internal: the launch functions of the kernels, one per kernel file.
// Each takes arguments the dispatcher has already validated (m, n, k > 0,
// alpha != 0, legal leading dimensions, device pointers) and returns the
// launch error, if any. The registry (src/dispatch/registry.cpp) lists them.
#pragma once

#include <tessel/tessel.hpp>

namespace tessel::impl {

using LaunchFn = cudaError_t (*)(const GemmArgs&, cudaStream_t);

// The FP32 (SIMT) kernels take the typed view of an f32 call.
using SimtLaunchFn = cudaError_t (*)(const SgemmArgs&, cudaStream_t);
inline SgemmArgs to_sgemm(const GemmArgs& a) {
  return {a.opA, a.opB, a.m, a.n, a.k, a.alpha, static_cast<const float*>(a.A), a.lda,
          static_cast<const float*>(a.B), a.ldb, a.beta, static_cast<float*>(a.C), a.ldc};
}
template <SimtLaunchFn F>
cudaError_t launch_simt(const GemmArgs& args, cudaStream_t stream) {
  return F(to_sgemm(args), stream);
}

cudaError_t launch_naive(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_coalesced(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_smem(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_blocktile_1d(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_blocktile_2d(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_vectorized(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_warptile(const SgemmArgs& args, cudaStream_t stream);
// Step 08 for the configurations in kernels/simt/configs.hpp (explicitly
// instantiated in 08_pipelined*.cu). Aligned = false takes any alignment
// (each operand that is not in 16-byte units is read element by element).
// The schedule hands out the work: kTiles, a block per tile; kSplitK, k
// also split across blocks that add into C atomically or, where C is not
// in 16-byte units, store into a workspace that launch_sum_parts adds into
// C; kStreamK (aligned only), the full waves' tiles a block each, then the
// remaining tiles' k-slices shared evenly by a block per SM slot
// (kernels/stream_k_plan.hpp).
enum class Schedule { kTiles, kSplitK, kStreamK };
template <class Cfg, bool Aligned, Schedule S>
cudaError_t launch_pipelined(const SgemmArgs& args, cudaStream_t stream);
// Aligned split-k on 64x64 tiles (pipelined_splitk): blocks of 2 warps, or
// of 4 where the 2-warp blocks would be few on each SM (configs.hpp,
// split_k_four_warps).
cudaError_t launch_pipelined_splitk_64x64(const SgemmArgs& args, cudaStream_t stream);
// Step 08's 128x256 configuration on Hopper (sm_90a; kernels/hopper/08_pipelined_tma.cu):
// k-slices fed by TMA, the last waves' tiles shared out by k-slices where
// kSimtTmaStreamK's plan says that pays (pipelined_128x256_streamk_tma).
cudaError_t launch_pipelined_tma_streamk(const SgemmArgs& args, cudaStream_t stream);

// Step 09 (09_wmma.cu): WMMA fragments; f16, bf16 and tf32 by args.precision.
// Aligned: cp.async copies (A, B 16-byte aligned); else element-wise, no alignment needs.
template <bool Aligned>
cudaError_t launch_wmma(const GemmArgs& args, cudaStream_t stream);
// Step 10 (10_mma.cu) for the configurations in kernels/tensor/configs.hpp:
// ldmatrix + mma.sync with a multistage cp.async pipeline, for inputs of
// type AB (kF32: tf32 compute); explicitly instantiated in 10_mma.cu.
template <class Cfg, DType AB>
cudaError_t launch_mma(const GemmArgs& args, cudaStream_t stream);

// Step 10 fed the Hopper way (kernels/hopper/10_mma_tma.cu, sm_90a only):
// the same mma.sync warps with a TMA producer, mbarrier ring and persistent
// grid, for f16 and bf16 inputs.
template <DType AB>
cudaError_t launch_mma_tma(const GemmArgs& args, cudaStream_t stream);

// Hopper steps 11-15 (kernels/hopper/, compiled for sm_90a only): TMA +
// wgmma for f16 and bf16 inputs; 11 one warpgroup, 12 producer and consumer
// warpgroups, 13 the same on a persistent grid, 14 in clusters of two that
// multicast B.
template <DType AB>
cudaError_t launch_tma_wgmma(const GemmArgs& args, cudaStream_t stream);
template <DType AB>
cudaError_t launch_warp_specialized(const GemmArgs& args, cudaStream_t stream);
template <DType AB>
cudaError_t launch_persistent(const GemmArgs& args, cudaStream_t stream);
template <class Cfg, DType AB>
cudaError_t launch_cluster(const GemmArgs& args, cudaStream_t stream);
// Step 15: step 14 with the last waves' k-slices shared by all clusters (stream-K).
template <class Cfg, DType AB>
cudaError_t launch_stream_k(const GemmArgs& args, cudaStream_t stream);

// C = beta * C over the m x n matrix of type c_type (beta == 0 writes zeros
// without reading C). The dispatcher's path for k == 0 or alpha == 0.
cudaError_t launch_scale(float beta, void* C, int64_t m, int64_t n, int64_t ldc, cudaStream_t stream,
                         DType c_type = DType::kF32);
// C = (sum of `count` m x n parts, part z at parts + z * part_stride with
// leading dimension ldp) + beta * C, FP32, summed in part order (beta == 0
// does not read C). Step 08's split-k with an unaligned C ends with it.
cudaError_t launch_sum_parts(const float* parts, int64_t count, int64_t part_stride, int64_t ldp, float beta, float* C,
                             int64_t m, int64_t n, int64_t ldc, cudaStream_t stream);

// dst (cols x rows, leading dimension ldd) = src (rows x cols, leading
// dimension ld) transposed, each value rounded to the nearest tf32 if
// round_tf32; FP32.
cudaError_t launch_transpose(const float* src, int64_t rows, int64_t cols, int64_t ld, float* dst, int64_t ldd,
                             bool round_tf32, cudaStream_t stream);

// The leading dimension of a transposed copy whose rows hold `values`
// values: rounded up to whole 16-byte units.
inline int64_t flipped_ld(int64_t values) { return (values + 3) / 4 * 4; }

// Points the call `*args` (FP32 operands) at copies of A (if flip_a) and B
// (if flip_b) stored the other way, with their ops flipped: each is copied
// transposed (launch_transpose, each value rounded to the nearest tf32 if
// round_tf32) into the stream's operand workspace (WorkspaceUse::kOperands),
// its rows 16-byte aligned (flipped_ld), on `stream` ahead of the GEMM that
// reads it. Step 08 flips the operands it would otherwise transpose through
// registers, the tf32 wgmma kernels those not stored K-major.
template <class Args>  // SgemmArgs or GemmArgs
cudaError_t flip_operands(Args* args, bool flip_a, bool flip_b, bool round_tf32, cudaStream_t stream);

}  // namespace tessel::impl
