// The epilogue (tessel::Epilogue) fused into a wgmma kernel with 16-bit C:
// one warpgroup's accumulators become act(row_scale * col_scale * alpha * acc
// + bias) in FP32, in place, before the kernel's own stores round them once
// (TcParams: alpha is then 1 and epi_alpha the call's; dispatch fuses only
// calls with beta = 0 and leaves the pre-activation output and FP32 C to the
// epilogue pass). One pass over the accumulators, whatever path the results
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

// The 16-bit terms packed in a word, low half first, in FP32.
__device__ __forceinline__ float2 unpack_pair(uint32_t w, __half) {
  return make_float2(__half2float(__ushort_as_half(w & 0xffff)), __half2float(__ushort_as_half(w >> 16)));
}
__device__ __forceinline__ float2 unpack_pair(uint32_t w, __nv_bfloat16) {
  return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

// acc: thread t's N accumulators of a warpgroup's 64 x 2N block at (row0,
// col0) in the wgmma layout: accumulators 4q .. 4q + 3 are columns col0 + 8q
// + 2 (t % 4) and the next, of rows row0 + 16 (t / 32) + (t % 32) / 4 and 8
// below. Column terms: lane L of each warp loads columns col0 + 64k + 2L and
// the next (coalesced, N / 32 words), and each q takes its pair from lane
// 4 (q % 8) + t % 4 by one shuffle. Columns past C load neutral terms, rows
// past C the last row's (neither's results are stored). Each activation has
// a loop of its own, so that none pays for another's arithmetic. ReLU keeps NaN.
template <int N, class P>
__device__ __forceinline__ void fuse_epilogue(const P& p, float (&acc)[N], int64_t row0, int64_t col0, int t) {
  static_assert(N % 32 == 0, "a warp's lanes hold the block's columns in whole words");
  using BT = typename P::C16;
  constexpr int kWords = N / 32;
  const Epilogue& e = p.epi;
  const BT* bias = static_cast<const BT*>(e.bias);
  // Rows and columns fit 32 bits (TMA coordinates): fewer registers than 64-bit indices.
  const int lane = t % 32, row = int(row0) + 16 * (t / 32) + lane / 4, n = int(p.n), last_row = int(p.m) - 1;
  float row_scale[2] = {p.epi_alpha, p.epi_alpha}, row_bias[2] = {0.0f, 0.0f};
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int i = min(row + 8 * r, last_row);
    if (e.row_scale != nullptr) row_scale[r] *= __ldg(e.row_scale + i);
    if (bias != nullptr && e.bias_per_row) row_bias[r] = to_float(__ldg(bias + i));
  }
  const bool col_bias = bias != nullptr && !e.bias_per_row, col_scale = e.col_scale != nullptr;
  uint32_t bias_words[kWords];
  float2 scale_words[kWords];
#pragma unroll
  for (int k = 0; k < kWords; ++k) {
    const int c = int(col0) + 64 * k + 2 * lane;
    const auto* b = reinterpret_cast<const uint16_t*>(bias);
    bias_words[k] = !col_bias ? 0u : (c < n ? __ldg(b + c) : 0u) | (c + 1 < n ? uint32_t(__ldg(b + c + 1)) << 16 : 0u);
    scale_words[k] = make_float2(col_scale && c < n ? __ldg(e.col_scale + c) : 1.0f,
                                 col_scale && c + 1 < n ? __ldg(e.col_scale + c + 1) : 1.0f);
  }
  auto each = [&](auto act) {
#pragma unroll
    for (int q = 0; q < N / 4; ++q) {  // columns 8q + 2 (t % 4) and the next
      const int from = 4 * (q % 8) + lane % 4;
      const float2 shift = col_bias ? unpack_pair(__shfl_sync(~0u, bias_words[q / 8], from), BT{}) : make_float2(0, 0);
      const float2 scale = col_scale ? make_float2(__shfl_sync(~0u, scale_words[q / 8].x, from),
                                                   __shfl_sync(~0u, scale_words[q / 8].y, from))
                                     : make_float2(1, 1);
#pragma unroll
      for (int i = 0; i < 4; ++i) {  // row i / 2, column i % 2
        float& a = acc[4 * q + i];
        a = act(fmaf(row_scale[i / 2] * (i % 2 ? scale.y : scale.x), a, row_bias[i / 2] + (i % 2 ? shift.y : shift.x)));
      }
    }
  };
  switch (e.activation) {
    case Activation::kNone: each([](float v) { return v; }); break;
    case Activation::kRelu: each([](float v) { return v <= 0.0f ? 0.0f : v; }); break;
    case Activation::kGelu: each([](float v) { return erf_gelu(v); }); break;
    case Activation::kGeluTanh:
    case Activation::kSilu: each(tanh_gated(e.activation)); break;
  }
}

}  // namespace tessel::device
