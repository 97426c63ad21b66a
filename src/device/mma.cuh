// Thin wrappers over the sm_80 tensor-core instructions step 10 uses
// (ldmatrix, mma.sync; its cp.async copies are in cp_async.cuh), the
// swizzled shared-memory tile they read, and the parameters the
// tensor-core kernels share.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k8"):
// with g = lane / 4 and t = lane % 4, and a "k-pair" being 16 bytes of k
// (8 f16/bf16 or 4 tf32 values), thread `lane` holds
//   A (16 x k):  a0 = row g, first k-half;  a1 = row g + 8, first k-half;
//                a2 = row g, second k-half; a3 = row g + 8, second k-half
//   B (k x 8):   b0 = column g, first k-half; b1 = column g, second k-half
// which are exactly the four 8x8 (16-bit) / 8x4 (32-bit) blocks one
// ldmatrix.x4 delivers when lanes 8q..8q+7 point at the rows of block q.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "device/cp_async.cuh"
#include "device/types.cuh"
#include "kernels/launch_plan.hpp"

namespace tessel::device {

// Four 8x8 16-bit blocks (or 8x4 32-bit ones); lanes 8q..8q+7 give block q's row addresses.
template <bool Trans>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  if constexpr (Trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
  }
}

// FP32 bits -> TF32 (round to nearest, ties away), as cuBLAS rounds.
__device__ __forceinline__ uint32_t to_tf32(uint32_t bits) {
  uint32_t out;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(__uint_as_float(bits)));
  return out;
}

// d += a * b for one 16 x 8 tile; k = 16 for 16-bit types, 8 for tf32 (T = float).
template <class T>
struct Mma;
template <>
struct Mma<__half> {
  static constexpr int kK = 16;
  __device__ __forceinline__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};
template <>
struct Mma<__nv_bfloat16> {
  static constexpr int kK = 16;
  __device__ __forceinline__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};
template <>
struct Mma<float> {  // TF32
  static constexpr int kK = 8;
  __device__ __forceinline__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

// A Rows x Cols tile of T in shared memory, stored as rows of 16-byte
// chunks whose order within a row is permuted by XOR with a function of
// the row, so that the reads the fragments make hit 32 different banks:
//  - ldmatrix reads one chunk from each of 8 consecutive rows: the XOR
//    spreads those 8 chunks over the 8 chunk slots of a 128-byte line
//    (rows shorter than 128 bytes share a line, hence the divide);
//  - 32-bit tiles stored k-major (Pairs) are read element-wise, 4
//    consecutive rows x 2 adjacent chunks at a time: XOR with 2 * (r % 4)
//    puts those 8 chunks in 8 different slots.
template <class T, int Rows, int Cols, bool Pairs = false>
struct SwizzledTile {
  static constexpr int kRows = Rows, kCols = Cols;
  static constexpr int kChunkElems = 16 / int(sizeof(T));
  static constexpr int kChunks = Cols / kChunkElems;  // per row
  static constexpr int kElems = Rows * Cols;
  static constexpr int kRowStride = Cols;      // elements from one row to the next
  static constexpr int kPeriod = Pairs ? 4 : 8;  // the XOR repeats every kPeriod rows
  static_assert(Cols % kChunkElems == 0, "rows are whole 16-byte chunks");
  static_assert(!Pairs || kChunks >= 8, "the pair swizzle needs rows of at least 128 bytes");

  __device__ __forceinline__ static int chunk_xor(int r) {
    if constexpr (Pairs) {
      return (r % 4) * 2;
    } else {
      constexpr int kRowsPerLine = kChunks >= 8 ? 1 : 8 / kChunks;
      constexpr int kSpan = kChunks >= 8 ? 8 : kChunks;
      return (r / kRowsPerLine) % kSpan;
    }
  }
  // Element offset of (r, c).
  __device__ __forceinline__ static int offset(int r, int c) {
    return r * Cols + ((c / kChunkElems) ^ chunk_xor(r)) * kChunkElems + c % kChunkElems;
  }
};

// A Rows x Cols tile of T cut into column blocks of 64 elements (128 bytes
// of a 16-bit type), each a Rows x 64 SwizzledTile, one after the other:
// the layout TMA writes with 128-byte swizzle when a row is wider than its
// 128-byte box (the MN-major operands of the Hopper kernels,
// device::sm90::Operand). Row r of a block is 64 elements after row r - 1.
// Only what FragmentOffsets reads: TMA fills it, never a SliceCopier.
template <class T, int Rows, int Cols>
struct SwizzledBlocks {
  using Block = SwizzledTile<T, Rows, 64>;
  static constexpr int kChunkElems = Block::kChunkElems;
  static constexpr int kElems = Rows * Cols;
  static constexpr int kRowStride = 64;
  static_assert(sizeof(T) == 2 && Cols % 64 == 0, "16-bit types, whole 64-column blocks");
  __device__ __forceinline__ static int offset(int r, int c) { return c / 64 * Block::kElems + Block::offset(r, c % 64); }
};

// A Rows x Cols tile of T stored plainly, each row padded by 16 bytes so
// that the same column of consecutive rows falls in different banks: the
// layout WMMA's load_matrix_sync needs (a plain leading dimension).
template <class T, int Rows, int Cols>
struct PaddedTile {
  static constexpr int kRows = Rows, kCols = Cols;
  static constexpr int kChunkElems = 16 / int(sizeof(T));
  static constexpr int kChunks = Cols / kChunkElems;
  static constexpr int kLd = Cols + kChunkElems;  // leading dimension in elements
  static constexpr int kElems = Rows * kLd;
  static constexpr int kRowStride = kLd;
  static constexpr int kPeriod = 1;
  static_assert(Cols % kChunkElems == 0, "rows are whole 16-byte chunks");
  __device__ __forceinline__ static int offset(int r, int c) { return r * kLd + c; }
};

// One operand's k-slices, copied one after the other into Tile-shaped
// stages of shared memory. Async: 16-byte cp.async copies (the operand
// 16-byte aligned, rows too), zero-filling rows and columns outside the
// matrix (partial chunks included) so that tails need no other code;
// otherwise element-wise loads and shared stores for operands without
// alignment. KRows: the tile's rows run along k ([k][mn]), else its columns.
//
// Only a pointer and an offset live in registers across the main loop
// (the accumulators need the rest): this thread's first chunk of the next
// slice, advanced one slice per copy. In full tiles — all but the edges —
// a thread's chunks lie kStep rows apart in one column, so that pointer
// and one stride serve them all.
template <class Tile, int Threads, class T, bool KRows, bool Async = true>
struct SliceCopier {
  static constexpr int kDepth = KRows ? Tile::kRows : Tile::kCols;  // k values per slice
  static constexpr int kTotal = Tile::kRows * Tile::kChunks;         // 16-byte chunks per tile
  static constexpr int kStep = Threads % Tile::kChunks == 0 ? Threads / Tile::kChunks : 1;
  static constexpr bool kRegular =
      Async && kTotal % Threads == 0 && Threads % Tile::kChunks == 0 && kStep % Tile::kPeriod == 0;

  const T* next;       // this thread's first chunk of the next slice (full-tile layout)
  int first;           // ... and its offset in the tile

  // first_slice: the first slice's top-left element.
  __device__ __forceinline__ SliceCopier(const T* first_slice, int64_t ld, int tid) {
    const int r0 = tid / Tile::kChunks, c0 = tid % Tile::kChunks * Tile::kChunkElems;
    next = first_slice + r0 * ld + c0;
    first = Tile::offset(r0, c0);
  }

  // Enqueues the next slice into `tile` and moves on to the one after.
  // depth: k values left in it (at most kDepth); extent: rows (KRows:
  // columns) of the tile inside the matrix; base: any valid address.
  __device__ __forceinline__ void copy(T* tile, int64_t ld, int depth, int extent, const T* base, int tid) {
    const int rows = KRows ? depth : extent, cols = KRows ? extent : depth;
    const int64_t step = KRows ? kDepth * ld : kDepth;
    if constexpr (kRegular) {
      if (rows == Tile::kRows && cols == Tile::kCols) {
        const int64_t stride = kStep * ld;
#pragma unroll
        for (int i = 0; i < kTotal / Threads; ++i) {
          // = Tile::offset(r0 + i * kStep, c0): kStep rows is a whole number of the swizzle's periods
          cp_async16(tile + first + i * kStep * Tile::kRowStride, next + i * stride, 16);
        }
        next += step;
        return;
      }
    }
    // Edge tiles: the slice's top-left element from this thread's first chunk.
    const int r0 = tid / Tile::kChunks, c0 = tid % Tile::kChunks * Tile::kChunkElems;
    const T* src = next - (r0 * ld + c0);
    if constexpr (Async) {
#pragma unroll
      for (int i = 0; i < (kTotal + Threads - 1) / Threads; ++i) {
        const int c = tid + i * Threads;
        if (kTotal % Threads == 0 || c < kTotal) {
          const int r = c / Tile::kChunks, col = c % Tile::kChunks * Tile::kChunkElems;
          const int valid = r < rows ? min(max(cols - col, 0), Tile::kChunkElems) : 0;
          cp_async16(tile + Tile::offset(r, col), valid > 0 ? src + r * ld + col : base, valid * int(sizeof(T)));
        }
      }
    } else {
      for (int e = tid; e < Tile::kRows * Tile::kCols; e += Threads) {
        const int r = e / Tile::kCols, c = e % Tile::kCols;
        tile[Tile::offset(r, c)] = r < rows && c < cols ? src[r * ld + c] : from_float<T>(0.0f);
      }
    }
    next += step;
  }
};

// The 8x8 block (16-bit; 8x4 for 32-bit) that register q of a fragment
// load holds, as (16-row half along m or n, 16-byte half along k). A wants
// a0..a3 = (0, 0), (1, 0), (0, 1), (1, 1). B wants (0, 0), (0, 1), (1, 0),
// (1, 1): then each n8 fragment (b0, b1) is a register pair, r0-r1 and
// r2-r3, which is how HMMA reads it; in A's order the compiler must copy
// every pair into place, two moves per mma (seen in the SASS).
template <bool ForB>
__device__ __forceinline__ int mn_half(int q) { return ForB ? q >> 1 : q & 1; }
template <bool ForB>
__device__ __forceinline__ int k_half(int q) { return ForB ? q & 1 : q >> 1; }

// Where one lane's ldmatrix reads the fragments of a warp's Frags x 16
// (m or n) strip at each of the Steps mma-deep k-steps of a tile, computed
// once before the main loop. The swizzle's XOR depends on the row within
// 8, which is the lane's, so one of the two indices enters as a constant:
//  - KContig ([mn][k]): the XOR'd chunk depends on the k-step only, and
//    fragment f is 16 rows further: off[step] + f * 16 * kRowStride;
//  - [k][mn]: the XOR'd chunk depends on the fragment only, and k-step s
//    is s * kMmaK rows further: off[f] + s * kMmaK * kRowStride (a 16-wide
//    fragment never straddles two blocks of a SwizzledBlocks tile).
template <class Tile, bool KContig, bool ForB, int Frags, int Steps, int kMmaK>
struct FragmentOffsets {
  static constexpr int kN = KContig ? Steps : Frags;
  int off[kN];
  __device__ __forceinline__ FragmentOffsets(int mn0, int lane) {
    constexpr int kHalf = Tile::kChunkElems;
    const int q = lane / 8, i = lane % 8, mh = mn_half<ForB>(q), kh = k_half<ForB>(q);
#pragma unroll
    for (int x = 0; x < kN; ++x) {
      off[x] = KContig ? Tile::offset(mn0 + mh * 8 + i, x * kMmaK + kh * kHalf)
                       : Tile::offset(kh * 8 + i, mn0 + x * 16 + mh * 8);
    }
  }
  __device__ __forceinline__ int at(int f, int step) const {
    return KContig ? off[step] + f * 16 * Tile::kRowStride : off[f] + step * kMmaK * Tile::kRowStride;
  }
};

// Rounds the four registers of a tf32 fragment from FP32 (a no-op for 16-bit types).
template <class T>
__device__ __forceinline__ void round_fragment(uint32_t (&r)[4]) {
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int b = 0; b < 4; ++b) r[b] = to_tf32(r[b]);
  }
}

// The fragment registers of a 16 (m or n) x one-mma-k block, in the order
// mn_half/k_half give (for A, a0..a3; for B, two n8 fragments (r0, r1) and
// (r2, r3)), through precomputed offsets (FragmentOffsets), where ldmatrix
// can read the tile: any 16-bit tile, and 32-bit tiles stored [mn][k].
// KContig: the tile is stored [mn][k] (A with op N, B with op T), else [k][mn].
template <bool KContig, class T>
__device__ __forceinline__ void load_fragment_at(uint32_t (&r)[4], const T* p) {
  ldmatrix_x4<!KContig>(r, p);
  round_fragment<T>(r);
}

// The same for a 32-bit (tf32) tile stored [k][mn], block at (mn0, k0):
// ldmatrix cannot transpose 32-bit elements, so they are read one by one.
template <class Tile, bool ForB>
__device__ __forceinline__ void load_fragment_kmajor32(uint32_t (&r)[4], const float* tile, int mn0, int k0, int lane) {
  constexpr int kHalf = Tile::kChunkElems;  // k-half: one 16-byte chunk
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    r[b] = __float_as_uint(tile[Tile::offset(k0 + t + k_half<ForB>(b) * kHalf, mn0 + g + mn_half<ForB>(b) * 8)]);
  }
  round_fragment<float>(r);
}

// acc += A * B for one mma k-step of a warp's (16 FM) x (16 FN) tile: FM
// A fragments (load_fragment_at order) times FN B fragments, each two n8
// fragments (register pairs).
template <class T, int FM, int FN>
__device__ __forceinline__ void mma_warp_step(float (&acc)[FM][2 * FN][4], const uint32_t (&fa)[FM][4],
                                              const uint32_t (&fb)[FN][4]) {
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < 2 * FN; ++j) Mma<T>::run(acc[i][j], fa[i], fb[j / 2][2 * (j % 2)], fb[j / 2][2 * (j % 2) + 1]);
}

// What the tensor-core kernels take: the validated call with typed A and B.
// Out: C's type when it is not FP32 (T itself for 16-bit inputs; bf16 or
// f16 for FP8 inputs).
template <class T, class Out = T>
struct TcParams {
  using C16 = Out;
  static constexpr bool kProblems = false;  // ProblemParams
  const T* A;
  const T* B;
  void* C;          // Out, or float when c_f32
  int64_t m, n, k, lda, ldb, ldc;
  float alpha, beta;
  bool c_f32;       // C is FP32 (else Out)
  bool c_pairs;     // C and ldc allow 2-element vector accesses
  const float* scale_a = nullptr;  // FP8 per-tensor scales (GemmArgs::scale_a, scale_b), or null
  const float* scale_b = nullptr;
  Fp8BlockScales block_scales = {};  // FP8 block scales (GemmArgs::block_scales)
  int64_t stride_c = 0;  // a strided batch: C's matrices this many elements apart
  // A pointer-array batch: its matrices (A, B, C null; c_pairs then says ldc only),
  // and on the Hopper kernels matrix i's maps of A, B, C at [3 i], [3 i + 1], [3 i + 2].
  const void* const* a_array = nullptr;
  const void* const* b_array = nullptr;
  void* const* c_array = nullptr;
  const CUtensorMap* matrix_maps = nullptr;
  bool c_transposed = false;  // results (i, j) at C[j ldc + i]: a kernel computing Cᵀ = Bᵀ·Aᵀ (sm90)
  Epilogue epi = {};     // applied to the accumulators by the fused kernels (device/fused_epilogue.cuh);
  float epi_alpha = 1.0f;  // then alpha is 1 and epi_alpha the call's, which the epilogue applies
};

// A grouped GEMM of problems with sizes of their own (GemmArgs::problems; A,
// B, C null, m, n, k their bounds; on the Hopper kernels their maps in
// matrix_maps as a pointer-array batch's): a type of its own, so that only
// the kernels compiled for it carry the problems' paths.
template <class T, class Out = T>
struct ProblemParams : TcParams<T, Out> {
  static constexpr bool kProblems = true;
  const GemmProblem* problems = nullptr;
};

// The launchers' view of a validated call: typed A and B, and whether C
// and ldc allow 2-element vector accesses.
template <class T, class Out = T>
inline TcParams<T, Out> tc_params(const GemmArgs& a) {
  const bool c_pairs = a.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % (2 * size_of(a.precision.c)) == 0;
  TcParams<T, Out> p{static_cast<const T*>(a.A), static_cast<const T*>(a.B), a.C, a.m, a.n, a.k, a.lda, a.ldb, a.ldc,
                     a.alpha, a.beta, a.precision.c == DType::kF32, c_pairs};
  p.scale_a = a.scale_a, p.scale_b = a.scale_b, p.block_scales = a.block_scales, p.stride_c = a.stride_c;
  p.a_array = a.a_array, p.b_array = a.b_array, p.c_array = a.c_array;
  p.epi = a.epilogue;
  if (a.epilogue.any()) p.epi_alpha = p.alpha, p.alpha = 1.0f;
  return p;
}

// alpha with the per-tensor scales folded in (read once per thread; FP8, whose epilogue is never fused).
template <class P>
__device__ __forceinline__ void fold_scales(P& p) {
  if (p.scale_a != nullptr) p.alpha *= *p.scale_a;
  if (p.scale_b != nullptr) p.alpha *= *p.scale_b;
}

// The call of block row blockIdx.y under split-k (impl::KPart): A, B and k
// moved to its part of k, C to its part's FP32 results. With one row of
// blocks the call is left as it is.
template <class T>
__device__ __forceinline__ void take_part(TcParams<T>& p, const impl::KPart& part, bool ta, bool tb) {
  if (gridDim.y == 1) return;
  const int64_t k0 = int64_t(blockIdx.y) * part.depth;
  p.A += ta ? k0 * p.lda : k0;  // A stored m x k (op N) or k x m (op T)
  p.B += tb ? k0 : k0 * p.ldb;  // B stored k x n (op N) or n x k (op T)
  p.k = p.k - k0 < part.depth ? p.k - k0 : part.depth;
  p.C = static_cast<float*>(p.C) + blockIdx.y * part.stride;
}

template <class T>
struct Pair;
template <>
struct Pair<float> { using type = float2; };
template <>
struct Pair<__half> { using type = __half2; };
template <>
struct Pair<__nv_bfloat16> { using type = __nv_bfloat162; };

// (v0, v1) rounded to CT, as one pair.
template <class CT>
__device__ __forceinline__ typename Pair<CT>::type to_pair(float v0, float v1) {
  typename Pair<CT>::type out;
  out.x = from_float<CT>(v0), out.y = from_float<CT>(v1);
  return out;
}

// C(i, j) = alpha * v + beta * C(i, j), rounded once to C's type (FP32 or T as p says);
// beta == 0 does not read C.
template <class T>
__device__ __forceinline__ void store_one(const TcParams<T>& p, int64_t i, int64_t j, float v) {
  auto store = [&](auto* c) {
    using CT = std::remove_pointer_t<decltype(c)>;
    CT* at = c + i * p.ldc + j;
    *at = from_float<CT>(p.beta == 0.0f ? p.alpha * v : p.alpha * v + p.beta * to_float(*at));
  };
  if (p.c_f32) store(static_cast<float*>(p.C));
  else store(static_cast<T*>(p.C));
}

// C(i, j..j+1) = alpha * (v0, v1) + beta * C(i, j..j+1) for the columns
// inside n, rounded once to C's type CT; beta == 0 does not read C.
template <class CT, class P>
__device__ __forceinline__ void store_pair(const P& p, int64_t i, int64_t j, float v0, float v1) {
  CT* c = static_cast<CT*>(p.C) + i * p.ldc + j;
  v0 *= p.alpha, v1 *= p.alpha;
  if (p.c_pairs && j + 1 < p.n) {
    using V = typename Pair<CT>::type;
    if (p.beta != 0.0f) {
      const V old = *reinterpret_cast<const V*>(c);
      v0 += p.beta * to_float(old.x), v1 += p.beta * to_float(old.y);
    }
    *reinterpret_cast<V*>(c) = to_pair<CT>(v0, v1);
    return;
  }
  if (j < p.n) c[0] = from_float<CT>(p.beta != 0.0f ? v0 + p.beta * to_float(c[0]) : v0);
  if (j + 1 < p.n) c[1] = from_float<CT>(p.beta != 0.0f ? v1 + p.beta * to_float(c[1]) : v1);
}

// C for a warp's (16 FM) x (16 FN) block of mma.sync accumulators at
// (row0, col0): lane holds rows g and g + 8 (g = lane / 4), columns 2t and
// 2t + 1 (t = lane % 4) of each 16 x 8 tile. Rows past m and columns past
// n are skipped; C is FP32 or T as p says.
template <class T, int FM, int FN>
__device__ __forceinline__ void store_warp_tile(const TcParams<T>& p, const float (&acc)[FM][2 * FN][4], int64_t row0,
                                                int64_t col0, int lane) {
  const int g = lane / 4, t = lane % 4;
  auto store = [&](auto c_type) {
    using CT = decltype(c_type);
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < 2 * FN; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t row = row0 + i * 16 + g + 8 * h, col = col0 + j * 8 + 2 * t;
          if (row < p.m) store_pair<CT>(p, row, col, acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        }
  };
  if (p.c_f32) {
    store(float{});
  } else {
    store(T{});
  }
}

}  // namespace tessel::device
