// The epilogue's activations in FP32 on the device (tessel::Activation): the
// library's epilogue pass and the benchmark's unfused reference share them.
#pragma once

#include <tessel/tessel.hpp>

namespace tessel::device {

__device__ __forceinline__ float activate(float v, Activation act) {
  switch (act) {
    case Activation::kRelu: return v < 0.0f ? 0.0f : v;  // NaN stays NaN, as in torch.relu
    case Activation::kGelu: return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    case Activation::kGeluTanh: {
      const float inner = 0.79788456080286536f * (v + 0.044715f * v * v * v);  // sqrt(2 / pi)
      return 0.5f * v * (1.0f + tanhf(inner));
    }
    case Activation::kSilu: return v / (1.0f + expf(-v));
    case Activation::kNone: break;
  }
  return v;
}

__device__ __forceinline__ float tanh_approx(float z) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(z));
  return t;
}

// The smooth activations inside a kernel (the fused epilogue, 16-bit C),
// short enough to inline into every unrolled loop over the accumulators:
// v * (1 + tanh z) / 2 with tanh by tanh.approx (one MUFU op, ~2^-11
// relative, under 16-bit rounding). TanhGated: z = v (a + b v^2), GELU's
// tanh form and SiLU (a = 1/2, b = 0) exactly.
struct TanhGated {
  float a, b;
  __device__ __forceinline__ float operator()(float v) const {
    const float h = 0.5f * v;
    return fmaf(h, tanh_approx(v * fmaf(b, v * v, a)), h);
  }
};
__device__ __forceinline__ TanhGated tanh_gated(Activation act) {
  return act == Activation::kSilu ? TanhGated{0.5f, 0.0f} : TanhGated{0.79788456080286536f, 0.0356774081363001f};
}

// GELU's erf form, v * Phi(v): z = w (a + b w^2 + c w^4) with w = v clamped
// to |v| <= 8 and a, b, c fitted there (|error| <= 2.5e-5 against erf).
__device__ __forceinline__ float erf_gelu(float v) {
  const float w = fminf(fmaxf(v, -8.0f), 8.0f), w2 = w * w, h = 0.5f * v;
  return fmaf(h, tanh_approx(w * fmaf(w2, fmaf(w2, -3.51869403e-4f, 0.0370073156f), 0.797506476f)), h);
}

}  // namespace tessel::device
