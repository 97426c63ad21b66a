// Every registered kernel (and auto-dispatch) against cuBLAS and the fp64
// reference: odd shapes, all four op pairs, alpha/beta, beta = 0 over a C
// full of NaN, and non-tight leading dimensions.
#include <fmt/format.h>

#include "gpu/gpu_test.hpp"
#include "harness/verify.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : tessel::kernels()) names.push_back(k.name);
  names.push_back(kAuto);
  return names;
}

// Squares of {1, 2, 7, 31, 33, 64, 127, 255, 257, 1000, 1024}, then crossings of them.
std::vector<Shape> shapes() {
  std::vector<Shape> s;
  for (int64_t d : {1, 2, 7, 31, 33, 64, 127, 255, 257, 1000, 1024}) s.push_back({d, d, d});
  const std::vector<Shape> crossed = {
      {1, 1024, 7},    {1024, 1, 33},  {7, 257, 1000},  {257, 7, 64},   {33, 1000, 2},    {1000, 33, 255},
      {64, 127, 1},    {127, 64, 1024}, {2, 31, 257},   {31, 2, 127},   {255, 1000, 33},  {1000, 255, 31},
      {1024, 1000, 1}, {33, 31, 1000}, {7, 33, 0},      {1000, 1, 0}};
  s.insert(s.end(), crossed.begin(), crossed.end());
  return s;
}

struct Setting {
  float alpha, beta;
  int64_t pad, ld_align;
};

// What alignment the kernel needs (auto-dispatch needs none: it falls back).
int64_t alignment_of(const std::string& kernel) {
  const auto info = tessel::find_kernel(kernel);
  return info ? info->alignment : 1;
}

// (kernel name, op pair as "NT")
class KernelTest : public GpuTestWithParam<std::tuple<std::string, std::string>> {
 protected:
  const std::string& kernel() const { return std::get<0>(GetParam()); }
  OpPair ops() const { return parse_ops(std::get<1>(GetParam())).at(0); }
};

TEST_P(KernelTest, MatchesCublasAndFp64) {
  const std::string& kernel = this->kernel();
  const OpPair ops = this->ops();
  Cublas cublas;
  uint64_t seed = 1;
  for (const Shape& shape : shapes()) {
    // beta = 0 over NaN, leading dimensions rounded up to multiples of 4 (every
    // kernel takes them) plus 0, 4 or 8; then a general alpha/beta with the
    // leading dimensions the kernel's alignment allows, tight or padded.
    const int64_t align = alignment_of(kernel);
    for (const Setting& s : {Setting{1.0f, 0.0f, int64_t(seed % 3) * 4, 4},
                             Setting{-0.75f, 1.25f, int64_t(seed % 2) * 3 * align, align}}) {
      const VerifyCase c{kernel, ops.first, ops.second, shape, s.alpha, s.beta, s.pad, seed++, s.ld_align};
      const VerifyResult r = verify_case(cublas, c);
      EXPECT_TRUE(r.passed) << fmt::format(
          "{} {} {} alpha={} beta={} ld_align={} pad={}: {} (err vs cuBLAS {:.3e}, vs fp64 {:.3e} on {} elements, tol {:.1e}, "
          "{} non-finite, {} clobbered)",
          kernel, to_string(ops), to_string(shape), s.alpha, s.beta, s.ld_align, s.pad, r.reason, r.err_vs_cublas,
          r.err_vs_fp64, r.fp64_checked, r.tolerance, r.nonfinite, r.clobbered);
    }
  }
}

TEST_P(KernelTest, AlphaZeroScalesC) {
  const std::string& kernel = this->kernel();
  const OpPair ops = this->ops();
  Cublas cublas;
  for (float beta : {0.0f, 1.0f, -2.5f}) {
    const VerifyResult r = verify_case(cublas, {kernel, ops.first, ops.second, {33, 65, 17}, 0.0f, beta, 4, 9, 4});
    EXPECT_TRUE(r.passed) << kernel << " beta=" << beta << ": " << r.reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Ladder, KernelTest,
                         ::testing::Combine(::testing::ValuesIn(kernel_names()), ::testing::Values("NN", "NT", "TN", "TT")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// Grids taller than CUDA's 65535 blocks in y are split into several launches.
class HugeGridTest : public GpuTestWithParam<std::string> {};

TEST_P(HugeGridTest, TallAndWideOutputs) {
  Cublas cublas;
  for (const Shape& shape : {Shape{2'100'000, 3, 2}, Shape{3, 2'100'000, 2}}) {
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      const VerifyResult r = verify_case(cublas, {GetParam(), ops.first, ops.second, shape, 1.5f, 0.5f, 0, 5, 4});
      EXPECT_TRUE(r.passed) << GetParam() << " " << to_string(ops) << " " << to_string(shape) << ": " << r.reason;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ladder, HugeGridTest, ::testing::ValuesIn(kernel_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
