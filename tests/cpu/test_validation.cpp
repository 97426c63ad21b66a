// Argument checks of the public API. They run before any GPU is touched, so
// they pass on machines without one; the pointers below are never dereferenced.
#include <gtest/gtest.h>
#include <tessel/tessel.hpp>

#include <limits>

#include "harness/gpu.hpp"

namespace {

using tessel::Op;
using tessel::SgemmArgs;
using tessel::StatusCode;

float* fake(uintptr_t addr) { return reinterpret_cast<float*>(addr); }

// op(A) 4 x 6, op(B) 6 x 5, C 4 x 5, all NN and tight.
SgemmArgs good() { return {Op::N, Op::N, 4, 5, 6, 1.0f, fake(0x1000), 6, fake(0x2000), 5, 0.0f, fake(0x3000), 5}; }

void expect_invalid(const SgemmArgs& a, const std::string& needle) {
  const tessel::Status s = tessel::sgemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << "message: " << s.message() << "\nexpected: " << needle;
  // Every named kernel checks the same way.
  for (const auto& k : tessel::kernels()) EXPECT_EQ(tessel::run_kernel(k.name, a).code(), StatusCode::kInvalidArgument);
}

TEST(Validation, NegativeSizesAreNamed) {
  SgemmArgs a = good();
  a.m = -1;
  expect_invalid(a, "m = -1 must be >= 0");
  a = good();
  a.n = -7;
  expect_invalid(a, "n = -7 must be >= 0");
  a = good();
  a.k = -2;
  expect_invalid(a, "k = -2 must be >= 0");
}

TEST(Validation, LeadingDimensionsFollowTheLayout) {
  SgemmArgs a = good();
  a.lda = 5;  // A is m x k = 4 x 6
  expect_invalid(a, "lda = 5 is too small: A is stored m x k (opA = N), so lda must be >= max(1, k) = 6");
  a = good();
  a.opA = Op::T, a.lda = 3;  // A is stored k x m = 6 x 4
  expect_invalid(a, "lda = 3 is too small: A is stored k x m (opA = T), so lda must be >= max(1, m) = 4");
  a.lda = 4;  // legal now: whatever else is said (no GPU, fake pointers), lda is not blamed
  EXPECT_EQ(tessel::sgemm(a).message().find("lda"), std::string::npos) << tessel::sgemm(a).message();
  a = good();
  a.ldb = 4;  // B is k x n = 6 x 5
  expect_invalid(a, "ldb = 4 is too small: B is stored k x n (opB = N), so ldb must be >= max(1, n) = 5");
  a = good();
  a.opB = Op::T, a.ldb = 5;  // B is stored n x k = 5 x 6
  expect_invalid(a, "ldb = 5 is too small: B is stored n x k (opB = T), so ldb must be >= max(1, k) = 6");
  a = good();
  a.ldc = 4;
  expect_invalid(a, "ldc = 4 is too small: C is stored m x n, so ldc must be >= max(1, n) = 5");
  a = good();
  a.k = 0, a.lda = 0;  // BLAS: at least 1 even with no columns
  expect_invalid(a, "lda = 0 is too small");
}

TEST(Validation, ExtentOverflowingInt64IsRefused) {
  SgemmArgs a = good();
  a.m = int64_t(1) << 40, a.lda = int64_t(1) << 40;
  expect_invalid(a, "overflows 64-bit indexing");
}

TEST(Validation, NullPointersWithWork) {
  SgemmArgs a = good();
  a.C = nullptr;
  expect_invalid(a, "C is null");
  a = good();
  a.A = nullptr;
  expect_invalid(a, "A is null");
  a = good();
  a.B = nullptr;
  expect_invalid(a, "B is null");
}

TEST(Validation, NullOperandsAllowedWhenUnused) {
  // k == 0 or alpha == 0: A and B are not read (BLAS), so null is legal.
  for (auto change : {+[](SgemmArgs& a) { a.k = 0, a.lda = 1; }, +[](SgemmArgs& a) { a.alpha = 0.0f; }}) {
    SgemmArgs a = good();
    change(a);
    a.A = nullptr, a.B = nullptr;
    const tessel::Status s = tessel::sgemm(a);
    EXPECT_EQ(s.message().find("is null"), std::string::npos) << s.message();
  }
}

TEST(Validation, BadOpIsNamed) {
  SgemmArgs a = good();
  a.opA = static_cast<Op>(7);
  expect_invalid(a, "opA = 7 is neither Op::N nor Op::T");
  a = good();
  a.opB = static_cast<Op>(-1);
  expect_invalid(a, "opB = -1");
}

TEST(Validation, EmptyProductsAreNoOpsEvenWithoutPointers) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{0, 5}, {4, 0}, {0, 0}}) {
    SgemmArgs a{Op::N, Op::N, m, n, 6, 1.0f, nullptr, 6, nullptr, std::max<int64_t>(1, n), 0.0f, nullptr, std::max<int64_t>(1, n)};
    EXPECT_TRUE(tessel::sgemm(a).ok()) << tessel::sgemm(a).message();
    EXPECT_TRUE(tessel::run_kernel("naive", a).ok());
  }
}

TEST(Validation, UnknownKernelIsNamedBeforeOtherChecks) {
  SgemmArgs a = good();
  a.m = -1;
  const tessel::Status s = tessel::run_kernel("blocktile_9000", a);
  EXPECT_EQ(s.code(), StatusCode::kUnknownKernel);
  EXPECT_NE(s.message().find("'blocktile_9000'"), std::string::npos) << s.message();
}

TEST(Validation, NoDeviceIsReported) {
  if (tessel::harness::gpu_available()) GTEST_SKIP() << "a GPU is visible";
  const tessel::Status s = tessel::sgemm(good());
  EXPECT_EQ(s.code(), StatusCode::kNoDevice);
  EXPECT_NE(s.message().find("no CUDA GPU is visible"), std::string::npos) << s.message();
  std::string name;
  EXPECT_EQ(tessel::select_kernel(good(), &name).code(), StatusCode::kNoDevice);
}

TEST(Validation, UnsupportedPrecisionIsNamed) {
  const tessel::SgemmArgs f32 = good();
  tessel::GemmArgs a = tessel::to_gemm(f32);
  a.precision = {tessel::DType::kF16, tessel::DType::kBF16, tessel::Compute::kF32};
  tessel::Status s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("precision (A/B f16, C bf16, compute f32) is not a supported combination"), std::string::npos)
      << s.message();
  a.precision = {tessel::DType::kF16, tessel::DType::kF16, tessel::Compute::kTF32};
  EXPECT_EQ(tessel::gemm(a).code(), StatusCode::kInvalidArgument);
  // Sizes are checked for every precision, before any GPU is looked for.
  a.precision = *tessel::parse_precision("bf16");
  a.lda = 0;
  s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lda = 0 is too small"), std::string::npos) << s.message();
}

TEST(Validation, StatusStrings) {
  EXPECT_STREQ(tessel::to_string(StatusCode::kSuccess), "success");
  EXPECT_STREQ(tessel::to_string(StatusCode::kInvalidArgument), "invalid argument");
  EXPECT_STREQ(tessel::to_string(tessel::DType::kF32), "f32");
  EXPECT_TRUE(tessel::Status().ok());
}

// The epilogue's arguments are checked with the rest, each named.
TEST(Validation, EpilogueArgumentsAreNamed) {
  auto expect = [](const tessel::GemmArgs& a, const std::string& needle) {
    const tessel::Status s = tessel::gemm(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << "message: " << s.message() << "\nexpected: " << needle;
  };
  tessel::GemmArgs a = tessel::to_gemm(good());
  a.precision = *tessel::parse_precision("bf16");
  a.epilogue.activation = tessel::Activation(17);
  expect(a, "epilogue.activation = 17 is not an Activation");
  a.epilogue = {};
  a.epilogue.bias = reinterpret_cast<const void*>(0x4001);  // inside a bf16 element
  expect(a, "epilogue.bias is not aligned to its 2-byte bf16 elements");
  a.epilogue = {};
  a.epilogue.col_scale = reinterpret_cast<const float*>(0x4002);
  expect(a, "epilogue.col_scale is not aligned to its 4-byte f32 elements");
  a.epilogue = {};
  a.epilogue.pre_activation = reinterpret_cast<void*>(0x5000), a.epilogue.ld_pre = 4;  // C is 4 x 5
  expect(a, "epilogue.ld_pre = 4 is too small");
  a.epilogue.pre_activation = nullptr;
  expect(a, "epilogue.ld_pre = 4 but epilogue.pre_activation is null");
}

}  // namespace


// FP8's per-tensor scales: for FP8 inputs only, and whole floats.
TEST(Validation, Fp8ScalesAreChecked) {
  tessel::GemmArgs a = tessel::to_gemm(good());
  a.precision = *tessel::parse_precision("bf16");
  const float* somewhere = reinterpret_cast<const float*>(0x4000);
  a.scale_a = somewhere;
  tessel::Status s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("scale_a is set but A and B are bf16"), std::string::npos) << s.message();
  a.precision = *tessel::parse_precision("e4m3:bf16");
  a.scale_a = nullptr, a.scale_b = reinterpret_cast<const float*>(0x4002);
  s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("scale_b is not aligned to its 4-byte f32 elements"), std::string::npos) << s.message();
  a.scale_b = nullptr;
  a.block_scales.a = somewhere;
  s = tessel::gemm(a);
  EXPECT_NE(s.message().find("block_scales needs both a and b"), std::string::npos) << s.message();
  a.block_scales.b = somewhere, a.block_scales.b_stride_k = -1;
  s = tessel::gemm(a);
  EXPECT_NE(s.message().find("block_scales.b_stride_k = -1 must be >= 0"), std::string::npos) << s.message();
  a.block_scales.b_stride_k = int64_t(1) << 40, a.k = 1024, a.lda = a.ldb = 1024;  // eight blocks along k
  s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("block_scales.a_stride_k / b_stride_k / b_stride_n = 0 / 1099511627776 / 0"),
            std::string::npos)
      << s.message();
  a.block_scales.b_stride_k = 1, a.block_scales.b_block_n = 64;
  s = tessel::gemm(a);
  EXPECT_NE(s.message().find("block_scales.b_block_n = 64: B's scales cover 128 columns"), std::string::npos)
      << s.message();
  // A scale per column: a thread steps over 127 columns of b_stride_n in 32-bit offsets.
  a.block_scales.b_block_n = 1, a.block_scales.b_stride_n = int64_t(1) << 25;
  s = tessel::gemm(a);
  EXPECT_NE(s.message().find("b_stride_n = 0 / 1 / 33554432"), std::string::npos) << s.message();
  a.block_scales.b_block_n = 128, a.block_scales.b_stride_n = 0;
  a.k = 6, a.lda = 6, a.ldb = 5;
  a.scale_a = somewhere;
  s = tessel::gemm(a);
  EXPECT_NE(s.message().find("block_scales and scale_a / scale_b are exclusive"), std::string::npos) << s.message();
  a.scale_a = nullptr, a.precision = *tessel::parse_precision("f16");
  s = tessel::gemm(a);
  EXPECT_NE(s.message().find("block_scales is set but A and B are f16"), std::string::npos) << s.message();
  EXPECT_EQ(tessel::size_of(tessel::DType::kE4M3), 1u);
  EXPECT_STREQ(tessel::to_string(tessel::DType::kE5M2), "e5m2");
}

namespace {

// A strided batch of good()'s GEMM, stacked.
tessel::GemmArgs batch_of(int64_t batch) {
  tessel::GemmArgs a = tessel::to_gemm(good());
  a.batch = batch, a.stride_a = 4 * 6, a.stride_b = 6 * 5, a.stride_c = 4 * 5;
  return a;
}

void expect_invalid_gemm(const tessel::GemmArgs& a, const std::string& needle) {
  const tessel::Status s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << "message: " << s.message() << "\nexpected: " << needle;
}

TEST(Validation, BatchCountAndStridesAreNamed) {
  tessel::GemmArgs a = batch_of(-1);
  expect_invalid_gemm(a, "batch = -1 must be >= 0");
  a = batch_of(3);
  a.stride_b = -5;
  expect_invalid_gemm(a, "stride_b = -5 must be >= 0");
  a = batch_of(3);
  a.stride_a = std::numeric_limits<int64_t>::max() / 2;
  expect_invalid_gemm(a, "stride_a = ");
  // batch 0: nothing to do, even with null pointers.
  a = batch_of(0);
  a.A = a.B = a.C = nullptr;
  EXPECT_TRUE(tessel::gemm(a).ok()) << tessel::gemm(a).message();
}

TEST(Validation, BatchOutputsMustNotOverlap) {
  tessel::GemmArgs a = batch_of(3);
  a.stride_c = 19;  // C is 4 x 5 with ldc 5: the next matrix starts inside this one
  expect_invalid_gemm(a, "stride_c = 19 makes the batch's C matrices overlap");
  a.stride_c = 0;
  expect_invalid_gemm(a, "stride_c = 0 makes the batch's C matrices overlap");
  // Side by side in each row: ldc spans the three matrices.
  a.ldc = 15, a.stride_c = 5;
  EXPECT_EQ(tessel::gemm(a).message().find("overlap"), std::string::npos) << tessel::gemm(a).message();
  a.ldc = 14;  // the third matrix's rows run into the next row
  expect_invalid_gemm(a, "stride_c = 5 makes the batch's C matrices overlap");
  // Shared operands (stride 0) are fine.
  a = batch_of(3);
  a.stride_a = a.stride_b = 0;
  EXPECT_EQ(tessel::gemm(a).message().find("overlap"), std::string::npos) << tessel::gemm(a).message();
}

TEST(Validation, BatchRefusesPerCallExtras) {
  tessel::GemmArgs a = batch_of(2);
  a.epilogue.pre_activation = fake(0x5000), a.epilogue.ld_pre = 5;
  expect_invalid_gemm(a, "epilogue.pre_activation with batch = 2");
  a = batch_of(2);
  a.precision = {tessel::DType::kE4M3, tessel::DType::kBF16, tessel::Compute::kF32};
  a.block_scales = {reinterpret_cast<const float*>(0x6000), 1, 1, reinterpret_cast<const float*>(0x7000), 1, 1};
  expect_invalid_gemm(a, "block_scales with batch = 2");
}

}  // namespace

namespace {

TEST(Validation, PointerArraysAreChecked) {
  tessel::GemmArgs a = batch_of(3);
  a.stride_a = a.stride_b = a.stride_c = 0;
  a.a_array = reinterpret_cast<const void* const*>(0xa000);
  expect_invalid_gemm(a, "b_array is null: a pointer-array batch sets a_array, b_array and c_array");
  a.b_array = reinterpret_cast<const void* const*>(0xb000), a.c_array = reinterpret_cast<void* const*>(0xc004);
  expect_invalid_gemm(a, "c_array is not aligned to its 8-byte pointers");
  a.c_array = reinterpret_cast<void* const*>(0xc000);
  expect_invalid_gemm(a, "A, B or C is set with a_array, b_array, c_array");
  a.A = a.B = a.C = nullptr, a.stride_b = 30;
  expect_invalid_gemm(a, "stride_a, stride_b or stride_c is set with a pointer-array batch");
  a.stride_b = 0, a.epilogue.activation = tessel::Activation::kRelu;
  expect_invalid_gemm(a, "an epilogue with a pointer-array batch");
  a.epilogue = {}, a.group_offsets = reinterpret_cast<const int64_t*>(0x8000);
  expect_invalid_gemm(a, "group_offsets or group_counts with a pointer-array batch");
  // Null A, B, C are what the arrays ask for: nothing to do for batch 0 or m = 0.
  a.group_offsets = nullptr, a.batch = 0;
  EXPECT_TRUE(tessel::gemm(a).ok()) << tessel::gemm(a).message();
}

TEST(Validation, ProblemsAreChecked) {
  tessel::GemmArgs a = tessel::to_gemm(good());
  a.batch = 3, a.problems = reinterpret_cast<const tessel::GemmProblem*>(0x9004);
  expect_invalid_gemm(a, "problems is not aligned to its 8-byte GemmProblem values");
  a.problems = reinterpret_cast<const tessel::GemmProblem*>(0x9000);
  expect_invalid_gemm(a, "A, B or C is set with problems");
  a.A = a.B = a.C = nullptr, a.stride_c = 8;
  expect_invalid_gemm(a, "stride_a, stride_b or stride_c is set with problems");
  a.stride_c = 0, a.group_offsets = reinterpret_cast<const int64_t*>(0x8000);
  expect_invalid_gemm(a, "problems with group_offsets, group_counts or pointer arrays");
  a.group_offsets = nullptr, a.epilogue.activation = tessel::Activation::kRelu;
  expect_invalid_gemm(a, "an epilogue with problems");
  a.epilogue = {}, a.m = -1;
  expect_invalid_gemm(a, "m = -1 must be >= 0");
  // The call's leading dimensions are not read: any value passes; nothing to do for batch 0.
  a.m = 4, a.lda = a.ldb = a.ldc = 1, a.batch = 0;
  EXPECT_TRUE(tessel::gemm(a).ok()) << tessel::gemm(a).message();
}

TEST(Validation, GroupedGemmsAreChecked) {
  tessel::GemmArgs a = tessel::to_gemm(good());
  a.batch = 3, a.stride_b = 30;
  a.group_offsets = reinterpret_cast<const int64_t*>(0x8000);
  a.opA = Op::T, a.lda = 4;
  expect_invalid_gemm(a, "group_offsets is set but opA = T");
  a.opA = Op::N, a.lda = 6, a.stride_c = 20;
  expect_invalid_gemm(a, "group_offsets is set but stride_a = 0, stride_c = 20");
  a.stride_c = 0, a.group_offsets = reinterpret_cast<const int64_t*>(0x8004);
  expect_invalid_gemm(a, "group_offsets is not aligned");
  a.group_offsets = reinterpret_cast<const int64_t*>(0x8000), a.epilogue.activation = tessel::Activation::kRelu;
  expect_invalid_gemm(a, "group_offsets with an epilogue or block scales");
  // Masked: groups of m / batch rows each.
  a.epilogue = {}, a.group_counts = reinterpret_cast<const int64_t*>(0x9000);
  expect_invalid_gemm(a, "group_offsets and group_counts are both set");
  a.group_offsets = nullptr;
  expect_invalid_gemm(a, "group_counts is set but m = 4 is not a multiple of batch = 3");
  a.batch = 2, a.opA = Op::T, a.lda = 4;
  expect_invalid_gemm(a, "group_counts is set but opA = T");
  a.opA = Op::N, a.lda = 6, a.group_counts = reinterpret_cast<const int64_t*>(0x9002);
  expect_invalid_gemm(a, "group_counts is not aligned");
  a.group_counts = reinterpret_cast<const int64_t*>(0x9000), a.expected_group_rows = -1;
  expect_invalid_gemm(a, "expected_group_rows = -1");
  a.group_counts = nullptr, a.group_offsets = reinterpret_cast<const int64_t*>(0x8000), a.expected_group_rows = 2;
  expect_invalid_gemm(a, "expected_group_rows = 2: a masked grouped GEMM's hint");
}

}  // namespace
