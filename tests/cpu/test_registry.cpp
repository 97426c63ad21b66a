#include <gtest/gtest.h>
#include <tessel/tessel.hpp>

#include <set>

TEST(Registry, HoldsTheLadderInOrder) {
  const auto ks = tessel::kernels();
  ASSERT_GE(ks.size(), 8u);
  std::set<std::string> names;
  int last_step = 0;
  for (const auto& k : ks) {
    EXPECT_FALSE(k.name.empty());
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate name " << k.name;
    EXPECT_GE(k.ladder_step, last_step) << k.name;  // several configurations may share a step
    last_step = k.ladder_step;
    EXPECT_FALSE(k.summary.empty()) << k.name;
    EXPECT_FALSE(k.constraints.empty()) << k.name;
    EXPECT_GE(k.min_compute_capability, 80) << k.name;
    EXPECT_GE(k.alignment, 1) << k.name;
    EXPECT_NE(k.name, "auto");
    EXPECT_NE(k.name, "all");
  }
  EXPECT_EQ(ks[0].name, "naive");
  EXPECT_EQ(ks[1].name, "coalesced");
  EXPECT_EQ(ks[2].name, "smem");
  EXPECT_EQ(ks[3].name, "blocktile_1d");
  EXPECT_EQ(ks[4].name, "blocktile_2d");
  EXPECT_EQ(ks[5].name, "vectorized");
  EXPECT_EQ(ks[6].name, "warptile");
  EXPECT_EQ(ks[7].name, "pipelined");
  // 16-byte accesses from step 06 on, except the element-wise "_any" variants: the registry says so.
  for (const auto& k : ks) {
    const bool any = k.name.rfind("pipelined_any", 0) == 0;
    EXPECT_EQ(k.alignment, k.ladder_step >= 6 && !any ? 4 : 1) << k.name;
    EXPECT_GT(k.tile_m, 0) << k.name;
    EXPECT_GT(k.tile_n, 0) << k.name;
  }
  EXPECT_EQ(ks.back().ladder_step, 8);
}

TEST(Registry, FindsByName) {
  const auto k = tessel::find_kernel("smem");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->ladder_step, 3);
  EXPECT_EQ(k->dtype, tessel::DType::kF32);
  EXPECT_FALSE(tessel::find_kernel("").has_value());
  EXPECT_FALSE(tessel::find_kernel("SMEM").has_value());
}
