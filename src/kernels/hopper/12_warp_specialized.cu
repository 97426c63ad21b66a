// Step 12: warp specialisation: a producer warpgroup and two consumer
// warpgroups, 128 x 256 tiles (Hopper, sm_90a).
//
// What changes over step 11:
//  - Roles: warpgroup 0 only copies (one thread issues the TMA loads),
//    warpgroups 1 and 2 only multiply, each its own 64 x 256 half of a
//    128 x 256 tile (twice step 11's, so each byte loaded into shared memory
//    feeds twice the math: 2 x 64 x 256 products per (128 + 256) loaded values).
//  - The pipeline no longer stops the whole block: every stage has a `full`
//    barrier (the copies landed) and an `empty` barrier (both consumers
//    are done with it); the producer refills a stage the moment it is
//    empty, and a consumer releases a stage as soon as its wgmmas finished,
//    keeping the next slice's wgmmas in flight meanwhile (wait_group 1).
//  - setmaxnreg moves registers from the producer, which needs few (40),
//    to the consumers, which hold 128 FP32 accumulators each (232): the
//    block's 384 threads fit the SM's 64K registers only this way.
// One tile per block, blocks in grouped order for L2 reuse; step 13 makes
// the grid persistent.
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
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                            device::TcParams<T> p) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int S = Cfg::kStages;
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  init_ring(smem, Cfg::kConsumers);

  int bm, bn;
  device::grouped_tile<Cfg::kGroup>(blockIdx.x, int(device::ceil_div(p.m, Cfg::kBM)),
                                    int(device::ceil_div(p.n, Cfg::kBN)), bm, bn);
  const int m0 = bm * Cfg::kBM, n0 = bn * Cfg::kBN;
  const int slices = int(device::ceil_div(p.k, sm90::kSliceK));
  const int warpgroup = threadIdx.x / sm90::kWarpgroup, t = threadIdx.x % sm90::kWarpgroup;
  sm90::Ring<S> ring;
  if (warpgroup == 0) {
    sm90::release_registers<Cfg::kProducerRegs>();
    if (t == 0) produce_tile(smem, &map_a, &map_b, ring, m0, n0, 0, slices);
  } else {
    sm90::claim_registers<Cfg::kConsumerRegs>();
    const int row0 = (warpgroup - 1) * 64;
    float acc[Cfg::kBN / 2];
    consume_tile<T>(acc, smem, ring, row0, slices, t == 0);
    store_tile(p, acc, m0 + row0, n0, t);
  }
}

}  // namespace

template <DType AB>
cudaError_t launch_warp_specialized(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  return launch_tiled<Cfg, AB, false>(a, plan, stream, [](auto ta, auto tb) { return warp_specialized_kernel<T, ta, tb>; });
}

template cudaError_t launch_warp_specialized<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_warp_specialized<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
