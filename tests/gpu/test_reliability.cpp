// What a caller can do around a call without breaking it: leave an error
// pending, pass pointers inside an element, capture into graphs, share
// streams and threads, release scratch memory, reset the device. Each test
// is named after the behaviour it holds to.
#include <tessel/tessel.hpp>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/fuzz.hpp"
#include "harness/reference.hpp"
#include "harness/typed.hpp"
#include "harness/verify.hpp"

namespace {

using namespace tessel::harness;
using tessel::GemmArgs;
using tessel::Op;
using tessel::StatusCode;

class Reliability : public GpuTest {};

// An FP32 call with few output tiles and deep k: auto-dispatch splits k.
struct SplitCall {
  static constexpr int64_t m = 64, n = 64, k = 16384;
  std::vector<float> hA = random(m * k, 1), hB = random(k * n, 2), hC = random(m * n, 3);
  DeviceBuffer<float> A{hA}, B{hB}, C{hC};
  static std::vector<float> random(size_t count, uint64_t seed) {
    std::vector<float> v(count);
    fill_random(v, seed);
    return v;
  }
  GemmArgs args(float beta = 0.5f) const {
    return {Op::N, Op::N, m, n, k, 1.0f, A.get(), k, B.get(), n, beta, C.get(), n, tessel::Precision{}};
  }
  // Largest error against the fp64 reference, relative to the largest |reference|.
  double error() const {
    std::vector<float> c = hC;  // the input C, read for beta
    const tessel::SgemmArgs host{Op::N, Op::N, m, n, k, 1.0f, hA.data(), k, hB.data(), n, 0.5f, c.data(), n};
    const std::vector<double> ref = reference_gemm(host);
    const std::vector<float> got = C.download();
    double worst = 0, scale = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      worst = std::max(worst, std::abs(double(got[i]) - ref[i]));
      scale = std::max(scale, std::abs(ref[i]));
    }
    return worst / scale;
  }
};

TEST_F(Reliability, PendingErrorIsNotTheCallsOwn) {
  SplitCall call;
  void* huge = nullptr;
  ASSERT_EQ(cudaMalloc(&huge, size_t(1) << 50), cudaErrorMemoryAllocation);  // the caller's own failure, left pending
  const tessel::Status s = tessel::gemm(call.args());
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_LT(call.error(), 1e-5);
  cudaGetLastError();  // the caller's error may or may not be pending still: the runtime decides that
}

TEST_F(Reliability, MisalignedElementPointerIsRefusedByName) {
  DeviceBuffer<float> buf(64 * 64 + 4);
  float* const good = buf.get();
  float* const off = reinterpret_cast<float*>(reinterpret_cast<char*>(good) + 2);
  const std::vector<float> before = buf.download();
  const std::vector<std::pair<std::string, GemmArgs>> cases = {
      {"A", {Op::N, Op::N, 64, 64, 64, 1.0f, off, 64, good, 64, 0.0f, good + 4, 64, tessel::Precision{}}},
      {"B", {Op::N, Op::N, 64, 64, 64, 1.0f, good, 64, off, 64, 0.0f, good + 4, 64, tessel::Precision{}}},
      {"C", {Op::N, Op::N, 64, 64, 64, 1.0f, good, 64, good, 64, 0.0f, off, 64, tessel::Precision{}}},
  };
  for (const auto& [operand, a] : cases) {
    const tessel::Status s = tessel::gemm(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << operand << ": " << s.message();
    EXPECT_NE(s.message().find(operand + " is not aligned to its 4-byte f32 elements"), std::string::npos) << s.message();
    for (const auto& k : tessel::kernels()) {
      if (k.takes(tessel::Precision{}) && runs_here(k)) {
        EXPECT_EQ(tessel::run_kernel(k.name, a).code(), StatusCode::kInvalidArgument) << k.name << ", " << operand;
      }
    }
  }
  // 16-bit elements: a pointer one byte in.
  const tessel::Precision f16 = *tessel::parse_precision("f16");
  auto* bytes = reinterpret_cast<char*>(good);
  const GemmArgs h{Op::N, Op::N, 8, 8, 8, 1.0f, bytes + 1, 8, bytes, 8, 0.0f, bytes + 256, 8, f16};
  const tessel::Status s = tessel::gemm(h);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("A is not aligned to its 2-byte f16 elements"), std::string::npos) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> after = buf.download();
  EXPECT_EQ(std::memcmp(after.data(), before.data(), after.size() * sizeof(float)), 0) << "a refused call changes nothing";
}

// Bitwise reproducible by default: split-k (aligned and unaligned C) and
// stream-K give the same bits on every run; with atomics allowed the result
// is still right to FP32 rounding.
TEST_F(Reliability, ResultsAreBitwiseReproducibleByDefault) {
  struct Shape {
    int64_t m, n, k, ldc;
  };
  for (const Shape& sh : {Shape{64, 64, 16384, 64}, Shape{127, 4097, 1000, 4097}, Shape{100, 100, 8192, 101},
                          Shape{3072, 3072, 512, 3072}}) {
    std::vector<float> hA(sh.m * sh.k), hB(sh.k * sh.n), hC(sh.m * sh.ldc);
    fill_random(hA, 5), fill_random(hB, 6), fill_random(hC, 7);
    DeviceBuffer<float> A(hA), B(hB), C(hC);
    GemmArgs a{Op::N, Op::N, sh.m, sh.n, sh.k, 1.0f, A.get(), sh.k, B.get(), sh.n, 0.25f, C.get(), sh.ldc,
               tessel::Precision{}};
    std::vector<float> first;
    for (int run = 0; run < 4; ++run) {
      C.upload(hC);
      ASSERT_TRUE(tessel::gemm(a).ok());
      const std::vector<float> got = C.download();
      if (run == 0) first = got;
      EXPECT_EQ(std::memcmp(got.data(), first.data(), got.size() * sizeof(float)), 0)
          << sh.m << "x" << sh.n << "x" << sh.k << " run " << run;
    }
    a.allow_atomics = true;
    C.upload(hC);
    ASSERT_TRUE(tessel::gemm(a).ok());
    const std::vector<float> atomic = C.download();
    double worst = 0, scale = 0;
    for (size_t i = 0; i < first.size(); ++i) {
      worst = std::max(worst, double(std::abs(atomic[i] - first[i])));
      scale = std::max(scale, double(std::abs(first[i])));
    }
    EXPECT_LT(worst / scale, 1e-5) << sh.m << "x" << sh.n << "x" << sh.k << " with atomics";
  }
}

// A call with a workspace of its own never allocates: captured into a graph,
// replayed later on another stream after calls that grow tessel's own
// buffers, it gives the result of the direct call, bit for bit.
TEST_F(Reliability, CallerWorkspaceCapturesIntoAGraph) {
  SplitCall call;
  GemmArgs a = call.args();
  size_t need = 0;
  ASSERT_TRUE(tessel::workspace_size(a, &need).ok());
  ASSERT_GT(need, 0u) << "a split-k call sums its parts in a workspace";
  ASSERT_TRUE(tessel::gemm(a).ok());
  const std::vector<float> direct = call.C.download();

  DeviceBuffer<uint8_t> ws(need + 3);
  a.workspace = ws.get() + 3, a.workspace_bytes = need;  // any alignment
  cudaStream_t capture_stream, replay_stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&replay_stream, cudaStreamNonBlocking), cudaSuccess);
  call.C.upload(call.hC);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(capture_stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const tessel::Status captured = tessel::gemm(a, capture_stream);
  ASSERT_EQ(cudaStreamEndCapture(capture_stream, &graph), cudaSuccess);
  ASSERT_TRUE(captured.ok()) << captured.message();
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  // Other calls in between, on tessel's own (growing) buffers.
  for (int64_t k : {4096, 32768, 65536}) {
    DeviceBuffer<float> X(64 * k), Y(k * 64), Z(64 * 64);
    ASSERT_TRUE(tessel::sgemm(Op::N, Op::N, 64, 64, k, 1.0f, X.get(), k, Y.get(), 64, 0.0f, Z.get(), 64,
                              capture_stream).ok());
  }
  for (int replay = 0; replay < 3; ++replay) {
    call.C.upload(call.hC);
    ASSERT_EQ(cudaGraphLaunch(exec, replay_stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(replay_stream), cudaSuccess);
    const std::vector<float> got = call.C.download();
    EXPECT_EQ(std::memcmp(got.data(), direct.data(), got.size() * sizeof(float)), 0) << "replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(capture_stream);
  cudaStreamDestroy(replay_stream);
}

// Without a workspace, a call that needs scratch memory refuses to be
// captured (it would allocate, or leave a graph holding tessel's buffer),
// leaves C and the capture as they were; one that needs none is captured.
// A framework's allocator serves the scratch memory: asked once, with the
// bytes the chosen plan needs, only by calls that need some; its failure is
// the call's status and C is untouched; under capture the call works.
TEST_F(Reliability, AllocatorServesTheScratchMemory) {
  SplitCall call;
  const GemmArgs a = call.args();
  size_t need = 0;
  ASSERT_TRUE(tessel::workspace_size(a, &need).ok());
  ASSERT_GT(need, 0u);
  ASSERT_TRUE(tessel::gemm(a).ok());
  const std::vector<float> direct = call.C.download();

  DeviceBuffer<uint8_t> pool(need);
  std::vector<size_t> asked;
  const tessel::WorkspaceAllocator allocate = [&](size_t bytes, void** out) -> tessel::Status {
    asked.push_back(bytes);
    if (bytes > pool.size()) return {StatusCode::kInternal, "pool too small"};
    *out = pool.get();
    return {};
  };
  call.C.upload(call.hC);
  ASSERT_TRUE(tessel::gemm(a, nullptr, allocate).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(asked, std::vector<size_t>{need});
  const std::vector<float> got = call.C.download();
  EXPECT_EQ(std::memcmp(got.data(), direct.data(), got.size() * sizeof(float)), 0);

  // Under capture: the allocator's memory, no allocation of tessel's own.
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  call.C.upload(call.hC);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const tessel::Status captured = tessel::gemm(a, stream, allocate);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(captured.ok()) << captured.message();
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const std::vector<float> replayed = call.C.download();
  EXPECT_EQ(std::memcmp(replayed.data(), direct.data(), replayed.size() * sizeof(float)), 0);
  cudaGraphExecDestroy(exec), cudaGraphDestroy(graph), cudaStreamDestroy(stream);

  // A failing allocator: its status, C untouched.
  call.C.upload(call.hC);
  const tessel::Status refused = tessel::gemm(a, nullptr, [](size_t, void**) -> tessel::Status {
    return {StatusCode::kInternal, "no memory here"};
  });
  EXPECT_EQ(refused.code(), StatusCode::kInternal);
  EXPECT_NE(refused.message().find("no memory here"), std::string::npos) << refused.message();
  EXPECT_EQ(call.C.download(), call.hC);

  // A call that needs no scratch memory never asks.
  asked.clear();
  DeviceBuffer<float> X(256 * 256), Y(256 * 256), Z(256 * 256);
  const GemmArgs small{Op::N, Op::N, 256, 256, 256, 1.0f, X.get(), 256, Y.get(), 256, 0.0f, Z.get(), 256,
                       tessel::Precision{}};
  size_t small_need = 1;
  ASSERT_TRUE(tessel::workspace_size(small, &small_need).ok());
  ASSERT_TRUE(tessel::gemm(small, nullptr, allocate).ok());
  if (small_need == 0) EXPECT_TRUE(asked.empty());
}

// Captured without a workspace, a call whose plan needs scratch memory runs
// its lean plan (k not split, no optional copies) where that needs none and
// keeps the tensor cores' accumulation chains short; else it is refused
// with C and the capture as they were.
TEST_F(Reliability, CaptureWithoutWorkspaceRunsLeanOrIsRefusedCleanly) {
  SplitCall call;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const int64_t deep_k = 65536;  // deeper than one tensor-core chain may be
  std::vector<float> h(size_t(64 * deep_k));
  fill_random(h, 11);
  const tessel::Precision bf16 = *tessel::parse_precision("bf16:f32");
  DeviceBuffer<uint8_t> X(encode(h, bf16.ab)), Y(encode(h, bf16.ab));
  const std::vector<float> z0(64 * 64, 3.0f);
  DeviceBuffer<float> Z(z0);
  const GemmArgs deep{Op::N, Op::T, 64, 64, deep_k, 1.0f, X.get(), deep_k, Y.get(), deep_k, 0.5f, Z.get(), 64, bf16};
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const tessel::Status lean = tessel::gemm(call.args(), stream);
  const tessel::Status refused = tessel::gemm(deep, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the capture is intact";
  EXPECT_TRUE(lean.ok()) << lean.message();
  EXPECT_EQ(refused.code(), StatusCode::kNotSupported) << refused.message();
  EXPECT_NE(refused.message().find("workspace"), std::string::npos) << refused.message();
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_LT(call.error(), 1e-5);
  EXPECT_EQ(Z.download(), z0);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

TEST_F(Reliability, WorkspaceTooSmallIsRefusedByName) {
  SplitCall call;
  GemmArgs a = call.args();
  size_t need = 0;
  ASSERT_TRUE(tessel::workspace_size(a, &need).ok());
  DeviceBuffer<uint8_t> ws(need);
  a.workspace = ws.get(), a.workspace_bytes = need - 1;
  const tessel::Status s = tessel::gemm(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("workspace_bytes = " + std::to_string(need - 1) + " is too small"), std::string::npos)
      << s.message();
  a.workspace = nullptr;
  EXPECT_EQ(tessel::gemm(a).code(), StatusCode::kInvalidArgument) << "a size without a pointer";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(call.C.download() == call.hC);
}

TEST_F(Reliability, ReleaseWorkspacesThenCallAgain) {
  SplitCall call;
  ASSERT_TRUE(tessel::gemm(call.args()).ok());
  const std::vector<float> first = call.C.download();
  ASSERT_TRUE(tessel::release_workspaces().ok());
  call.C.upload(call.hC);
  ASSERT_TRUE(tessel::gemm(call.args()).ok());
  EXPECT_TRUE(call.C.download() == first);
}

// cudaDeviceReset() destroys every allocation, tessel's buffers and raised
// shared-memory limits included: the next call must not use any of them.
TEST_F(Reliability, DeviceResetThenCallIsCorrect) {
  const char* kernels[] = {"pipelined_64x64_splitk", hopper() ? "wgmma_cluster_f16_128x256" : "mma_f16_128x128"};
  for (int round = 0; round < 2; ++round) {
    {
      SplitCall call;
      ASSERT_TRUE(tessel::run_kernel(kernels[0], call.args()).ok());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_LT(call.error(), 1e-5) << "round " << round;
      const tessel::Precision f16 = *tessel::parse_precision("f16");
      std::vector<float> h(256 * 256, 0.5f);
      DeviceBuffer<uint8_t> A(encode(h, f16.ab)), C(256 * 256 * 2);
      const GemmArgs a{Op::N, Op::N, 256, 256, 256, 1.0f, A.get(), 256, A.get(), 256, 0.0f, C.get(), 256, f16};
      ASSERT_TRUE(tessel::run_kernel(kernels[1], a).ok());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> got = decode(C.download(), f16.c);
      EXPECT_EQ(got[0], 64.0f) << "round " << round;  // 256 products of 0.25
      EXPECT_EQ(got.back(), 64.0f) << "round " << round;
    }
    tessel::harness::release_case_arrays();  // the reset frees every allocation, the verifier's cached ones too
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  }
}

// A leading dimension TMA cannot stride (2^40 bytes and more; legal here, A
// has one row): auto-dispatch takes a kernel without TMA, and the TMA ones
// refuse by name with the reason.
TEST_F(Reliability, LaunchLimitsAreCheckedBeforeLaunch) {
  const tessel::Precision f16 = *tessel::parse_precision("f16");
  const int64_t m = 1, n = 256, k = 64, lda = int64_t(1) << 40;
  DeviceBuffer<uint8_t> A(encode(std::vector<float>(k, 1.0f), f16.ab)), B(encode(std::vector<float>(k * n, 1.0f), f16.ab));
  DeviceBuffer<uint8_t> C(n * 2);
  const GemmArgs a{Op::N, Op::N, m, n, k, 1.0f, A.get(), lda, B.get(), n, 0.0f, C.get(), n, f16};
  const tessel::Status s = tessel::gemm(a);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> got = decode(C.download(), f16.c);
  EXPECT_EQ(got[0], 64.0f);
  EXPECT_EQ(got[n - 1], 64.0f);
  if (hopper()) {
    const tessel::Status t = tessel::run_kernel("wgmma_cluster_f16_64x128", a);
    EXPECT_EQ(t.code(), StatusCode::kNotSupported) << t.message();
    EXPECT_NE(t.message().find("below 2^40 bytes"), std::string::npos) << t.message();
  }
}

TEST_F(Reliability, SelectKernelWithoutANameIsAnError) {
  SplitCall call;
  EXPECT_EQ(tessel::select_kernel(call.args(), nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(tessel::workspace_size(call.args(), nullptr).code(), StatusCode::kInvalidArgument);
}

// Two host threads share one stream; each call's split-k parts and copies
// live in that thread's buffers, so results stay exact while buffers grow.
TEST_F(Reliability, ThreadsSharingAStream) {
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  auto work = [&](int seed, bool* ok) {
    for (int64_t k : {2048, 8192, 16384, 4096}) {
      std::vector<float> hA(64 * k), hB(k * 96);
      fill_random(hA, seed), fill_random(hB, seed + 1);
      DeviceBuffer<float> A(hA), B(hB), C1(64 * 96), C2(64 * 96);
      const GemmArgs a{Op::N, Op::N, 64, 96, k, 1.0f, A.get(), k, B.get(), 96, 0.0f, C1.get(), 96, tessel::Precision{}};
      GemmArgs b = a;
      b.C = C2.get();
      *ok = *ok && tessel::gemm(a, stream).ok() && tessel::gemm(b, stream).ok();
      cudaStreamSynchronize(stream);
      *ok = *ok && C1.download() == C2.download();
    }
  };
  bool ok1 = true, ok2 = true;
  std::thread t1(work, 10, &ok1), t2(work, 20, &ok2);
  t1.join(), t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
  cudaStreamDestroy(stream);
}

}  // namespace

namespace {

// A short fuzz run (the long one: `tessel fuzz --seconds S`): random calls,
// graphs, threads, pending errors and bad input, every case correct.
TEST_F(Reliability, FuzzShortRun) {
  std::ostringstream log;
  tessel::harness::FuzzOptions o;
  o.seconds = 20, o.seed = 7, o.threads = 2;
  const tessel::harness::FuzzReport r = tessel::harness::run_fuzz(o, log);
  EXPECT_GT(r.cases, 100);
  EXPECT_GT(r.graph_cases, 0);
  EXPECT_GT(r.pending_cases, 0);
  EXPECT_GT(r.bad_input_cases, 0);
  EXPECT_GT(r.batch_cases, 0);
  if (hopper()) EXPECT_GT(r.grouped_cases, 0);
  EXPECT_EQ(r.failed, 0) << log.str();
}

}  // namespace
