// Every tile parameter of the tensor-core kernels (steps 09 and 10), in one place.
#pragma once

namespace tessel::impl {

// Step 09, WMMA: a BM x BN block tile, k-slices of KBytes bytes per row
// (32 f16/bf16 or 16 tf32 values), Stages slices in flight, warps of
// WM x WN made of 16x16 fragments.
struct WmmaConfig {
  static constexpr int kBM = 128, kBN = 128, kKBytes = 64, kStages = 3;
  static constexpr int kWM = 64, kWN = 32;
  static constexpr int kThreads = (kBM / kWM) * (kBN / kWN) * 32;
  static constexpr int kGroup = 8;  // block-rows per L2 group (device::grouped_tile)
};

// Step 10, mma.sync: BM x BN block tile, warps of WM x WN (m16n8 mma
// tiles), k-slices of KBytes bytes per row (32 f16/bf16 or 16 tf32
// values for 64), Stages slices in flight, MinBlocks blocks per SM.
template <int BM, int BN, int WM, int WN, int Stages, int MinBlocks, int KBytes = 64>
struct MmaConfig {
  static constexpr int kBM = BM, kBN = BN, kWM = WM, kWN = WN, kStages = Stages, kMinBlocks = MinBlocks;
  static constexpr int kKBytes = KBytes;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int kSmemBytes = Stages * (BM + BN) * KBytes;
  static constexpr int kGroup = 8;  // block-rows per L2 group (device::grouped_tile)
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0, "warp tiles of 16x16 mma pairs");
};

// 16-bit inputs: 128-byte k-slices (64 values), 3 in flight, 144 KB shared
// (measured on H200 at 4096^3 f16: 316 TFLOP/s vs 299 with 64-byte slices x 4).
using Mma128x256 = MmaConfig<128, 256, 64, 64, 3, 1, 128>;
using Mma128x128 = MmaConfig<128, 128, 64, 64, 4, 2>;  // 4 warps, 64 KB shared, 2 blocks per SM
using Mma64x64 = MmaConfig<64, 64, 32, 32, 4, 4>;      // 4 warps, 32 KB shared: small outputs
// tf32 at 128x256 keeps 64-byte slices: its element-wise [k][mn] fragment
// reads need registers that 128-byte slices spill.
using MmaTf32_128x256 = MmaConfig<128, 256, 64, 64, 4, 1>;
// EXPERIMENTS (temporary)
using MmaX1 = MmaConfig<128, 256, 64, 64, 4, 1, 128>;
using MmaX2 = MmaConfig<256, 128, 64, 64, 3, 1, 128>;
using MmaX3 = MmaConfig<128, 256, 64, 64, 4, 1, 64>;
using MmaX4 = MmaConfig<128, 128, 64, 64, 3, 2, 128>;

}  // namespace tessel::impl
