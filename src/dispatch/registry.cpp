#include "dispatch/registry.hpp"

#include "kernels/simt/configs.hpp"

namespace tessel {

namespace {

constexpr int kSm80 = 80;  // the oldest architecture tessel builds device code for
constexpr const char* kAnyShape = "any m, n, k; any op; any legal leading dimension; no alignment needs";
constexpr const char* kAligned4 = "any m, n, k; any op; A, B, C 16-byte aligned and lda, ldb, ldc multiples of 4";

// An FP32 kernel with a tile_m x tile_n block tile; alignment 4 means 16-byte accesses.
KernelEntry simt(const char* name, int step, const char* summary, int alignment, int tile_m, int tile_n,
                 impl::LaunchFn launch) {
  return {{name, step, summary, DType::kF32, kSm80, alignment, alignment == 1 ? kAnyShape : kAligned4, tile_m, tile_n},
          launch};
}

// One configuration of step 08.
template <class Cfg, bool Aligned, bool SplitK>
KernelEntry pipelined(const char* name, const char* summary) {
  KernelEntry e = simt(name, 8, summary, Aligned ? 4 : 1, Cfg::kBM, Cfg::kBN, impl::launch_pipelined<Cfg, Aligned, SplitK>);
  e.info.split_k = SplitK;
  e.blocks_per_sm = Cfg::kMinBlocks;
  return e;
}

}  // namespace

const std::vector<KernelEntry>& registry() {
  using namespace impl;
  constexpr int kNaive = NaiveConfig::kBlock, kSmem = SmemConfig::kTile;
  static const std::vector<KernelEntry> table = {
      simt("naive", 1, "one thread per C element, warps run down columns (uncoalesced)", 1, kNaive, kNaive, launch_naive),
      simt("coalesced", 2, "one thread per C element, warps run along rows (coalesced)", 1, kNaive, kNaive,
           launch_coalesced),
      simt("smem", 3, "32x32 tiles of A and B staged in shared memory", 1, kSmem, kSmem, launch_smem),
      simt("blocktile_1d", 4, "64x64 tiles, 8 results per thread in a column (1D register blocking)", 1,
           Blocktile1dConfig::kBM, Blocktile1dConfig::kBN, launch_blocktile_1d),
      simt("blocktile_2d", 5, "128x128 tiles, 8x8 results per thread (2D register blocking)", 1, Blocktile2dConfig::kBM,
           Blocktile2dConfig::kBN, launch_blocktile_2d),
      simt("vectorized", 6, "step 05 with 128-bit global and shared loads and stores", 4, Blocktile2dConfig::kBM,
           Blocktile2dConfig::kBN, launch_vectorized),
      simt("warptile", 7, "block, warp and lane tiles; conflict-free 128-bit fragment loads", 4, WarptileDefault::kBM,
           WarptileDefault::kBN, launch_warptile),
      pipelined<Pipelined128x128, true, false>(
          "pipelined", "step 07 double-buffered: cp.async / register prefetch overlap copies with math"),
      pipelined<Pipelined128x256, true, false>("pipelined_128x256",
                                               "step 08, 128x256 tiles, 16-deep k-slices, 16x8 results per thread"),
      pipelined<Pipelined64x64, true, false>("pipelined_64x64", "step 08, 64x64 tiles for small outputs"),
      pipelined<Pipelined128x128, false, false>("pipelined_any",
                                                "step 08 for unaligned operands: element-wise global access"),
      pipelined<Pipelined64x64, false, false>("pipelined_any_64x64", "step 08 for unaligned operands, 64x64 tiles"),
      pipelined<Pipelined64x64, true, true>("pipelined_splitk",
                                            "step 08, 64x64 tiles, k split across blocks for small outputs"),
      pipelined<Pipelined64x64, false, true>("pipelined_any_splitk",
                                             "step 08 for unaligned operands, k split across blocks"),
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
