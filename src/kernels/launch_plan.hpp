// Internal: the launch plan, the contract between dispatch and the
// launchers. Dispatch (src/dispatch/plan.cpp) makes every decision of a call
// once and writes it here; a launcher reads it and launches, never querying
// the device or re-deriving a decision. Plain C++: the kernels read the
// stream-K types on the device too.
#pragma once

#include <tessel/tessel.hpp>

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define TESSEL_HOST_DEVICE __host__ __device__
#else
#define TESSEL_HOST_DEVICE
#endif

namespace tessel::impl {

// Whether a kernel that fuses the epilogue (KernelEntry::fused_epilogue)
// takes e: column terms only (bias per column, column scale, activation);
// row terms and the pre-activation output are left to the epilogue pass.
inline bool fuses_in_kernel(const Epilogue& e) {
  return !e.bias_per_row && e.row_scale == nullptr && e.pre_activation == nullptr;
}

// Whether a call is a grouped GEMM (GemmArgs::group_offsets or group_counts).
inline bool grouped(const GemmArgs& a) { return a.group_offsets != nullptr || a.group_counts != nullptr; }
// Whether a call is a pointer-array batch (GemmArgs::a_array, b_array, c_array).
inline bool pointer_array(const GemmArgs& a) {
  return a.a_array != nullptr || a.b_array != nullptr || a.c_array != nullptr;
}
// Whether a call is a grouped GEMM of problems with sizes of their own (GemmArgs::problems).
inline bool problems(const GemmArgs& a) { return a.problems != nullptr; }
// Whether the call's matrices are known on the device only (a pointer-array batch, problems): no
// operand copies, tensor maps made on the device.
inline bool device_matrices(const GemmArgs& a) { return pointer_array(a) || problems(a); }
// A masked grouped GEMM's rows per group (m / batch); 0 for any other call.
inline int64_t group_capacity(const GemmArgs& a) {
  return a.group_counts != nullptr && a.batch > 0 ? a.m / a.batch : 0;
}

// The units of work of a clustered kernel (steps 14, 15): `cluster`
// vertically neighbouring row tiles (tile_m x tile_n) of one column.
struct ClusterUnits {
  int64_t along_m, along_n;
  TESSEL_HOST_DEVICE ClusterUnits(int64_t m, int64_t n, int tile_m, int tile_n, int cluster)
      : along_m(((m + tile_m - 1) / tile_m + cluster - 1) / cluster), along_n((n + tile_n - 1) / tile_n) {}
  TESSEL_HOST_DEVICE int64_t count() const { return along_m * along_n; }
};

// A stream-K schedule: units (tiles, or a cluster's tiles) [0, whole) go
// whole to the clusters in turn; the k-slices of the rest, numbered unit by
// unit, go in equal runs to clusters 0..sharing-1 (none when sharing = 0).
struct StreamKPlan {
  int whole = 0;
  int sharing = 0;
  int shared_slices = 0;
  TESSEL_HOST_DEVICE int run_begin(int cluster) const { return int(int64_t(shared_slices) * cluster / sharing); }
};

// A stream-K plan with its workspace: per partial-sum slot (a block, or a
// CTA's consumer warpgroup), the sums and a flag (1 = ready).
struct StreamKWork : StreamKPlan {
  float* partials = nullptr;
  int* flags = nullptr;
};

// Split-k on a 2D grid (steps 09, 10, 16): block row y takes part y of k,
// `depth` deep (the last shorter), and writes its FP32 results `stride`
// floats past part y - 1's.
struct KPart {
  int64_t depth = 0, stride = 0;
};

// A strided batch (GemmArgs::batch) on a grid's z dimension: the elements
// between consecutive matrices of A, B and C (0: one matrix for all). A
// pointer-array batch instead: block z's matrices are the arrays' entries
// first + z, and the call's A, B, C (null for the batch) are offsets into them.
struct MatrixStrides {
  int64_t a = 0, b = 0, c = 0;
  const void* const* a_array = nullptr;
  const void* const* b_array = nullptr;
  void* const* c_array = nullptr;
  int64_t first = 0;
};

// Whether every row of a matrix starts on a 16-byte boundary: p 16-byte aligned and ld elements
// of element_bytes a multiple of 16 bytes.
inline bool in_16_byte_units(const void* p, int64_t ld, size_t element_bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld * int64_t(element_bytes) % 16 == 0;
}

// The leading dimension of a transposed operand copy whose rows hold
// `values` FP32 values: whole 16-byte units.
inline int64_t flipped_ld(int64_t values) { return (values + 3) / 4 * 4; }
// The same for a realigned copy whose rows hold `values` elements of `element_bytes`.
inline int64_t realigned_ld(int64_t values, size_t element_bytes) {
  const int64_t per_unit = 16 / int64_t(element_bytes);
  return (values + per_unit - 1) / per_unit * per_unit;
}

// The scratch memory a call uses, by what it holds. kFlags: stream-K's ready
// flags or split-k's arrival counts, zero between calls (every kernel resets
// what it raised). kPartials:
// partial sums handed between the blocks of one launch (stream-K). Flags and
// sums are apart because a call with more flags than the last would otherwise
// take the last one's sums for raised flags. kOperands: operand copies;
// kSplitParts: split-k parts; kProduct: the FP32 product an epilogue pass
// reads; kTensorMaps: the tensor maps of matrices known on the device only, made on the
// device. The last four are written by one launch and read by the next.
enum class WorkspaceUse { kFlags, kPartials, kOperands, kSplitParts, kProduct, kTensorMaps };
constexpr int kWorkspaceUses = 6;
constexpr size_t kTensorMapBytes = 128;  // a CUtensorMap
constexpr size_t kWorkspaceAlignment = 256;  // each use's region in one workspace starts on this

struct LaunchPlan;
// A launcher: takes a validated call (m, n, k > 0, alpha != 0, device
// pointers a kernel of its entry can read) and the plan dispatch made for it.
using LaunchFn = cudaError_t (*)(const GemmArgs&, const LaunchPlan&, cudaStream_t);

// Everything decided for one call.
struct LaunchPlan {
  LaunchFn launch = nullptr;  // the entry's launcher, or the configuration dispatch resolved it to
  int clusters = 0;           // persistent kernels, step 18: the clusters (single blocks: blocks) that walk the tiles
  int64_t splits = 1;         // split-k: k cut into this many parts ...
  int64_t k_per_split = 0;    // ... of this depth (whole k-slices); k itself without split-k
  int64_t part_rows = 0;      // split-k: rows of each part in the workspace (m, or m in whole tiles)
  bool parts_to_workspace = false;  // split-k parts stored to the workspace, then summed into C; else atomics
  StreamKPlan stream_k;       // stream-K: the units shared by k-slices (sharing == 0: whole units only)
  int stream_k_slots = 0;     // stream-K partial-sum slots ...
  int64_t stream_k_slot_floats = 0;  // ... of this many floats each
  int k_groups = 1;           // step 16 on tensor cores: a block's warps that split k (the rest split n)
  int64_t arrival_flags = 0;  // split-k summed by the last part to arrive: a count per column block
  bool copy_a = false, copy_b = false;  // operand copied transposed first (its op flipped)
  bool round_tf32 = false;    // those copies rounded to tf32
  bool realign_a = false, realign_b = false;  // operand copied as it is, its rows in 16-byte units
  size_t operand_bytes = 0;   // the copies' workspace
  size_t parts_bytes = 0;     // the split-k parts' workspace
  size_t product_bytes = 0;   // an epilogue's FP32 product (m rows of product_ld(n))
  int64_t pointer_maps = 0;   // matrices known on the device (device_matrices) on TMA kernels: three maps each
  void* workspace = nullptr;  // the caller's, at least workspace_bytes(); null: tessel's own buffers

  size_t bytes_for(WorkspaceUse use) const {
    switch (use) {
      case WorkspaceUse::kFlags: return size_t(stream_k_slots + arrival_flags) * sizeof(int);
      case WorkspaceUse::kPartials: return size_t(stream_k_slots) * size_t(stream_k_slot_floats) * sizeof(float);
      case WorkspaceUse::kOperands: return operand_bytes;
      case WorkspaceUse::kSplitParts: return parts_bytes;
      case WorkspaceUse::kProduct: return product_bytes;
      case WorkspaceUse::kTensorMaps: return size_t(pointer_maps) * kTensorMapBytes;
    }
    return 0;
  }
  // Where `use` starts in one workspace holding every use, and its whole size.
  size_t offset_of(WorkspaceUse use) const {
    size_t offset = 0;
    for (int u = 0; u < int(use); ++u) {
      offset += (bytes_for(WorkspaceUse(u)) + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
    }
    return offset;
  }
  size_t workspace_bytes() const {
    constexpr WorkspaceUse kLast = WorkspaceUse(kWorkspaceUses - 1);
    const size_t total = offset_of(kLast) + bytes_for(kLast);
    return total == 0 ? 0 : total + kWorkspaceAlignment;  // room to align the caller's pointer
  }
};

}  // namespace tessel::impl
