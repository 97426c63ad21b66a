// The fp64 reference on hand-computed cases, in every layout.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/reference.hpp"

namespace {

using tessel::Op;
using tessel::SgemmArgs;
using tessel::harness::reference_gemm;

// A = [1 2 3; 4 5 6], B = [7 8; 9 10; 11 12]: A B = [58 64; 139 154].
const std::vector<float> kA = {1, 2, 3, 4, 5, 6}, kAt = {1, 4, 2, 5, 3, 6};
const std::vector<float> kB = {7, 8, 9, 10, 11, 12}, kBt = {7, 9, 11, 8, 10, 12};

TEST(Reference, AllOpCombinations) {
  std::vector<float> C = {1, 2, 3, 4};
  for (Op opA : {Op::N, Op::T}) {
    for (Op opB : {Op::N, Op::T}) {
      SgemmArgs h{opA, opB, 2, 2, 3, 2.0f, opA == Op::N ? kA.data() : kAt.data(), opA == Op::N ? 3 : 2,
                  opB == Op::N ? kB.data() : kBt.data(), opB == Op::N ? 2 : 3, 0.5f, C.data(), 2};
      const auto D = reference_gemm(h);
      EXPECT_EQ(D, (std::vector<double>{2 * 58 + 0.5, 2 * 64 + 1.0, 2 * 139 + 1.5, 2 * 154 + 2.0}))
          << int(opA) << int(opB);
    }
  }
}

TEST(Reference, PaddedLeadingDimensions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> A = {1, 2, 3, nan, 4, 5, 6, nan};  // lda = 4
  const std::vector<float> B = {7, 8, nan, 9, 10, nan, 11, 12, nan};  // ldb = 3
  SgemmArgs h{Op::N, Op::N, 2, 2, 3, 1.0f, A.data(), 4, B.data(), 3, 0.0f, nullptr, 2};
  EXPECT_EQ(reference_gemm(h), (std::vector<double>{58, 64, 139, 154}));
}

TEST(Reference, BetaZeroDoesNotReadC) {
  std::vector<float> C(4, std::numeric_limits<float>::quiet_NaN());
  SgemmArgs h{Op::N, Op::N, 2, 2, 3, 1.0f, kA.data(), 3, kB.data(), 2, 0.0f, C.data(), 2};
  for (double d : reference_gemm(h)) EXPECT_TRUE(std::isfinite(d));
}

TEST(Reference, KZeroIsBetaTimesC) {
  std::vector<float> C = {1, -2, 3, -4};
  SgemmArgs h{Op::N, Op::N, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, -1.5f, C.data(), 2};
  EXPECT_EQ(reference_gemm(h), (std::vector<double>{-1.5, 3, -4.5, 6}));
}

TEST(Reference, TermSquaresDoNotCancel) {
  // (1, 2) . (3, -1.5) = 0, while its terms are 3 and -3: the rounding-error scale stays 2 * 3^2 (times alpha^2).
  const std::vector<float> A = {1, 2}, B = {3, -1.5f};
  SgemmArgs h{Op::N, Op::N, 1, 1, 2, 2.0f, A.data(), 2, B.data(), 1, 0.0f, nullptr, 1};
  double terms2 = -1.0;
  EXPECT_EQ(tessel::harness::reference_element(h, 0, 0, &terms2), 0.0);
  EXPECT_EQ(terms2, 4.0 * 18.0);
}

TEST(Reference, LayoutLeadingDimensions) {
  using tessel::harness::make_layout;
  // op(A) 5 x 7 stored transposed (7 x 5), op(B) 7 x 3 stored as is.
  SgemmArgs a = make_layout({Op::T, Op::N}, {5, 3, 7}, 2.0f, 0.5f);
  EXPECT_EQ(a.lda, 5);
  EXPECT_EQ(a.ldb, 3);
  EXPECT_EQ(a.ldc, 3);
  EXPECT_EQ(tessel::harness::stored_rows_a(a), 7);
  EXPECT_EQ(tessel::harness::stored_cols_b(a), 3);
  EXPECT_EQ(a.alpha, 2.0f);
  EXPECT_EQ(a.A, nullptr);
  a = make_layout({Op::N, Op::T}, {5, 3, 7}, 1.0f, 0.0f, 4, 8);  // rounded up to 4, plus 8
  EXPECT_EQ(a.lda, 16);  // k = 7 -> 8 + 8
  EXPECT_EQ(a.ldb, 16);  // B stored 3 x 7
  EXPECT_EQ(a.ldc, 12);  // n = 3 -> 4 + 8
  a = make_layout({Op::N, Op::N}, {0, 0, 0}, 1.0f, 0.0f);
  EXPECT_EQ(a.lda, 1);  // BLAS: at least 1
  EXPECT_EQ(a.ldc, 1);
}

TEST(Reference, RandomFillIsDeterministicAndSpread) {
  std::vector<float> a(100000), b(100000), c(100000);
  tessel::harness::fill_random(a, 7);
  tessel::harness::fill_random(b, 7);
  tessel::harness::fill_random(c, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Neighbouring seeds are unrelated sequences, not shifts of one another.
  EXPECT_NE(std::vector<float>(a.begin() + 1, a.begin() + 1001), std::vector<float>(c.begin(), c.begin() + 1000));
  EXPECT_NE(std::vector<float>(c.begin() + 1, c.begin() + 1001), std::vector<float>(a.begin(), a.begin() + 1000));
  double sum = 0, lo = 1, hi = -1;
  int zeros = 0;
  for (float x : a) {
    sum += x, lo = std::min<double>(lo, x), hi = std::max<double>(hi, x);
    zeros += x == 0.0f;
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
  }
  EXPECT_LT(std::abs(sum / a.size()), 0.01);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_LE(zeros, 1);
}

}  // namespace
