// The epilogue (tessel::Epilogue) fused into a wgmma kernel with 16-bit C:
// one warpgroup's accumulators become act(row_scale * col_scale * alpha * acc
// + bias) in FP32, in place, before the kernel's own stores round them once
// (TcParams: alpha is then 1 and epi_alpha the call's; dispatch fuses only
// calls with beta = 0 and leaves the pre-activation output and FP32 C to the
// epilogue pass). One loop over the accumulators, whatever path the results
// leave by.
#pragma once

#include <cstdint>

#include "device/activation.cuh"
#include "device/types.cuh"

namespace tessel::device {

// Whether the kernels for inputs T and 16-bit C type Out carry the fused
// epilogue: 16-bit inputs only (tf32 kernels write FP32 C; FP8's promoted
// partial sums already fill the registers, and the epilogue made ptxas spill).
template <class T, class Out>
constexpr bool kFusesEpilogue = sizeof(T) == 2 && sizeof(Out) == 2;

// acc: thread t's N accumulators of a warpgroup's 64 x 2N block at (row0,
// col0) in the wgmma layout: accumulators 4q .. 4q + 3 are columns col0 + 8q
// + 2 (t % 4) and the next, of rows row0 + 16 (t / 32) + (t % 32) / 4 and 8
// below. Rows and columns past C read the last one's terms (their results
// are not stored). ReLU keeps NaN; the smooth activations: smooth_gate.
template <int N, class P>
__device__ __forceinline__ void fuse_epilogue(const P& p, float (&acc)[N], int64_t row0, int64_t col0, int t) {
  using BT = typename P::C16;
  const Epilogue& e = p.epi;
  const BT* bias = static_cast<const BT*>(e.bias);
  // Rows and columns fit 32 bits (TMA coordinates): fewer registers than 64-bit indices.
  const int row = int(row0) + 16 * (t / 32) + (t % 32) / 4, col = int(col0) + 2 * (t % 4);
  const int last_row = int(p.m) - 1, last_col = int(p.n) - 1;
  auto column = [&](int q, int h) { return min(col + 8 * q + h, last_col); };
  float row_scale[2] = {p.epi_alpha, p.epi_alpha}, row_bias[2] = {0.0f, 0.0f};
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int i = min(row + 8 * r, last_row);
    if (e.row_scale != nullptr) row_scale[r] *= __ldg(e.row_scale + i);
    if (bias != nullptr && e.bias_per_row) row_bias[r] = to_float(__ldg(bias + i));
  }
  const BT* col_bias = e.bias_per_row ? nullptr : bias;
  auto each = [&](auto act) {
#pragma unroll
    for (int q = 0; q < N / 4; ++q) {
      float scale[2] = {1.0f, 1.0f}, shift[2] = {0.0f, 0.0f};  // columns 8q + 2 (t % 4) and the next
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (e.col_scale != nullptr) scale[h] = __ldg(e.col_scale + column(q, h));
        if (col_bias != nullptr) shift[h] = to_float(__ldg(col_bias + column(q, h)));
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {  // row i / 2, column i % 2
        float& a = acc[4 * q + i];
        a = act(fmaf(row_scale[i / 2] * scale[i % 2], a, row_bias[i / 2] + shift[i % 2]));
      }
    }
  };
  const Activation act = e.activation;
  if (act == Activation::kNone) {
    each([](float v) { return v; });
  } else if (act == Activation::kRelu) {
    each([](float v) { return v <= 0.0f ? 0.0f : v; });
  } else {
    each([&](float v) { return v * smooth_gate(v, act); });
  }
}

}  // namespace tessel::device
