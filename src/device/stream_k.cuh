// Device side of stream-K (step 15; step 08's pipelined_128x256_streamk):
// handing a tile's partial sums from the block (or warpgroup) that computed
// its first k-slices to the one that owns the tile. The plan of who does
// what is kernels/stream_k_plan.hpp.
//
// Every thread of the writing group stores its sums into the group's slot,
// the group meets at its barrier, then one thread releases the flag at GPU
// scope (fence + store: the barrier puts the other threads' stores before
// it). On the reading side one thread acquires the flag and resets it (so
// the workspace is clean for the next call on the stream), the group meets
// at its barrier and reads. No thread waits for its own stores to drain:
// the writer goes straight back to its FMAs.
#pragma once

#include <cuda_runtime.h>

namespace tessel::device {

__device__ __forceinline__ void flag_raise(int* flag) {
  asm volatile("fence.acq_rel.gpu;\n st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(1) : "memory");
}
__device__ __forceinline__ int flag_read(const int* flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

// Thread t of a group of Threads puts its Vec4s float4s of sums, get(i), at
// slot[i * Threads + t] (each store of the group contiguous), then the
// group syncs (sync()) and its thread 0 raises the flag.
template <int Threads, int Vec4s, class Get, class Sync>
__device__ __forceinline__ void save_partial(float4* slot, int* flag, int t, Get&& get, Sync&& sync) {
#pragma unroll
  for (int i = 0; i < Vec4s; ++i) __stcg(slot + i * Threads + t, get(i));
  sync();
  if (t == 0) flag_raise(flag);
}

// The reading side: waits for the flag, then add(i, v) for each float4 v
// that thread t of the writing group stored as its i-th.
template <int Threads, int Vec4s, class Add, class Sync>
__device__ __forceinline__ void add_partial(const float4* slot, int* flag, int t, Add&& add, Sync&& sync) {
  if (t == 0) {
    while (flag_read(flag) == 0) __nanosleep(64);
    *flag = 0;  // read once per call: clean for the next one
  }
  sync();  // the partial sums are there
#pragma unroll
  for (int i = 0; i < Vec4s; ++i) add(i, __ldcg(slot + i * Threads + t));
}

}  // namespace tessel::device
