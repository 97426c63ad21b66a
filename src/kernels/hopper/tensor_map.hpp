// Internal: TMA tensor maps for the Hopper kernels (host side).
#pragma once

#include <cuda.h>

#include <tessel/tessel.hpp>

namespace tessel::impl {

// A 2D tensor map over a row-major matrix of `outer` rows of `inner`
// elements of type dtype, rows ld elements apart, read in boxes of
// box_outer x box_inner with the swizzle named (CU_TENSOR_MAP_SWIZZLE_128B:
// box_inner * element size must be 128 bytes; CU_TENSOR_MAP_SWIZZLE_NONE:
// rows of the box stored densely, any box_inner up to 256 whose bytes are a
// multiple of 16); out-of-bounds elements read as zero. Needs base 16-byte
// aligned and ld * element size a multiple of 16.
// tf32: FP32 data loaded as tf32 (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32) for
// tf32 wgmma. cuTensorMapEncodeTiled comes from the driver through the
// runtime (cudaGetDriverEntryPointByVersion), so tessel links only the runtime.
cudaError_t make_tensor_map_swizzled(CUtensorMap* map, const void* base, DType dtype, int64_t inner, int64_t outer,
                                     int64_t ld, int box_inner, int box_outer, bool tf32, CUtensorMapSwizzle swizzle);

// The same (128-byte swizzle) over `matrices` such matrices, matrix_stride
// elements apart (a multiple of 16 bytes; ignored for one matrix): a rank-3
// map whose third coordinate picks the matrix (the three-coordinate copies).
cudaError_t make_batched_tensor_map(CUtensorMap* map, const void* base, DType dtype, int64_t inner, int64_t outer,
                                    int64_t ld, int64_t matrices, int64_t matrix_stride, int box_inner,
                                    int box_outer, bool tf32 = false);

// The driver's answer to this thread's last tensor-map encoding (CUDA_SUCCESS
// when it worked): kept so that a failed launch can say what the encoder said.
CUresult last_tensor_map_result();

}  // namespace tessel::impl
