// Step 16: small m (decode): a stream of B through the SMs, no tensor cores.
//
// With m <= 16 rows of A (a few tokens), C = A op(B) reads each element of B
// once and does m multiply-adds with it: at ~2m flops per 2-byte element the
// GEMM is bound by the bandwidth B streams in at, and a tensor-core tile of
// 64+ rows wastes most of its work and registers. Here:
//  - A's rows for a k-range are staged in shared memory as FP32, read by
//    every warp of the block;
//  - B is read once, 16 bytes per load (FP32 B not in 16-byte units: 4, or
//    element by element). With op T (B stored n x k, the
//    nn.Linear weight) a warp takes kColsPerWarp columns and its lanes walk
//    k, each lane keeping partial sums per row and column, summed across
//    the warp at the end; B and A flow through a ring of cp.async stages, so
//    that loads stay in flight while a stage is summed (aligned FP32 B at
//    m <= 4 loads B straight into registers instead). With op N (B stored k x n)
//    each lane takes one 16-byte run of columns (a block 32 runs) and the
//    block's warps split k, their sums added in shared memory (at m > 4,
//    where the accumulators leave registers for few loads in flight, each
//    lane's rows of B come through a cp.async ring of its own);
//  - k is split across a second grid dimension where the columns alone give
//    too few blocks to keep enough loads in flight (plan.cpp,
//    plan_small_m); the parts are added in order into C by the last part of
//    a column block to arrive (part_sum.cuh) where the plan says (m <= 4, the sum
//    short), else by a second launch (sum_split_parts);
//  - FP32 multiply-adds throughout (tf32 calls are computed in FP32).
//
// 16-bit B needs its rows in 16-byte units (B 16-byte aligned, ldb a multiple
// of 16 bytes); FP32 B and A and C any alignment; m <= kMaxM.
#include <algorithm>
#include <type_traits>

#include "device/common.cuh"
#include "device/cp_async.cuh"
#include "device/mma.cuh"
#include "device/part_sum.cuh"
#include "device/types.cuh"
#include "kernels/context.hpp"
#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {
namespace {

constexpr int kThreads = kSmallMThreads;
constexpr int kChunkK = kSmallMChunkK;  // k values of A in shared memory at a time (16 x 512 FP32 = 32 KiB)
constexpr int kColsPerWarp = kSmallMColumnsT / (kThreads / 32);  // op T: B rows (columns of C) per warp

template <class T>
constexpr int kVec = 16 / int(sizeof(T));  // elements per 16-byte load

// kVec<T> values of T at p as FP32, one 16-byte load where kVecB (p 16-byte aligned) and all are
// valid; else element by element, the ones past `valid` zero.
template <bool kVecB, class T>
__device__ __forceinline__ void load_b(const T* p, int valid, float (&v)[kVec<T>]) {
  if (kVecB && valid >= kVec<T>) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int i = 0; i < kVec<T>; ++i) v[i] = device::to_float(e[i]);
  } else {
#pragma unroll
    for (int i = 0; i < kVec<T>; ++i) v[i] = i < valid ? device::to_float(p[i]) : 0.0f;
  }
}

// A's rows 0..m-1, k values [kc, kc + depth), into sa as FP32 (zeros past m and depth).
template <int MT, class T>
__device__ __forceinline__ void stage_a(float (*sa)[kChunkK], const device::TcParams<T>& p, bool a_t, int64_t kc,
                                        int depth) {
  for (int idx = threadIdx.x; idx < MT * kChunkK; idx += kThreads) {
    const int i = idx / kChunkK, q = idx % kChunkK;
    float v = 0.0f;
    if (i < p.m && q < depth) v = device::to_float(a_t ? p.A[(kc + q) * p.lda + i] : p.A[i * p.lda + kc + q]);
    sa[i][q] = v;
  }
}

// B op T at m <= 4 with FP32 B in 16-byte units: warp w of block b takes columns (b * warps + w) * kColsPerWarp + c,
// its lanes walk k, B loaded straight into registers (little work per byte: more blocks an SM
// measured faster than small_m_bt_ring_kernel's staging).
template <class T, int MT, bool kArrive>
__global__ void __launch_bounds__(kThreads)
    small_m_bt_direct_kernel(device::TcParams<T> p, KPart part, bool a_t, device::PartSum<T> sum) {
  constexpr int V = kVec<T>;
  __shared__ __align__(16) float sa[MT][kChunkK];
  device::take_part(p, part, a_t, true);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t j0 = (int64_t(blockIdx.x) * (kThreads / 32) + warp) * kColsPerWarp;
  float acc[kColsPerWarp][MT] = {};
  for (int64_t kc = 0; kc < p.k; kc += kChunkK) {
    const int depth = int(p.k - kc < kChunkK ? p.k - kc : kChunkK);
    __syncthreads();  // the previous chunk is no longer read
    stage_a<MT>(sa, p, a_t, kc, depth);
    __syncthreads();
    for (int q = lane * V; q < depth; q += 32 * V) {
      float b[kColsPerWarp][V];
#pragma unroll
      for (int c = 0; c < kColsPerWarp; ++c) {  // the loads first: kColsPerWarp in flight
        const int64_t j = j0 + c;
        if (j < p.n) {
          load_b<true>(p.B + j * p.ldb + kc + q, depth - q, b[c]);
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e) b[c][e] = 0.0f;
        }
      }
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        float a[V];
#pragma unroll
        for (int e = 0; e < V; e += 4) {
          const float4 four = *reinterpret_cast<const float4*>(&sa[i][q + e]);
          a[e] = four.x, a[e + 1] = four.y, a[e + 2] = four.z, a[e + 3] = four.w;
        }
#pragma unroll
        for (int c = 0; c < kColsPerWarp; ++c)
#pragma unroll
          for (int e = 0; e < V; ++e) acc[c][i] = fmaf(a[e], b[c][e], acc[c][i]);
      }
    }
  }
#pragma unroll
  for (int c = 0; c < kColsPerWarp; ++c)
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      float v = acc[c][i];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
      acc[c][i] = v;
    }
  // Lane c * MT + i (of the first 32) stores column j0 + c, row i.
#pragma unroll
  for (int c = 0; c < kColsPerWarp; ++c)
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      if (lane == (c * MT + i) % 32 && i < p.m && j0 + c < p.n) device::store_one(p, i, j0 + c, acc[c][i]);
    }
  if constexpr (kArrive) {
    device::sum_parts_if_last<kThreads>(sum, int64_t(blockIdx.x) * kSmallMColumnsT, kSmallMColumnsT);
  }
}

// B op T elsewhere: the block's kSmallMColumnsT rows of B flow through a ring of kStages stages of
// kDepth values of k (cp.async: 16-byte copies, or 4-byte ones for FP32 B whose rows are not in
// 16-byte units), A's rows for the same k beside them (read into registers while a
// stage is summed, stored after it); warp w takes rows 4w..4w+3 (columns of C) of each stage, its
// lanes kLaneK values of k each; per column and row the lanes' sums are added last.
template <class T, int MT>
struct RingT {
  static constexpr int kLaneK = 4;               // k values a lane sums per row of B and stage
  static constexpr int kDepth = 32 * kLaneK;     // k values a stage holds
  static constexpr int kPieces = kDepth * int(sizeof(T)) / 16;  // 16-byte copies a row of B takes per stage
  static constexpr int kBBytes = kSmallMColumnsT * kDepth * int(sizeof(T));
  static constexpr int kABytes = MT * kDepth * int(sizeof(float));
  static constexpr int kStages = 4;  // at most 96 KiB at m = 16: two blocks an SM
  static constexpr int kSmem = kStages * (kBBytes + kABytes);
  static constexpr int kAPerThread = (MT * kDepth + kThreads - 1) / kThreads;
};

template <class T, int MT, bool kVecB, bool kArrive>
__global__ void __launch_bounds__(kThreads, 2)
    small_m_bt_ring_kernel(device::TcParams<T> p, KPart part, bool a_t, device::PartSum<T> sum) {
  using R = RingT<T, MT>;
  constexpr int W = R::kLaneK, D = R::kDepth, S = R::kStages, kPieceK = 16 / int(sizeof(T));
  using Raw = std::conditional_t<sizeof(T) == 4, uint4, uint2>;  // a lane's W values of a row
  // At m = 16 the lanes form two groups of 16, each summing 8 rows: half the accumulators.
  constexpr int RG = MT >= 8 ? 2 : 1, MR = MT / RG, LK = 32 / RG;
  extern __shared__ __align__(16) unsigned char smem[];
  T* const sb = reinterpret_cast<T*>(smem);                           // [S][columns][D]
  float* const sa = reinterpret_cast<float*>(smem + S * R::kBBytes);  // [S][MT][D]
  device::take_part(p, part, a_t, true);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, half = lane / LK, kl = lane % LK;
  const int64_t block_j0 = int64_t(blockIdx.x) * kSmallMColumnsT;
  const int stages = int(device::ceil_div(p.k, D));
  // B of stage s into slot s % S: each thread 16-byte pieces of rows, zeros past n and k.
  auto issue_vectors = [&](int s) {
    T* slot = sb + (s % S) * kSmallMColumnsT * D;
#pragma unroll
    for (int t = 0; t < kSmallMColumnsT * R::kPieces / kThreads && s < stages; ++t) {
      const int c = threadIdx.x + t * kThreads, row = c / R::kPieces, q = (c % R::kPieces) * kPieceK;
      const int64_t j = block_j0 + row, kq = int64_t(s) * D + q;
      const int valid = j < p.n && kq < p.k ? int(p.k - kq < kPieceK ? p.k - kq : kPieceK) : 0;
      device::cp_async16(slot + row * D + q, valid > 0 ? p.B + j * p.ldb + kq : p.B, valid * int(sizeof(T)));
    }
  };
  // The same for FP32 B of any alignment, one value a copy: warp w rows w, w + 8, ..., lane l values l, l + 32, ...
  auto issue_values = [&](int s) {
    constexpr int kWarps = kThreads / 32;
    T* slot = sb + (s % S) * kSmallMColumnsT * D;
#pragma unroll
    for (int r = warp; r < kSmallMColumnsT; r += kWarps) {
      const int64_t j = block_j0 + r, k0 = int64_t(s) * D;
      const T* row = p.B + (j < p.n ? j : 0) * p.ldb + k0;
#pragma unroll
      for (int q = lane; q < D; q += 32) {
        const bool in = j < p.n && k0 + q < p.k;
        device::cp_async4(slot + r * D + q, in ? row + q : p.B, in ? 4 : 0);
      }
    }
  };
  auto issue_b = [&](int s) {
    if constexpr (kVecB) {
      issue_vectors(s);
    } else if (s < stages) {
      issue_values(s);
    }
    device::cp_async_commit();
  };
  // A of stage s, this thread's share, as FP32 (zeros past m and k): rows i0 + t * kRowStep, k value ka.
  static_assert(kThreads % D == 0, "a thread's A values share one k");
  constexpr int kRowStep = kThreads / D;
  const int i0 = threadIdx.x / D, ka = threadIdx.x % D;
  const int64_t si = a_t ? 1 : p.lda, sk = a_t ? p.lda : 1;  // A(i, k) at A[i * si + k * sk]
  const T* const a_base = p.A + i0 * si + ka * sk;
  auto load_a = [&](int s, float (&v)[R::kAPerThread]) {
    const T* at = a_base + int64_t(s) * D * sk;
    const bool k_in = int64_t(s) * D + ka < p.k;
#pragma unroll
    for (int t = 0; t < R::kAPerThread; ++t) {
      const int i = i0 + t * kRowStep;
      v[t] = i < MT && i < p.m && k_in ? device::to_float(at[t * kRowStep * si]) : 0.0f;
    }
  };
  auto store_a = [&](int s, const float (&v)[R::kAPerThread]) {
#pragma unroll
    for (int t = 0; t < R::kAPerThread; ++t) {
      const int idx = threadIdx.x + t * kThreads;
      if (idx < MT * D) sa[(s % S) * MT * D + idx] = v[t];
    }
  };
  float next_a[R::kAPerThread];
  for (int s = 0; s < S - 1; ++s) {
    issue_b(s);
    load_a(s, next_a);
    store_a(s, next_a);
  }
  float acc[kColsPerWarp][MR] = {};
  for (int s = 0; s < stages; ++s) {
    device::cp_async_wait<S - 2>();
    __syncthreads();  // stage s is in; slot (s - 1) % S is no longer read
    issue_b(s + S - 1);
    load_a(s + S - 1, next_a);
    const T* bs = sb + (s % S) * kSmallMColumnsT * D + warp * kColsPerWarp * D;
    const float* as = sa + (s % S) * MT * D + half * MR * D;
#pragma unroll 1
    for (int pass = 0; pass < RG; ++pass) {
      const int q = (pass * LK + kl) * W;
      float b[kColsPerWarp][W];
#pragma unroll
      for (int c = 0; c < kColsPerWarp; ++c) {
        const Raw raw = *reinterpret_cast<const Raw*>(bs + c * D + q);
        const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
        for (int x = 0; x < W; ++x) b[c][x] = device::to_float(e[x]);
      }
#pragma unroll
      for (int r = 0; r < MR; ++r) {
        const float4 a = *reinterpret_cast<const float4*>(as + r * D + q);
#pragma unroll
        for (int c = 0; c < kColsPerWarp; ++c) {
          acc[c][r] = fmaf(a.x, b[c][0], acc[c][r]);
          acc[c][r] = fmaf(a.y, b[c][1], acc[c][r]);
          acc[c][r] = fmaf(a.z, b[c][2], acc[c][r]);
          acc[c][r] = fmaf(a.w, b[c][3], acc[c][r]);
        }
      }
    }
    store_a(s + S - 1, next_a);  // its slot was freed at this stage's barrier
  }
  device::cp_async_wait_all();
  const int64_t j0 = block_j0 + warp * kColsPerWarp;
#pragma unroll
  for (int c = 0; c < kColsPerWarp; ++c)
#pragma unroll
    for (int r = 0; r < MR; ++r) {
      float v = acc[c][r];
#pragma unroll
      for (int offset = LK / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
      acc[c][r] = v;
    }
  // Lane (c * MR + r) % LK of each group stores column j0 + c, the group's row r.
#pragma unroll
  for (int c = 0; c < kColsPerWarp; ++c)
#pragma unroll
    for (int r = 0; r < MR; ++r) {
      const int i = half * MR + r;
      if (kl == (c * MR + r) % LK && i < p.m && j0 + c < p.n) device::store_one(p, i, j0 + c, acc[c][r]);
    }
  if constexpr (kArrive) device::sum_parts_if_last<kThreads>(sum, block_j0, kSmallMColumnsT);
}

// B op N: lane l of block b takes the V columns from (32 b + l) V; the block's warps split each
// staged chunk of k into kWarps runs of rows (warp w the w-th), kRows rows at a time, and their
// sums are added in shared memory in warp order. B's rows reach the lane by loads into registers
// (kRows in flight), or where the accumulators leave registers for few (kRing: m > 4 with B in
// 16-byte units) through a ring of the lane's own in shared memory: cp.async copies kStages - 1
// steps of kRows rows ahead, each read back by the lane that copied it (no barrier).
template <class T, int MT, bool kVecB>
struct BnRows {
  static constexpr int kRows = MT <= 4 ? 8 : 4;  // fewer at m = 16: the accumulators take the registers
  static constexpr bool kRing = kVecB && MT > 4;
  static constexpr int kStages = 4;
  static constexpr int kSmem = kRing ? kStages * kRows * kThreads * 16 : 0;  // dynamic: 64 KiB
};

template <class T, int MT, bool kVecB, bool kArrive>
__global__ void __launch_bounds__(kThreads)
    small_m_bn_kernel(device::TcParams<T> p, KPart part, bool a_t, device::PartSum<T> sum) {
  using R = BnRows<T, MT, kVecB>;
  constexpr int V = kVec<T>, kWarps = kThreads / 32, kRun = kChunkK / kWarps, kRows = R::kRows;
  constexpr int S = R::kStages, kSteps = kRun / kRows;  // a warp's steps per chunk
  static_assert(kRun % kRows == 0, "a warp's rows are whole loads' worth");
  __shared__ __align__(16) float sa[MT][kChunkK];
  __shared__ float sums[kWarps][32 * V];
  extern __shared__ __align__(16) unsigned char ring[];  // kRing: [S][kRows][kThreads] 16 bytes
  device::take_part(p, part, a_t, false);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t block_j0 = int64_t(blockIdx.x) * 32 * V, j0 = block_j0 + lane * V;
  const int valid = int(p.n - j0 < V ? p.n - j0 : V);  // <= 0: no column of this lane
  // kRing: step s (chunk s / kSteps, rows from the warp's run on) into slot s % S, zeros past k and n.
  const int64_t steps = device::ceil_div(p.k, kChunkK) * kSteps;
  auto issue = [&](int64_t s) {
    if (s < steps) {
      const int64_t row0 = s / kSteps * kChunkK + warp * kRun + s % kSteps * kRows;
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const int64_t row = row0 + r;
        const int bytes = row < p.k && valid > 0 ? valid * int(sizeof(T)) : 0;
        device::cp_async16(ring + ((s % S * kRows + r) * kThreads + threadIdx.x) * 16,
                           bytes > 0 ? p.B + row * p.ldb + j0 : p.B, bytes);
      }
    }
    device::cp_async_commit();
  };
  if constexpr (R::kRing) {
    for (int s = 0; s < S - 1; ++s) issue(s);
  }
  float acc[MT][V] = {};
  int64_t step = 0;
  for (int64_t kc = 0; kc < p.k; kc += kChunkK) {
    const int depth = int(p.k - kc < kChunkK ? p.k - kc : kChunkK);
    __syncthreads();
    stage_a<MT>(sa, p, a_t, kc, depth);
    __syncthreads();
    if (!R::kRing && valid <= 0) continue;
    const int q1 = min(warp * kRun + kRun, depth), q_end = R::kRing ? warp * kRun + kRun : q1;
    for (int q = warp * kRun; q < q_end; q += kRows) {
      float b[kRows][V];
      if constexpr (R::kRing) {  // every step of the run, in order, so that the ring stays in step
        device::cp_async_wait<S - 2>();
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const unsigned char* at = ring + ((step % S * kRows + r) * kThreads + threadIdx.x) * 16;
          load_b<true>(reinterpret_cast<const T*>(at), V, b[r]);
        }
        issue(step + S - 1);  // into the slot read at the last step
        ++step;
        if (q >= q1) continue;
      } else {
#pragma unroll
        for (int r = 0; r < kRows; ++r) {  // the loads first: kRows in flight
          if (q + r < q1) {
            load_b<kVecB>(p.B + (kc + q + r) * p.ldb + j0, valid, b[r]);
          } else {
#pragma unroll
            for (int e = 0; e < V; ++e) b[r][e] = 0.0f;
          }
        }
      }
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int r = 0; r < kRows; r += 4) {
          const float4 a = *reinterpret_cast<const float4*>(&sa[i][q + r]);  // one address for the warp
#pragma unroll
          for (int e = 0; e < V; ++e) {
            acc[i][e] = fmaf(a.x, b[r][e], acc[i][e]);
            acc[i][e] = fmaf(a.y, b[r + 1][e], acc[i][e]);
            acc[i][e] = fmaf(a.z, b[r + 2][e], acc[i][e]);
            acc[i][e] = fmaf(a.w, b[r + 3][e], acc[i][e]);
          }
        }
    }
  }
  if constexpr (R::kRing) device::cp_async_wait_all();
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    if (i >= p.m) break;  // the same for every thread
    __syncthreads();
#pragma unroll
    for (int e = 0; e < V; ++e) sums[warp][lane * V + e] = acc[i][e];  // fixed indices: acc stays in registers
    __syncthreads();
    for (int c = threadIdx.x; c < 32 * V; c += kThreads) {
      float v = 0.0f;
      for (int w = 0; w < kWarps; ++w) v += sums[w][c];
      if (block_j0 + c < p.n) device::store_one(p, i, block_j0 + c, v);
    }
  }
  if constexpr (kArrive) device::sum_parts_if_last<kThreads>(sum, block_j0, 32 * V);
}

// f(kernel, dynamic shared bytes) on the kernel for m rows (compiled for 1, 4 or kSmallMMaxM), B with op
// op_b, B's rows in 16-byte units or not (vec; FP32 B only may have them not), and split-k's parts summed
// by the last to arrive or not (arrive; the kernels without it end at their own stores).
template <class T, class F>
cudaError_t with_kernel(int64_t m, Op op_b, bool vec, bool arrive, F&& f) {
  auto go = [&](auto rows, auto arrives) -> cudaError_t {
    constexpr int MT = decltype(rows)::value;
    constexpr bool A = decltype(arrives)::value;
    auto with_smem = [&](auto* kernel, int bytes) {  // dynamic shared memory past 48 KiB allowed first
      if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
          err != cudaSuccess) {
        cudaGetLastError();  // returned, not left pending
        return err;
      }
      return f(kernel, bytes);
    };
    auto ring = [&](auto* kernel) { return with_smem(kernel, RingT<T, MT>::kSmem); };
    auto bn = [&](auto vec_b) {
      constexpr bool kV = decltype(vec_b)::value;
      return with_smem(small_m_bn_kernel<T, MT, kV, A>, BnRows<T, MT, kV>::kSmem);
    };
    if constexpr (sizeof(T) == 4) {  // FP32 B of any alignment
      if (op_b == Op::N) return vec ? bn(std::true_type{}) : bn(std::false_type{});
      if (!vec) return ring(small_m_bt_ring_kernel<T, MT, false, A>);
      if constexpr (MT <= 4) {
        return f(small_m_bt_direct_kernel<T, MT, A>, 0);
      } else {
        return ring(small_m_bt_ring_kernel<T, MT, true, A>);
      }
    } else {  // 16-bit B in 16-byte units
      if (op_b == Op::N) return bn(std::true_type{});
      return ring(small_m_bt_ring_kernel<T, MT, true, A>);
    }
  };
  auto with_rows = [&](auto rows) { return arrive ? go(rows, std::true_type{}) : go(rows, std::false_type{}); };
  return m == 1   ? with_rows(std::integral_constant<int, 1>{})
         : m <= 4 ? with_rows(std::integral_constant<int, 4>{})
                  : with_rows(std::integral_constant<int, kSmallMMaxM>{});
}

}  // namespace

template <DType AB>
cudaError_t launch_small_m(const GemmArgs& a, const LaunchPlan& plan, cudaStream_t stream) {
  using T = typename device::CudaType<AB>::type;
  if (a.precision.ab != AB || a.m > kSmallMMaxM) return cudaErrorInvalidValue;
  const bool a_t = a.opA == Op::T;
  const int64_t columns = a.opB == Op::T ? int64_t(kSmallMColumnsT) : small_m_columns_n(sizeof(T));
  const unsigned blocks = unsigned(device::ceil_div(a.n, columns));
  const bool vec = in_16_byte_units(a.B, a.ldb, sizeof(T));  // split-k parts start on whole chunks
  if (!vec && sizeof(T) != 4) return cudaErrorInvalidValue;
  GemmArgs out;
  if (cudaError_t err = split_parts_output(a, plan, stream, &out); err != cudaSuccess) return err;
  const KPart part{plan.k_per_split, plan.part_rows * out.ldc};
  device::PartSum<T> sum{device::tc_params<T>(a), static_cast<const float*>(out.C), part.stride, out.ldc, nullptr};
  sum.c.alpha = 1.0f;  // alpha is in the parts
  const bool arrive = plan.splits > 1 && plan.arrival_flags > 0;
  if (arrive) {
    if (cudaError_t err = arrival_flags(plan, stream, &sum.flags); err != cudaSuccess) return err;
  }
  const device::TcParams<T> p = device::tc_params<T>(out);
  const unsigned parts = unsigned(plan.splits > 1 ? plan.splits : 1);
  const cudaError_t err = with_kernel<T>(a.m, a.opB, vec, arrive, [&](auto kernel, int smem) {
    return device::launch(kernel, dim3(blocks, parts), kThreads, size_t(smem), stream, p, part, a_t, sum);
  });
  if (err != cudaSuccess || arrive) return err;
  return sum_split_parts(a, plan, out, stream);  // the parts (if any) summed by a second launch
}

// Asked of the GPU once per context and kernel: the plan of every call reads it.
template <DType AB>
cudaError_t resident_small_m(Op op_b, int64_t m, bool vec, bool arrive, int* blocks) {
  using T = typename device::CudaType<AB>::type;
  const cudaError_t err = with_kernel<T>(m, op_b, vec, arrive, [&](auto kernel, int smem) {
    return cached_in_context(reinterpret_cast<const void*>(kernel), blocks, [&](int* per_sm) {
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, kThreads, size_t(smem));
    });
  });
  if (err != cudaSuccess) cudaGetLastError();  // returned, not left pending
  return err;
}

template cudaError_t launch_small_m<DType::kF32>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_small_m<DType::kF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t launch_small_m<DType::kBF16>(const GemmArgs&, const LaunchPlan&, cudaStream_t);
template cudaError_t resident_small_m<DType::kF32>(Op, int64_t, bool, bool, int*);
template cudaError_t resident_small_m<DType::kF16>(Op, int64_t, bool, bool, int*);
template cudaError_t resident_small_m<DType::kBF16>(Op, int64_t, bool, bool, int*);

}  // namespace tessel::impl
