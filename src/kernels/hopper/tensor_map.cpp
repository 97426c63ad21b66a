#include "kernels/hopper/tensor_map.hpp"

#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <algorithm>

namespace tessel::impl {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      p = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

thread_local CUresult g_last_result = CUDA_SUCCESS;

}  // namespace

CUresult last_tensor_map_result() { return g_last_result; }

namespace {

// The encoding of a map of `rank` dimensions (2 or 3: rows, then matrices)
// of the extents and byte strides given, boxes of one row band of one matrix.
cudaError_t encode_map(CUtensorMap* map, const void* base, DType dtype, int rank, const cuuint64_t* dims,
                   const cuuint64_t* strides, int box_inner, int box_outer, bool tf32, CUtensorMapSwizzle swizzle) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = encode_function();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint32_t box[3] = {cuuint32_t(box_inner), cuuint32_t(box_outer), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type = dtype == DType::kBF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : dtype == DType::kF16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : is_fp8(dtype)        ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : tf32                 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                          : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  // Rows that start off a 128-byte line make every 128-byte box row touch two lines; promoting
  // each miss to 256 bytes then fills lines the box never reads (docs/ladder.md, step 14).
  const CUtensorMapL2promotion promotion =
      strides[0] % 128 == 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  const CUresult r = encode(map, type, cuuint32_t(rank), const_cast<void*>(base), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  g_last_result = r;
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace

cudaError_t make_tensor_map_swizzled(CUtensorMap* map, const void* base, DType dtype, int64_t inner, int64_t outer,
                                     int64_t ld, int box_inner, int box_outer, bool tf32, CUtensorMapSwizzle swizzle) {
  const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * size_of(dtype)};  // bytes between rows
  return encode_map(map, base, dtype, 2, dims, strides, box_inner, box_outer, tf32, swizzle);
}

cudaError_t make_batched_tensor_map(CUtensorMap* map, const void* base, DType dtype, int64_t inner, int64_t outer,
                                    int64_t ld, int64_t matrices, int64_t matrix_stride, int box_inner,
                                    int box_outer, bool tf32) {
  const size_t elem = size_of(dtype);
  const cuuint64_t dims[3] = {cuuint64_t(inner), cuuint64_t(outer), cuuint64_t(matrices)};
  // One matrix: a stride past its end (never used), where that stays below TMA's 2^40 bytes.
  const cuuint64_t row = cuuint64_t(ld) * elem, whole = row * cuuint64_t(std::max<int64_t>(outer, 1));
  const cuuint64_t stride = matrices > 1 ? cuuint64_t(matrix_stride) * elem : whole < (cuuint64_t(1) << 40) ? whole : row;
  const cuuint64_t strides[2] = {cuuint64_t(ld) * elem, stride};
  return encode_map(map, base, dtype, 3, dims, strides, box_inner, box_outer, tf32, CU_TENSOR_MAP_SWIZZLE_128B);
}

}  // namespace tessel::impl
