// Internal: the two roles of the warp-specialised Hopper kernels (steps 12
// and 13). A producer thread keeps the ring of stages full with TMA copies;
// each consumer warpgroup multiplies its 64 rows of the tile with wgmma and
// hands each stage back as soon as its wgmmas are done. Per stage, `full`
// completes when the stage's bytes have landed (one arrival with expect-tx)
// and `empty` when every consumer warpgroup has released it (one arrival
// each). Both sides walk the same sequence of (tile, slice), so the ring
// positions stay in step across tiles without any other exchange.
// In a cluster (Ops::kCluster CTAs sharing A or B), every CTA's producer
// copies its part of the shared operand into all of them, so a stage is
// empty only when the consumers of every CTA have released it: they arrive
// on the empty barrier of each CTA of the cluster. Before a CTA exits, its
// producer waits until every stage is empty (producer_tail): then no peer
// will arrive on its barriers any more.
#pragma once

#include "device/sm90.cuh"
#include "kernels/hopper/launch.cuh"

namespace tessel::impl {

// Loads k-slices k0..k1-1 of the tile at (m0, n0) into the ring (rank:
// this CTA's rank in its cluster).
template <class Ops, int S>
__device__ __forceinline__ void produce_tile(const Sm90Smem<Ops, S>& smem, const CUtensorMap* map_a,
                                             const CUtensorMap* map_b, device::sm90::Ring<S>& ring, int m0, int n0,
                                             int k0, int k1, int rank = 0) {
  namespace sm90 = device::sm90;
  for (int kt = k0; kt < k1; ++kt, ring.next()) {
    uint64_t* full = &smem.full()[ring.stage];
    sm90::bar_wait(&smem.empty()[ring.stage], ring.parity ^ 1);  // the consumers are done with it
    sm90::bar_expect_bytes(full, Ops::kStageBytes);
    constexpr uint16_t kAll = (1u << Ops::kCluster) - 1;  // multicast to every CTA of the cluster
    Ops::A::load(smem.a(ring.stage), map_a, full, m0, kt * Ops::kSliceK);
    Ops::B::load(smem.b(ring.stage), map_b, full, n0, kt * Ops::kSliceK, rank, kAll);
  }
}

// After the last produce_tile: waits until the consumers of every CTA of
// the cluster have released every stage (the producer's next pass round the
// ring), so that no peer arrives on this CTA's barriers after it exits.
template <class Ops, int S>
__device__ __forceinline__ void producer_tail(const Sm90Smem<Ops, S>& smem, device::sm90::Ring<S>& ring) {
  for (int s = 0; s < S; ++s, ring.next()) device::sm90::bar_wait(&smem.empty()[ring.stage], ring.parity ^ 1);
}

// acc = this warpgroup's rows a_row0..+63 of the tile (N accumulators per
// thread: 2N columns), over `slices` k-slices from the ring (slices >= 1).
// Keeps one slice of wgmmas in flight: the stage of slice kt - 1 is released
// once slice kt is issued and kt - 1 has completed. `signals`: this thread
// arrives on the empty barriers for its warpgroup.
template <class T, class Ops, int S, int N>
__device__ __forceinline__ void consume_tile(float (&acc)[N], const Sm90Smem<Ops, S>& smem,
                                             device::sm90::Ring<S>& ring, int a_row0, int slices, bool signals) {
  namespace sm90 = device::sm90;
  auto release = [&](int stage) {
    if constexpr (Ops::kCluster == 1) {
      sm90::bar_arrive(&smem.empty()[stage]);
    } else {
#pragma unroll
      for (int r = 0; r < Ops::kCluster; ++r) sm90::bar_arrive_cluster(&smem.empty()[stage], r);
    }
  };
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = 0.0f;
  int previous = 0;
  for (int kt = 0; kt < slices; ++kt, ring.next()) {
    sm90::bar_wait(&smem.full()[ring.stage], ring.parity);
    sm90::mma_slice<T, typename Ops::A, typename Ops::B, 2 * N>(acc, smem.a(ring.stage), a_row0, smem.b(ring.stage));
    sm90::wgmma_wait<1>();
    if (kt > 0 && signals) release(previous);
    previous = ring.stage;
  }
  sm90::wgmma_wait<0>();
  if (signals) release(previous);
  sm90::fence_acc(acc);
}

// C's rows a_row0.. of the tile from one consumer warpgroup (thread t of 128;
// N accumulators: the tile is 2N columns wide).
template <class T, int N>
__device__ __forceinline__ void store_tile(const device::TcParams<T>& p, const float (&acc)[N], int64_t row0,
                                           int64_t col0, int t) {
  if (p.c_f32) {
    device::sm90::store_64xN<float, 2 * N>(p, acc, row0, col0, t);
  } else {
    device::sm90::store_64xN<T, 2 * N>(p, acc, row0, col0, t);
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
template <class CT, class T, int N>
__device__ __forceinline__ void store_tile_tma(const CUtensorMap* map_c, const device::TcParams<T>& p,
                                               const float (&acc)[N], int row0, int col0, int t, char* buffers,
                                               uint64_t* c_loaded, StoreState& state) {
  namespace sm90 = device::sm90;
  using Pair = typename device::Pair<CT>::type;
  constexpr int kChunkCols = 128 / int(sizeof(CT));  // columns per chunk
  constexpr int kPairs = kChunkCols / 4;             // accumulator pairs per thread per chunk
  constexpr int kChunks = N / 2 / kPairs;
  const int warp = t / 32, lane = t % 32;
  const bool leader = lane == 0;
  const int box_row = row0 + kStoreBoxRows * warp;  // the warp's first row of C
  auto region = [&](int b) { return buffers + b * kStoreBufferBytes + warp * kStoreBoxBytes; };
  uint64_t* loaded = c_loaded + 2 * warp;
  const bool read_c = p.beta != 0.0f;
  auto load_c = [&](int c, int b) {  // lane 0: chunk c of the warp's rows of C into buffer b
    sm90::bar_expect_bytes(&loaded[b], kStoreBoxBytes);
    sm90::tma_load(region(b), map_c, &loaded[b], col0 + c * kChunkCols, box_row);
  };
  if (read_c && leader) {
    sm90::bulk_wait_read<0>();  // both buffers free
    for (int c = 0; c < 2 && c < kChunks; ++c) load_c(c, state.next ^ c);
  }
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int b = state.next;
    char* buffer = region(b);
    if (read_c) {
      sm90::bar_wait(&loaded[b], (state.phases >> b) & 1);  // C is in
      state.phases ^= 1 << b;
    } else {
      if (leader) sm90::bulk_wait_read<1>();
      __syncwarp();  // the buffer is free
    }
    // alpha * pair j (d[2j], d[2j + 1]) (+ beta * its old value), rounded to CT.
    auto result = [&](int j, Pair old) {
      float v0 = p.alpha * acc[2 * j], v1 = p.alpha * acc[2 * j + 1];
      if (read_c) v0 += p.beta * device::to_float(old.x), v1 += p.beta * device::to_float(old.y);
      Pair v;
      v.x = device::from_float<CT>(v0), v.y = device::from_float<CT>(v1);
      return v;
    };
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
          const Pair v = result(c * kPairs + 4 * q + x, *reinterpret_cast<const Pair*>(&words[x]));
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
        *at = result(j, read_c ? *at : Pair{});
      }
    }
    sm90::fence_to_async_proxy();
    __syncwarp();  // the chunk is written
    if (leader) {
      sm90::tma_store(map_c, buffer, col0 + c * kChunkCols, box_row);
      sm90::bulk_commit();
      if (read_c && c + 2 < kChunks) {
        sm90::bulk_wait_read<0>();  // the store has read the buffer
        load_c(c + 2, b);
      }
    }
    state.next ^= 1;
  }
}

// The epilogue of steps 14 and 15 for consumer warpgroup `consumer` (thread
// t of 128): its 64 x 2N block of C at (i0, j0) through shared memory and TMA
// stores when tma_store (`state` carried across tiles), else stored from
// registers.
template <class T, class Ops, int S, int N>
__device__ __forceinline__ void store_result(const device::TcParams<T>& p, const CUtensorMap* map_c, bool tma_store,
                                             const float (&acc)[N], int i0, int j0, int t,
                                             const Sm90Smem<Ops, S>& smem, int consumer, StoreState& state) {
  if (!tma_store) {
    store_tile(p, acc, i0, j0, t);
  } else if (p.c_f32) {
    store_tile_tma<float>(map_c, p, acc, i0, j0, t, smem.store_buffers(consumer), smem.c_loaded(consumer), state);
  } else {
    store_tile_tma<T>(map_c, p, acc, i0, j0, t, smem.store_buffers(consumer), smem.c_loaded(consumer), state);
  }
}

// Sets up the barriers: full[s] takes the producer's one arrival, empty[s]
// `releasers` per CTA of the cluster (the consumer warpgroups, or the
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
