// The epilogue's names and the reference's activations (the GPU pass is
// checked against them in tests/gpu/test_epilogue.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "harness/cublaslt.hpp"
#include "harness/verify.hpp"

namespace {

using tessel::Activation;
using tessel::harness::EpilogueSpec;
using tessel::harness::activate;
using tessel::harness::parse_epilogue;

TEST(Epilogue, NamesRoundTrip) {
  for (const char* name : {"none", "bias", "rowbias+gelu", "bias+gelu_tanh+scale+pre", "relu", "silu+scale",
                           "bias+gelu+colscale"}) {
    const auto e = parse_epilogue(name);
    ASSERT_TRUE(e.has_value()) << name;
    EXPECT_EQ(to_string(*e), name);
  }
  const auto e = parse_epilogue("scale+bias+relu");  // any order
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->bias, EpilogueSpec::Bias::kPerColumn);
  EXPECT_EQ(e->activation, Activation::kRelu);
  EXPECT_TRUE(e->row_scale() && e->col_scale());
  const auto columns = parse_epilogue("colscale");
  ASSERT_TRUE(columns.has_value());
  EXPECT_TRUE(columns->col_scale() && !columns->row_scale());
  EXPECT_FALSE(e->pre_activation);
  for (const char* bad : {"", "gelu+", "bias+tanh", "Bias", "none+bias"}) EXPECT_FALSE(parse_epilogue(bad)) << bad;
}

TEST(Epilogue, ActivationsAtKnownPoints) {
  EXPECT_EQ(activate(-2.0, Activation::kRelu), 0.0);
  EXPECT_EQ(activate(3.0, Activation::kRelu), 3.0);
  EXPECT_TRUE(std::isnan(activate(std::nan(""), Activation::kRelu)));  // as torch.relu
  EXPECT_NEAR(activate(1.0, Activation::kGelu), 0.8413447460685429, 1e-15);       // x * Phi(x)
  EXPECT_NEAR(activate(-1.0, Activation::kGelu), -0.15865525393145707, 1e-15);
  EXPECT_NEAR(activate(1.0, Activation::kGeluTanh), 0.8411919906082768, 1e-15);   // torch's approximate="tanh"
  EXPECT_NEAR(activate(1.0, Activation::kSilu), 0.7310585786300049, 1e-15);       // x * sigmoid(x)
  EXPECT_EQ(activate(-0.5, Activation::kNone), -0.5);
}

// What the benchmark can time against cuBLASLt's own fused epilogue.
TEST(Epilogue, CublasLtFusesBiasReluAndTanhGelu) {
  using tessel::harness::CublasLt;
  for (const char* fused : {"none", "bias", "relu", "bias+relu", "bias+gelu_tanh", "gelu_tanh"}) {
    EXPECT_TRUE(CublasLt::takes(*parse_epilogue(fused))) << fused;
  }
  std::string why;
  for (const char* not_fused : {"rowbias", "bias+gelu", "silu", "bias+scale", "colscale", "relu+pre"}) {
    EXPECT_FALSE(CublasLt::takes(*parse_epilogue(not_fused), &why)) << not_fused;
    EXPECT_NE(why.find("cuBLASLt fuses no"), std::string::npos) << why;
  }
}

}  // namespace
