#include "harness/device_data.hpp"

#include <algorithm>
#include <cmath>

#include "device/activation.cuh"
#include "device/types.cuh"
#include "harness/gpu.hpp"
#include "harness/random.hpp"

namespace tessel::harness {
namespace {

template <class T>
__global__ void fill_kernel(T* p, size_t count, uint64_t seed) {
  const uint64_t base = random_base(seed);
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    p[i] = device::from_float<T>(random_element(base, i));
  }
}

// Reads `words` 16-byte words (each once, coalesced) and writes one word only if their XOR is a
// value it cannot be (so the reads are not optimised away and nothing is written).
__global__ void read_kernel(const uint4* p, size_t words, uint4* sink) {
  uint4 x{};
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(p + i);
    x.x ^= v.x, x.y ^= v.y, x.z ^= v.z, x.w ^= v.w;
  }
  if (x.x == 0x9e3779b9u && x.y == 0x7f4a7c15u && x.z == 0xf39cc060u && x.w == 0x5cedc834u) *sink = x;
}

struct Sums {
  double diff2, ref2;
  unsigned long long nonfinite;
};

// Per block: sums over a grid-stride walk of the m x n elements, reduced in
// shared memory, then added to the totals (one atomic per block and sum).
template <class T>
__global__ void compare_kernel(const T* D, const T* R, int64_t m, int64_t n, int64_t ld, Sums* total) {
  __shared__ double diff_s[256], ref_s[256];
  __shared__ unsigned long long bad_s[256];
  double diff2 = 0, ref2 = 0;
  unsigned long long bad = 0;
  const int64_t count = m * n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e / n, j = e % n;
    const double d = device::to_float(D[i * ld + j]), r = device::to_float(R[i * ld + j]);
    if (!isfinite(d) && isfinite(r)) ++bad;
    diff2 += (d - r) * (d - r);
    ref2 += r * r;
  }
  diff_s[threadIdx.x] = diff2, ref_s[threadIdx.x] = ref2, bad_s[threadIdx.x] = bad;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (int(threadIdx.x) < s) {
      diff_s[threadIdx.x] += diff_s[threadIdx.x + s];
      ref_s[threadIdx.x] += ref_s[threadIdx.x + s];
      bad_s[threadIdx.x] += bad_s[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&total->diff2, diff_s[0]);
    atomicAdd(&total->ref2, ref_s[0]);
    atomicAdd(&total->nonfinite, bad_s[0]);
  }
}

// What a caller without a fused epilogue runs after the GEMM wrote D in its type:
// D = act(row_scale * col_scale * D + bias) in place (and act's input to pre).
template <class T>
__global__ void unfused_epilogue_kernel(T* D, int64_t m, int64_t n, int64_t ld, Epilogue e) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const T* bias = static_cast<const T*>(e.bias);
  T* pre = static_cast<T*>(e.pre_activation);
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
    T* d = D + i * ld + j;
    float v = device::to_float(*d) * (e.row_scale ? e.row_scale[i] : 1.0f) * (e.col_scale ? e.col_scale[j] : 1.0f);
    if (bias) v += device::to_float(bias[e.bias_per_row ? i : j]);
    if (pre) pre[i * e.ld_pre + j] = device::from_float<T>(v);
    *d = device::from_float<T>(device::activate(v, e.activation));
  }
}

template <class T, class To>
__global__ void widen_kernel(const T* src, size_t count, To* dst, StoredScales sc) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    float v = device::to_float(src[i]);
    if (sc.s != nullptr) {
      const int64_t r = int64_t(i) / sc.ld, c = int64_t(i) % sc.ld;
      const int64_t outer = sc.k_along_rows ? c : r, k = sc.k_along_rows ? r : c;
      v *= sc.s[outer / sc.outer_block * sc.outer_stride + k / 128 * sc.k_stride];
    }
    dst[i] = device::from_float<To>(v);
  }
}

}  // namespace

void unfused_epilogue_device(void* D, int64_t m, int64_t n, int64_t ld, DType type, const Epilogue& e,
                             cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  device::with_type(type, [&](auto t) {
    using T = decltype(t);
    const dim3 grid(unsigned((n + 255) / 256), unsigned(std::min<int64_t>(m, 65535)));
    unfused_epilogue_kernel<T><<<grid, 256, 0, stream>>>(static_cast<T*>(D), m, n, ld, e);
  });
  check_cuda(cudaGetLastError(), "unfused_epilogue_device");
}

void widen_device(const void* src, DType type, size_t count, void* dst, DType to, cudaStream_t stream,
                  StoredScales scales) {
  if (count == 0) return;
  device::with_any_type(type, [&](auto t) {
    device::with_type(to, [&](auto w) {
      using T = decltype(t);
      using To = decltype(w);
      const unsigned blocks = unsigned(std::min<size_t>((count + 255) / 256, 65536));
      widen_kernel<T, To><<<blocks, 256, 0, stream>>>(static_cast<const T*>(src), count, static_cast<To*>(dst),
                                                       scales);
    });
  });
  check_cuda(cudaGetLastError(), "widen_device");
}

void fill_device(void* p, DType type, size_t count, uint64_t seed, cudaStream_t stream) {
  if (count == 0) return;
  device::with_any_type(type, [&](auto t) {
    using T = decltype(t);
    const unsigned blocks = unsigned(std::min<size_t>((count + 255) / 256, 65536));
    fill_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(p), count, seed);
  });
  check_cuda(cudaGetLastError(), "fill_device");
}

void read_device(const void* p, size_t bytes, void* sink, cudaStream_t stream) {
  const size_t words = bytes / sizeof(uint4);
  if (words == 0) return;
  read_kernel<<<unsigned(std::min<size_t>((words + 255) / 256, 4096)), 256, 0, stream>>>(
      static_cast<const uint4*>(p), words, static_cast<uint4*>(sink));
  check_cuda(cudaGetLastError(), "read_device");
}

Comparison compare_device(const void* D, const void* R, int64_t m, int64_t n, int64_t ld, DType type) {
  Comparison c;
  if (m <= 0 || n <= 0) return c;
  DeviceBuffer<Sums> total(1);
  check_cuda(cudaMemset(total.get(), 0, sizeof(Sums)), "cudaMemset");
  device::with_type(type, [&](auto t) {
    using T = decltype(t);
    const unsigned blocks = unsigned(std::min<int64_t>((m * n + 255) / 256, 4096));
    compare_kernel<T><<<blocks, 256>>>(static_cast<const T*>(D), static_cast<const T*>(R), m, n, ld, total.get());
  });
  check_cuda(cudaGetLastError(), "compare_device");
  Sums s{};
  check_cuda(cudaMemcpy(&s, total.get(), sizeof s, cudaMemcpyDeviceToHost), "compare_device result");
  c.diff2 = s.diff2, c.ref2 = s.ref2, c.nonfinite = int64_t(s.nonfinite);
  c.rel_err = relative(s.diff2, s.ref2);
  return c;
}

}  // namespace tessel::harness
