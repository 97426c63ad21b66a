// Internal: how the stream-K kernels (step 15; step 08's
// pipelined_128x256_streamk) share a GEMM out among clusters (single blocks
// for step 08), and what that is estimated to cost; read by their launchers
// and by the dispatcher (plain C++: no CUDA needed).
#pragma once

#include <algorithm>
#include <cstdint>

#ifdef __CUDACC__
#define TESSEL_HOST_DEVICE __host__ __device__
#else
#define TESSEL_HOST_DEVICE
#endif

namespace tessel::impl {

// The units of work of a clustered kernel (steps 14, 15): `cluster`
// vertically neighbouring row tiles (tile_m x tile_n) of one column; counted
// by the launcher, walked by the kernel (ClusterTiles), estimated by the
// dispatcher.
struct ClusterUnits {
  int64_t along_m, along_n;
  TESSEL_HOST_DEVICE ClusterUnits(int64_t m, int64_t n, int tile_m, int tile_n, int cluster)
      : along_m(((m + tile_m - 1) / tile_m + cluster - 1) / cluster), along_n((n + tile_n - 1) / tile_n) {}
  TESSEL_HOST_DEVICE int64_t count() const { return along_m * along_n; }
};

// Units (a cluster's tile: kCluster row tiles x one column tile) [0, whole)
// go whole to the clusters in turn; the k-slices of the rest, numbered unit
// by unit, go in equal runs to clusters 0..sharing-1 (none when sharing = 0).
// (shared slices are counted in int: plan_stream_k shares only where
// units * slices < 2^31.)
struct StreamKPlan {
  int whole = 0;
  int sharing = 0;
  int shared_slices = 0;
  TESSEL_HOST_DEVICE int run_begin(int cluster) const { return int(int64_t(shared_slices) * cluster / sharing); }
};

// A plan with its workspace (stream_k_workspace): per partial-sum slot (a
// cluster's CTA, or its consumer warpgroup), the sums and a flag (1 = ready).
struct StreamKWork : StreamKPlan {
  float* partials = nullptr;
  int* flags = nullptr;
};

// What sharing costs and must save, per kernel family: fixup_slices, the
// cost of handing a unit's partial sums from one cluster to another (write,
// flag, read), in k-slice times; min_gain, the fraction of the whole-units
// time sharing must save; min_run, the fewest shared k-slices per cluster;
// shared_slowdown, how much longer a shared slice takes than a slice of a
// whole unit (clusters at different depths of k share less in L2);
// full_waves_shared, how many of the full waves before the remainder are
// shared with it (0: only the remainder).
struct StreamKCost {
  int fixup_slices;
  double min_gain;
  int min_run;
  double shared_slowdown;
  int full_waves_shared;
};
// Step 15 (64-deep wgmma slices, 128 KiB handed over per CTA). Measured on an
// H100 with sharing forced at every size: step 15 took 1.33x step 14's time
// at 2048^3 (every unit cut in two: ~10 slice times per hand-over), 1.09x at
// 4096^3, 1.19x at 4096x4096x1024, 0.90x at 3072^3 and 5120^3; 10 matches
// them within a few slices.
constexpr StreamKCost kWgmmaStreamK{10, 0.05, 4, 0.0, 1};

// Slices the busiest cluster works through when every unit goes whole.
inline int64_t whole_units_slices(int64_t units, int64_t slices, int clusters) {
  return (units + clusters - 1) / clusters * slices;
}

// The plan for `units` units of `slices` k-slices on `clusters` clusters:
// when the units do not come out in even waves, the full waves but the last
// cost.full_waves_shared go whole and the rest is shared, if that is
// estimated to save at least cost.min_gain (step 15 shares one full wave
// with the remainder: sharing just the remainder would cut its units into
// many small pieces); *busiest: the estimated slice times of the busiest
// cluster, fix-ups included.
inline StreamKPlan plan_stream_k(int64_t units, int64_t slices, int clusters, int64_t* busiest = nullptr,
                                 const StreamKCost& cost = kWgmmaStreamK) {
  StreamKPlan plan;
  plan.whole = int(units);
  const int64_t whole_time = whole_units_slices(units, slices, clusters);
  if (busiest) *busiest = whole_time;
  if (units % clusters == 0 || units * slices > INT32_MAX) return plan;
  const int64_t whole_waves = std::max<int64_t>(0, units / clusters - cost.full_waves_shared);
  StreamKPlan shared;
  shared.whole = int(whole_waves * clusters);
  shared.shared_slices = int((units - shared.whole) * slices);
  shared.sharing = int(std::clamp<int64_t>(shared.shared_slices / cost.min_run, 1, clusters));
  const int64_t run = (shared.shared_slices + shared.sharing - 1) / shared.sharing;
  const int64_t pieces = (slices + run - 1) / run + 1;  // most runs one unit is cut across
  const auto time = int64_t(double(shared.whole / clusters * slices) + double(run) * (1.0 + cost.shared_slowdown) +
                            double(cost.fixup_slices * pieces) + 0.5);
  if (time > (1.0 - cost.min_gain) * double(whole_time)) return plan;
  if (busiest) *busiest = time;
  return shared;
}

}  // namespace tessel::impl
