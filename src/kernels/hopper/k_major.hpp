// Internal: tf32 operands in the layout tf32 wgmma reads. wgmma has no
// transpose bit for tf32, so both operands must be K-major in shared memory,
// i.e. stored with k contiguous: A as m x k (op N) and B as n x k (op T).
#pragma once

#include <cuda_runtime.h>

#include <tessel/tessel.hpp>

namespace tessel::impl {

// Returns in *out the call `a` (FP32 operands, tf32 compute) with opA = N and
// opB = T: each operand stored the other way is copied transposed into the
// stream's workspace (WorkspaceUse::kOperands, per host thread; rows
// 16-byte aligned, each value rounded to the nearest tf32), on `stream`
// ahead of the GEMM that reads it. Operands already K-major are passed
// through untouched: TMA rounds them the same way as it loads them
// (tensor maps of type TFLOAT32, make_operand_maps).
cudaError_t k_major_operands(const GemmArgs& a, cudaStream_t stream, GemmArgs* out);

}  // namespace tessel::impl
