// FP8 block scales (DeepSeek-V3's 1x128 / 128x128): every op pair, both scale
// layouts, every C type, A and B of one FP8 type or of one each, shapes that
// are no multiple of a block (m, n, k tails; k of one block, of many, deep
// enough for split-k), against cuBLAS on the operands widened with their
// scales and the fp64 reference; kernels that promote columns of two scale
// blocks together refuse by name.
#include <tessel/tessel.hpp>

#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/reference.hpp"
#include "harness/verify.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;
using tessel::StatusCode;

class Fp8 : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped() && !hopper()) GTEST_SKIP() << "FP8 runs on compute capability 9.0 (sm_90a)";
  }
};

TEST_F(Fp8, BlockScalesEveryOpPairLayoutAndOutput) {
  Cublas cublas;
  const std::vector<Shape> shapes = {{67, 45, 33}, {300, 257, 1040}, {129, 200, 8192}, {2100, 384, 300}};
  uint64_t seed = 40;  // even seeds: row-major scale tensors, odd: column-major
  for (const char* kernel : {kAuto, "wgmma_cluster_e4m3_128x128", "wgmma_cluster_e4m3_128x256",
                             "wgmma_cluster_e4m3xe5m2_128x256", "wgmma_cluster_e5m2xe4m3_128x128"}) {
    for (const char* precision :
         {"e4m3:bf16", "e4m3:f16", "e4m3:f32", "e5m2:bf16", "e4m3xe5m2:bf16", "e5m2xe4m3:f16"}) {
      const tessel::Precision p = *tessel::parse_precision(precision);
      if (std::string(kernel) != kAuto && !tessel::find_kernel(kernel)->takes(p)) continue;
      for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
        for (const Shape& shape : shapes) {
          for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-0.75f, 1.25f}}) {
            VerifyCase c{kernel, ops.first, ops.second, shape, alpha, beta, 0, seed++, 16, p};
            c.block_scales = true;
            const VerifyResult r = verify_case(cublas, c);
            EXPECT_TRUE(r.passed) << kernel << " " << precision << " " << to_string(ops) << " " << to_string(shape)
                                  << " seed " << c.seed << ": " << r.reason;
          }
        }
      }
    }
  }
}

// B's scales per column and 128 of k (1 x 128 blocks on both operands: the weight-gradient form), the same
// cases on the tiles that take block scales.
TEST_F(Fp8, BlockScalesPerColumnOfB) {
  Cublas cublas;
  const std::vector<Shape> shapes = {{67, 45, 33}, {300, 257, 1040}, {129, 200, 8192}, {2100, 384, 300}};
  uint64_t seed = 60;
  for (const char* kernel : {kAuto, "wgmma_cluster_e4m3_128x128", "wgmma_cluster_e5m2xe4m3_128x128"}) {
    for (const char* precision : {"e4m3:bf16", "e4m3:f32", "e5m2xe4m3:f16"}) {
      const tessel::Precision p = *tessel::parse_precision(precision);
      if (std::string(kernel) != kAuto && !tessel::find_kernel(kernel)->takes(p)) continue;
      for (const OpPair& ops : parse_ops("NN,NT,TN,TT")) {
        for (const Shape& shape : shapes) {
          VerifyCase c{kernel, ops.first, ops.second, shape, -0.75f, 1.25f, 0, seed++, 16, p};
          c.block_scales = true, c.b_block_n = 1;
          const VerifyResult r = verify_case(cublas, c);
          EXPECT_TRUE(r.passed) << kernel << " " << precision << " " << to_string(ops) << " " << to_string(shape)
                                << " seed " << c.seed << ": " << r.reason;
        }
      }
    }
  }
}

TEST_F(Fp8, BlockScalesNeedPiecesOneBlockWide) {
  Cublas cublas;
  VerifyCase c{"wgmma_cluster_e4m3_128x192", Op::N, Op::T, {256, 384, 512}, 1.0f, 0.0f, 0, 1, 16,
               *tessel::parse_precision("e4m3:bf16")};
  c.block_scales = true;
  const VerifyResult r = verify_case(cublas, c);
  EXPECT_EQ(r.status.code(), StatusCode::kNotSupported) << r.reason;
  EXPECT_NE(r.reason.find("takes no FP8 block scales"), std::string::npos) << r.reason;
  EXPECT_EQ(r.clobbered, 0);
  c.kernel = "wgmma_cluster_e4m3_128x256", c.b_block_n = 1;  // B's scales per column: 128-wide tiles
  const VerifyResult columns = verify_case(cublas, c);
  EXPECT_EQ(columns.status.code(), StatusCode::kNotSupported) << columns.reason;
  EXPECT_NE(columns.reason.find("takes no FP8 scales per column of B"), std::string::npos) << columns.reason;
  EXPECT_EQ(columns.clobbered, 0);
}

}  // namespace
