#include "dispatch/registry.hpp"

#include "kernels/simt/configs.hpp"
#include "kernels/hopper/configs.hpp"
#include "kernels/tensor/configs.hpp"

namespace tessel {

namespace {

constexpr int kSm80 = 80;  // the oldest architecture tessel builds device code for
constexpr const char* kAnyShape = "any m, n, k; any op; any legal leading dimension; no alignment needs";
constexpr const char* kAligned4 = "any m, n, k; any op; A, B, C 16-byte aligned and lda, ldb, ldc multiples of 4";

constexpr const char* kAbAligned16 =
    "any m, n, k; any op; A, B 16-byte aligned and lda, ldb multiples of 16 bytes; C any alignment";

constexpr const char* kTma =
    "m, n, k < 2^31; any op; A, B 16-byte aligned and lda, ldb multiples of 16 bytes (TMA); C any alignment";

// An FP32 kernel with a tile_m x tile_n block tile; alignment 4 means 16-byte accesses.
KernelInfo simt_info(const char* name, int step, const char* summary, int alignment, int tile_m, int tile_n) {
  return {name, step, summary, {Precision{}}, kSm80, alignment, alignment,
          alignment == 1 ? kAnyShape : kAligned4, tile_m, tile_n};
}
template <impl::SimtLaunchFn Launch>
KernelEntry simt(const char* name, int step, const char* summary, int alignment, int tile_m, int tile_n) {
  return {simt_info(name, step, summary, alignment, tile_m, tile_n), impl::launch_simt<Launch>};
}

// A step-08 configuration as the cost model sees it.
template <class Cfg, bool Aligned>
constexpr impl::SimtShape simt_shape() {
  return {Cfg::kThreads, Cfg::kMinBlocks, Cfg::kBK, Aligned};
}

// One configuration of step 08. speed: its throughput relative to the
// step's fastest configuration (KernelEntry::speed; docs/ladder.md,
// "Auto-dispatch", has the measurements behind each).
// Launch: where it is not launch_pipelined's for Cfg.
template <class Cfg, bool Aligned, impl::Schedule S, impl::LaunchFn Launch = impl::launch_pipelined<Cfg, Aligned, S>>
KernelEntry pipelined(const char* name, const char* summary, double speed = 1.0) {
  KernelEntry e{simt_info(name, 8, summary, Aligned ? 4 : 1, Cfg::kBM, Cfg::kBN), Launch};
  e.info.split_k = S == impl::Schedule::kSplitK;
  e.stream_k = S == impl::Schedule::kStreamK;
  e.blocks_per_sm = Cfg::kMinBlocks;
  e.speed = speed;
  e.k_slice = Cfg::kBK;
  e.simt = simt_shape<Cfg, Aligned>();
  e.copies = Copies::kWherePays;
  e.info.batched = true;  // a batch on the grid's z dimension
  e.info.pointer_array = !Aligned;  // each matrix's alignment is known on the device only
  return e;
}

// Aligned split-k on 64x64 tiles: 2-warp blocks, or 4-warp ones where dispatch says so.
KernelEntry pipelined_splitk_64x64(const char* name, const char* summary, double speed) {
  using namespace impl;
  KernelEntry e = pipelined<Pipelined64x64, true, Schedule::kSplitK>(name, summary, speed);
  e.four_warps = launch_pipelined<Pipelined64x64Warps4, true, Schedule::kSplitK>;
  e.four_warps_simt = simt_shape<Pipelined64x64Warps4, true>();
  return e;
}

// Step 08's 128x256 stream-K fed by TMA: sm_90a code, compute capability 9.0
// only; its own stream-K costs and 32-deep slices; the cp.async stream-K
// kernel takes the calls TMA cannot. Last of step 08, so that a tie keeps
// the cp.async kernels.
KernelEntry pipelined_tma(const char* name, const char* summary, double speed) {
  using namespace impl;
  KernelEntry e =
      pipelined<PipelinedTma128x256, true, Schedule::kStreamK, launch_pipelined_tma_streamk>(name, summary, speed);
  e.info.min_compute_capability = e.info.max_compute_capability = 90;
  e.stream_k_cost = kSimtTmaStreamK;
  e.copies = Copies::kTransposing;
  e.fallback = "pipelined_128x256_streamk";
  e.info.batched = e.info.pointer_array = false;
  return e;
}

// The precisions a tensor-core kernel for inputs `ab` (B `b` where it differs: Precision::b) takes: C in the
// input type or FP32 (tf32: FP32; FP8: bf16, f16 or FP32).
std::vector<Precision> tensor_precisions(DType ab, std::optional<DType> b = std::nullopt) {
  if (ab == DType::kF32) return {{DType::kF32, DType::kF32, Compute::kTF32}};
  if (is_fp8(ab)) {
    return {{ab, DType::kBF16, Compute::kF32, b}, {ab, DType::kF16, Compute::kF32, b},
            {ab, DType::kF32, Compute::kF32, b}};
  }
  return {{ab, ab, Compute::kF32}, {ab, DType::kF32, Compute::kF32}};
}

// Steps 09 and 10 split k where the plan says (few tiles, or k deeper than
// one accumulation chain should be), in parts of whole 64-deep slices.
KernelEntry tensor_split(KernelEntry e) {
  e.info.split_k = true;
  e.k_slice = 64;
  return e;
}

// Step 09 for one input type: A and B in 16-byte units when Aligned, else no alignment needs.
template <bool Aligned>
KernelEntry wmma(const char* name, DType ab, const char* summary) {
  using Cfg = impl::WmmaConfig;
  const int align = Aligned ? int(16 / size_of(ab)) : 1;
  KernelInfo info{name, 9, summary, tensor_precisions(ab), kSm80, align, 1, Aligned ? kAbAligned16 : kAnyShape,
                  Cfg::kBM, Cfg::kBN};
  return tensor_split(KernelEntry{info, impl::launch_wmma<Aligned>, 1});
}

// One configuration of step 10 for one input type: A and B in 16-byte units.
// speed as for step 08.
template <class Cfg, DType AB>
KernelEntry mma(const char* name, const char* summary, double speed = 1.0) {
  const int align = int(16 / size_of(AB));
  KernelInfo info{name, 10, summary, tensor_precisions(AB), kSm80, align, 1, kAbAligned16, Cfg::kBM, Cfg::kBN};
  KernelEntry e{info, impl::launch_mma<Cfg, AB>, Cfg::kMinBlocks};
  e.speed = speed;
  return tensor_split(e);
}

// One Hopper step for one input type (sm_90a code: compute capability 9.0 only).
// persistent: the grid walks the tiles (steps 13-15 always). b: B's type where it differs (FP8).
// Resident: a persistent kernel's clusters that run at once.
template <impl::LaunchFn Launch, class Cfg, impl::ResidentFn Resident = nullptr>
KernelEntry hopper(const char* name, int step, DType ab, const char* summary, bool persistent = false,
                   std::optional<DType> b = std::nullopt) {
  constexpr int kSm90 = 90;
  KernelInfo info{name, step, summary, tensor_precisions(ab, b), kSm90, int(16 / size_of(ab)), 1, kTma,
                  Cfg::kBM, Cfg::kBN};
  info.max_compute_capability = kSm90;
  KernelEntry e{info, Launch, 1, persistent || step >= 13, Cfg::kCluster, Cfg::kSpeed, step == 15, impl::kSliceK};
  if (ab == DType::kF32 || is_fp8(ab)) e.copies = Copies::kKMajor;
  if (is_fp8(ab)) e.k_slice = 2 * impl::kSliceK;  // split-k parts of whole 128-deep FP8 slices
  e.info.fp8_block_scales = is_fp8(ab) && impl::kFp8BlockScales<Cfg>;
  e.info.fp8_column_scales = is_fp8(ab) && impl::kFp8ColumnScales<Cfg>;
  e.info.split_k = step == 14 || step == 17;  // where the plan says (plan.cpp, plan_persistent_split)
  // The cluster kernel walks matrices and groups, and a pointer-array batch's maps.
  e.info.batched = e.info.grouped = e.info.pointer_array = step == 14 || step == 17;
  e.resident = Resident;
  return e;
}

// The cluster kernel (steps 14, 17) and the stream-K kernel (step 15) on
// configuration Cfg for inputs AB; with 16-bit inputs both apply the epilogue
// to their accumulators (device::kFusesEpilogue).
// BB: B's type where it is not AB's (FP8).
template <class Cfg, DType AB, DType BB = AB>
KernelEntry cluster(const char* name, int step, const char* summary) {
  const std::optional<DType> b = BB != AB ? std::optional<DType>(BB) : std::nullopt;
  KernelEntry e = hopper<impl::launch_cluster<Cfg, AB, BB>, Cfg, impl::resident_cluster<Cfg, AB, BB>>(name, step, AB,
                                                                                                      summary, false, b);
  e.fused_epilogue = AB == DType::kF16 || AB == DType::kBF16;
  return e;
}
// Step 14 on single CTAs (Cfg::kCluster 1) for outputs of few tiles: k split into parts, a part per SM where
// the tiles are fewer than the SMs (plan_persistent_split), auto-dispatch's where few_tiles_pay says.
template <class Cfg, DType AB>
KernelEntry split_solo(const char* name, const char* summary) {
  static_assert(Cfg::kCluster == 1, "single CTAs");
  KernelEntry e = cluster<Cfg, AB>(name, 14, summary);
  e.few_tiles = true;
  return e;
}
// A kernel run by name only: auto-dispatch never picks it (the ping-pong tiles, slower than 128 x 256 per call).
KernelEntry by_name(KernelEntry e) {
  e.info.auto_dispatch = false;
  return e;
}
template <class Cfg, DType AB>
KernelEntry stream_k(const char* name, const char* summary) {
  KernelEntry e = hopper<impl::launch_stream_k<Cfg, AB>, Cfg, impl::resident_stream_k<Cfg, AB>>(name, 15, AB, summary);
  e.fused_epilogue = true;
  e.stream_k_cost = Cfg::kCluster == 1 ? impl::kSoloWgmmaStreamK : impl::kWgmmaStreamK;
  // Single CTAs serve small m (configs.hpp: the rows each takes in auto-dispatch).
  if (Cfg::kCluster == 1) e.auto_max_m = Cfg::kAutoMaxM;
  return e;
}

// Step 16 for one input type: m <= kSmallMMaxM. In auto-dispatch for FP32
// (where auto_candidate says); the 16-bit inputs run on tensor cores instead.
template <DType AB>
KernelEntry small_m(const char* name, const char* summary) {
  const bool fp32 = AB == DType::kF32;  // FP32 B of any alignment streams in 4-byte copies
  std::vector<Precision> precisions = tensor_precisions(AB);
  if (fp32) precisions.insert(precisions.begin(), Precision{});  // FP32 multiply-adds serve both
  KernelInfo info{name, 16, summary, precisions, kSm80, fp32 ? 1 : int(16 / size_of(AB)), 1,
                  fp32 ? "m <= 16; any op; any alignment (16-byte copies where B's rows are in 16-byte units)"
                       : "m <= 16; any op; A, B 16-byte aligned and lda, ldb multiples of 16 bytes; C any alignment",
                  impl::kSmallMMaxM, impl::kSmallMColumnsT};
  info.max_m = impl::kSmallMMaxM;
  info.auto_dispatch = AB == DType::kF32;
  info.split_k = true;
  KernelEntry e{info, impl::launch_small_m<AB>};
  e.k_slice = impl::kSmallMChunkK;
  e.small_m_resident = impl::resident_small_m<AB>;
  return e;
}

// Step 16 on tensor cores for one input type (16-bit, or FP32 read as tf32): m <= kSmallMMaxM, any op, any
// alignment.
template <DType AB>
KernelEntry small_m_mma(const char* name, const char* summary) {
  KernelInfo info{name, 16, summary, tensor_precisions(AB), kSm80, 1, 1,
                  "m <= 16; any op; any alignment (16-byte loads where A's and B's rows are in 16-byte units)",
                  impl::kSmallMMaxM, 16};
  info.max_m = impl::kSmallMMaxM;
  info.split_k = true;
  KernelEntry e{info, impl::launch_small_m_mma<AB>};
  e.k_slice = impl::kSmallMmaSliceK;
  e.small_m_mma = true;
  return e;
}

// Step 16 on Hopper: the cluster kernel on the swapped call for m <= the narrow tile's columns (tile_m,
// tile_n: the kernel's, 64 of C's columns by Cfg::kBN of its rows), k split where the plan says; A with op
// T is copied K-major first (m x k: few values).
template <class Cfg, DType AB>
KernelEntry swapped(const char* name, const char* summary) {
  KernelEntry e = hopper<impl::launch_swapped<Cfg, AB>, Cfg, impl::resident_cluster<Cfg, AB>>(name, 16, AB, summary,
                                                                                             true);
  e.info.max_m = Cfg::kBN;
  e.info.split_k = true;
  e.copies = Copies::kAKMajor;
  e.swaps = true;
  return e;
}

// Step 18 for every input type but FP8 (FP32 multiply-adds, tf32 calls too): any op, any alignment, one
// matrix; any k by name (staged in chunks), auto-dispatch's where k is shallow (plan.cpp, shallow_k_pays).
KernelEntry shallow_k(const char* name, const char* summary) {
  std::vector<Precision> precisions{Precision{}};
  for (DType ab : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const Precision& p : tensor_precisions(ab)) precisions.push_back(p);
  }
  KernelInfo info{name, 18, summary, precisions, kSm80, 1, 1,
                  "any m, n, k (fast where k is a few values); any op; no alignment needs; one matrix",
                  impl::shallow_rows(4), impl::shallow_columns(4)};  // FP32 C (16-bit C: 32 x 256)
  KernelEntry e{info, impl::launch_shallow_k};
  e.shallow_k = true;
  return e;
}

}  // namespace

const std::vector<KernelEntry>& registry() {
  using namespace impl;
  constexpr int kNaive = NaiveConfig::kBlock, kSmem = SmemConfig::kTile;
  static const std::vector<KernelEntry> table = {
      simt<launch_naive>("naive", 1, "one thread per C element, warps run down columns (uncoalesced)", 1, kNaive, kNaive),
      simt<launch_coalesced>("coalesced", 2, "one thread per C element, warps run along rows (coalesced)", 1, kNaive,
                             kNaive),
      simt<launch_smem>("smem", 3, "32x32 tiles of A and B staged in shared memory", 1, kSmem, kSmem),
      simt<launch_blocktile_1d>("blocktile_1d", 4, "64x64 tiles, 8 results per thread in a column (1D register blocking)",
                                1, Blocktile1dConfig::kBM, Blocktile1dConfig::kBN),
      simt<launch_blocktile_2d>("blocktile_2d", 5, "128x128 tiles, 8x8 results per thread (2D register blocking)", 1,
                                Blocktile2dConfig::kBM, Blocktile2dConfig::kBN),
      simt<launch_vectorized>("vectorized", 6, "step 05 with 128-bit global and shared loads and stores", 4,
                              Blocktile2dConfig::kBM, Blocktile2dConfig::kBN),
      simt<launch_warptile>("warptile", 7, "block, warp and lane tiles; conflict-free 128-bit fragment loads", 4,
                            WarptileDefault::kBM, WarptileDefault::kBN),
      pipelined<Pipelined128x128, true, Schedule::kTiles>(
          "pipelined_128x128", "step 07 double-buffered: cp.async / register prefetch overlap copies with math", 0.92),
      pipelined<Pipelined128x256, true, Schedule::kTiles>("pipelined_128x256",
                                               "step 08, 128x256 tiles, 16-deep k-slices, 16x8 results per thread"),
      pipelined<Pipelined64x64, true, Schedule::kTiles>("pipelined_64x64", "step 08, 64x64 tiles for small outputs", 0.88),
      pipelined<PipelinedAny128x128, false, Schedule::kTiles>(
          "pipelined_128x128_any",
          "step 08 for any alignment: unaligned operands read element-wise, 128x128 tiles, 16x8 per thread", 0.84),
      pipelined<Pipelined64x64, false, Schedule::kTiles>("pipelined_64x64_any", "step 08 for any alignment, 64x64 tiles", 0.78),
      pipelined_splitk_64x64(
          "pipelined_64x64_splitk", "step 08, 64x64 tiles, k split across blocks for small outputs (2 or 4 warps)", 0.88),
      pipelined<Pipelined64x64Warps4, false, Schedule::kSplitK>("pipelined_64x64_any_splitk",
                                             "step 08 for any alignment, k split across blocks, 64x64 tiles on 4 warps", 0.78),
      pipelined<Pipelined128x256, true, Schedule::kSplitK>("pipelined_128x256_splitk",
                                              "step 08, 128x256 tiles, k split across blocks for small outputs"),
      pipelined<Pipelined64x256, true, Schedule::kSplitK>(
          "pipelined_64x256_splitk", "step 08, 64x256 tiles on 4 warps of 16x8, k split across blocks: 64-row outputs",
          0.95),
      pipelined<Pipelined128x256, true, Schedule::kStreamK>(
          "pipelined_128x256_streamk",
          "step 08, 128x256 tiles: the full waves whole, the remaining tiles' k-slices shared evenly (stream-K)"),
      pipelined<PipelinedAny128x128, false, Schedule::kSplitK>(
          "pipelined_128x128_any_splitk", "step 08 for any alignment, 128x128 tiles, k split across blocks", 0.84),
      pipelined_tma("pipelined_128x256_streamk_tma",
                    "step 08 on Hopper: 128x256 tiles, 32-deep k-slices by TMA, the last waves' k-slices shared "
                    "(stream-K)",
                    1.02),
      wmma<true>("wmma_f16_128x128", DType::kF16, "tensor cores via WMMA 16x16x16 fragments, 128x128 tiles, 3-stage cp.async"),
      wmma<true>("wmma_bf16_128x128", DType::kBF16, "step 09 for bf16 inputs"),
      wmma<true>("wmma_tf32_128x128", DType::kF32, "step 09 for f32 inputs rounded to tf32 (16x16x8 fragments)"),
      wmma<false>("wmma_f16_128x128_any", DType::kF16, "step 09 for unaligned operands: element-wise copies"),
      wmma<false>("wmma_bf16_128x128_any", DType::kBF16, "step 09 bf16 for unaligned operands"),
      wmma<false>("wmma_tf32_128x128_any", DType::kF32, "step 09 tf32 for unaligned operands"),
      mma<Mma128x128, DType::kF16>("mma_f16_128x128", "mma.sync m16n8k16 + ldmatrix, swizzled smem, 3-stage cp.async, 128x128x64"),
      mma<Mma64x64, DType::kF16>("mma_f16_64x64", "step 10 f16, 64x64 tiles for small outputs", 0.71),
      mma<Mma128x128, DType::kBF16>("mma_bf16_128x128", "step 10 for bf16 inputs, 128x128x64"),
      mma<Mma64x64, DType::kBF16>("mma_bf16_64x64", "step 10 bf16, 64x64 tiles", 0.71),
      mma<MmaTf32_128x128, DType::kF32>("mma_tf32_128x128", "step 10 for f32 inputs as tf32 (m16n8k8), 128x128x16"),
      mma<Mma64x64, DType::kF32>("mma_tf32_64x64", "step 10 tf32, 64x64 tiles", 0.65),
      hopper<launch_mma_tma<DType::kF16>, MmaTmaConfig, resident_mma_tma<DType::kF16>>(
          "mma_f16_128x256_tma", 10, DType::kF16,
          "Hopper: step 10's mma.sync warps fed by a TMA producer, mbarrier ring, persistent, 128x256", true),
      hopper<launch_mma_tma<DType::kBF16>, MmaTmaConfig, resident_mma_tma<DType::kBF16>>("mma_bf16_128x256_tma", 10, DType::kBF16,
                                                         "mma_f16_128x256_tma for bf16 inputs", true),
      hopper<launch_tma_wgmma<DType::kF16>, TmaWgmmaConfig>(
          "wgmma_f16_64x256", 11, DType::kF16, "Hopper: TMA tile copies + wgmma m64n256k16 from swizzled smem, 64x256, 4 stages"),
      hopper<launch_tma_wgmma<DType::kBF16>, TmaWgmmaConfig>("wgmma_bf16_64x256", 11, DType::kBF16, "step 11 for bf16 inputs"),
      hopper<launch_warp_specialized<DType::kF16>, WarpSpecializedConfig>(
          "wgmma_ws_f16_128x256", 12, DType::kF16,
          "step 11 + producer/consumer warpgroups, full/empty mbarriers, setmaxnreg, 128x256"),
      hopper<launch_warp_specialized<DType::kBF16>, WarpSpecializedConfig>("wgmma_ws_bf16_128x256", 12, DType::kBF16,
                                                                           "step 12 for bf16 inputs"),
      hopper<launch_persistent<DType::kF16>, WarpSpecializedConfig, resident_persistent<DType::kF16>>(
          "wgmma_persistent_f16_128x256", 13, DType::kF16, "step 12 on a persistent grid: one block per SM walks the tiles"),
      hopper<launch_persistent<DType::kBF16>, WarpSpecializedConfig, resident_persistent<DType::kBF16>>("wgmma_persistent_bf16_128x256", 13, DType::kBF16,
                                                                     "step 13 for bf16 inputs"),
      cluster<Cluster128x256, DType::kF16>("wgmma_cluster_f16_128x256", 14,
                                           "step 13 in clusters of 2 CTAs that share B slices by TMA multicast"),
      cluster<Cluster128x256, DType::kBF16>("wgmma_cluster_bf16_128x256", 14, "step 14 for bf16 inputs"),
      cluster<Cluster128x192, DType::kF16>("wgmma_cluster_f16_128x192", 14,
                                           "step 14, 128x192 tiles (wgmma n192; fuller last wave)"),
      cluster<Cluster128x192, DType::kBF16>("wgmma_cluster_bf16_128x192", 14, "step 14 bf16, 128x192 tiles"),
      cluster<Cluster128x128, DType::kF16>("wgmma_cluster_f16_128x128", 14,
                                           "step 14, 128x128 tiles, 6 stages (fuller last wave)"),
      cluster<Cluster128x128, DType::kBF16>("wgmma_cluster_bf16_128x128", 14, "step 14 bf16, 128x128 tiles"),
      cluster<Cluster64x128, DType::kF16>("wgmma_cluster_f16_64x128", 14,
                                          "step 14, 64x128 tiles, one consumer warpgroup, 8 stages"),
      cluster<Cluster64x128, DType::kBF16>("wgmma_cluster_bf16_64x128", 14, "step 14 bf16, 64x128 tiles"),
      by_name(cluster<Pingpong64x256, DType::kF16>(
          "wgmma_pingpong_f16_64x256", 14,
          "step 14, 64x256 tiles, two consumer warpgroups taking turns (ping-pong); by name only")),
      by_name(cluster<Pingpong64x256, DType::kBF16>("wgmma_pingpong_bf16_64x256", 14,
                                                    "step 14 bf16 ping-pong, 64x256 tiles; by name only")),
      cluster<Cluster128x256, DType::kF32>(
          "wgmma_cluster_tf32_128x256", 14,
          "step 14 for f32 inputs as tf32 (wgmma k8; operands not k-contiguous are copied transposed first)"),
      cluster<Cluster128x192, DType::kF32>("wgmma_cluster_tf32_128x192", 14, "step 14 tf32, 128x192 tiles"),
      cluster<Cluster128x128, DType::kF32>("wgmma_cluster_tf32_128x128", 14, "step 14 tf32, 128x128 tiles"),
      cluster<Cluster64x128, DType::kF32>("wgmma_cluster_tf32_64x128", 14, "step 14 tf32, 64x128 tiles"),
      split_solo<Solo64x64, DType::kF16>("wgmma_f16_64x64_splitk", "step 14 on single CTAs, 64x64 tiles, k split "
                                                                   "into parts (small outputs, deep k)"),
      split_solo<Solo64x64, DType::kBF16>("wgmma_bf16_64x64_splitk", "wgmma_f16_64x64_splitk for bf16 inputs"),
      split_solo<Solo64x64, DType::kF32>("wgmma_tf32_64x64_splitk", "wgmma_f16_64x64_splitk for f32 inputs as tf32"),
      stream_k<Cluster128x256, DType::kF16>("wgmma_cluster_f16_128x256_streamk",
                                            "step 14 with the last two waves' k-slices shared evenly (stream-K)"),
      stream_k<Cluster128x256, DType::kBF16>("wgmma_cluster_bf16_128x256_streamk", "step 15 for bf16 inputs"),
      stream_k<Cluster128x192, DType::kF16>("wgmma_cluster_f16_128x192_streamk", "step 15 on 128x192 tiles"),
      stream_k<Cluster128x192, DType::kBF16>("wgmma_cluster_bf16_128x192_streamk", "step 15 bf16, 128x192 tiles"),
      stream_k<Cluster128x128, DType::kF16>("wgmma_cluster_f16_128x128_streamk", "step 15 on 128x128 tiles"),
      stream_k<Cluster128x128, DType::kBF16>("wgmma_cluster_bf16_128x128_streamk", "step 15 bf16, 128x128 tiles"),
      stream_k<Solo64x128, DType::kF16>(
          "wgmma_f16_64x128_streamk",
          "step 15 for small m: single CTAs (no cluster), 64x128 tiles, all k-slices shared evenly"),
      stream_k<Solo64x128, DType::kBF16>("wgmma_bf16_64x128_streamk", "wgmma_f16_64x128_streamk for bf16 inputs"),
      stream_k<Solo128x128, DType::kF16>("wgmma_f16_128x128_streamk",
                                         "wgmma_f16_64x128_streamk on 128x128 tiles (m up to 128)"),
      stream_k<Solo128x128, DType::kBF16>("wgmma_bf16_128x128_streamk", "wgmma_f16_128x128_streamk for bf16 inputs"),
      stream_k<Solo64x64, DType::kF16>("wgmma_f16_64x64_streamk",
                                       "wgmma_f16_64x128_streamk on 64x64 tiles, 12 stages (m up to 512: a wave of small tiles)"),
      stream_k<Solo64x64, DType::kBF16>("wgmma_bf16_64x64_streamk", "wgmma_f16_64x64_streamk for bf16 inputs"),
      small_m<DType::kF32>("gemv_16x32_any", "small m (decode): B streamed once, A staged in shared memory, FP32 "
                                         "multiply-adds, k split into parts that fill whole waves; m <= 16"),
      small_m<DType::kF16>("gemv_f16_16x32", "step 16 for f16 inputs"),
      small_m<DType::kBF16>("gemv_bf16_16x32", "step 16 for bf16 inputs"),
      small_m_mma<DType::kF16>("gemv_mma_f16_16x16_any",
                               "step 16 on tensor cores: B from global memory straight into mma.sync fragments "
                               "(op N paired along k by byte permutes), k split across warps; m <= 16"),
      small_m_mma<DType::kBF16>("gemv_mma_bf16_16x16_any", "gemv_mma_f16_16x16_any for bf16 inputs"),
      small_m_mma<DType::kF32>("gemv_mma_tf32_16x16_any",
                               "gemv_mma_f16_16x16_any for FP32 inputs read as tf32 (m16n8k8, rounded to "
                               "nearest)"),
      swapped<Swap64x16, DType::kF16>("wgmma_swap_f16_64x16",
                                      "step 16 on Hopper: C^T = B^T A^T on TMA-fed wgmma n16 tiles (64 columns of C "
                                      "by its m <= 16 rows), k split into parts, results stored transposed"),
      swapped<Swap64x16, DType::kBF16>("wgmma_swap_bf16_64x16", "wgmma_swap_f16_64x16 for bf16 inputs"),
      swapped<Swap64x16, DType::kF32>("wgmma_swap_tf32_64x16",
                                      "wgmma_swap_f16_64x16 for f32 inputs as tf32 (a weight stored k x n read into "
                                      "registers)"),
      cluster<Fp8Cluster128x128, DType::kE4M3>(
          "wgmma_cluster_e4m3_128x128", 17,
          "step 14 for FP8 (e4m3) inputs: wgmma k32, each 128-deep k-slice promoted to FP32 registers, per-tensor or "
          "1x128 / 128x128 block scales"),
      cluster<Cluster128x192, DType::kE4M3>("wgmma_cluster_e4m3_128x192", 17, "step 17, 128x192 tiles"),
      cluster<Cluster128x256, DType::kE4M3>("wgmma_cluster_e4m3_128x256", 17,
                                            "step 17, 128x256 tiles, each slice promoted in two pieces of 128 columns"),
      cluster<Fp8Cluster128x128, DType::kE5M2>("wgmma_cluster_e5m2_128x128", 17, "step 17 for e5m2 inputs"),
      cluster<Fp8Cluster128x128, DType::kE4M3, DType::kE5M2>("wgmma_cluster_e4m3xe5m2_128x128", 17,
                                                             "step 17 for A e4m3, B e5m2 (wgmma of mixed types)"),
      cluster<Cluster128x192, DType::kE4M3, DType::kE5M2>("wgmma_cluster_e4m3xe5m2_128x192", 17,
                                                          "wgmma_cluster_e4m3_128x192 for A e4m3, B e5m2"),
      cluster<Cluster128x256, DType::kE4M3, DType::kE5M2>("wgmma_cluster_e4m3xe5m2_128x256", 17,
                                                          "wgmma_cluster_e4m3_128x256 for A e4m3, B e5m2"),
      cluster<Fp8Cluster128x128, DType::kE5M2, DType::kE4M3>("wgmma_cluster_e5m2xe4m3_128x128", 17,
                                                             "step 17 for A e5m2, B e4m3"),
      cluster<Cluster128x192, DType::kE5M2, DType::kE4M3>("wgmma_cluster_e5m2xe4m3_128x192", 17,
                                                          "wgmma_cluster_e4m3_128x192 for A e5m2, B e4m3"),
      cluster<Cluster128x256, DType::kE5M2, DType::kE4M3>("wgmma_cluster_e5m2xe4m3_128x256", 17,
                                                          "wgmma_cluster_e4m3_128x256 for A e5m2, B e4m3"),
      shallow_k("shallow_64x128_any",
                "shallow k (an outer product): A and B staged as FP32, two blocks an SM walking 64x128 tiles "
                "(32x256 for 16-bit C), each lane storing 16 bytes of a row; bound by C's writes"),
  };
  return table;
}

const KernelEntry* find_entry(std::string_view name) {
  for (const KernelEntry& e : registry()) {
    if (e.info.name == name) return &e;
  }
  return nullptr;
}

std::vector<KernelInfo> kernels() {
  std::vector<KernelInfo> out;
  for (const KernelEntry& e : registry()) out.push_back(e.info);
  return out;
}

std::optional<KernelInfo> find_kernel(std::string_view name) {
  if (const KernelEntry* e = find_entry(name)) return e->info;
  return std::nullopt;
}

}  // namespace tessel
