// Internal: the kernel of steps 14 and 17 (clusters of two CTAs sharing B's
// copies by TMA multicast, TMA-store epilogue, split-k parts) and its
// launch, included by the files that instantiate it for their types and
// tiles, a few configurations to a file so that they build in parallel
// (14_cluster_*.cu: f16, bf16, tf32; 17_fp8.cu: e4m3, e5m2).
#pragma once

#include <algorithm>
#include <climits>
#include <utility>
#include <type_traits>

#include "device/common.cuh"
#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/pointer_maps.cuh"
#include "kernels/hopper/warp_specialized.cuh"
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {

namespace sm90 = device::sm90;

// The parts k is cut into: `count` parts of `slices` k-slices (the last
// shorter); part z's results go z * rows rows down the output (p.C: the
// workspace when count > 1). m: the call's own m.
struct KParts {
  int count, slices, rows;
  int64_t m;
};

// A strided batch: `count` matrices of C, each walked as a whole call; A's
// and B's matrices advance with C's unless that operand is broadcast (a, b
// false). A grouped GEMM: `count` groups of rows of one A and C, with B's
// matrix g: group g rows offsets[g] .. offsets[g + 1] - 1 (clamped to 0..m),
// or (masked) its first counts[g] rows (clamped to 0..capacity) from g *
// capacity on.
struct Batches {
  int count;
  bool a, b;
  const int64_t* offsets = nullptr;
  const int64_t* counts = nullptr;
  int64_t capacity = 0;
  __device__ bool grouped() const { return offsets != nullptr || counts != nullptr; }
};

// The producer's maps for the matrix it loads: the kernel's, or a
// pointer-array batch's maps of that matrix (TcParams::matrix_maps,
// acquired as it changes).
struct ProducerMaps {
  const CUtensorMap* a;
  const CUtensorMap* b;
  int matrix = -1;
  __device__ void at(const CUtensorMap* maps, int m) {
    if (maps == nullptr || m == matrix) return;
    matrix = m;
    a = &maps[3 * m], b = a + 1;
    device::sm90::acquire_tensor_map(a), device::sm90::acquire_tensor_map(b);
  }
};

// The walk over a grouped GEMM's work items, one thread's: its items come in
// increasing order, so the group of the next one is found by walking on from
// the last (each group's offsets read once). Group g has the cluster tiles of
// its rows (none for no rows).
template <class Cfg>
struct GroupWalk {
  const Batches& groups;
  int64_t m;
  int n;
  int g = -1, first = 0, units = 0;  // group g's items are [first, first + units)
  int64_t row0 = 0, row_end = 0;
  __device__ GroupWalk(const Batches& b, int64_t m_, int n_) : groups(b), m(m_), n(n_) {}
  // Item w (not below the last one asked): its group's rows and the item's cluster tile in them; false past the end.
  __device__ bool find(int w, ClusterTiles<Cfg>& tiles, int& u) {
    while (w >= first + units) {
      if (++g >= groups.count) return false;
      first += units;
      if (groups.counts != nullptr) {
        row0 = g * groups.capacity;
        row_end = row0 + min(max(groups.counts[g], int64_t(0)), groups.capacity);
      } else {
        row0 = min(max(groups.offsets[g], int64_t(0)), m);
        row_end = min(max(groups.offsets[g + 1], row0), m);
      }
      tiles = ClusterTiles<Cfg>(row_end - row0, n);
      units = int(tiles.count());
    }
    u = w - first;
    return true;
  }
};

// The walk over problems' work items (ProblemParams), as GroupWalk's: problem
// g has the cluster tiles of its own m x n (none where its maps block
// multiplies it, problem_apart) and its own count of k-slices; its C is its
// own, every row (clipped by its map or its stores).
template <class Cfg, class T, int SliceK>
struct ProblemWalk {
  const GemmProblem* problems;
  int count;
  int64_t m, n, k;  // the bounds
  int g = -1, first = 0, units = 0, slices = 0;  // problem g's items are [first, first + units)
  int64_t row0 = 0, row_end = INT64_MAX;
  __device__ bool find(int w, ClusterTiles<Cfg>& tiles, int& u) {
    while (w >= first + units) {
      if (++g >= count) return false;
      first += units;
      const GemmProblem q = clamped_problem(problems, g, m, n, k);
      const bool apart = q.m == 0 || q.n == 0 || problem_apart<T>(q);
      slices = int(device::ceil_div(q.k, int64_t(SliceK)));
      tiles = ClusterTiles<Cfg>(apart ? 0 : q.m, q.n);
      units = int(tiles.count());
    }
    u = w - first;
    return true;
  }
};

// Blocks: FP8 with block scales (GemmArgs::block_scales; kFp8BlockScales), a
// kernel of its own so that per-tensor calls carry none of it, and Columns
// one more for B's scales per column (b_block_n = 1); Problems: a
// grouped GEMM of problems (ProblemParams, ProblemWalk), likewise.
template <class Cfg, class T, class Out, bool TA, bool TB, bool Blocks = false, bool Fused = false,
          bool Problems = false, bool Columns = false>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    cluster_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const __grid_constant__ CUtensorMap map_c,
                   std::conditional_t<Problems, device::ProblemParams<T, Out>, device::TcParams<T, Out>> p,
                   bool tma_store, KParts parts, Batches batches) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int S = Cfg::kStages, kPair = Cfg::kCluster;
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  static_assert(!(Blocks && Cfg::kPingpong), "block scales: one tile's rows across the consumer warpgroups");
  init_ring(smem, Ops::kStageReaders);
  if (p.matrix_maps != nullptr) device::wait_for_prior_grid();  // the maps (pointer_maps.cuh)
  if (parts.count > 1) sm90::launch_dependents();  // the parts' sum may launch (it waits for this grid)

  // The cluster walks work items: cluster tiles (ClusterTiles) part by part,
  // matrix by matrix; this CTA takes tile `rank` of each.
  const int rank = int(sm90::cluster_rank());
  const ClusterTiles<Cfg> tiles(parts.m, p.n);
  const int cluster_tiles = int(tiles.count()), per_matrix = cluster_tiles * parts.count;
  // Grouped: until the walk ends.
  const int items = Problems || batches.grouped() ? INT_MAX : per_matrix * batches.count;
  const int first = blockIdx.x / kPair, stride = gridDim.x / kPair;
  const int slices = int(device::ceil_div(p.k, Ops::kSliceK));
  // Item w: its matrix, its tile's corner, its k-slices [k0, k1); returns its
  // part (-1 past the last item of a grouped GEMM, whose count the offsets give).
  auto walk = [&] {
    if constexpr (Problems) {
      return ProblemWalk<Cfg, T, Ops::kSliceK>{p.problems, batches.count, parts.m, p.n, p.k};
    } else {
      return GroupWalk<Cfg>(batches, parts.m, int(p.n));
    }
  }();
  ClusterTiles<Cfg> group_tiles = tiles;
  auto item = [&](int w, TileAt& at, int& k0, int& k1) {
    k0 = 0, k1 = slices;
    if (Problems || batches.grouped()) {  // the group's own tiles, its rows from row0 on
      int u = 0;
      if (!walk.find(w, group_tiles, u)) return -1;
      group_tiles.origin(u, rank, at.m0, at.n0);
      at.m0 += int(walk.row0), at.row_end = walk.row_end;  // C is one matrix; B's is the group's
      if constexpr (Problems) at.matrix = walk.g, k1 = walk.slices;  // a problem: its own matrices and k
      return 0;
    }
    at.matrix = w / per_matrix;
    w -= at.matrix * per_matrix;
    const int part = w / cluster_tiles;
    tiles.origin(w - part * cluster_tiles, rank, at.m0, at.n0);
    k0 = part * parts.slices, k1 = min(slices, k0 + parts.slices);
    return part;
  };
  const int warpgroup = threadIdx.x / sm90::kWarpgroup, t = threadIdx.x % sm90::kWarpgroup;
  sm90::Ring<S> ring;
  if (warpgroup == 0) {
    sm90::release_registers<Cfg::kProducerRegs>();
    if (t == 0) {
      sm90::prefetch_tensor_map(&map_a), sm90::prefetch_tensor_map(&map_b);
      ProducerMaps maps{&map_a, &map_b};
      for (int w = first; w < items; w += stride) {
        TileAt at;
        int k0, k1;
        if (item(w, at, k0, k1) < 0) break;
        const int matrix = Problems || batches.grouped() ? walk.g : at.matrix;
        maps.at(p.matrix_maps, matrix);
        produce_tile(smem, maps.a, maps.b, ring, at.m0, at.n0, k0, k1, rank, batches.a ? matrix : 0,
                     batches.b ? matrix : 0);
      }
      producer_tail(smem, ring);
    }
  } else {
    sm90::claim_registers<Cfg::kConsumerRegs>();
    if constexpr (sizeof(T) == 1) device::fold_scales(p);
    using Scales = SliceScales<Columns>;
    consume_tiles<T, Cfg::kBN / 2, Fused, Scales>(p, &map_c, tma_store, smem, ring, warpgroup - 1, t, first, items,
                                                  stride, [&](int w, TileAt& at, Scales& scales) {
                                                    int k0, k1;
                                                    const int part = item(w, at, k0, k1);
                                                    if (part < 0) return -1;
                                                    if constexpr (Blocks) {  // this thread's rows (wgmma's layout)
                                                      const int row =
                                                          (warpgroup - 1) * 64 + 16 * (t / 32) + (t % 32) / 4;
                                                      scales = Scales(p, parts.m, int64_t(at.m0) + row, at.n0, k0);
                                                    }
                                                    at.m0 += part * parts.rows;
                                                    return k1 - k0;
                                                  });
    if (tma_store && t % 32 == 0) sm90::bulk_wait_all();  // each warp's last stores are done
  }
}

// The tensor maps of a pointer-array batch or of problems (p->matrix_maps,
// in the plan's workspace): the host makes those of Ops' layouts over a
// stand-in address (*map_a, *map_b, *map_c; *tma_store: whether C's rows
// allow TMA stores; problems: rows in 16-byte units, each problem's own
// sizes and rows replacing them), a block per matrix its own from them
// (pointer_maps.cuh).
template <class Ops, class T, class Out, bool TA, bool TB, class P>
cudaError_t pointer_maps(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream, P* p, CUtensorMap* map_a,
                         CUtensorMap* map_b, CUtensorMap* map_c, bool* tma_store) {
  void* region = nullptr;
  if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kTensorMaps, &region); err != cudaSuccess) {
    return err;
  }
  GemmArgs stand_in = a;
  stand_in.A = stand_in.B = stand_in.C = region;  // 16-byte aligned; every matrix's maps replace it
  if (problems(a)) {  // leading dimensions of whole 16-byte units, the bounds' rows rounded up
    const auto units = [](int64_t elements, DType t) {
      const int64_t per = 16 / int64_t(size_of(t));
      return std::max<int64_t>(per, (elements + per - 1) / per * per);
    };
    stand_in.lda = units(a.opA == Op::N ? a.k : a.m, a.precision.ab);
    stand_in.ldb = units(a.opB == Op::N ? a.n : a.k, a.precision.ab);
    stand_in.n = stand_in.ldc = units(a.n, a.precision.c);
  }
  if (cudaError_t err = make_operand_maps<Ops, TA, TB>(stand_in, map_a, map_b); err != cudaSuccess) return err;
  if (cudaError_t err = make_store_map(stand_in, map_c, tma_store); err != cudaSuccess) return err;
  p->matrix_maps = static_cast<const CUtensorMap*>(region);
  auto kernel = [] {
    if constexpr (P::kProblems) {
      return problem_maps_kernel<T, Out, TA, TB>;
    } else {
      return pointer_maps_kernel<T, Out, TA, TB>;
    }
  }();
  return device::launch(kernel, unsigned(a.batch), kMapThreads, 0, stream, *map_a, *map_b, *map_c, *tma_store, *p,
                        static_cast<CUtensorMap*>(region));
}

// Launches the kernel of op pair (TA, TB) for the validated call a (Out: C's
// 16-bit type, when C is not FP32). transposed: a is the call with A and B
// swapped (swapped_call), whose results go to C transposed (split-k parts
// side by side along C's rows, then summed into it).
template <class Cfg, class T, bool TA, bool TB, class Out = T, bool Blocks = false, bool Columns = false>
cudaError_t launch_ops(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream, bool transposed = false) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int kPair = Cfg::kCluster;
  const int64_t cluster_tiles = ClusterTiles<Cfg>(a.m, a.n).count();
  KParts parts{1, int(device::ceil_div(a.k, Ops::kSliceK)), 0, a.m};
  GemmArgs out;  // where the kernel's results go: C, or the split-k parts stacked by rows
  if (cudaError_t err = split_parts_output(a, plan, stream, &out); err != cudaSuccess) return err;
  if (plan.splits > 1) {
    if (a.batch > 1) return cudaErrorInvalidValue;  // the plan splits no batch
    parts = {int(plan.splits), int(plan.k_per_split / Ops::kSliceK), int(plan.part_rows), a.m};
    out.m = plan.splits * plan.part_rows;
    if (transposed) out.ldc = out.m;  // C's a.n rows, each part's a.m columns in turn (within the plan's bytes)
  }
  if (a.batch > INT32_MAX) return cudaErrorInvalidValue;
  const Batches batches{int(a.batch), a.stride_a != 0, a.stride_b != 0, a.group_offsets, a.group_counts,
                        group_capacity(a)};
  // A grouped GEMM's items are known on the device only: every cluster the plan has walks them.
  const int64_t items = grouped(a) || problems(a) ? int64_t(plan.clusters) : cluster_tiles * parts.count * a.batch;
  if (items * kPair > INT32_MAX) return cudaErrorInvalidValue;
  device::TcParams<T, Out> p = device::tc_params<T, Out>(out);
  p.c_transposed = transposed;
  // The kernel on its parameters: the maps (each matrix's made on the device, or the host's), the launch
  // and, for split k, the parts' sum.
  auto launch = [&](auto kernel, auto params) {
    int clusters = 0;
    if (cudaError_t err = prepare_kernel<Cfg, Ops>(kernel, &clusters); err != cudaSuccess) return err;
    if (clusters < 1) return cudaErrorInvalidConfiguration;
    const unsigned grid = unsigned(std::min<int64_t>(items, plan.clusters) * kPair);
    CUtensorMap map_a, map_b, map_c{};
    bool tma_store = false;
    if (device_matrices(a)) {
      if (cudaError_t err = pointer_maps<Ops, T, Out, TA, TB>(a, plan, stream, &params, &map_a, &map_b, &map_c,
                                                               &tma_store);
          err != cudaSuccess) {
        return err;
      }
    } else {
      if (cudaError_t err = make_operand_maps<Ops, TA, TB>(a, &map_a, &map_b); err != cudaSuccess) return err;
      if (!transposed && Cfg::kTmaStore) {  // transposed results leave by direct stores
        if (cudaError_t err = make_store_map(out, &map_c, &tma_store); err != cudaSuccess) return err;
      }
    }
    if (cudaError_t err = launch_sm90<Cfg, Ops>(kernel, grid, stream, device_matrices(a), map_a, map_b, map_c, params,
                                                tma_store, parts, batches);
        err != cudaSuccess) {
      return err;
    }
    if (transposed && plan.splits > 1) {
      return launch_sum_parts(static_cast<const float*>(out.C), plan.splits, plan.part_rows, out.ldc, a.beta, a.C,
                              a.n, a.m, a.ldc, stream, a.precision.c, true);
    }
    return sum_split_parts(a, plan, out, stream, true);
  };
  if (problems(a)) {  // the kernel compiled for them (dispatch sends no epilogue, split or swapped call)
    if constexpr (!Blocks && !Cfg::kSwapped && (sizeof(T) == 2 || (!TA && TB))) {  // tf32, FP8: N, T only
      device::ProblemParams<T, Out> q;
      static_cast<device::TcParams<T, Out>&>(q) = p;
      q.problems = a.problems;
      return launch(cluster_kernel<Cfg, T, Out, TA, TB, false, false, true>, q);
    }
    return cudaErrorInvalidValue;
  }
  // A fused epilogue (16-bit inputs and C, device::kFusesEpilogue) runs the kernel compiled with it;
  // dispatch sends no other call with an epilogue here (never dropped silently).
  if (out.epilogue.any()) {
    if constexpr (device::kFusesEpilogue<T, Out> && !Blocks && Cfg::kBN % 64 == 0) {  // whole pairs a lane
      if (out.precision.c == DType::kF32 || !fuses_in_kernel(out.epilogue)) return cudaErrorInvalidValue;
      return launch(cluster_kernel<Cfg, T, Out, TA, TB, Blocks, true>, p);
    }
    return cudaErrorInvalidValue;
  }
  return launch(cluster_kernel<Cfg, T, Out, TA, TB, Blocks, false, false, Columns>, p);
}

// The call with A and B swapped, Cᵀ = Bᵀ·Aᵀ: B becomes the A of op flip(opB) (for op N, k x n with n
// contiguous: an A stored MN-major) and A the B of op flip(opA) (for op N: a B stored K-major).
inline GemmArgs swapped_call(const GemmArgs& a) {
  GemmArgs s = a;
  std::swap(s.A, s.B), std::swap(s.lda, s.ldb), std::swap(s.m, s.n), std::swap(s.stride_a, s.stride_b);
  s.opA = a.opB == Op::N ? Op::T : Op::N;
  s.opB = a.opA == Op::N ? Op::T : Op::N;
  return s;
}

// Step 16 on Hopper (SwapConfig): the call swapped, so that few rows of C are the narrow tile's columns,
// its results stored transposed. A with op N only (the swapped B K-major, as narrow tiles are); one
// matrix, no epilogue.
template <class Cfg, DType AB>
cudaError_t launch_swapped(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  if (a.precision.ab != AB || a.opA != Op::N || a.batch > 1 || grouped(a) || device_matrices(a) || a.epilogue.any()) {
    return cudaErrorInvalidValue;
  }
  if (a.opB == Op::N) return launch_ops<Cfg, T, true, true>(swapped_call(a), plan, stream, true);
  return launch_ops<Cfg, T, false, true>(swapped_call(a), plan, stream, true);
}

// f16 and bf16: a kernel per op pair (wgmma's transpose bits). FP8: wgmma
// reads it K-major only, so the plan has operands stored otherwise copied
// transposed first, and one kernel (op pair N, T) serves every call; it has
// a kernel per 16-bit C type (bf16's serves FP32 C). FP32 as tf32: K-major
// too, but A may come from registers, so op pair (T, T) has a kernel of its
// own and (N, N) runs it on the swapped call (a grouped GEMM's rows, which
// the swap would make columns, and (T, N) have copies made first, plan.cpp);
// TMA rounds the operands to tf32 as it loads them (maps of type TFLOAT32).
// BB: B's type where it is not AB (FP8: one operand of each type, T an InputPair).
template <class Cfg, DType AB, DType BB>
cudaError_t launch_cluster(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = device::input_t<AB, BB>;
  if (a.precision.ab != AB || a.precision.b_type() != BB) return cudaErrorInvalidValue;
  if constexpr (AB == DType::kF32) {
    if (a.opA == Op::N && a.opB == Op::T) return launch_ops<Cfg, T, false, true>(a, plan, stream);
    if (a.opA == Op::T && a.opB == Op::T) return launch_ops<Cfg, T, true, true>(a, plan, stream);
    if (a.opA == Op::N && a.opB == Op::N && !grouped(a) && !device_matrices(a)) {
      return launch_ops<Cfg, T, true, true>(swapped_call(a), plan, stream, true);
    }
    return cudaErrorInvalidValue;
  } else if constexpr (sizeof(T) == 1) {  // the plan's copies made both operands K-major
    if (a.opA != Op::N || a.opB != Op::T) return cudaErrorInvalidValue;
    // The kernel's 16-bit Out: f16 for f16 C, else bf16 (FP32 C included).
    auto with_out = [&](auto blocks, auto columns) {
      if (a.precision.c == DType::kF16) {
        return launch_ops<Cfg, T, false, true, __half, blocks, columns>(a, plan, stream);
      }
      return launch_ops<Cfg, T, false, true, __nv_bfloat16, blocks, columns>(a, plan, stream);
    };
    if (a.block_scales.any()) {
      if constexpr (kFp8BlockScales<Cfg>) {
        if (a.block_scales.b_block_n == 1) {  // B's scales per column: a kernel of their own
          if constexpr (kFp8ColumnScales<Cfg>) {
            return with_out(std::true_type{}, std::true_type{});
          } else {
            return cudaErrorInvalidValue;  // the registry's fp8_column_scales keeps such calls away
          }
        }
        return with_out(std::true_type{}, std::false_type{});
      } else {
        return cudaErrorInvalidValue;  // the registry's fp8_block_scales keeps such calls away
      }
    }
    return with_out(std::false_type{}, std::false_type{});
  } else {
    return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) { return launch_ops<Cfg, T, ta, tb>(a, plan, stream); });
  }
}

template <class Cfg, DType AB, DType BB>
cudaError_t resident_cluster(int* clusters) {
  using T = device::input_t<AB, BB>;
  using Out = std::conditional_t<sizeof(T) == 1, __nv_bfloat16, T>;
  return prepare_kernel<Cfg, Sm90Operands<Cfg, T, false, true>>(cluster_kernel<Cfg, T, Out, false, true>, clusters);
}

// The launch and resident query of configuration Cfg for inputs AB (what the registry names).
#define TESSEL_CLUSTER(Cfg, ...)                                                                         \
  template cudaError_t launch_cluster<Cfg, __VA_ARGS__>(const GemmArgs&, const LaunchPlan&, cudaStream_t); \
  template cudaError_t resident_cluster<Cfg, __VA_ARGS__>(int*)
#define TESSEL_SWAPPED(Cfg, AB)                                                                   \
  template cudaError_t launch_swapped<Cfg, AB>(const GemmArgs&, const LaunchPlan&, cudaStream_t); \
  template cudaError_t resident_cluster<Cfg, AB>(int*)

}  // namespace tessel::impl
