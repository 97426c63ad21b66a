#include "harness/cublaslt.hpp"

#include <stdexcept>
#include <utility>

namespace tessel::harness {
namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

void check_lt(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLASLt: ") + what + " failed: " + cublasGetStatusString(status));
  }
}

cublasLtEpilogue_t lt_epilogue(const Epilogue& e) {
  const bool bias = e.bias != nullptr;
  switch (e.activation) {
    case Activation::kRelu: return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    case Activation::kGeluTanh: return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    default: return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

}  // namespace

bool CublasLt::takes(const EpilogueSpec& e, std::string* why) {
  const char* no = e.bias == EpilogueSpec::Bias::kPerRow ? "a bias per row"
                   : e.col_scale()                       ? "output scales"
                   : e.pre_activation                    ? "the pre-activation output"
                   : e.activation == Activation::kGelu   ? "GELU in its erf form (its GELU is the tanh form)"
                   : e.activation == Activation::kSilu   ? "SiLU"
                                                         : nullptr;
  if (no && why) *why = std::string("cuBLASLt fuses no ") + no;
  return no == nullptr;
}

std::string CublasLt::description(const Precision& p, bool block_scales, int64_t b_block_n) {
  if (is_fp8(p.ab)) {
    const std::string blocks = b_block_n == 1 ? "VEC128 x VEC128" : "VEC128 x BLK128x128";
    return std::string("cuBLASLt cublasLtMatmul, A ") + to_string(p.ab) + ", B " + to_string(p.b_type()) + ", C " +
           to_string(p.c) +
           (block_scales ? ", " + blocks + " block scales (D column-major)" : ", per-tensor scale pointers") +
           ", CUBLAS_COMPUTE_32F (no fast accumulation)";
  }
  return std::string("cuBLASLt cublasLtMatmul with its fused epilogue (bias, ReLU, GELU tanh form), ") +
         (p.compute == Compute::kTF32 ? "CUBLAS_COMPUTE_32F_FAST_TF32" : "CUBLAS_COMPUTE_32F");
}

// Row-major D = op(A) op(B) is column-major D^T = op(B)^T op(A)^T: cuBLASLt's
// A is tessel's B and its B tessel's A, each op kept, m and n swapped; the
// bias, one value per row of D^T, is one per column of D.
CublasLt::CublasLt(const GemmArgs& a) : args_(a), workspace_(kWorkspaceBytes) {
  const cublasComputeType_t compute =
      a.precision.compute == Compute::kTF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  check_lt(cublasLtCreate(&handle_), "cublasLtCreate");
  check_lt(cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = a.opB == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T, tb = a.opA == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
  check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
  if (is_fp8(a.precision.ab) && (a.opA != Op::N || a.opB != Op::T)) {
    throw std::runtime_error("cuBLASLt: FP8 takes op pair N, T only");
  }
  if (is_fp8(a.precision.ab) && a.block_scales.any()) {
    // Block scales: cuBLASLt's 1x128 blocks (VEC128) are on its A and 128x128 (BLK128x128, or VEC128) on its B, so
    // its A is tessel's A here and D comes out column-major (m x n, ld m): the same work, timed only
    // (with op pair N, T the transposes stay T, N). Its scale tensors are its own (ones), sized for
    // either layout.
    const int64_t kb = (a.k + 127) / 128 + 4;
    block_a_ = DeviceBuffer<float>(std::vector<float>(size_t((a.m + 128) * kb), 1.0f));
    const bool columns = a.block_scales.b_block_n == 1;  // B's scales per column and 128 of k, as A's per row
    const int64_t b_scales = (columns ? a.n + 128 : (a.n + 127) / 128 + 4) * kb;
    block_b_ = DeviceBuffer<float>(std::vector<float>(size_t(b_scales), 1.0f));
    const cublasLtMatmulMatrixScale_t vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
                                      blk = columns ? vec : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &vec, sizeof vec), "A_SCALE_MODE");
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &blk, sizeof blk), "B_SCALE_MODE");
    const float *sa = block_a_.get(), *sb = block_b_.get();
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa), "A_SCALE");
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb), "B_SCALE");
    check_lt(cublasLtMatrixLayoutCreate(&a_, cuda_type(a.precision.ab), a.k, a.m, a.lda), "layout A");
    check_lt(cublasLtMatrixLayoutCreate(&b_, cuda_type(a.precision.b_type()), a.k, a.n, a.ldb), "layout B");
    check_lt(cublasLtMatrixLayoutCreate(&c_, cuda_type(a.precision.c), a.m, a.n, a.m), "layout C");
    lt_a_ = a.A, lt_b_ = a.B;
    choose_algorithm();
    return;
  }
  lt_a_ = a.B, lt_b_ = a.A;
  if (is_fp8(a.precision.ab)) {  // its A is tessel's B: the scales swap too
    for (auto [attribute, scale] : {std::pair{CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a.scale_b},
                                    std::pair{CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, a.scale_a}}) {
      if (scale) check_lt(cublasLtMatmulDescSetAttribute(op_, attribute, &scale, sizeof scale), "SCALE_POINTER");
    }
  }
  const cublasLtEpilogue_t epilogue = lt_epilogue(a.epilogue);
  check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), "EPILOGUE");
  if (a.epilogue.bias) {
    const void* bias = a.epilogue.bias;
    const cudaDataType_t bias_type = cuda_type(a.precision.c);
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), "BIAS_POINTER");
    check_lt(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type),
             "BIAS_DATA_TYPE");
  }
  // Column-major shapes of what cuBLASLt reads: its A (tessel's B) is n x k for op N (stored k x n
  // for op T), its B (tessel's A) k x m (stored m x k for op T), D^T n x m.
  const cudaDataType_t at = cuda_type(a.precision.ab), bt = cuda_type(a.precision.b_type());
  const cudaDataType_t c = cuda_type(a.precision.c);
  const bool bn = a.opB == Op::N, an = a.opA == Op::N;
  check_lt(cublasLtMatrixLayoutCreate(&a_, bt, bn ? a.n : a.k, bn ? a.k : a.n, a.ldb), "layout A");
  check_lt(cublasLtMatrixLayoutCreate(&b_, at, an ? a.k : a.m, an ? a.m : a.k, a.lda), "layout B");
  check_lt(cublasLtMatrixLayoutCreate(&c_, c, a.n, a.m, a.ldc), "layout C");
  choose_algorithm();
}

void CublasLt::choose_algorithm() {
  cublasLtMatmulPreference_t preference = nullptr;
  check_lt(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const size_t bytes = kWorkspaceBytes;
  check_lt(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
                                                sizeof bytes),
           "MAX_WORKSPACE_BYTES");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t heuristic =
      cublasLtMatmulAlgoGetHeuristic(handle_, op_, a_, b_, c_, c_, preference, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  check_lt(heuristic, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt: no algorithm for this call and epilogue");
  algo_ = result.algo;
}

CublasLt::~CublasLt() {
  for (cublasLtMatrixLayout_t l : {a_, b_, c_}) {
    if (l) cublasLtMatrixLayoutDestroy(l);
  }
  if (op_) cublasLtMatmulDescDestroy(op_);
  if (handle_) cublasLtDestroy(handle_);
}

void CublasLt::run(cudaStream_t stream) {
  const GemmArgs& a = args_;
  check_lt(cublasLtMatmul(handle_, op_, &a.alpha, lt_a_, a_, lt_b_, b_, &a.beta, a.C, c_, a.C, c_, &algo_,
                          workspace_.get(), kWorkspaceBytes, stream),
           "cublasLtMatmul");
}

}  // namespace tessel::harness
