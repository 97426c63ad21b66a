// Verification of a strided or pointer-array batch (GemmArgs::batch): every matrix against
// cuBLAS's strided-batched GEMM (a call per matrix for FP8) and a sample of
// each against fp64, with guard elements between the matrices that must stay
// as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/verify.hpp"

namespace tessel::harness {

struct BatchCase {
  std::string kernel = kAuto;
  Op opA = Op::N, opB = Op::N;
  Shape shape;                 // of each GEMM
  int64_t batch = 2;
  Precision precision;
  float alpha = 1.0f, beta = 0.0f;
  uint64_t seed = 1;
  bool share_b = false;        // stride_b = 0: one B for every GEMM (a weight shared by the batch)
  bool side_by_side = false;   // C's matrices side by side in each row (ldc spans them); else stacked
  int64_t offset = 0;          // A, B and C start this many elements into their buffers
  // A pointer-array batch (GemmArgs::a_array ...) over the same matrices, the
  // arrays naming them in reverse order (each pointer is read, none implied).
  bool pointers = false;
};

// Each operand's matrices lie kBatchGap guard elements apart; leading
// dimensions are in 16-byte units. The result's errors are the worst matrix's.
inline constexpr int64_t kBatchGap = 32;
VerifyResult verify_batch(Cublas& cublas, const BatchCase& c);

// A grouped GEMM (GemmArgs::group_offsets): groups of rows of one A (op N)
// and C with these row counts (0 allowed), each with its own B (or one
// shared), and `tail` rows after the last group that no group covers and
// that must stay as they are; against cuBLAS group by group and fp64.
// Masked (GemmArgs::group_counts): groups of `capacity` rows each, `rows`
// the counts handed to the call (any value: the call clamps them to
// 0..capacity); the rows past each group's count must stay as they are.
struct GroupedCase {
  std::string kernel = kAuto;
  Op opB = Op::T;
  std::vector<int64_t> rows;  // per group
  int64_t n = 0, k = 0, tail = 0;
  Precision precision;
  float alpha = 1.0f, beta = 0.0f;
  uint64_t seed = 1;
  bool share_b = false;
  int64_t capacity = 0;  // > 0: masked
};
VerifyResult verify_grouped(Cublas& cublas, const GroupedCase& c);

// A grouped GEMM of problems (GemmArgs::problems): each of `sizes` (zeros
// allowed) with its own A, B and C, kBatchGap guard elements apart in one
// buffer per operand, rows in 16-byte units except for the problems named in
// odd_a (A's rows one element longer: the slow path) and odd_c (C's: direct
// stores); the call's bounds the largest sizes, or `bounds` where given
// (larger sizes are clamped, and what lies past the bounds must stay as it
// is). Against cuBLAS problem by problem and fp64.
struct ProblemsCase {
  std::string kernel = kAuto;
  Op opA = Op::N, opB = Op::T;
  std::vector<Shape> sizes;
  std::optional<Shape> bounds;
  Precision precision;
  float alpha = 1.0f, beta = 0.0f;
  uint64_t seed = 1;
  std::vector<int64_t> odd_a, odd_c;
};
VerifyResult verify_problems(Cublas& cublas, const ProblemsCase& c);
// The same problems with the edges added: an empty problem of each size, A's
// rows of the first and C's of the second one element longer, bounds 3 below
// the largest m and n, alpha = -0.75, beta = 1.25, the next seed.
ProblemsCase with_edges(ProblemsCase c);

}  // namespace tessel::harness
