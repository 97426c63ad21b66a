// Tensor-parallel GEMMs over NCCL (include/tessel/tp.hpp): the argument
// checks, one rank (the plain GEMM), and two ranks in two threads of one
// process against one GPU's GEMM of the whole layer (skipped with fewer
// than two GPUs).
#include <nccl.h>

#include <tessel/tp.hpp>

#include <cmath>
#include <thread>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/reference.hpp"
#include "harness/typed.hpp"

namespace {

using namespace tessel;
using harness::DeviceBuffer;

class TensorParallel : public GpuTest {};

constexpr Precision kBf16{DType::kBF16, DType::kBF16, Compute::kF32};

std::vector<uint8_t> random_bf16(int64_t count, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(count));
  harness::fill_random(v, seed);
  return harness::encode(v, DType::kBF16);
}

double relative_error(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  const std::vector<float> g = harness::decode(got, DType::kBF16), w = harness::decode(want, DType::kBF16);
  double d2 = 0, r2 = 0;
  for (size_t i = 0; i < g.size(); ++i) d2 += (double(g[i]) - w[i]) * (double(g[i]) - w[i]), r2 += double(w[i]) * w[i];
  return std::sqrt(d2 / r2);
}

TEST_F(TensorParallel, BadArgumentsAreRefusedByName) {
  tp::AllGatherGemm ag;
  EXPECT_EQ(tp::all_gather_gemm(ag, nullptr).code(), StatusCode::kInvalidArgument);
  ncclComm_t comm = nullptr;
  const int device = 0;
  ASSERT_EQ(ncclCommInitAll(&comm, 1, &device), ncclSuccess);
  ag.m_local = 4, ag.n = 8, ag.k = 16, ag.lda = 8, ag.ldb = 8, ag.ldc = 8;  // lda < k
  const Status s = tp::all_gather_gemm(ag, comm);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lda"), std::string::npos) << s.message();
  tp::GemmReduceScatter rs;
  rs.precision = {DType::kF32, DType::kF32, Compute::kTF32};
  rs.m = 4, rs.n = 8, rs.k_local = 8, rs.lda = 8, rs.ldb = 8, rs.ldc = 8;
  EXPECT_EQ(tp::gemm_reduce_scatter(rs, comm).code(), StatusCode::kInvalidArgument);  // null pointers
  ncclCommDestroy(comm);
}

TEST_F(TensorParallel, OneRankIsThePlainGemm) {
  ncclComm_t comm = nullptr;
  const int device = 0;
  ASSERT_EQ(ncclCommInitAll(&comm, 1, &device), ncclSuccess);
  const int64_t m = 300, n = 257, k = 136;
  DeviceBuffer<uint8_t> A(random_bf16(m * k, 1)), B(random_bf16(n * k, 2)), C(size_t(m * n) * 2), R(C.size());
  tp::AllGatherGemm ag;
  ag.precision = kBf16, ag.m_local = m, ag.n = n, ag.k = k, ag.A = A.get(), ag.lda = k, ag.B = B.get(), ag.ldb = k;
  ag.opB = Op::T, ag.C = C.get(), ag.ldc = n;
  ASSERT_TRUE(tp::all_gather_gemm(ag, comm).ok());
  GemmArgs g;
  g.precision = kBf16, g.m = m, g.n = n, g.k = k, g.A = A.get(), g.lda = k, g.B = B.get(), g.ldb = k, g.opB = Op::T;
  g.C = R.get(), g.ldc = n;
  ASSERT_TRUE(gemm(g).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(C.download(), R.download());
  ncclCommDestroy(comm);
}

// Two ranks, each in its own thread on its own GPU, against the whole layer on GPU 0.
TEST_F(TensorParallel, TwoRanksMatchOneGpu) {
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  if (gpus < 2) GTEST_SKIP() << "needs two GPUs";
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const int devices[2] = {0, 1};
  ncclComm_t comms[2];
  ASSERT_EQ(ncclCommInitAll(comms, 2, devices), ncclSuccess);
  // All-gather + GEMM: 2 x 300 rows (chunks of 128-row groups, 3 asked), A with padded rows.
  const int64_t m_local = 300, n = 257, k = 136, lda = 144;
  // GEMM + reduce-scatter: C with padded rows (through the in-place path).
  const int64_t m = 600, rn = 130, k_local = 64, ldc = 136;
  std::vector<std::vector<uint8_t>> a(2), b(2), c(2), ra(2), rb(2), rc(2);
  for (int r = 0; r < 2; ++r) {
    a[r] = random_bf16(m_local * lda, 10 + r), b[r] = random_bf16(n * k, 20);  // one weight shard for both
    ra[r] = random_bf16(m * k_local, 30 + r), rb[r] = random_bf16(rn * k_local, 40 + r);
  }
  auto rank_work = [&](int r, bool* ok) {
    cudaSetDevice(r);
    DeviceBuffer<uint8_t> A(a[r]), B(b[r]), C(size_t(2 * m_local * n) * 2);
    tp::AllGatherGemm ag;
    ag.precision = kBf16, ag.m_local = m_local, ag.n = n, ag.k = k, ag.A = A.get(), ag.lda = lda, ag.B = B.get();
    ag.ldb = k, ag.opB = Op::T, ag.C = C.get(), ag.ldc = n, ag.chunks = 3;
    DeviceBuffer<uint8_t> RA(ra[r]), RB(rb[r]), RC(size_t(m / 2 * ldc) * 2);
    tp::GemmReduceScatter rs;
    rs.precision = kBf16, rs.m = m, rs.n = rn, rs.k_local = k_local, rs.A = RA.get(), rs.lda = k_local;
    rs.B = RB.get(), rs.ldb = k_local, rs.opB = Op::T, rs.C = RC.get(), rs.ldc = ldc, rs.chunks = 2;
    *ok = tp::all_gather_gemm(ag, comms[r]).ok() && tp::gemm_reduce_scatter(rs, comms[r]).ok() &&
          cudaDeviceSynchronize() == cudaSuccess;
    c[r] = C.download(), rc[r] = RC.download();
  };
  bool ok[2] = {false, false};
  std::thread t0(rank_work, 0, &ok[0]), t1(rank_work, 1, &ok[1]);
  t0.join(), t1.join();
  ASSERT_TRUE(ok[0] && ok[1]);
  for (int r = 0; r < 2; ++r) ncclCommDestroy(comms[r]);

  cudaSetDevice(0);
  // The whole all-gather layer: both ranks' rows times the weight.
  std::vector<uint8_t> whole_a = a[0];
  whole_a.insert(whole_a.end(), a[1].begin(), a[1].end());
  DeviceBuffer<uint8_t> A(whole_a), B(b[0]), C(size_t(2 * m_local * n) * 2);
  GemmArgs g;
  g.precision = kBf16, g.m = 2 * m_local, g.n = n, g.k = k, g.A = A.get(), g.lda = lda, g.B = B.get(), g.ldb = k;
  g.opB = Op::T, g.C = C.get(), g.ldc = n;
  ASSERT_TRUE(gemm(g).ok());
  const std::vector<uint8_t> want = C.download();
  for (int r = 0; r < 2; ++r) EXPECT_LT(relative_error(c[r], want), 1e-2) << "rank " << r;
  // The whole row-parallel layer: [A_0 A_1] [B_0; B_1] = A_0 B_0 + A_1 B_1, row halves per rank.
  std::vector<float> sum(size_t(m * rn), 0.0f);
  for (int r = 0; r < 2; ++r) {
    const std::vector<float> fa = harness::decode(ra[r], DType::kBF16), fb = harness::decode(rb[r], DType::kBF16);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < rn; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k_local; ++q) acc += double(fa[size_t(i * k_local + q)]) * fb[size_t(j * k_local + q)];
        sum[size_t(i * rn + j)] += float(acc);
      }
  }
  for (int r = 0; r < 2; ++r) {
    const std::vector<float> got = harness::decode(rc[r], DType::kBF16);
    double d2 = 0, r2 = 0;
    for (int64_t i = 0; i < m / 2; ++i)
      for (int64_t j = 0; j < rn; ++j) {
        const double w = sum[size_t((r * m / 2 + i) * rn + j)], x = got[size_t(i * ldc + j)];
        d2 += (x - w) * (x - w), r2 += w * w;
      }
    EXPECT_LT(std::sqrt(d2 / r2), 1e-2) << "rank " << r;
  }
}

}  // namespace
