// Element types on the device: the CUDA type of each DType and FP32
// conversions, so that kernels templated on the element type read and
// write any of them with one spelling.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <tessel/tessel.hpp>

#include <type_traits>

namespace tessel::device {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__nv_fp8_e4m3 x) { return float(x); }
__device__ __forceinline__ float to_float(__nv_fp8_e5m2 x) { return float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
// FP8: round to nearest even, saturating to the largest finite value.
template <>
__device__ __forceinline__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float x) { return __nv_fp8_e4m3(x); }
template <>
__device__ __forceinline__ __nv_fp8_e5m2 from_float<__nv_fp8_e5m2>(float x) { return __nv_fp8_e5m2(x); }

// The CUDA type of a DType known at compile time.
template <DType D>
struct CudaType { using type = float; };
template <>
struct CudaType<DType::kF16> { using type = __half; };
template <>
struct CudaType<DType::kBF16> { using type = __nv_bfloat16; };
template <>
struct CudaType<DType::kE4M3> { using type = __nv_fp8_e4m3; };
template <>
struct CudaType<DType::kE5M2> { using type = __nv_fp8_e5m2; };

// A kernel's input type where A and B differ (FP8: one of each format): one
// byte, as either is; InputTypes names the two types.
template <class TA, class TB>
struct InputPair {
  unsigned char x;
};
// The element types of A and B of a kernel's input type T (T itself unless an InputPair).
template <class T>
struct InputTypes { using A = T; using B = T; };
template <class TA, class TB>
struct InputTypes<InputPair<TA, TB>> { using A = TA; using B = TB; };
template <class T>
using a_type_t = typename InputTypes<T>::A;
template <class T>
using b_type_t = typename InputTypes<T>::B;
// The input type of a kernel for A of type DA and B of type DB.
template <DType DA, DType DB = DA>
using input_t = std::conditional_t<DA == DB, typename CudaType<DA>::type,
                                   InputPair<typename CudaType<DA>::type, typename CudaType<DB>::type>>;

// Calls f(T{}) with T the CUDA type of dtype, one of C's types (f32, f16,
// bf16): one instantiation per type.
template <class F>
auto with_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kF16: return f(__half{});
    case DType::kBF16: return f(__nv_bfloat16{});
    default: break;
  }
  return f(float{});
}

// The same over every storage type, FP8 included (A and B).
template <class F>
auto with_any_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kE4M3: return f(__nv_fp8_e4m3{});
    case DType::kE5M2: return f(__nv_fp8_e5m2{});
    default: break;
  }
  return with_type(dtype, f);
}

}  // namespace tessel::device
