// Split-k summed in the kernel: each part of k (gridDim.y of them) stores its FP32 sums, and the
// last block of a column block to arrive adds every part into the call's C in an order fixed by the parts
// (in part order, or in runs of parts added pairwise), not by the arrivals: one launch, and the same sum
// whichever part comes last.
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
// Where C's values there are fewer than the threads, lanes of a warp share a value's parts (each a
// run of them in order) and add their runs by shuffles, a chain of dependent loads as many times shorter.
template <int kThreads, class T>
__device__ __forceinline__ void sum_parts_if_last(const PartSum<T>& sum, int64_t c0, int64_t columns) {
  if (sum.flags == nullptr || !last_to_arrive(sum.flags + blockIdx.x)) return;
  const int cols = int(columns < sum.c.n - c0 ? columns : sum.c.n - c0), values = int(sum.c.m) * cols;
  const int parts = int(gridDim.y);
  int lanes = 1;  // a power of two up to 32
  while (lanes < 32 && 2 * lanes * values <= kThreads && 2 * lanes <= parts) lanes *= 2;
  const int run = (parts + lanes - 1) / lanes, g = int(threadIdx.x) % lanes;
  const int slots = kThreads / lanes;  // values a pass, the passes alike for every thread (the shuffles)
  for (int first = 0; first < values; first += slots) {
    const int at_value = first + int(threadIdx.x) / lanes, idx = at_value < values ? at_value : values - 1;
    const int i = idx / cols, c = idx % cols;
    const float* at = sum.parts + i * sum.ld + c0 + c;
    float v = 0.0f;
    for (int z = g * run; z < parts && z < (g + 1) * run; ++z) v += __ldcg(at + z * sum.stride);
    for (int o = 1; o < lanes; o *= 2) {  // lane g adds lane g + o's sum: the runs in order
      const float w = __shfl_down_sync(0xffffffffu, v, o, lanes);
      if (g % (2 * o) == 0) v += w;
    }
    if (g == 0 && at_value < values) store_one(sum.c, i, c0 + c, v);
  }
}

}  // namespace tessel::device
