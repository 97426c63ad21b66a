// Step 16 on tensor cores: small m with B stored n x k (op T, the nn.Linear weight), 16-bit inputs.
//
// At m = 16 the FP32 multiply-adds of the stream of B (16_small_m.cu) are 16 per
// element, near the SM's FMA rate at HBM speed. Here mma.sync m16n8k16 does them,
// roles turned: C^T = op(B) op(A)^T, 16 rows of B as the mma's rows, the m <= 16
// rows of A as its 8 (or 2 x 8) columns.
//  - a lane loads 16 bytes of B rows g and g + 8 and of A row g at the same k
//    (k0 + 8q .. k0 + 8q + 7, lane = 4g + q): two mma's worth of its fragments.
//    k is permuted alike in both operands, which the sum over k does not see, so
//    B goes from global memory to the tensor cores without shared memory;
//  - a block's warps split k into k_groups interleaved runs of 32-deep steps
//    (the plan's choice: deep k, all of them; shallow k, fewer and more columns
//    a block), small_mma_unroll(m) steps' loads in flight, summed in shared memory
//    in warp order; k is split across blocks as in step 16 where blocks are few.
// Takes B with op T, any alignment (element-wise loads where rows are not in 16-byte units).
#include "device/common.cuh"
#include "device/mma.cuh"
#include "device/types.cuh"
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kWarps = kSmallMmaWarps;
constexpr int kStepK = 32;  // k per warp step: 4 lanes x 8 values

// Eight values of T from p, zeros past `valid`, packed in pairs: one 16-byte load where the
// operands' rows are in 16-byte units (vec) and all eight are valid, else element-wise.
template <class T>
__device__ __forceinline__ uint4 load8(const T* p, int64_t valid, bool vec) {
  if (vec && valid >= 8) return __ldg(reinterpret_cast<const uint4*>(p));
  uint4 out = make_uint4(0, 0, 0, 0);
  T* e = reinterpret_cast<T*>(&out);
  for (int i = 0; i < 8; ++i) {
    if (i < valid) e[i] = p[i];
  }
  return out;
}

// The same eight values of A's row `row` when A is stored k x m (op T): element-wise, stride lda.
template <class T>
__device__ __forceinline__ uint4 load8_strided(const T* p, int64_t ld, int64_t valid) {
  uint4 out = make_uint4(0, 0, 0, 0);
  T* e = reinterpret_cast<T*>(&out);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if (i < valid) e[i] = p[i * ld];
  }
  return out;
}

// Tiles: 8-column mma tiles of A's rows (1: m <= 8, 2: m <= 16). Warp w takes k-steps
// w % k_groups, + k_groups, ... of its block's 16 x (kWarps / k_groups) columns.
template <class T, int Tiles>
__global__ void __launch_bounds__(kWarps * 32)
    small_m_mma_kernel(device::TcParams<T> p, KPart part, bool a_t, int k_groups, bool vec) {
  constexpr int kUnroll = small_mma_unroll(8 * Tiles);
  __shared__ float sums[kWarps][Tiles][4][32];
  device::take_part(p, part, a_t, true);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int column_groups = kWarps / k_groups;
  const int64_t block_n0 = int64_t(blockIdx.x) * column_groups * 16;
  const int64_t n0 = block_n0 + warp / k_groups * 16;
  const int64_t steps = (p.k + kStepK - 1) / kStepK;
  float acc[Tiles][4] = {};
  for (int64_t s0 = warp % k_groups; s0 < steps; s0 += int64_t(k_groups) * kUnroll) {
    uint4 b[kUnroll][2], a[kUnroll][Tiles];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {  // every load of the round first
      const int64_t k0 = (s0 + int64_t(u) * k_groups) * kStepK + 8 * q, valid = p.k - k0;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t row = n0 + 8 * h + g;
        b[u][h] = row < p.n ? load8(p.B + row * p.ldb + k0, valid, vec) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int t = 0; t < Tiles; ++t) {
        const int64_t row = 8 * t + g;
        a[u][t] = row >= p.m ? make_uint4(0, 0, 0, 0)
                  : a_t      ? load8_strided(p.A + k0 * p.lda + row, p.lda, valid)
                             : load8(p.A + row * p.lda + k0, valid, vec);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      // Values 0-3 of the lane's eight as one mma's k-pairs 2q, 2q + 8; values 4-7 as the next's.
      const uint4 &lo = b[u][0], &hi = b[u][1];
      const uint32_t frag0[4] = {lo.x, hi.x, lo.y, hi.y}, frag1[4] = {lo.z, hi.z, lo.w, hi.w};
#pragma unroll
      for (int t = 0; t < Tiles; ++t) {
        device::Mma<T>::run(acc[t], frag0, a[u][t].x, a[u][t].y);
        device::Mma<T>::run(acc[t], frag1, a[u][t].z, a[u][t].w);
      }
    }
  }
#pragma unroll
  for (int t = 0; t < Tiles; ++t)
#pragma unroll
    for (int r = 0; r < 4; ++r) sums[warp][t][r][lane] = acc[t][r];
  __syncthreads();
  // Per column group: accumulator r of tile t of lane l, summed over the group's k-warps in
  // order; it is column l / 4 + 8 (r / 2) of the group, row 8t + 2 (l % 4) + r % 2 of C.
  constexpr int kPerGroup = Tiles * 4 * 32;
  for (int idx = threadIdx.x; idx < column_groups * kPerGroup; idx += kWarps * 32) {
    const int cg = idx / kPerGroup, t = idx / 128 % Tiles, r = idx / 32 % 4, l = idx % 32;
    float v = 0.0f;
    for (int w = cg * k_groups; w < (cg + 1) * k_groups; ++w) v += sums[w][t][r][l];
    const int64_t i = 8 * t + 2 * (l % 4) + r % 2, j = block_n0 + cg * 16 + l / 4 + 8 * (r / 2);
    if (i < p.m && j < p.n) device::store_one(p, i, j, v);
  }
}

}  // namespace

template <DType AB>
cudaError_t launch_small_m_mma(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  if (a.precision.ab != AB || a.m > kSmallMMaxM || a.opB != Op::T) return cudaErrorInvalidValue;
  const bool a_t = a.opA == Op::T;
  // 16-byte loads where both operands' rows are in 16-byte units (split-k parts start on whole slices).
  const bool vec = in_16_byte_units(a.A, a.lda, sizeof(T)) && in_16_byte_units(a.B, a.ldb, sizeof(T));
  return with_split_parts(a, plan, stream, [&](const GemmArgs& out, const KPart& part, unsigned parts) {
    const device::TcParams<T> p = device::tc_params<T>(out);
    const dim3 grid(unsigned(device::ceil_div(a.n, small_mma_columns(plan.k_groups))), parts);
    const int groups = plan.k_groups;
    return a.m <= 8 ? device::launch(small_m_mma_kernel<T, 1>, grid, kWarps * 32, 0, stream, p, part, a_t, groups, vec)
                    : device::launch(small_m_mma_kernel<T, 2>, grid, kWarps * 32, 0, stream, p, part, a_t, groups, vec);
  });
}

template cudaError_t launch_small_m_mma<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_small_m_mma<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
