// Internal: scratch memory in device memory for kernels that exchange data
// between blocks (step 15's stream-K partial sums and ready flags) or read
// operands prepared for them (tf32 operands copied K-major).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/launch_plan.hpp"

namespace tessel::impl {

// A buffer of at least `bytes` on the current device for kernels ordered on
// `stream`, zero-filled when first handed out (and whenever it grows).
// Kernels that use it must leave it as they found it where it matters (the
// flags are reset by their readers), since the next call on the stream gets
// the same buffer. One buffer per (device, stream, use), and
// per host thread for cudaStreamPerThread (a different stream in each
// thread) and for operand copies (written by one launch and read by the
// next, so calls from two threads on one stream, which may interleave,
// must not share one); kept for the life of the process. Growing one frees the old after
// cudaFree's implicit device synchronisation, so a kernel still using it is
// done first. Not usable while the stream is being captured into a graph the
// first time a size is needed (cudaMalloc is not capturable).
// `use` keeps the users apart. kFlags: counters and ready flags, zero
// between calls (every kernel resets what it raised). kPartials: partial
// sums handed between the blocks of one launch (stream-K).
// They are separate buffers because a call with more flags than the last
// one would otherwise take the last one's partial sums for raised flags.
// kOperands: operand copies, and kSplitParts: split-k parts (step 08 with an
// unaligned C), each written by one launch and read by the next.
enum class WorkspaceUse { kFlags, kPartials, kOperands, kSplitParts };
cudaError_t stream_workspace(cudaStream_t stream, size_t bytes, void** buffer, WorkspaceUse use);

// The stream-K kernels' workspace: `slots` ready flags (use kFlags), and
// `slots` slots of `slot_floats` partial sums each (use kPartials).
cudaError_t stream_k_workspace(cudaStream_t stream, int64_t slots, int64_t slot_floats, int** flags, float** partials);

// The plan's stream-K schedule with its workspace (plan.stream_k_slots slots).
cudaError_t stream_k_work(const LaunchPlan& plan, cudaStream_t stream, StreamKWork* sk);

}  // namespace tessel::impl
