// Auto-dispatch's built-in choice among step 08's configurations, on a
// 132-SM GPU (H100/H200 SXM), for the shapes the FP32 bar names.
#include <gtest/gtest.h>

#include "dispatch/heuristic.hpp"

namespace {

std::string pick(int64_t m, int64_t n, int64_t k, bool aligned, int sms = 132) {
  std::vector<const tessel::KernelEntry*> candidates;
  for (const auto& e : tessel::registry()) {
    if (e.info.ladder_step == 8 && (aligned || e.info.alignment == 1)) candidates.push_back(&e);
  }
  const tessel::KernelEntry* e = tessel::pick_by_blocks(candidates, m, n, k, sms);
  return e ? e->info.name : "none";
}

TEST(Heuristic, LargeOutputsTakeTheLargestTile) {
  EXPECT_EQ(pick(4096, 4096, 4096, true), "pipelined_128x256");
  EXPECT_EQ(pick(2048, 2048, 2048, true), "pipelined_128x256");  // 128 blocks >= 0.9 x 132
  EXPECT_EQ(pick(8192, 1024, 8192, true), "pipelined_128x256");
  EXPECT_EQ(pick(4096, 4096, 4096, false), "pipelined_any");      // unaligned: element-wise variants only
}

TEST(Heuristic, SmallOutputsSplitKWhenKIsDeep) {
  EXPECT_EQ(pick(1024, 1024, 1024, true), "pipelined_splitk");   // 256 blocks of 64x64 < 0.9 x 132 x 4
  EXPECT_EQ(pick(127, 4097, 1000, false), "pipelined_any_splitk");
  EXPECT_EQ(pick(4096, 64, 8192, true), "pipelined_splitk");
}

TEST(Heuristic, SmallOutputsWithShallowKTakeTheMostBlocks) {
  EXPECT_EQ(pick(1024, 1024, 300, true), "pipelined_64x64");
  EXPECT_EQ(pick(7, 7, 7, false), "pipelined_any_64x64");
}

TEST(Heuristic, FewerSmsNeedFewerBlocks) {
  EXPECT_EQ(pick(1024, 1024, 1024, true, 16), "pipelined_128x256");  // 32 blocks fill 16 SMs
}

TEST(Heuristic, NoCandidatesNoChoice) {
  EXPECT_EQ(tessel::pick_by_blocks({}, 10, 10, 10, 132), nullptr);
  EXPECT_EQ(tessel::pick_by_waves({}, 10, 10, 132), nullptr);
}

// Step 14's configurations (persistent: the wave rule).
std::string pick_persistent(int64_t m, int64_t n, int sms = 132) {
  std::vector<const tessel::KernelEntry*> candidates;
  for (const auto& e : tessel::registry()) {
    if (e.info.ladder_step == 14 && e.info.precisions[0].ab == tessel::DType::kBF16) candidates.push_back(&e);
  }
  const tessel::KernelEntry* e = tessel::pick_by_waves(candidates, m, n, sms);
  return e ? e->info.name : "none";
}

TEST(Heuristic, PersistentKernelsFillTheLastWave) {
  EXPECT_EQ(pick_persistent(4096, 4096), "wgmma_cluster_bf16");          // 512 tiles: 3.9 of 4 waves
  EXPECT_EQ(pick_persistent(8192, 8192), "wgmma_cluster_bf16");
  EXPECT_EQ(pick_persistent(2048, 2048), "wgmma_cluster_bf16");          // 128 tiles, one wave
  EXPECT_EQ(pick_persistent(3072, 3072), "wgmma_cluster_bf16_128x128");  // 288 tiles: 2.2 of 3 waves
  EXPECT_EQ(pick_persistent(1024, 1024), "wgmma_cluster_bf16_128x128");  // 32 tiles of 128x256 leave 100 SMs idle
}

}  // namespace
