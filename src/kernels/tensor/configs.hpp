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
  static constexpr int kMinBlocks = 2;  // 2 blocks per SM: at most 128 registers per thread
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

// 16-bit inputs: 128x128 tiles of 4 warps (64x64 each), 128-byte k-slices
// (64 values), 3 in flight (96 KB), 2 blocks per SM: faster than 128x256,
// 256x128, 4 stages or 64-byte slices (docs/ladder.md, step 10).
using Mma128x128 = MmaConfig<128, 128, 64, 64, 3, 2, 128>;
// tf32: 64-byte slices (16 values) x 4: its element-wise [k][mn] fragment
// reads need the registers that 128-byte slices take (133 TFLOP/s at
// 4096^3 against 123 with 128-byte slices and 128 at 128x256).
using MmaTf32_128x128 = MmaConfig<128, 128, 64, 64, 4, 2, 64>;
using Mma64x64 = MmaConfig<64, 64, 32, 32, 4, 4>;  // 4 warps, 32 KB shared: small outputs

}  // namespace tessel::impl
