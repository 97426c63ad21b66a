// tessel from an outside project: list the kernels, then compute
// C = A * B^T (row-major) on the GPU with auto-dispatch and check one element.
#include <cuda_runtime.h>
#include <tessel/tessel.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  for (const tessel::KernelInfo& k : tessel::kernels()) {
    std::printf("%02d %-10s %s\n", k.ladder_step, k.name.c_str(), k.summary.c_str());
  }

  const int64_t m = 300, n = 200, k = 100;  // op(A) m x k, op(B) = B^T with B stored n x k
  std::vector<float> A(m * k), B(n * k), C(m * n);
  for (size_t i = 0; i < A.size(); ++i) A[i] = std::sin(0.1f * i);
  for (size_t i = 0; i < B.size(); ++i) B[i] = std::cos(0.3f * i);

  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  if (cudaMalloc(&dA, A.size() * 4) != cudaSuccess || cudaMalloc(&dB, B.size() * 4) != cudaSuccess ||
      cudaMalloc(&dC, C.size() * 4) != cudaSuccess) {
    std::printf("no usable CUDA GPU here\n");
    return 1;
  }
  cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice);

  const tessel::Status s =
      tessel::sgemm(tessel::Op::N, tessel::Op::T, m, n, k, 1.0f, dA, k, dB, k, 0.0f, dC, n);
  if (!s.ok()) {
    std::printf("tessel::sgemm failed: %s\n", s.message().c_str());
    return 1;
  }
  cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost);
  double want = 0;
  for (int64_t q = 0; q < k; ++q) want += double(A[7 * k + q]) * B[5 * k + q];
  std::printf("C(7, 5) = %.6f, expected %.6f\n", C[7 * n + 5], want);
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
  return std::fabs(C[7 * n + 5] - want) < 1e-3 * (1 + std::fabs(want)) ? 0 : 1;
}
