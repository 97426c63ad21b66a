// Hopper (sm_90a) building blocks as thin inline-PTX wrappers: mbarriers,
// TMA tile loads and stores, wgmma shared-memory descriptors and the
// m64nNk16 (f16, bf16), m64nNk8 (tf32) and m64nNk32 (FP8) instructions, setmaxnreg. Only
// the Hopper kernel files include this; they are compiled for sm_90a alone
// (CMake target tessel_sm90).
//
// Shared-memory operand layout (Operand below). Every k-slice is 128 bytes
// deep (one 128-byte swizzle row: 64 elements of a 16-bit type, 32 of FP32
// read as tf32, 128 of FP8), and TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B, which
// is exactly the layout wgmma reads with a 128-byte-swizzle descriptor:
//  - K-major (A with op N, B with op T: k contiguous in memory): one TMA box
//    of Rows x 128 bytes; row r at byte 128 r; groups of 8 rows (1024
//    bytes, one swizzle atom) apart by SBO = 1024; each wgmma's k-step (16
//    elements of 16 bits, 8 of tf32: 32 bytes) moves the start address by
//    32 bytes.
//  - MN-major (A with op T, B with op N: m or n contiguous; 16-bit types,
//    and tf32's A): TMA boxes of a slice's k rows x 128 bytes of m or n
//    (64 elements of 16 bits, 8 KiB; 32 of FP32, 4 KiB); within a box, k row
//    r at byte 128 r; SBO = 1024 (8 k rows), LBO = a box (the next 64 m or
//    n); the k-step of 16 moves the start address by 16 rows, 2 KiB.
// wgmma reads K-major with its transpose bit 0 and MN-major with 1, so the
// four op pairs of 16-bit types need no copies. tf32 and FP8 wgmma have no
// transpose bit: their shared-memory operands must be K-major. tf32's A may
// come from registers instead: an MN-major A is read from its boxes into
// the wgmma register layout by the consumer threads (Operand::fragment).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "device/mma.cuh"  // TcParams, store_pair; smem_addr (device/cp_async.cuh)

namespace tessel::device::sm90 {

constexpr int kSliceBytes = 128;   // bytes of k per pipeline slice
constexpr int kSliceK = 64;        // k elements per slice of a 16-bit type (Operand<T>::kSliceK for any)
constexpr int kStepBytes = 32;     // bytes of k per wgmma (k16 of 16-bit types, k8 of tf32)
constexpr int kWarpgroup = 128;    // threads that issue one wgmma together
constexpr int kSwizzleAtom = 1024; // bytes: 8 rows of 128 bytes

// ---- mbarrier ---------------------------------------------------------------
__device__ __forceinline__ void bar_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
}
// Makes initialised barriers visible to the other threads and to the TMA unit.
__device__ __forceinline__ void bar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// One arrival that also announces `bytes` of TMA data the phase must wait for.
__device__ __forceinline__ void bar_expect_bytes(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// Waits until the phase of parity `parity` has completed. A fresh barrier
// counts its (never-run) phase of parity 1 as complete.
__device__ __forceinline__ void bar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// A ring of pipeline stages: the stage in use and the parity of its current phase.
template <int Stages>
struct Ring {
  int stage = 0;
  uint32_t parity = 0;
  __device__ __forceinline__ void next() {
    if (++stage == Stages) stage = 0, parity ^= 1;
  }
  // n >= 0 steps of next().
  __device__ __forceinline__ void advance(int n) {
    stage += n;
    parity ^= (stage / Stages) & 1;
    stage %= Stages;
  }
};

// ---- TMA ---------------------------------------------------------------------
// Copies the box at (inner, outer) of `map` into shared memory; completion
// is counted in bytes on `bar`. Out-of-bounds elements arrive as zeros.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int inner, int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer)
      : "memory");
}

// The same box, written to the same shared-memory offset in every CTA of
// the cluster named in cta_mask, each counting the bytes on its own `bar`.
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, int inner,
                                                   int outer, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer), "h"(cta_mask)
      : "memory");
}

// The same copies from a rank-3 map (make_batched_tensor_map): the box at
// (inner, outer) of matrix `matrix`.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int inner, int outer,
                                         int matrix) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::
          "r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer), "r"(matrix)
      : "memory");
}
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, int inner,
                                                   int outer, int matrix, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer), "r"(matrix), "h"(cta_mask)
      : "memory");
}

// Fetches a tensor map (a __grid_constant__ parameter) into the descriptor
// cache ahead of the first copy that uses it.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
// Tensor maps edited in global memory (a pointer-array batch's, one per
// matrix): the editing thread releases its edits to the tensor-map proxy,
// the thread whose TMA copies read the map acquires it (128 bytes) first.
// The address must stay 16-byte aligned.
__device__ __forceinline__ void replace_tensor_map_address(CUtensorMap* map, const void* base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "l"(reinterpret_cast<uint64_t>(base))
               : "memory");
}
// Dimension Dim's extent (elements) and, for Dim >= 1, its stride (bytes) of
// a tensor map in global memory (published by release_tensor_maps).
template <int Dim>
__device__ __forceinline__ void replace_tensor_map_extent(CUtensorMap* map, uint32_t extent) {
  asm volatile("tensormap.replace.tile.global_dim.global.b1024.b32 [%0], %1, %2;" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "n"(Dim), "r"(extent)
               : "memory");
}
template <int Dim>
__device__ __forceinline__ void replace_tensor_map_stride(CUtensorMap* map, uint64_t bytes) {
  static_assert(Dim >= 1, "dimension 0 is contiguous");
  asm volatile("tensormap.replace.tile.global_stride.global.b1024.b64 [%0], %1, %2;" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "n"(Dim - 1), "l"(bytes)
               : "memory");
}
// Programmatic dependent launch: a kernel lets the next one on its stream
// start (launch_dependents); that one waits, before it reads what the first
// wrote, until the first has finished (device::wait_for_prior_grid).
__device__ __forceinline__ void launch_dependents() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
__device__ __forceinline__ void release_tensor_maps() {
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}
__device__ __forceinline__ void acquire_tensor_map(const CUtensorMap* map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(reinterpret_cast<uint64_t>(map))
               : "memory");
}
// Copies a box from shared memory to global memory at (inner, outer) of
// `map`; elements outside the tensor are not written. Completion is
// tracked per thread in bulk groups (bulk_commit / bulk_wait_read).
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* src, int inner, int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(inner), "r"(outer)
               : "memory");
}
// The same into matrix `matrix` of a rank-3 map.
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* src, int inner, int outer, int matrix) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(inner), "r"(outer), "r"(matrix)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Waits until at most Pending of this thread's bulk groups still read their shared memory.
template <int Pending>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}
// Waits until all of this thread's bulk groups have completed (their writes are done).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
// Orders this thread's ordinary shared-memory writes before later reads by the copy engine.
__device__ __forceinline__ void fence_to_async_proxy() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// bar.sync on barrier `id` for `threads` threads (one warpgroup: 128).
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Writes four 8x8 blocks of 16-bit values from their mma fragment (thread
// lane holds row lane / 4, columns 2 (lane % 4) and + 1 of block q in r[q]);
// lanes 8q..8q+7 give the addresses of block q's rows (16 bytes each).
__device__ __forceinline__ void stmatrix_x4(const uint32_t (&r)[4], void* p) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr(p)), "r"(r[0]),
               "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// ---- clusters ------------------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// The cluster barrier, in two halves: every thread of every CTA arrives,
// then waits for all the others (wait: acquire). The arrival is relaxed:
// it orders none of the thread's earlier memory accesses (a release
// compiles to MEMBAR.ALL.GPU + ERRBAR in every thread, which ncu showed
// stalling every warp at kernel start); barrier inits are published by fence.mbarrier_init instead
// (bar_init_fence). Not .aligned: the threads of a warp may reach it at
// different times.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait;" ::: "memory"); }
// Arrives on the barrier at the same shared-memory offset as `bar` in CTA
// `rank` of the cluster. CTA-scope release (the default): the arrival only
// says "done reading"; a cluster-scope release would fence every prior
// memory access of the thread first (measured far slower: warps stall on membar).
__device__ __forceinline__ void bar_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
}

// ---- wgmma ---------------------------------------------------------------------
// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1), base offset 0
// (every tile starts on a 1024-byte boundary).
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((addr & 0x3FFFF) >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32 | uint64_t(1) << 62;
}

// One operand's k-slice in shared memory (see the top of this file): Rows
// (m or n) x kSliceK (k) elements of T, K-major or MN-major (16-bit T only; 64-row multiples,
// K-major also 16 rows: the narrow side of a swapped tile). Parts: how many
// CTAs of a cluster share loading it (each copies its part of the boxes and
// multicasts them to all): a K-major slice is then cut into Parts boxes of
// rows; an MN-major one is copied in boxes of 64 columns (at least Parts).
template <class T, int Rows, bool KMajor, int Parts = 1>
struct Operand {
  static_assert((sizeof(T) == 2 || KMajor || (sizeof(T) == 4 && Parts == 1)) &&
                    (Rows % 64 == 0 || (KMajor && Parts == 1 && Rows == 16)) && Rows <= 256,
                "16-bit types, FP32 (tf32) MN-major as one CTA's A, else K-major; 64..256 rows, or 16 K-major");
  static constexpr int kSliceK = kSliceBytes / int(sizeof(T));  // k elements per slice
  static constexpr int kBoxColumns = kSliceBytes / int(sizeof(T));  // MN-major: m or n of one box
  static_assert(KMajor || Rows / kBoxColumns >= Parts, "an MN-major slice shared by Parts CTAs has a box each");
  static constexpr int kBoxes = KMajor ? Parts : Rows / kBoxColumns;
  static constexpr int kBytes = Rows * kSliceBytes;
  static constexpr int kBoxBytes = kBytes / kBoxes;
  static constexpr int kColumnBytes = kSliceK * 128;  // MN-major: one box
  static constexpr bool kTransposed = !KMajor;        // wgmma's transpose bit for this operand
  static constexpr bool kRegisters = !KMajor && sizeof(T) == 4;  // tf32 MN-major: wgmma reads it from registers
  // The TMA box this layout loads, {inner, outer} in elements.
  static constexpr int kBoxInner = kSliceK;
  static constexpr int kBoxOuter = KMajor ? Rows / kBoxes : kSliceK;

  // Issues the TMA copies of part `part` of the slice at rows row0.., k values
  // k0.. of matrix `matrix` (a rank-3 map) into tile (with Parts > 1: into
  // tile in every CTA of cta_mask; with 3 boxes and 2 parts, part 0 copies
  // one and part 1 two).
  __device__ static void load(void* tile, const CUtensorMap* map, uint64_t* bar, int row0, int k0, int matrix,
                              int part = 0, uint16_t cta_mask = 1) {
#pragma unroll
    for (int b = part * kBoxes / Parts; b < (part + 1) * kBoxes / Parts; ++b) {
      char* dst = static_cast<char*>(tile) + b * kBoxBytes;
      // {inner, outer} coordinates of box b.
      const int inner = KMajor ? k0 : row0 + b * kBoxColumns;
      const int outer = KMajor ? row0 + b * kBoxOuter : k0;
      if constexpr (Parts == 1) {
        tma_load(dst, map, bar, inner, outer, matrix);
      } else {
        tma_load_multicast(dst, map, bar, inner, outer, matrix, cta_mask);
      }
    }
  }
  // The descriptor of rows r0.. (r0 a multiple of 64), wgmma k-step `step` of the slice.
  __device__ static uint64_t desc(const void* tile, int r0, int step) {
    const uint32_t base = smem_addr(tile);
    if constexpr (KMajor) return make_desc(base + r0 * 128 + step * kStepBytes, 16, kSwizzleAtom);
    return make_desc(base + r0 / kBoxColumns * kColumnBytes + step * 16 * 128, kColumnBytes, kSwizzleAtom);
  }
  // kRegisters: thread t's A fragment of wgmma k-step `step` for rows r0.. (wgmma's register layout:
  // f[i] is row r0 + 16 (t / 32) + (t % 32) / 4 + 8 (i % 2), k 8 step + t % 4 + 4 (i / 2)), read from
  // the swizzled boxes (16-byte piece q of k row r at piece q ^ (r % 8)).
  __device__ static void fragment(uint32_t (&f)[4], const void* tile, int r0, int step, int t) {
    static_assert(kRegisters, "an MN-major tf32 tile");
    const char* base = static_cast<const char*>(tile);
    const int row = r0 + 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = row + 8 * (i % 2), k = 8 * step + t % 4 + 4 * (i / 2), col = r % kBoxColumns;
      f[i] = *reinterpret_cast<const uint32_t*>(base + r / kBoxColumns * kColumnBytes + k * 128 +
                                                ((col / 4) ^ (k % 8)) * 16 + col % 4 * 4);
    }
  }
};

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}
// Tells the compiler the accumulators may have changed here (after a wait),
// so that no read of them moves above it.
template <int N>
__device__ __forceinline__ void fence_acc(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// wgmma.mma_async m64nNk{16,8,32} with FP32 accumulators, N = 16, 64, 128, 192 or 256:
// the N / 2 accumulators are operands %0.., then the two descriptors (TAIL
// names their operand numbers) and the transpose bits.
#define TESSEL_ACC8(i) \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define TESSEL_ACC32(i) TESSEL_ACC8(i), TESSEL_ACC8(i + 8), TESSEL_ACC8(i + 16), TESSEL_ACC8(i + 24)
#define TESSEL_R0_8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define TESSEL_R0 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TESSEL_R32 \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define TESSEL_R64 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define TESSEL_R96 \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define TESSEL_WGMMA(TYPES, SHAPE, REGS, TAIL, ...)                                                         \
  asm volatile("wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPES " {" REGS "}, " TAIL ";"               \
               : __VA_ARGS__                                                                               \
               : "l"(a), "l"(b), "n"(int(TransA)), "n"(int(TransB)), "n"(int(Accumulate)))
// SHAPE: "m64nN"; DESCS: the descriptor operands, scale-d and the input
// scales; TRANS: the transpose operands (16-bit types only).
#define TESSEL_WGMMA_TYPED(SHAPE, REGS, DESCS, TRANS, ...)                         \
  if constexpr (kTf32) {                                                            \
    TESSEL_WGMMA("tf32.tf32", SHAPE "k8", REGS, DESCS, __VA_ARGS__);                \
  } else if constexpr (kE4M3 && kBE4M3) {                                           \
    TESSEL_WGMMA("e4m3.e4m3", SHAPE "k32", REGS, DESCS, __VA_ARGS__);               \
  } else if constexpr (kE4M3) {                                                     \
    TESSEL_WGMMA("e4m3.e5m2", SHAPE "k32", REGS, DESCS, __VA_ARGS__);               \
  } else if constexpr (kE5M2 && kBE4M3) {                                           \
    TESSEL_WGMMA("e5m2.e4m3", SHAPE "k32", REGS, DESCS, __VA_ARGS__);               \
  } else if constexpr (kE5M2) {                                                     \
    TESSEL_WGMMA("e5m2.e5m2", SHAPE "k32", REGS, DESCS, __VA_ARGS__);               \
  } else if constexpr (kF16) {                                                      \
    TESSEL_WGMMA("f16.f16", SHAPE "k16", REGS, DESCS ", " TRANS, __VA_ARGS__);      \
  } else {                                                                          \
    TESSEL_WGMMA("bf16.bf16", SHAPE "k16", REGS, DESCS ", " TRANS, __VA_ARGS__);    \
  }

// d (64 x N, FP32, this thread's N / 2 values) += A (64 x K) * B (K x N),
// both from shared memory (Accumulate false: d = A * B); K = 16 for f16 /
// bf16, 8 for tf32 (T = float: FP32 data read as tf32), 32 for FP8 (T an InputPair for A and B
// of different FP8 types); N = 64, 128, 192 or 256, and 16 for narrow swapped tiles. TransA /
// TransB: the operand is MN-major (16-bit types only). Thread t of the warpgroup holds d[i] at row
// 16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (t % 4) + i % 2.
template <class T, int N, bool TransA, bool TransB, bool Accumulate = true>
__device__ __forceinline__ void wgmma_64xN(float (&d)[N / 2], uint64_t a, uint64_t b) {
  constexpr bool kF16 = std::is_same_v<T, __half>, kTf32 = std::is_same_v<T, float>;
  using TA = a_type_t<T>;
  using TB = b_type_t<T>;
  constexpr bool kE4M3 = std::is_same_v<TA, __nv_fp8_e4m3>, kE5M2 = std::is_same_v<TA, __nv_fp8_e5m2>;
  constexpr bool kBE4M3 = std::is_same_v<TB, __nv_fp8_e4m3>;
  static_assert(kF16 || kTf32 || kE4M3 || kE5M2 || std::is_same_v<T, __nv_bfloat16>, "f16, bf16, tf32, e4m3 or e5m2");
  static_assert(!(kE4M3 || kE5M2) || kBE4M3 || std::is_same_v<TB, __nv_fp8_e5m2>, "FP8 with FP8");
  static_assert(N == 16 || N == 64 || N == 128 || N == 192 || N == 256, "m64n{16,64,128,192,256}");
  static_assert(sizeof(T) == 2 || (!TransA && !TransB), "tf32 and FP8 operands are K-major");
  if constexpr (N == 16) {
    TESSEL_WGMMA_TYPED("m64n16", TESSEL_R0_8, "%8, %9, %12, 1, 1", "%10, %11", TESSEL_ACC8(0));
  } else if constexpr (N == 64) {
    TESSEL_WGMMA_TYPED("m64n64", TESSEL_R0, "%32, %33, %36, 1, 1", "%34, %35", TESSEL_ACC32(0));
  } else if constexpr (N == 128) {
    TESSEL_WGMMA_TYPED("m64n128", TESSEL_R0 ", " TESSEL_R32, "%64, %65, %68, 1, 1", "%66, %67", TESSEL_ACC32(0),
                       TESSEL_ACC32(32));
  } else if constexpr (N == 192) {
    TESSEL_WGMMA_TYPED("m64n192", TESSEL_R0 ", " TESSEL_R32 ", " TESSEL_R64, "%96, %97, %100, 1, 1", "%98, %99",
                       TESSEL_ACC32(0), TESSEL_ACC32(32), TESSEL_ACC32(64));
  } else {
    TESSEL_WGMMA_TYPED("m64n256", TESSEL_R0 ", " TESSEL_R32 ", " TESSEL_R64 ", " TESSEL_R96, "%128, %129, %132, 1, 1",
                       "%130, %131", TESSEL_ACC32(0), TESSEL_ACC32(32), TESSEL_ACC32(64), TESSEL_ACC32(96));
  }
}
// wgmma.mma_async m64nNk8 tf32 with A from registers (a: thread t's fragment, Operand::fragment), B a
// K-major descriptor; d as for wgmma_64xN.
#define TESSEL_WGMMA_RS(SHAPE, REGS, TAIL, ...)                                                                   \
  asm volatile("wgmma.mma_async.sync.aligned." SHAPE "k8.f32.tf32.tf32 {" REGS "}, " TAIL ";"                     \
               : __VA_ARGS__                                                                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(int(Accumulate)))
template <int N, bool Accumulate = true>
__device__ __forceinline__ void wgmma_64xN_tf32_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b) {
  static_assert(N == 16 || N == 64 || N == 128 || N == 192 || N == 256, "m64n{16,64,128,192,256}");
  if constexpr (N == 16) {
    TESSEL_WGMMA_RS("m64n16", TESSEL_R0_8, "{%8, %9, %10, %11}, %12, %13, 1, 1", TESSEL_ACC8(0));
  } else if constexpr (N == 64) {
    TESSEL_WGMMA_RS("m64n64", TESSEL_R0, "{%32, %33, %34, %35}, %36, %37, 1, 1", TESSEL_ACC32(0));
  } else if constexpr (N == 128) {
    TESSEL_WGMMA_RS("m64n128", TESSEL_R0 ", " TESSEL_R32, "{%64, %65, %66, %67}, %68, %69, 1, 1", TESSEL_ACC32(0),
                    TESSEL_ACC32(32));
  } else if constexpr (N == 192) {
    TESSEL_WGMMA_RS("m64n192", TESSEL_R0 ", " TESSEL_R32 ", " TESSEL_R64, "{%96, %97, %98, %99}, %100, %101, 1, 1",
                    TESSEL_ACC32(0), TESSEL_ACC32(32), TESSEL_ACC32(64));
  } else {
    TESSEL_WGMMA_RS("m64n256", TESSEL_R0 ", " TESSEL_R32 ", " TESSEL_R64 ", " TESSEL_R96,
                    "{%128, %129, %130, %131}, %132, %133, 1, 1", TESSEL_ACC32(0), TESSEL_ACC32(32), TESSEL_ACC32(64),
                    TESSEL_ACC32(96));
  }
}
#undef TESSEL_WGMMA_RS
#undef TESSEL_WGMMA_TYPED
#undef TESSEL_WGMMA
#undef TESSEL_R96
#undef TESSEL_R64
#undef TESSEL_R32
#undef TESSEL_R0
#undef TESSEL_R0_8
#undef TESSEL_ACC32
#undef TESSEL_ACC8

// One k-slice (128 bytes deep) for this warpgroup: 4 wgmmas (k 16 of a
// 16-bit type, 8 of tf32, 32 of FP8) over rows a_row0.. of A's tile and the
// N columns b_row0.. of B's, added to d (Fresh: d = the slice's product alone).
template <class T, class OpA, class OpB, int N, bool Fresh = false>
__device__ __forceinline__ void mma_slice(float (&d)[N / 2], const void* a_tile, int a_row0, const void* b_tile,
                                          int b_row0 = 0) {
  wgmma_fence();
  wgmma_64xN<T, N, OpA::kTransposed, OpB::kTransposed, !Fresh>(d, OpA::desc(a_tile, a_row0, 0),
                                                               OpB::desc(b_tile, b_row0, 0));
#pragma unroll
  for (int step = 1; step < kSliceBytes / kStepBytes; ++step) {
    wgmma_64xN<T, N, OpA::kTransposed, OpB::kTransposed>(d, OpA::desc(a_tile, a_row0, step),
                                                         OpB::desc(b_tile, b_row0, step));
  }
  wgmma_commit();
}

// tf32 with A from registers: thread t's fragments of a slice's 4 k-steps (rows a_row0.. of the MN-major
// tile), then the slice's wgmmas on them, which read f until the slice completes.
constexpr int kSliceSteps = kSliceBytes / kStepBytes;
template <class OpA>
__device__ __forceinline__ void load_fragments(uint32_t (&f)[kSliceSteps][4], const void* a_tile, int a_row0, int t) {
#pragma unroll
  for (int step = 0; step < kSliceSteps; ++step) OpA::fragment(f[step], a_tile, a_row0, step, t);
}
template <class OpB, int N>
__device__ __forceinline__ void mma_slice_rs(float (&d)[N / 2], const uint32_t (&f)[kSliceSteps][4],
                                             const void* b_tile) {
  wgmma_fence();
#pragma unroll
  for (int step = 0; step < kSliceSteps; ++step) wgmma_64xN_tf32_rs<N>(d, f[step], OpB::desc(b_tile, 0, step));
  wgmma_commit();
}

// C(row0.., col0..) for the 64 x N block of one warpgroup's accumulators
// (thread t of 128), rounded once to C's type CT; rows past m and columns
// past n are skipped.
template <class CT, int N, class P>
__device__ __forceinline__ void store_64xN(const P& p, const float (&d)[N / 2], int64_t row0, int64_t col0, int t) {
  const int64_t row = row0 + 16 * (t / 32) + (t % 32) / 4, col = col0 + 2 * (t % 4);
#pragma unroll
  for (int j = 0; j < N / 4; ++j) {  // pair j: d[2j], d[2j + 1]
    const int64_t i = row + 8 * (j % 2);
    if (i < p.m) store_pair<CT>(p, i, col + 8 * (j / 2), d[2 * j], d[2 * j + 1]);
  }
}

// Four consecutive results of C rounded to CT, stored (and, with beta != 0, read) as one 16-byte vector of FP32 or
// 8-byte one of 16-bit C; `at` aligned to 4 elements.
template <class CT>
__device__ __forceinline__ void store_four(CT* at, const float (&v)[4]) {
  if constexpr (std::is_same_v<CT, float>) {
    *reinterpret_cast<float4*>(at) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    const typename Pair<CT>::type lo = to_pair<CT>(v[0], v[1]), hi = to_pair<CT>(v[2], v[3]);
    *reinterpret_cast<uint2*>(at) = make_uint2(*reinterpret_cast<const uint32_t*>(&lo),
                                               *reinterpret_cast<const uint32_t*>(&hi));
  }
}
template <class CT>
__device__ __forceinline__ void add_four(const CT* at, float beta, float (&v)[4]) {
  if constexpr (std::is_same_v<CT, float>) {
    const float4 old = *reinterpret_cast<const float4*>(at);
    v[0] += beta * old.x, v[1] += beta * old.y, v[2] += beta * old.z, v[3] += beta * old.w;
  } else {
    const uint2 old = *reinterpret_cast<const uint2*>(at);
    const CT* e = reinterpret_cast<const CT*>(&old);
#pragma unroll
    for (int r = 0; r < 4; ++r) v[r] += beta * to_float(e[r]);
  }
}

// The 4 x 4 block whose row r is x[0..3] of lane (lane / 4) % 4 == r of a group (lanes 4 and 8 apart), transposed by
// four shuffles: afterwards x[0..3] of lane r is column r, rows 0..3.
__device__ __forceinline__ void transpose_4x4(float (&x)[4], int r) {
  const bool hi = r & 2, odd = r & 1;
  // lane r keeps columns 2 hi, 2 hi + 1 and takes them from row r ^ 2 (lane bit 3) for its other two
  const float a0 = hi ? x[2] : x[0], a1 = hi ? x[3] : x[1];
  const float b0 = __shfl_xor_sync(~0u, hi ? x[0] : x[2], 8), b1 = __shfl_xor_sync(~0u, hi ? x[1] : x[3], 8);
  // then keeps column 2 hi + odd of rows r, r ^ 2 and takes it from rows r ^ 1, r ^ 3 (lane bit 2)
  const float k0 = odd ? a1 : a0, k1 = odd ? b1 : b0;
  const float s0 = __shfl_xor_sync(~0u, odd ? a0 : a1, 4), s1 = __shfl_xor_sync(~0u, odd ? b0 : b1, 4);
  // row rho is at r ^ rho of (k0, s0, k1, s1)
  const float lo0 = odd ? s0 : k0, lo1 = odd ? k0 : s0, hi0 = odd ? s1 : k1, hi1 = odd ? k1 : s1;
  x[0] = hi ? hi0 : lo0, x[1] = hi ? hi1 : lo1, x[2] = hi ? lo0 : hi0, x[3] = hi ? lo1 : hi1;
}

// The same block stored transposed (TcParams::c_transposed): result (i, j) at C[j ldc + i], i < m, j < n. Where
// C's rows allow it and a warp's 16 rows are inside m, each 4 x 4 block of a lane group is transposed in registers,
// so that a lane holds four consecutive i of one j and stores them as one vector (a warp: 16 j, 32 bytes of FP32
// each); elsewhere each result is stored alone (a warp's store: 8 consecutive i of four j).
template <class CT, int N, class T>
__device__ __forceinline__ void store_64xN_transposed_as(const TcParams<T>& p, const float (&d)[N / 2], int64_t row0,
                                                         int64_t col0, int t) {
  CT* c = static_cast<CT*>(p.C);
  const int lane = t % 32;
  row0 += 16 * (t / 32);  // the warp's rows
  const bool quads = p.ldc % 4 == 0 && row0 % 4 == 0 && reinterpret_cast<std::uintptr_t>(c) % (4 * sizeof(CT)) == 0;
  if (!quads || row0 + 16 > p.m) {
    const int64_t row = row0 + lane / 4, col = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < N / 2; ++j) {  // d[j]: row + 8 ((j / 2) % 2), column col + 8 (j / 4) + j % 2
      const int64_t i = row + 8 * ((j / 2) % 2), k = col + 8 * (j / 4) + j % 2;
      if (i < p.m && k < p.n) store_one(p, k, i, d[j]);
    }
    return;
  }
  const int r = (lane / 4) % 4;
  const int64_t row = row0 + 4 * (lane / 16), col = col0 + 2 * (lane % 4) + 8 * (r / 2) + r % 2;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int u = 0; u < N / 16; ++u) {
      float x[4];  // row lane / 4 + 8 h, columns 16 u + 2 (lane % 4) + {0, 1, 8, 9}; then rows row + 8 h + 0..3
#pragma unroll
      for (int v = 0; v < 4; ++v) x[v] = p.alpha * d[8 * u + 4 * (v / 2) + 2 * h + v % 2];
      transpose_4x4(x, r);
      if (const int64_t k = col + 16 * u; k < p.n) {
        CT* at = c + k * p.ldc + row + 8 * h;
        if (p.beta != 0.0f) add_four(at, p.beta, x);
        store_four(at, x);
      }
    }
  }
}
template <int N, class T>
__device__ __forceinline__ void store_64xN_transposed(const TcParams<T>& p, const float (&d)[N / 2], int64_t row0,
                                                      int64_t col0, int t) {
  if (std::is_same_v<T, float> || p.c_f32) return store_64xN_transposed_as<float, N>(p, d, row0, col0, t);
  store_64xN_transposed_as<T, N>(p, d, row0, col0, t);
}

// ---- registers -----------------------------------------------------------------
// Warpgroup-wide register budget changes (need a register cap at kernel entry:
// __launch_bounds__(threads, 1)).
template <int Regs>
__device__ __forceinline__ void release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

}  // namespace tessel::device::sm90
