// Verification harness: one GEMM case against cuBLAS (every element) and
// against an fp64 CPU reference (every element for small cases, a sample
// for large ones), with poisoned outputs and guarded padding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/gpu.hpp"
#include "harness/shapes.hpp"

namespace tessel::harness {

// The epilogue of a case (tessel::Epilogue); the case makes its vectors.
struct EpilogueSpec {
  Activation activation = Activation::kNone;
  enum class Bias { kNone, kPerColumn, kPerRow } bias = Bias::kNone;
  // Output scales in [0.5, 1.5): a row and a column scale, or a column scale alone.
  enum class Scales { kNone, kRowsAndColumns, kColumns } scales = Scales::kNone;
  bool pre_activation = false;  // act's input to a second, guarded output as well
  bool any() const {
    return activation != Activation::kNone || bias != Bias::kNone || scales != Scales::kNone || pre_activation;
  }
  bool row_scale() const { return scales == Scales::kRowsAndColumns; }
  bool col_scale() const { return scales != Scales::kNone; }
};
// "none", or terms joined by '+': bias | rowbias, relu | gelu | gelu_tanh | silu, scale | colscale, pre.
std::optional<EpilogueSpec> parse_epilogue(const std::string& text);
std::string to_string(const EpilogueSpec& e);
// act in fp64, as the reference applies it.
double activate(double v, Activation act);

struct VerifyCase {
  std::string kernel;        // a registered name, or kAuto
  Op opA = Op::N, opB = Op::N;
  Shape shape;
  float alpha = 1.0f, beta = 0.0f;
  int64_t ld_pad = 0;        // every leading dimension is its minimum, rounded up to
  uint64_t seed = 1;         //   a multiple of ld_align, plus ld_pad
  int64_t ld_align = 1;
  Precision precision;       // types of A/B and C, and the compute mode
  int64_t offset = 0;        // A, B and C start this many elements past their allocation (guarded)
  cudaStream_t stream = nullptr;
  bool pending_error = false;  // an unrelated CUDA error is left pending just before the call
  EpilogueSpec epilogue = {};
  bool block_scales = false;   // FP8: block scales (powers of two, row- or column-major by seed) instead of per-tensor ones
  int64_t b_block_n = 128;     // with block_scales: B's scales per 128 columns (128 x 128 blocks) or per column (1)
};

struct VerifyResult {
  Status status;             // what tessel returned
  double tolerance = 0;
  // Errors are relative to the larger of ||D|| and ||alpha op(A) op(B)||: rounding
  // errors scale with the product, and beta * C may cancel most of it in D
  // (a 1 x 1 result of -0.75 ab + 1.25 c can be far smaller than ab).
  double err_vs_cublas = 0;  // ||D - D_cublas|| / that, over all m x n elements
  double err_vs_fp64 = 0;    // the same against the fp64 reference on the checked elements
  double cublas_vs_fp64 = 0; // the reference's own error, as a sanity check of the reference
  int64_t fp64_checked = 0;  // elements compared with the fp64 reference
  int64_t nonfinite = 0;     // NaN/Inf in D where the reference is finite
  int64_t clobbered = 0;     // elements outside C's m x n (padding, guards) that changed, or any of A or B;
                             // for a call that returned an error, any element of C
  bool cublas_off = false;   // cuBLAS disagreed with fp64 where tessel did not (then every element is
                             // checked against fp64, where that is at most kRecheckFp64Macs)
  bool passed = false;
  std::string reason;        // why it failed; empty when passed
};

inline constexpr int64_t kGuard = 64;                  // poisoned elements past each array's end
inline constexpr uint32_t kUnwrittenBits = 0x7fc00000; // C's elements when beta == 0: NaN, must be overwritten
inline constexpr uint32_t kGuardBits = 0x7fc0beef;     // padding and guards: NaN, must stay as they are
float from_bits(uint32_t bits);
// rows x cols row-major with leading dimension ld, plus kGuard trailing elements:
// random inside (values `type` holds exactly), kGuardBits NaN in the padding columns and the guard.
std::vector<float> make_operand(int64_t rows, int64_t cols, int64_t ld, uint64_t seed, DType type);

// The relative-norm tolerance for a precision and a reduction length k.
double tolerance(const Precision& precision, int64_t k);

// Cases with at most this many multiply-adds are checked against fp64 on every element.
inline constexpr int64_t kFullFp64Macs = int64_t(1) << 24;
inline constexpr int kFp64Samples = 512;
inline constexpr int64_t kRecheckFp64Macs = int64_t(1) << 30;

// Runs the case and checks it; a call tessel refuses must leave A, B and C as
// they were (reason set, passed false: the caller decides whether a refusal is
// expected).
// Device arrays are kept per host thread between cases (and grown as needed);
// release_case_arrays() frees this thread's.
VerifyResult verify_case(Cublas& cublas, const VerifyCase& c);
void release_case_arrays();

// D against the reference R over the m x n elements of two row-major arrays with leading dimension ld.
struct Comparison {
  double rel_err = 0;     // ||D - R|| / ||R|| (the absolute norm when R is all zeros)
  double diff2 = 0;       // ||D - R||^2
  double ref2 = 0;        // ||R||^2
  int64_t nonfinite = 0;  // NaN/Inf in D where R is finite
};
Comparison compare(const std::vector<float>& D, const std::vector<float>& R, int64_t m, int64_t n, int64_t ld);
// sqrt(diff2 / ref2): a relative norm error from squared norms (the absolute one where ref2 is 0).
double relative(double diff2, double ref2);

}  // namespace tessel::harness
