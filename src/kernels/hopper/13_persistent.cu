// Step 13: a persistent grid: one block per SM walks the tiles (Hopper, sm_90a).
//
// What changes over step 12:
//  - The grid is one block per SM (or fewer when there are fewer tiles);
//    block b takes tiles b, b + grid, b + 2 grid, ... in grouped order, so
//    the blocks working at one time share rows of A and columns of B in L2.
//  - While the consumers store one tile's results, the producer is already
//    loading the next tile's first slices into the stages they released:
//    the epilogue no longer leaves the tensor cores waiting for a new
//    block's pipeline to fill, and blocks are launched and set up once.
//  - The ring of stages and its barrier phases carry on across tiles: the
//    producer and the consumers walk the same (tile, slice) sequence.
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 8 elements (TMA);
// C any alignment. f16 and bf16 inputs, FP32 accumulation.
#include "device/common.cuh"
#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/warp_specialized.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

namespace sm90 = device::sm90;
using Cfg = WarpSpecializedConfig;

template <class T, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      device::TcParams<T> p) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int S = Cfg::kStages;
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  init_ring(smem, Cfg::kConsumers);

  const int tiles_m = int(device::ceil_div(p.m, Cfg::kBM)), tiles_n = int(device::ceil_div(p.n, Cfg::kBN));
  const int tiles = tiles_m * tiles_n;
  const int slices = int(device::ceil_div(p.k, sm90::kSliceK));
  const int warpgroup = threadIdx.x / sm90::kWarpgroup, t = threadIdx.x % sm90::kWarpgroup;
  sm90::Ring<S> ring;
  if (warpgroup == 0) {
    sm90::release_registers<Cfg::kProducerRegs>();
    if (t != 0) return;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      int bm, bn;
      device::grouped_tile<Cfg::kGroup>(tile, tiles_m, tiles_n, bm, bn);
      produce_tile(smem, &map_a, &map_b, ring, bm * Cfg::kBM, bn * Cfg::kBN, 0, slices);
    }
  } else {
    sm90::claim_registers<Cfg::kConsumerRegs>();
    const int row0 = (warpgroup - 1) * 64;
    float acc[Cfg::kBN / 2];
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      int bm, bn;
      device::grouped_tile<Cfg::kGroup>(tile, tiles_m, tiles_n, bm, bn);
      consume_tile<T>(acc, smem, ring, row0, slices, t == 0);
      store_tile(p, acc, int64_t(bm) * Cfg::kBM + row0, int64_t(bn) * Cfg::kBN, t);
    }
  }
}

}  // namespace

template <DType AB>
cudaError_t launch_persistent(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  return launch_tiled<Cfg, AB, true>(a, plan, stream, [](auto ta, auto tb) { return persistent_kernel<T, ta, tb>; });
}

template <DType AB>
cudaError_t resident_persistent(int* blocks) {
  using T = typename device::CudaType<AB>::type;
  return prepare_kernel<Cfg, Sm90Operands<Cfg, T, false, true>>(persistent_kernel<T, false, true>, blocks);
}

template cudaError_t launch_persistent<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_persistent<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t resident_persistent<DType::kF16>(int*);
template cudaError_t resident_persistent<DType::kBF16>(int*);

}  // namespace tessel::impl
