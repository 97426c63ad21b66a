// A pointer-array batch's tensor maps (tensor_map.hpp, make_pointer_maps):
// a thread per matrix copies the host-made maps of A and B and edits their
// address and innermost extent with tensormap.replace (sm_90a), then
// releases the edits to the tensor-map proxy for the GEMM launched after it.
#include <cstdint>

#include "device/common.cuh"
#include "device/sm90.cuh"
#include "kernels/hopper/tensor_map.hpp"

namespace tessel::impl {
namespace {

constexpr int kThreads = 128;

__device__ void pointer_map(const CUtensorMap& from, const void* p, int64_t inner, int element_bytes, CUtensorMap* to) {
  namespace sm90 = device::sm90;
  const uint4* src = reinterpret_cast<const uint4*>(&from);
  uint4* dst = reinterpret_cast<uint4*>(to);
#pragma unroll
  for (int i = 0; i < int(sizeof(CUtensorMap) / sizeof(uint4)); ++i) dst[i] = src[i];
  const int shift = sm90::pointer_shift(p, element_bytes);
  sm90::replace_tensor_map_address(to, static_cast<const char*>(p) - shift * element_bytes);
  if (shift != 0) sm90::replace_tensor_map_inner(to, int(inner + shift));
}

__global__ void __launch_bounds__(kThreads)
    pointer_maps_kernel(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                        const void* const* a_array, const void* const* b_array, int64_t count, int64_t inner_a,
                        int64_t inner_b, int element_bytes, CUtensorMap* maps) {
  const int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= count) return;
  pointer_map(a, a_array[i], inner_a, element_bytes, &maps[2 * i]);
  pointer_map(b, b_array[i], inner_b, element_bytes, &maps[2 * i + 1]);
  device::sm90::release_tensor_maps();
}

}  // namespace

cudaError_t make_pointer_maps(const CUtensorMap& a, const CUtensorMap& b, const void* const* a_array,
                              const void* const* b_array, int64_t count, int64_t inner_a, int64_t inner_b,
                              int element_bytes, CUtensorMap* maps, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  return device::launch(pointer_maps_kernel, unsigned(device::ceil_div(count, int64_t(kThreads))), kThreads, 0,
                        stream, a, b, a_array, b_array, count, inner_a, inner_b, element_bytes, maps);
}

}  // namespace tessel::impl
