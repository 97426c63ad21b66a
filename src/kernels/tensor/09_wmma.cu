// Step 09: tensor cores through WMMA (nvcuda::wmma), f16, bf16 and tf32.
//
// What changes over the FP32 ladder: the inner product is no longer an
// FFMA per thread but a warp-wide matrix instruction. A warp owns a 64x32
// piece of the block's 128x128 tile as 4x2 accumulator fragments of 16x16
// and, per 16-deep (8 for tf32) step of k, loads 4 A and 2 B fragments from
// shared memory and issues 8 mma_syncs of 16x16x16 multiply-adds each, at
// many times the FP32 pipe's rate.
//
// Feeding them keeps what the FP32 ladder learnt (steps 05-08): block and
// warp tiles, and a multistage pipeline of 16-byte cp.async copies (three
// k-slices in flight, one __syncthreads per slice). Shared rows are padded
// by 16 bytes against bank conflicts; WMMA needs a plain leading dimension,
// so no swizzle. Each operand is copied as stored and read with the
// fragment layout that matches (col_major for a transposed operand), so no
// op pair needs a transposing copy.
//
// Correct on every shape, unlike the seed's kernel (its users report
// failures at 4093^3): copies zero-fill rows past m/n and columns past k,
// and the epilogue goes through a per-warp staging tile so that only
// elements inside C are written, alpha/beta in FP32, one rounding to C's
// type. Aligned = false (the "_any" kernels) copies element by element
// with plain loads instead of cp.async, for operands without 16-byte
// alignment; the pipeline's structure stays the same. Where the plan splits
// k, each row of the grid takes one part (device::take_part).
#include <mma.h>

#include <algorithm>
#include <type_traits>

#include "device/common.cuh"
#include "device/mma.cuh"
#include "kernels/kernels.hpp"
#include "kernels/tensor/configs.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

namespace wmma = nvcuda::wmma;

// The WMMA shape and fragment element type for each input type.
template <class T>
struct WmmaType {
  static constexpr int kK = 16;
  using Frag = T;
};
template <>
struct WmmaType<float> {  // tf32
  static constexpr int kK = 8;
  using Frag = wmma::precision::tf32;
};

// load_matrix_sync from a shared-memory tile. The WMMA header's f16 loads
// compile to a wmma.load of the .shared state space, but its bf16 and tf32
// loads to a wmma.load on a generic address (seen in the PTX), and the bf16
// kernel ran far slower than the f16 one with otherwise identical code. For those
// two types this issues the same instruction with .shared: same fragment,
// same registers (four 32-bit ones for A and for B), only the address space
// differs.
#define TESSEL_WMMA_LOAD(USE, LAYOUT, SHAPE_TYPE)                                                            \
  asm volatile("wmma.load." USE ".sync.aligned." LAYOUT "." SHAPE_TYPE " {%0, %1, %2, %3}, [%4], %5;"        \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])                                              \
               : "r"(device::smem_addr(p)), "r"(ldm))
#define TESSEL_WMMA_LOAD_TYPED(USE, LAYOUT)                                   \
  if constexpr (sizeof(T) == 2) {                                             \
    TESSEL_WMMA_LOAD(USE, LAYOUT, "m16n16k16.shared.bf16");                   \
  } else {                                                                    \
    TESSEL_WMMA_LOAD(USE, LAYOUT, "m16n16k8.shared.tf32");                    \
  }
template <class T, class Use, int M, int N, int K, class FragT, class Layout>
__device__ __forceinline__ void load_shared(wmma::fragment<Use, M, N, K, FragT, Layout>& f, const T* p, unsigned ldm) {
  if constexpr (std::is_same_v<T, __half>) {
    wmma::load_matrix_sync(f, p, ldm);
  } else {
    static_assert(sizeof(f.x) == 16, "bf16 and tf32 fragments of A and B are four 32-bit registers");
    uint32_t* r = reinterpret_cast<uint32_t*>(&f.x[0]);
    constexpr bool kA = std::is_same_v<Use, wmma::matrix_a>, kRow = std::is_same_v<Layout, wmma::row_major>;
    if constexpr (kA && kRow) {
      TESSEL_WMMA_LOAD_TYPED("a", "row")
    } else if constexpr (kA) {
      TESSEL_WMMA_LOAD_TYPED("a", "col")
    } else if constexpr (kRow) {
      TESSEL_WMMA_LOAD_TYPED("b", "row")
    } else {
      TESSEL_WMMA_LOAD_TYPED("b", "col")
    }
  }
}
#undef TESSEL_WMMA_LOAD_TYPED
#undef TESSEL_WMMA_LOAD

// tf32 fragments are loaded as FP32 values and rounded in place; 16-bit ones are used as loaded.
template <class T, class Fragment>
__device__ __forceinline__ void round_to_tf32(Fragment& f) {
  if constexpr (sizeof(T) == 4) {
    for (int x = 0; x < f.num_elements; ++x) f.x[x] = wmma::__float_to_tf32(f.x[x]);
  }
}

template <class Cfg, class T, bool TA, bool TB>
struct WmmaTiles {
  static constexpr int kBK = Cfg::kKBytes / int(sizeof(T));
  // Tiles as stored: A is [BM][BK] for op N, [BK][BM] for op T; B is [BK][BN] for op N, [BN][BK] for op T.
  using A = device::PaddedTile<T, TA ? kBK : Cfg::kBM, TA ? Cfg::kBM : kBK>;
  using B = device::PaddedTile<T, TB ? Cfg::kBN : kBK, TB ? kBK : Cfg::kBN>;
  static constexpr int kStageBytes = (A::kElems + B::kElems) * int(sizeof(T));
  static constexpr int kSmemBytes = Cfg::kStages * kStageBytes + Cfg::kThreads / 32 * 16 * 16 * 4;
};

template <class Cfg, class T, bool Aligned, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) wmma_kernel(device::TcParams<T> p, KPart part) {
  using Tiles = WmmaTiles<Cfg, T, TA, TB>;
  using TileA = typename Tiles::A;
  using TileB = typename Tiles::B;
  constexpr int BM = Cfg::kBM, BN = Cfg::kBN, BK = Tiles::kBK, WM = Cfg::kWM, WN = Cfg::kWN, S = Cfg::kStages;
  constexpr int kK = WmmaType<T>::kK, FM = WM / 16, FN = WN / 16;
  using Frag = typename WmmaType<T>::Frag;
  using LayoutA = std::conditional_t<TA, wmma::col_major, wmma::row_major>;
  using LayoutB = std::conditional_t<TB, wmma::col_major, wmma::row_major>;

  extern __shared__ __align__(128) uint4 smem[];
  T* sA = reinterpret_cast<T*>(smem);
  T* sB = sA + S * TileA::kElems;
  float* staging = reinterpret_cast<float*>(sB + S * TileB::kElems);

  device::take_part(p, part, TA, TB);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  int bm, bn;
  device::grouped_tile<Cfg::kGroup>(blockIdx.x, int(device::ceil_div(p.m, BM)), int(device::ceil_div(p.n, BN)), bm, bn);
  const int64_t i0 = int64_t(bm) * BM, j0 = int64_t(bn) * BN;
  const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;
  const int rows_m = int(std::min<int64_t>(p.m - i0, BM)), cols_n = int(std::min<int64_t>(p.n - j0, BN));

  // Copies of the k-slices of this block's panels of A and B, in order:
  // cp.async when aligned, else element by element.
  device::SliceCopier<TileA, Cfg::kThreads, T, TA, Aligned> copy_a(TA ? p.A + i0 : p.A + i0 * p.lda, p.lda, tid);
  device::SliceCopier<TileB, Cfg::kThreads, T, !TB, Aligned> copy_b(TB ? p.B + j0 * p.ldb : p.B + j0, p.ldb, tid);
  int64_t k_left = p.k;  // k values not yet copied
  auto load_slice = [&](int s) {
    const int depth = int(std::min<int64_t>(k_left, BK));
    copy_a.copy(sA + s * TileA::kElems, p.lda, depth, rows_m, p.A, tid);
    copy_b.copy(sB + s * TileB::kElems, p.ldb, depth, cols_n, p.B, tid);
    k_left -= BK;
  };

  wmma::fragment<wmma::accumulator, 16, 16, kK, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  const int64_t slices = device::ceil_div(p.k, BK);
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < slices) load_slice(s);
    device::cp_async_commit();
  }
  // Stage being read and stage being written, as counters (not kt % S: a 64-bit modulo).
  int read = 0, write = S - 1;
  for (int64_t kt = 0; kt < slices; ++kt) {
    device::cp_async_wait<S - 2>();
    __syncthreads();
    if (kt + S - 1 < slices) load_slice(write);
    device::cp_async_commit();

    const T* a = sA + read * TileA::kElems;
    const T* b = sB + read * TileB::kElems;
    read = read == S - 1 ? 0 : read + 1;
    write = write == S - 1 ? 0 : write + 1;
#pragma unroll
    for (int kk = 0; kk < BK; kk += kK) {
      wmma::fragment<wmma::matrix_a, 16, 16, kK, Frag, LayoutA> fa[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, kK, Frag, LayoutB> fb[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        const int mi = wm0 + i * 16;
        load_shared(fa[i], a + (TA ? TileA::offset(kk, mi) : TileA::offset(mi, kk)), TileA::kLd);
        round_to_tf32<T>(fa[i]);
      }
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        const int nj = wn0 + j * 16;
        load_shared(fb[j], b + (TB ? TileB::offset(nj, kk) : TileB::offset(kk, nj)), TileB::kLd);
        round_to_tf32<T>(fb[j]);
      }
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
  }

  // Epilogue: each 16x16 accumulator goes through the warp's staging tile
  // (its own shared memory, not the tiles: no block barrier needed); each
  // lane then writes 8 elements, two adjacent ones at a time.
  float* st = staging + warp * 256;
  auto store = [&](auto c_type) {
    using CT = decltype(c_type);
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        wmma::store_matrix_sync(st, acc[i][j], 16, wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int e = 2 * lane; e < 256; e += 64) {
          const int64_t row = i0 + wm0 + i * 16 + e / 16, col = j0 + wn0 + j * 16 + e % 16;
          if (row < p.m) device::store_pair<CT>(p, row, col, st[e], st[e + 1]);
        }
        __syncwarp();
      }
  };
  if (p.c_f32) {
    store(float{});
  } else {
    store(T{});
  }
}

}  // namespace

template <bool Aligned>
cudaError_t launch_wmma(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using Cfg = WmmaConfig;
  const int64_t tiles = device::ceil_div(a.m, Cfg::kBM) * device::ceil_div(a.n, Cfg::kBN);
  if (tiles > INT32_MAX) return cudaErrorInvalidConfiguration;
  return with_split_parts(a, plan, stream, [&](const GemmArgs& out, const KPart& part, unsigned parts) {
    return device::with_type(a.precision.ab, [&](auto t) {
      using T = decltype(t);
      const device::TcParams<T> p = device::tc_params<T>(out);
      return device::with_ops(a.opA, a.opB, [&](auto ta, auto tb) {
        constexpr int kSmem = WmmaTiles<Cfg, T, ta, tb>::kSmemBytes;
        auto kernel = wmma_kernel<Cfg, T, Aligned, ta, tb>;
        if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
            err != cudaSuccess) {
          return err;
        }
        return device::launch(kernel, dim3(unsigned(tiles), parts), Cfg::kThreads, kSmem, stream, p, part);
      });
    });
  });
}

template cudaError_t launch_wmma<true>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_wmma<false>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
