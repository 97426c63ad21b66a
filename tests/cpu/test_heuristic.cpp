// Auto-dispatch's built-in choice among step 08's configurations, on a
// 132-SM GPU (H100/H200 SXM, compute capability 9.0, where the TMA-fed
// stream-K kernel runs; cc 8.0: the choice without it), for the shapes the
// FP32 bar names.
#include <gtest/gtest.h>

#include "dispatch/cost_model.hpp"
#include "dispatch/heuristic.hpp"
#include "dispatch/plan.hpp"

namespace {

std::string pick(int64_t m, int64_t n, int64_t k, bool aligned, int sms = 132, int cc = 90) {
  std::vector<const tessel::KernelEntry*> candidates;
  for (const auto& e : tessel::registry()) {
    if (e.info.ladder_step == 8 && (aligned || e.info.alignment == 1) && e.info.runs_on(cc)) candidates.push_back(&e);
  }
  const tessel::KernelEntry* e = tessel::pick_by_blocks(candidates, m, n, k, sms);
  return e ? e->info.name : "none";
}

TEST(Heuristic, LargeOutputsTakeTheLargestTile) {
  EXPECT_EQ(pick(4096, 4096, 4096, true, 132, 80), "pipelined_128x256");
  EXPECT_EQ(pick(2048, 2048, 2048, true, 132, 80), "pipelined_128x256");  // 128 blocks >= 0.9 x 132
  EXPECT_EQ(pick(8192, 1024, 8192, true, 132, 80), "pipelined_128x256");
  EXPECT_EQ(pick(4096, 4096, 4096, false), "pipelined_128x128_any");      // unaligned: element-wise variants only
}

TEST(Heuristic, PartialLastWavesWeighAgainstLargeTiles) {
  // 3072^3: 288 blocks of 128x256 are 3 per SM on the busiest (2.2 waves);
  // cut k four ways, 1152 blocks of 768-deep parts are 9 (8.7 waves), and
  // 2304 unsplit 64x64 blocks 18 at a quarter of the area. Stream-K, two
  // waves whole and the rest shared (35 slices per block, a tenth slower
  // than whole ones, six pieces a tile), is estimated fastest (on the H100:
  // 110% of cuBLAS against 102.5% for split-k and 86% for unsplit 128x256).
  EXPECT_EQ(pick(3072, 3072, 3072, true, 132, 80), "pipelined_128x256_streamk");
  EXPECT_EQ(pick(3072, 3072, 3072, false), "pipelined_128x128_any_splitk");  // no stream-K for any alignment
  // 5120^3: 800 blocks of 128x256 take 7 rounds of 132 (6.06 waves); cut
  // five ways, 4000 blocks take 31 (30.3). Stream-K runs six waves whole and
  // shares the 8 tiles left: on the H100 5222 us against 5429 for split-k;
  // 6656^3 (10.2 waves) 11374 against 11613.
  EXPECT_EQ(pick(5120, 5120, 5120, true, 132, 80), "pipelined_128x256_streamk");
  EXPECT_EQ(pick(6656, 6656, 6656, true, 132, 80), "pipelined_128x256_streamk");
  // 6144^3: 1152 blocks of 128x256, 9 rounds (8.7 waves); 8192^3: 16 rounds
  // (15.5). Cut into parts they would take fewer rounds by the estimate, but
  // over 4 waves and more split-k is passed over where stream-K can take
  // the call (it lost to whole tiles on the H100: 9096 against 9003 us,
  // 21339 against 21229), and stream-K would save under 3% by its estimate
  // (even on the H100). 7168^3: 12 rounds (11.9), nothing to gain.
  EXPECT_EQ(pick(6144, 6144, 6144, true, 132, 80), "pipelined_128x256");
  EXPECT_EQ(pick(7168, 7168, 7168, true, 132, 80), "pipelined_128x256");
  EXPECT_EQ(pick(8192, 8192, 8192, true, 132, 80), "pipelined_128x256");
  // Without stream-K (any alignment) split-k stays a choice there.
  EXPECT_EQ(pick(8192, 8192, 8192, false), "pipelined_128x128_any_splitk");
}

TEST(Heuristic, Step08StreamKSharesOnlyWhereItPays) {
  using tessel::impl::kSimtStreamK;
  using tessel::impl::plan_stream_k;
  // 3.9 waves (4096^3): the shared slices' slowdown eats the gain; likewise
  // 7168^3 (11.9 waves).
  EXPECT_EQ(plan_stream_k(16 * 32, 256, 132, nullptr, kSimtStreamK).sharing, 0);
  EXPECT_EQ(plan_stream_k(28 * 56, 448, 132, nullptr, kSimtStreamK).sharing, 0);
  // 2.2 waves (3072^3): two waves whole (the tile kernel's), the 24 tiles
  // left over in runs of 35 slices.
  const tessel::impl::StreamKPlan p = plan_stream_k(12 * 24, 192, 132, nullptr, kSimtStreamK);
  EXPECT_EQ(p.whole, 264);
  EXPECT_EQ(p.sharing, 132);
  EXPECT_EQ(p.shared_slices, 24 * 192);
  // However many whole waves come first (5632^3: 7).
  const tessel::impl::StreamKPlan q = plan_stream_k(44 * 22, 352, 132, nullptr, kSimtStreamK);
  EXPECT_EQ(q.whole, 7 * 132);
  EXPECT_EQ(q.shared_slices, 44 * 352);
  // Shallow k: runs would be under 16 slices deep, too short to pay.
  EXPECT_EQ(plan_stream_k(32, 19, 132, nullptr, kSimtStreamK).sharing, 0);  // 1024x1024x300
  // A plan that shares among too few blocks to fill the GPU does not count
  // as filling it: 512^3 (16 blocks share 8 tiles) and 768^3 (54 share 18)
  // go to split-k (on the H100, stream-K there: 25% and 53% of cuBLAS, the
  // copy of A and the hand-overs unhidden; 768^3 cut seven ways in 128x256
  // tiles: 115%, in 64x64 tiles three ways 106%).
  EXPECT_EQ(pick(512, 512, 512, true), "pipelined_64x64_splitk");
  EXPECT_EQ(pick(768, 768, 768, true), "pipelined_128x256_splitk");
}

TEST(Heuristic, BlocksThatFillAnSm) {
  using namespace tessel::impl;
  auto fill = [](const char* name) { return fill_blocks(tessel::find_entry(name)->simt); };
  EXPECT_EQ(fill("pipelined_64x64"), 2);      // 2 warps a block: two give each scheduler one
  EXPECT_EQ(fill("pipelined_64x64_any"), 4);  // element-wise loads: all it holds
  EXPECT_EQ(fill("pipelined_128x128"), 2);            // the blocks it holds
  EXPECT_EQ(fill("pipelined_128x128_any"), 2);
  EXPECT_EQ(fill("pipelined_128x256"), 1);
  // Rounds of them: 5 blocks where 4 make a round cost 8; 3 where 2 do, 4.
  EXPECT_EQ(busiest_sm_blocks(5 * 132, 132, 4), 8);
  EXPECT_EQ(busiest_sm_blocks(2 * 132 + 1, 132, 2), 4);
  EXPECT_EQ(busiest_sm_blocks(132, 132, 1), 1);
}

TEST(Heuristic, SmallOutputsSplitKIntoShallowParts) {
  using tessel::impl::split_count;
  // 256^3: 16 tiles of 64x64 cut into four 64-deep parts (H100: 95% of
  // cuBLAS; uncut, 56%); 512^3 into four 128-deep ones (256 blocks, two per
  // SM: 105%; two 256-deep parts, 75%).
  EXPECT_EQ(pick(256, 256, 256, true), "pipelined_64x64_splitk");
  EXPECT_EQ(split_count(16, 256, 132, 2, 16), 4);
  EXPECT_EQ(split_count(64, 512, 132, 2, 16), 4);
  // Two aligned 64x64 blocks per SM fill it: 1024x1024x300 stays uncut (H100:
  // 92%; cut in two, 82%), and 4096x64x300 (64 tiles) cut in four takes 64x64
  // tiles, not 128x256 that would leave 3/4 of their columns idle (95-100%
  // against 61%).
  EXPECT_EQ(pick(1024, 1024, 300, true), "pipelined_64x64");
  EXPECT_EQ(pick(4096, 64, 300, true), "pipelined_64x64_splitk");
  // 1536^3 (72 tiles of 128x256): stream-K, each block a run of 53 slices
  // (H100 NN: 171 us, against 184 for 128x256 tiles cut
  // seven ways and 183 for 64x64 ones).
  EXPECT_EQ(pick(1536, 1536, 1536, true, 132, 80), "pipelined_128x256_streamk");
}

// A unit's owner adds its hand-overs one after another, so step 08's stream-K
// cuts no unit into more than 8 runs: one 128x256 tile 65536 deep is shared
// by 6 blocks, not every slot, and split-k's 64x64 tiles take the call
// (the 265-run plan measured 7x cuBLAS's time, H100).
TEST(Heuristic, Step08StreamKCutsAUnitIntoFewRuns) {
  for (const tessel::impl::StreamKCost& cost : {tessel::impl::kSimtStreamK, tessel::impl::kSimtTmaStreamK}) {
    const int64_t slices = 65536 / 16;
    const tessel::impl::StreamKPlan p = tessel::impl::plan_stream_k(1, slices, 264, nullptr, cost);
    ASSERT_GT(p.sharing, 0);
    const int64_t run = (p.shared_slices + p.sharing - 1) / p.sharing;
    EXPECT_LE((slices + run - 1) / run + 1, cost.max_pieces);
  }
  for (int cc : {80, 90}) EXPECT_EQ(pick(64, 64, 65536, true, 132, cc), "pipelined_64x64_splitk") << cc;
}

// On Hopper, step 08's 128x256 tiles on the TMA-fed loop with 32-deep
// slices (pipelined_128x256_streamk_tma): whole tiles 2.5-3% faster than
// pipelined_128x256's (its entry's speed, 1.02), and stream-K sharing the
// last waves wherever its plan estimates a 1% gain. With that, 43 of 83
// shapes tried moved to it from the cp.async kernels, each 1.0-5.4% faster
// (H100, NN and TN); small outputs keep split-k.
TEST(Heuristic, HopperStreamKOnTheTmaLoop) {
  using tessel::impl::kSimtTmaStreamK;
  using tessel::impl::plan_stream_k;
  // 4096^3 in 32-deep slices: 3 waves whole, then 116 tiles' 128 slices in
  // runs of 113 (estimated 1.2% faster; measured TN 2581 -> 2558 us);
  // 7168^3 and 4096x4096x1024 not shared (0.3-0.4% slower shared).
  EXPECT_GT(plan_stream_k(16 * 32, 128, 132, nullptr, kSimtTmaStreamK).sharing, 0);
  EXPECT_EQ(plan_stream_k(28 * 56, 224, 132, nullptr, kSimtTmaStreamK).sharing, 0);
  EXPECT_EQ(plan_stream_k(16 * 32, 32, 132, nullptr, kSimtTmaStreamK).sharing, 0);
  for (int64_t s : {1536, 2048, 3072, 4096, 5120, 6144, 7168, 8192}) {
    EXPECT_EQ(pick(s, s, s, true), "pipelined_128x256_streamk_tma") << s;
  }
  EXPECT_EQ(pick(4096, 4096, 1024, true), "pipelined_128x256_streamk_tma");  // 701 -> 683 us NN (128x256)
  EXPECT_EQ(pick(8192, 1024, 8192, true), "pipelined_128x256_streamk_tma");  // 2802 -> 2774
  EXPECT_EQ(pick(1024, 1024, 1024, true), "pipelined_128x256_splitk");
  EXPECT_EQ(pick(1100, 4100, 1000, true), "pipelined_64x64_splitk");
  EXPECT_EQ(pick(127, 4097, 1000, true), "pipelined_64x64_splitk");
  EXPECT_EQ(pick(4096, 4096, 4096, false), "pipelined_128x128_any");  // TMA needs 16-byte aligned rows
}

// pipelined_64x64_splitk runs blocks of 4 warps where the 2-warp kernel would
// launch at most 4 blocks an SM (H100, auto: 256^3 12.7 -> 10.6 us, 704^3
// 30.1 -> 26.8, 300x300x5000 40.2 -> 34.1), or 6 where an operand is
// transposed on its way in (896^3 NT 53.8 -> 49.0, 3072x256x768 NT 57.1 ->
// 45.0), else 2 warps (896^3 TN: 784 blocks; 4 warps lost 41.5 -> 44.7 us).
TEST(Heuristic, SplitKFourWarpsWhereBlocksAreFew) {
  // Whether dispatch's plan for pipelined_64x64_splitk runs the 4-warp configuration.
  auto four_warps = [](int64_t m, int64_t n, int64_t k, int sms, bool transposing) {
    const tessel::KernelEntry* e = tessel::find_entry("pipelined_64x64_splitk");
    tessel::GemmArgs a{transposing ? tessel::Op::N : tessel::Op::T, tessel::Op::N, m, n, k};
    return tessel::make_plan(*e, a, sms).launch == e->four_warps;
  };
  for (int64_t s : {256, 512, 704, 832}) EXPECT_TRUE(four_warps(s, s, s, 132, false)) << s;
  EXPECT_TRUE(four_warps(300, 300, 5000, 132, false));   // 250 blocks
  EXPECT_TRUE(four_warps(4096, 64, 300, 132, false));    // 256
  EXPECT_FALSE(four_warps(896, 896, 896, 132, false));   // 784
  EXPECT_FALSE(four_warps(1200, 1200, 400, 132, false)); // 722
  EXPECT_FALSE(four_warps(2100, 2100, 300, 132, false)); // 1089
  EXPECT_FALSE(four_warps(896, 896, 896, 66, false));    // on half the SMs
  EXPECT_TRUE(four_warps(896, 896, 896, 132, true));     // 784 blocks, an operand transposed
  EXPECT_TRUE(four_warps(1200, 1200, 400, 132, true));   // 722
  EXPECT_FALSE(four_warps(1152, 1152, 1152, 132, true)); // 1296
}

TEST(Heuristic, SmallOutputsSplitK) {
  // 1024^3: 32 tiles of 128x256, k cut four ways: one block per SM (H100:
  // 98.5% of cuBLAS against 88.3% for 64x64 cut in two).
  EXPECT_EQ(pick(1024, 1024, 1024, true), "pipelined_128x256_splitk");
  EXPECT_EQ(pick(127, 4097, 1000, false), "pipelined_64x64_any_splitk");
  EXPECT_EQ(pick(4096, 64, 8192, true), "pipelined_64x64_splitk");  // 128x256 would waste 3/4 of its columns
}

TEST(Heuristic, SplitKOnlyWhereItPays) {
  EXPECT_EQ(pick(2048, 2048, 1024, true, 132, 80), "pipelined_128x256");  // one whole wave already
  EXPECT_EQ(pick(4096, 4096, 1024, true, 132, 80), "pipelined_128x256");
  EXPECT_EQ(pick(4096, 4096, 4096, true, 132, 80), "pipelined_128x256");  // 3.9 waves: cut in two, 7.8 of twice as many
}

TEST(Heuristic, SmallOutputsWithShallowKTakeTheMostBlocks) {
  EXPECT_EQ(pick(1024, 1024, 300, true), "pipelined_64x64");  // too shallow to cut (H100: 14% faster uncut)
  EXPECT_EQ(pick(7, 7, 7, false), "pipelined_64x64_any");
}

TEST(Heuristic, SplitCountFillsTheSmsWithTheLeastWork) {
  using tessel::impl::split_count;
  EXPECT_EQ(split_count(32, 1024, 132, 1, 16), 4);    // 128 blocks of 256
  EXPECT_EQ(split_count(288, 3072, 132, 1, 16), 4);   // 1152 blocks of 768: 9 per SM
  EXPECT_EQ(split_count(256, 1024, 132, 4, 16), 2);   // 512 blocks fill 4 per SM
  EXPECT_EQ(split_count(10, 200, 132, 1, 16), 3);     // none fills: as many 64-deep parts as k allows
  EXPECT_EQ(split_count(10, 40, 132, 1, 16), 1);      // k too shallow to cut
  EXPECT_EQ(split_count(324, 1152, 132, 4, 16), 3);   // 972 blocks: two rounds of 4, 416 deep (two parts: 648, two rounds 608 deep)
  EXPECT_EQ(split_count(324, 1152, 132, 2, 16), 4);   // 1296 blocks: five rounds of 2, each 288 deep
  EXPECT_EQ(split_count(1, 1 << 20, 132, 1, 16), tessel::impl::kMaxSplits);
}

TEST(Heuristic, Step08CopiesAnOperandOnlyWhereItPays) {
  using namespace tessel::impl;
  // copy_pays for an operand of mn x k read through registers, on 132 SMs;
  // the cases measured on the H100 (docs/ladder.md).
  auto shape = [](const char* name) { return tessel::find_entry(name)->simt; };
  auto big = [&](int64_t m, int64_t n, int64_t k, int64_t mn, bool b = false) {  // 128x256 tiles, 1 block per SM
    const int64_t tiles = (m + 127) / 128 * ((n + 255) / 256);
    return copy_pays(2.0 * m * n * k, mn, k, tiles, 132, register_path(shape("pipelined_128x256"), b, false));
  };
  auto small = [&](int64_t m, int64_t n, int64_t k, int64_t blocks) {  // aligned 64x64 tiles, A copied
    return copy_pays(2.0 * m * n * k, m, k, blocks, 132 * 4, register_path(shape("pipelined_64x64"), false, false));
  };
  EXPECT_TRUE(big(4096, 4096, 4096, 4096));
  EXPECT_TRUE(big(4096, 4096, 1024, 4096));
  EXPECT_TRUE(big(8192, 8192, 8192, 8192));  // 256 MiB, the most it copies
  EXPECT_TRUE(big(1024, 8192, 8192, 1024));  // A of 1024x8192x8192
  EXPECT_FALSE(big(8192, 1024, 8192, 8192));  // A of 8192x1024x8192: 8192 x 8192 moved
  EXPECT_FALSE(big(2048, 2048, 2048, 2048));  // 128 blocks: less than one per SM
  EXPECT_FALSE(big(2048, 2048, 512, 2048));
  // B with op T pays for its copy with fewer blocks than SMs too, where the call is large enough.
  EXPECT_TRUE(big(2048, 2048, 2048, 2048, true));
  EXPECT_TRUE(big(1920, 1920, 1920, 1920, true));
  EXPECT_FALSE(big(2048, 2048, 512, 2048, true));
  EXPECT_FALSE(big(1536, 1536, 1536, 1536, true));
  // A large B with a short m: 1024x8192x8192 and 1536x8192x1024 NT and TT
  // copy B (H100: 1.7-3.7% faster); 1024x8192x2048 does not (1.2% it left).
  EXPECT_TRUE(big(1024, 8192, 8192, 8192, true));
  EXPECT_TRUE(big(1536, 8192, 1024, 8192, true));
  EXPECT_FALSE(big(1024, 8192, 2048, 8192, true));
  EXPECT_FALSE(big(8193, 8192, 8192, 8193));  // more than 256 MiB
  EXPECT_TRUE(small(1200, 1200, 400, 361 * 2));  // split-k, two parts
  EXPECT_TRUE(small(1536, 1536, 256, 576));
  EXPECT_TRUE(small(3000, 3000, 300, 47 * 47));
  EXPECT_FALSE(small(1000, 1000, 1000, 256));  // two blocks per SM: the register path hides
  EXPECT_FALSE(small(640, 640, 640, 1000));    // too small to pay for the copy's launch
  // The unaligned kernels: as the 128x256 tiles.
  EXPECT_FALSE(copy_pays(2.0 * 127 * 4097 * 1000, 127, 1000, 2 * 65 * 8, 132 * 4,
                         register_path(shape("pipelined_64x64_any"), false, false)));
  EXPECT_TRUE(copy_pays(2.0 * 3071 * 3071 * 3071, 3071, 3071, 24 * 24, 132 * 2,
                        register_path(shape("pipelined_128x128_any"), false, false)));
}

TEST(Heuristic, FewerSmsNeedFewerBlocks) {
  EXPECT_EQ(pick(1024, 1024, 1024, true, 16, 80), "pipelined_128x256");  // 32 blocks fill 16 SMs
}

// Step 10 (mma.sync, f16), as auto-dispatch sees it without Hopper: 64x64 is
// 0.71 of 128x128's speed per area, so it takes over only where 128x128 does
// not fill the GPU.
TEST(Heuristic, MmaKeepsTheLargerTileWhereBothFill) {
  std::vector<const tessel::KernelEntry*> f16;
  for (const auto& e : tessel::registry()) {
    if (e.info.ladder_step == 10 && !e.persistent && e.info.precisions[0].ab == tessel::DType::kF16) f16.push_back(&e);
  }
  ASSERT_EQ(f16.size(), 2u);
  auto pick = [&](int64_t s) { return tessel::pick_by_blocks(f16, s, s, s, 132)->info.name; };
  EXPECT_EQ(pick(3072), "mma_f16_128x128");  // 576 blocks of 128x128: 5 per SM; 2304 of 64x64: 18, at 0.71 the speed
  EXPECT_EQ(pick(4096), "mma_f16_128x128");
  EXPECT_EQ(pick(1024), "mma_f16_64x64");  // neither fills: the most blocks
}

TEST(Heuristic, NoCandidatesNoChoice) {
  EXPECT_EQ(tessel::pick_by_blocks({}, 10, 10, 10, 132), nullptr);
  EXPECT_EQ(tessel::pick_persistent({}, 10, 10, 10, 132), nullptr);
}

// Steps 14 and 15 (persistent: estimated time), as auto-dispatch sees them on sm_90.
tessel::GemmArgs call(tessel::DType ab, tessel::DType c, int64_t m, int64_t n, int64_t k) {
  tessel::GemmArgs a;
  a.precision = {ab, c, ab == tessel::DType::kF32 ? tessel::Compute::kTF32 : tessel::Compute::kF32};
  a.m = m, a.n = n, a.k = k, a.lda = k, a.ldb = k, a.ldc = n, a.opB = tessel::Op::T;
  return a;
}

// Auto-dispatch's choice among steps 14 and 15 for a bf16 call (x·Wᵀ).
std::string pick_persistent(int64_t m, int64_t n, int64_t k, int sms = 132) {
  std::vector<const tessel::KernelEntry*> candidates;
  const tessel::GemmArgs a = call(tessel::DType::kBF16, tessel::DType::kBF16, m, n, k);
  for (const auto& e : tessel::registry()) {
    const bool step = e.info.ladder_step == 14 || e.info.ladder_step == 15;
    if (step && e.info.auto_dispatch && e.info.precisions[0].ab == tessel::DType::kBF16 && auto_candidate(e, a, sms)) {
      candidates.push_back(&e);
    }
  }
  const tessel::KernelEntry* e = tessel::pick_persistent(candidates, m, n, k, sms);
  return e ? e->info.name : "none";
}

TEST(Heuristic, PersistentKernelsFillTheLastWave) {
  // 256 units of 2 x 128x256 tiles on 66 clusters: 3.9 of 4 waves, too full for sharing to pay.
  EXPECT_EQ(pick_persistent(4096, 4096, 4096), "wgmma_cluster_bf16_128x256_streamk");
  EXPECT_EQ(pick_persistent(8192, 8192, 8192), "wgmma_cluster_bf16_128x256_streamk");
  EXPECT_EQ(pick_persistent(2048, 2048, 2048), "wgmma_cluster_bf16_128x256_streamk");          // 64 units, one wave
  EXPECT_EQ(pick_persistent(1024, 1024, 1024), "wgmma_cluster_bf16_64x128");   // 64 units of 64x128: one wave
  EXPECT_EQ(pick_persistent(5120, 5120, 5120), "wgmma_cluster_bf16_128x256_streamk");          // 6.06 waves: share the last two
  // 96 units of 2 x 128x192 tiles on 66 clusters (1.45 waves), 112 slices deep: shared.
  EXPECT_EQ(pick_persistent(8192, 576, 7168), "wgmma_cluster_bf16_128x192_streamk");
}

TEST(Heuristic, SmallMStreamsOnSingleCtas) {
  // m <= 128 over a large weight: a cluster's second row tile would lie past m; single CTAs whose
  // one row tile covers m share every unit's k-slices. Larger m: the clusters again.
  for (int64_t m : {1, 16, 64}) EXPECT_EQ(pick_persistent(m, 18432, 7168), "wgmma_bf16_64x128_streamk") << m;
  EXPECT_EQ(pick_persistent(128, 18432, 7168), "wgmma_bf16_128x128_streamk");
  EXPECT_EQ(pick_persistent(512, 18432, 7168), "wgmma_cluster_bf16_128x256_streamk");
  // A narrow weight (9 tiles of 64x64): split-k's parallel sum beats one owner adding many hand-overs, and
  // single CTAs leave no CTA of a pair past m.
  EXPECT_EQ(pick_persistent(16, 576, 7168), "wgmma_bf16_64x64_splitk");
}

TEST(Heuristic, FewTilesSplitKOnSingleCtas) {
  using namespace tessel;
  // One 64x64 tile, k 65536 deep: a part of k on every SM (128 parts of 8 slices), summed in a fixed order.
  EXPECT_EQ(pick_persistent(64, 64, 65536), "wgmma_bf16_64x64_splitk");
  EXPECT_EQ(pick_persistent(256, 256, 8192), "wgmma_bf16_64x64_splitk");  // 16 tiles
  const KernelEntry* e = find_entry("wgmma_bf16_64x64_splitk");
  ASSERT_NE(e, nullptr);
  const impl::LaunchPlan p = make_plan(*e, call(DType::kBF16, DType::kBF16, 64, 64, 65536), 132);
  EXPECT_EQ(p.splits, 128);
  EXPECT_EQ(p.k_per_split, 512);
  // 64 tiles on 132 SMs: step 15's single CTAs, whole units in one wave; not a candidate.
  EXPECT_FALSE(auto_candidate(*e, call(DType::kBF16, DType::kBF16, 64, 4096, 4096), 132));
  EXPECT_EQ(pick_persistent(64, 4096, 4096), "wgmma_bf16_64x64_streamk");
  // On a GPU of fewer SMs, fewer tiles qualify.
  EXPECT_TRUE(auto_candidate(*e, call(DType::kBF16, DType::kBF16, 64, 2048, 7168), 132));
  EXPECT_FALSE(auto_candidate(*e, call(DType::kBF16, DType::kBF16, 64, 2048, 7168), 100));
  // tf32 (no single-CTA stream-K): wherever the output is one tile high or wide.
  const KernelEntry* t = find_entry("wgmma_tf32_64x64_splitk");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(auto_candidate(*t, call(DType::kF32, DType::kF32, 64, 8192, 8192), 132));
  EXPECT_TRUE(auto_candidate(*t, call(DType::kF32, DType::kF32, 4096, 16, 65536), 132));
  EXPECT_FALSE(auto_candidate(*t, call(DType::kF32, DType::kF32, 128, 8192, 8192), 132));
  // A batch: whole units only, no parts to gain by.
  GemmArgs batch = call(DType::kBF16, DType::kBF16, 64, 64, 65536);
  batch.batch = 4, batch.stride_a = 64 * 65536, batch.stride_b = 64 * 65536, batch.stride_c = 64 * 64;
  EXPECT_FALSE(auto_candidate(*e, batch, 132));
}

TEST(Heuristic, NarrowTilesFillOneWaveOfSingleCtas) {
  // 128 units of 64x64 on 132 single CTAs: one wave, nothing shared, no parts to sum (the 64x128 clusters
  // would split k in two and sum the parts in a second launch).
  EXPECT_EQ(pick_persistent(128, 4096, 4096), "wgmma_bf16_64x64_streamk");
  EXPECT_EQ(pick_persistent(64, 7168, 2048), "wgmma_bf16_64x64_streamk");
  EXPECT_EQ(pick_persistent(512, 512, 512), "wgmma_bf16_64x64_streamk");
  // Past one wave the 64x64 units would be shared: other tiles again.
  EXPECT_EQ(pick_persistent(128, 7168, 2048), "wgmma_cluster_bf16_64x128");
  EXPECT_EQ(pick_persistent(512, 4096, 4096), "wgmma_cluster_bf16_128x128_streamk");
  // Past 512 rows the single CTAs are not candidates.
  EXPECT_EQ(pick_persistent(1024, 1024, 1024), "wgmma_cluster_bf16_64x128");
}

TEST(Heuristic, StreamKSharesOnlyWhenItPays) {
  int64_t busiest = 0;
  // 4096^3: 256 units of 64 slices on 66 clusters; whole units: 4 x 64 slices.
  EXPECT_EQ(tessel::impl::plan_stream_k(256, 64, 66, &busiest).sharing, 0);
  EXPECT_EQ(busiest, 256);
  // 5120^3: 400 units of 80 slices: 7 waves whole (560), or 5 whole waves + 85 shared slices + fix-ups.
  const tessel::impl::StreamKPlan p = tessel::impl::plan_stream_k(400, 80, 66, &busiest);
  EXPECT_EQ(p.whole, 5 * 66);
  EXPECT_EQ(p.sharing, 66);
  EXPECT_EQ(p.shared_slices, 70 * 80);
  EXPECT_LT(busiest, 560);
  // Even waves: nothing to share.
  EXPECT_EQ(tessel::impl::plan_stream_k(132, 80, 66).sharing, 0);
  // Fewer units than clusters, deep k: shared in runs of at least min_run slices.
  const tessel::impl::StreamKPlan q = tessel::impl::plan_stream_k(4, 512, 66);
  EXPECT_EQ(q.whole, 0);
  EXPECT_EQ(q.sharing, 66);
  EXPECT_GE(q.shared_slices / q.sharing, tessel::impl::kWgmmaStreamK.min_run);
}

}  // namespace

namespace {

TEST(Heuristic, PersistentSplitKBoundsEveryAccumulationChain) {
  using namespace tessel;
  for (const char* name : {"wgmma_cluster_tf32_64x128", "wgmma_cluster_bf16_128x256", "wgmma_cluster_f16_64x128"}) {
    const KernelEntry* e = find_entry(name);
    ASSERT_NE(e, nullptr) << name;
    const DType ab = e->info.precisions[0].ab;
    for (int64_t k : {int64_t(40000), int64_t(378303), int64_t(1048259)}) {
      for (int64_t mn : {int64_t(3), int64_t(64), int64_t(1000)}) {
        const GemmArgs a = call(ab, DType::kF32, mn, mn, k);
        const impl::LaunchPlan p = make_plan(*e, a, 132);
        SCOPED_TRACE(std::string(name) + " " + std::to_string(mn) + " k " + std::to_string(k));
        ASSERT_GT(p.splits, 1);
        // Chains within the bound, or (1000^2 outputs: 4 MiB parts) as many parts as the workspace bound holds.
        const bool full = (p.parts_bytes / size_t(p.splits)) * size_t(p.splits + 1) > impl::kMaxPartsBytes;
        EXPECT_TRUE(p.k_per_split <= impl::kMaxChainDepth || (mn == 1000 && full)) << p.k_per_split;
        EXPECT_EQ(p.k_per_split % e->k_slice, 0);
        EXPECT_LT((p.splits - 1) * p.k_per_split, k);  // no empty part
        EXPECT_TRUE(p.parts_to_workspace);
        EXPECT_EQ(p.part_rows % (e->info.tile_m * e->cluster), 0);
        EXPECT_GE(p.part_rows, mn);
        EXPECT_EQ(p.parts_bytes, size_t(p.splits * p.part_rows * impl::flipped_ld(mn)) * sizeof(float));
        EXPECT_LE(p.parts_bytes, impl::kMaxPartsBytes);
        EXPECT_GE(p.workspace_bytes(), p.parts_bytes);
      }
    }
  }
}

TEST(Heuristic, PersistentSplitKOnlyWhereUnitsAreFewOrKIsDeep) {
  using namespace tessel;
  const KernelEntry* e = find_entry("wgmma_cluster_bf16_128x256");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(make_plan(*e, call(DType::kBF16, DType::kBF16, 4096, 4096, 4096), 132).splits, 1);
  EXPECT_EQ(make_plan(*e, call(DType::kBF16, DType::kBF16, 8192, 8192, 8192), 132).splits, 1);
  EXPECT_EQ(make_plan(*e, call(DType::kBF16, DType::kBF16, 256, 256, 128), 132).splits, 1);  // too shallow to cut
  EXPECT_GT(make_plan(*e, call(DType::kBF16, DType::kBF16, 256, 256, 8192), 132).splits, 1);  // 2 units
  // Parts that would not fit the workspace's bound: k stays whole.
  EXPECT_EQ(make_plan(*e, call(DType::kBF16, DType::kBF16, 8192, 8192, 65536), 132).splits, 1);
  // The lean plan (no room on the GPU) takes no parts.
  const GemmArgs deep = call(DType::kBF16, DType::kBF16, 64, 64, 65536);
  const impl::LaunchPlan lean = lean_plan(make_plan(*e, deep, 132), *e, deep);
  EXPECT_EQ(lean.splits, 1);
  EXPECT_EQ(lean.workspace_bytes(), 0u);
}

TEST(Heuristic, SmallOutputsWithDeepKSplitOnTensorCores) {
  for (int64_t k : {16384, 65536, 1048576}) {
    const std::string name = pick_persistent(64, 64, k);
    const tessel::KernelEntry* e = tessel::find_entry(name);
    ASSERT_NE(e, nullptr);
    tessel::GemmArgs a = call(tessel::DType::kBF16, tessel::DType::kBF16, 64, 64, k);
    const tessel::impl::LaunchPlan p = tessel::make_plan(*e, a, 132);
    EXPECT_TRUE(p.splits > 1 || p.stream_k.sharing > 0) << name << " k " << k;
  }
}

}  // namespace

namespace {

TEST(Heuristic, TileSplitOnStepsNineAndTen) {
  using namespace tessel;
  for (const char* name : {"mma_bf16_64x64", "mma_tf32_128x128", "wmma_bf16_128x128_any"}) {
    const KernelEntry* e = find_entry(name);
    ASSERT_NE(e, nullptr) << name;
    const DType ab = e->info.precisions[0].ab;
    const impl::LaunchPlan deep = make_plan(*e, call(ab, DType::kF32, 64, 64, 1 << 20), 132);
    EXPECT_GT(deep.splits, 1) << name;
    EXPECT_LE(deep.k_per_split, impl::kMaxChainDepth) << name;
    EXPECT_EQ(deep.k_per_split % e->k_slice, 0) << name;
    EXPECT_LT((deep.splits - 1) * deep.k_per_split, int64_t(1) << 20) << name;
    EXPECT_TRUE(deep.parts_to_workspace) << name;
    EXPECT_EQ(deep.part_rows, 64) << name;
    EXPECT_EQ(make_plan(*e, call(ab, DType::kF32, 4096, 4096, 4096), 132).splits, 1) << name;  // tiles fill the GPU
    EXPECT_EQ(make_plan(*e, call(ab, DType::kF32, 64, 64, 128), 132).splits, 1) << name;  // the sum would cost more
  }
}

TEST(Heuristic, SmallMSplitsIntoWholeChunksForLoadsInFlight) {
  using namespace tessel;
  for (const char* name : {"gemv_16x32_any", "gemv_bf16_16x32"}) {
    ASSERT_NE(find_entry(name), nullptr) << name;
    KernelEntry e = *find_entry(name);
    e.small_m_resident = nullptr;  // kSmallMBlocksPerSm an SM, with the tail that sums the parts or without
    const DType ab = e.info.precisions[0].ab;
    for (int64_t m : {1, 16}) {
      GemmArgs a = call(ab, ab, m, 4096, 4096);  // NT: 128 blocks of columns for 132 SMs
      const impl::LaunchPlan p = make_plan(e, a, 132);
      EXPECT_GT(p.splits, 1) << name;
      EXPECT_EQ(p.k_per_split % impl::kSmallMChunkK, 0) << name;
      EXPECT_LT((p.splits - 1) * p.k_per_split, a.k) << name;
      EXPECT_EQ(p.parts_bytes, size_t(p.splits * m * impl::flipped_ld(4096)) * sizeof(float)) << name;
      // Summed by the last part to arrive, a count per column block, at m <= 4 where that block's sum is short.
      const bool arrive =
          m <= impl::kSmallMArrivalMaxM && m * impl::kSmallMColumnsT * p.splits <= impl::kSmallMArrivalMaxSums;
      EXPECT_EQ(p.arrival_flags, arrive ? 4096 / impl::kSmallMColumnsT : 0) << name;
      if (m == 1) EXPECT_TRUE(arrive) << name;
      EXPECT_GE(p.workspace_bytes(), p.parts_bytes) << name;
    }
    EXPECT_EQ(make_plan(e, call(ab, ab, 1, 4096, 256), 132).splits, 1) << name;       // one chunk of k
    EXPECT_EQ(make_plan(e, call(ab, ab, 1, 1 << 17, 4096), 132).splits, 1) << name;  // columns enough
    // B op N: a block takes 32 16-byte runs of columns, so 4096 columns make 4096 / (32 runs) blocks
    // and k is split into whole chunks, at most one a part.
    GemmArgs input_gradient = call(ab, ab, 1, 4096, 4096);
    input_gradient.opB = Op::N, input_gradient.ldb = 4096;
    EXPECT_EQ(impl::small_m_columns_n(size_of(ab)), 32 * 16 / int64_t(size_of(ab))) << name;
    EXPECT_EQ(make_plan(e, input_gradient, 132).splits, 4096 / impl::kSmallMChunkK) << name;
    input_gradient.n = input_gradient.ldb = 1 << 18;  // 1024 or more blocks: k whole
    EXPECT_EQ(make_plan(e, input_gradient, 132).splits, 1) << name;
    GemmArgs deep = call(ab, ab, 16, 512, 32768);  // few columns, many parts: their sum a second launch
    deep.opB = Op::N, deep.ldb = 512;
    const impl::LaunchPlan deep_plan = make_plan(e, deep, 132);
    EXPECT_GT(deep_plan.splits, 1) << name;
    EXPECT_EQ(deep_plan.arrival_flags, 0) << name;
  }
}

// Operands not in 16-byte units are copied with aligned rows first where the
// GEMM is large enough to pay for the copy (realign_for), and only for the
// kernels that need them aligned and copy them no other way.
TEST(Heuristic, UnalignedOperandsAreCopiedWhereTheCopyPays) {
  using namespace tessel;
  const auto* aligned = reinterpret_cast<const void*>(uintptr_t(1) << 20);
  auto unaligned_call = [&](DType ab, int64_t m, int64_t n, int64_t k, Op opA, Op opB) {
    GemmArgs a = call(ab, ab == DType::kF32 ? DType::kF32 : ab, m, n, k);
    a.opA = opA, a.opB = opB, a.A = aligned, a.B = aligned;
    a.lda = opA == Op::N ? k : m, a.ldb = opB == Op::N ? n : k;
    return a;
  };
  // 4097^3 NN: both leading dimensions odd, both copied (1/16 of the GEMM's time or less).
  const GemmArgs big = unaligned_call(DType::kBF16, 4097, 4097, 4097, Op::N, Op::N);
  EXPECT_TRUE(realign_for(big).a);
  EXPECT_TRUE(realign_for(big).b);
  // An operand whose rows are in 16-byte units stays; an odd pointer alone is enough to copy.
  GemmArgs one = unaligned_call(DType::kBF16, 4096, 4097, 4096, Op::N, Op::N);
  EXPECT_FALSE(realign_for(one).a);
  EXPECT_TRUE(realign_for(one).b);
  one.A = static_cast<const char*>(aligned) + 2;
  EXPECT_TRUE(realign_for(one).a);
  // WMMA `_any` ran 127x4097x1000 at 21 TFLOP/s (50 us): an 8 MB copy of B pays.
  EXPECT_TRUE(realign_for(unaligned_call(DType::kBF16, 127, 4097, 1000, Op::N, Op::N)).b);
  // Too little work for a copy's launch: the element-wise kernels (tf32's too; FP32's lose little).
  EXPECT_FALSE(realign_for(unaligned_call(DType::kBF16, 40, 36, 33, Op::N, Op::N)).b);
  EXPECT_FALSE(realign_for(unaligned_call(DType::kF32, 40, 36, 33, Op::N, Op::N)).b);
  GemmArgs fma = unaligned_call(DType::kF32, 500, 501, 499, Op::T, Op::N);
  fma.precision = Precision{};
  EXPECT_FALSE(realign_for(fma).b);
  // k == 0 or alpha == 0 reads no operand.
  GemmArgs none = big;
  none.alpha = 0.0f;
  EXPECT_FALSE(realign_for(none).a);

  // The plan copies for the aligned kernel, as it is, rows in 16-byte units.
  const KernelEntry* wgmma = find_entry("wgmma_cluster_bf16_128x256");
  const impl::LaunchPlan p = make_plan(*wgmma, big, 132, realign_for(big));
  EXPECT_TRUE(p.realign_a && p.realign_b);
  EXPECT_FALSE(p.copy_a || p.copy_b);
  const size_t copy = (size_t(4097) * impl::realigned_ld(4097, 2) * 2 + 255) / 256 * 256;
  EXPECT_EQ(impl::realigned_ld(4097, 2), 4104);
  EXPECT_EQ(p.operand_bytes, 2 * copy);
  EXPECT_EQ(lean_plan(p, *wgmma, big, realign_for(big)).operand_bytes, 2 * copy);  // it cannot run without them
  // Not for a kernel that takes any alignment, nor without the request (a kernel named by the caller).
  const impl::LaunchPlan any = make_plan(*find_entry("wmma_bf16_128x128_any"), big, 132, realign_for(big));
  EXPECT_FALSE(any.realign_a || any.realign_b);
  EXPECT_EQ(any.operand_bytes, 0u);
  EXPECT_EQ(make_plan(*wgmma, big, 132).operand_bytes, 0u);
  // tf32 op pair (N, N) this deep runs swapped: both copied as they are. (T, N) copies B K-major
  // anyway: only A is copied as it is.
  const KernelEntry* tf32_tiles = find_entry("wgmma_cluster_tf32_128x256");
  const GemmArgs tf32 = unaligned_call(DType::kF32, 4097, 4097, 4097, Op::N, Op::N);
  const impl::LaunchPlan t = make_plan(*tf32_tiles, tf32, 132, realign_for(tf32));
  EXPECT_TRUE(t.realign_a && t.realign_b);
  EXPECT_FALSE(t.copy_a || t.copy_b);
  const GemmArgs tn = unaligned_call(DType::kF32, 4097, 4097, 4097, Op::T, Op::N);
  const impl::LaunchPlan u = make_plan(*tf32_tiles, tn, 132, realign_for(tn));
  EXPECT_TRUE(u.realign_a && u.copy_b);
  EXPECT_FALSE(u.realign_b || u.copy_a);
  // Step 08's optional copies dropped by the lean plan: the operand is still copied, as it is.
  const GemmArgs f32 = [&] {
    GemmArgs a = unaligned_call(DType::kF32, 4097, 4097, 4097, Op::N, Op::N);
    a.precision = {};
    return a;
  }();
  const KernelEntry* simt = find_entry("pipelined_128x256");
  const impl::LaunchPlan lean = lean_plan(make_plan(*simt, f32, 132, realign_for(f32)), *simt, f32, realign_for(f32));
  EXPECT_TRUE(lean.realign_a && lean.realign_b);
  EXPECT_FALSE(lean.copy_a || lean.copy_b);
}

}  // namespace

namespace {

// Step 16 on tensor cores: deep k is split among a block's warps first (each keeping two
// rounds of loads), across blocks only where the blocks would leave SMs short.
TEST(Heuristic, SmallMOnTensorCoresSplitsKAmongWarpsThenBlocks) {
  using namespace tessel;
  const KernelEntry* e = find_entry("gemv_mma_bf16_16x16_any");
  ASSERT_NE(e, nullptr);
  auto plan = [&](int64_t m, int64_t n, int64_t k, Op op_b = Op::T) {
    GemmArgs a = call(DType::kBF16, DType::kBF16, m, n, k);
    a.opB = op_b, a.ldb = op_b == Op::T ? k : n;
    return make_plan(*e, a, 132);
  };
  const impl::LaunchPlan wide = plan(1, 28672, 8192);  // 1792 blocks of 16 columns: k whole
  EXPECT_EQ(wide.k_groups, 8);
  EXPECT_EQ(wide.splits, 1);
  const impl::LaunchPlan shallow = plan(1, 32768, 512);  // 16 steps of 32: four warps on k, 32 columns a block
  EXPECT_EQ(shallow.k_groups, 4);
  EXPECT_EQ(shallow.splits, 1);
  EXPECT_EQ(plan(16, 32768, 512).k_groups, 2);  // four steps a round at m = 16
  const impl::LaunchPlan narrow = plan(4, 576, 7168);  // 36 blocks: k split across blocks too
  EXPECT_EQ(narrow.k_groups, 8);
  EXPECT_GT(narrow.splits, 1);
  EXPECT_EQ(narrow.k_per_split % impl::kSmallMmaSliceK, 0);
  // B stored k x n: 128 columns a warp, so 4096 of them make 32 blocks and k is split across blocks.
  const impl::LaunchPlan input_gradient = plan(1, 4096, 4096, Op::N);
  EXPECT_EQ(input_gradient.k_groups, 8);
  EXPECT_GT(input_gradient.splits, 1);
  EXPECT_EQ(input_gradient.k_per_split % impl::kSmallMmaSliceK, 0);
  const impl::LaunchPlan wide_n = plan(16, 28672, 8192, Op::N);  // 448 blocks of 64 columns: k whole
  EXPECT_EQ(wide_n.k_groups, 8);
  EXPECT_EQ(wide_n.splits, 1);
}

// tf32 takes the same bytes a load as the 16-bit types: half the values, so
// half the k of a step with op T, and half the columns of a warp with op N.
TEST(Heuristic, SmallMOnTensorCoresCountsBytesForTf32) {
  using namespace tessel;
  const KernelEntry* e = find_entry("gemv_mma_tf32_16x16_any");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(impl::small_mma_step_k(Op::T, 4), 16);
  EXPECT_EQ(impl::small_mma_step_k(Op::T, 2), 32);
  EXPECT_EQ(impl::small_mma_columns(8, Op::N, 1, 4), 64);
  EXPECT_EQ(impl::small_mma_columns(8, Op::N, 16, 4), 32);
  GemmArgs a = call(DType::kF32, DType::kF32, 1, 32768, 512);  // 32 steps of 16: all eight warps on k
  EXPECT_EQ(make_plan(*e, a, 132).k_groups, 8);
  a.opB = Op::N, a.ldb = a.n, a.n = 4096;  // 64 blocks of 64 columns: k split across blocks
  a.k = 4096;
  const impl::LaunchPlan input_gradient = make_plan(*e, a, 132);
  EXPECT_GT(input_gradient.splits, 1);
  EXPECT_EQ(input_gradient.k_per_split % impl::kSmallMmaSliceK, 0);
  EXPECT_EQ(input_gradient.arrival_flags, 64);
}

// More blocks than a round of slots, the last round partial: k is cut where whole rounds of shorter parts
// save a tenth (tf32 op N, 64 columns a block, 264 slots on 132 SMs).
TEST(Heuristic, SmallMOnTensorCoresSplitsAPartialLastRound) {
  using namespace tessel;
  const KernelEntry* e = find_entry("gemv_mma_tf32_16x16_any");
  ASSERT_NE(e, nullptr);
  auto plan = [&](int64_t m, int64_t n, int64_t k) {
    GemmArgs a = call(DType::kF32, DType::kF32, m, n, k);
    a.opB = Op::N, a.ldb = n;  // tf32 (call), B stored k x n
    return make_plan(*e, a, 132);
  };
  const impl::LaunchPlan past = plan(1, 18432, 7168);  // 288 blocks: a second round of 24
  EXPECT_GT(past.splits, 1);
  EXPECT_EQ(past.k_per_split % impl::kSmallMmaSliceK, 0);
  EXPECT_EQ(past.arrival_flags, 288);
  EXPECT_EQ(plan(1, 16384, 7168).splits, 1);  // 256 blocks: one round
  EXPECT_EQ(plan(4, 28672, 8192).splits, 1);  // 448 blocks: two rounds, shorter parts save less than a tenth
}

}  // namespace

namespace {

tessel::GemmArgs fp8_call(int64_t m, int64_t n, int64_t k, tessel::Op opA, tessel::Op opB) {
  tessel::GemmArgs a;
  a.precision = *tessel::parse_precision("e4m3:bf16");
  a.m = m, a.n = n, a.k = k, a.opA = opA, a.opB = opB, a.ldc = n;
  a.lda = opA == tessel::Op::N ? k : m, a.ldb = opB == tessel::Op::N ? n : k;
  a.A = a.B = reinterpret_cast<const void*>(uintptr_t(1) << 20);
  return a;
}

// Step 17 (FP8): operands K-major only (the others copied transposed, bytes, not rounded), every
// operand not in 16-byte units copied whatever the size (no FP8 kernel reads them so), split-k
// parts of whole 128-deep slices, block scales on the tiles that promote 128 columns at a time.
TEST(Heuristic, Fp8PlansReadKMajorOperandsInWholeSlices) {
  using namespace tessel;
  const KernelEntry* e = find_entry("wgmma_cluster_e4m3_128x128");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->k_slice, 128);
  EXPECT_TRUE(e->info.fp8_block_scales);
  EXPECT_FALSE(find_entry("wgmma_cluster_e4m3_128x192")->info.fp8_block_scales);
  EXPECT_TRUE(find_entry("wgmma_cluster_e4m3_128x256")->info.fp8_block_scales);
  EXPECT_TRUE(find_entry("wgmma_cluster_e5m2_128x128")->info.fp8_block_scales);
  EXPECT_TRUE(e->info.fp8_column_scales);  // B's scales per column: the 128-wide tiles only
  EXPECT_FALSE(find_entry("wgmma_cluster_e4m3_128x256")->info.fp8_column_scales);
  EXPECT_TRUE(find_entry("wgmma_cluster_e5m2xe4m3_128x128")->info.fp8_column_scales);
  for (const auto& [opA, opB] : {std::pair{Op::N, Op::T}, std::pair{Op::N, Op::N}, std::pair{Op::T, Op::T},
                                 std::pair{Op::T, Op::N}}) {
    const GemmArgs a = fp8_call(4096, 4096, 4096, opA, opB);
    const impl::LaunchPlan p = make_plan(*e, a, 132, realign_for(a));
    EXPECT_EQ(p.copy_a, opA == Op::T);
    EXPECT_EQ(p.copy_b, opB == Op::N);
    EXPECT_FALSE(p.round_tf32);
    const size_t copy = size_t(4096) * 4096;  // one byte an element, rows already in 16-byte units
    EXPECT_EQ(p.operand_bytes, (p.copy_a ? copy : 0) + (p.copy_b ? copy : 0));
  }
  // k = 4097 (rows not in 16-byte units): copied even where a 16-bit call would not pay for it.
  const GemmArgs odd = fp8_call(64, 64, 4097, Op::N, Op::T);
  EXPECT_TRUE(realign_for(odd).a && realign_for(odd).b);
  // Split-k parts in whole FP8 slices.
  const impl::LaunchPlan deep = make_plan(*e, fp8_call(128, 128, 65536, Op::N, Op::T), 132);
  ASSERT_GT(deep.splits, 1);
  EXPECT_EQ(deep.k_per_split % 128, 0);
}

}  // namespace

namespace {

// FP8's three tiles: the dispatcher's estimate takes the one measured faster at each square
// (H200, e4m3 -> bf16, NT: bench/results/2026-11-28-h200-fp8-128x256/fp8_squares.csv).
TEST(Heuristic, Fp8TilesFollowTheMeasuredSquares) {
  using namespace tessel;
  const std::vector<const KernelEntry*> fp8 = {find_entry("wgmma_cluster_e4m3_128x128"),
                                               find_entry("wgmma_cluster_e4m3_128x192"),
                                               find_entry("wgmma_cluster_e4m3_128x256")};
  for (const KernelEntry* e : fp8) ASSERT_NE(e, nullptr);
  for (const auto& [size, best] : std::vector<std::pair<int64_t, const char*>>{
           {1024, "wgmma_cluster_e4m3_128x128"}, {2048, "wgmma_cluster_e4m3_128x256"},
           {3072, "wgmma_cluster_e4m3_128x192"}, {4096, "wgmma_cluster_e4m3_128x256"},
           {5120, "wgmma_cluster_e4m3_128x256"}, {6144, "wgmma_cluster_e4m3_128x256"},
           {7168, "wgmma_cluster_e4m3_128x256"}, {8192, "wgmma_cluster_e4m3_128x256"}}) {
    EXPECT_EQ(pick_persistent(fp8, size, size, size, 132)->info.name, best) << size;
  }
}

}  // namespace

namespace {

// A decode-like call: inputs ab (C the same), B with op_b, every leading dimension its least.
tessel::GemmArgs with_b(tessel::DType ab, int64_t m, int64_t n, int64_t k, tessel::Op op_b) {
  tessel::GemmArgs a = call(ab, ab, m, n, k);
  a.opB = op_b, a.ldb = op_b == tessel::Op::T ? k : n;
  return a;
}

// Auto-dispatch takes step 16 with B op N (stored k x n) only for few rows, deep k and wide n;
// with op T at any m <= 16 below 6144 columns; at any m <= 16 where rows are not in 16-byte units.
TEST(Heuristic, SmallMWithBNotTransposedOnlyWhereItPays) {
  using namespace tessel;
  const KernelEntry* e = find_entry("gemv_mma_bf16_16x16_any");
  ASSERT_NE(e, nullptr);
  auto candidate = [&](int64_t m, int64_t n, int64_t k, Op op_b) {
    return auto_candidate(*e, with_b(DType::kBF16, m, n, k, op_b), 132);
  };
  EXPECT_TRUE(candidate(8, 28672, 8192, Op::N));
  EXPECT_FALSE(candidate(16, 28672, 8192, Op::N));  // the tiles won at m = 16
  EXPECT_FALSE(candidate(1, 4096, 4096, Op::N));    // Hopper's swapped tiles take it
  EXPECT_FALSE(candidate(8, 8, 32768, Op::N));      // narrow n: the same
  EXPECT_TRUE(candidate(8, 7168, 2048, Op::T));
  EXPECT_TRUE(candidate(16, 4096, 4096, Op::T));
  EXPECT_FALSE(candidate(16, 7168, 2048, Op::T));  // two 8-row tiles a fragment: the TMA tiles stream wide B faster
  EXPECT_FALSE(candidate(16, 4096, 14336, Op::T));  // Hopper's swapped tiles
  EXPECT_TRUE(candidate(1, 8, 32768, Op::T));
  {
    GemmArgs a = call(DType::kBF16, DType::kBF16, 1, 4096, 4096);
    a.opB = Op::N, a.ldb = 4100;  // rows not in 16-byte units: no TMA, so the stream
    EXPECT_TRUE(auto_candidate(*e, a, 132));
    // Rows not in 16-byte units at any m <= 16 and any width: the tiles would copy them or run WMMA.
    for (Op op_b : {Op::N, Op::T}) {
      a = with_b(DType::kBF16, 16, 14337, 4097, op_b);
      EXPECT_TRUE(auto_candidate(*e, a, 132));
      a.lda = 4104, a.ldb = (a.ldb + 7) / 8 * 8;  // rows padded to 16-byte units: as above
      EXPECT_FALSE(auto_candidate(*e, a, 132));
    }
    a = with_b(DType::kBF16, 16, 28672, 8192, Op::N);
    a.lda = 8193;  // A's rows not in 16-byte units
    EXPECT_TRUE(auto_candidate(*e, a, 132));
  }
  // tf32: Hopper's swapped tiles where TMA reads the operands; where it does not, with op T the FP32
  // stream (the tiles would fall back to WMMA), with op N step 16 (the tiles would copy B transposed
  // first); with op N at m <= 4 over 14336 columns or more step 16 as well.
  const KernelEntry* tf32 = find_entry("gemv_mma_tf32_16x16_any");
  const KernelEntry* stream = find_entry("gemv_16x32_any");
  ASSERT_NE(tf32, nullptr);
  ASSERT_NE(stream, nullptr);
  GemmArgs a = call(DType::kF32, DType::kF32, 16, 4096, 4096);
  EXPECT_FALSE(auto_candidate(*tf32, a, 132));
  EXPECT_FALSE(auto_candidate(*stream, a, 132));
  a.ldb = 4097;  // rows not in 16-byte units
  EXPECT_FALSE(auto_candidate(*tf32, a, 132));
  EXPECT_TRUE(auto_candidate(*stream, a, 132));
  a.opB = Op::N, a.ldb = a.n;
  EXPECT_FALSE(auto_candidate(*tf32, a, 132));
  a.ldb = a.n + 1;
  EXPECT_TRUE(auto_candidate(*tf32, a, 132));
  EXPECT_FALSE(auto_candidate(*stream, a, 132));
  a = call(DType::kF32, DType::kF32, 4, 28672, 8192);
  a.opB = Op::N, a.ldb = a.n;
  EXPECT_TRUE(auto_candidate(*tf32, a, 132));
}

// Hopper's swapped 64 x 16 tiles (Cᵀ = Bᵀ·Aᵀ) take 16-bit calls of m <= 16 with A op N, where TMA can
// read A and B, where they measured faster: k from 512; B op N up to 16384 columns; B op T from 6144 deep
// and 1024 wide; above 8 rows below 14336 columns. One plain matrix only.
TEST(Heuristic, SwappedTilesTakeDecodeWhereTheyPay) {
  using namespace tessel;
  const KernelEntry* e = find_entry("wgmma_swap_bf16_64x16");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->swaps && e->persistent && e->info.auto_dispatch);
  auto with = [](int64_t m, int64_t n, int64_t k, Op op_b) { return with_b(DType::kBF16, m, n, k, op_b); };
  auto candidate = [&](int64_t m, int64_t n, int64_t k, Op op_b) { return auto_candidate(*e, with(m, n, k, op_b), 132); };
  EXPECT_TRUE(candidate(1, 4096, 4096, Op::N));
  EXPECT_TRUE(candidate(16, 16, 65536, Op::N));
  EXPECT_TRUE(candidate(4, 16384, 7168, Op::N));
  EXPECT_FALSE(candidate(4, 28672, 8192, Op::N));   // wide: step 16's stream
  EXPECT_FALSE(candidate(16, 14336, 4096, Op::N));  // above 8 rows, wide: step 15
  EXPECT_FALSE(candidate(4, 4096, 256, Op::N));     // shallow
  EXPECT_FALSE(candidate(17, 4096, 4096, Op::N));   // more rows than the tile's columns
  EXPECT_TRUE(candidate(4, 2048, 7168, Op::T));
  EXPECT_TRUE(candidate(1, 28672, 8192, Op::T));
  EXPECT_FALSE(candidate(4, 4096, 4096, Op::T));    // shallow for op T: the stream
  EXPECT_FALSE(candidate(1, 576, 7168, Op::T));     // narrow
  EXPECT_FALSE(candidate(16, 18432, 7168, Op::T));  // above 8 rows, wide
  GemmArgs a = with(4, 4096, 4096, Op::N);
  a.opA = Op::T, a.lda = a.m;  // A stored k x m: by name only (copied K-major first)
  EXPECT_FALSE(auto_candidate(*e, a, 132));
  const impl::LaunchPlan copied = make_plan(*e, a, 132);
  EXPECT_TRUE(copied.copy_a && !copied.copy_b);
  a = with(4, 4096, 4096, Op::N);
  a.lda = 4100;  // rows not in 16-byte units: no TMA
  EXPECT_FALSE(auto_candidate(*e, a, 132));
  a = with(4, 4096, 4096, Op::N);
  a.batch = 2, a.stride_a = 4 * 4096, a.stride_b = 4096 * 4096, a.stride_c = 4 * 4096;
  EXPECT_FALSE(auto_candidate(*e, a, 132));
  a = with(4, 4096, 4096, Op::N);
  a.epilogue.activation = Activation::kRelu;
  EXPECT_FALSE(auto_candidate(*e, a, 132));
  const KernelEntry* swap_tf32 = find_entry("wgmma_swap_tf32_64x16");
  ASSERT_NE(swap_tf32, nullptr);
  auto tf32 = [&](int64_t m, int64_t n, int64_t k, Op op_b) {
    return auto_candidate(*swap_tf32, with_b(DType::kF32, m, n, k, op_b), 132);
  };
  EXPECT_TRUE(tf32(1, 576, 7168, Op::T));      // tf32: every width and depth with op T
  EXPECT_TRUE(tf32(16, 18432, 7168, Op::T));
  EXPECT_TRUE(tf32(16, 28672, 8192, Op::N));
  EXPECT_FALSE(tf32(4, 14336, 4096, Op::N));   // op N, few rows, wide: step 16's stream
  GemmArgs f32 = call(DType::kF32, DType::kF32, 4, 4096, 4096);
  f32.precision.compute = Compute::kF32;       // FP32 multiply-adds: not on tensor cores
  EXPECT_FALSE(auto_candidate(*swap_tf32, f32, 132));
  // Planned as the swapped call: k split as for (n, m) on the same kernel.
  a = with(4, 4096, 4096, Op::N);
  EXPECT_TRUE(swaps_operands(*e, a));
  const impl::LaunchPlan p = make_plan(*e, a, 132);
  EXPECT_GT(p.splits, 1);
  EXPECT_EQ(p.part_rows, 4096);
  EXPECT_FALSE(p.copy_a || p.copy_b);
}

// Step 18 takes shallow k where C is FP32, by precision up to the depth where it measured faster than
// the tiles (16 for FP32 multiply-adds, 16 or 8 for tf32, 2 for 16-bit inputs); never with 16-bit C, at m <= 16
// (step 16's), over few columns, or for batches and groups; its plan's grid fills two blocks an SM.
TEST(Heuristic, ShallowKWritesFp32COnCudaCores) {
  using namespace tessel;
  const KernelEntry* e = find_entry("shallow_64x128_any");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->info.ladder_step, 18);
  auto with = [](DType ab, DType c, Compute compute, int64_t m, int64_t n, int64_t k) {
    GemmArgs a = call(ab, c, m, n, k);
    a.precision.compute = compute;
    a.opA = Op::T, a.opB = Op::N, a.lda = m, a.ldb = n;  // a weight gradient: x^T dy
    return a;
  };
  auto takes = [&](DType ab, DType c, Compute compute, int64_t m, int64_t n, int64_t k) {
    return auto_candidate(*e, with(ab, c, compute, m, n, k), 132);
  };
  EXPECT_TRUE(takes(DType::kF32, DType::kF32, Compute::kF32, 4096, 4096, 16));
  EXPECT_FALSE(takes(DType::kF32, DType::kF32, Compute::kF32, 4096, 4096, 17));
  EXPECT_TRUE(takes(DType::kF32, DType::kF32, Compute::kTF32, 576, 7168, 16));
  EXPECT_FALSE(takes(DType::kF32, DType::kF32, Compute::kTF32, 576, 7168, 17));
  EXPECT_TRUE(takes(DType::kF32, DType::kF32, Compute::kTF32, 4096, 4096, 8));  // wide: 8 deep at most
  EXPECT_FALSE(takes(DType::kF32, DType::kF32, Compute::kTF32, 4096, 4096, 16));
  EXPECT_TRUE(takes(DType::kBF16, DType::kF32, Compute::kF32, 32768, 512, 2));
  EXPECT_FALSE(takes(DType::kBF16, DType::kF32, Compute::kF32, 32768, 512, 4));
  EXPECT_TRUE(takes(DType::kF16, DType::kF32, Compute::kF32, 1536, 7168, 1));
  EXPECT_FALSE(takes(DType::kBF16, DType::kBF16, Compute::kF32, 8192, 8192, 1));  // 16-bit C: the wgmma tiles
  EXPECT_FALSE(takes(DType::kF32, DType::kF32, Compute::kF32, 16, 4096, 4));      // step 16's rows
  EXPECT_FALSE(takes(DType::kF32, DType::kF32, Compute::kF32, 4096, 32, 4));      // few columns
  GemmArgs batch = with(DType::kF32, DType::kF32, Compute::kF32, 4096, 4096, 4);
  batch.batch = 2, batch.stride_a = 4 * 4096, batch.stride_b = 4 * 4096, batch.stride_c = 4096 * 4096;
  EXPECT_FALSE(auto_candidate(*e, batch, 132));
  EXPECT_FALSE(e->info.batched || e->info.grouped || e->info.pointer_array);
  const impl::LaunchPlan p = make_plan(*e, with(DType::kF32, DType::kF32, Compute::kF32, 8192, 8192, 4), 132);
  EXPECT_EQ(p.clusters, 132 * impl::kShallowBlocksPerSm);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.workspace_bytes(), 0u);
}

// tf32 on the wgmma tiles: A stored MN-major is read into registers, so (N, T) and (T, T) copy nothing;
// (N, N) runs swapped (Cᵀ = Bᵀ·Aᵀ, planned as the (n, m) call) where k >= 3m / 4, else copies B, as
// (T, N) does (not at 128 rows or fewer: step 10 reads B as it is); grouped GEMMs copy both (the swap
// would make their rows columns).
TEST(Heuristic, Tf32TilesSwapOrCopyOnlyBNotTransposed) {
  using namespace tessel;
  const KernelEntry* e = find_entry("wgmma_cluster_tf32_64x128");
  ASSERT_NE(e, nullptr);
  auto with_ops = [&](int64_t m, int64_t n, int64_t k, Op opA, Op opB) {
    GemmArgs a = call(DType::kF32, DType::kF32, m, n, k);
    a.opA = opA, a.opB = opB, a.lda = opA == Op::N ? k : m, a.ldb = opB == Op::T ? k : n;
    return a;
  };
  struct Want {
    Op opA, opB;
    int64_t m, k;
    bool copy_b, swap;
  };
  for (const Want& w : {Want{Op::N, Op::T, 128, 8192, false, false}, Want{Op::T, Op::T, 128, 8192, false, false},
                        Want{Op::N, Op::N, 128, 8192, false, true}, Want{Op::N, Op::N, 4096, 3072, false, true},
                        Want{Op::N, Op::N, 4096, 3071, true, false}, Want{Op::T, Op::N, 128, 8192, true, false},
                        Want{Op::T, Op::N, 8192, 16, true, false}}) {
    const GemmArgs a = with_ops(w.m, 4096, w.k, w.opA, w.opB);
    const impl::LaunchPlan p = make_plan(*e, a, 132);
    EXPECT_FALSE(p.copy_a) << w.m << " " << w.k;
    EXPECT_EQ(p.copy_b, w.copy_b) << w.m << " " << w.k;
    EXPECT_TRUE(p.round_tf32);
    EXPECT_EQ(swaps_operands(*e, a), w.swap) << w.m << " " << w.k;
    EXPECT_EQ(auto_candidate(*e, a, 132), !(w.copy_b && w.m <= 128)) << w.m << " " << w.k;  // B copied for few rows
    if (w.swap) {  // the schedule of the call with m and n swapped
      const impl::LaunchPlan q = make_plan(*e, with_ops(4096, w.m, w.k, Op::N, Op::T), 132);
      EXPECT_EQ(p.splits, q.splits);
      EXPECT_EQ(p.k_per_split, q.k_per_split);
      EXPECT_EQ(p.part_rows, q.part_rows);
      EXPECT_EQ(p.clusters, q.clusters);
      EXPECT_EQ(p.parts_bytes, q.parts_bytes);
    }
  }
  EXPECT_FALSE(swaps_operands(*find_entry("wgmma_cluster_bf16_128x256"), with_ops(128, 4096, 8192, Op::N, Op::N)));
  GemmArgs grouped = with_ops(128, 4096, 8192, Op::N, Op::N);
  const int64_t offsets[] = {0, 64, 128};
  grouped.group_offsets = offsets, grouped.batch = 2;
  EXPECT_FALSE(swaps_operands(*e, grouped));
  const impl::LaunchPlan g = make_plan(*e, grouped, 132);
  EXPECT_TRUE(g.copy_b && !g.copy_a);
}

// The FP32 stream's parts of k run in waves of the blocks the SMs hold at once: 576 blocks of columns
// (18432 of them) take two parts where an SM holds two blocks (m = 16), seven where it holds four, and
// a whole wave's 264 blocks take k whole.
TEST(Heuristic, SmallMPartsFillWholeWaves) {
  using namespace tessel;
  KernelEntry e = *find_entry("gemv_16x32_any");
  e.small_m_resident = [](Op, int64_t, bool, bool, int* blocks) { return *blocks = 2, cudaSuccess; };
  const GemmArgs wide = call(DType::kF32, DType::kF32, 16, 18432, 7168);
  EXPECT_EQ(make_plan(e, wide, 132).splits, 2);
  EXPECT_EQ(make_plan(e, call(DType::kF32, DType::kF32, 16, 264 * impl::kSmallMColumnsT, 7168), 132).splits, 1);
  e.small_m_resident = [](Op, int64_t, bool, bool, int* blocks) { return *blocks = 4, cudaSuccess; };
  EXPECT_EQ(make_plan(e, wide, 132).splits, 7);
  e.small_m_resident = [](Op, int64_t, bool, bool, int*) { return cudaErrorNoDevice; };  // unknown: kSmallMBlocksPerSm
  EXPECT_EQ(make_plan(e, wide, 132).splits, 7);
  // The parts are summed in the kernel's tail only where that kernel keeps as many blocks an SM.
  const GemmArgs gemv = call(DType::kF32, DType::kF32, 1, 4096, 4096);
  e.small_m_resident = [](Op, int64_t, bool, bool, int* blocks) { return *blocks = 3, cudaSuccess; };
  EXPECT_GT(make_plan(e, gemv, 132).splits, 1);
  EXPECT_GT(make_plan(e, gemv, 132).arrival_flags, 0);
  e.small_m_resident = [](Op, int64_t, bool, bool arrive, int* blocks) {
    return *blocks = arrive ? 2 : 3, cudaSuccess;
  };
  EXPECT_GT(make_plan(e, gemv, 132).splits, 1);
  EXPECT_EQ(make_plan(e, gemv, 132).arrival_flags, 0);
  // Where it holds more, the parts are planned for its blocks: 576 blocks of columns take 7 parts of 2 chunks
  // for 4 blocks an SM (2 for 3).
  e.small_m_resident = [](Op, int64_t, bool, bool arrive, int* blocks) {
    return *blocks = arrive ? 4 : 3, cudaSuccess;
  };
  const impl::LaunchPlan decode = make_plan(e, call(DType::kF32, DType::kF32, 4, 18432, 7168), 132);
  EXPECT_EQ(decode.splits, 7);
  EXPECT_EQ(decode.arrival_flags, 18432 / impl::kSmallMColumnsT);
  EXPECT_EQ(make_plan(e, call(DType::kF32, DType::kF32, 5, 18432, 7168), 132).arrival_flags, 0);  // m > 4
}

// Step 08's split-k goes past kMaxSplits parts only where those leave SMs without blocks, each part still
// kMinDeepSplitDepth deep or more, and never past a wave of blocks.
TEST(Heuristic, Step08DeepSplitsFillAWave) {
  using namespace tessel;
  const KernelEntry* e = find_entry("pipelined_64x64_splitk");
  ASSERT_NE(e, nullptr);
  const impl::LaunchPlan deep = make_plan(*e, call(DType::kF32, DType::kF32, 64, 64, 65536), 132);
  EXPECT_GT(deep.splits, impl::kMaxSplits);
  EXPECT_LE(deep.splits, 264);  // a wave of 2-warp blocks
  EXPECT_GE(deep.k_per_split, 256);
  EXPECT_LT((deep.splits - 1) * deep.k_per_split, 65536);  // no empty part
  EXPECT_LE(make_plan(*e, call(DType::kF32, DType::kF32, 64, 64, 8192), 132).splits, impl::kMaxSplits);  // shallow
  EXPECT_LE(make_plan(*e, call(DType::kF32, DType::kF32, 64, 1536, 24576), 132).splits, impl::kMaxSplits);  // filled
}

// FP32 calls take step 16 on CUDA cores where its FP32 multiply-adds measured faster; tf32 calls with op T
// only where rows are not in 16-byte units.
TEST(Heuristic, SmallMOnCudaCoresForFp32Only) {
  using namespace tessel;
  const KernelEntry* e = find_entry("gemv_16x32_any");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->info.auto_dispatch);
  EXPECT_FALSE(find_entry("gemv_bf16_16x32")->info.auto_dispatch);  // tensor cores for 16-bit inputs
  auto candidate = [&](Compute compute, int64_t m, int64_t n, int64_t k, Op op_b) {
    GemmArgs a = with_b(DType::kF32, m, n, k, op_b);
    a.precision.compute = compute;
    return auto_candidate(*e, a, 132);
  };
  EXPECT_TRUE(candidate(Compute::kF32, 1, 576, 7168, Op::T));
  EXPECT_TRUE(candidate(Compute::kF32, 8, 4096, 4096, Op::T));
  EXPECT_TRUE(candidate(Compute::kF32, 16, 4096, 4096, Op::T));
  EXPECT_TRUE(candidate(Compute::kF32, 16, 576, 7168, Op::T));
  EXPECT_FALSE(candidate(Compute::kF32, 16, 3072, 1024, Op::T));  // a small weight at m = 16: the tiles
  EXPECT_TRUE(candidate(Compute::kF32, 16, 8192, 8192, Op::T));
  EXPECT_TRUE(candidate(Compute::kF32, 1, 7168, 576, Op::N));
  EXPECT_TRUE(candidate(Compute::kF32, 16, 28672, 8192, Op::N));
  EXPECT_TRUE(candidate(Compute::kF32, 16, 16, 65536, Op::N));
  EXPECT_TRUE(candidate(Compute::kF32, 8, 8, 32768, Op::N));
  EXPECT_FALSE(candidate(Compute::kF32, 16, 7168, 576, Op::N));  // shallow k at m = 16: the tiles
  EXPECT_FALSE(candidate(Compute::kF32, 16, 16, 8192, Op::N));   // a small weight at m = 16
  EXPECT_FALSE(candidate(Compute::kTF32, 1, 576, 7168, Op::T));  // tf32 runs on tensor cores
  GemmArgs odd = with_b(DType::kF32, 16, 4096, 4097, Op::T);      // but not on rows off 16-byte units, op T
  odd.precision.compute = Compute::kTF32;
  EXPECT_TRUE(auto_candidate(*e, odd, 132));
}

}  // namespace

// A pointer-array batch (its pointers on the device) runs whole units, copies
// nothing, and on the Hopper kernels counts three tensor maps a matrix in the
// workspace; only the kernels that walk such batches take it, in one launch.
TEST(Heuristic, PointerArraysRunWholeUnitsAndCountTheirMaps) {
  using namespace tessel;
  const auto arrays = [](GemmArgs a, int64_t batch) {
    const auto* fake = reinterpret_cast<void* const*>(uintptr_t(0x1000));
    a.batch = batch, a.a_array = fake, a.b_array = fake + batch, a.c_array = fake + 2 * batch;
    return a;
  };
  const KernelEntry* cluster = find_entry("wgmma_cluster_bf16_128x256");
  ASSERT_NE(cluster, nullptr);
  EXPECT_TRUE(cluster->info.pointer_array);
  const GemmArgs deep = arrays(call(DType::kBF16, DType::kBF16, 64, 64, 65536), 3);  // one matrix alone would split
  const impl::LaunchPlan p = make_plan(*cluster, deep, 132);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.stream_k.sharing, 0);
  EXPECT_EQ(p.pointer_maps, 9);
  EXPECT_GE(p.workspace_bytes(), 9 * impl::kTensorMapBytes);
  EXPECT_TRUE(runs_batch(*cluster, deep));
  EXPECT_TRUE(runs_batch(*cluster, arrays(call(DType::kBF16, DType::kBF16, 64, 64, 64), 1)));  // even one matrix

  const KernelEntry* any = find_entry("pipelined_64x64_any");
  ASSERT_NE(any, nullptr);
  EXPECT_TRUE(any->info.pointer_array);
  GemmArgs f32 = arrays(call(DType::kF32, DType::kF32, 300, 200, 4096), 5);
  f32.precision = Precision{};
  const impl::LaunchPlan q = make_plan(*any, f32, 132);
  EXPECT_EQ(q.splits, 1);
  EXPECT_FALSE(q.copy_a || q.copy_b || q.realign_a || q.realign_b);
  EXPECT_EQ(q.pointer_maps, 0);
  EXPECT_FALSE(realign_for(f32).a || realign_for(f32).b);
  // Kernels that assume 16-byte rows of every matrix, or do not walk batches, do not take them.
  for (const char* name : {"pipelined_128x128", "pipelined_128x256_streamk_tma", "wgmma_cluster_bf16_128x256_streamk"}) {
    const KernelEntry* e = find_entry(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_FALSE(e->info.pointer_array) << name;
    EXPECT_FALSE(runs_batch(*e, deep)) << name;
  }
}
