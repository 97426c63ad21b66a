// cuBLASLt as a benchmark reference: for calls with an epilogue, its own
// fused one (bias per column, nn.Linear's, with ReLU or GELU; cuBLASLt's
// GELU is the tanh form); for FP8 inputs, its FP8 GEMM with the per-tensor
// scales (A and B scale pointers) or its 1x128 x 128x128 block scales,
// which takes op pair N, T only (its "TN").
// On tessel's row-major arguments through the transpose identity. Set up
// once per call shape (descriptors, the heuristic's algorithm, a
// workspace); each run is one cublasLtMatmul.
#pragma once

#include <cublasLt.h>

#include <string>

#include "harness/gpu.hpp"
#include "harness/verify.hpp"

namespace tessel::harness {

class CublasLt {
 public:
  // Whether cuBLASLt has an FP8 GEMM for A and B of these types (e4m3 with either; not e5m2 x e5m2).
  static bool multiplies(const Precision& p) {
    return is_fp8(p.ab) && (p.ab == DType::kE4M3 || p.b_type() == DType::kE4M3);
  }
  // Whether cuBLASLt fuses this epilogue (why not, if not).
  static bool takes(const EpilogueSpec& e, std::string* why = nullptr);
  // For calls whose epilogue takes() accepts (FP8: op pair N, T); the pointers of `a` are those each run uses.
  explicit CublasLt(const GemmArgs& a);
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;
  void run(cudaStream_t stream = nullptr);
  static std::string description(const Precision& p, bool block_scales = false, int64_t b_block_n = 128);

 private:
  GemmArgs args_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  const void* lt_a_ = nullptr;  // what its A and B are: tessel's B and A (block scales: A and B)
  const void* lt_b_ = nullptr;
  DeviceBuffer<uint8_t> workspace_;
  DeviceBuffer<float> block_a_, block_b_;  // its own block scales (ones)
  void choose_algorithm();  // the heuristic's first algorithm for the descriptors
};

}  // namespace tessel::harness
