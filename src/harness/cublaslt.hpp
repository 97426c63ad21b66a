// cuBLASLt with its own fused epilogue, as a benchmark reference for calls
// with an epilogue: bias per column (nn.Linear's) with ReLU or GELU (cuBLASLt's
// GELU is the tanh form), on tessel's row-major arguments through the
// transpose identity. Set up once per call shape (descriptors, the heuristic's
// algorithm, a workspace); each run is one cublasLtMatmul.
#pragma once

#include <cublasLt.h>

#include <string>

#include "harness/gpu.hpp"
#include "harness/verify.hpp"

namespace tessel::harness {

class CublasLtEpilogue {
 public:
  // Whether cuBLASLt fuses this epilogue (why not, if not).
  static bool takes(const EpilogueSpec& e, std::string* why = nullptr);
  // For calls whose epilogue takes() accepts; the pointers of `a` are those each run uses.
  explicit CublasLtEpilogue(const GemmArgs& a);
  ~CublasLtEpilogue();
  CublasLtEpilogue(const CublasLtEpilogue&) = delete;
  CublasLtEpilogue& operator=(const CublasLtEpilogue&) = delete;
  void run(cudaStream_t stream = nullptr);
  static std::string description(const Precision& p);

 private:
  GemmArgs args_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  DeviceBuffer<uint8_t> workspace_;
};

}  // namespace tessel::harness
