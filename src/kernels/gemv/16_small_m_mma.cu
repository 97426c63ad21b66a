// Step 16 on tensor cores: small m, 16-bit or tf32 inputs, B streamed from global memory into registers.
//
// At m = 16 the FP32 multiply-adds of the stream of B (16_small_m.cu) are 16 per
// element, near the SM's FMA rate at HBM speed. Here mma.sync (m16n8k16, tf32:
// m16n8k8) does them, roles turned: C^T = op(B) op(A)^T, 16 columns of C as the
// mma's rows, the m <= 16 rows of A as its 8 (or 2 x 8) columns. k is permuted
// alike in both operands, which the sum over k does not see, so that a lane's
// loads of B are its fragments, without shared memory:
//  - B stored n x k (op T, the nn.Linear weight): a lane loads 16 bytes of B rows
//    g and g + 8 and of A row g at the same k (lane = 4g + q): two mma's worth;
//  - B stored k x n (op N, the input gradient's weight): a lane loads B rows
//    k0 + 4q .. k0 + 4q + 3 at columns Vg .. Vg + V - 1 and 8V + Vg .. 8V + Vg + V - 1
//    (V = small_mma_run: 16 bytes, or 8 at m > 8): V mma sets (16 V columns) of
//    16-deep k, column Vg + j (and 8V + Vg + j) the mma row g (g + 8) of the j-th;
//    16-bit rows are paired along k with byte permutes, tf32 rows (one value a
//    register) are two k8 mma's as they are;
//  - a block's warps split k into k_groups interleaved runs of steps (the plan's
//    choice: deep k, all of them; shallow k, fewer and more columns a block),
//    small_mma_unroll steps' loads in flight, summed in shared memory in warp
//    order; k is split across blocks where blocks are few: each part stores its
//    FP32 sums, and the last part of a column block to arrive adds them all in
//    part order into C (one launch, the same sum whichever part comes last).
// Any alignment: where rows are not in 16-byte units each load is the pair of aligned loads that holds
// it, shifted into place (Rows).
#include "device/common.cuh"
#include "device/mma.cuh"
#include "device/part_sum.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kWarps = kSmallMmaWarps;

// N values of T: 16 bytes a uint4, 8 a uint2.
template <int N, class T>
using Pack = std::conditional_t<N * sizeof(T) == 16, uint4, uint2>;

// How a kernel reads rows of A and B: in 16-byte units (both operands' rows are), or not, as pairs of
// aligned packs shifted into place, or element by element.
enum class Rows { kUnits, kPairs, kElements };

// A pack in flight. As pairs: the one or two aligned packs that hold it and its offset, shifted into
// place when it is used (in words, then half words for 16-bit T), so that a round's loads all stay in
// flight as direct ones do.
template <class P, class T, Rows R>
struct Piece {
  P lo;
  __device__ __forceinline__ void set(const P& v) { lo = v; }
  __device__ __forceinline__ P value() const { return lo; }
};
template <class P, class T>
struct Piece<P, T, Rows::kPairs> {
  static constexpr int kWords = sizeof(P) / 4;
  P lo, hi;
  int off;
  __device__ __forceinline__ void set(const P& v) { lo = v, hi = P{}, off = 0; }
  __device__ __forceinline__ void load(const T* p, int offset) {
    const P* at = reinterpret_cast<const P*>(reinterpret_cast<const char*>(p) - offset);
    lo = __ldg(at), hi = offset ? __ldg(at + 1) : P{}, off = offset;
  }
  __device__ __forceinline__ P value() const {
    uint32_t w[2 * kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      w[i] = reinterpret_cast<const uint32_t*>(&lo)[i];
      w[kWords + i] = reinterpret_cast<const uint32_t*>(&hi)[i];
    }
#pragma unroll
    for (int s = 1; s < kWords; s *= 2) {
      const bool on = off / 4 & s;
#pragma unroll
      for (int i = 0; i + s < 2 * kWords; ++i) w[i] = on ? w[i + s] : w[i];
    }
    P out;
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      reinterpret_cast<uint32_t*>(&out)[i] = sizeof(T) == 4 ? w[i] : __funnelshift_r(w[i], w[i + 1], 8 * (off % 4));
    }
    return out;
  }
};

// N values of T from p into a piece, zeros past `valid`: one vector load in 16-byte units where all N
// are valid; as pairs where all N are valid and the pair lies in the row (never past its end); else
// element-wise.
template <int N, Rows R, class T>
__device__ __forceinline__ void load(Piece<Pack<N, T>, T, R>& piece, const T* p, int64_t valid) {
  using P = Pack<N, T>;
  if constexpr (R == Rows::kUnits) {
    if (valid >= N) return piece.set(__ldg(reinterpret_cast<const P*>(p)));
  } else if constexpr (R == Rows::kPairs) {
    const int off = int(reinterpret_cast<uintptr_t>(p) % sizeof(P));
    if (valid >= N && valid * int64_t(sizeof(T)) + off >= int64_t(off ? 2 * sizeof(P) : sizeof(P))) {
      return piece.load(p, off);
    }
  }
  P out{};
  T* e = reinterpret_cast<T*>(&out);
  for (int i = 0; i < N; ++i) {
    if (i < valid) e[i] = p[i];
  }
  piece.set(out);
}

// The same N values of A's row when A is stored k x m (op T): element-wise, stride ld.
template <int N, class T>
__device__ __forceinline__ Pack<N, T> load_strided(const T* p, int64_t ld, int64_t valid) {
  Pack<N, T> out{};
  T* e = reinterpret_cast<T*>(&out);
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (i < valid) e[i] = p[i * ld];
  }
  return out;
}

// Value j of x and of y (rows k and k + 1 of a run of columns of 16-bit values) as one k-pair.
template <class P>
__device__ __forceinline__ uint32_t pair(const P& x, const P& y, int j) {
  const uint32_t* xs = reinterpret_cast<const uint32_t*>(&x);
  const uint32_t* ys = reinterpret_cast<const uint32_t*>(&y);
  return __byte_perm(xs[j / 2], ys[j / 2], j % 2 ? 0x7632 : 0x5410);
}

// Register j of a pack; for T = float rounded to tf32 (as cuBLAS rounds), else as it is.
template <class T, class P>
__device__ __forceinline__ uint32_t reg(const P& x, int j) {
  const uint32_t r = reinterpret_cast<const uint32_t*>(&x)[j];
  if constexpr (sizeof(T) == 4) return device::to_tf32(r);
  return r;
}

// One warp's share of a round: the loads of kUnroll steps, then their mma's into acc.
// Tiles: 8-column mma tiles of A's rows (1: m <= 8, 2: m <= 16).
template <class T, int Tiles, Op OpB, bool Vec>
struct Stream {
  // Not in 16-byte units: pairs, but for FP32 rows with op N at m <= 8, where 4-byte loads measured faster.
  static constexpr Rows kRows = Vec ? Rows::kUnits
                                : sizeof(T) == 4 && OpB == Op::N && Tiles == 1 ? Rows::kElements
                                                                               : Rows::kPairs;
  static constexpr int kStepK = small_mma_step_k(OpB, sizeof(T));
  static constexpr int kWide = 16 / int(sizeof(T));  // values of a 16-byte load
  static constexpr int kRun = OpB == Op::T ? kWide : small_mma_run(8 * Tiles, sizeof(T));  // values of B a load
  static constexpr int kSets = OpB == Op::T ? 1 : kRun;     // mma sets of 16 columns per step
  static constexpr int kBLoads = OpB == Op::T ? 2 : 8;      // loads of B per lane per step
  static constexpr int kAValues = OpB == Op::T ? kWide : 4;  // of A's row per lane per step
  // Pairs hold twice the bytes in flight for a step: half the steps.
  static constexpr int kUnroll = std::max(1, small_mma_unroll(8 * Tiles, OpB) / (kRows == Rows::kPairs ? 2 : 1));
  static constexpr int64_t kWarpColumns = small_mma_columns(kSmallMmaWarps, OpB, 8 * Tiles, sizeof(T));

  Piece<Pack<kRun, T>, T, kRows> b[kUnroll][kBLoads];
  Piece<Pack<kAValues, T>, T, kRows> a[kUnroll][Tiles];

  __device__ __forceinline__ void load_round(const device::TcParams<T>& p, int64_t s0, int k_groups, int64_t n0,
                                             bool a_t) {
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t k0 = (s0 + int64_t(u) * k_groups) * kStepK + kAValues * q, valid = p.k - k0;
      if constexpr (OpB == Op::T) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t row = n0 + 8 * h + g;
          if (row < p.n) {
            load<kRun>(b[u][h], p.B + row * p.ldb + k0, valid);
          } else {
            b[u][h].set({});
          }
        }
      } else if (Vec && valid >= 4 && n0 + kWarpColumns <= p.n) {  // the warp's loads all whole: no branches
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const T* at = p.B + k0 * p.ldb + n0 + 8 * kRun * h + kRun * g;
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            b[u][4 * h + r].set(__ldg(reinterpret_cast<const Pack<kRun, T>*>(at + r * p.ldb)));
          }
        }
      } else if (kRows == Rows::kPairs && valid >= 4 && n0 + kWarpColumns + kRun <= p.n) {
        // Every pair in its row (two runs' worth of values after each run's start): no checks per load.
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            load<kRun>(b[u][4 * h + r], p.B + (k0 + r) * p.ldb + n0 + 8 * kRun * h + kRun * g, 2 * kRun);
          }
        }
      } else {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t col = n0 + 8 * kRun * h + kRun * g;
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            if (r < valid && col < p.n) {
              load<kRun>(b[u][4 * h + r], p.B + (k0 + r) * p.ldb + col, p.n - col);
            } else {
              b[u][4 * h + r].set({});
            }
          }
        }
      }
#pragma unroll
      for (int t = 0; t < Tiles; ++t) {
        const int64_t row = 8 * t + g;
        if (row >= p.m) {
          a[u][t].set({});
        } else if (a_t) {
          a[u][t].set(load_strided<kAValues>(p.A + k0 * p.lda + row, p.lda, valid));
        } else {
          load<kAValues>(a[u][t], p.A + row * p.lda + k0, valid);
        }
      }
    }
  }

  __device__ __forceinline__ void mma_round(float (&acc)[kSets][Tiles][4]) const {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      Pack<kRun, T> bu[kBLoads];
      Pack<kAValues, T> au[Tiles];
#pragma unroll
      for (int i = 0; i < kBLoads; ++i) bu[i] = b[u][i].value();
#pragma unroll
      for (int t = 0; t < Tiles; ++t) au[t] = a[u][t].value();
      if constexpr (OpB == Op::T) {
        // Registers 0, 1 of the lane's 16 bytes as one mma's k-halves (16-bit: k-pairs 2q, 2q + 8;
        // tf32: q, q + 4); registers 2, 3 as the next's.
        const uint4 &lo = bu[0], &hi = bu[1];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t frag[4] = {reg<T>(lo, 2 * h), reg<T>(hi, 2 * h), reg<T>(lo, 2 * h + 1),
                                    reg<T>(hi, 2 * h + 1)};
#pragma unroll
          for (int t = 0; t < Tiles; ++t) {
            device::Mma<T>::run(acc[0][t], frag, reg<T>(au[t], 2 * h), reg<T>(au[t], 2 * h + 1));
          }
        }
      } else if constexpr (sizeof(T) == 4) {
        // tf32: rows 4q, 4q + 1 as one mma's k q, q + 4; rows 4q + 2, 4q + 3 as the next's.
        const Pack<kRun, T>* lo = bu;
        const Pack<kRun, T>* hi = bu + 4;
#pragma unroll
        for (int j = 0; j < kSets; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const uint32_t frag[4] = {reg<T>(lo[2 * h], j), reg<T>(hi[2 * h], j), reg<T>(lo[2 * h + 1], j),
                                      reg<T>(hi[2 * h + 1], j)};
#pragma unroll
            for (int t = 0; t < Tiles; ++t) {
              device::Mma<T>::run(acc[j][t], frag, reg<T>(au[t], 2 * h), reg<T>(au[t], 2 * h + 1));
            }
          }
      } else {
        // Rows 4q, 4q + 1 as the k-pair 2q; rows 4q + 2, 4q + 3 as 2q + 8.
        const Pack<kRun, T>* lo = bu;
        const Pack<kRun, T>* hi = bu + 4;
#pragma unroll
        for (int j = 0; j < kSets; ++j) {
          const uint32_t frag[4] = {pair(lo[0], lo[1], j), pair(hi[0], hi[1], j), pair(lo[2], lo[3], j),
                                    pair(hi[2], hi[3], j)};
#pragma unroll
          for (int t = 0; t < Tiles; ++t) device::Mma<T>::run(acc[j][t], frag, au[t].x, au[t].y);
        }
      }
    }
  }
};

// Warp w takes k-steps w % k_groups, + k_groups, ... of its block's columns
// (small_mma_columns: kWarps / k_groups column groups of one warp's columns).
template <class T, int Tiles, Op OpB, bool Vec>
__global__ void __launch_bounds__(kWarps * 32, small_mma_resident(8 * Tiles, OpB))
    small_m_mma_kernel(device::TcParams<T> p, KPart part, bool a_t, int k_groups, device::PartSum<T> sum) {
  using S = Stream<T, Tiles, OpB, Vec>;
  constexpr int kWarpColumns = S::kWarpColumns;
  __shared__ float sums[kWarps][Tiles][4][32];
  device::take_part(p, part, a_t, OpB == Op::T);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int column_groups = kWarps / k_groups;
  const int64_t block_n0 = int64_t(blockIdx.x) * column_groups * kWarpColumns;
  const int64_t n0 = block_n0 + warp / k_groups * kWarpColumns;
  const int64_t steps = (p.k + S::kStepK - 1) / S::kStepK;
  float acc[S::kSets][Tiles][4] = {};
  for (int64_t s0 = warp % k_groups; s0 < steps; s0 += int64_t(k_groups) * S::kUnroll) {
    S stream;
    stream.load_round(p, s0, k_groups, n0, a_t);
    stream.mma_round(acc);
  }
  // Per mma set and column group: accumulator r of tile t of lane l, summed over the group's
  // k-warps in order; it is mma row l / 4 + 8 (r / 2), row 8t + 2 (l % 4) + r % 2 of C.
  constexpr int kPerGroup = Tiles * 4 * 32;
#pragma unroll
  for (int j = 0; j < S::kSets; ++j) {
    if (j > 0) __syncthreads();
#pragma unroll
    for (int t = 0; t < Tiles; ++t)
#pragma unroll
      for (int r = 0; r < 4; ++r) sums[warp][t][r][lane] = acc[j][t][r];
    __syncthreads();
    for (int idx = threadIdx.x; idx < column_groups * kPerGroup; idx += kWarps * 32) {
      const int cg = idx / kPerGroup, t = idx / 128 % Tiles, r = idx / 32 % 4, l = idx % 32;
      float v = 0.0f;
      for (int w = cg * k_groups; w < (cg + 1) * k_groups; ++w) v += sums[w][t][r][l];
      const int row = l / 4 + 8 * (r / 2);  // of the mma: C's column, as the loads laid them out
      const int64_t i = 8 * t + 2 * (l % 4) + r % 2;
      const int64_t c =
          block_n0 + cg * kWarpColumns + (OpB == Op::T ? row : 8 * S::kRun * (row / 8) + S::kRun * (row % 8) + j);
      if (i < p.m && c < p.n) device::store_one(p, i, c, v);
    }
  }
  device::sum_parts_if_last<kWarps * 32>(sum, block_n0, int64_t(column_groups) * kWarpColumns);
}

}  // namespace

template <DType AB>
cudaError_t launch_small_m_mma(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  if (a.precision.ab != AB || a.m > kSmallMMaxM) return cudaErrorInvalidValue;
  const bool a_t = a.opA == Op::T;
  // Direct 16-byte loads where both operands' rows are in 16-byte units (split-k parts start on whole
  // slices), shifted aligned pairs of them otherwise.
  const bool vec = in_16_byte_units(a.A, a.lda, sizeof(T)) && in_16_byte_units(a.B, a.ldb, sizeof(T));
  GemmArgs out;
  if (cudaError_t err = split_parts_output(a, plan, stream, &out); err != cudaSuccess) return err;
  const KPart part{plan.k_per_split, plan.part_rows * out.ldc};
  device::PartSum<T> sum{device::tc_params<T>(a), static_cast<const float*>(out.C), part.stride, out.ldc, nullptr};
  sum.c.alpha = 1.0f;
  if (plan.splits > 1) {
    if (cudaError_t err = arrival_flags(plan, stream, &sum.flags); err != cudaSuccess) return err;
  }
  const device::TcParams<T> p = device::tc_params<T>(out);
  const dim3 grid(unsigned(device::ceil_div(a.n, small_mma_columns(plan.k_groups, a.opB, a.m, sizeof(T)))),
                  unsigned(plan.splits > 1 ? plan.splits : 1));
  const auto go = [&](auto aligned) {
    constexpr bool kVec = decltype(aligned)::value;
    const auto run = [&](auto kernel) {
      return device::launch(kernel, grid, kWarps * 32, 0, stream, p, part, a_t, plan.k_groups, sum);
    };
    if (a.opB == Op::T) {
      return a.m <= 8 ? run(small_m_mma_kernel<T, 1, Op::T, kVec>) : run(small_m_mma_kernel<T, 2, Op::T, kVec>);
    }
    return a.m <= 8 ? run(small_m_mma_kernel<T, 1, Op::N, kVec>) : run(small_m_mma_kernel<T, 2, Op::N, kVec>);
  };
  return vec ? go(std::true_type{}) : go(std::false_type{});
}

template cudaError_t launch_small_m_mma<DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_small_m_mma<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_small_m_mma<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
