#include "harness/typed.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstring>

namespace tessel::harness {

std::vector<uint8_t> encode(const std::vector<float>& v, DType type) {
  std::vector<uint8_t> out(v.size() * size_of(type));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (type) {
      case DType::kF32: std::memcpy(&out[4 * i], &v[i], 4); break;
      case DType::kF16: { const __half h = __float2half_rn(v[i]); std::memcpy(&out[2 * i], &h, 2); break; }
      case DType::kBF16: { const __nv_bfloat16 b = __float2bfloat16_rn(v[i]); std::memcpy(&out[2 * i], &b, 2); break; }
      case DType::kE4M3: out[i] = __nv_fp8_e4m3(v[i]).__x; break;
      case DType::kE5M2: out[i] = __nv_fp8_e5m2(v[i]).__x; break;
    }
  }
  return out;
}

std::vector<float> decode(const std::vector<uint8_t>& bytes, DType type) {
  const size_t size = size_of(type);
  std::vector<float> out(bytes.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    switch (type) {
      case DType::kF32: std::memcpy(&out[i], &bytes[4 * i], 4); break;
      case DType::kF16: { __half h; std::memcpy(&h, &bytes[2 * i], 2); out[i] = __half2float(h); break; }
      case DType::kBF16: { __nv_bfloat16 b; std::memcpy(&b, &bytes[2 * i], 2); out[i] = __bfloat162float(b); break; }
      case DType::kE4M3: { __nv_fp8_e4m3 f; f.__x = bytes[i]; out[i] = float(f); break; }
      case DType::kE5M2: { __nv_fp8_e5m2 f; f.__x = bytes[i]; out[i] = float(f); break; }
    }
  }
  return out;
}

void round_to(std::vector<float>& values, DType type) {
  if (type != DType::kF32) values = decode(encode(values, type), type);
}

}  // namespace tessel::harness
