#include <gtest/gtest.h>
#include <tessel/tessel.hpp>

#include <algorithm>
#include <regex>
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
  EXPECT_EQ(ks[7].name, "pipelined_128x128");
  // FP32 ladder: 16-byte accesses from step 06 on, except the element-wise
  // "_any" variants. Tensor cores: WMMA (09) element-wise, mma.sync (10)
  // 16-byte copies of A and B and any C. The registry says so.
  for (const auto& k : ks) {
    EXPECT_GT(k.tile_m, 0) << k.name;
    EXPECT_GT(k.tile_n, 0) << k.name;
    ASSERT_FALSE(k.precisions.empty()) << k.name;
    if (k.ladder_step <= 8) {
      const bool any = k.name.find("_any") != std::string::npos;
      EXPECT_EQ(k.alignment, k.ladder_step >= 6 && !any ? 4 : 1) << k.name;
      EXPECT_EQ(k.c_alignment, k.alignment) << k.name;
      EXPECT_EQ(k.precisions, std::vector<tessel::Precision>{tessel::Precision{}}) << k.name;
    } else {
      const bool any = k.name.size() > 4 && k.name.compare(k.name.size() - 4, 4, "_any") == 0;
      EXPECT_EQ(k.alignment, any ? 1 : int(16 / tessel::size_of(k.precisions[0].ab))) << k.name;
      EXPECT_EQ(k.c_alignment, 1) << k.name;
      for (const auto& p : k.precisions) {
        EXPECT_TRUE(tessel::supported(p)) << k.name;
        if (k.ladder_step <= 15) EXPECT_NE(p, tessel::Precision{}) << k.name << ": FP32 means FP32, never tensor cores";
      }
    }
  }
  // Hopper steps 11-15 and the TMA-fed variants of steps 08 and 10
  // (*_tma): sm_90a code, compute capability 9.0 only; everything
  // else runs on 8.0 and newer.
  for (const auto& k : ks) {
    const bool tma = k.name.size() > 4 && k.name.compare(k.name.size() - 4, 4, "_tma") == 0;
    const bool wgmma = k.name.rfind("wgmma_", 0) == 0;  // step 16's swapped tiles too
    const bool sm90 = (k.ladder_step >= 11 && k.ladder_step <= 15) || k.ladder_step == 17 || tma || wgmma;
    EXPECT_EQ(k.min_compute_capability, sm90 ? 90 : 80) << k.name;
    EXPECT_EQ(k.max_compute_capability, sm90 ? 90 : 0) << k.name;
    EXPECT_TRUE(k.runs_on(90)) << k.name;
    EXPECT_EQ(k.runs_on(80), !sm90) << k.name;
    EXPECT_EQ(k.runs_on(100), !sm90) << k.name;
  }
  EXPECT_EQ(ks.back().ladder_step, 18);
  // Step 16 (small m): m <= 16; its tensor-core kernels (the swapped wgmma tiles too) and the FP32
  // stream for FP32 inputs in auto-dispatch, the stream for 16-bit inputs by name only; step 14's
  // ping-pong tiles by name only; every other kernel any m and in auto-dispatch.
  for (const auto& k : ks) {
    EXPECT_EQ(k.max_m, k.ladder_step == 16 ? 16 : 0) << k.name;
    const bool swap = k.name.rfind("wgmma_swap_", 0) == 0;
    const bool pingpong = k.name.rfind("wgmma_pingpong_", 0) == 0;
    const bool by_name = pingpong || (k.ladder_step == 16 && k.name.find("_mma_") == std::string::npos &&
                                      k.name != "gemv_16x32_any" && !swap);
    EXPECT_EQ(k.auto_dispatch, !by_name) << k.name;
  }
}

// Every tensor-core input type has a WMMA kernel (no alignment needs) and an mma.sync kernel.
// One naming scheme from step 08 on: <family>[_<variant>][_<dtype>[x<dtype of B>]]_<MxN>[_any][_splitk|_streamk][_tma],
// the tile in the name being the one the registry reports.
TEST(Registry, NamesFollowOneScheme) {
  const std::regex scheme(
      R"(([a-z]+(_ws|_persistent|_cluster|_pingpong|_mma|_swap)?)(_(f16|bf16|tf32|e4m3|e5m2)(?:x(?:e4m3|e5m2))?)?_(\d+)x(\d+)(_any)?(_splitk|_streamk)?(_tma)?)");
  std::set<std::string> seen;
  for (const auto& k : tessel::kernels()) {
    EXPECT_TRUE(seen.insert(k.name).second) << k.name << " twice";
    if (k.ladder_step < 8) continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(k.name, m, scheme)) << k.name;
    EXPECT_EQ(std::stoi(m[5]), k.tile_m) << k.name;
    EXPECT_EQ(std::stoi(m[6]), k.tile_n) << k.name;
    EXPECT_EQ(m[7].matched, k.alignment == 1) << k.name;
  }
}

TEST(Registry, TensorCoreKernelsCoverEveryPrecision) {
  for (const char* name : {"tf32", "f16", "f16:f32", "bf16", "bf16:f32"}) {
    const auto p = tessel::parse_precision(name);
    ASSERT_TRUE(p) << name;
    bool wmma = false, mma = false;
    for (const auto& k : tessel::kernels()) {
      const bool takes = k.takes(*p);
      wmma |= takes && k.ladder_step == 9 && k.alignment == 1;
      mma |= takes && k.ladder_step == 10;
    }
    EXPECT_TRUE(wmma) << name;
    EXPECT_TRUE(mma) << name;
  }
}

TEST(Registry, PrecisionNames) {
  using tessel::Compute;
  using tessel::DType;
  for (const char* name : {"f32", "tf32", "f16", "f16:f32", "bf16", "bf16:f32", "e4m3:bf16", "e4m3:f16", "e4m3:f32",
                           "e5m2:bf16", "e5m2:f16", "e5m2:f32", "e4m3xe5m2:bf16", "e4m3xe5m2:f16", "e4m3xe5m2:f32",
                           "e5m2xe4m3:bf16", "e5m2xe4m3:f16", "e5m2xe4m3:f32"}) {
    const auto p = tessel::parse_precision(name);
    ASSERT_TRUE(p) << name;
    EXPECT_EQ(tessel::to_string(*p), name);
    EXPECT_TRUE(tessel::supported(*p)) << name;
  }
  EXPECT_EQ(*tessel::parse_precision("tf32"), (tessel::Precision{DType::kF32, DType::kF32, Compute::kTF32}));
  EXPECT_EQ(*tessel::parse_precision("bf16:f32"), (tessel::Precision{DType::kBF16, DType::kF32, Compute::kF32}));
  EXPECT_EQ(*tessel::parse_precision("e4m3:bf16"), (tessel::Precision{DType::kE4M3, DType::kBF16, Compute::kF32}));
  EXPECT_EQ(*tessel::parse_precision("e4m3xe5m2:f16"),
            (tessel::Precision{DType::kE4M3, DType::kF16, Compute::kF32, DType::kE5M2}));
  // B's type named as A's is the one-type precision.
  EXPECT_EQ((tessel::Precision{DType::kE4M3, DType::kBF16, Compute::kF32, DType::kE4M3}),
            *tessel::parse_precision("e4m3:bf16"));
  EXPECT_NE((tessel::Precision{DType::kE4M3, DType::kBF16, Compute::kF32, DType::kE5M2}),
            *tessel::parse_precision("e4m3:bf16"));
  for (const char* bad : {"", "fp16", "f16:bf16", "f32:f16", "tf32:f32", "F16", "e4m3", "e5m2:e5m2", "bf16:e4m3",
                          "e4m3xe4m3:bf16", "e4m3xe5m2", "e4m3xbf16:bf16", "bf16xe4m3:bf16", "e5m2xe4m3:e4m3"}) {
    EXPECT_FALSE(tessel::parse_precision(bad)) << bad;
  }
  EXPECT_FALSE(tessel::supported({DType::kBF16, DType::kBF16, Compute::kF32, DType::kF16}));
  EXPECT_FALSE(tessel::supported({DType::kE4M3, DType::kBF16, Compute::kF32, DType::kBF16}));
  EXPECT_FALSE(tessel::supported({DType::kF16, DType::kBF16, Compute::kF32}));
  EXPECT_FALSE(tessel::supported({DType::kF16, DType::kF16, Compute::kTF32}));
  EXPECT_FALSE(tessel::supported({DType::kF32, DType::kF16, Compute::kF32}));
  EXPECT_EQ(tessel::size_of(DType::kF32), 4u);
  EXPECT_EQ(tessel::size_of(DType::kF16), 2u);
  EXPECT_EQ(tessel::size_of(DType::kBF16), 2u);
}

TEST(Registry, FindsByName) {
  const auto k = tessel::find_kernel("smem");
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->ladder_step, 3);
  EXPECT_EQ(k->precisions, std::vector<tessel::Precision>{tessel::Precision{}});
  EXPECT_FALSE(tessel::find_kernel("").has_value());
  EXPECT_FALSE(tessel::find_kernel("SMEM").has_value());
}
