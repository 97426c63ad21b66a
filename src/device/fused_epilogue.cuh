// The epilogue (tessel::Epilogue) fused into a wgmma kernel with 16-bit C:
// one warpgroup's accumulators become act(col_scale * alpha * acc + bias) in
// FP32, in place, before the kernel's own stores round them once (TcParams:
// alpha is then 1 and epi_alpha the call's). Column terms only
// (impl::fuses_in_kernel) and beta = 0: dispatch leaves row terms, the
// pre-activation output and FP32 C to the epilogue pass. One pass over the
// accumulators, whatever path the results leave by.
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

// The epilogue of one warpgroup's 64 x 2N block at column col0, in two
// steps: load() before the tile's k-slices issues the loads of its bias, so
// that their latency hides behind the wgmmas, and apply() after them turns
// the accumulators in the wgmma layout (4q .. 4q + 3: columns col0 + 8q + 2
// (t % 4) and the next, two rows each) into the results. Lane L of each warp
// holds columns col0 + 64k + 2L and the next (coalesced, N / 32 pairs), and
// each q takes its pair from lane 4 (q % 8) + t % 4 by a shuffle, made
// whether or not the call has the term (zero bias, unit scale): branches
// around them cost more than the shuffles. Columns past C get neutral terms
// (their results are not stored). Each activation has a loop of its own, so
// that none pays for another's arithmetic.
template <int N, class P>
struct FusedEpilogue {
  static_assert(N % 32 == 0, "a warp's lanes hold the block's columns in whole pairs");
  static constexpr int kPairs = N / 32;
  uint32_t bias_lo[kPairs], bias_hi[kPairs];  // raw 16-bit values: nothing waits for them until apply()

  __device__ __forceinline__ void load(const P& p, int64_t col0, int t) {
    const auto* bias = static_cast<const uint16_t*>(p.epi.bias);
    // Columns fit 32 bits (TMA coordinates): fewer registers than 64-bit indices.
    const int c0 = int(col0) + 2 * (t % 32), n = int(p.n);
#pragma unroll
    for (int k = 0; k < kPairs; ++k) {
      const int c = c0 + 64 * k;
      bias_lo[k] = bias != nullptr && c < n ? __ldg(bias + c) : 0u;
      bias_hi[k] = bias != nullptr && c + 1 < n ? __ldg(bias + c + 1) : 0u;
    }
  }

  __device__ __forceinline__ void apply(const P& p, float (&acc)[N], int64_t col0, int t) const {
    using BT = typename P::C16;
    const Epilogue& e = p.epi;
    const int lane = t % 32, c0 = int(col0) + 2 * lane, n = int(p.n);
    uint32_t bias_words[kPairs];
    float2 scale_words[kPairs];
#pragma unroll
    for (int k = 0; k < kPairs; ++k) {
      const int c = c0 + 64 * k;
      bias_words[k] = bias_lo[k] | bias_hi[k] << 16;
      const bool scaled = e.col_scale != nullptr;
      scale_words[k] = make_float2(p.epi_alpha * (scaled && c < n ? __ldg(e.col_scale + c) : 1.0f),
                                   p.epi_alpha * (scaled && c + 1 < n ? __ldg(e.col_scale + c + 1) : 1.0f));
    }
    auto each = [&](auto act) {
#pragma unroll
      for (int q = 0; q < N / 4; ++q) {  // columns 8q + 2 (t % 4) and the next
        const int from = 4 * (q % 8) + lane % 4;
        const float2 shift = unpack_pair(__shfl_sync(~0u, bias_words[q / 8], from), BT{});
        const float2 scale = make_float2(__shfl_sync(~0u, scale_words[q / 8].x, from),
                                         __shfl_sync(~0u, scale_words[q / 8].y, from));
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // column i % 2
          float& a = acc[4 * q + i];
          a = act(i % 2 ? fmaf(scale.y, a, shift.y) : fmaf(scale.x, a, shift.x));
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
};

}  // namespace tessel::device
