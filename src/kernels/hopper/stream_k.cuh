// Internal: the kernel of step 15 (stream-K; 15_stream_k.cu says what it
// does and why) and its launch, included by the files that instantiate it
// for their tiles and types (15_stream_k*.cu: a few configurations to a
// file, so that they build in parallel).
#pragma once

#include <algorithm>

#include "device/common.cuh"
#include "device/stream_k.cuh"
#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/warp_specialized.cuh"
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

namespace sm90 = device::sm90;
static_assert(kSliceK == sm90::kSliceK, "one slice depth");

// One consumer warpgroup's partial sums (device/stream_k.cuh): thread t's
// accumulators 4i..4i+3 at float4 i * 128 + t (each store and load is 2 KiB
// contiguous), the warpgroup meeting at its named barrier.
template <int N>
__device__ __forceinline__ void save_partial(float4* slot, int* flag, const float (&acc)[N], int t, int barrier) {
  device::save_partial<sm90::kWarpgroup, N / 4>(
      slot, flag, t, [&](int i) { return make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]); },
      [&] { sm90::named_barrier(barrier, sm90::kWarpgroup); });
}

template <int N>
__device__ __forceinline__ void add_partial(const float4* slot, int* flag, float (&acc)[N], int t, int barrier) {
  device::add_partial<sm90::kWarpgroup, N / 4>(
      slot, flag, t,
      [&](int i, float4 v) { acc[4 * i] += v.x, acc[4 * i + 1] += v.y, acc[4 * i + 2] += v.z, acc[4 * i + 3] += v.w; },
      [&] { sm90::named_barrier(barrier, sm90::kWarpgroup); });
}

// Fused: with the epilogue applied to each tile's accumulators (device/fused_epilogue.cuh).
template <class Cfg, class T, bool TA, bool TB, bool Fused = false>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    stream_k_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, device::TcParams<T> p, bool tma_store, StreamKWork sk) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int S = Cfg::kStages, kPair = Cfg::kCluster, N = Cfg::kBN / 2;
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  static_assert(!Cfg::kPingpong, "stream-K: the consumer warpgroups share each tile");
  init_ring(smem, Cfg::kConsumers);

  const int rank = int(sm90::cluster_rank());
  const ClusterTiles<Cfg> tiles(p.m, p.n);
  const int cluster = blockIdx.x / kPair, clusters = gridDim.x / kPair;
  const int slices = int(device::ceil_div(p.k, sm90::kSliceK));
  // Calls visit(unit, k0, k1) for this cluster's segments in order: its
  // whole units, then its run of shared slices from the end backwards.
  auto walk = [&](auto&& visit) {
    for (int u = cluster; u < sk.whole; u += clusters) visit(u, 0, slices);
    if (cluster >= sk.sharing) return;
    const int begin = sk.run_begin(cluster);
    for (int pos = sk.run_begin(cluster + 1); pos > begin;) {  // the segment that ends at pos
      const int unit_start = (pos - 1) / slices * slices, from = std::max(begin, unit_start);
      visit(sk.whole + unit_start / slices, from - unit_start, pos - unit_start);
      pos = from;
    }
  };
  const int warpgroup = threadIdx.x / sm90::kWarpgroup, t = threadIdx.x % sm90::kWarpgroup;
  sm90::Ring<S> ring;
  if (warpgroup == 0) {
    sm90::release_registers<Cfg::kProducerRegs>();
    if (t == 0) {
      sm90::prefetch_tensor_map(&map_a), sm90::prefetch_tensor_map(&map_b);
      walk([&](int u, int k0, int k1) {
        int m0, n0;
        tiles.origin(u, rank, m0, n0);
        produce_tile(smem, &map_a, &map_b, ring, m0, n0, k0, k1, rank);
      });
      producer_tail(smem, ring);
    }
  } else {
    sm90::claim_registers<Cfg::kConsumerRegs>();
    const int consumer = warpgroup - 1, row0 = consumer * 64, barrier = 1 + consumer;
    // Slot of consumer warpgroup `consumer` of CTA `rank` of cluster c.
    auto slot = [&](int c) { return (c * kPair + rank) * Cfg::kConsumers + consumer; };
    if (sk.sharing == 0) {  // whole units only: step 14's schedule, results held as there
      consume_tiles<T, N, Fused>(p, &map_c, tma_store, smem, ring, consumer, t, cluster, sk.whole, clusters,
                                 [&](int u, TileAt& at, SliceScales<>&) {
                                   return tiles.origin(u, rank, at.m0, at.n0), slices;
                                 });
    } else {
      float acc[N];
      StoreState store;
      device::FusedEpilogue<N, device::TcParams<T>> epilogue;  // Fused only
      walk([&](int u, int k0, int k1) {
        int m0, n0;
        tiles.origin(u, rank, m0, n0);
        if constexpr (Fused) epilogue.load(p, n0, t);
        consume_tile<T>(acc, smem, ring, row0, k1 - k0, t == 0);
        if (k1 < slices) {  // the unit's last slices belong to a later cluster: hand these sums to it
          save_partial(reinterpret_cast<float4*>(sk.partials) + int64_t(slot(cluster)) * N / 4 * sm90::kWarpgroup,
                       sk.flags + slot(cluster), acc, t, barrier);
          return;
        }
        if (k0 > 0) {  // earlier clusters computed the first slices: add their sums
          const int unit_start = (u - sk.whole) * slices;
          for (int c = cluster - 1;; --c) {
            add_partial(reinterpret_cast<const float4*>(sk.partials) + int64_t(slot(c)) * N / 4 * sm90::kWarpgroup,
                        sk.flags + slot(c), acc, t, barrier);
            if (sk.run_begin(c) <= unit_start) break;
          }
        }
        if constexpr (Fused) epilogue.apply(p, acc, n0, t);
        store_result(p, &map_c, tma_store, acc, m0 + row0, n0, 0, t, smem, consumer, store);
      });
    }
    if (tma_store && t % 32 == 0) sm90::bulk_wait_all();  // each warp's last stores are done
  }
}

}  // namespace

template <class Cfg, DType AB>
cudaError_t launch_stream_k(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  constexpr int kPair = Cfg::kCluster;
  const int64_t units = ClusterTiles<Cfg>(a.m, a.n).count();
  if (units * kPair > INT32_MAX || a.precision.ab != AB) return cudaErrorInvalidValue;
  if (a.epilogue.any() && (a.precision.c == DType::kF32 || !fuses_in_kernel(a.epilogue))) {
    return cudaErrorInvalidValue;  // fused for 16-bit C and column terms only
  }
  const device::TcParams<T> p = device::tc_params<T>(a);
  return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) {
    using Ops = Sm90Operands<Cfg, T, ta, tb>;
    auto kernel = a.epilogue.any() ? stream_k_kernel<Cfg, T, ta, tb, true> : stream_k_kernel<Cfg, T, ta, tb>;
    StreamKWork sk;  // partial sums: one slot per CTA and consumer warpgroup
    static_cast<StreamKPlan&>(sk) = plan.stream_k;
    if (sk.sharing > 0) {
      if (cudaError_t err = stream_k_work(plan, stream, &sk); err != cudaSuccess) return err;
    }
    // Clusters with work: every one when some units go whole, else those sharing (or one per unit).
    const int64_t used =
        sk.sharing == 0 ? std::min<int64_t>(units, plan.clusters) : sk.whole > 0 ? plan.clusters : sk.sharing;
    CUtensorMap map_a, map_b, map_c;
    bool tma_store = false;
    if (cudaError_t err = make_operand_maps<Ops, ta, tb>(a, &map_a, &map_b); err != cudaSuccess) return err;
    if (cudaError_t err = make_store_map(a, &map_c, &tma_store); err != cudaSuccess) return err;
    return launch_sm90<Cfg, Ops>(kernel, unsigned(used * kPair), stream, false, map_a, map_b, map_c, p, tma_store, sk);
  });
}

template <class Cfg, DType AB>
cudaError_t resident_stream_k(int* clusters) {
  using T = typename device::CudaType<AB>::type;
  return prepare_kernel<Cfg, Sm90Operands<Cfg, T, false, true>>(stream_k_kernel<Cfg, T, false, true>, clusters);
}

// The launch and resident query of configuration Cfg for inputs AB (what the registry names).
#define TESSEL_STREAM_K(Cfg, AB)                                                                  \
  template cudaError_t launch_stream_k<Cfg, AB>(const GemmArgs&, const LaunchPlan&, cudaStream_t); \
  template cudaError_t resident_stream_k<Cfg, AB>(int*)

}  // namespace tessel::impl
