// Internal: scratch memory for the kernels that exchange data between blocks
// (stream-K's partial sums and ready flags, split-k's parts) or read operands
// prepared for them (transposed or K-major copies). A call uses the caller's
// workspace when it gives one (GemmArgs::workspace, carved by use as the plan
// lays it out), otherwise tessel's own buffers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/launch_plan.hpp"

namespace tessel::impl {

// The region for `use` of the plan's call (plan.bytes_for(use) bytes): in the
// caller's workspace, or in tessel's buffer for (context, stream, use) — and
// host thread where the stream is cudaStreamPerThread or the use is written by
// one launch and read by the next (two threads issuing to one stream could
// interleave). Own buffers are zero-filled when allocated and never freed or
// reused for other data while work may use them: a larger one replaces a
// buffer and the old one is kept until release_workspaces(). Kernels must
// leave the flags as they found them (zero). Own buffers are never used while
// the stream is being captured: dispatch asks for the caller's workspace then.
cudaError_t plan_workspace(const LaunchPlan& plan, cudaStream_t stream, WorkspaceUse use, void** buffer);

// The plan's stream-K schedule with its flags and partial sums; in the
// caller's workspace the flags are zeroed first.
cudaError_t stream_k_work(const LaunchPlan& plan, cudaStream_t stream, StreamKWork* sk);

// Split-k on the tensor-core kernels: *out is the call a kernel runs for
// the plan's parts (C: the parts in the workspace, FP32, plan.part_rows rows
// each, beta = 0; alpha stays in the parts), or the call itself without
// parts; sum_split_parts then adds the parts in a fixed order into the call's C
// (after_trigger: as launch_sum_parts).
cudaError_t split_parts_output(const GemmArgs& call, const LaunchPlan& plan, cudaStream_t stream, GemmArgs* out);
cudaError_t sum_split_parts(const GemmArgs& call, const LaunchPlan& plan, const GemmArgs& out, cudaStream_t stream,
                            bool after_trigger = false);

// The plan's flags (stream-K's ready flags, or the arrival counts of split-k
// summed in the kernel): zero; in the caller's workspace zeroed first.
cudaError_t arrival_flags(const LaunchPlan& plan, cudaStream_t stream, int** flags);

// The two around a grid launcher (steps 09, 10, 16 FP32): launch(out, part, rows)
// with `rows` block rows, one per part of k (1: the call itself), then the sum.
template <class Launch>
cudaError_t with_split_parts(const GemmArgs& call, const LaunchPlan& plan, cudaStream_t stream, Launch&& launch) {
  GemmArgs out;
  if (cudaError_t err = split_parts_output(call, plan, stream, &out); err != cudaSuccess) return err;
  const KPart part{plan.k_per_split, plan.part_rows * out.ldc};
  if (cudaError_t err = launch(out, part, unsigned(plan.splits > 1 ? plan.splits : 1)); err != cudaSuccess) return err;
  return sum_split_parts(call, plan, out, stream);
}

// Frees every own buffer, each device synchronised first.
cudaError_t release_own_workspaces();

}  // namespace tessel::impl
