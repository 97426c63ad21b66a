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
      {{"naive", 1, "one thread per C element, warps run down columns (uncoalesced)", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_naive},
      {{"coalesced", 2, "one thread per C element, warps run along rows (coalesced)", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_coalesced},
      {{"smem", 3, "32x32 tiles of A and B staged in shared memory", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_smem},
      {{"blocktile_1d", 4, "64x64 tiles, 8 results per thread in a column (1D register blocking)", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_blocktile_1d},
      {{"blocktile_2d", 5, "128x128 tiles, 8x8 results per thread (2D register blocking)", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_blocktile_2d},
      {{"vectorized", 6, "step 05 with 128-bit global and shared loads and stores", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_vectorized},
      {{"warptile", 7, "block, warp and lane tiles; conflict-free 128-bit fragment loads", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_warptile},
      {{"pipelined", 8, "step 07 double-buffered: cp.async / register prefetch overlap copies with math", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x128>},
      {{"pipelined_k16", 8, "step 08 with 16-deep k-slices", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x128k16>},
      {{"pipelined_128x256", 8, "step 08, 128x256 tiles, 16x8 results per thread", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x256>},
      {{"pipelined_256x128", 8, "step 08, 256x128 tiles, 16x8 results per thread", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined256x128>},
      {{"pipelined_64x64", 8, "step 08, 64x64 tiles for small outputs", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined64x64>},
      {{"pipelined_128x256_k16", 8, "step 08, 128x256 tiles, 16-deep k-slices", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x256k16>},
      {{"pipelined_128x256_k32", 8, "step 08, 128x256 tiles, 32-deep k-slices", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x256k32>},
      {{"pipelined_w4", 8, "step 08, 128x128 tiles over 4 warps, 16x8 results per thread", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x128w4>},
      {{"pipelined_w4_k16", 8, "step 08, 128x128 tiles over 4 warps, 16-deep k-slices", DType::kF32, kSm80, 4, kAligned4},
       impl::launch_pipelined<impl::Pipelined128x128w4k16>},
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
