// Step 14: clusters of two CTAs that share B's copies (TMA multicast), TMA-store
// epilogue (Hopper, sm_90a).
//
// What changes over step 13:
//  - The grid is made of clusters of 2 CTAs (thread-block clusters: CTAs
//    scheduled together on one GPC that can reach each other's shared
//    memory). The two CTAs of a cluster take vertically neighbouring
//    128 x 256 tiles, so they need the same 256-column slice of B: each
//    copies half of it and multicasts it into both CTAs' shared memory.
//    Per cluster and k-slice, L2 delivers 2 x 16 KiB of A + 32 KiB of B
//    instead of 2 x (16 + 32) KiB: a third less traffic from L2, which
//    at ~800 TFLOP/s would otherwise have to feed ~9 TB/s.
//  - A stage may be refilled only when the consumers of both CTAs are done
//    with it (the peer's multicast writes into it): each consumer
//    warpgroup arrives on the empty barrier of both CTAs (mapa + a
//    cluster-scope arrive), and each empty barrier counts 2 x 2 arrivals.
//  - Results leave through shared memory and TMA stores (store_tile_tma):
//    each warp writes its 16 rows of C in 128-byte-wide chunks into two
//    swizzled buffers and goes on while the copy engine stores them, so the
//    stores of one tile overlap the wgmmas of the next; with beta != 0 the
//    chunks of C come into the same buffers by TMA loads first. (C, ldc or n not in 16-byte
//    units: direct stores from registers.)
//  - With 16-bit C and beta = 0 a tile's results do not even hold up the
//    next tile: they are rounded into 64 registers of packed pairs
//    (HeldTile) and written out one chunk per k-slice while the next tile's
//    first four slices multiply, so the tensor cores no longer idle for the
//    epilogue.
//  - The persistent grid is as many clusters as the GPU runs at once
//    (cudaOccupancyMaxActiveClusters), each walking pairs of tiles. The
//    CTAs meet at a cluster barrier after setting up their barriers, and a
//    producer leaves only when both CTAs' consumers have released all its
//    stages (the peer may still arrive on them until then).
//  - Tile shapes besides 128 x 256 (configs.hpp), down to 64 x 128 with
//    a single consumer warpgroup for small sizes.
//  - Split-k where the plan asks for it (few units, or k deeper than one
//    accumulation chain should be): the work items are (unit, part of k),
//    each part's FP32 results go to its own rows of the workspace, and a
//    second kernel sums the parts in order into C (the same bits every run).
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 16 bytes (TMA);
// C any alignment. f16 and bf16 inputs, or FP32 inputs read as tf32 (the
// wgmma m64nNk8 variant; operands not stored K-major are first copied so,
// copy_operands); FP32 accumulation.
#include <algorithm>

#include "device/common.cuh"
#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/warp_specialized.cuh"
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

namespace sm90 = device::sm90;

// The parts k is cut into: `count` parts of `slices` k-slices (the last
// shorter); part z's results go z * rows rows down the output (p.C: the
// workspace when count > 1). m: the call's own m.
struct KParts {
  int count, slices, rows;
  int64_t m;
};

template <class Cfg, class T, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    cluster_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const __grid_constant__ CUtensorMap map_c, device::TcParams<T> p, bool tma_store, KParts parts) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int S = Cfg::kStages, kPair = Cfg::kCluster;
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  init_ring(smem, Cfg::kConsumers);

  // The cluster walks work items: cluster tiles (ClusterTiles) part by part;
  // this CTA takes tile `rank` of each.
  const int rank = int(sm90::cluster_rank());
  const ClusterTiles<Cfg> tiles(parts.m, p.n);
  const int cluster_tiles = int(tiles.count()), items = cluster_tiles * parts.count;
  const int first = blockIdx.x / kPair, stride = gridDim.x / kPair;
  const int slices = int(device::ceil_div(p.k, Ops::kSliceK));
  // Item w: its tile's corner, its k-slices [k0, k1); returns its part.
  auto item = [&](int w, int& m0, int& n0, int& k0, int& k1) {
    const int part = w / cluster_tiles;
    tiles.origin(w - part * cluster_tiles, rank, m0, n0);
    k0 = part * parts.slices, k1 = min(slices, k0 + parts.slices);
    return part;
  };
  const int warpgroup = threadIdx.x / sm90::kWarpgroup, t = threadIdx.x % sm90::kWarpgroup;
  sm90::Ring<S> ring;
  if (warpgroup == 0) {
    sm90::release_registers<Cfg::kProducerRegs>();
    if (t == 0) {
      sm90::prefetch_tensor_map(&map_a), sm90::prefetch_tensor_map(&map_b);
      for (int w = first; w < items; w += stride) {
        int m0, n0, k0, k1;
        item(w, m0, n0, k0, k1);
        produce_tile(smem, &map_a, &map_b, ring, m0, n0, k0, k1, rank);
      }
      producer_tail(smem, ring);
    }
  } else {
    sm90::claim_registers<Cfg::kConsumerRegs>();
    consume_tiles<T, Cfg::kBN / 2>(p, &map_c, tma_store, smem, ring, warpgroup - 1, t, first, items, stride,
                                   [&](int w, int& m0, int& n0) {
                                     int k0, k1;
                                     const int part = item(w, m0, n0, k0, k1);
                                     m0 += part * parts.rows;
                                     return k1 - k0;
                                   });
    if (tma_store && t % 32 == 0) sm90::bulk_wait_all();  // each warp's last stores are done
  }
}

// Launches the kernel of op pair (TA, TB) for the validated call a.
template <class Cfg, class T, bool TA, bool TB>
cudaError_t launch_ops(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int kPair = Cfg::kCluster;
  const int64_t cluster_tiles = ClusterTiles<Cfg>(a.m, a.n).count();
  KParts parts{1, int(device::ceil_div(a.k, Ops::kSliceK)), 0, a.m};
  GemmArgs out;  // where the kernel's results go: C, or the split-k parts stacked by rows
  if (cudaError_t err = split_parts_output(a, plan, stream, &out); err != cudaSuccess) return err;
  if (plan.splits > 1) {
    parts = {int(plan.splits), int(plan.k_per_split / Ops::kSliceK), int(plan.part_rows), a.m};
    out.m = plan.splits * plan.part_rows;
  }
  const int64_t items = cluster_tiles * parts.count;
  if (items * kPair > INT32_MAX) return cudaErrorInvalidValue;
  auto kernel = cluster_kernel<Cfg, T, TA, TB>;
  int clusters = 0;
  if (cudaError_t err = prepare_kernel<Cfg, Ops>(kernel, &clusters); err != cudaSuccess) return err;
  if (clusters < 1) return cudaErrorInvalidConfiguration;
  const unsigned grid = unsigned(std::min<int64_t>(items, plan.clusters) * kPair);
  CUtensorMap map_a, map_b, map_c;
  bool tma_store = false;
  if (cudaError_t err = make_operand_maps<Ops, TA, TB>(a, &map_a, &map_b); err != cudaSuccess) return err;
  if (cudaError_t err = make_store_map(out, &map_c, &tma_store); err != cudaSuccess) return err;
  if (cudaError_t err =
          launch_sm90<Cfg, Ops>(kernel, grid, stream, map_a, map_b, map_c, device::tc_params<T>(out), tma_store, parts);
      err != cudaSuccess) {
    return err;
  }
  return sum_split_parts(a, plan, out, stream);
}

}  // namespace

// f16 and bf16: a kernel per op pair (wgmma's transpose bits). FP32 as
// tf32: wgmma reads tf32 K-major only, so the plan has operands stored
// otherwise copied transposed (and rounded) first, and one kernel (op pair
// N, T) serves every call; operands already K-major are rounded by TMA as it
// loads them (tensor maps of type TFLOAT32).
template <class Cfg, DType AB>
cudaError_t launch_cluster(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  if (a.precision.ab != AB) return cudaErrorInvalidValue;
  if constexpr (AB == DType::kF32) {  // the plan's copies made both operands K-major
    if (a.opA != Op::N || a.opB != Op::T) return cudaErrorInvalidValue;
    return launch_ops<Cfg, T, false, true>(a, plan, stream);
  } else {
    return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) { return launch_ops<Cfg, T, ta, tb>(a, plan, stream); });
  }
}

template <class Cfg, DType AB>
cudaError_t resident_cluster(int* clusters) {
  using T = typename device::CudaType<AB>::type;
  return prepare_kernel<Cfg, Sm90Operands<Cfg, T, false, true>>(cluster_kernel<Cfg, T, false, true>, clusters);
}

// The configurations the registry lists (src/dispatch/registry.cpp).
template cudaError_t launch_cluster<Cluster128x256, DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x256, DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x128, DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x128, DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x192, DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x192, DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster64x128, DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster64x128, DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x256, DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x192, DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster128x128, DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_cluster<Cluster64x128, DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

template cudaError_t resident_cluster<Cluster128x256, DType::kF16>(int*);
template cudaError_t resident_cluster<Cluster128x256, DType::kBF16>(int*);
template cudaError_t resident_cluster<Cluster128x128, DType::kF16>(int*);
template cudaError_t resident_cluster<Cluster128x128, DType::kBF16>(int*);
template cudaError_t resident_cluster<Cluster128x192, DType::kF16>(int*);
template cudaError_t resident_cluster<Cluster128x192, DType::kBF16>(int*);
template cudaError_t resident_cluster<Cluster64x128, DType::kF16>(int*);
template cudaError_t resident_cluster<Cluster64x128, DType::kBF16>(int*);
template cudaError_t resident_cluster<Cluster128x256, DType::kF32>(int*);
template cudaError_t resident_cluster<Cluster128x192, DType::kF32>(int*);
template cudaError_t resident_cluster<Cluster128x128, DType::kF32>(int*);
template cudaError_t resident_cluster<Cluster64x128, DType::kF32>(int*);

}  // namespace tessel::impl
