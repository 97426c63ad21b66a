// Internal: what the Hopper kernels share on both sides of the launch: the
// operand layouts of a configuration and op pair, their tensor maps, and
// the dynamic shared memory a configuration needs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "device/common.cuh"
#include "device/sm90.cuh"
#include "kernels/context.hpp"
#include "kernels/launch_plan.hpp"
#include "kernels/hopper/tensor_map.hpp"

namespace tessel::impl {

// One buffer of a TMA-store epilogue: a consumer warpgroup's chunk of C, 64
// rows x 128 bytes, in four boxes of make_store_map (16 rows: one warp's).
constexpr int kStoreBufferBytes = 64 * 128;
constexpr int kStoreBoxRows = 16;
constexpr int kStoreBoxBytes = kStoreBoxRows * 128;
constexpr int kStoreBoxes = kStoreBufferBytes / kStoreBoxBytes;  // per buffer: one per warp of the warpgroup
static_assert(kStoreBoxes * 32 == device::sm90::kWarpgroup, "a store box per warp");

// A is K-major for op N (m x k, k contiguous), MN-major for op T; B is
// MN-major for op N (k x n, n contiguous), K-major for op T. (T = float,
// read as tf32: op pair N, T only.)
template <class Cfg, class T, bool TA, bool TB>
struct Sm90Operands {
  static constexpr int kCluster = Cfg::kCluster;  // CTAs that share the loads of B
  static constexpr int kConsumers = Cfg::kConsumers;  // warpgroups that multiply
  static constexpr bool kPingpong = Cfg::kPingpong;    // each multiplying tiles of its own, in turn
  static constexpr int kStageReaders = kPingpong ? 1 : kConsumers;  // warpgroups that read each stage
  using A = device::sm90::Operand<T, Cfg::kBM, !TA>;
  using B = device::sm90::Operand<T, Cfg::kBN, TB, kCluster>;
  static constexpr int kSliceK = A::kSliceK;  // k elements per slice
  // Whether launch_ops may run the kernel on a swapped call, its results stored transposed (step 16's
  // swapped tiles; tf32's op pair (T, T), which serves (N, N)).
  static constexpr bool kTransposedC = TB && (Cfg::kSwapped || (sizeof(T) == 4 && TA));
  static constexpr int kStageBytes = A::kBytes + B::kBytes;
  // Output staging for a TMA-store epilogue: two buffers per consumer
  // warpgroup, each with a C-loaded barrier per warp.
  static constexpr int kStoreBuffers = Cfg::kTmaStore ? 2 * Cfg::kConsumers : 0;
  static constexpr int kCLoaded = kStoreBuffers * kStoreBoxes;
  static constexpr int kTurns = kPingpong ? kConsumers : 0;  // ping-pong: a warpgroup's turn to multiply
  static_assert(!kPingpong || kConsumers == 2, "two warpgroups take turns");
  // Stages of A and B; a full and an empty barrier per stage and the
  // C-loaded barriers (in a 1 KiB block, so that the store buffers after
  // them stay swizzle-aligned); the store buffers; slack to align the start
  // to a swizzle atom.
  static constexpr int kSmemBytes = Cfg::kStages * kStageBytes + device::sm90::kSwizzleAtom +
                                    kStoreBuffers * kStoreBufferBytes + device::sm90::kSwizzleAtom;
  static_assert((2 * Cfg::kStages + kCLoaded + kTurns) * 8 <= device::sm90::kSwizzleAtom, "barriers fit their block");
};

// The shared-memory carve-up of Sm90Operands: stage s of A and B, the barriers, the store buffers.
template <class Ops, int Stages>
struct Sm90Smem {
  char* base;
  __device__ explicit Sm90Smem(void* raw)
      : base(reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + device::sm90::kSwizzleAtom - 1) &
                                     ~uintptr_t(device::sm90::kSwizzleAtom - 1))) {}
  __device__ char* a(int s) const { return base + s * Ops::A::kBytes; }
  __device__ char* b(int s) const { return base + Stages * Ops::A::kBytes + s * Ops::B::kBytes; }
  __device__ uint64_t* full() const { return reinterpret_cast<uint64_t*>(base + Stages * Ops::kStageBytes); }
  __device__ uint64_t* empty() const { return full() + Stages; }
  // The barriers that count the bytes of C loaded into consumer warpgroup
  // `consumer`'s two store buffers: [2 w + b] for warp w's part of buffer b.
  __device__ uint64_t* c_loaded(int consumer) const { return empty() + Stages + 2 * kStoreBoxes * consumer; }
  // Ping-pong: turns()[c] completes each time the other warpgroup has multiplied a tile's last slice.
  __device__ uint64_t* turns() const { return c_loaded(0) + Ops::kCLoaded; }
  // The two store buffers of consumer warpgroup `consumer`.
  __device__ char* store_buffers(int consumer) const {
    return base + Stages * Ops::kStageBytes + device::sm90::kSwizzleAtom + 2 * consumer * kStoreBufferBytes;
  }
};

// The tiles of a clustered kernel (steps 14, 15), walked by cluster tile:
// Cfg::kCluster neighbouring row tiles of one column (they share B). Past m,
// a cluster's last tile loads zeros and stores nothing, but still shares.
template <class Cfg>
struct ClusterTiles : ClusterUnits {
  __host__ __device__ ClusterTiles(int64_t m, int64_t n) : ClusterUnits(m, n, Cfg::kBM, Cfg::kBN, Cfg::kCluster) {}
  // Where CTA `rank`'s tile of cluster tile `u` (grouped order) starts.
  __device__ void origin(int u, int rank, int& m0, int& n0) const {
    int bm, bn;
    device::grouped_tile<Cfg::kGroup>(u, int(along_m), int(along_n), bm, bn);
    m0 = (bm * Cfg::kCluster + rank) * Cfg::kBM;
    n0 = bn * Cfg::kBN;
  }
};

// The largest m, n, k a tensor map coordinate (int32) reaches.
constexpr int64_t kMaxTmaExtent = INT32_MAX - 256;

// Builds the tensor maps of A and B for Ops (the layouts of one op pair):
// rank 3, the third coordinate the matrix of a strided batch (one matrix
// where the call has no batch, or broadcasts that operand: stride 0).
template <class Ops, bool TA, bool TB>
cudaError_t make_operand_maps(const GemmArgs& a, CUtensorMap* map_a, CUtensorMap* map_b) {
  if (a.m > kMaxTmaExtent || a.n > kMaxTmaExtent || a.k > kMaxTmaExtent || a.batch > kMaxTmaExtent) {
    return cudaErrorInvalidValue;
  }
  const DType ab = a.precision.ab;
  const bool tf32 = a.precision.compute == Compute::kTF32;
  const int64_t batch_a = a.stride_a != 0 ? a.batch : 1, batch_b = a.stride_b != 0 ? a.batch : 1;
  // A: op N stored m x k; op T stored k x m. B: op N stored k x n; op T stored n x k.
  if (cudaError_t err = make_batched_tensor_map(map_a, a.A, ab, TA ? a.m : a.k, TA ? a.k : a.m, a.lda, batch_a,
                                                a.stride_a, Ops::A::kBoxInner, Ops::A::kBoxOuter, tf32);
      err != cudaSuccess) {
    return err;
  }
  return make_batched_tensor_map(map_b, a.B, ab, TB ? a.k : a.n, TB ? a.n : a.k, a.ldb, batch_b, a.stride_b,
                                 Ops::B::kBoxInner, Ops::B::kBoxOuter, tf32);
}

// The cluster launch attribute of Ops (clusters of Ops::kCluster CTAs along x).
template <class Ops>
cudaLaunchAttribute cluster_attribute() {
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = Ops::kCluster, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
  return cluster;
}

// Once per context and kernel (the answers are cached, so a GEMM call pays
// for them only the first time): raises kernel's dynamic shared memory
// limit to Ops::kSmemBytes and returns in *resident how many clusters of
// Ops::kCluster blocks (single blocks when kCluster is 1) the GPU runs at
// once; 0 when none fits (a partitioned GPU): launch_sm90 then refuses.
// Grids larger than that still finish: the persistent kernels wait only on
// lower-indexed clusters.
template <class Cfg, class Ops, class... Params>
cudaError_t prepare_kernel(void (*kernel)(Params...), int* resident) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, uint64_t>, int> cache;  // (kernel, context) -> resident
  int device = 0;
  uint64_t context = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (cudaError_t err = current_context(&context); err != cudaSuccess) return err;
  // Per context, not device: cudaDeviceReset() forgets the raised limit with the context.
  const std::pair<const void*, uint64_t> key{reinterpret_cast<const void*>(kernel), context};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) {
      *resident = it->second;
      return cudaSuccess;
    }
  }
  if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Ops::kSmemBytes);
      err != cudaSuccess) {
    return err;
  }
  if constexpr (Ops::kCluster > 1) {
    cudaLaunchAttribute cluster = cluster_attribute<Ops>();
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(Ops::kCluster), config.blockDim = dim3(Cfg::kThreads);
    config.dynamicSmemBytes = Ops::kSmemBytes, config.attrs = &cluster, config.numAttrs = 1;
    if (cudaError_t err = cudaOccupancyMaxActiveClusters(resident, kernel, &config); err != cudaSuccess) return err;
  } else {
    int per_sm = 0, sms = 0;
    if (cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Cfg::kThreads, Ops::kSmemBytes);
        err != cudaSuccess) {
      return err;
    }
    if (cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); err != cudaSuccess) {
      return err;
    }
    *resident = per_sm * sms;
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache[key] = *resident;
  return cudaSuccess;
}

// Launches kernel(args...) on `grid` blocks of Cfg::kThreads (in clusters
// of Ops::kCluster along x) with Ops' shared memory. after_trigger: launched
// as soon as the kernel before it on the stream lets it (programmatic
// dependent launch), which the kernel then waits for before it reads what
// that kernel wrote (device::wait_for_prior_grid).
template <class Cfg, class Ops, class... Params, class... Args>
cudaError_t launch_sm90(void (*kernel)(Params...), unsigned grid, cudaStream_t stream, bool after_trigger,
                        Args&&... args) {
  int resident = 0;
  if (cudaError_t err = prepare_kernel<Cfg, Ops>(kernel, &resident); err != cudaSuccess) return err;
  if (resident < 1) return cudaErrorInvalidConfiguration;
  cudaLaunchAttribute attrs[2] = {cluster_attribute<Ops>(), {}};
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid), config.blockDim = dim3(Cfg::kThreads), config.dynamicSmemBytes = Ops::kSmemBytes;
  config.stream = stream;
  config.attrs = Ops::kCluster > 1 ? attrs : attrs + 1;
  config.numAttrs = (Ops::kCluster > 1 ? 1 : 0) + (after_trigger ? 1 : 0);
  const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (err != cudaSuccess) cudaGetLastError();  // as device::launch: the error is returned, not left pending
  return err;
}

// The launch of steps 11-13 for the call's op pair: builds A's and B's
// tensor maps and launches kernel_for(ta, tb) (a kernel taking (map_a,
// map_b, TcParams<T>)) on one block per tile or, when Persistent, on the
// plan's blocks (each walks several tiles).
template <class Cfg, DType AB, bool Persistent, class KernelFor>
cudaError_t launch_tiled(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream, KernelFor kernel_for) {
  using T = typename device::CudaType<AB>::type;
  const int64_t tiles = device::ceil_div(a.m, Cfg::kBM) * device::ceil_div(a.n, Cfg::kBN);
  if (tiles > INT32_MAX || a.precision.ab != AB) return cudaErrorInvalidValue;
  const device::TcParams<T> p = device::tc_params<T>(a);
  return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) {
    using Ops = Sm90Operands<Cfg, T, ta, tb>;
    auto kernel = kernel_for(ta, tb);
    const unsigned grid = unsigned(Persistent ? std::min<int64_t>(tiles, plan.clusters) : tiles);
    CUtensorMap map_a, map_b;
    if (cudaError_t err = make_operand_maps<Ops, ta, tb>(a, &map_a, &map_b); err != cudaSuccess) return err;
    return launch_sm90<Cfg, Ops>(kernel, grid, stream, false, map_a, map_b, p);
  });
}

// The TMA-store epilogue's tensor map over C (rank 3: the matrices of a
// strided batch), in *map, when this call can use it (*tma_store): C, ldc,
// n and the batch stride in 16-byte units. A TMA store writes
// whole 16-byte pieces, so a row that ends inside one would overwrite the
// elements after it (measured: n = 7 bf16 wrote the 8th element of each
// row). Boxes of 16 rows (one warp's) x 128 bytes.
inline cudaError_t make_store_map(const GemmArgs& a, CUtensorMap* map, bool* tma_store) {
  const size_t c_size = size_of(a.precision.c);
  *tma_store = reinterpret_cast<uintptr_t>(a.C) % 16 == 0 && a.ldc * c_size % 16 == 0 && a.n * c_size % 16 == 0 &&
               (a.batch == 1 || a.stride_c * c_size % 16 == 0);
  *map = CUtensorMap{};
  return *tma_store ? make_batched_tensor_map(map, a.C, a.precision.c, a.n, a.m, a.ldc,
                                              a.stride_c != 0 ? a.batch : 1, a.stride_c, int(128 / c_size),
                                              kStoreBoxRows)
                    : cudaSuccess;
}

}  // namespace tessel::impl
