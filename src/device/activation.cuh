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

// The smooth activations inside a kernel (the fused epilogue, 16-bit C): one
// branch-free form, short enough to inline into every unrolled loop over the
// accumulators. Each is v * g(v), g = (1 + tanh z) / 2 with z = v (a + b v^2 +
// c v^4): GELU's tanh form and SiLU (z = v / 2) exactly, GELU's erf form
// (Phi(v)) with a, b, c fitted on |v| <= 8 (|GELU error| <= 2.5e-5; z from v
// clamped there); tanh by tanh.approx (one MUFU op, ~2^-11 relative, under
// 16-bit rounding).
__device__ __forceinline__ float smooth_gate(float v, Activation act) {
  const bool erf_form = act == Activation::kGelu, silu = act == Activation::kSilu;
  const float w = erf_form ? fminf(fmaxf(v, -8.0f), 8.0f) : v, w2 = w * w;
  const float a = silu ? 0.5f : erf_form ? 0.797506476f : 0.79788456080286536f;
  const float b = silu ? 0.0f : erf_form ? 0.0370073156f : 0.0356774081363001f;
  const float c = erf_form ? -3.51869403e-4f : 0.0f;
  return fmaf(0.5f, tanh_approx(w * fmaf(w2, fmaf(w2, c, b), a)), 0.5f);
}

}  // namespace tessel::device
