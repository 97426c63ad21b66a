// The public API on a GPU: dispatch choice, no-op and pointer checks, streams.
#include <tessel/tessel.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/reference.hpp"
#include "harness/typed.hpp"
#include "harness/verify.hpp"
#include "dispatch/cost_model.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;
using tessel::SgemmArgs;
using tessel::StatusCode;

class Api : public GpuTest {};

// The arguments with m cut to the most rows the kernel takes (the small-m kernels take m <= 16).
template <class Args>
Args within_rows(const tessel::KernelInfo& info, Args a) {
  if (info.max_m > 0) a.m = std::min<int64_t>(a.m, info.max_m);
  return a;
}

TEST_F(Api, AutoDispatchPicksTheLatestStep) {
  DeviceBuffer<float> A(64 * 64), B(64 * 64), C(64 * 64);
  const SgemmArgs a{Op::N, Op::N, 64, 64, 64, 1.0f, A.get(), 64, B.get(), 64, 0.0f, C.get(), 64};
  std::string name;
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  // The latest step auto-dispatch may take for FP32 at 64x64x64 (tensor cores never take FP32 compute; step 18
  // only k of a few values, which it takes at 64x64x4).
  int top = 0;
  for (const auto& k : tessel::kernels()) {
    const bool rows = k.max_m == 0 || k.max_m >= 64;
    const bool any_k = k.ladder_step != 18;
    if (k.precisions[0] == tessel::Precision{} && k.auto_dispatch && rows && any_k) top = std::max(top, k.ladder_step);
  }
  EXPECT_EQ(tessel::find_kernel(name)->ladder_step, top) << name;
  SgemmArgs shallow = a;
  shallow.k = 4;
  ASSERT_TRUE(tessel::select_kernel(shallow, &name).ok());
  EXPECT_EQ(name, "shallow_64x128_any");
}

TEST_F(Api, EmptyOutputLeavesCAlone) {
  std::vector<float> h(16);
  fill_random(h, 3);
  DeviceBuffer<float> A(h), B(h), C(h);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{0, 4}, {4, 0}}) {
    ASSERT_TRUE(tessel::sgemm(Op::N, Op::N, m, n, 4, 1.0f, A.get(), 4, B.get(), 4, 2.0f, C.get(), 4).ok());
  }
  EXPECT_EQ(C.download(), h);
}

TEST_F(Api, HostPointersAreRefusedByName) {
  std::vector<float> host(16, 1.0f);
  DeviceBuffer<float> dev(16);
  const tessel::Status sa = tessel::sgemm(Op::N, Op::N, 4, 4, 4, 1.0f, host.data(), 4, dev.get(), 4, 0.0f, dev.get(), 4);
  EXPECT_EQ(sa.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sa.message().find("A points to host memory"), std::string::npos) << sa.message();
  const tessel::Status sc =
      tessel::run_kernel("smem", SgemmArgs{Op::N, Op::N, 4, 4, 4, 1.0f, dev.get(), 4, dev.get(), 4, 0.0f, host.data(), 4});
  EXPECT_EQ(sc.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(sc.message().find("C points to host memory"), std::string::npos) << sc.message();
}

TEST_F(Api, KZeroWithBetaZeroClearsNaN) {
  const std::vector<float> nan(12, std::nanf(""));
  for (const auto& k : tessel::kernels()) {
    for (const tessel::Precision& p : k.precisions) {
      DeviceBuffer<uint8_t> C(encode(nan, p.c));
      tessel::GemmArgs a{Op::N, Op::N, 3, 4, 0, 1.0f, nullptr, 1, nullptr, 4, 0.0f, C.get(), 4, p};
      ASSERT_TRUE(tessel::run_kernel(k.name, a).ok()) << k.name;
      EXPECT_EQ(decode(C.download(), p.c), std::vector<float>(12, 0.0f)) << k.name << " " << tessel::to_string(p);
    }
  }
}

TEST_F(Api, VectorKernelsRefuseMisalignedArgumentsByNameButAutoTakesThem) {
  const int64_t m = 40, n = 36, k = 33;  // lda = 33: not a multiple of 4
  std::vector<float> hA(m * k + 4), hB(k * n + 4);
  fill_random(hA, 4), fill_random(hB, 5);
  DeviceBuffer<float> A(hA), B(hB), C(m * n + 4), R(m * n);
  const SgemmArgs odd_lda{Op::N, Op::N, m, n, k, 1.0f, A.get(), k, B.get(), n, 0.0f, C.get(), n};
  SgemmArgs odd_ptr{Op::N, Op::N, m, n, 32, 1.0f, A.get() + 1, 32, B.get(), n, 0.0f, C.get(), n};
  int tested = 0;
  for (const auto& info : tessel::kernels()) {
    if (info.alignment == 1 || info.precisions[0] != tessel::Precision{}) continue;
    ++tested;
    tessel::Status s = tessel::run_kernel(info.name, within_rows(info, odd_lda));
    EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
    EXPECT_NE(s.message().find("lda a multiple of 4 (lda = 33)"), std::string::npos) << s.message();
    s = tessel::run_kernel(info.name, within_rows(info, odd_ptr));
    EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
    EXPECT_NE(s.message().find("A aligned to 16 bytes"), std::string::npos) << s.message();
  }
  EXPECT_GT(tested, 0);
  // Auto-dispatch takes both, through a kernel that needs no alignment.
  for (const SgemmArgs& a : {odd_lda, odd_ptr}) {
    std::string name;
    ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
    EXPECT_EQ(tessel::find_kernel(name)->alignment, 1) << name;
    ASSERT_TRUE(tessel::sgemm(a).ok());
    SgemmArgs ref = a;
    ref.C = R.get();
    ASSERT_TRUE(tessel::run_kernel("naive", ref).ok());
    const auto d = C.download(), r = R.download();
    double diff = 0, norm = 0;
    for (int64_t e = 0; e < m * n; ++e) diff += (d[e] - r[e]) * (d[e] - r[e]), norm += r[e] * r[e];
    EXPECT_LT(std::sqrt(diff / norm), 1e-5) << name;
  }
}

// mma.sync kernels copy A and B in 16-byte pieces: 8 f16/bf16 values, 4 tf32 ones.
TEST_F(Api, TensorKernelsRefuseMisalignedAbByNameButAutoTakesThem) {
  const int64_t m = 40, n = 36, k = 33;
  std::vector<float> hA(m * k + 8), hB(k * n + 8);
  fill_random(hA, 4), fill_random(hB, 5);
  for (const char* name : {"f16", "bf16:f32", "tf32"}) {
    const tessel::Precision p = *tessel::parse_precision(name);
    DeviceBuffer<uint8_t> A(encode(hA, p.ab)), B(encode(hB, p.ab)), C((m * n + 8) * tessel::size_of(p.c));
    const size_t e = tessel::size_of(p.ab);
    const tessel::GemmArgs odd_lda{Op::N, Op::N, m, n, k, 1.0f, A.get(), k, B.get(), 40, 0.0f, C.get(), n, p};
    tessel::GemmArgs odd_ptr{Op::N, Op::N, m, n, 32, 1.0f, A.get() + e, 32, B.get(), 40, 0.0f, C.get(), n, p};
    int tested = 0;
    for (const auto& info : tessel::kernels()) {
      // (Kernels that also take FP32 compute, step 16's, are the test above's.)
      if (info.ladder_step < 10 || info.alignment == 1 || info.precisions[0].ab != p.ab || info.takes({}) ||
          !runs_here(info)) {
        continue;
      }
      ++tested;
      tessel::Status s = tessel::run_kernel(info.name, within_rows(info, odd_lda));
      EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
      EXPECT_NE(s.message().find("lda a multiple of " + std::to_string(16 / e) + " (lda = 33)"), std::string::npos)
          << s.message();
      s = tessel::run_kernel(info.name, within_rows(info, odd_ptr));
      EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
      EXPECT_NE(s.message().find("A aligned to 16 bytes"), std::string::npos) << s.message();
      // The wrong precision is refused by name too.
      tessel::GemmArgs f32 = within_rows(info, odd_lda);
      f32.precision = tessel::Precision{};
      s = tessel::run_kernel(info.name, f32);
      EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
      EXPECT_NE(s.message().find("not f32"), std::string::npos) << s.message();
    }
    // mma.sync's configurations and (f16, bf16) step 16's stream, + on Hopper step 10's TMA-fed variant,
    // steps 11-13, step 14's four tile shapes, its ping-pong tiles and its single-CTA split-k, step 15's
    // six and step 16's swapped tiles (tf32: step 14's four tile shapes and single-CTA split-k and step
    // 16's swapped tiles).
    const bool f32 = p.ab == tessel::DType::kF32;
    EXPECT_EQ(tested, !hopper() ? (f32 ? 2 : 3) : f32 ? 8 : 20) << name;
    for (const tessel::GemmArgs& a : {odd_lda, odd_ptr}) {
      std::string chosen;
      ASSERT_TRUE(tessel::select_kernel(a, &chosen).ok());
      EXPECT_EQ(tessel::find_kernel(chosen)->alignment, 1) << chosen;
      EXPECT_TRUE(tessel::gemm(a).ok()) << chosen;
    }
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Auto-dispatch of an aligned f16 call runs the top step, never FP32 or TF32 for FP32 data.
TEST_F(Api, AutoDispatchPicksByPrecision) {
  DeviceBuffer<float> A(256 * 256), B(256 * 256), C(256 * 256);
  std::string name;
  tessel::GemmArgs a{Op::N, Op::N, 256, 256, 256, 1.0f, A.get(), 256, B.get(), 256, 0.0f, C.get(), 256, {}};
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  EXPECT_EQ(tessel::find_kernel(name)->ladder_step, 8) << name;
  auto top = [](const std::string& kernel) { return tessel::find_kernel(kernel)->ladder_step; };
  a.precision = *tessel::parse_precision("tf32");
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  // On Hopper: step 14's tf32 tiles (16 tiles of 64 x 64: on single CTAs, k split).
  EXPECT_EQ(hopper() ? top(name) == 14 && name.find("_tf32_") != std::string::npos : name.rfind("mma_tf32_", 0) == 0,
            true)
      << name;
  a.precision = *tessel::parse_precision("bf16:f32");
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  // On Hopper: steps 14 or 15 (whichever the estimate prefers for the shape).
  EXPECT_EQ(hopper() ? top(name) >= 14 : name.rfind("mma_bf16_", 0) == 0, true) << name;
  EXPECT_NE(name.find("bf16"), std::string::npos) << name;
  a.precision = *tessel::parse_precision("f16");
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  EXPECT_EQ(hopper() ? top(name) >= 14 : name.rfind("mma_f16_", 0) == 0, true) << name;
  EXPECT_NE(name.find("f16"), std::string::npos) << name;
  EXPECT_EQ(name.find("bf16"), std::string::npos) << name;
}

// "tf32" rounds each FP32 input to the nearest tf32 value (10 fraction
// bits), as cuBLAS does: with every input 1 + 3 * 2^-12, each product is
// (1 + 2^-10)^2 rounded, (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 exactly in the
// FP32 accumulators; truncating inputs would give 1, FP32 inputs
// 1 + 6 * 2^-12 + 9 * 2^-24. k = 70 crosses the kernels' k-slices.
TEST_F(Api, Tf32RoundsInputsToNearest) {
  const int64_t m = 3, n = 5, k = 70, ld = 72;
  const float x = 1.0f + 3.0f / 4096.0f;
  DeviceBuffer<float> A(std::vector<float>(k * ld, x)), B(std::vector<float>(k * ld, x)), C(m * ld);
  const double product = 1.0 + std::ldexp(1.0, -9) + std::ldexp(1.0, -20), want = double(k) * product;
  const tessel::Precision tf32 = *tessel::parse_precision("tf32");
  int tested = 0;
  for (const auto& info : tessel::kernels()) {
    if (!info.takes(tf32) || !runs_here(info)) continue;
    ++tested;
    for (const auto& [opA, opB] : parse_ops("NN,NT,TN,TT")) {
      const tessel::GemmArgs a{opA, opB, m, n, k, 1.0f, A.get(), ld, B.get(), ld, 0.0f, C.get(), ld, tf32};
      ASSERT_TRUE(tessel::run_kernel(info.name, a).ok()) << info.name;
      const std::vector<float> d = C.download();
      // Kernels that take FP32 compute too (step 16) compute tf32 calls in FP32: never truncated either.
      const double exact = info.takes({}) ? double(k) * double(x) * double(x) : want;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          EXPECT_NEAR(d[i * ld + j], exact, 1e-5 * exact)
              << info.name << " " << to_string(OpPair{opA, opB}) << " (" << i << ", " << j << "): truncated inputs give "
              << k << ", FP32 inputs " << double(k) * double(x) * double(x);
        }
      }
    }
  }
  EXPECT_GE(tested, 4);  // WMMA (2) and mma.sync (2) configurations, + step 14's on Hopper
}

TEST_F(Api, TunedChoiceIsTakenForTheExactCallOnly) {
  const std::string path = "tessel-test-" + std::to_string(::getpid()) + ".tune";
  ASSERT_TRUE(tessel::write_tuning(path, {{96, 96, 64, Op::N, Op::N, true, "warptile"},
                                          {96, 96, 64, Op::N, Op::N, false, "smem"}}).ok());
  ASSERT_EQ(setenv("TESSEL_TUNE_FILE", path.c_str(), 1), 0);
  tessel::reload_tuning();
  DeviceBuffer<float> A(96 * 64 + 1), B(64 * 96 + 1), C(96 * 96 + 1);
  std::string name;
  const SgemmArgs a{Op::N, Op::N, 96, 96, 64, 1.0f, A.get(), 64, B.get(), 96, 0.0f, C.get(), 96};
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  EXPECT_EQ(name, "warptile");
  SgemmArgs other = a;
  other.k = 65, other.lda = 65;  // not in the file, and unaligned: heuristics
  ASSERT_TRUE(tessel::select_kernel(other, &name).ok());
  EXPECT_NE(name, "warptile");
  SgemmArgs unaligned = a;
  unaligned.B = B.get() + 1;  // same sizes, the other alignment class
  ASSERT_TRUE(tessel::select_kernel(unaligned, &name).ok());
  EXPECT_EQ(name, "smem");
  unsetenv("TESSEL_TUNE_FILE");
  tessel::reload_tuning();
  std::remove(path.c_str());
}

TEST_F(Api, RunsOnTheGivenStream) {
  const int64_t n = 300;
  std::vector<float> hA(n * n), hB(n * n);
  fill_random(hA, 1), fill_random(hB, 2);
  DeviceBuffer<float> A(hA), B(hB), C1(n * n), C2(n * n);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_TRUE(tessel::sgemm(Op::N, Op::T, n, n, n, 1.0f, A.get(), n, B.get(), n, 0.0f, C1.get(), n, stream).ok());
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_TRUE(tessel::run_kernel("naive", SgemmArgs{Op::N, Op::T, n, n, n, 1.0f, A.get(), n, B.get(), n, 0.0f, C2.get(), n}).ok());
  const auto d1 = C1.download(), d2 = C2.download();
  double diff = 0, ref = 0;
  for (size_t i = 0; i < d1.size(); ++i) diff += (d1[i] - d2[i]) * (d1[i] - d2[i]), ref += d2[i] * d2[i];
  EXPECT_LT(std::sqrt(diff / ref), 1e-5);
  cudaStreamDestroy(stream);
}

// Step 15 on two streams at once: each stream has its own workspace, and
// neither kernel's grid fits beside the other, so their clusters start as
// SMs free up; a cluster only ever waits for lower-indexed ones (started
// first), so both finish, and each result equals the one computed alone
// (stream-K adds the partial sums in a fixed order).
TEST_F(Api, StreamKOnTwoStreamsAtOnce) {
  if (!hopper()) GTEST_SKIP() << "step 15 needs compute capability 9.0";
  const int clusters = query_gpu().sm_count / 2;  // of two CTAs: one per SM
  const int64_t m = 128, n = (2 * clusters + 5) * 256, k = 2048;  // 2 whole waves of units, then shared ones
  ASSERT_GT(tessel::impl::plan_stream_k(n / 256, k / 64, clusters).sharing, 0);
  const tessel::Precision p = *tessel::parse_precision("bf16");
  std::vector<float> hA(m * k), hB(k * n);
  fill_random(hA, 11), fill_random(hB, 12);
  DeviceBuffer<uint8_t> A(encode(hA, p.ab)), B(encode(hB, p.ab));
  const size_t c_bytes = size_t(m * n) * tessel::size_of(p.c);
  DeviceBuffer<uint8_t> alone(c_bytes), C1(c_bytes), C2(c_bytes);
  auto args = [&](void* C) { return tessel::GemmArgs{Op::N, Op::N, m, n, k, 1.0f, A.get(), k, B.get(), n, 0.0f, C, n, p}; };
  cudaStream_t s1, s2;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_TRUE(tessel::run_kernel("wgmma_cluster_bf16_128x256_streamk", args(alone.get()), s1).ok());
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(tessel::run_kernel("wgmma_cluster_bf16_128x256_streamk", args(C1.get()), s1).ok());
    ASSERT_TRUE(tessel::run_kernel("wgmma_cluster_bf16_128x256_streamk", args(C2.get()), s2).ok());
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto ref = alone.download(), d1 = C1.download(), d2 = C2.download();
  EXPECT_TRUE(ref == d1);
  EXPECT_TRUE(ref == d2);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

// Two host threads on one stream, each with its own tf32 NN calls (B is
// copied transposed into a workspace first): each thread has its own
// workspace, so neither thread's copy can overwrite the other's before
// its GEMM reads it. Every result must equal the one computed alone.
TEST_F(Api, Tf32FromTwoThreadsOnOneStream) {
  if (!hopper()) GTEST_SKIP() << "step 14's tf32 kernels need compute capability 9.0";
  const int64_t m = 256, n = 512, k = 384;
  constexpr int kRounds = 8;
  const tessel::Precision tf32 = *tessel::parse_precision("tf32");
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  struct Side {
    DeviceBuffer<float> A, B, alone;
    std::vector<DeviceBuffer<float>> C;  // one per round
  } sides[2];
  auto args = [&](const Side& side, float* C) {
    return tessel::GemmArgs{Op::N, Op::N, m, n, k, 1.0f, side.A.get(), k, side.B.get(), n, 0.0f, C, n, tf32};
  };
  for (int t = 0; t < 2; ++t) {
    std::vector<float> hA(m * k), hB(k * n);
    fill_random(hA, 20 + t), fill_random(hB, 30 + t);
    sides[t].A = DeviceBuffer<float>(hA), sides[t].B = DeviceBuffer<float>(hB), sides[t].alone = DeviceBuffer<float>(m * n);
    for (int r = 0; r < kRounds; ++r) sides[t].C.emplace_back(m * n);
    ASSERT_TRUE(tessel::run_kernel("wgmma_cluster_tf32_128x256", args(sides[t], sides[t].alone.get()), stream).ok());
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  bool ok[2] = {true, true};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        ok[t] = ok[t] && tessel::run_kernel("wgmma_cluster_tf32_128x256", args(sides[t], sides[t].C[r].get()), stream).ok();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  for (int t = 0; t < 2; ++t) {
    EXPECT_TRUE(ok[t]) << "thread " << t;
    const std::vector<float> ref = sides[t].alone.download();
    for (int r = 0; r < kRounds; ++r) EXPECT_TRUE(sides[t].C[r].download() == ref) << "thread " << t << " round " << r;
  }
  cudaStreamDestroy(stream);
}

// Operands not in 16-byte units, on a call large enough to pay for copying
// them: auto-dispatch runs an aligned kernel on copies with aligned rows
// (checked against cuBLAS and fp64, guard zones and padding intact); named,
// that kernel refuses them; captured without a workspace, the call runs on
// the kernels that need no copies.
TEST_F(Api, UnalignedOperandsReachTheAlignedKernelsThroughCopies) {
  Cublas cublas;
  const Shape shape{2050, 2060, 2052};  // large enough for the copies to pay in every precision
  uint64_t seed = 40;
  for (const char* name : {"tf32", "f16", "bf16", "bf16:f32"}) {  // (f32: its aligned kernels need C aligned too)
    const tessel::Precision p = *tessel::parse_precision(name);
    const size_t e = tessel::size_of(p.ab);
    for (const auto& [opA, opB] : parse_ops("NN,NT,TN,TT")) {
      // The choice: the odd leading dimensions (ld_pad 1) and a pointer one element in.
      tessel::GemmArgs a = to_gemm(make_layout({opA, opB}, shape, 1.0f, 0.0f, 1, 1));
      a.precision = p;
      a.A = reinterpret_cast<const void*>(uintptr_t(1) << 20), a.B = reinterpret_cast<const void*>((uintptr_t(1) << 21) + e);
      a.C = reinterpret_cast<void*>(uintptr_t(1) << 22);
      std::string chosen;
      ASSERT_TRUE(tessel::select_kernel(a, &chosen).ok());
      EXPECT_GT(tessel::find_kernel(chosen)->alignment, 1) << name << " " << chosen;
      VerifyCase c{kAuto, opA, opB, shape, 1.25f, 0.5f, 1, seed++, 1, p};
      c.offset = 1;
      const VerifyResult r = verify_case(cublas, c);
      EXPECT_TRUE(r.passed) << name << " " << to_string(OpPair{opA, opB}) << ": " << r.reason;
      c.kernel = chosen;  // by name: refused, nothing written
      const VerifyResult named = verify_case(cublas, c);
      EXPECT_EQ(named.status.code(), StatusCode::kNotSupported) << chosen;
      EXPECT_EQ(named.clobbered, 0) << chosen;
    }
  }

  // Without room for the copies: a captured stream and no workspace.
  const tessel::Precision bf16 = *tessel::parse_precision("bf16");
  const tessel::SgemmArgs layout = make_layout({Op::N, Op::N}, shape, 1.0f, 0.0f, 1, 1);
  tessel::GemmArgs a = to_gemm(layout);
  a.precision = bf16;
  std::vector<float> hA(size_t(stored_rows_a(layout) * a.lda)), hB(size_t(stored_rows_b(layout) * a.ldb));
  fill_random(hA, 7), fill_random(hB, 8);
  DeviceBuffer<uint8_t> A(encode(hA, bf16.ab)), B(encode(hB, bf16.ab)), C(size_t(a.m * a.ldc) * 2), D(C.size());
  a.A = A.get(), a.B = B.get(), a.C = C.get();
  ASSERT_TRUE(tessel::gemm(a).ok());
  const std::vector<float> copied = decode(C.download(), bf16.c);
  auto close_to_copied = [&](const std::vector<float>& d) {
    double diff2 = 0, ref2 = 0;
    for (int64_t i = 0; i < a.m; ++i) {
      for (int64_t j = 0; j < a.n; ++j) {
        const double x = d[size_t(i * a.ldc + j)], y = copied[size_t(i * a.ldc + j)];
        diff2 += (x - y) * (x - y), ref2 += y * y;
      }
    }
    return relative(diff2, ref2);
  };
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemset(D.get(), 0, D.size()), cudaSuccess);
  tessel::GemmArgs captured = a;
  captured.C = D.get();
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const tessel::Status s = tessel::gemm(captured, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(s.ok()) << s.message();
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_LT(close_to_copied(decode(D.download(), bf16.c)), 1e-2);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
