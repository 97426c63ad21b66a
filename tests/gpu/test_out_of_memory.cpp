// Out of memory: a call that cannot get the scratch memory its plan wants
// runs on a plan without it. It takes nearly all of the GPU's memory, so
// CTest runs it alone (tests/CMakeLists.txt: RUN_SERIAL).
#include <tessel/tessel.hpp>

#include <cmath>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/reference.hpp"

namespace {

using namespace tessel::harness;
using tessel::GemmArgs;
using tessel::Op;

class Reliability : public GpuTest {};

// With no room for the scratch memory its plan wants (an operand copy), a
// call runs without it (another plan or kernel) instead of failing.
TEST_F(Reliability, OutOfMemoryFallsBackToAPlanWithoutScratch) {
  const int64_t m = 4096, n = 4096, k = 2048;
  std::vector<float> hA(m * k), hB(k * n);
  fill_random(hA, 41), fill_random(hB, 42);
  DeviceBuffer<float> A(hA), B(hB), C(m * n);
  const GemmArgs a{Op::N, Op::N, m, n, k, 1.0f, A.get(), k, B.get(), n, 0.0f, C.get(), n, tessel::Precision{}};
  size_t need = 0;
  ASSERT_TRUE(tessel::workspace_size(a, &need).ok());
  constexpr size_t kLeave = size_t(8) << 20;
  if (need <= kLeave) GTEST_SKIP() << "auto-dispatch needs " << need << " bytes of scratch here: nothing to fall back from";
  ASSERT_TRUE(tessel::gemm(a).ok());
  const std::vector<float> roomy = C.download();
  ASSERT_TRUE(tessel::release_workspaces().ok());
  size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  void* filler = nullptr;
  for (size_t take = free - kLeave; take > free / 2 && filler == nullptr; take -= size_t(64) << 20) {
    if (cudaMalloc(&filler, take) != cudaSuccess) filler = nullptr, cudaGetLastError();
  }
  ASSERT_NE(filler, nullptr);
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  ASSERT_LT(free, need) << "the scratch memory must not fit";
  ASSERT_EQ(cudaMemset(C.get(), 0xff, m * n * sizeof(float)), cudaSuccess);
  const tessel::Status s = tessel::gemm(a);
  EXPECT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(filler);
  const std::vector<float> tight = C.download();
  double diff = 0, ref = 0;
  for (size_t i = 0; i < tight.size(); ++i) {
    diff += double(tight[i] - roomy[i]) * double(tight[i] - roomy[i]);
    ref += double(roomy[i]) * double(roomy[i]);
  }
  EXPECT_LT(std::sqrt(diff / ref), 1e-5);
}

}  // namespace
