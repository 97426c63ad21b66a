#include "dispatch/registry.hpp"

namespace tessel {

namespace {
constexpr int kSm80 = 80;  // the oldest architecture tessel builds device code for
constexpr const char* kAnyShape = "any m, n, k; any op; any legal leading dimension; no alignment needs";
}  // namespace

const std::vector<KernelEntry>& registry() {
  static const std::vector<KernelEntry> table = {
      {{"naive", 1, "one thread per C element, warps run down columns (uncoalesced)", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_naive},
      {{"coalesced", 2, "one thread per C element, warps run along rows (coalesced)", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_coalesced},
      {{"smem", 3, "32x32 tiles of A and B staged in shared memory", DType::kF32, kSm80, 1, kAnyShape},
       impl::launch_smem},
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
