// Bias, activation, output scales and the pre-activation output, in every
// precision: auto-dispatch and kernels by name, against cuBLAS's FP32
// product with the epilogue applied in fp64 and against the fp64 reference,
// guard zones and padding of both outputs intact.
#include <tessel/tessel.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/verify.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;
using tessel::StatusCode;

class Epilogue : public GpuTest {};

TEST_F(Epilogue, EveryTermInEveryPrecision) {
  Cublas cublas;
  const std::vector<Shape> shapes = {{67, 45, 33}, {129, 257, 100}, {1, 300, 64}};
  uint64_t seed = 100;
  for (const tessel::Precision& p : tessel::supported_precisions()) {
    for (const char* spec : {"bias+relu", "rowbias+gelu+scale", "bias+gelu_tanh+pre", "silu", "scale+pre"}) {
      for (const Shape& shape : shapes) {
        for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-0.75f, 1.25f}}) {
          VerifyCase c{kAuto, Op::N, Op::T, shape, alpha, beta, 3, seed++, 1, p, 1};
          c.epilogue = *parse_epilogue(spec);
          const VerifyResult r = verify_case(cublas, c);
          EXPECT_TRUE(r.passed) << to_string(p) << " " << spec << " " << to_string(shape) << " beta " << beta << ": "
                                << r.reason;
        }
      }
    }
  }
}

// Every kernel that takes the precision, by name, with one epilogue: the
// kernel writes the product, the pass does the rest, whatever the kernel.
TEST_F(Epilogue, EveryKernelByName) {
  Cublas cublas;
  uint64_t seed = 500;
  for (const tessel::KernelInfo& k : tessel::kernels()) {
    if (!runs_here(k)) continue;
    for (const tessel::Precision& p : k.precisions) {
      for (const auto& [opA, opB] : {std::pair{Op::N, Op::N}, std::pair{Op::T, Op::T}}) {
        const int64_t m = k.max_m ? k.max_m : 130;
        VerifyCase c{k.name, opA, opB, {m, 136, 72}, 1.5f, 0.5f, 0, seed++, std::max(8, k.alignment), p};
        c.epilogue = *parse_epilogue("bias+gelu+scale+pre");
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << k.name << " " << to_string(p) << ": " << r.reason;
      }
    }
  }
}

// The epilogue fused into the Hopper kernels (steps 14, 15, 17) on every path
// a tile's results leave by: held tiles (16-bit C, several tiles a cluster),
// TMA stores (one tile a cluster), FP32 C, direct stores (n not in 16-byte
// units), stream-K's shared tiles; FP32 C (tf32, bf16:f32) and FP8 take
// the pass. Fused, a call needs no product buffer: its workspace is the plain
// call's; with beta != 0 or row terms the epilogue pass (and its buffer) makes C.
TEST_F(Epilogue, FusedIntoTheHopperKernels) {
  if (!hopper()) GTEST_SKIP() << "sm_90a kernels";
  Cublas cublas;
  struct Case {
    const char* kernel;
    const char* precision;
    Shape shape;
  };
  const Case cases[] = {
      {"wgmma_cluster_bf16_128x128", "bf16", {3000, 2504, 192}},                // held tiles
      {"wgmma_cluster_bf16_128x256", "bf16", {2000, 3000, 1000}},               // held, k not in whole slices
      {"wgmma_cluster_f16_128x256_streamk", "f16", {4096, 4096, 320}},          // stream-K's whole units
      {"wgmma_cluster_f16_128x192", "f16", {1000, 1512, 256}},                  // TMA stores
      {"wgmma_cluster_bf16_128x256", "bf16:f32", {777, 1000, 136}},             // FP32 C: the pass
      {"wgmma_cluster_f16_64x128", "f16", {300, 1001, 200}},                    // direct stores
      {"wgmma_cluster_tf32_128x128", "tf32", {520, 392, 96}},                   // tf32: the pass
      {"wgmma_cluster_e4m3_128x192", "e4m3:bf16", {1030, 776, 512}},            // FP8: the pass
      {"wgmma_cluster_bf16_128x256_streamk", "bf16", {1280, 1536, 8192}},       // stream-K shares
      {"wgmma_bf16_64x128_streamk", "bf16", {16, 4096, 4096}},                  // single CTAs
  };
  uint64_t seed = 900;
  for (const Case& k : cases) {
    const tessel::Precision p = *tessel::parse_precision(k.precision);
    for (const char* spec :
         {"bias+gelu_tanh", "bias+gelu+colscale", "silu+colscale", "bias+relu", "bias", "rowbias+gelu+scale"}) {
      VerifyCase c{k.kernel, Op::N, Op::T, k.shape, 1.25f, 0.0f, 0, seed++, 8, p};
      c.epilogue = *parse_epilogue(spec);
      const VerifyResult r = verify_case(cublas, c);
      EXPECT_TRUE(r.passed) << k.kernel << " " << k.precision << " " << spec << " " << to_string(k.shape) << ": "
                            << r.reason;
    }
    const auto [m, n, depth] = k.shape;
    const size_t c_size = tessel::size_of(p.c), ab_size = tessel::size_of(p.ab);
    tessel::harness::DeviceBuffer<uint8_t> A(size_t(m * depth) * ab_size), B(size_t(n * depth) * ab_size),
        C(size_t(m * n) * c_size), bias(size_t(n) * c_size);
    tessel::GemmArgs a;
    a.opA = Op::N, a.opB = Op::T, a.m = m, a.n = n, a.k = depth, a.A = A.get(), a.lda = depth, a.B = B.get();
    a.ldb = depth, a.C = C.get(), a.ldc = n, a.precision = p;
    size_t plain = 0, fused = 0, pass = 0;
    ASSERT_TRUE(tessel::workspace_size(k.kernel, a, &plain).ok()) << k.kernel;
    a.epilogue.bias = bias.get(), a.epilogue.activation = tessel::Activation::kGeluTanh;
    ASSERT_TRUE(tessel::workspace_size(k.kernel, a, &fused).ok()) << k.kernel;
    if (p.c == tessel::DType::kF32 || tessel::size_of(p.ab) != 2) {  // FP32 C, tf32 and FP8: the pass
      EXPECT_GE(fused, plain + size_t(m) * size_t(n) * sizeof(float)) << k.kernel;
    } else {
      EXPECT_EQ(fused, plain) << k.kernel << ": the epilogue went to a pass";
    }
    a.epilogue.bias_per_row = true;
    ASSERT_TRUE(tessel::workspace_size(k.kernel, a, &pass).ok()) << k.kernel;
    EXPECT_GE(pass, plain + size_t(m) * size_t(n) * sizeof(float)) << k.kernel << ": a bias per row";
    a.epilogue.bias_per_row = false, a.beta = 0.5f;
    ASSERT_TRUE(tessel::workspace_size(k.kernel, a, &pass).ok()) << k.kernel;
    EXPECT_GE(pass, plain + size_t(m) * size_t(n) * sizeof(float)) << k.kernel << ": beta * C inside the activation";
  }
}

// k == 0 and alpha == 0: the product is 0, the rest still applies.
TEST_F(Epilogue, WithoutAProduct) {
  Cublas cublas;
  for (const tessel::Precision& p : tessel::supported_precisions()) {
    for (const Shape& shape : {Shape{33, 17, 0}, Shape{33, 17, 40}}) {
      VerifyCase c{kAuto, Op::N, Op::N, shape, shape.k ? 0.0f : 1.0f, 0.5f, 1, 7, 1, p};
      c.epilogue = *parse_epilogue("rowbias+silu+scale+pre");
      const VerifyResult r = verify_case(cublas, c);
      EXPECT_TRUE(r.passed) << to_string(p) << " " << to_string(shape) << ": " << r.reason;
    }
  }
}

// A refused call leaves C and the second output as they were.
TEST_F(Epilogue, RefusedCallsWriteNothing) {
  Cublas cublas;
  VerifyCase c{"pipelined_128x128", Op::N, Op::N, {64, 64, 64}, 1.0f, 0.0f, 1, 3, 1, tessel::Precision{}, 1};
  c.epilogue = *parse_epilogue("bias+relu+pre");
  const VerifyResult r = verify_case(cublas, c);  // lda = 65 and A one element in: not 16-byte units
  EXPECT_EQ(r.status.code(), StatusCode::kNotSupported) << r.reason;
  EXPECT_EQ(r.clobbered, 0);
}

}  // namespace
