#include "dispatch/registry.hpp"

#include "kernels/simt/configs.hpp"

namespace tessel {

namespace {
constexpr int kSm80 = 80;  // the oldest architecture tessel builds device code for
constexpr const char* kAnyShape = "any m, n, k; any op; any legal leading dimension; no alignment needs";
constexpr const char* kAligned4 =
    "any m, n, k; any op; A, B, C 16-byte aligned and lda, ldb, ldc multiples of 4";
}  // namespace

const std::vector<KernelEntry>& registry() {
  static const std::vector<KernelEntry> table = {
      {{"naive", 1, "one thread per C element, warps run down columns (uncoalesced)", DType::kF32, kSm80, 1, kAnyShape, impl::NaiveConfig::kBlock, impl::NaiveConfig::kBlock},
       impl::launch_naive},
      {{"coalesced", 2, "one thread per C element, warps run along rows (coalesced)", DType::kF32, kSm80, 1, kAnyShape, impl::NaiveConfig::kBlock, impl::NaiveConfig::kBlock},
       impl::launch_coalesced},
      {{"smem", 3, "32x32 tiles of A and B staged in shared memory", DType::kF32, kSm80, 1, kAnyShape, impl::SmemConfig::kTile, impl::SmemConfig::kTile},
       impl::launch_smem},
      {{"blocktile_1d", 4, "64x64 tiles, 8 results per thread in a column (1D register blocking)", DType::kF32, kSm80, 1, kAnyShape, impl::Blocktile1dConfig::kBM, impl::Blocktile1dConfig::kBN},
       impl::launch_blocktile_1d},
      {{"blocktile_2d", 5, "128x128 tiles, 8x8 results per thread (2D register blocking)", DType::kF32, kSm80, 1, kAnyShape, impl::Blocktile2dConfig::kBM, impl::Blocktile2dConfig::kBN},
       impl::launch_blocktile_2d},
      {{"vectorized", 6, "step 05 with 128-bit global and shared loads and stores", DType::kF32, kSm80, 4, kAligned4, impl::Blocktile2dConfig::kBM, impl::Blocktile2dConfig::kBN},
       impl::launch_vectorized},
      {{"warptile", 7, "block, warp and lane tiles; conflict-free 128-bit fragment loads", DType::kF32, kSm80, 4, kAligned4, impl::WarptileDefault::kBM, impl::WarptileDefault::kBN},
       impl::launch_warptile},
      {{"pipelined", 8, "step 07 double-buffered: cp.async / register prefetch overlap copies with math", DType::kF32, kSm80, 4, kAligned4, impl::Pipelined128x128::kBM, impl::Pipelined128x128::kBN},
       impl::launch_pipelined<impl::Pipelined128x128, true, false>, impl::Pipelined128x128::kMinBlocks},
      {{"pipelined_128x256", 8, "step 08, 128x256 tiles, 16-deep k-slices, 16x8 results per thread", DType::kF32, kSm80, 4, kAligned4, impl::Pipelined128x256::kBM, impl::Pipelined128x256::kBN},
       impl::launch_pipelined<impl::Pipelined128x256, true, false>, impl::Pipelined128x256::kMinBlocks},
      {{"pipelined_64x64", 8, "step 08, 64x64 tiles for small outputs", DType::kF32, kSm80, 4, kAligned4, impl::Pipelined64x64::kBM, impl::Pipelined64x64::kBN},
       impl::launch_pipelined<impl::Pipelined64x64, true, false>, impl::Pipelined64x64::kMinBlocks},
      {{"pipelined_any", 8, "step 08 for unaligned operands: element-wise global access", DType::kF32, kSm80, 1, kAnyShape, impl::Pipelined128x128::kBM, impl::Pipelined128x128::kBN},
       impl::launch_pipelined<impl::Pipelined128x128, false, false>, impl::Pipelined128x128::kMinBlocks},
      {{"pipelined_any_64x64", 8, "step 08 for unaligned operands, 64x64 tiles", DType::kF32, kSm80, 1, kAnyShape, impl::Pipelined64x64::kBM, impl::Pipelined64x64::kBN},
       impl::launch_pipelined<impl::Pipelined64x64, false, false>, impl::Pipelined64x64::kMinBlocks},
      {{"pipelined_splitk", 8, "step 08, 64x64 tiles, k split across blocks for small outputs", DType::kF32, kSm80, 4,
        kAligned4, impl::Pipelined64x64::kBM, impl::Pipelined64x64::kBN, true},
       impl::launch_pipelined<impl::Pipelined64x64, true, true>, impl::Pipelined64x64::kMinBlocks},
      {{"pipelined_any_splitk", 8, "step 08 for unaligned operands, k split across blocks", DType::kF32, kSm80, 1,
        kAnyShape, impl::Pipelined64x64::kBM, impl::Pipelined64x64::kBN, true},
       impl::launch_pipelined<impl::Pipelined64x64, false, true>, impl::Pipelined64x64::kMinBlocks},
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
