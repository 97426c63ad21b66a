// Tile parameters of the Hopper (sm_90a) kernels, steps 11-15 and step 10's
// TMA-fed variant, in one place.
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
  static constexpr bool kTmaStore = false;   // epilogue through shared memory and TMA stores
  static constexpr bool kSwapped = false;    // step 16's swapped tiles (SwapConfig)
  static constexpr bool kPingpong = false;   // consumer warpgroups taking turns (PingpongConfig)
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
  static constexpr bool kTmaStore = false;
  static constexpr bool kSwapped = false;  // SwapConfig
  static constexpr bool kPingpong = false;  // PingpongConfig
  static constexpr double kSpeed = 1.0;  // see ClusterConfig
};

// Step 10 fed like step 13 (mma_tma): the producer thread, ring and
// persistent grid of step 13 feeding eight consumer warps (two warpgroups:
// setmaxnreg acts per warpgroup) that multiply 64 x 64 blocks of the
// 128 x 256 tile with mma.sync, as step 10's warps do.
struct MmaTmaConfig : WarpSpecializedConfig {
  static constexpr int kWM = 64, kWN = 64;  // one warp's block of the tile
  static constexpr int kWarpsN = kBN / kWN;
  static constexpr int kConsumerWarps = kConsumers * 4;
  static_assert(kConsumerWarps * kWM * kWN == kBM * kBN, "the consumer warps cover the tile");
};

// Steps 14 and 15: step 13 in clusters of two CTAs on vertically
// neighbouring tiles, which need the same slice of B: each loads half of it
// and multicasts it to both. Smaller tiles (as many stages as fit next to
// the store buffers in 227 KiB) for sizes where 128 x 256 tiles leave a
// last wave mostly empty: 128 x 192 fills 2.9 of 3 waves at 3072^3, and
// 64 x 128 (one consumer warpgroup) gives 1024^3 128 tiles. With 64 rows,
// a CTA reads 8 KiB of A + 8 of B per slice, as cuBLAS's 1024^3 kernel
// does; it beat a 128 x 64 tile (two consumer warpgroups, clusters sharing
// A: the same 8 + 8 KiB) at every size and type measured (docs/ladder.md). With
// C, ldc and n in 16-byte units the results leave through shared memory
// and TMA stores (and C, for beta != 0, comes in by TMA loads).
// kSpeed: throughput per tile area relative to 128 x 256, for the
// dispatcher's estimate (from the H100 measurements in docs/ladder.md).
// kAutoMaxM: the most rows auto-dispatch gives a single-CTA configuration (step 15's Solo).
template <int BM, int BN, int Stages, int SpeedPercent, int Cluster = 2, int AutoMaxM = BM>
struct ClusterConfig : WarpSpecializedConfig {
  static constexpr int kBM = BM, kBN = BN, kStages = Stages, kAutoMaxM = AutoMaxM;
  static constexpr int kConsumers = BM / 64;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kCluster = Cluster;
  static constexpr bool kTmaStore = true;
  static constexpr double kSpeed = SpeedPercent / 100.0;
};
using Cluster128x256 = ClusterConfig<128, 256, 4, 100>;
using Cluster128x192 = ClusterConfig<128, 192, 4, 95>;
using Cluster128x128 = ClusterConfig<128, 128, 6, 90>;
using Cluster64x128 = ClusterConfig<64, 128, 8, 75>;
// Step 14 with two consumer warpgroups taking turns (ping-pong): each multiplies whole 64-row tiles of its own,
// the CTA's tiles alternating between them, so that one warpgroup's epilogue (a fused activation, the stores)
// runs while the other's wgmmas keep the tensor cores busy. 40 KiB stages: 4 fit beside the store buffers.
// 90: bf16 NT on the H200, 0.87-0.95 of 128 x 256 by name (docs/ladder.md, step 14 item 12); by name only.
template <int BN, int Stages, int SpeedPercent>
struct PingpongConfig : ClusterConfig<64, BN, Stages, SpeedPercent> {
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr bool kPingpong = true;
};
using Pingpong64x256 = PingpongConfig<256, 4, 90>;
// Step 15 for small m (decode, m <= 128): a cluster's second row tile would lie
// past m, so single CTAs each stream their own share of B's k-slices
// (stream-K over every unit), and every SM pulls from HBM; one row tile
// covers m, so each slice of B is read once.
using Solo64x128 = ClusterConfig<64, 128, 8, 70, 1>;
using Solo128x128 = ClusterConfig<128, 128, 6, 85, 1>;
// 64 x 64 tiles, 12 stages (192 KiB in flight per SM): twice the units of
// 64 x 128, so that a few hundred rows of a narrow weight fill one wave of
// single CTAs without sharing; up to 512 rows (each row tile reads B's slices
// again, mostly from L2). Step 14 takes the same tiles for outputs of few tiles, k split into a part per SM
// (14_cluster_solo_64x64.cu).
using Solo64x64 = ClusterConfig<64, 64, 12, 60, 1, 512>;
// Step 16 on Hopper for few rows (decode): the call swapped, Cᵀ = Bᵀ·Aᵀ, so
// that the weight fills the tile's 64 rows and the call's m <= 16 rows are its
// columns (wgmma n16); single CTAs with k split into parts. 8 stages (80 KiB in
// flight per SM) streamed the weight faster than 4, 6, 12 or 22 (bf16, H100:
// docs/ladder.md, step 16). No TMA-store buffers: the results leave transposed,
// by direct stores. kSpeed: not used (dispatch takes them by rule).
template <int BN, int Stages>
struct SwapConfig : ClusterConfig<64, BN, Stages, 100, 1> {
  static constexpr bool kTmaStore = false;
  static constexpr bool kSwapped = true;
};
using Swap64x16 = SwapConfig<16, 8>;
// Step 17 (FP8) on 128 x 128 tiles: the same kernel shape, slower per tile area than with 16-bit
// inputs against 128 x 192 (each FP8 slice carries twice the multiply-adds for the same bytes, and
// the smaller tile reads more of them per result). 85: the value for which the estimate picks the
// tile measured faster at every square 1024 ... 8192 (docs/ladder.md, step 17).
using Fp8Cluster128x128 = ClusterConfig<128, 128, 6, 85>;
// The pieces an FP8 tile's slice is promoted in (warp_specialized.cuh, consume_tile): 128 columns each on
// tiles wider than 192 (a piece's accumulators beside the tile's), else one.
template <int BN>
inline constexpr int kFp8PromotePieces = BN > 192 ? BN / 128 : 1;
// FP8 block scales (128 columns of B a block) need each promoted piece in one block.
template <class Cfg>
inline constexpr bool kFp8BlockScales = Cfg::kBN / kFp8PromotePieces<Cfg::kBN> == 128;
// B's scales per column: 128-wide tiles, whose 64 column scales a thread reads fit beside a slice's accumulators and
// the tile's (at 128 x 256, pieces of 64 columns spilled 324 bytes and ran at a third of cuBLASLt's speed).
template <class Cfg>
inline constexpr bool kFp8ColumnScales = kFp8BlockScales<Cfg> && Cfg::kBN == 128;

}  // namespace tessel::impl
