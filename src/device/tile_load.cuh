// Copies of one k-slice of an operand into a K-MAJOR shared-memory tile,
// for every op: S[kk][x] = op-element (x0 + x, k0 + kk), zero outside.
//
// "x" is the operand's non-reduction index (the row i of op(A), the column j
// of op(B)); "q" is the reduction index. The operand element (x, q) lives at
//   X[x * ld + q]  when KContig (A with op N, B with op T: rows run along k)
//   X[q * ld + x]  otherwise    (A with op T, B with op N: rows run along x)
// Every copy below walks the stored rows, so a warp's loads are coalesced
// whatever the op; a KContig operand is transposed on its way to shared memory.
#pragma once

#include <algorithm>
#include <cstdint>

#include "device/cp_async.cuh"

namespace tessel::device {

struct Operand {
  const float* X;
  int64_t ld;
  int64_t x_ext, k_ext;  // op(A): m x k -> x_ext = m; op(B): k x n -> x_ext = n
};

template <bool KContig>
__device__ __forceinline__ const float* element_ptr(const Operand& o, int64_t x, int64_t q) {
  return KContig ? o.X + x * o.ld + q : o.X + q * o.ld + x;
}

// Element by element: any alignment, any leading dimension (steps 04, 05).
template <bool KContig, int MN, int BK, int Pad, int Threads>
__device__ __forceinline__ void copy_tile_scalar(float (*S)[MN + Pad], const Operand& o, int64_t x0, int64_t k0) {
#pragma unroll
  for (int e = threadIdx.x; e < MN * BK; e += Threads) {
    const int kk = KContig ? e % BK : e / MN;
    const int x = KContig ? e / BK : e % MN;
    const bool inside = x0 + x < o.x_ext && k0 + kk < o.k_ext;
    S[kk][x] = inside ? *element_ptr<KContig>(o, x0 + x, k0 + kk) : 0.0f;
  }
}

// The four elements at p of which the first v (0..4) are valid: one 16-byte
// load when all four are and p is 16-byte aligned, else element by element,
// zero-filled; nothing past the v valid elements is read.
template <bool Aligned>
__device__ __forceinline__ float4 load_chunk(const float* p, int v) {
  if (v == 4) return Aligned ? *reinterpret_cast<const float4*>(p) : make_float4(p[0], p[1], p[2], p[3]);
  return make_float4(v > 0 ? p[0] : 0.0f, v > 1 ? p[1] : 0.0f, v > 2 ? p[2] : 0.0f, 0.0f);
}

// Writes a chunk starting at (x, kk) into a k-major tile: four consecutive
// kk (a KContig operand, transposed here) or four consecutive x.
template <bool KContig, int MN, int Pad>
__device__ __forceinline__ void store_chunk(float (*S)[MN + Pad], int x, int kk, float4 c) {
  if (KContig) {
    S[kk + 0][x] = c.x;
    S[kk + 1][x] = c.y;
    S[kk + 2][x] = c.z;
    S[kk + 3][x] = c.w;
  } else {
    *reinterpret_cast<float4*>(&S[kk][x]) = c;
  }
}

// 16-byte copies (LDG.128 / STS.128; steps 06, 07). Needs X 16-byte aligned and
// ld a multiple of 4 (the registry's alignment = 4); tile edges that cut a
// 16-byte chunk are read element by element, so no byte outside the
// operand's extent is ever read.
template <bool KContig, int MN, int BK, int Pad, int Threads>
struct VecTileLoader {
  static constexpr int kChunks = MN * BK / 4;
  static_assert(kChunks % Threads == 0, "every thread copies the same number of 16-byte chunks");
  static constexpr int kPerThread = kChunks / Threads;

  float4 staged[kPerThread];  // the chunks in flight between load() and store()

  // First element of chunk e: four consecutive q (KContig) or four consecutive x.
  // (Spreading a warp over 16 x and 2 k-groups instead of 8 x and 4 would
  // make 16-deep transposing stores conflict-free, but measured slower: the
  // global loads then touch twice as many rows per instruction.)
  __device__ static void chunk_pos(int e, int& x, int& kk) {
    if (KContig) {
      x = e / (BK / 4), kk = e % (BK / 4) * 4;
    } else {
      kk = e / (MN / 4), x = e % (MN / 4) * 4;
    }
  }

  // How many of the chunk's four elements lie inside the operand (0..4).
  __device__ static int valid(const Operand& o, int64_t x, int64_t q) {
    const int64_t left = KContig ? (x < o.x_ext ? o.k_ext - q : 0) : (q < o.k_ext ? o.x_ext - x : 0);
    return left <= 0 ? 0 : left >= 4 ? 4 : int(left);
  }

  // Global -> registers.
  __device__ void load(const Operand& o, int64_t x0, int64_t k0) {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      int x, kk;
      chunk_pos(threadIdx.x + i * Threads, x, kk);
      staged[i] = load_chunk<true>(element_ptr<KContig>(o, x0 + x, k0 + kk), valid(o, x0 + x, k0 + kk));
    }
  }

  // Registers -> shared (transposing a KContig operand).
  __device__ void store(float (*S)[MN + Pad]) const {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      int x, kk;
      chunk_pos(threadIdx.x + i * Threads, x, kk);
      store_chunk<KContig, MN, Pad>(S, x, kk, staged[i]);
    }
  }
};

// Step 08's loader: the same 16-byte chunks as VecTileLoader, walked with
// few registers (step 08's 128 x 256 tile already keeps 128 sums and two
// sets of fragments in them). A thread's chunks lie in one column band of
// the tile, `pass` stored rows apart (chunk i is chunk 0 moved by i * pass
// rows), so the thread keeps one pointer, advanced by a k-slice per step,
// and how many of its chunks lie inside the operand. A slice that lies
// wholly inside k (load, copy_async) costs no 64-bit index arithmetic and no
// bounds tests; only the last, partial slice does (load_edge,
// copy_async_edge). A thread with no chunk inside keeps its pointer at the
// operand's base (pass and step 0), where copies of no bytes point.
// With Aligned = false the chunks are read element by element (any pointer,
// any leading dimension); shared memory is the same.
template <bool KContig, int MN, int BK, int Pad, int Threads, bool Aligned = true>
struct StreamingTileLoader {
  using Chunks = VecTileLoader<KContig, MN, BK, Pad, Threads>;
  static constexpr int kPerThread = Chunks::kPerThread;
  static constexpr int kChunksPerRow = KContig ? BK / 4 : MN / 4;  // 16-byte chunks per stored row
  static_assert(Threads % kChunksPerRow == 0, "a thread's chunks share a column band");
  static constexpr int kPass = Threads / kChunksPerRow;  // stored rows between a thread's chunks

  const float* ptr;  // chunk 0 in the current slice (the operand's base when no chunk is inside)
  int64_t pass;      // elements between chunk i and chunk i + 1: kPass stored rows (0 when none is inside)
  int64_t step;      // elements between one slice of a chunk and the next (0 when none is inside)
  int inside;        // KContig: chunks 0..inside-1 lie inside x; else the valid x of every chunk (0..4)
  float4 staged[kPerThread];

  // The tile's rows x0.. of the operand, starting at k-index k_begin.
  __device__ StreamingTileLoader(const Operand& o, int64_t x0, int64_t k_begin)
      : pass(kPass * o.ld), step(KContig ? BK : BK * o.ld) {
    int x, kk;
    Chunks::chunk_pos(threadIdx.x, x, kk);
    const int64_t left = o.x_ext - (x0 + x);  // for KContig: rows of this band, kPass apart
    inside = KContig ? int(std::min<int64_t>(kPerThread, left <= 0 ? 0 : (left + kPass - 1) / kPass))
                     : (left <= 0 ? 0 : left >= 4 ? 4 : int(left));
    ptr = inside > 0 ? element_ptr<KContig>(o, x0 + x, k_begin + kk) : o.X;
    if (inside == 0) pass = 0, step = 0;
  }

  // Valid elements of chunk i inside x (any slice that lies inside k).
  __device__ int whole(int i) const { return KContig ? (i < inside ? 4 : 0) : inside; }

  // Valid elements of chunk i in the slice starting at k0, which k cuts.
  __device__ int valid(int i, const Operand& o, int64_t k0) const {
    int x, kk;
    Chunks::chunk_pos(threadIdx.x + i * Threads, x, kk);
    const int64_t left = o.k_ext - (k0 + kk);
    if (KContig) return whole(i) == 0 || left <= 0 ? 0 : left >= 4 ? 4 : int(left);
    return left > 0 ? whole(i) : 0;
  }

  __device__ const float* chunk(int i) const { return ptr + i * pass; }

  // A whole slice into registers (the transposing path: a chunk is all inside or all out).
  __device__ void load() {
    static_assert(KContig, "only operands that are transposed go through registers");
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) staged[i] = i < inside ? load_chunk<Aligned>(chunk(i), 4) : float4{};
  }

  // The last slice, starting at k0, which k cuts.
  __device__ void load_edge(const Operand& o, int64_t k0) {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int v = valid(i, o, k0);
      staged[i] = load_chunk<Aligned>(v > 0 ? chunk(i) : o.X, v);
    }
  }

  __device__ void store(float (*S)[MN + Pad]) const {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      int x, kk;
      Chunks::chunk_pos(threadIdx.x + i * Threads, x, kk);
      store_chunk<KContig, MN, Pad>(S, x, kk, staged[i]);
    }
  }

  // A whole slice straight into shared memory: every chunk has the same
  // valid elements (the tile's edge in x may cut them), the rest zero-filled.
  __device__ void copy_async(float (*S)[MN + Pad]) const {
    static_assert(!KContig && Aligned, "cp.async copies aligned 16-byte chunks and cannot transpose");
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      int x, kk;
      Chunks::chunk_pos(threadIdx.x + i * Threads, x, kk);
      cp_async16(&S[kk][x], chunk(i), inside * 4);
    }
  }

  // The last slice, starting at k0, which k cuts.
  __device__ void copy_async_edge(float (*S)[MN + Pad], const Operand& o, int64_t k0) const {
    static_assert(!KContig && Aligned, "cp.async copies aligned 16-byte chunks and cannot transpose");
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      int x, kk;
      Chunks::chunk_pos(threadIdx.x + i * Threads, x, kk);
      const int v = valid(i, o, k0);
      cp_async16(&S[kk][x], v > 0 ? chunk(i) : o.X, v * 4);
    }
  }

  __device__ void advance() { ptr += step; }
};

// Step 08's loader for an unaligned operand that needs no transposing (A
// with op T, B with op N): one 4-byte cp.async per element, zero-filled
// outside the operand. A warp's lanes take consecutive elements of a stored
// row, so each copy reads whole sectors, every element once, and no
// registers hold the slice in flight. (StreamingTileLoader<..., false> reads
// 16-byte chunks as four 4-byte loads into registers: four loads of each
// sector.) A thread's elements lie kPass stored rows apart at one position
// in the row, so it keeps one pointer, as StreamingTileLoader does.
template <bool KContig, int MN, int BK, int Pad, int Threads>
struct ElementTileLoader {
  static_assert(!KContig, "cp.async cannot transpose");
  static_assert(Threads % MN == 0, "a thread's elements share a position along the stored rows");
  static constexpr int kPass = Threads / MN;  // stored rows between a thread's elements
  static constexpr int kPerThread = MN * BK / Threads;

  const float* ptr;  // element 0 in the current slice (the operand's base when outside)
  int64_t pass;      // elements between element i and element i + 1: kPass stored rows (0 when outside)
  int64_t step;      // elements between one slice of an element and the next (0 when outside)
  bool inside;       // this thread's x lies inside the operand

  __device__ static int x() { return threadIdx.x % MN; }
  __device__ static int row() { return threadIdx.x / MN; }  // the stored row (k) of element 0

  __device__ ElementTileLoader(const Operand& o, int64_t x0, int64_t k_begin)
      : pass(kPass * o.ld), step(BK * o.ld), inside(x0 + x() < o.x_ext) {
    ptr = inside ? element_ptr<false>(o, x0 + x(), k_begin + row()) : o.X;
    if (!inside) pass = 0, step = 0;
  }

  // A whole slice (inside k).
  __device__ void copy_async(float (*S)[MN + Pad]) const {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      cp_async4(&S[row() + i * kPass][x()], ptr + i * pass, inside ? 4 : 0);
    }
  }

  // The last slice, starting at k0, which k cuts.
  __device__ void copy_async_edge(float (*S)[MN + Pad], const Operand& o, int64_t k0) const {
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int kk = row() + i * kPass;
      const bool valid = inside && k0 + kk < o.k_ext;
      cp_async4(&S[kk][x()], valid ? ptr + i * pass : o.X, valid ? 4 : 0);
    }
  }

  __device__ void advance() { ptr += step; }
};

}  // namespace tessel::device
