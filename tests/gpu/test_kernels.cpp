// Every registered kernel (and auto-dispatch) against cuBLAS and the fp64
// reference: odd shapes, all four op pairs, alpha/beta, beta = 0 over a C
// full of NaN, and non-tight leading dimensions.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "dispatch/registry.hpp"
#include "gpu/gpu_test.hpp"
#include "harness/verify.hpp"
#include "dispatch/cost_model.hpp"
#include "dispatch/plan.hpp"
#include "kernels/workspace.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;

// "kernel@precision" for every kernel at its first precision, the other
// precisions of the first configuration of each tensor-core step and type
// (the C type is a runtime switch shared by all configurations), and
// auto-dispatch at every precision.
std::vector<std::string> jobs() {
  std::vector<std::string> out;
  std::vector<std::string> seen_steps;
  for (const auto& k : tessel::kernels()) {
    const std::string family = std::to_string(k.ladder_step) + tessel::to_string(k.precisions[0]);
    const bool first_config = std::find(seen_steps.begin(), seen_steps.end(), family) == seen_steps.end();
    seen_steps.push_back(family);
    for (size_t p = 0; p < (first_config ? k.precisions.size() : 1); ++p) {
      out.push_back(k.name + "@" + tessel::to_string(k.precisions[p]));
    }
  }
  for (const tessel::Precision& p : tessel::supported_precisions()) out.push_back(std::string(kAuto) + "@" + tessel::to_string(p));
  return out;
}

std::string kernel_of(const std::string& job) { return job.substr(0, job.find('@')); }
tessel::Precision precision_of(const std::string& job) { return *tessel::parse_precision(job.substr(job.find('@') + 1)); }

// A test-name-safe spelling: "mma_f16_128x128@f16:f32" -> "mma_f16_at_f16_f32".
std::string safe(std::string s) {
  for (char& ch : s) {
    if (ch == ':') ch = '_';
  }
  const size_t at = s.find('@');
  return at == std::string::npos ? s : s.replace(at, 1, "_at_");
}

// Squares of {1, 2, 7, 31, 33, 64, 127, 255, 257, 1000, 1024}, then crossings of them.
std::vector<Shape> shapes() {
  std::vector<Shape> s;
  for (int64_t d : {1, 2, 7, 31, 33, 64, 127, 255, 257, 1000, 1024}) s.push_back({d, d, d});
  const std::vector<Shape> crossed = {
      {1, 1024, 7},    {1024, 1, 33},  {7, 257, 1000},  {257, 7, 64},   {33, 1000, 2},    {1000, 33, 255},
      {64, 127, 1},    {127, 64, 1024}, {2, 31, 257},   {31, 2, 127},   {255, 1000, 33},  {1000, 255, 31},
      {1024, 1000, 1}, {33, 31, 1000}, {7, 33, 0},      {1000, 1, 0},
      // More 128x256 tiles than an H100 has SMs (persistent blocks take several), with
      // rows in and not in 16-byte units (TMA-store and direct epilogues); k of two
      // slices, fewer than the chunks a held tile leaves in (steps 14-15).
      {2100, 2100, 300}, {2100, 2048, 300}, {2100, 2048, 100}};
  s.insert(s.end(), crossed.begin(), crossed.end());
  return s;
}

struct Setting {
  float alpha, beta;
  int64_t pad, ld_align;
};

// Whether the kernel's registry entry takes calls of m rows (auto-dispatch: all).
bool takes_rows(const std::string& kernel, int64_t m) {
  const auto info = tessel::find_kernel(kernel);
  return !info || info->max_m == 0 || m <= info->max_m;
}

// What alignment the kernel needs (auto-dispatch needs none: it falls back).
int64_t alignment_of(const std::string& kernel) {
  const auto info = tessel::find_kernel(kernel);
  return info ? info->alignment : 1;
}

// Skips kernels built for another GPU generation (the sm_90a steps elsewhere).
#define SKIP_IF_NOT_FOR_THIS_GPU(kernel)                                                  \
  if (const auto info = tessel::find_kernel(kernel); info && !runs_here(*info)) {        \
    GTEST_SKIP() << kernel << " needs another compute capability";                      \
  }

// ("kernel@precision", op pair as "NT")
class KernelTest : public GpuTestWithParam<std::tuple<std::string, std::string>> {
 protected:
  std::string kernel() const { return kernel_of(std::get<0>(GetParam())); }
  tessel::Precision precision() const { return precision_of(std::get<0>(GetParam())); }
  OpPair ops() const { return parse_ops(std::get<1>(GetParam())).at(0); }
};

TEST_P(KernelTest, MatchesCublasAndFp64) {
  const std::string kernel = this->kernel();
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  const tessel::Precision precision = this->precision();
  const OpPair ops = this->ops();
  Cublas cublas;
  uint64_t seed = 1;
  for (const Shape& shape : shapes()) {
    if (!takes_rows(kernel, shape.m)) continue;
    // beta = 0 over NaN, leading dimensions rounded up to multiples of 4 or
    // of the kernel's alignment (every kernel takes them) plus 0, 1 or 2 of
    // those; then a general alpha/beta with the leading dimensions the
    // kernel's alignment allows, tight or padded.
    const int64_t align = alignment_of(kernel), wide = std::max<int64_t>(4, align);
    for (const Setting& s : {Setting{1.0f, 0.0f, int64_t(seed % 3) * wide, wide},
                             Setting{-0.75f, 1.25f, int64_t(seed % 2) * 3 * align, align}}) {
      const VerifyCase c{kernel, ops.first, ops.second, shape, s.alpha, s.beta, s.pad, seed++, s.ld_align, precision};
      const VerifyResult r = verify_case(cublas, c);
      EXPECT_TRUE(r.passed) << fmt::format(
          "{} {} {} {} alpha={} beta={} ld_align={} pad={}: {} (err vs cuBLAS {:.3e}, vs fp64 {:.3e} on {} elements, tol "
          "{:.1e}, {} non-finite, {} clobbered)",
          kernel, tessel::to_string(precision), to_string(ops), to_string(shape), s.alpha, s.beta, s.ld_align, s.pad, r.reason, r.err_vs_cublas,
          r.err_vs_fp64, r.fp64_checked, r.tolerance, r.nonfinite, r.clobbered);
    }
  }
}

TEST_P(KernelTest, AlphaZeroScalesC) {
  const std::string kernel = this->kernel();
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  const OpPair ops = this->ops();
  Cublas cublas;
  const int64_t m = takes_rows(kernel, 33) ? 33 : 15;
  for (float beta : {0.0f, 1.0f, -2.5f}) {
    const VerifyResult r =
        verify_case(cublas, {kernel, ops.first, ops.second, {m, 65, 17}, 0.0f, beta, 8, 9, 8, this->precision()});
    EXPECT_TRUE(r.passed) << kernel << " beta=" << beta << ": " << r.reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Ladder, KernelTest,
                         ::testing::Combine(::testing::ValuesIn(jobs()), ::testing::Values("NN", "NT", "TN", "TT")),
                         [](const auto& info) { return safe(std::get<0>(info.param)) + "_" + std::get<1>(info.param); });

// Grids taller than CUDA's 65535 blocks in y are split into several launches.
class HugeGridTest : public GpuTestWithParam<std::string> {};

TEST_P(HugeGridTest, TallAndWideOutputs) {
  Cublas cublas;
  const std::string kernel = kernel_of(GetParam());
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  for (const Shape& shape : {Shape{2'100'000, 3, 2}, Shape{3, 2'100'000, 2}}) {
    if (!takes_rows(kernel, shape.m)) continue;
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      const VerifyResult r =
          verify_case(cublas, {kernel, ops.first, ops.second, shape, 1.5f, 0.5f, 0, 5,
                               std::max<int64_t>(8, alignment_of(kernel)), precision_of(GetParam())});
      EXPECT_TRUE(r.passed) << GetParam() << " " << to_string(ops) << " " << to_string(shape) << ": " << r.reason;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ladder, HugeGridTest, ::testing::ValuesIn(jobs()),
                         [](const auto& info) { return safe(info.param); });

// Step 16 (small m) on decode-like calls: one to sixteen rows, k deep enough
// to be split (and not a multiple of the staged chunk), n not a multiple of a
// block's columns, every op pair, beta = 0 over NaN and a general alpha/beta;
// the kernels of any alignment also with odd leading dimensions and operands
// that start one element past 16 bytes (n = 301: whole warps of rows that start
// at every offset, and a last warp short of n).
class SmallMTest : public GpuTestWithParam<std::string> {};

TEST_P(SmallMTest, DecodeShapes) {
  const std::string kernel = kernel_of(GetParam());
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  Cublas cublas;
  uint64_t seed = 90;
  const bool any_alignment = alignment_of(kernel) == 1;
  for (const Shape& shape : {Shape{1, 4096, 4096}, Shape{16, 1000, 3001}, Shape{4, 257, 70'000}, Shape{3, 33, 513},
                             Shape{16, 2048, 64}, Shape{9, 1, 1000}, Shape{8, 200, 17}, Shape{12, 129, 4099},
                             Shape{5, 7, 40'000}, Shape{6, 301, 2000}, Shape{13, 301, 2000}}) {
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      for (const Setting& s : {Setting{1.0f, 0.0f, 8, 8}, Setting{-0.75f, 1.25f, 0, 8}, Setting{0.5f, 0.0f, 0, 1}}) {
        if (s.ld_align == 1 && !any_alignment) continue;
        VerifyCase c{kernel,  ops.first,   ops.second, shape, s.alpha, s.beta, s.pad,
                     seed++, s.ld_align, precision_of(GetParam())};
        c.offset = s.ld_align == 1 ? 1 : 0;
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << kernel << " " << to_string(ops) << " " << to_string(shape) << " beta=" << s.beta
                              << " ld_align=" << s.ld_align << ": " << r.reason;
      }
    }
  }
  const VerifyResult refused = verify_case(cublas, {kernel, Op::N, Op::T, {17, 64, 64}, 1.0f, 0.0f, 0, 1, 8,
                                                    precision_of(GetParam())});
  EXPECT_EQ(refused.status.code(), tessel::StatusCode::kNotSupported) << "m = 17 is more than it takes";
  EXPECT_EQ(refused.clobbered, 0);
}

// Step 16's parts of k, summed by the last part of each column block to
// arrive: the same bits on every call, on tessel's own buffers and on a
// caller's workspace full of garbage (its arrival counts zeroed first), and
// each call leaves the counts at zero for the next.
class SmallMSplitTest : public GpuTest {};

// Elements of type E (the bits of bf16 or FP32) with random signs and mantissas in [1, 2).
template <class E>
void parts_sum_the_same(const std::string& name, const char* precision, int64_t m) {
  for (Op op_b : {Op::N, Op::T}) {
    tessel::GemmArgs a;
    a.opA = Op::N, a.opB = op_b, a.m = m, a.n = op_b == Op::N ? 4096 : 576, a.k = op_b == Op::N ? 4096 : 7168;
    a.lda = a.k, a.ldc = a.n;
    a.ldb = op_b == Op::N ? a.n : a.k;
    a.precision = *tessel::parse_precision(precision);
    std::vector<E> host(size_t(a.n) * a.k);
    uint32_t x = 12345;
    for (E& v : host) {
      x = x * 1664525u + 1013904223u;
      const uint32_t bits = 0x3f800000u | (x >> 9 & 0x7f0000u) | (x & 0x80000000u);  // 7 random mantissa bits
      v = E(bits >> (32 - 8 * sizeof(E)));
    }
    DeviceBuffer<E> A(std::vector<E>(host.begin(), host.begin() + a.m * a.k)), B(host);
    DeviceBuffer<E> C(a.m * a.n);
    a.A = A.get(), a.B = B.get(), a.C = C.get();
    size_t need = 0;
    ASSERT_TRUE(tessel::workspace_size(name, a, &need).ok());
    ASSERT_GT(need, 0u) << "a decode call this narrow splits k across blocks";
    ASSERT_TRUE(tessel::run_kernel(name, a).ok());
    const std::vector<E> first = C.download();
    DeviceBuffer<uint8_t> ws(need);
    for (int call = 0; call < 6; ++call) {
      tessel::GemmArgs b = a;
      if (call % 2) {
        ASSERT_EQ(cudaMemset(ws.get(), 0x5a, need), cudaSuccess);
        b.workspace = ws.get(), b.workspace_bytes = need;
      }
      ASSERT_EQ(cudaMemset(C.get(), 0xff, C.size() * sizeof(E)), cudaSuccess);
      ASSERT_TRUE(tessel::run_kernel(name, b).ok());
      EXPECT_EQ(C.download(), first) << name << " op B " << (op_b == Op::N ? "N" : "T") << ", call " << call;
    }
  }
}

TEST_F(SmallMSplitTest, PartsSumTheSameWhoeverArrivesLast) {
  parts_sum_the_same<uint16_t>("gemv_mma_bf16_16x16_any", "bf16", 5);
  parts_sum_the_same<uint32_t>("gemv_mma_tf32_16x16_any", "tf32", 5);
  parts_sum_the_same<uint32_t>("gemv_16x32_any", "f32", 4);  // op T summed in the kernel (op N where its plan says)
  parts_sum_the_same<uint32_t>("gemv_16x32_any", "f32", 5);  // by a second launch
}

INSTANTIATE_TEST_SUITE_P(Step16, SmallMTest,
                         ::testing::Values("gemv_16x32_any@f32", "gemv_16x32_any@tf32", "gemv_f16_16x32@f16",
                                           "gemv_f16_16x32@f16:f32", "gemv_bf16_16x32@bf16",
                                           "gemv_bf16_16x32@bf16:f32", "gemv_mma_f16_16x16_any@f16",
                                           "gemv_mma_f16_16x16_any@f16:f32", "gemv_mma_bf16_16x16_any@bf16",
                                           "gemv_mma_bf16_16x16_any@bf16:f32", "gemv_mma_tf32_16x16_any@tf32",
                                           "wgmma_swap_f16_64x16@f16", "wgmma_swap_f16_64x16@f16:f32",
                                           "wgmma_swap_bf16_64x16@bf16", "wgmma_swap_bf16_64x16@bf16:f32",
                                           "wgmma_swap_tf32_64x16@tf32"),
                         [](const auto& info) { return safe(info.param); });

// Step 08 reads a transposed copy of A with op N, and of B with op T, where
// the call is large enough for that to pay (impl::copy_pays), which
// the general shapes above are too small for: calls that copy A, B or both,
// aligned and not (an unaligned kernel's second setting pads the rows by 3
// floats), the op pairs that make each copy, both settings.
class CopyTest : public GpuTestWithParam<std::string> {};

TEST_P(CopyTest, TransposedCopies) {
  const std::string kernel = kernel_of(GetParam());
  const int64_t align = alignment_of(kernel);
  using namespace tessel::impl;
  struct Case {
    Shape shape;
    const char* ops;
    bool a, b;  // which operands the rule copies (those with op N for A, op T for B)
  };
  const SimtShape big_tiles = tessel::find_entry("pipelined_128x256")->simt;
  Cublas cublas;
  uint64_t seed = 60;
  for (const Case& cs : {Case{{900, 4100, 8400}, "NN,NT", true, false}, Case{{901, 4097, 8401}, "NN,NT", true, false},
                         Case{{4100, 1000, 8400}, "NT,TT", false, true}, Case{{4097, 1001, 8401}, "NT,TT", false, true},
                         Case{{4100, 4100, 2100}, "NT", true, true}, Case{{4097, 4099, 2101}, "NT", true, true}}) {
    const Shape& shape = cs.shape;
    // (for the 128x256 tiles, whose rule is the strictest; leading dimensions come in their units)
    const int64_t tiles = (shape.m + 127) / 128 * ((shape.n + 255) / 256);
    const double flops = 2.0 * double(shape.m) * double(shape.n) * double(shape.k);
    EXPECT_EQ(copy_pays(flops, shape.m, shape.k, tiles, 132, register_path(big_tiles, false, false)), cs.a)
        << to_string(shape);
    EXPECT_EQ(copy_pays(flops, shape.n, shape.k, tiles, 132, register_path(big_tiles, true, false)), cs.b)
        << to_string(shape);
    for (const OpPair& ops : parse_ops(cs.ops)) {
      for (const Setting& s : {Setting{1.0f, 0.0f, 0, align}, Setting{-0.75f, 1.25f, align > 1 ? 4 : 3, align}}) {
        const VerifyCase c{kernel, ops.first, ops.second, shape, s.alpha, s.beta, s.pad, seed++, s.ld_align,
                           precision_of(GetParam())};
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << kernel << " " << to_string(ops) << " " << to_string(shape) << " beta=" << s.beta
                              << ": " << r.reason << " (err vs cuBLAS " << r.err_vs_cublas << ")";
      }
    }
  }
}

// The step 08 kernels and auto-dispatch at f32.
std::vector<std::string> step_08_jobs() {
  std::vector<std::string> out;
  for (const auto& k : tessel::kernels()) {
    if (k.ladder_step == 8) out.push_back(k.name + "@f32");
  }
  out.push_back(std::string(kAuto) + "@f32");
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ladder, CopyTest, ::testing::ValuesIn(step_08_jobs()),
                         [](const auto& info) { return safe(info.param); });

// Step 15 shares the last waves' k-slices only where that pays, which the
// general shapes above are too small for: shapes where it does (one unit
// over a wave; a half-empty row pair; whole waves then shared ones), with
// partial sums handed between clusters, every op pair and both settings.
class StreamKTest : public GpuTestWithParam<std::string> {};

TEST_P(StreamKTest, SharedUnitsAddUp) {
  const std::string kernel = kernel_of(GetParam());
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  const tessel::KernelEntry* e = tessel::find_entry(kernel);
  ASSERT_NE(e, nullptr);
  // Units of `rows` rows; shapes of fewer units than clusters, a few waves' worth, and two waves and a bit.
  const int64_t rows = int64_t(e->info.tile_m) * e->cluster, cols = e->info.tile_n;
  const int clusters = tessel::harness::query_gpu().sm_count / e->cluster;
  Cublas cublas;
  uint64_t seed = 40;
  for (Shape shape : {Shape{rows / 2, 67 * cols - 5, 4000}, Shape{3 * rows / 2, 40 * cols - 3, 3000},
                       Shape{rows / 2, (2 * clusters + 5) * cols, 2048}}) {
    const int64_t units = tessel::impl::ClusterUnits(shape.m, shape.n, e->info.tile_m, e->info.tile_n, e->cluster).count();
    auto shared = [&] {
      const int64_t slices = (shape.k + e->k_slice - 1) / e->k_slice;
      return tessel::impl::plan_stream_k(units, slices, clusters, nullptr, e->stream_k_cost).sharing > 0;
    };
    // k doubled until the plan shares (hand-overs pay only over enough slices).
    while (!shared() && shape.k < 65536) shape.k *= 2;
    EXPECT_TRUE(shared()) << to_string(shape) << " is not shared";
    for (const OpPair& ops : parse_ops("NN,TT")) {
      for (const Setting& s : {Setting{1.0f, 0.0f, 8, 8}, Setting{-0.75f, 1.25f, 0, 8}}) {
        const VerifyCase c{kernel, ops.first, ops.second, shape, s.alpha, s.beta, s.pad, seed++, s.ld_align,
                           precision_of(GetParam())};
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << kernel << " " << to_string(ops) << " " << to_string(shape) << " beta=" << s.beta
                              << ": " << r.reason << " (err vs cuBLAS " << r.err_vs_cublas << ")";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Hopper, StreamKTest,
                         ::testing::Values("wgmma_cluster_f16_128x256_streamk@f16", "wgmma_cluster_bf16_128x256_streamk@bf16:f32",
                                           "wgmma_f16_64x128_streamk@f16:f32", "wgmma_bf16_64x128_streamk@bf16",
                                           "wgmma_bf16_128x128_streamk@bf16", "wgmma_bf16_64x64_streamk@bf16",
                                           "wgmma_f16_64x64_streamk@f16:f32", "wgmma_cluster_bf16_128x192_streamk@bf16",
                                           "wgmma_cluster_f16_128x128_streamk@f16"),
                         [](const auto& info) { return safe(info.param); });

// Step 14's split-k: shapes whose plans cut k (a few units over deep k; k
// deeper than one accumulation chain may be), the parts summed into every C
// type, every op pair, both settings. These are also the shapes where one
// unsplit chain of truncating tensor-core additions fails the tolerance.
class SplitKTest : public GpuTestWithParam<std::string> {};

TEST_P(SplitKTest, PartsAddUp) {
  const std::string kernel = kernel_of(GetParam());
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  const tessel::KernelEntry* e = tessel::find_entry(kernel);  // null: auto-dispatch
  const int sms = tessel::harness::query_gpu().sm_count;
  const tessel::Precision precision = precision_of(GetParam());
  Cublas cublas;
  uint64_t seed = 70;
  for (const Shape& shape : {Shape{3, 5, 400'000}, Shape{64, 64, 65'536}, Shape{200, 300, 20'000},
                             Shape{129, 1000, 3'001}}) {
    tessel::GemmArgs a;
    a.precision = precision, a.m = shape.m, a.n = shape.n, a.k = shape.k;
    if (e) EXPECT_GT(tessel::make_plan(*e, a, sms).splits, 1) << to_string(shape) << " is not split";
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      for (const Setting& s : {Setting{1.0f, 0.0f, 8, 8}, Setting{-0.75f, 1.25f, 0, 8}}) {
        const VerifyCase c{kernel, ops.first, ops.second, shape, s.alpha, s.beta, s.pad, seed++, s.ld_align, precision};
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << kernel << " " << to_string(ops) << " " << to_string(shape) << " beta=" << s.beta
                              << ": " << r.reason;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Hopper, SplitKTest,
                         ::testing::Values("wgmma_cluster_tf32_64x128@tf32", "wgmma_cluster_bf16_128x256@bf16:f32",
                                           "wgmma_cluster_f16_128x128@f16", "wgmma_cluster_bf16_128x192@bf16",
                                           "wgmma_bf16_64x64_splitk@bf16", "wgmma_f16_64x64_splitk@f16:f32",
                                           "wgmma_tf32_64x64_splitk@tf32", "auto@tf32", "auto@bf16:f32"),
                         [](const auto& info) { return safe(info.param); });

// Step 08's stream-K kernels share k-slices where their plans say that pays,
// which the general shapes above are too small for: shapes where they do (a
// few tiles over deep k, each cut across many blocks; a whole wave for the
// tile kernel, then the remainder shared; k not in whole slices), every op
// pair, both settings. Parameter: the kernel (its plan's costs: registry).
class Step08StreamKTest : public GpuTestWithParam<std::string> {};

TEST_P(Step08StreamKTest, SharedTilesAddUp) {
  const std::string kernel = GetParam();
  SKIP_IF_NOT_FOR_THIS_GPU(kernel);
  const tessel::KernelEntry* entry = tessel::find_entry(kernel);
  ASSERT_NE(entry, nullptr) << kernel;
  const int sms = tessel::harness::query_gpu().sm_count;
  Cublas cublas;
  uint64_t seed = 80;
  bool whole_tiles = false;  // some shape has whole waves for the tile kernel before the shared runs
  for (const Shape& shape : {Shape{300, 1000, 3000}, Shape{1100, 4100, 1000}, Shape{127, 1001, 4097}}) {
    const tessel::GemmArgs call{tessel::Op::T, tessel::Op::N, shape.m, shape.n, shape.k};
    const tessel::impl::StreamKPlan plan = tessel::make_plan(*entry, call, sms).stream_k;
    EXPECT_GT(plan.sharing, 0) << to_string(shape) << " is not shared";
    whole_tiles = whole_tiles || plan.whole > 0;
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      for (const Setting& s : {Setting{1.0f, 0.0f, 0, 4}, Setting{-0.75f, 1.25f, 4, 4}}) {
        const VerifyCase c{kernel, ops.first, ops.second, shape, s.alpha, s.beta, s.pad, seed++, s.ld_align,
                           tessel::Precision{}};
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << kernel << " " << to_string(ops) << " " << to_string(shape) << " beta=" << s.beta
                              << ": " << r.reason << " (err vs cuBLAS " << r.err_vs_cublas << ")";
      }
    }
  }
  EXPECT_TRUE(whole_tiles) << "no shape ran the tile kernel's whole waves before the runs";
}

INSTANTIATE_TEST_SUITE_P(Step08, Step08StreamKTest,
                         ::testing::Values("pipelined_128x256_streamk", "pipelined_128x256_streamk_tma"),
                         [](const auto& info) { return safe(info.param); });

// The stream-K workspace's flags are zero at every call, whatever the call
// before left in its partial sums: a call with more slots than the last one
// (step 15, 2 slots per SM, after step 08's stream-K, 1) must not find the
// last one's sums where its flags now lie.
class StreamKWorkspaceTest : public GpuTest {};

TEST_F(StreamKWorkspaceTest, FlagsStartAtZero) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  auto work = [&](int slots, int64_t floats, tessel::impl::StreamKWork* sk) {
    tessel::impl::LaunchPlan plan;
    plan.stream_k_slots = slots, plan.stream_k_slot_floats = floats;
    return tessel::impl::stream_k_work(plan, stream, sk);
  };
  tessel::impl::StreamKWork sk;
  ASSERT_EQ(work(64, 64, &sk), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(sk.partials, 0xff, 64 * 64 * sizeof(float), stream), cudaSuccess);  // sums left behind
  // 1024 slots of 1 float: 8 KiB in all, less than the 16.3 KiB before (one buffer
  // for both would not grow, and its flags would lie on the sums left behind)
  ASSERT_EQ(work(1024, 1, &sk), cudaSuccess);
  std::vector<int> host(1024, -1);
  ASSERT_EQ(cudaMemcpyAsync(host.data(), sk.flags, host.size() * sizeof(int), cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(std::count(host.begin(), host.end(), 0), 1024);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
