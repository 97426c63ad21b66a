// Internal: the two roles of the warp-specialised Hopper kernels (steps 12
// and 13). A producer thread keeps the ring of stages full with TMA copies;
// each consumer warpgroup multiplies its 64 rows of the tile with wgmma and
// hands each stage back as soon as its wgmmas are done. Per stage, `full`
// completes when the stage's bytes have landed (one arrival with expect-tx)
// and `empty` when every consumer warpgroup has released it (one arrival
// each). Both sides walk the same sequence of (tile, slice), so the ring
// positions stay in step across tiles without any other exchange (ping-pong
// tiles: each stage read by one warpgroup, which waits its turn: consume_tiles).
// In a cluster (Ops::kCluster CTAs sharing A or B), every CTA's producer
// copies its part of the shared operand into all of them, so a stage is
// empty only when the consumers of every CTA have released it: they arrive
// on the empty barrier of each CTA of the cluster. Before a CTA exits, its
// producer waits until every stage is empty (producer_tail): then no peer
// will arrive on its barriers any more.
#pragma once

#include <cstdint>
#include <type_traits>

#include "device/fused_epilogue.cuh"
#include "device/sm90.cuh"
#include "kernels/hopper/launch.cuh"
#include "kernels/hopper/pointer_maps.cuh"

namespace tessel::impl {

// Loads k-slices k0..k1-1 of the tile at (m0, n0) into the ring (rank:
// this CTA's rank in its cluster; matrix_a, matrix_b: the matrices of A and B
// in a strided batch).
template <class Ops, int S>
__device__ __forceinline__ void produce_tile(const Sm90Smem<Ops, S>& smem, const CUtensorMap* map_a,
                                             const CUtensorMap* map_b, device::sm90::Ring<S>& ring, int m0, int n0,
                                             int k0, int k1, int rank = 0, int matrix_a = 0, int matrix_b = 0) {
  namespace sm90 = device::sm90;
  for (int kt = k0; kt < k1; ++kt, ring.next()) {
    uint64_t* full = &smem.full()[ring.stage];
    sm90::bar_wait(&smem.empty()[ring.stage], ring.parity ^ 1);  // the consumers are done with it
    sm90::bar_expect_bytes(full, Ops::kStageBytes);
    constexpr uint16_t kAll = (1u << Ops::kCluster) - 1;  // multicast to every CTA of the cluster
    Ops::A::load(smem.a(ring.stage), map_a, full, m0, kt * Ops::kSliceK, matrix_a);
    Ops::B::load(smem.b(ring.stage), map_b, full, n0, kt * Ops::kSliceK, matrix_b, rank, kAll);
  }
}

// After the last produce_tile: waits until the consumers of every CTA of
// the cluster have released every stage (the producer's next pass round the
// ring), so that no peer arrives on this CTA's barriers after it exits.
template <class Ops, int S>
__device__ __forceinline__ void producer_tail(const Sm90Smem<Ops, S>& smem, device::sm90::Ring<S>& ring) {
  for (int s = 0; s < S; ++s, ring.next()) device::sm90::bar_wait(&smem.empty()[ring.stage], ring.parity ^ 1);
}

// The FP8 block scales (GemmArgs::block_scales) of one consumer thread's two
// rows of a tile, from the tile's first k-slice on (each slice is one
// 128-deep block): at(kt, piece) multiplies slice kt's partial sums of row
// lo (d[i] with (i / 2) % 2 == 0) and row hi in the tile's 128 columns
// `piece` (one B block). PerColumn (b_block_n = 1, a kernel of its own): B's
// scale is column(kt, c) instead, for the thread's column c of the tile.
// Without block scales (a_lo null): 1.
template <bool PerColumn = false>
struct SliceScales {
  static constexpr bool kPerColumn = PerColumn;
  const float* a_lo = nullptr;
  const float* a_hi = nullptr;
  const float* b = nullptr;  // 128 x 128 blocks: the tile's first; per column: this thread's first, n0 + 2 (t % 4)
  int a_sk = 0, b_sk = 0, b_piece = 0;  // strides (elements; a scale tensor holds fewer than 2^31)
  int b_sn = 0, col_last = 0;           // per column: B's column stride; the last column within n, from b's
  // Rows row_lo and row_lo + 8 (clamped to m: rows past it load zeros), columns n0.. (B blocks from n0 / 128 on;
  // a second block past n reads the first's scales, columns past n the last one's: neither is stored), slices k0..
  template <class P>
  __device__ SliceScales(const P& p, int64_t m, int64_t row_lo, int64_t n0, int64_t k0) {
    const Fp8BlockScales& s = p.block_scales;
    if (s.a == nullptr) return;
    a_lo = s.a + min(row_lo, m - 1) * s.a_stride_m + k0 * s.a_stride_k;
    a_hi = s.a + min(row_lo + 8, m - 1) * s.a_stride_m + k0 * s.a_stride_k;
    a_sk = int(s.a_stride_k), b_sk = int(s.b_stride_k);
    if constexpr (PerColumn) {
      const int64_t first = min(n0 + 2 * int64_t(threadIdx.x % 4), p.n - 1);
      b = s.b + first * s.b_stride_n + k0 * s.b_stride_k;
      b_sn = int(s.b_stride_n), col_last = int(p.n - 1 - first);
    } else {
      b = s.b + n0 / 128 * s.b_stride_n + k0 * s.b_stride_k;
      b_piece = n0 + 128 < p.n ? int(s.b_stride_n) : 0;
    }
  }
  __device__ SliceScales() = default;
  __device__ float2 at(int kt, int piece = 0) const {
    if (a_lo == nullptr) return make_float2(1.0f, 1.0f);
    const float sb = PerColumn ? 1.0f : b[kt * b_sk + piece * b_piece];
    return make_float2(a_lo[kt * a_sk] * sb, a_hi[kt * a_sk] * sb);
  }
  // Per column: B's scales of slice kt for the thread's columns of a piece from column col0 of the tile on,
  // c[2 j + e] for column col0 + 8 j + e (d[i]: j = i / 4, e = i % 2).
  template <int K>
  __device__ void columns(int kt, int col0, float (&c)[K]) const {
#pragma unroll
    for (int i = 0; i < K; ++i) c[i] = b[min(col0 + 8 * (i / 2) + i % 2, col_last) * b_sn + kt * b_sk];
  }
};

// acc += part (a slice's partial sums) times the slice's scales of the thread's two rows.
template <int N>
__device__ __forceinline__ void add_promoted(float* acc, const float (&part)[N], float2 rows) {
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] += part[i] * ((i / 2) % 2 ? rows.y : rows.x);
}
// The same times each column's scale too (SliceScales::columns).
template <int N>
__device__ __forceinline__ void add_promoted(float* acc, const float (&part)[N], float2 rows,
                                             const float (&cols)[N / 2]) {
#pragma unroll
  for (int j = 0; j < N / 4; ++j) {
    acc[4 * j] += part[4 * j] * (rows.x * cols[2 * j]);
    acc[4 * j + 1] += part[4 * j + 1] * (rows.x * cols[2 * j + 1]);
    acc[4 * j + 2] += part[4 * j + 2] * (rows.y * cols[2 * j]);
    acc[4 * j + 3] += part[4 * j + 3] * (rows.y * cols[2 * j + 1]);
  }
}

// The pieces a slice is promoted in (consume_tile; N accumulators a thread: a 2N-wide tile): FP8's, else one.
template <class T, int N>
inline constexpr int kPromotePieces = sizeof(T) == 1 ? kFp8PromotePieces<2 * N> : 1;
// FP8 tiles whose accumulators fit three times (acc and two slices'): each slice's wgmmas are issued before the
// slice ahead of it is waited for and promoted, so that a warpgroup's tensor-core work runs under its promotion.
template <class T, int N, bool PerColumn = false>
inline constexpr bool kPromoteOverlapped = sizeof(T) == 1 && N <= 64 && !PerColumn;

// No work between slices (consume_tile's default).
struct NoHook {
  __device__ void operator()(int) const {}
};

// Consumer warpgroups arrive on a stage's empty barrier in every CTA of the cluster (consume_tile).
template <class Ops, int S>
__device__ __forceinline__ void release_stage(const Sm90Smem<Ops, S>& smem, int stage) {
  if constexpr (Ops::kCluster == 1) {
    device::sm90::bar_arrive(&smem.empty()[stage]);
  } else {
#pragma unroll
    for (int r = 0; r < Ops::kCluster; ++r) device::sm90::bar_arrive_cluster(&smem.empty()[stage], r);
  }
}

// consume_tile for FP8 tiles of kPromoteOverlapped: slices alternate between two sets of accumulators, and a
// slice is promoted (times its scales) while the next one's wgmmas run. A set is read only after the wait that
// retires its slice on every path, so that ptxas does not serialize the wgmmas.
template <class T, class Ops, int S, int N>
__device__ __forceinline__ void consume_tile_overlapped(float (&acc)[N], const Sm90Smem<Ops, S>& smem,
                                                        device::sm90::Ring<S>& ring, int a_row0, int slices,
                                                        bool signals, const SliceScales<>& scales) {
  namespace sm90 = device::sm90;
  float parts[2][N];
  int kt = 0, newest = 0;  // slices issued; the stage of the newest
  float2 scale = scales.at(0), next_scale = slices > 1 ? scales.at(1) : scale;  // the oldest in flight, the next
  auto issue = [&](float (&part)[N]) {
    sm90::bar_wait(&smem.full()[ring.stage], ring.parity);
    sm90::mma_slice<T, typename Ops::A, typename Ops::B, 2 * N, true>(part, smem.a(ring.stage), a_row0,
                                                                     smem.b(ring.stage));
    newest = ring.stage;
    ring.next();
    ++kt;
  };
  auto promote = [&](float (&part)[N], int stage) {
    sm90::fence_acc(part);
    if (signals) release_stage(smem, stage);
    add_promoted(acc, part, scale);
    scale = next_scale;
    if (kt < slices) next_scale = scales.at(kt);
  };
  // `last` holds the newest slice; the next slice goes into `next` before `last` is promoted. False: done.
  auto advance = [&](float (&last)[N], float (&next)[N]) {
    const int stage = newest;
    if (kt == slices) {
      sm90::wgmma_wait<0>();
      promote(last, stage);
      return false;
    }
    issue(next);
    sm90::wgmma_wait<1>();
    promote(last, stage);
    return true;
  };
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = 0.0f;
  issue(parts[0]);
  while (advance(parts[0], parts[1]) && advance(parts[1], parts[0])) {
  }
}

// acc = this warpgroup's rows a_row0..+63 of the tile (N accumulators per
// thread: 2N columns), over `slices` k-slices from the ring (slices >= 1).
// Keeps one slice of wgmmas in flight: the stage of slice kt - 1 is released
// once slice kt is issued and kt - 1 has completed (tf32's A from registers:
// with two consumer warpgroups each slice completes before the registers of
// its fragments are loaded again, the other warpgroup keeping the tensor
// cores busy meanwhile; with one, two sets of fragments take turns, so that
// a slice's loads run under the last slice's wgmmas). `signals`: this thread
// arrives on the empty barriers for its warpgroup. hook(c), c = 0..Hooks-1,
// runs while the wgmmas of slice c run (after the last slice if there are
// fewer): other work for the warpgroup that does not touch acc.
// FP8: the tensor cores add FP8 products into FP32 with fewer bits than an
// FP32 add keeps, so each slice (128 of k) is multiplied into accumulators
// of its own and promoted, added to acc in FP32 registers (times its block
// scales, `scales`), once it completes; the other consumer warpgroups'
// wgmmas keep the tensor cores busy meanwhile. Tiles wider than 192 columns
// promote a slice in pieces of 128 columns, so that a piece's accumulators
// fit beside acc.
template <class T, int Hooks = 0, class Ops, int S, int N, class Hook = NoHook, class Scales = SliceScales<>>
__device__ __forceinline__ void consume_tile(float (&acc)[N], const Sm90Smem<Ops, S>& smem,
                                             device::sm90::Ring<S>& ring, int a_row0, int slices, bool signals,
                                             Hook&& hook = Hook{}, const Scales& scales = {}) {
  namespace sm90 = device::sm90;
  if constexpr (kPromoteOverlapped<T, N, Scales::kPerColumn>) {
    static_assert(Hooks == 0, "no hooks between overlapped FP8 slices");
    consume_tile_overlapped<T>(acc, smem, ring, a_row0, slices, signals, scales);
  } else {
    auto release = [&](int stage) { release_stage(smem, stage); };
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = 0.0f;
    int previous = 0, kt = 0;
    constexpr bool kPromote = sizeof(T) == 1;
    constexpr int kPieces = kPromotePieces<T, N>, kPart = N / kPieces;
    static_assert(!Scales::kPerColumn || 2 * N == 128, "B's scales per column: 128-wide tiles (kFp8ColumnScales)");
    using A = typename Ops::A;
    uint32_t fragments[2][sm90::kSliceSteps][4];  // tf32's A from registers, one consumer warpgroup
    auto slice = [&] {
      sm90::bar_wait(&smem.full()[ring.stage], ring.parity);
      if constexpr (kPromote) {
#pragma unroll
        for (int piece = 0; piece < kPieces; ++piece) {
          const float2 scale = scales.at(kt, piece);  // loaded while the piece's wgmmas run
          float cols[kPart / 2];
          if constexpr (Scales::kPerColumn) scales.columns(kt, 2 * kPart * piece, cols);
          float part[kPart];
          sm90::mma_slice<T, typename Ops::A, typename Ops::B, 2 * kPart, true>(part, smem.a(ring.stage), a_row0,
                                                                                smem.b(ring.stage), 2 * kPart * piece);
          sm90::wgmma_wait<0>();
          sm90::fence_acc(part);
          if (piece == kPieces - 1 && signals) release(ring.stage);
          if constexpr (Scales::kPerColumn) {
            add_promoted(acc + kPart * piece, part, scale, cols);
          } else {
            add_promoted(acc + kPart * piece, part, scale);
          }
        }
      } else {
        if constexpr (A::kRegisters && Ops::kConsumers == 1) {  // two sets: one loads while the other is read
          auto from = [&](uint32_t (&f)[sm90::kSliceSteps][4]) {
            sm90::load_fragments<A>(f, smem.a(ring.stage), a_row0, int(threadIdx.x % sm90::kWarpgroup));
            sm90::mma_slice_rs<typename Ops::B, 2 * N>(acc, f, smem.b(ring.stage));
          };
          if (kt % 2 == 0) {
            from(fragments[0]);
          } else {
            from(fragments[1]);
          }
          sm90::wgmma_wait<1>();
        } else if constexpr (A::kRegisters) {  // the fragments are read until the slice completes
          uint32_t f[sm90::kSliceSteps][4];
          sm90::load_fragments<A>(f, smem.a(ring.stage), a_row0, int(threadIdx.x % sm90::kWarpgroup));
          sm90::mma_slice_rs<typename Ops::B, 2 * N>(acc, f, smem.b(ring.stage));
          sm90::wgmma_wait<0>();
        } else {
          sm90::mma_slice<T, A, typename Ops::B, 2 * N>(acc, smem.a(ring.stage), a_row0, smem.b(ring.stage));
          sm90::wgmma_wait<1>();
        }
        if (kt > 0 && signals) release(previous);
      }
      previous = ring.stage;
      ring.next();
      ++kt;
    };
#pragma unroll
    for (int c = 0; c < Hooks; ++c) {
      if (kt < slices) slice();
      hook(c);
    }
    while (kt < slices) slice();
    if constexpr (!kPromote) {
      sm90::wgmma_wait<0>();
      if (signals) release(previous);
      sm90::fence_acc(acc);
    }
  }
}

// C's rows a_row0.. of the tile from one consumer warpgroup (thread t of 128;
// N accumulators: the tile is 2N columns wide). TransposedC: the kernel may run a swapped call (cluster.cuh).
template <bool TransposedC = false, class P, int N>
__device__ __forceinline__ void store_tile(const P& p, const float (&acc)[N], int64_t row0, int64_t col0, int t) {
  if constexpr (TransposedC && std::is_same_v<P, device::TcParams<typename P::C16>>) {
    if (p.c_transposed) return device::sm90::store_64xN_transposed<2 * N>(p, acc, row0, col0, t);
  }
  if (p.c_f32) {
    device::sm90::store_64xN<float, 2 * N>(p, acc, row0, col0, t);
  } else {
    device::sm90::store_64xN<typename P::C16, 2 * N>(p, acc, row0, col0, t);
  }
}

// Where a warp's TMA-store epilogue stands, carried across tiles: the
// buffer to use next, and the phase of each buffer's C-loaded barrier (bit
// b: the parity to wait for on buffer b).
struct StoreState {
  int next = 0;
  int phases = 0;
};

// The TMA-store epilogue of one consumer warpgroup: its 64 x 2N block of C
// at (row0, col0) (N accumulators per thread) leaves in chunks of 128 bytes
// per row. Each warp holds 16 whole rows of the block (the wgmma layout), so
// each warp stores its own rows, with no barrier across the warpgroup: per
// chunk, alpha * acc (+ beta * C), rounded to CT, is written into the warp's
// 16 x 128-byte part of one of the warpgroup's two buffers, in the layout of
// a 128-byte-swizzled TMA box (16-byte piece q of row r at piece q ^ (r % 8):
// conflict-free stores; 16-bit C by stmatrix, four 8x8 blocks per
// instruction), then the warp's lane 0 issues the TMA store and the warp
// goes on without waiting for it: with two buffers, the store of one chunk
// overlaps the writing of the next, and the last stores of a tile overlap
// the next tile's wgmmas. A buffer is rewritten only after the store issued
// from it two chunks before has read it (bulk_wait_read<1>; bulk groups are
// per thread, so lane 0 tracks its warp's). With beta != 0, C comes in
// through the same buffers: a TMA load of the warp's box of C (same map,
// same swizzle, so each thread finds its C values where it writes its
// results), counted on the warp's C-loaded barrier of that buffer; the
// first two chunks' loads are issued together, each later one as soon as
// the store two chunks before has read its buffer. Rows and columns outside
// C are clipped by TMA (loads fill zeros). Needs C, ldc and n in 16-byte
// units. c_loaded: the warpgroup's barriers, two per warp.
template <class CT>
struct ChunkStore {
  using Pair = typename device::Pair<CT>::type;
  static constexpr int kChunkCols = 128 / int(sizeof(CT));  // columns per chunk
  static constexpr int kPairs = kChunkCols / 4;             // accumulator pairs per thread per chunk
  const CUtensorMap* map_c;
  char* region0;     // the warp's box in buffer 0
  uint64_t* loaded;  // the warp's two C-loaded barriers
  int lane, box_row, col0, matrix;

  __device__ ChunkStore(const CUtensorMap* map, char* buffers, uint64_t* c_loaded, int row0, int col0_, int matrix_,
                        int t)
      : map_c(map),
        region0(buffers + t / 32 * kStoreBoxBytes),
        loaded(c_loaded + 2 * (t / 32)),
        lane(t % 32),
        box_row(row0 + kStoreBoxRows * (t / 32)),
        col0(col0_),
        matrix(matrix_) {}
  __device__ char* region(int b) const { return region0 + b * kStoreBufferBytes; }
  __device__ bool leader() const { return lane == 0; }
  // Lane 0: chunk c of the warp's rows of C into buffer b.
  __device__ void load_c(int c, int b) const {
    device::sm90::bar_expect_bytes(&loaded[b], kStoreBoxBytes);
    device::sm90::tma_load(region(b), map_c, &loaded[b], col0 + c * kChunkCols, box_row, matrix);
  }
  // With beta != 0: lane 0 loads the first two chunks of C (both buffers free first).
  __device__ void load_first(int chunks, const StoreState& state) const {
    if (!leader()) return;
    device::sm90::bulk_wait_read<0>();
    for (int c = 0; c < 2 && c < chunks; ++c) load_c(c, state.next ^ c);
  }
  // Chunk c of `chunks`: pair j of this thread's results is value(j, its old
  // value in C) (old read only with read_c), written to the next buffer and
  // stored by TMA.
  template <class Value>
  __device__ void store(int c, int chunks, bool read_c, StoreState& state, Value&& value) const {
    namespace sm90 = device::sm90;
    const int b = state.next;
    char* buffer = region(b);
    if (read_c) {
      sm90::bar_wait(&loaded[b], (state.phases >> b) & 1);  // C is in
      state.phases ^= 1 << b;
    } else {
      if (leader()) sm90::bulk_wait_read<1>();
      __syncwarp();  // the buffer is free
    }
    if constexpr (sizeof(CT) == 2) {
      // 16-bit C: the pairs of four 8 x 8 blocks (rows 0-7 and 8-15 of the
      // warp's 16, two 8-column blocks) are exactly stmatrix.x4's fragment:
      // one instruction writes them, lane i giving the address of row i % 8
      // of block i / 8; ldmatrix reads the old C back in the same layout.
#pragma unroll
      for (int q = 0; q < kPairs / 4; ++q) {
        const int row = lane % 8 + 8 * (lane / 8 % 2), piece = 2 * q + lane / 16;
        char* at = buffer + row * 128 + ((piece ^ (row % 8)) * 16);
        uint32_t words[4] = {};
        if (read_c) device::ldmatrix_x4<false>(words, at);
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          const Pair v = value(c * kPairs + 4 * q + x, *reinterpret_cast<const Pair*>(&words[x]));
          words[x] = *reinterpret_cast<const uint32_t*>(&v);
        }
        sm90::stmatrix_x4(words, at);
      }
    } else {
      // Pair j of this thread: row lane / 4 + 8 (j % 2) of the warp's 16, column 8 (j / 2) + 2 (lane % 4) of the tile.
#pragma unroll
      for (int q = 0; q < kPairs; ++q) {
        const int j = c * kPairs + q, row = lane / 4 + 8 * (j % 2);
        const int byte = (8 * (j / 2) + 2 * (lane % 4) - c * kChunkCols) * int(sizeof(CT));
        Pair* at = reinterpret_cast<Pair*>(buffer + row * 128 + (((byte / 16) ^ (row % 8)) * 16) + byte % 16);
        *at = value(j, read_c ? *at : Pair{});
      }
    }
    sm90::fence_to_async_proxy();
    __syncwarp();  // the chunk is written
    if (leader()) {
      sm90::tma_store(map_c, buffer, col0 + c * kChunkCols, box_row, matrix);
      sm90::bulk_commit();
      if (read_c && c + 2 < chunks) {
        sm90::bulk_wait_read<0>();  // the store has read the buffer
        load_c(c + 2, b);
      }
    }
    state.next ^= 1;
  }
};

// The epilogue described above for one tile: every chunk of the warp's rows,
// alpha * acc (+ beta * C) rounded to CT.
template <class CT, class P, int N>
__device__ __forceinline__ void store_tile_tma(const CUtensorMap* map_c, const P& p,
                                               const float (&acc)[N], int row0, int col0, int matrix, int t,
                                               char* buffers, uint64_t* c_loaded, StoreState& state) {
  using W = ChunkStore<CT>;
  constexpr int kChunks = N / 2 / W::kPairs;
  const W w(map_c, buffers, c_loaded, row0, col0, matrix, t);
  const bool read_c = p.beta != 0.0f;
  if (read_c) w.load_first(kChunks, state);
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    // alpha * pair j (d[2j], d[2j + 1]) (+ beta * its old value), rounded to CT.
    w.store(c, kChunks, read_c, state, [&](int j, typename W::Pair old) {
      float v0 = p.alpha * acc[2 * j], v1 = p.alpha * acc[2 * j + 1];
      if (read_c) v0 += p.beta * device::to_float(old.x), v1 += p.beta * device::to_float(old.y);
      return device::to_pair<CT>(v0, v1);
    });
  }
}

// A tile's results (alpha * acc, rounded to 16-bit CT; beta = 0) held in
// registers until the next tile's first wgmmas are issued, and stored by
// TMA in chunks meanwhile, one chunk per k-slice (consume_tile's hook), so
// that the tensor cores do not wait for the epilogue. Packed pairs of CT:
// half the registers of the accumulators. For 32-bit C nothing is held
// (kChunks = 0: the results leave by store_result after each tile).
template <class CT, int N, bool = sizeof(CT) == 2>
struct HeldTile {
  using W = ChunkStore<CT>;
  static constexpr int kChunks = N / 2 / W::kPairs;
  uint32_t words[N / 2];
  int row0 = 0, col0 = 0, matrix = 0;
  bool held = false;

  // Whether the call's results can be held: TMA stores of C in this type through one map (no
  // pointer-array batch or problems: their tiles leave by store_result), no beta * C to add.
  template <class P>
  __device__ static bool takes(const P& p, bool tma_store) {
    return !P::kProblems && tma_store && !p.c_f32 && p.beta == 0.0f && p.c_array == nullptr;
  }
  __device__ void hold(float alpha, const float (&acc)[N], int row, int col, int mat) {
#pragma unroll
    for (int j = 0; j < N / 2; ++j) {
      const typename W::Pair v = device::to_pair<CT>(alpha * acc[2 * j], alpha * acc[2 * j + 1]);
      words[j] = *reinterpret_cast<const uint32_t*>(&v);
    }
    row0 = row, col0 = col, matrix = mat, held = true;
  }
  // Chunk c of the held tile, if one is held (the last chunk lets it go).
  __device__ void store(int c, const CUtensorMap* map_c, int t, char* buffers, uint64_t* c_loaded, StoreState& state) {
    if (!held) return;
    const W w(map_c, buffers, c_loaded, row0, col0, matrix, t);
    w.store(c, kChunks, false, state, [&](int j, typename W::Pair) {
      return *reinterpret_cast<const typename W::Pair*>(&words[j]);
    });
    if (c == kChunks - 1) held = false;
  }
};
template <class CT, int N>
struct HeldTile<CT, N, false> {
  static constexpr int kChunks = 0;
  template <class P>
  __device__ static bool takes(const P&, bool) { return false; }
  __device__ void hold(float, const float (&)[N], int, int, int) {}
  __device__ void store(int, const CUtensorMap*, int, char*, uint64_t*, StoreState&) {}
};

// The TMA store target of matrix `matrix`'s results: the kernel's map of C,
// the matrix its coordinate there; in a pointer-array batch or problems the
// matrix's own map (pointer_maps.cuh), coordinate 0, acquired by `issuer`.
// Null where they leave by direct stores (no TMA store for the call, or
// this C off 16 bytes).
template <class P>
__device__ __forceinline__ const CUtensorMap* c_map_of(const P& p, const CUtensorMap* map_c, bool tma_store,
                                                       int& matrix, bool issuer) {
  if constexpr (P::kProblems) {
    if (!tma_store) return nullptr;
    const GemmProblem q = clamped_problem(p, matrix);
    if (!(p.c_f32 ? problem_stores_by_tma<float>(q) : problem_stores_by_tma<typename P::C16>(q))) return nullptr;
  } else {
    if (!tma_store || p.c_array == nullptr) return tma_store ? map_c : nullptr;
    if (reinterpret_cast<uintptr_t>(p.c_array[matrix]) % 16 != 0) return nullptr;
  }
  const CUtensorMap* own = &p.matrix_maps[3 * matrix + 2];
  if (issuer) device::sm90::acquire_tensor_map(own);
  matrix = 0;
  return own;
}

// The epilogue of steps 14 and 15 for consumer warpgroup `consumer` (thread
// t of 128): its 64 x 2N block of C at (i0, j0) of matrix `matrix` through
// shared memory and TMA stores when tma_store (`state` carried across tiles),
// else stored from registers.
template <class P, class Ops, int S, int N>
__device__ __forceinline__ void store_result(const P& p, const CUtensorMap* map_c, bool tma_store,
                                             const float (&acc)[N], int i0, int j0, int matrix, int t,
                                             const Sm90Smem<Ops, S>& smem, int consumer, StoreState& state) {
  if (p.c_array != nullptr && off_tma(p.a_array, p.b_array, matrix)) return;  // multiplied apart (pointer_maps.cuh)
  int coord = matrix;
  const CUtensorMap* map = c_map_of(p, map_c, tma_store, coord, t % 32 == 0);
  if (map == nullptr) {
    P q = p;  // the matrix's C
    const int64_t c_bytes = p.c_f32 ? sizeof(float) : sizeof(typename P::C16);
    if constexpr (P::kProblems) {  // a problem: its own C, sizes and rows
      const GemmProblem own = clamped_problem(p, matrix);
      q.C = own.C, q.m = own.m, q.n = own.n, q.ldc = own.ldc;
      q.c_pairs = own.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(q.C) % (2 * c_bytes) == 0;
    } else if (p.c_array != nullptr) {  // a pointer-array batch: pairs where this matrix's pointer allows
      q.C = p.c_array[matrix];
      q.c_pairs = p.c_pairs && reinterpret_cast<uintptr_t>(q.C) % (2 * c_bytes) == 0;
    } else {
      q.C = static_cast<char*>(p.C) + matrix * p.stride_c * c_bytes;
    }
    store_tile<Ops::kTransposedC>(q, acc, i0, j0, t);
  } else if (p.c_f32) {
    store_tile_tma<float>(map, p, acc, i0, j0, coord, t, smem.store_buffers(consumer), smem.c_loaded(consumer),
                          state);
  } else {
    store_tile_tma<typename P::C16>(map, p, acc, i0, j0, coord, t, smem.store_buffers(consumer),
                                    smem.c_loaded(consumer), state);
  }
}

// Where a work item's results go: the tile's corner, its matrix in a batch,
// and the row its group of rows ends at (a grouped GEMM; rows from there on
// belong to the next group and are not stored).
struct TileAt {
  int m0 = 0, n0 = 0, matrix = 0;
  int64_t row_end = INT64_MAX;
};

// One consumer warpgroup (thread t of 128) of the CTA's work items first,
// first + stride, ... below end (item(w, at, scales): where its results go
// and, for FP8 block scales, the thread's SliceScales; it returns the item's
// k-slices, or -1 past the last item), each multiplied and stored; with
// Ops::kPingpong the warpgroups take the items in turn, each past the
// stages of the others' (their rows 0..63 of a 64-row tile). A
// warpgroup's 64 rows that cross at.row_end leave by direct stores, clipped there. With 16-bit C,
// beta = 0 and more than one tile for this CTA, each tile's results are held
// (HeldTile) and leave while the next tile's first slices multiply; else
// they leave after each tile (with one tile there is nothing to overlap, and
// holding single tiles ran slower: docs/ladder.md, step 14). The loop is compiled for each case
// (holding: true_type or false_type), so that neither carries the other's
// registers. Fused: the epilogue is applied to each tile's accumulators
// first (device/fused_epilogue.cuh; a kernel of its own, so that plain
// calls carry none of its registers).
template <class T, int N, bool Fused = false, class Scales = SliceScales<>, class P, class Ops, int S, class Item>
__device__ __forceinline__ void consume_tiles(const P& p, const CUtensorMap* map_c,
                                              bool tma_store, const Sm90Smem<Ops, S>& smem,
                                              device::sm90::Ring<S>& ring, int consumer, int t, int first, int end,
                                              int stride, Item&& item) {
  using Out = typename P::C16;
  using Held = HeldTile<Out, N>;
  const int row0 = Ops::kPingpong ? 0 : consumer * 64;
  float acc[N];
  StoreState store;
  Held held;
  std::conditional_t<Fused, device::FusedEpilogue<N, device::TcParams<T, Out>>, NoHook> epilogue;  // Fused only
  auto store_chunk = [&](int c) { held.store(c, map_c, t, smem.store_buffers(consumer), smem.c_loaded(consumer), store); };
  auto run = [&](auto holding) {
    for (int w = first, turn = 0; w < end; w += stride, ++turn) {
      TileAt at;
      Scales scales;
      const int slices = item(w, at, scales);
      if (slices < 0) break;
      if constexpr (Ops::kPingpong) {
        if (turn % 2 != consumer) {  // the other warpgroup's tile: past its stages
          ring.advance(slices);
          continue;
        }
        // Once the tile before has been multiplied, this one's stages are at most a lap ahead (parity is exact).
        if (turn > 0) device::sm90::bar_wait(&smem.turns()[consumer], uint32_t((turn - 1) / 2) & 1);
      }
      if constexpr (Fused) epilogue.load(p, at.n0, t);
      consume_tile<T, holding ? Held::kChunks : 0>(acc, smem, ring, row0, slices, t == 0, store_chunk, scales);
      if (Ops::kPingpong && t == 0) device::sm90::bar_arrive(&smem.turns()[1 - consumer]);
      if constexpr (Fused) epilogue.apply(p, acc, at.n0, t);
      if (at.m0 + row0 + 64 > at.row_end) {  // the group's rows end inside this warpgroup's
        auto clipped = p;
        clipped.m = at.row_end;
        store_result(clipped, map_c, false, acc, at.m0 + row0, at.n0, at.matrix, t, smem, consumer, store);
      } else if constexpr (holding) {
        held.hold(Fused ? 1.0f : p.alpha, acc, at.m0 + row0, at.n0, at.matrix);  // fused: alpha applied
      } else {
        store_result(p, map_c, tma_store, acc, at.m0 + row0, at.n0, at.matrix, t, smem, consumer, store);
      }
    }
    if constexpr (holding) {
#pragma unroll
      for (int c = 0; c < Held::kChunks; ++c) store_chunk(c);
    }
  };
  // FP8 tiles hold none: beside acc and the slice accumulators of promotion, the held results would not fit
  // (128 x 256), leave 8 registers (128 x 128, two slices in flight) or spill (128 x 192, slower: docs/ladder.md).
  // Ping-pong tiles hold none either: the other warpgroup's wgmmas run while a tile's results leave.
  constexpr bool kHolds = sizeof(T) != 1 && !Ops::kPingpong;
  if constexpr (kHolds) {
    if (Held::takes(p, tma_store) && first + stride < end) return run(std::true_type{});
  }
  run(std::false_type{});
}

// Sets up the barriers: full[s] takes the producer's one arrival, empty[s]
// `releasers` per CTA of the cluster (the consumer warpgroups that read a stage, or the
// consumer warps where each warp releases stages on its own), and each
// C-loaded barrier one (the TMA load's expect-tx). In a
// cluster, no CTA goes on before every CTA's barriers are ready (the others
// arrive on them): the inits are published by fence.mbarrier_init, so a
// relaxed cluster barrier suffices.
template <class Ops, int S>
__device__ __forceinline__ void init_ring(const Sm90Smem<Ops, S>& smem, int releasers) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      device::sm90::bar_init(&smem.full()[s], 1);
      device::sm90::bar_init(&smem.empty()[s], releasers * Ops::kCluster);
    }
    for (int b = 0; b < Ops::kCLoaded; ++b) device::sm90::bar_init(&smem.c_loaded(0)[b], 1);
    for (int c = 0; c < Ops::kTurns; ++c) device::sm90::bar_init(&smem.turns()[c], 1);
    device::sm90::bar_init_fence();
  }
  if constexpr (Ops::kCluster > 1) {
    device::sm90::cluster_arrive_relaxed();
    device::sm90::cluster_wait();
  } else {
    __syncthreads();
  }
}

}  // namespace tessel::impl
