// The fuzz tester's draw of precisions: a family of inputs first, so that the many FP8 pairs are one family.
#include <gtest/gtest.h>

#include <tessel/tessel.hpp>

#include "harness/fuzz.hpp"

TEST(Fuzz, PrecisionsDrawnByFamilyOfInputs) {
  using namespace tessel;
  const std::vector<Precision>& all = supported_precisions();
  const auto families = harness::precision_families(all);
  // FP32, tf32, f16, bf16 and FP8: each family non-empty and of one kind of input.
  ASSERT_EQ(families.size(), 5u);
  size_t total = 0, fp8 = 0;
  for (const auto& family : families) {
    ASSERT_FALSE(family.empty());
    total += family.size();
    for (const Precision& p : family) {
      EXPECT_EQ(is_fp8(p.ab), is_fp8(family.front().ab)) << to_string(p);
      if (!is_fp8(p.ab)) {
        EXPECT_EQ(p.ab, family.front().ab) << to_string(p);
        EXPECT_EQ(p.compute, family.front().compute) << to_string(p);
      }
    }
    if (is_fp8(family.front().ab)) fp8 = family.size();
  }
  EXPECT_EQ(total, all.size());
  EXPECT_GT(fp8, 1u);  // every FP8 pair and output in one family
  EXPECT_TRUE(harness::precision_families({}).empty());
}
