// Ladder step 08 on Hopper: the 128 x 256 FP32 kernel with its k-slices
// brought in by TMA, and stream-K on that loop (pipelined_128x256_streamk_tma).
//
// Step 08 (08_pipelined.cuh) copies each k-slice with cp.async, every thread
// computing and issuing its own 16-byte chunks. Here thread 0 asks the TMA
// unit for the slice (two boxes, out-of-bounds elements zero-filled) and the
// block learns of its arrival from an mbarrier. The loop keeps step 08's
// shape and FFMAs (read_fragments, multiply_fragments) with fewer registers,
// in 32-deep slices run as two iterations of 16 unrolled k-steps.
// TMA cannot transpose: the loop reads A with op T and B with op N, and
// dispatch has the other layouts copied transposed first. Dispatch also
// sends calls TMA cannot address to step 08's cp.async stream-K instead.
// docs/ladder.md, "Step 08 on Hopper", has the measurements.
#include "device/sm90.cuh"
#include "kernels/hopper/tensor_map.hpp"
#include "kernels/simt/08_pipelined.cuh"
#include "kernels/workspace.hpp"

namespace tessel::impl {

namespace {

namespace sm90 = device::sm90;
using Cfg = PipelinedTma128x256;
constexpr int kStages = 2;
constexpr size_t kTileBytes = sizeof(float) * Cfg::kBK * (Cfg::kBM + Cfg::kBN);  // one stage: A's and B's boxes
constexpr size_t kSmem = kStages * (kTileBytes + sizeof(uint64_t));

struct TmaMaps {
  CUtensorMap a, b;  // A with op T (k rows of m), B with op N (k rows of n)
};

// Stage s's tiles: k-major, rows unpadded (TMA writes boxes densely; a
// warp's fragment loads read 4 or 8 consecutive 16-byte chunks of one row,
// free of bank conflicts either way), then the stages' mbarriers.
using ATile = float[Cfg::kBK][Cfg::kBM];
using BTile = float[Cfg::kBK][Cfg::kBN];
struct Stages {
  ATile* a;
  BTile* b;
  uint64_t* full;  // full[s]: stage s's slice has arrived
  __device__ explicit Stages(float4* smem)
      : a(reinterpret_cast<ATile*>(smem)),
        b(reinterpret_cast<BTile*>(a + kStages)),
        full(reinterpret_cast<uint64_t*>(b + kStages)) {}
};

__device__ __forceinline__ void init_stages(const TmaMaps& maps, const Stages& st) {
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&maps.a);
    sm90::prefetch_tensor_map(&maps.b);
#pragma unroll
    for (int s = 0; s < kStages; ++s) sm90::bar_init(&st.full[s], 1);
    sm90::bar_init_fence();
  }
  __syncthreads();
}

// acc = this thread's share of k-slices [s_begin, s_end) of the tile at (i0,
// j0). *loaded: the slices this block has loaded so far (the n-th goes to
// stage n % 2 and completes phase n / 2 of its barrier); advanced here. Ends
// with the block past a barrier, the stages free.
__device__ __forceinline__ void accumulate_slices(const TmaMaps& maps, const Stages& st, int i0, int j0, int s_begin,
                                                  int s_end, uint32_t* loaded, float (&acc)[Cfg::kTM][Cfg::kTN]) {
  constexpr int BK = Cfg::kBK, TM = Cfg::kTM, TN = Cfg::kTN;
  const uint32_t n0 = *loaded - uint32_t(s_begin);  // slice s is this block's n0 + s-th
  auto stage = [&](int s) { return int((n0 + uint32_t(s)) % kStages); };
  auto fetch = [&](int s) {  // thread 0 asks for slice s
    if (threadIdx.x == 0) {
      uint64_t* full = &st.full[stage(s)];
      sm90::bar_expect_bytes(full, uint32_t(kTileBytes));
      sm90::tma_load(st.a[stage(s)], &maps.a, full, i0, s * BK);
      sm90::tma_load(st.b[stage(s)], &maps.b, full, j0, s * BK);
    }
  };
  auto land = [&](int s) { sm90::bar_wait(&st.full[stage(s)], ((n0 + uint32_t(s)) / kStages) & 1); };

  int row0, col0;
  lane_origin<Cfg>(row0, col0);
  float fa[2][TM], fb[2][TN];
  auto read = [&](int s, int kk, int buf) {
    read_fragments<Cfg>(fa[buf], fb[buf], st.a[stage(s)], st.b[stage(s)], kk, row0, col0);
  };
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0.0f;
  fetch(s_begin);
  land(s_begin);
  read(s_begin, 0, 0);
  // A slice's k-steps in iterations of kSteps unrolled (Cfg: the slice
  // unrolled whole outgrew the instruction cache).
  constexpr int kSteps = Cfg::kStepsPerIteration;
  static_assert(BK % kSteps == 0 && kSteps % 2 == 0 && Cfg::kCopyAtStep < kSteps, "whole pairs of k-steps");
  for (int s = s_begin; s < s_end; ++s) {
    const bool more = s + 1 < s_end;
#pragma unroll 1
    for (int k0 = 0; k0 < BK; k0 += kSteps) {
#pragma unroll
      for (int h = 0; h < kSteps; ++h) {
        // The next slice goes into the stage read before the last barrier.
        if (h == Cfg::kCopyAtStep && k0 == 0 && more) fetch(s + 1);
        if (h + 1 < kSteps) {
          read(s, k0 + h + 1, (h + 1) % 2);
        } else if (k0 + kSteps < BK) {
          read(s, k0 + kSteps, 0);
        } else if (more) {  // as step 08: meet at the barrier before the slice's last FFMAs
          land(s + 1);
          __syncthreads();
          read(s + 1, 0, 0);
        }
        multiply_fragments<Cfg, false>(acc, fa[h % 2], fb[h % 2]);
      }
    }
  }
  *loaded = n0 + uint32_t(s_end);
  __syncthreads();  // every warp is done with the last slice's stage
}

// One block per tile; Linear: the first gridDim.x tiles of the grouped order
// (stream-K's whole waves), else a 2D grid's swizzled order.
template <bool Linear>
__global__ void __launch_bounds__(Cfg::kThreads, 1) tma_tile_kernel(const __grid_constant__ TmaMaps maps, SgemmArgs p) {
  extern __shared__ __align__(128) float4 smem[];
  int bm, bn;
  block_tile<Cfg, Linear>(p, bm, bn);
  const Stages st(smem);
  init_stages(maps, st);
  const int i0 = bm * Cfg::kBM, j0 = bn * Cfg::kBN;
  uint32_t loaded = 0;
  float acc[Cfg::kTM][Cfg::kTN];
  accumulate_slices(maps, st, i0, j0, 0, int(device::ceil_div(p.k, Cfg::kBK)), &loaded, acc);
  store_tile<Cfg, true, KSplit::kNone>(p, i0, j0, acc);
}

// Stream-K's shared runs: step 08's walk (walk_stream_k_run) on this loop;
// its FFMAs go in the tile kernel's order, which here measured faster than
// the other serpentine that step 08's runs use.
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    tma_stream_k_kernel(const __grid_constant__ TmaMaps maps, SgemmArgs p, StreamKWork sk) {
  extern __shared__ __align__(128) float4 smem[];
  const Stages st(smem);
  init_stages(maps, st);
  uint32_t loaded = 0;
  walk_stream_k_run<Cfg>(p, sk, [&](int64_t i0, int64_t j0, int s0, int s1, float (&acc)[Cfg::kTM][Cfg::kTN]) {
    accumulate_slices(maps, st, int(i0), int(j0), s0, s1, &loaded, acc);
  });
}

template <class Kernel>
cudaError_t allow_smem(Kernel kernel) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem));
}

}  // namespace

cudaError_t launch_pipelined_tma_streamk(const GemmArgs& call, const LaunchPlan& plan, cudaStream_t stream) {
  const SgemmArgs args = to_sgemm(call);  // A with op T and B with op N (the plan's copies), as the loop reads them
  if (args.opA != Op::T || args.opB != Op::N) return cudaErrorInvalidValue;
  TmaMaps maps;
  auto map = [&](CUtensorMap* m, const float* x, int64_t extent, int64_t ld, int box) {
    return make_tensor_map_swizzled(m, x, DType::kF32, extent, args.k, ld, box, Cfg::kBK, false,
                                    CU_TENSOR_MAP_SWIZZLE_NONE);
  };
  if (cudaError_t err = map(&maps.a, args.A, args.m, args.lda, Cfg::kBM); err != cudaSuccess) return err;
  if (cudaError_t err = map(&maps.b, args.B, args.n, args.ldb, Cfg::kBN); err != cudaSuccess) return err;
  if (plan.stream_k.sharing == 0) {  // whole tiles only, on a 2D grid (dispatch checked that it fits)
    auto kernel = tma_tile_kernel<false>;
    if (cudaError_t err = allow_smem(kernel); err != cudaSuccess) return err;
    const dim3 grid(unsigned(device::ceil_div(args.n, Cfg::kBN)), unsigned(device::ceil_div(args.m, Cfg::kBM)));
    return device::launch(kernel, grid, Cfg::kThreads, kSmem, stream, maps, args);
  }
  StreamKWork sk;
  if (cudaError_t err = stream_k_work(plan, stream, &sk); err != cudaSuccess) return err;
  auto tiles_kernel = tma_tile_kernel<true>;
  if (cudaError_t err = allow_smem(tiles_kernel); err != cudaSuccess) return err;
  if (cudaError_t err = allow_smem(tma_stream_k_kernel); err != cudaSuccess) return err;
  // Two launches, as step 08's stream-K: the whole waves' tiles, then the remainder's runs.
  if (sk.whole > 0) {
    if (cudaError_t err = device::launch(tiles_kernel, unsigned(sk.whole), Cfg::kThreads, kSmem, stream, maps, args);
        err != cudaSuccess) {
      return err;
    }
  }
  return device::launch(tma_stream_k_kernel, unsigned(sk.sharing), Cfg::kThreads, kSmem, stream, maps, args, sk);
}

}  // namespace tessel::impl
