// Tile parameters of the Hopper (sm_90a) kernels, steps 11-15, in one place.
// Every k-slice is 128 bytes deep: 64 values of f16/bf16 (device::sm90::kSliceK),
// 32 of tf32; every warpgroup that multiplies owns a 64-row block of C.
#pragma once

namespace tessel::impl {

constexpr int kSliceK = 64;  // f16/bf16 k elements per pipeline slice (device::sm90::kSliceK)

// Step 11: one warpgroup loads (thread 0 issues TMA) and multiplies.
struct TmaWgmmaConfig {
  static constexpr int kBM = 64, kBN = 256, kStages = 4;
  static constexpr int kConsumers = 1;       // warpgroups that multiply
  static constexpr int kThreads = 128 * kConsumers;
  static constexpr int kCluster = 1;         // CTAs sharing an operand's loads
  static constexpr bool kShareA = false;     // see ClusterConfig
  static constexpr bool kTmaStore = false;   // epilogue through shared memory and TMA stores
  static constexpr int kGroup = 8;           // grouped tile order (rows of tiles per group)
  static constexpr double kSpeed = 1.0;      // see ClusterConfig
};

// Steps 12 and 13: a producer warpgroup feeding two consumer warpgroups.
struct WarpSpecializedConfig {
  static constexpr int kBM = 128, kBN = 256, kStages = 4;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kProducerRegs = 40, kConsumerRegs = 232;  // 128*40 + 256*232 <= 65536
  static constexpr int kGroup = 8;
  static constexpr int kCluster = 1;
  static constexpr bool kShareA = false;
  static constexpr bool kTmaStore = false;
  static constexpr double kSpeed = 1.0;  // see ClusterConfig
};

// Steps 14 and 15: step 13 in clusters of two CTAs on neighbouring tiles
// that load half of an operand slice they share each and multicast it to
// both: row tiles of one column sharing B, or (ShareA) column tiles of one
// row sharing A. Share the wider operand: per CTA and slice, 128 x 256
// tiles then read 16 KiB of A + 16 of B (not 8 + 32), 128 x 64 tiles 8 + 8
// (not 16 + 4). Narrower tiles (as many stages as fit next to the store
// buffers in 227 KiB) for sizes where 128 x 256 tiles leave a last wave
// mostly empty: 128 x 192 fills 2.9 of 3 waves at 3072^3, 128 x 64 gives
// 1024^3 128 tiles. With beta = 0 the results leave through shared memory
// and TMA stores. kSpeed: throughput per tile area relative to 128 x 256,
// for the dispatcher's estimate (from the H100 measurements in
// docs/ladder.md).
template <int BN, int Stages, int SpeedPercent, bool ShareA = false>
struct ClusterConfig : WarpSpecializedConfig {
  static constexpr int kBN = BN, kStages = Stages;
  static constexpr int kCluster = 2;
  static constexpr bool kShareA = ShareA;
  static constexpr bool kTmaStore = true;
  static constexpr double kSpeed = SpeedPercent / 100.0;
};
using Cluster128x256 = ClusterConfig<256, 4, 100>;
using Cluster128x192 = ClusterConfig<192, 4, 95>;
using Cluster128x128 = ClusterConfig<128, 6, 90>;
using Cluster128x64 = ClusterConfig<64, 8, 75, true>;

}  // namespace tessel::impl
