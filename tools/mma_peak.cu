// tessel_mma_peak: the ceiling of mma.sync on this GPU, from registers only.
//
// Every warp issues independent mma.sync instructions on operands already in
// registers (no loads, no shared memory), ILP chains deep, enough warps for
// every SM sub-partition. What it reaches is the most any mma.sync kernel
// (step 10) can reach here; it says nothing of wgmma, which Hopper's
// cuBLAS uses and which this instruction cannot match on sm_90.
//   tessel_mma_peak [seconds-per-type, default 1] [warps per SM: 4, 8, 16 or 32 (default)]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "device/mma.cuh"

namespace {

using tessel::device::Mma;
constexpr int kChains = 8;  // independent accumulators per warp

template <class T>
__global__ void __launch_bounds__(256) peak_kernel(int iters, float* sink) {
  uint32_t a[4], b0 = threadIdx.x * 3u + 1u, b1 = threadIdx.x * 5u + 2u;
  for (int i = 0; i < 4; ++i) a[i] = threadIdx.x * (i + 7u);
  if constexpr (sizeof(T) == 4) {  // tf32 operands: small finite floats
    for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(1e-3f * (threadIdx.x + i));
    b0 = __float_as_uint(1e-3f), b1 = __float_as_uint(2e-3f);
  } else {  // two 16-bit values each; keep them small and finite (0x3c00 = 1.0 in f16)
    for (int i = 0; i < 4; ++i) a[i] = 0x20002000u;
    b0 = b1 = 0x20002000u;
  }
  float acc[kChains][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) Mma<T>::run(acc[c], a, b0, b1);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.678f) sink[threadIdx.x] = s;  // never true; keeps the work alive
}

template <class T>
double measure(const char* name, int sms, int warps_per_sm, float* sink, double seconds) {
  const int kThreads = 32 * std::min(warps_per_sm, 8);
  const int blocks = sms * std::max(1, warps_per_sm / 8);
  int iters = 1024;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  peak_kernel<T><<<blocks, kThreads>>>(16, sink);  // warm-up
  float ms = 0;
  for (;;) {
    cudaEventRecord(start);
    peak_kernel<T><<<blocks, kThreads>>>(iters, sink);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    if (ms > 1000 * seconds || iters > (1 << 28)) break;
    iters *= 2;
  }
  const double flops = 2.0 * 16 * 8 * Mma<T>::kK * kChains * double(iters) * blocks * (kThreads / 32);
  const double tflops = flops / (ms * 1e-3) / 1e12;
  std::printf("%-5s mma.sync m16n8k%-2d FP32 accumulate, %2d warps/SM: %8.1f TFLOP/s  (%d iterations, %.1f ms)\n", name,
              Mma<T>::kK, warps_per_sm, tflops, iters, ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return tflops;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  const int warps = argc > 2 ? std::atoi(argv[2]) : 32;
  if (warps != 4 && warps != 8 && warps != 16 && warps != 32) {
    std::fprintf(stderr, "error: warps per SM must be 4, 8, 16 or 32 (got '%s')\n", argv[2]);
    return 2;
  }
  int device = 0, sms = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::fprintf(stderr, "error: no CUDA GPU is visible\n");
    return 3;
  }
  sms = prop.multiProcessorCount;
  float* sink = nullptr;
  cudaMalloc(&sink, 256 * sizeof(float));
  std::printf("%s, %d SMs: register-only mma.sync throughput, %d independent chains per warp\n", prop.name, sms,
              kChains);
  measure<__half>("f16", sms, warps, sink, seconds);
  measure<__nv_bfloat16>("bf16", sms, warps, sink, seconds);
  measure<float>("tf32", sms, warps, sink, seconds);
  const cudaError_t err = cudaDeviceSynchronize();
  cudaFree(sink);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  return 0;
}
