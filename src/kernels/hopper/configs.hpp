// Tile parameters of the Hopper (sm_90a) kernels, steps 11-13, in one place.
// Every k-slice is 64 deep (device::sm90::kSliceK); every warpgroup that
// multiplies owns a 64 x 256 block of C (wgmma m64n256k16).
#pragma once

namespace tessel::impl {

// Step 11: one warpgroup loads (thread 0 issues TMA) and multiplies.
struct TmaWgmmaConfig {
  static constexpr int kBM = 64, kBN = 256, kStages = 4;
  static constexpr int kConsumers = 1;       // warpgroups that multiply
  static constexpr int kThreads = 128 * kConsumers;
  static constexpr int kCluster = 1;         // CTAs sharing B's loads
  static constexpr bool kTmaStore = false;   // epilogue through shared memory and TMA stores
  static constexpr int kGroup = 8;           // grouped tile order (rows of tiles per group)
};

// Steps 12 and 13: a producer warpgroup feeding two consumer warpgroups.
struct WarpSpecializedConfig {
  static constexpr int kBM = 128, kBN = 256, kStages = 4;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kProducerRegs = 40, kConsumerRegs = 232;  // 128*40 + 256*232 <= 65536
  static constexpr int kGroup = 8;
  static constexpr int kCluster = 1;
  static constexpr bool kTmaStore = false;
};

// Step 14: step 13 in clusters of two CTAs on neighbouring row tiles that
// load half of their common B slice each and multicast it to both; a
// 128 x 128 configuration (half the columns, 6 stages in the same shared
// memory) for sizes where 128 x 256 tiles leave a last wave mostly empty.
// With beta = 0 the results leave through shared memory and TMA stores.
template <int BN, int Stages>
struct ClusterConfig : WarpSpecializedConfig {
  static constexpr int kBN = BN, kStages = Stages;
  static constexpr int kCluster = 2;
  static constexpr bool kTmaStore = true;
};
using Cluster128x256 = ClusterConfig<256, 4>;
using Cluster128x128 = ClusterConfig<128, 6>;

}  // namespace tessel::impl
