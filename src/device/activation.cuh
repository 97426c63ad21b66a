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

}  // namespace tessel::device
