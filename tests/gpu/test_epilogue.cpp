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
        if (k.b_op_t_only && opB != Op::T) continue;
        const int64_t m = k.max_m ? k.max_m : 130;
        VerifyCase c{k.name, opA, opB, {m, 136, 72}, 1.5f, 0.5f, 0, seed++, std::max(8, k.alignment), p};
        c.epilogue = *parse_epilogue("bias+gelu+scale+pre");
        const VerifyResult r = verify_case(cublas, c);
        EXPECT_TRUE(r.passed) << k.name << " " << to_string(p) << ": " << r.reason;
      }
    }
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
