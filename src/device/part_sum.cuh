// Split-k summed in the kernel: each part of k (gridDim.y of them) stores its FP32 sums, and the
// last block of a column block to arrive adds every part, in part order, into the call's C: one
// launch, and the same sum whichever part comes last (the parts' order, not the arrivals', fixes it).
#pragma once

#include <cstdint>

#include "device/mma.cuh"

namespace tessel::device {

// The parts (part z at parts + z * stride, leading dimension ld) and the call's own C (alpha in the
// parts); flags: a count per column block (blockIdx.x), zero before and after; none: no parts.
template <class T>
struct PartSum {
  TcParams<T> c;
  const float* parts;
  int64_t stride, ld;
  int* flags;
};

// Whether this block is the last of its column block's parts to arrive (its own stores made
// visible first); the last one resets the count.
inline __device__ bool last_to_arrive(int* flag) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(flag, 1) == int(gridDim.y) - 1;
    if (last) *flag = 0;
  }
  __syncthreads();
  __threadfence();
  return last;
}

// After a block's part is stored: the last part of column block blockIdx.x (columns c0 .. c0 +
// columns - 1 of C) adds all parts into C. Every thread of the block (kThreads of them) calls it.
template <int kThreads, class T>
__device__ __forceinline__ void sum_parts_if_last(const PartSum<T>& sum, int64_t c0, int64_t columns) {
  if (sum.flags == nullptr || !last_to_arrive(sum.flags + blockIdx.x)) return;
  for (int64_t idx = threadIdx.x; idx < sum.c.m * columns; idx += kThreads) {
    const int64_t i = idx / columns, c = c0 + idx % columns;
    if (c >= sum.c.n) continue;
    float v = 0.0f;
    for (unsigned z = 0; z < gridDim.y; ++z) v += __ldcg(sum.parts + z * sum.stride + i * sum.ld + c);
    store_one(sum.c, i, c, v);
  }
}

}  // namespace tessel::device
