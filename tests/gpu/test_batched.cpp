// Strided batches (GemmArgs::batch): every precision and op pair, stacked,
// side-by-side and shared-B layouts, against cuBLAS's strided-batched GEMM
// and fp64, with guards between the matrices; every registered kernel by
// name (in one launch where it walks batches, else a launch per matrix).
// Pointer-array batches over the same layouts, reversed arrays and matrices
// one element past 16 bytes, by name and auto-dispatch, captured into graphs.
// Grouped GEMMs (GemmArgs::group_offsets): skewed and empty groups, tails
// that no group covers, every kernel that takes them, the others' refusal;
// and problems with sizes of their own (GemmArgs::problems).
#include <tessel/tessel.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/reference.hpp"
#include "harness/shapes.hpp"
#include "harness/typed.hpp"
#include "harness/verify_batch.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;

class Batched : public GpuTest {};

std::vector<std::string> precisions_here() {
  std::vector<std::string> out = {"f32", "tf32", "f16", "f16:f32", "bf16", "bf16:f32"};
  if (hopper()) out.push_back("e4m3:bf16");
  return out;
}

TEST_F(Batched, EveryPrecisionOpPairAndLayout) {
  Cublas cublas;
  struct Case {
    Shape shape;
    int64_t batch;
  };
  const std::vector<Case> cases = {{{67, 45, 33}, 3}, {{128, 128, 256}, 5}, {{200, 130, 70}, 2}, {{1, 300, 64}, 4}};
  uint64_t seed = 1;
  for (const std::string& name : precisions_here()) {
    const tessel::Precision p = *tessel::parse_precision(name);
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      for (const Case& cs : cases) {
        for (int layout = 0; layout < 3; ++layout) {
          BatchCase c;
          c.opA = ops.first, c.opB = ops.second, c.shape = cs.shape, c.batch = cs.batch, c.precision = p;
          c.seed = seed++;
          c.share_b = layout == 1, c.side_by_side = layout == 2;
          if (c.seed % 2 == 0) c.alpha = -0.75f, c.beta = 1.25f;
          const VerifyResult r = verify_batch(cublas, c);
          EXPECT_TRUE(r.passed) << name << " " << to_string(ops) << " " << to_string(cs.shape) << " x" << cs.batch
                                << " layout " << layout << ": " << r.reason;
        }
      }
    }
  }
}

// Each kernel by name on a batch of its first precision: the batch kernels in
// one launch, the others a launch per matrix; both must give every matrix.
TEST_F(Batched, EveryKernelByName) {
  Cublas cublas;
  uint64_t seed = 100;
  for (const tessel::KernelInfo& k : tessel::kernels()) {
    if (!runs_here(k)) continue;
    BatchCase c;
    c.kernel = k.name, c.opA = Op::N, c.opB = Op::T, c.batch = 3, c.precision = k.precisions.front();
    c.shape = {std::min<int64_t>(k.max_m > 0 ? k.max_m : 150, 150), 140, 90};
    for (bool share_b : {false, true}) {
      c.share_b = share_b, c.seed = seed++, c.beta = share_b ? 0.5f : 0.0f;
      const VerifyResult r = verify_batch(cublas, c);
      EXPECT_TRUE(r.passed) << k.name << (share_b ? " shared B" : "") << ": " << r.reason;
    }
  }
}

// The sizes the benchmark compares with cuBLAS: many matrices, deep k, and a batch past one wave.
TEST_F(Batched, ManyMatricesAndDeepK) {
  Cublas cublas;
  for (const char* name : {"bf16", "f32"}) {
    for (const auto& [shape, batch] : {std::pair{Shape{128, 128, 4096}, int64_t(64)}, std::pair{Shape{96, 72, 40}, int64_t(300)}}) {
      BatchCase c;
      c.opA = Op::N, c.opB = Op::T, c.shape = shape, c.batch = batch, c.precision = *tessel::parse_precision(name);
      const VerifyResult r = verify_batch(cublas, c);
      EXPECT_TRUE(r.passed) << name << " " << to_string(shape) << " x" << batch << ": " << r.reason;
    }
  }
}

// k == 0: every matrix's C becomes beta * C (zeros for beta = 0), a matrix at a time.
TEST_F(Batched, WithoutAProductEveryMatrixIsScaled) {
  Cublas cublas;
  uint64_t seed = 700;
  for (const char* name : {"f32", "bf16"}) {
    for (float beta : {0.0f, 0.5f}) {
      BatchCase c;
      c.opA = Op::N, c.opB = Op::T, c.shape = {40, 30, 0}, c.batch = 3, c.precision = *tessel::parse_precision(name);
      c.beta = beta, c.seed = seed++;
      const VerifyResult r = verify_batch(cublas, c);
      EXPECT_TRUE(r.passed) << name << " beta " << beta << ": " << r.reason;
    }
  }
}

// Auto-dispatch runs a batch in one launch where a kernel walks batches.
TEST_F(Batched, AutoDispatchPicksABatchKernel) {
  if (!hopper()) GTEST_SKIP() << "the batch kernels of 16-bit inputs are Hopper's";
  tessel::GemmArgs a;
  a.opA = Op::N, a.opB = Op::T, a.m = a.n = a.k = 512, a.lda = a.ldb = a.ldc = 512;
  a.precision = *tessel::parse_precision("bf16");
  a.A = a.B = a.C = reinterpret_cast<void*>(uintptr_t(256));
  a.batch = 64, a.stride_a = a.stride_b = a.stride_c = 512 * 512;
  std::string name;
  ASSERT_TRUE(tessel::select_kernel(a, &name).ok());
  EXPECT_TRUE(tessel::find_kernel(name)->batched) << name;
}

// Whether this GPU's kernels take a pointer-array batch of precision p and op pair ops: the Hopper cluster
// kernels (tf32 and FP8 with op pair N, T only: their other op pairs copy operands K-major first), and for FP32
// step 08's kernels for any alignment.
bool takes_pointer_arrays(const tessel::Precision& p, const OpPair& ops) {
  if (p == tessel::Precision{}) return true;
  const bool k_major = p.compute == tessel::Compute::kTF32 || tessel::is_fp8(p.ab);
  return hopper() && (!k_major || ops == OpPair{Op::N, Op::T});
}

// Pointer-array batches (GemmArgs::a_array, b_array, c_array) over the layouts
// of the strided ones, the arrays naming the matrices in reverse order, the
// matrices aligned and one element past 16 bytes (the TMA kernels' maps start
// there); k = 0 scales every matrix. Calls no kernel takes are refused and
// write nothing.
TEST_F(Batched, PointerArraysEveryPrecisionOpPairLayoutAndOffset) {
  Cublas cublas;
  struct Case {
    Shape shape;
    int64_t batch;
  };
  const std::vector<Case> cases = {{{67, 45, 33}, 3}, {{1, 300, 64}, 4}, {{130, 200, 260}, 2}, {{40, 30, 0}, 3}};
  uint64_t seed = 900;
  for (const std::string& name : precisions_here()) {
    const tessel::Precision p = *tessel::parse_precision(name);
    for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
      for (const Case& cs : cases) {
        for (int64_t offset : {0, 1}) {
          BatchCase c;
          c.opA = ops.first, c.opB = ops.second, c.shape = cs.shape, c.batch = cs.batch, c.precision = p;
          c.pointers = true, c.offset = offset, c.seed = seed++;
          c.share_b = c.seed % 3 == 1, c.side_by_side = c.seed % 3 == 2;
          if (c.seed % 2 == 0) c.alpha = -0.75f, c.beta = 1.25f;
          const VerifyResult r = verify_batch(cublas, c);
          const std::string what = name + " " + to_string(ops) + " " + to_string(cs.shape) + " x" +
                                   std::to_string(cs.batch) + " offset " + std::to_string(offset);
          if (takes_pointer_arrays(p, ops) || cs.shape.k == 0) {
            EXPECT_TRUE(r.passed) << what << ": " << r.reason;
          } else {
            EXPECT_EQ(r.status.code(), tessel::StatusCode::kNotSupported) << what << ": " << r.status.message();
            EXPECT_EQ(r.clobbered, 0) << what;
          }
        }
      }
    }
  }
}

// Every kernel that takes pointer arrays, by name (aligned matrices); the others refuse them.
TEST_F(Batched, PointerArraysByNameAndTheOthersRefuse) {
  Cublas cublas;
  uint64_t seed = 1000;
  for (const tessel::KernelInfo& k : tessel::kernels()) {
    if (!runs_here(k)) continue;
    BatchCase c;
    c.kernel = k.name, c.opA = Op::N, c.opB = Op::T, c.batch = 3, c.precision = k.precisions.front();
    c.shape = {std::min<int64_t>(k.max_m > 0 ? k.max_m : 150, 150), 140, 90};
    c.pointers = true, c.seed = seed++, c.beta = 0.5f;
    const VerifyResult r = verify_batch(cublas, c);
    if (k.pointer_array) {
      EXPECT_TRUE(r.passed) << k.name << ": " << r.reason;
    } else {
      EXPECT_EQ(r.status.code(), tessel::StatusCode::kNotSupported) << k.name << ": " << r.status.message();
      EXPECT_NE(r.status.message().find("pointer-array"), std::string::npos) << r.status.message();
      EXPECT_EQ(r.clobbered, 0) << k.name;
    }
  }
}

// A pointer-array batch on the TMA kernels needs a workspace for its tensor
// maps: given one, the call is captured into a graph, and replays after the
// arrays changed on the device read the new matrices, one of them starting
// an element past 16 bytes among aligned ones.
TEST_F(Batched, PointerArraysCaptureIntoAGraphAndFollowTheArrays) {
  if (!hopper()) GTEST_SKIP() << "the tensor maps of pointer-array batches are the Hopper kernels'";
  const int64_t m = 96, n = 80, k = 64, batch = 4;
  std::vector<float> hA(size_t(batch * m * k + 8)), hB(size_t(batch * n * k));
  fill_random(hA, 11), fill_random(hB, 12);
  hA = decode(encode(hA, tessel::DType::kBF16), tessel::DType::kBF16);  // the values bf16 holds
  hB = decode(encode(hB, tessel::DType::kBF16), tessel::DType::kBF16);
  const std::vector<uint8_t> bytesA = encode(hA, tessel::DType::kBF16), bytesB = encode(hB, tessel::DType::kBF16);
  DeviceBuffer<uint8_t> dA(bytesA), dB(bytesB), dC(size_t(batch * m * n) * 2);
  // Matrix i of the call multiplies A and B matrix order[i]; A starts shift[i] elements further on.
  struct Order {
    const char* name;
    std::vector<int64_t> order, shift;
  };
  const std::vector<Order> orders = {
      {"forward", {0, 1, 2, 3}, {0, 0, 0, 0}},
      {"backward", {3, 2, 1, 0}, {0, 0, 0, 0}},
      {"one off", {2, 0, 3, 1}, {0, 1, 0, 0}}};
  auto arrays = [&](const Order& o) {
    std::vector<uint64_t> v;
    for (size_t i = 0; i < o.order.size(); ++i) {
      v.push_back(reinterpret_cast<uint64_t>(dA.get() + (o.order[i] * m * k + o.shift[i]) * 2));
    }
    for (int64_t i : o.order) v.push_back(reinterpret_cast<uint64_t>(dB.get() + i * n * k * 2));
    for (int64_t i = 0; i < batch; ++i) v.push_back(reinterpret_cast<uint64_t>(dC.get() + i * m * n * 2));
    return v;
  };
  DeviceBuffer<uint64_t> dArrays(arrays(orders[0]));
  tessel::GemmArgs a;
  a.opA = Op::N, a.opB = Op::T, a.m = m, a.n = n, a.k = k, a.lda = k, a.ldb = k, a.ldc = n, a.batch = batch;
  a.precision = *tessel::parse_precision("bf16");
  const auto* p = reinterpret_cast<void* const*>(dArrays.get());
  a.a_array = p, a.b_array = p + batch, a.c_array = p + 2 * batch;
  size_t need = 0;
  ASSERT_TRUE(tessel::workspace_size(a, &need).ok());
  ASSERT_GE(need, size_t(3 * batch * 128)) << "three tensor maps a matrix";
  // Without a workspace, capture is refused and C stays as it was.
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const tessel::Status refused = tessel::gemm(a, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphDestroy(graph);
  EXPECT_EQ(refused.code(), tessel::StatusCode::kNotSupported) << refused.message();

  DeviceBuffer<uint8_t> ws(need);
  a.workspace = ws.get(), a.workspace_bytes = need;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const tessel::Status captured = tessel::gemm(a, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(captured.ok()) << captured.message();
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (const Order& o : orders) {
    dArrays.upload(arrays(o));
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const std::vector<float> got = decode(dC.download(), tessel::DType::kBF16);
    double worst = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t j = o.order[size_t(i)], a0 = j * m * k + o.shift[size_t(i)];  // C[i] = A[j] B[j]^T
      for (int64_t r = 0; r < m; r += 7) {
        for (int64_t c = 0; c < n; c += 5) {
          double want = 0;
          for (int64_t q = 0; q < k; ++q) {
            want += double(hA[size_t(a0 + r * k + q)]) * double(hB[size_t((j * n + c) * k + q)]);
          }
          worst = std::max(worst, std::abs(double(got[size_t((i * m + r) * n + c)]) - want));
        }
      }
    }
    EXPECT_LT(worst, 0.1) << o.name;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

class Grouped : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped() && !hopper()) GTEST_SKIP() << "grouped GEMMs run on the Hopper cluster kernels";
  }
};

TEST_F(Grouped, SkewedAndEmptyGroupsEveryPrecision) {
  Cublas cublas;
  const std::vector<std::vector<int64_t>> patterns = {
      {0, 5, 130, 1, 0, 257}, {64, 64, 64, 64}, {1000}, {3, 0, 0}, {0, 0}, {129, 1, 127, 300, 2, 0, 64, 65}};
  uint64_t seed = 200;
  for (const char* name : {"bf16", "f16", "bf16:f32", "f16:f32", "tf32", "e4m3:bf16"}) {
    for (Op opB : {Op::T, Op::N}) {
      for (const std::vector<int64_t>& rows : patterns) {
        GroupedCase c;
        c.opB = opB, c.rows = rows, c.n = 200, c.k = 136, c.tail = seed % 3 == 0 ? 7 : 0;
        c.precision = *tessel::parse_precision(name), c.seed = seed++;
        c.share_b = seed % 4 == 0;
        if (seed % 2 == 0) c.alpha = -0.75f, c.beta = 1.25f;
        const VerifyResult r = verify_grouped(cublas, c);
        EXPECT_TRUE(r.passed) << name << " op B " << (opB == Op::N ? "N" : "T") << " groups of " << ::testing::PrintToString(rows)
                              << ": " << r.reason;
      }
    }
  }
}

// A grouped call run by kernel k by name: correct where k takes grouped GEMMs, else refused untouched.
void expect_taken_or_refused(const tessel::KernelInfo& k, const VerifyResult& r) {
  if (k.grouped) {
    EXPECT_TRUE(r.passed) << k.name << ": " << r.reason;
  } else {
    EXPECT_EQ(r.status.code(), tessel::StatusCode::kNotSupported) << k.name << ": " << r.status.message();
    EXPECT_EQ(r.clobbered, 0) << k.name;
  }
}

TEST_F(Grouped, EveryGroupedKernelByNameAndTheOthersRefuse) {
  Cublas cublas;
  for (const tessel::KernelInfo& k : tessel::kernels()) {
    if (!runs_here(k)) continue;
    GroupedCase c;
    c.kernel = k.name, c.rows = {70, 0, 300, 5}, c.n = 256, c.k = 256, c.precision = k.precisions.front();
    expect_taken_or_refused(k, verify_grouped(cublas, c));
  }
}

// Masked groups (GemmArgs::group_counts): each group's first count rows of
// its capacity, counts from 0 to past the capacity (and below 0: clamped);
// the rows past each count stay as they were.
TEST_F(Grouped, MaskedGroupsEveryPrecision) {
  Cublas cublas;
  const std::vector<std::pair<int64_t, std::vector<int64_t>>> patterns = {
      {130, {0, 5, 130, 1, -4, 129}}, {64, {64, 64, 64, 64}}, {1000, {999}}, {7, {3, 0, 9}}, {200, {0, 0}},
      {300, {129, 1, 127, 300, 2, 0, 64, 65}}};
  uint64_t seed = 700;
  for (const char* name : {"bf16", "f16", "bf16:f32", "f16:f32", "tf32", "e4m3:bf16"}) {
    for (Op opB : {Op::T, Op::N}) {
      for (const auto& [capacity, counts] : patterns) {
        GroupedCase c;
        c.opB = opB, c.rows = counts, c.capacity = capacity, c.n = 200, c.k = 136;
        c.precision = *tessel::parse_precision(name), c.seed = seed++;
        c.share_b = seed % 4 == 0;
        if (seed % 2 == 0) c.alpha = -0.75f, c.beta = 1.25f;
        const VerifyResult r = verify_grouped(cublas, c);
        EXPECT_TRUE(r.passed) << name << " op B " << (opB == Op::N ? "N" : "T") << " capacity " << capacity
                              << ", counts " << ::testing::PrintToString(counts) << ": " << r.reason;
      }
    }
  }
}

// k == 0 or alpha == 0: the groups' rows of C become beta * C; the rows no
// group owns (the tail, past a masked group's count) stay as they were.
TEST_F(Grouped, WithoutAProductOnlyTheGroupsRowsAreScaled) {
  Cublas cublas;
  uint64_t seed = 900;
  for (const char* name : {"bf16", "f16:f32"}) {
    for (int64_t k : {int64_t(0), int64_t(64)}) {
      for (float beta : {0.0f, 0.5f}) {
        for (int64_t capacity : {int64_t(0), int64_t(100)}) {
          GroupedCase c;
          c.rows = capacity > 0 ? std::vector<int64_t>{3, 0, 100, 57} : std::vector<int64_t>{3, 0, 150, 57};
          c.capacity = capacity, c.tail = capacity > 0 ? 0 : 9, c.n = 72, c.k = k;
          c.alpha = k == 0 ? 1.0f : 0.0f, c.beta = beta;
          c.precision = *tessel::parse_precision(name), c.seed = seed++;
          const VerifyResult r = verify_grouped(cublas, c);
          EXPECT_TRUE(r.passed) << name << " k " << k << " beta " << beta << " capacity " << capacity << ": "
                                << r.reason;
        }
      }
    }
  }
}

// A mixture-of-experts layer's shape: 64 experts, skewed token counts, one launch.
TEST_F(Grouped, SixtyFourSkewedExperts) {
  Cublas cublas;
  GroupedCase c;
  c.n = 1024, c.k = 512, c.precision = *tessel::parse_precision("bf16");
  for (int g = 0; g < 64; ++g) c.rows.push_back(g % 7 == 0 ? 0 : (g * 37) % 300 + (g % 5 == 0 ? 900 : 0));
  const VerifyResult r = verify_grouped(cublas, c);
  EXPECT_TRUE(r.passed) << r.reason;
}

// Problems with sizes of their own (GemmArgs::problems): every precision and
// op pair the kernels take, tails of no tile's multiple, empty problems, rows
// off 16 bytes (the slow path, direct stores), bounds below the largest sizes
// (clamped), beta over C; the op pairs FP8 and tf32 cannot take refused untouched.
TEST_F(Grouped, ProblemsEveryPrecisionOpPairAndEdge) {
  Cublas cublas;
  const std::vector<Shape> sizes = {{67, 45, 33}, {128, 256, 512}, {1, 300, 64}, {300, 1, 700}, {200, 130, 70},
                                    {129, 257, 1}, {64, 128, 128}};
  uint64_t seed = 1100;
  for (const char* name : {"bf16", "f16", "bf16:f32", "f16:f32", "tf32", "e4m3:bf16"}) {
    const tessel::Precision p = *tessel::parse_precision(name);
    const bool k_major_only = p.ab == tessel::DType::kF32 || tessel::is_fp8(p.ab);
    for (const OpPair& ops : parse_ops("NT,NN,TN,TT")) {
      for (int edges = 0; edges < 2; ++edges) {
        ProblemsCase c;
        c.opA = ops.first, c.opB = ops.second, c.sizes = sizes, c.precision = p, c.seed = seed++;
        if (edges) {
          c.sizes.push_back({0, 50, 50}), c.sizes.push_back({40, 0, 50}), c.sizes.push_back({40, 50, 0});
          c.odd_a = {1}, c.odd_c = {0, 4}, c.bounds = Shape{250, 200, 600}, c.alpha = -0.75f, c.beta = 1.25f;
        }
        const VerifyResult r = verify_problems(cublas, c);
        if (k_major_only && ops != OpPair{Op::N, Op::T}) {
          EXPECT_EQ(r.status.code(), tessel::StatusCode::kNotSupported) << name << " " << to_string(ops);
          EXPECT_EQ(r.clobbered, 0) << name << " " << to_string(ops);
          continue;
        }
        EXPECT_TRUE(r.passed) << name << " " << to_string(ops) << (edges ? " with edges" : "") << ": " << r.reason;
      }
    }
  }
}

TEST_F(Grouped, ProblemsByNameAndTheOthersRefuse) {
  Cublas cublas;
  for (const tessel::KernelInfo& k : tessel::kernels()) {
    if (!runs_here(k)) continue;
    ProblemsCase c;
    c.kernel = k.name, c.sizes = {{70, 256, 256}, {0, 8, 8}, {300, 100, 40}, {5, 130, 1000}};
    c.precision = k.precisions.front();
    expect_taken_or_refused(k, verify_problems(cublas, c));
  }
}

// k == 0 or alpha == 0 in the bounds: every problem's C (within the bounds) becomes beta * C.
TEST_F(Grouped, ProblemsWithoutAProductAreScaled) {
  Cublas cublas;
  uint64_t seed = 1300;
  for (float beta : {0.0f, 0.5f}) {
    for (int64_t k : {int64_t(0), int64_t(40)}) {
      ProblemsCase c;
      c.sizes = {{30, 20, k}, {1, 70, k}, {0, 5, k}, {90, 33, k}};
      c.precision = *tessel::parse_precision("bf16"), c.alpha = k == 0 ? 1.0f : 0.0f, c.beta = beta;
      c.seed = seed++;
      const VerifyResult r = verify_problems(cublas, c);
      EXPECT_TRUE(r.passed) << "k " << k << " beta " << beta << ": " << r.reason;
    }
  }
}

// Many problems of scattered sizes in one launch (the walk over them, each with its maps).
TEST_F(Grouped, TwoHundredScatteredProblems) {
  Cublas cublas;
  ProblemsCase c;
  c.precision = *tessel::parse_precision("bf16");
  for (int g = 0; g < 200; ++g) c.sizes.push_back({(g * 37) % 301, 8 + (g * 53) % 389, 16 + (g * 29) % 700});
  const VerifyResult r = verify_problems(cublas, c);
  EXPECT_TRUE(r.passed) << r.reason;
}

// Captured with a workspace, a graph follows the problems array: new sizes and matrices at each replay.
TEST_F(Grouped, ProblemsCaptureIntoAGraphAndFollowTheArray) {
  const tessel::DType bf16 = tessel::DType::kBF16;
  const int64_t most = 160;
  std::vector<float> hA(size_t(2 * most * most)), hB(size_t(2 * most * most));
  fill_random(hA, 21), fill_random(hB, 22);
  hA = decode(encode(hA, bf16), bf16), hB = decode(encode(hB, bf16), bf16);
  DeviceBuffer<uint8_t> dA(encode(hA, bf16)), dB(encode(hB, bf16)), dC(size_t(2 * most * most) * 2);
  const auto problem = [&](int64_t m, int64_t n, int64_t k, int64_t slot) {
    return tessel::GemmProblem{m,    n, k, dA.get() + slot * most * most * 2, k, dB.get() + slot * most * most * 2, k,
                               dC.get() + slot * most * most * 2, n};
  };
  const std::vector<std::vector<tessel::GemmProblem>> replays = {
      {problem(160, 96, 64, 0), problem(33, 160, 128, 1)},
      {problem(7, 8, 160, 1), problem(150, 130, 16, 0)},
      {problem(0, 8, 8, 0), problem(64, 64, 64, 1)}};
  DeviceBuffer<tessel::GemmProblem> dProblems(replays[0]);
  tessel::GemmArgs a;
  a.opA = Op::N, a.opB = Op::T, a.m = a.n = a.k = most, a.batch = 2, a.problems = dProblems.get();
  a.precision = *tessel::parse_precision("bf16");
  size_t need = 0;
  ASSERT_TRUE(tessel::workspace_size(a, &need).ok());
  DeviceBuffer<uint8_t> ws(need);
  a.workspace = ws.get(), a.workspace_bytes = need;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const tessel::Status captured = tessel::gemm(a, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(captured.ok()) << captured.message();
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (size_t r = 0; r < replays.size(); ++r) {
    dProblems.upload(replays[r]);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const std::vector<float> got = decode(dC.download(), bf16);
    double worst = 0;
    for (const tessel::GemmProblem& q : replays[r]) {
      const int64_t slot = (static_cast<const uint8_t*>(q.C) - dC.get()) / (most * most * 2);
      for (int64_t i = 0; i < q.m; i += 5) {
        for (int64_t j = 0; j < q.n; j += 3) {
          double want = 0;
          for (int64_t p = 0; p < q.k; ++p) {
            want += double(hA[size_t(slot * most * most + i * q.k + p)]) *
                    double(hB[size_t(slot * most * most + j * q.k + p)]);
          }
          worst = std::max(worst, std::abs(double(got[size_t(slot * most * most + i * q.n + j)]) - want));
        }
      }
    }
    EXPECT_LT(worst, 0.1) << "replay " << r;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace
