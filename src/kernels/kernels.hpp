// Internal: the launch functions of the kernels, one per kernel file.
// Each takes arguments the dispatcher has already validated (m, n, k > 0,
// alpha != 0, legal leading dimensions, device pointers) and the plan it
// made (launch_plan.hpp), and returns the launch error, if any. The
// registry (src/dispatch/registry.cpp) lists them.
#pragma once

#include <tessel/tessel.hpp>

#include "kernels/launch_plan.hpp"

namespace tessel::impl {

// The FP32 (SIMT) kernels take the typed view of an f32 call.
inline SgemmArgs to_sgemm(const GemmArgs& a) {
  return {a.opA, a.opB, a.m, a.n, a.k, a.alpha, static_cast<const float*>(a.A), a.lda,
          static_cast<const float*>(a.B), a.ldb, a.beta, static_cast<float*>(a.C), a.ldc};
}
// Steps 01-07 need no plan: one block per tile.
using SimtLaunchFn = cudaError_t (*)(const SgemmArgs&, cudaStream_t);
template <SimtLaunchFn F>
cudaError_t launch_simt(const GemmArgs& args, const LaunchPlan&, cudaStream_t stream) {
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
// also cut into plan.splits parts whose blocks add into C atomically or
// store into the workspace (plan.parts_to_workspace) that launch_sum_parts
// adds into C; kStreamK (aligned only), the plan's whole tiles a block each,
// then the remaining tiles' k-slices shared evenly by a block per SM slot.
enum class Schedule { kTiles, kSplitK, kStreamK };
template <class Cfg, bool Aligned, Schedule S>
cudaError_t launch_pipelined(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
// Step 08's 128x256 configuration on Hopper (sm_90a; kernels/simt/08_pipelined_tma.cu):
// k-slices fed by TMA, stream-K on that loop (pipelined_128x256_streamk_tma).
cudaError_t launch_pipelined_tma_streamk(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);

// Step 09 (09_wmma.cu): WMMA fragments; f16, bf16 and tf32 by args.precision.
// Aligned: cp.async copies (A, B 16-byte aligned); else element-wise, no alignment needs.
template <bool Aligned>
cudaError_t launch_wmma(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
// Step 10 (10_mma.cu) for the configurations in kernels/tensor/configs.hpp:
// ldmatrix + mma.sync with a multistage cp.async pipeline, for inputs of
// type AB (kF32: tf32 compute); explicitly instantiated in 10_mma.cu.
template <class Cfg, DType AB>
cudaError_t launch_mma(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);

// Step 10 fed the Hopper way (kernels/tensor/10_mma_tma.cu, sm_90a only):
// the same mma.sync warps with a TMA producer, mbarrier ring and persistent
// grid, for f16 and bf16 inputs.
template <DType AB>
cudaError_t launch_mma_tma(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);

// Hopper steps 11-15 (kernels/hopper/, compiled for sm_90a only): TMA +
// wgmma for f16 and bf16 inputs; 11 one warpgroup, 12 producer and consumer
// warpgroups, 13 the same on a persistent grid, 14 in clusters of two that
// multicast B.
template <DType AB>
cudaError_t launch_tma_wgmma(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
template <DType AB>
cudaError_t launch_warp_specialized(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
template <DType AB>
cudaError_t launch_persistent(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
// BB: B's type where it differs from A's (FP8 only).
template <class Cfg, DType AB, DType BB = AB>
cudaError_t launch_cluster(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
// Step 15: step 14 with the last waves' k-slices shared by all clusters (stream-K).
template <class Cfg, DType AB>
cudaError_t launch_stream_k(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
// Step 16 on Hopper: step 14's kernel on the swapped call (Cᵀ = Bᵀ·Aᵀ), few rows of C as narrow tiles'
// columns, k split into parts; A with op N.
template <class Cfg, DType AB>
cudaError_t launch_swapped(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);

// The persistent kernels' clusters (single blocks for steps 10 and 13) that
// the GPU runs at once; 0 where none fits. Dispatch plans their grids on it.
using ResidentFn = cudaError_t (*)(int* clusters);
template <DType AB>
cudaError_t resident_mma_tma(int* blocks);
template <DType AB>
cudaError_t resident_persistent(int* blocks);
template <class Cfg, DType AB, DType BB = AB>
cudaError_t resident_cluster(int* clusters);
template <class Cfg, DType AB>
cudaError_t resident_stream_k(int* clusters);

// Step 16: small m (C of at most kSmallMMaxM rows), B streamed once; f32, f16, bf16 inputs.
// A block is kSmallMThreads threads; it takes kSmallMColumnsT columns of C
// with B op T, and 32 16-byte runs of columns with op N (small_m_columns_n,
// its warps splitting k); k is staged kSmallMChunkK at a time (split-k parts
// are whole chunks).
constexpr int kSmallMMaxM = 16;
constexpr int kSmallMThreads = 256;
constexpr int kSmallMColumnsT = 32;
constexpr int kSmallMChunkK = 512;
constexpr int64_t small_m_columns_n(size_t bytes) { return int64_t(32 * 16 / bytes); }
template <DType AB>
cudaError_t launch_small_m(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);
// The blocks one SM holds at once of the step 16 kernel a call with m rows and B with op op_b launches
// (vec: B's rows in 16-byte units; arrive: the kernel whose last part to arrive sums split-k's parts).
using SmallMResidentFn = cudaError_t (*)(Op op_b, int64_t m, bool vec, bool arrive, int* blocks);
template <DType AB>
cudaError_t resident_small_m(Op op_b, int64_t m, bool vec, bool arrive, int* blocks);
// Step 16 on tensor cores (16-bit inputs, and FP32 read as tf32): a block of
// kSmallMmaWarps warps, each taking small_mma_columns(kSmallMmaWarps, op B, m,
// element bytes) columns of C (16 with B op T; with op N 16 per value of B a
// lane loads from a row, small_mma_run) and small_mma_unroll k-steps' loads at
// a time (half as many where rows not in 16-byte units are loaded in pairs); the plan splits k among LaunchPlan::k_groups of a block's warps (the
// others take more columns) and, where blocks are few, across blocks in parts
// of whole kSmallMmaSliceK.
constexpr int kSmallMmaWarps = 8;
constexpr int kSmallMmaBlocksPerSm = 2;  // the plan fills this many an SM
// Blocks an SM holds (compiled to fit): B with op T at m <= 8 keeps 64 registers for 4.
constexpr int small_mma_resident(int64_t m, Op op_b) { return op_b == Op::T && m <= 8 ? 4 : kSmallMmaBlocksPerSm; }
constexpr int kSmallMmaSliceK = 256;
// k of one step: with op T a lane's 16 bytes of a row at each of 4 lanes; with op N 4 rows at each.
constexpr int small_mma_step_k(Op op_b, size_t bytes) { return op_b == Op::T ? int(64 / bytes) : 16; }
constexpr int small_mma_unroll(int64_t m, Op op_b) { return op_b == Op::N ? (m <= 8 ? 1 : 2) : m <= 8 ? 2 : 4; }
// B with op N: values a lane loads from a row of B at a time (16 bytes at m <= 8;
// 8 at m <= 16, where the accumulators of 16 would not fit beside the loads).
constexpr int small_mma_run(int64_t m, size_t bytes) { return int((m <= 8 ? 16 : 8) / bytes); }
// Columns of C a block takes: a warp's for each group of warps along n.
constexpr int64_t small_mma_columns(int k_groups, Op op_b, int64_t m, size_t bytes) {
  return int64_t(kSmallMmaWarps / k_groups) * (op_b == Op::T ? 16 : 16 * small_mma_run(m, bytes));
}
template <DType AB>
cudaError_t launch_small_m_mma(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);

// Step 18: shallow k (kernels/shallow/18_shallow_k.cu), f32, f16 and bf16 inputs, any op and
// alignment, one matrix: each lane of a block's kShallowWarps warps stores 16 bytes of a row
// of C and keeps kShallowLaneValues sums (its rows times its columns); k is staged
// kShallowChunkK values at a time; FP32 multiply-adds.
constexpr int kShallowWarps = 8;
constexpr int kShallowLaneValues = 32;
constexpr int kShallowChunkK = 16;
constexpr int kShallowBlocksPerSm = 2;  // compiled to fit; the plan's grid (LaunchPlan::clusters) fills them
constexpr int shallow_columns(size_t c_bytes) { return 32 * int(16 / c_bytes); }
constexpr int shallow_rows(size_t c_bytes) { return kShallowWarps * kShallowLaneValues / int(16 / c_bytes); }
cudaError_t launch_shallow_k(const GemmArgs& args, const LaunchPlan& plan, cudaStream_t stream);

// The rows of C a grouped GEMM writes (GemmArgs::group_offsets, non-decreasing:
// rows offsets[0] .. offsets[groups] - 1, clamped to 0..m; or group_counts:
// row i if i % capacity < counts[i / capacity], clamped); neither: every row.
struct GroupedRows {
  const int64_t* offsets = nullptr;
  const int64_t* counts = nullptr;
  int64_t groups = 0, capacity = 0;
};

// The `count` matrices of C known on the device only: a pointer-array
// batch's (c_array; each m x n with the call's ldc), or problems' (each its
// own C, sizes clamped to m x n, and ldc).
struct DeviceMatrices {
  void* const* c_array = nullptr;
  const GemmProblem* problems = nullptr;
};

// C = beta * C over the m x n matrix of type c_type (beta == 0 writes zeros
// without reading C), over a grouped GEMM's rows only; over `matrices`
// instead where they are given. The dispatcher's path for k == 0 or alpha == 0.
cudaError_t launch_scale(float beta, void* C, int64_t m, int64_t n, int64_t ldc, cudaStream_t stream,
                         DType c_type = DType::kF32, GroupedRows rows = {}, DeviceMatrices matrices = {},
                         int64_t count = 1);
// C = (sum of `count` m x n FP32 parts, part z at parts + z * part_stride
// with leading dimension ldp) + beta * C, summed in a fixed order and rounded
// once to c_type (beta == 0 does not read C). Split-k's parts end with it.
// after_trigger: launched as soon as the kernel that wrote the parts lets it (device::launch_after).
cudaError_t launch_sum_parts(const float* parts, int64_t count, int64_t part_stride, int64_t ldp, float beta, void* C,
                             int64_t m, int64_t n, int64_t ldc, cudaStream_t stream, DType c_type = DType::kF32,
                             bool after_trigger = false);

// C = act(row_scale * col_scale * X + beta * C + bias) over m x n, rounded once to c_type
// (the epilogue's terms: tessel::Epilogue); X: the FP32 product, leading dimension ldx,
// or null for a product of 0. beta == 0 does not read C.
cudaError_t launch_epilogue(const float* x, int64_t ldx, float beta, void* C, int64_t m, int64_t n, int64_t ldc,
                            DType c_type, const Epilogue& epilogue, cudaStream_t stream);

// dst (cols x rows, leading dimension ldd) = src (rows x cols, leading
// dimension ld) transposed; elements of 4 bytes (FP32, each rounded to the
// nearest tf32 if round_tf32), 2 (f16, bf16) or 1 byte (FP8); for `matrices` such matrices
// of a batch, src_stride and dst_stride elements apart.
cudaError_t launch_transpose(const void* src, int64_t rows, int64_t cols, int64_t ld, void* dst, int64_t ldd,
                             size_t element_bytes, bool round_tf32, cudaStream_t stream, int64_t matrices = 1,
                             int64_t src_stride = 0, int64_t dst_stride = 0);

// The bytes of the workspace that copy_operands uses for a plan's copies.
size_t operand_copy_bytes(const GemmArgs& args, bool flip_a, bool flip_b, bool realign_a, bool realign_b);

// Points the call `*args` at the copies of A and B its plan makes, on
// `stream` ahead of the GEMM that reads them, in the stream's operand
// workspace (WorkspaceUse::kOperands, plan.operand_bytes): where plan.copy_a
// (copy_b) says so, copied transposed (launch_transpose, rounded
// to tf32 if plan.round_tf32) with its op flipped; where plan.realign_a
// (realign_b) says so, copied as it is with its rows in 16-byte units
// (realigned_ld). Either way the copy starts on a 256-byte boundary. A
// strided batch's operand is copied matrix by matrix (once where its stride
// is 0), its stride then the copies'.
cudaError_t copy_operands(GemmArgs* args, const LaunchPlan& plan, cudaStream_t stream);

}  // namespace tessel::impl
