// Step 10 fed the Hopper way (mma_tma): step 10's warps, ldmatrix and
// mma.sync m16n8k16 on 64 x 64 blocks, with step 13's producer thread,
// mbarrier ring and persistent grid in place of cp.async (sm_90a).
//
// Why: step 10 stays well short of what mma.sync can do (tessel_mma_peak;
// numbers in the worklog), and every warp there
// spends issue slots and registers on its share of the copies and stops
// at a __syncthreads per slice. What changes over step 10:
//  - Copies: one producer thread issues TMA tile copies (produce_tile);
//    the eight consumer warps issue nothing but ldmatrix and mma.sync. The
//    layouts are step 10's: TMA's 128-byte swizzle puts 16-byte chunk c of
//    a 128-byte row r at chunk c ^ (r % 8), which is device::SwizzledTile's
//    XOR for 64-element rows (K-major stages), and the MN-major stages are
//    blocks of 64 columns of it (device::SwizzledBlocks).
//  - Synchronisation: a full and an empty mbarrier per stage. Each warp
//    waits only for the slice it needs and releases it itself (eight
//    arrivals empty a stage), so warps drift apart and one warp's
//    ldmatrix overlaps another's mma instead of all meeting at a barrier.
//  - Registers: setmaxnreg gives the consumer warps 232 registers and no
//    copy pointers live in them, so fragments are double-buffered: the
//    ldmatrix of k-step s + 1 (across slices too) is issued before the
//    mma of step s (in step 10 that spilled).
//  - Tiles: 128 x 256 with one CTA per SM (4 stages of 48 KiB): a slice
//    of 384 rows feeds 8 warps, where step 10's two 128 x 128 CTAs load
//    512 rows for the same math; shared memory bandwidth, which ldmatrix
//    and the copies share, is what mma.sync is short of on this chip.
//  - Persistent grid (step 13): the producer loads the next tile while
//    the consumers store this one.
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 8 elements (TMA);
// C any alignment. f16 and bf16 inputs, FP32 accumulation.
#include <type_traits>

#include "device/common.cuh"
#include "device/mma.cuh"
#include "kernels/hopper/configs.hpp"
#include "kernels/hopper/warp_specialized.cuh"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

namespace sm90 = device::sm90;
using Cfg = MmaTmaConfig;

// One operand's stage as ldmatrix addresses it (the layout of
// device::sm90::Operand): K-major, Rows x 64 swizzled rows; MN-major,
// 64 (k) x Rows in blocks of 64 columns.
template <class T, int Rows, bool KMajor>
using StageTile = std::conditional_t<KMajor, device::SwizzledTile<T, Rows, sm90::kSliceK>,
                                     device::SwizzledBlocks<T, sm90::kSliceK, Rows>>;

template <class T, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    mma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   device::TcParams<T> p) {
  using Ops = Sm90Operands<Cfg, T, TA, TB>;
  using TileA = StageTile<T, Cfg::kBM, !TA>;
  using TileB = StageTile<T, Cfg::kBN, TB>;
  static_assert(TileA::kElems * int(sizeof(T)) == Ops::A::kBytes && TileB::kElems * int(sizeof(T)) == Ops::B::kBytes,
                "step 10's view covers the stage");
  constexpr int S = Cfg::kStages, kMmaK = device::Mma<T>::kK, kSteps = sm90::kSliceK / kMmaK;
  constexpr int FM = Cfg::kWM / 16, FN = Cfg::kWN / 16;
  static_assert(kSteps % 2 == 0, "every slice starts in fragment buffer 0");
  extern __shared__ char smem_raw[];
  const Sm90Smem<Ops, S> smem(smem_raw);
  init_ring(smem, Cfg::kConsumerWarps);

  const int tiles_m = int(device::ceil_div(p.m, Cfg::kBM)), tiles_n = int(device::ceil_div(p.n, Cfg::kBN));
  const int tiles = tiles_m * tiles_n;
  const int slices = int(device::ceil_div(p.k, sm90::kSliceK));
  sm90::Ring<S> ring;
  if (threadIdx.x < sm90::kWarpgroup) {  // the producer warpgroup: one thread copies
    sm90::release_registers<Cfg::kProducerRegs>();
    if (threadIdx.x != 0) return;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      int bm, bn;
      device::grouped_tile<Cfg::kGroup>(tile, tiles_m, tiles_n, bm, bn);
      produce_tile(smem, &map_a, &map_b, ring, bm * Cfg::kBM, bn * Cfg::kBN, 0, slices);
    }
    return;
  }
  sm90::claim_registers<Cfg::kConsumerRegs>();
  const int warp = threadIdx.x / 32 - sm90::kWarpgroup / 32, lane = threadIdx.x % 32;
  const int wm0 = warp / Cfg::kWarpsN * Cfg::kWM, wn0 = warp % Cfg::kWarpsN * Cfg::kWN;
  const device::FragmentOffsets<TileA, !TA, false, FM, kSteps, kMmaK> offA(wm0, lane);
  const device::FragmentOffsets<TileB, TB, true, FN, kSteps, kMmaK> offB(wn0, lane);
  uint32_t fa[2][FM][4], fb[2][FN][4];  // two k-steps of fragments: the next loads while this one multiplies
  auto load = [&](int buffer, int stage, int step) {
    const T* a = reinterpret_cast<const T*>(smem.a(stage));
    const T* b = reinterpret_cast<const T*>(smem.b(stage));
#pragma unroll
    for (int i = 0; i < FM; ++i) device::load_fragment_at<!TA>(fa[buffer][i], a + offA.at(i, step));
#pragma unroll
    for (int j = 0; j < FN; ++j) device::load_fragment_at<TB>(fb[buffer][j], b + offB.at(j, step));
  };

  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int bm, bn;
    device::grouped_tile<Cfg::kGroup>(tile, tiles_m, tiles_n, bm, bn);
    float acc[FM][2 * FN][4] = {};
    sm90::bar_wait(&smem.full()[ring.stage], ring.parity);
    load(0, ring.stage, 0);
    for (int kt = 0; kt < slices; ++kt) {
      sm90::Ring<S> next = ring;
      next.next();
#pragma unroll
      for (int step = 0; step < kSteps; ++step) {
        if (step + 1 < kSteps) {
          load((step + 1) % 2, ring.stage, step + 1);
        } else if (kt + 1 < slices) {  // the next slice's first step, as soon as it has landed
          sm90::bar_wait(&smem.full()[next.stage], next.parity);
          load(0, next.stage, 0);
        }
        device::mma_warp_step<T>(acc, fa[step % 2], fb[step % 2]);
      }
      // The last mma has read every lane's fragments of this stage: the warp is done with it.
      __syncwarp();
      if (lane == 0) sm90::bar_arrive(&smem.empty()[ring.stage]);
      ring = next;
    }
    device::store_warp_tile<T, FM, FN>(p, acc, int64_t(bm) * Cfg::kBM + wm0, int64_t(bn) * Cfg::kBN + wn0, lane);
  }
}

}  // namespace

template <DType AB>
cudaError_t launch_mma_tma(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  return launch_tiled<Cfg, AB, true>(a, plan, stream, [](auto ta, auto tb) { return mma_tma_kernel<T, ta, tb>; });
}

template <DType AB>
cudaError_t resident_mma_tma(int* blocks) {
  using T = typename device::CudaType<AB>::type;
  return prepare_kernel<Cfg, Sm90Operands<Cfg, T, false, true>>(mma_tma_kernel<T, false, true>, blocks);
}

template cudaError_t launch_mma_tma<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_mma_tma<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t resident_mma_tma<DType::kF16>(int*);
template cudaError_t resident_mma_tma<DType::kBF16>(int*);

}  // namespace tessel::impl
