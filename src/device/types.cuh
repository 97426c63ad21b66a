// Element types on the device: the CUDA type of each DType and FP32
// conversions, so that kernels templated on the element type read and
// write any of them with one spelling.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <tessel/tessel.hpp>

namespace tessel::device {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// The CUDA type of a DType known at compile time.
template <DType D>
struct CudaType { using type = float; };
template <>
struct CudaType<DType::kF16> { using type = __half; };
template <>
struct CudaType<DType::kBF16> { using type = __nv_bfloat16; };

// Calls f(T{}) with T the CUDA type of dtype: one instantiation per type.
template <class F>
auto with_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kF16: return f(__half{});
    case DType::kBF16: return f(__nv_bfloat16{});
    case DType::kF32: break;
  }
  return f(float{});
}

}  // namespace tessel::device
