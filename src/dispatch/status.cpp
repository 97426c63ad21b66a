#include <tessel/tessel.hpp>

#include <algorithm>

namespace tessel {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kSuccess: return "success";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kUnknownKernel: return "unknown kernel";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kNoDevice: return "no CUDA device";
    case StatusCode::kCudaError: return "CUDA error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown status";
}

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kE4M3: return "e4m3";
    case DType::kE5M2: return "e5m2";
  }
  return "unknown";
}

const char* to_string(Activation act) {
  switch (act) {
    case Activation::kNone: return "none";
    case Activation::kRelu: return "relu";
    case Activation::kGelu: return "gelu";
    case Activation::kGeluTanh: return "gelu_tanh";
    case Activation::kSilu: return "silu";
  }
  return "unknown";
}

size_t size_of(DType dtype) { return dtype == DType::kF32 ? 4 : is_fp8(dtype) ? 1 : 2; }
bool is_fp8(DType dtype) { return dtype == DType::kE4M3 || dtype == DType::kE5M2; }

const std::vector<Precision>& supported_precisions() {
  static const std::vector<Precision> all = {
      {DType::kF32, DType::kF32, Compute::kF32},  {DType::kF32, DType::kF32, Compute::kTF32},
      {DType::kF16, DType::kF16, Compute::kF32},  {DType::kF16, DType::kF32, Compute::kF32},
      {DType::kBF16, DType::kBF16, Compute::kF32}, {DType::kBF16, DType::kF32, Compute::kF32},
      {DType::kE4M3, DType::kBF16, Compute::kF32}, {DType::kE4M3, DType::kF16, Compute::kF32},
      {DType::kE4M3, DType::kF32, Compute::kF32},  {DType::kE5M2, DType::kBF16, Compute::kF32},
      {DType::kE5M2, DType::kF16, Compute::kF32},  {DType::kE5M2, DType::kF32, Compute::kF32},
      {DType::kE4M3, DType::kBF16, Compute::kF32, DType::kE5M2},
      {DType::kE4M3, DType::kF16, Compute::kF32, DType::kE5M2},
      {DType::kE4M3, DType::kF32, Compute::kF32, DType::kE5M2},
      {DType::kE5M2, DType::kBF16, Compute::kF32, DType::kE4M3},
      {DType::kE5M2, DType::kF16, Compute::kF32, DType::kE4M3},
      {DType::kE5M2, DType::kF32, Compute::kF32, DType::kE4M3}};
  return all;
}

bool supported(const Precision& p) {
  const auto& all = supported_precisions();
  return std::find(all.begin(), all.end(), p) != all.end();
}

std::string supported_precision_names() {
  std::string s;
  for (const Precision& p : supported_precisions()) s += (s.empty() ? "" : ", ") + to_string(p);
  return s;
}

std::string to_string(const Precision& p) {
  if (p.compute == Compute::kTF32) return p.ab == DType::kF32 && p.c == DType::kF32 ? "tf32" : "unsupported";
  std::string s = to_string(p.ab);
  if (p.b_type() != p.ab) s += std::string("x") + to_string(p.b_type());
  if (p.c != p.ab) s += std::string(":") + to_string(p.c);
  return s;
}

std::optional<Precision> parse_precision(std::string_view text) {
  for (const Precision& p : supported_precisions()) {
    if (to_string(p) == text) return p;
  }
  return std::nullopt;
}

GemmArgs to_gemm(const SgemmArgs& a) {
  GemmArgs g;
  g.opA = a.opA, g.opB = a.opB, g.m = a.m, g.n = a.n, g.k = a.k, g.alpha = a.alpha;
  g.A = a.A, g.lda = a.lda, g.B = a.B, g.ldb = a.ldb, g.beta = a.beta, g.C = a.C, g.ldc = a.ldc;
  return g;
}

}  // namespace tessel
