// Step 11: TMA copies and wgmma, one warpgroup per block (Hopper, sm_90a).
//
// What changes over step 10 (mma.sync + ldmatrix + cp.async):
//  - The copy engine (TMA, cp.async.bulk.tensor) moves whole tiles: one
//    thread issues one instruction per box, described by a tensor map built
//    on the host (cuTensorMapEncodeTiled) and passed as a __grid_constant__
//    parameter. No thread computes an address per 16 bytes any more, and
//    out-of-bounds rows and columns arrive as zeros (tails cost nothing).
//  - TMA writes the tile with the 128-byte swizzle that wgmma reads, so no
//    ldmatrix: wgmma.mma_async takes both operands straight from shared
//    memory through 64-bit descriptors, for K-major and MN-major tiles
//    alike (its transpose bits), so every op pair reads tiles as stored.
//  - One wgmma m64n256k16 is 64 x 256 x 16 multiply-adds issued by a whole
//    warpgroup (4 warps) at once, asynchronously: 8x the work of the 32
//    mma.sync a warp would issue, and the warps are free meanwhile.
//  - Completion of a stage's copies is counted in bytes on an mbarrier
//    (expect-tx), not by cp.async groups per thread.
// The block is one warpgroup with a 64 x 256 tile of C and 4 stages; thread
// 0 refills a stage once the whole block has finished reading it. Every
// thread both waits for copies and multiplies: steps 12 and 13 split those
// roles.
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 8 elements (TMA);
// C any alignment. f16 and bf16 inputs, FP32 accumulation.
#include "device/common.cuh"
#include "device/sm90.cuh"
#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/warp_specialized.cuh"  // store_tile
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

namespace sm90 = device::sm90;
using Cfg = TmaWgmmaConfig;

template <class T, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     device::TcParams<T> p) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  constexpr int S = Cfg::kStages;
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  uint64_t* full = smem.full();
  const int tid = threadIdx.x;

  int bm, bn;
  device::grouped_tile<Cfg::kGroup>(blockIdx.x, int(device::ceil_div(p.m, Cfg::kBM)),
                                    int(device::ceil_div(p.n, Cfg::kBN)), bm, bn);
  const int m0 = bm * Cfg::kBM, n0 = bn * Cfg::kBN;
  const int slices = int(device::ceil_div(p.k, sm90::kSliceK));

  auto load = [&](int s, int slice) {
    sm90::bar_expect_bytes(&full[s], Ops::kStageBytes);
    Ops::A::load(smem.a(s), &map_a, &full[s], m0, slice * sm90::kSliceK, 0);
    Ops::B::load(smem.b(s), &map_b, &full[s], n0, slice * sm90::kSliceK, 0);
  };
  if (tid == 0) {
    for (int s = 0; s < S; ++s) sm90::bar_init(&full[s], 1);
    sm90::bar_init_fence();
    for (int s = 0; s < S && s < slices; ++s) load(s, s);
  }
  __syncthreads();

  float acc[Cfg::kBN / 2] = {};
  sm90::Ring<S> ring;
  for (int kt = 0; kt < slices; ++kt, ring.next()) {
    sm90::bar_wait(&full[ring.stage], ring.parity);
    sm90::mma_slice<T, typename Ops::A, typename Ops::B, Cfg::kBN>(acc, smem.a(ring.stage), 0, smem.b(ring.stage));
    sm90::wgmma_wait<0>();
    __syncthreads();  // every warp is done with this stage: refill it
    if (tid == 0 && kt + S < slices) load(ring.stage, kt + S);
  }
  sm90::fence_acc(acc);

  store_tile(p, acc, m0, n0, tid);
}

}  // namespace

template <DType AB>
cudaError_t launch_tma_wgmma(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  return launch_tiled<Cfg, AB, false>(a, plan, stream, [](auto ta, auto tb) { return tma_wgmma_kernel<T, ta, tb>; });
}

template cudaError_t launch_tma_wgmma<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_tma_wgmma<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
