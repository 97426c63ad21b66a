#include <gtest/gtest.h>

#include <algorithm>

#include "harness/shapes.hpp"
#include "harness/stats.hpp"

namespace {

using tessel::Op;
using namespace tessel::harness;

TEST(Shapes, SquaresShapesAndRanges) {
  EXPECT_EQ(parse_shapes("1024"), (std::vector<Shape>{{1024, 1024, 1024}}));
  EXPECT_EQ(parse_shapes("256:1024:256"),
            (std::vector<Shape>{{256, 256, 256}, {512, 512, 512}, {768, 768, 768}, {1024, 1024, 1024}}));
  EXPECT_EQ(parse_shapes("100:350:100"), (std::vector<Shape>{{100, 100, 100}, {200, 200, 200}, {300, 300, 300}}));
  EXPECT_EQ(parse_shapes("127x4097x1000"), (std::vector<Shape>{{127, 4097, 1000}}));
  EXPECT_EQ(parse_shapes("1,8X1X0,3:3:1"), (std::vector<Shape>{{1, 1, 1}, {8, 1, 0}, {3, 3, 3}}));
  EXPECT_EQ(to_string(Shape{1, 2, 3}), "1x2x3");
}

TEST(Shapes, BadItemsAreNamed) {
  auto message = [](const std::string& text) {
    try {
      parse_shapes(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("0:-1:1").find("'-1'"), std::string::npos) << message("0:-1:1");
  EXPECT_NE(message("1:999999999999:1").find("use a larger STEP"), std::string::npos) << message("1:999999999999:1");
  EXPECT_NE(message("1x200000x200000").find("B would hold more than 2^33 elements"), std::string::npos)
      << message("1x200000x200000");
  EXPECT_NE(message("0:5").find("expected FIRST:LAST:STEP"), std::string::npos);
  EXPECT_NE(message("10:5:1").find("LAST < FIRST"), std::string::npos);
  EXPECT_NE(message("1:5:0").find("STEP must be > 0"), std::string::npos);
  EXPECT_NE(message("12x3").find("expected MxNxK"), std::string::npos);
  EXPECT_NE(message("abc").find("'abc'"), std::string::npos);
  EXPECT_NE(message("1,,2").find("empty item"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(message("1,").find("empty item"), std::string::npos);
  EXPECT_NE(message("99999999999999").find("bad size"), std::string::npos);
}

TEST(Shapes, Ops) {
  const auto ops = parse_ops("nn,NT,tN,TT");
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[1], std::make_pair(Op::N, Op::T));
  EXPECT_EQ(to_string(ops[2]), "TN");
  EXPECT_THROW(parse_ops("NX"), std::invalid_argument);
  EXPECT_THROW(parse_ops("N"), std::invalid_argument);
  EXPECT_THROW(parse_ops("NN,"), std::invalid_argument);
}

TEST(Suites, LinesAndErrors) {
  const auto cases = parse_suite("# comment\n16 6144 4096 NT  # a layer\n\n3000 3000 3000 nn\n", "t");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].shape, (Shape{16, 6144, 4096}));
  EXPECT_EQ(cases[0].ops, (OpPair{Op::N, Op::T}));
  EXPECT_EQ(cases[1].ops, (OpPair{Op::N, Op::N}));
  auto message = [](const std::string& text) {
    try {
      parse_suite(text, "t");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("1 2 3 NN\n4 5 NN\n").find("t:2: expected 'm n k OPS'"), std::string::npos);
  EXPECT_NE(message("1 2 3 NN NT\n").find("t:1"), std::string::npos);
  EXPECT_NE(message("1 2 3 NN,NT\n").find("one op pair per line"), std::string::npos);
  EXPECT_NE(message("# nothing\n").find("no cases"), std::string::npos);
}

// Every committed suite parses, and the LLM suite has its three calls per layer and token count.
TEST(Suites, CommittedSuitesParse) {
  for (const std::string& name : suite_names()) EXPECT_FALSE(load_suites(name).empty()) << name;
  EXPECT_GE(suite_names().size(), 4u);
  const auto llm = load_suites("llm");
  auto has = [&](Shape s, OpPair ops) {
    return std::any_of(llm.begin(), llm.end(), [&](const SuiteCase& c) { return c.shape == s && c.ops == ops; });
  };
  EXPECT_TRUE(has({1, 6144, 4096}, {Op::N, Op::T}));     // Llama-3-8B QKV, decode
  EXPECT_TRUE(has({6144, 4096, 8192}, {Op::T, Op::N}));  // its weight gradient at 8192 tokens
  EXPECT_TRUE(has({8192, 4096, 6144}, {Op::N, Op::N}));  // its input gradient
}

TEST(Stats, MedianMinMax) {
  const Summary odd = summarize({5, 1, 3});
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 5);
  EXPECT_EQ(odd.count, 3u);
  EXPECT_EQ(summarize({4, 1, 2, 3}).median, 2.5);
  EXPECT_EQ(summarize({7}).median, 7);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Stats, Tflops) {
  EXPECT_DOUBLE_EQ(tflops(1000, 1000, 1000, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(tflops(4096, 4096, 4096, 2.0 * 4096 * 4096 * 4096 / 50e12 * 1e3), 50.0);
  EXPECT_EQ(tflops(1, 1, 1, 0.0), 0.0);
}

}  // namespace
