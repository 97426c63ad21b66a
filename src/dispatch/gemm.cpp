// The public entry points: argument checks, kernel choice and launch.
//
// Order of checks (each failure returns before anything is launched):
//   1. kernel name (run_kernel only)           -> kUnknownKernel
//   2. precision, ops, sizes, leading dimensions, nulls -> kInvalidArgument
//   3. m == 0 or n == 0: nothing to do          -> success
//   4. a GPU is visible                          -> kNoDevice
//   5. A, B, C are memory the GPU can reach     -> kInvalidArgument
//   6. the kernel's precisions, compute capability and alignment needs -> kNotSupported
//   7. the plan's scratch memory: the caller's workspace large enough, or
//      tessel's own while the stream is not being captured
// then k == 0 or alpha == 0 scales C by beta, anything else runs the kernel.
// No exception leaves the API: each entry point returns a Status.
#include <tessel/tessel.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "dispatch/heuristic.hpp"
#include "dispatch/plan.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/tuning.hpp"
#include "kernels/hopper/tensor_map.hpp"
#include "kernels/workspace.hpp"

namespace tessel {
namespace {

using std::to_string;

Status invalid(const std::string& msg) { return {StatusCode::kInvalidArgument, "tessel: " + msg}; }

// Whether the call multiplies at all: with k == 0 or alpha == 0 it is C = beta * C
// (BLAS), A and B are not read, and no GEMM kernel runs.
bool multiplies(const GemmArgs& a) { return a.k > 0 && a.alpha != 0.0f; }

// Checks the leading dimension of one stored operand of rows x cols (row-major).
Status check_ld(const std::string& layout, const char* ld_name, int64_t ld, int64_t rows, int64_t cols,
                const char* cols_name) {
  const int64_t need = std::max<int64_t>(1, cols);
  if (ld < need) {
    return invalid(std::string(ld_name) + " = " + to_string(ld) + " is too small: " + layout + ", so " + ld_name +
                   " must be >= max(1, " + cols_name + ") = " + to_string(need));
  }
  if (rows > 0 && ld > std::numeric_limits<int64_t>::max() / rows) {
    return invalid(layout + " with " + ld_name + " = " + to_string(ld) + ": its extent overflows 64-bit indexing");
  }
  return {};
}

// The epilogue's vectors and second output, for a call that writes C.
template <class Aligned>
Status validate_epilogue(const GemmArgs& a, const Aligned& element_aligned) {
  const Epilogue& e = a.epilogue;
  const int act = int(e.activation);
  if (act < int(Activation::kNone) || act > int(Activation::kSilu)) {
    return invalid("epilogue.activation = " + to_string(act) + " is not an Activation");
  }
  if (e.bias) {
    if (Status s = element_aligned("epilogue.bias", e.bias, a.precision.c); !s.ok()) return s;
  }
  if (e.row_scale) {
    if (Status s = element_aligned("epilogue.row_scale", e.row_scale, DType::kF32); !s.ok()) return s;
  }
  if (e.col_scale) {
    if (Status s = element_aligned("epilogue.col_scale", e.col_scale, DType::kF32); !s.ok()) return s;
  }
  if (e.pre_activation) {
    if (Status s = check_ld("epilogue.pre_activation is stored m x n", "epilogue.ld_pre", e.ld_pre, a.m, a.n, "n");
        !s.ok()) {
      return s;
    }
    if (Status s = element_aligned("epilogue.pre_activation", e.pre_activation, a.precision.c); !s.ok()) return s;
  } else if (e.ld_pre != 0) {
    return invalid("epilogue.ld_pre = " + to_string(e.ld_pre) + " but epilogue.pre_activation is null");
  }
  return {};
}

// A pointer-array batch: all three arrays, nothing that would address the matrices otherwise.
Status validate_pointer_array(const GemmArgs& a) {
  for (const auto& [array, name] : {std::pair<const void*, const char*>{a.a_array, "a_array"},
                                    {a.b_array, "b_array"}, {a.c_array, "c_array"}}) {
    if (array == nullptr) {
      return invalid(std::string(name) + " is null: a pointer-array batch sets a_array, b_array and c_array");
    }
    if (reinterpret_cast<std::uintptr_t>(array) % alignof(void*) != 0) {
      return invalid(std::string(name) + " is not aligned to its 8-byte pointers");
    }
  }
  if (a.A != nullptr || a.B != nullptr || a.C != nullptr) {
    return invalid("A, B or C is set with a_array, b_array, c_array: a pointer-array batch addresses its matrices "
                   "through the arrays only (A, B, C null)");
  }
  if (a.stride_a != 0 || a.stride_b != 0 || a.stride_c != 0) {
    return invalid("stride_a, stride_b or stride_c is set with a pointer-array batch: the arrays place the matrices");
  }
  if (impl::grouped(a)) {
    return invalid("group_offsets or group_counts with a pointer-array batch: take one or the other");
  }
  if (a.epilogue.any()) return invalid("an epilogue with a pointer-array batch: not supported (call per matrix)");
  if (a.block_scales.any()) return invalid("block_scales with a pointer-array batch: block scales take one GEMM");
  return {};
}

// A grouped GEMM of problems: its array, nothing that would address or group the matrices otherwise.
Status validate_problems(const GemmArgs& a) {
  if (reinterpret_cast<std::uintptr_t>(a.problems) % alignof(GemmProblem) != 0) {
    return invalid("problems is not aligned to its " + to_string(alignof(GemmProblem)) + "-byte GemmProblem values");
  }
  if (a.A != nullptr || a.B != nullptr || a.C != nullptr) {
    return invalid("A, B or C is set with problems: each problem addresses its own matrices (A, B, C null)");
  }
  if (a.stride_a != 0 || a.stride_b != 0 || a.stride_c != 0) {
    return invalid("stride_a, stride_b or stride_c is set with problems: each problem places its own matrices");
  }
  if (impl::grouped(a) || impl::pointer_array(a)) {
    return invalid("problems with group_offsets, group_counts or pointer arrays: a call takes one grouped form");
  }
  if (a.epilogue.any()) return invalid("an epilogue with problems: not supported (call per problem)");
  if (a.block_scales.any()) return invalid("block_scales with problems: block scales take one GEMM");
  return {};
}

// A strided batch: its count and strides, C's matrices apart, every matrix within 64-bit indexing.
Status validate_batch(const GemmArgs& a) {
  if (a.batch < 0) return invalid("batch = " + to_string(a.batch) + " must be >= 0");
  for (const auto& [stride, name] :
       {std::pair{a.stride_a, "stride_a"}, std::pair{a.stride_b, "stride_b"}, std::pair{a.stride_c, "stride_c"}}) {
    if (stride < 0) return invalid(std::string(name) + " = " + to_string(stride) + " must be >= 0");
    if (a.batch > 1 && stride > std::numeric_limits<int64_t>::max() / 2 / (a.batch - 1)) {
      return invalid(std::string(name) + " = " + to_string(stride) + " with batch = " + to_string(a.batch) +
                     ": the batch's extent overflows 64-bit indexing");
    }
  }
  if (impl::problems(a)) return validate_problems(a);
  if (impl::pointer_array(a)) return validate_pointer_array(a);
  if (impl::grouped(a)) {
    if (a.group_offsets != nullptr && a.group_counts != nullptr) {
      return invalid("group_offsets and group_counts are both set: a grouped GEMM takes one of them");
    }
    const std::string name = a.group_offsets != nullptr ? "group_offsets" : "group_counts";
    if (a.opA != Op::N) return invalid(name + " is set but opA = T: a grouped GEMM takes its rows of A with op N");
    if (a.stride_a != 0 || a.stride_c != 0) {
      return invalid(name + " is set but stride_a = " + to_string(a.stride_a) + ", stride_c = " +
                     to_string(a.stride_c) + ": a grouped GEMM's groups are rows of one A and one C (strides 0)");
    }
    const void* values = a.group_offsets != nullptr ? static_cast<const void*>(a.group_offsets) : a.group_counts;
    if (reinterpret_cast<std::uintptr_t>(values) % alignof(int64_t) != 0) {
      return invalid(name + " is not aligned to its 8-byte int64 values");
    }
    if (a.expected_group_rows < 0 || (a.expected_group_rows > 0 && a.group_counts == nullptr)) {
      return invalid("expected_group_rows = " + to_string(a.expected_group_rows) +
                     ": a masked grouped GEMM's hint (group_counts set), >= 0");
    }
    if (a.group_counts != nullptr && a.batch > 0 && a.m % a.batch != 0) {
      return invalid("group_counts is set but m = " + to_string(a.m) + " is not a multiple of batch = " +
                     to_string(a.batch) + ": each group owns m / batch rows");
    }
    if (a.epilogue.any() || a.block_scales.any()) {
      return invalid(name + " with an epilogue or block scales: a grouped GEMM takes neither");
    }
    return {};
  }
  if (a.batch <= 1 || a.m == 0 || a.n == 0) return {};
  const bool stacked = a.stride_c >= (a.m - 1) * a.ldc + a.n;
  const bool side_by_side = a.stride_c >= a.n && (a.batch - 1) * a.stride_c + a.n <= a.ldc;
  if (!stacked && !side_by_side) {
    return invalid("stride_c = " + to_string(a.stride_c) + " makes the batch's C matrices overlap (m = " +
                   to_string(a.m) + ", n = " + to_string(a.n) + ", ldc = " + to_string(a.ldc) +
                   "): stride_c must be >= (m - 1) * ldc + n = " + to_string((a.m - 1) * a.ldc + a.n) +
                   ", or >= n with (batch - 1) * stride_c + n <= ldc");
  }
  if (a.block_scales.any()) {
    return invalid("block_scales with batch = " + to_string(a.batch) + ": block scales take one GEMM (batch = 1)");
  }
  if (a.epilogue.pre_activation) {
    return invalid("epilogue.pre_activation with batch = " + to_string(a.batch) +
                   ": the second output takes one GEMM (batch = 1)");
  }
  return {};
}

Status validate(const GemmArgs& a) {
  if (!supported(a.precision)) {
    const DType bt = a.precision.b_type();
    const std::string b = bt != a.precision.ab ? std::string(", B ") + to_string(bt) : "";
    return invalid("precision (A/B " + std::string(to_string(a.precision.ab)) + b + ", C " + to_string(a.precision.c) +
                   ", compute " + (a.precision.compute == Compute::kTF32 ? "tf32" : "f32") +
                   ") is not a supported combination: " + supported_precision_names());
  }
  if (a.opA != Op::N && a.opA != Op::T) return invalid("opA = " + to_string(int(a.opA)) + " is neither Op::N nor Op::T");
  if (a.opB != Op::N && a.opB != Op::T) return invalid("opB = " + to_string(int(a.opB)) + " is neither Op::N nor Op::T");
  if (a.m < 0) return invalid("m = " + to_string(a.m) + " must be >= 0");
  if (a.n < 0) return invalid("n = " + to_string(a.n) + " must be >= 0");
  if (a.k < 0) return invalid("k = " + to_string(a.k) + " must be >= 0");

  const bool a_n = a.opA == Op::N, b_n = a.opB == Op::N;
  Status s;  // problems: each has its own leading dimensions (on the device), the call's are not read
  if (!impl::problems(a)) {
    s = check_ld(a_n ? "A is stored m x k (opA = N)" : "A is stored k x m (opA = T)", "lda", a.lda,
                      a_n ? a.m : a.k, a_n ? a.k : a.m, a_n ? "k" : "m");
    if (s.ok()) {
      s = check_ld(b_n ? "B is stored k x n (opB = N)" : "B is stored n x k (opB = T)", "ldb", a.ldb,
                   b_n ? a.k : a.n, b_n ? a.n : a.k, b_n ? "n" : "k");
    }
    if (s.ok()) s = check_ld("C is stored m x n", "ldc", a.ldc, a.m, a.n, "n");
  }
  if (s.ok()) s = validate_batch(a);
  if (!s.ok()) return s;

  const bool arrays = impl::device_matrices(a);  // the matrices' pointers live on the device
  const bool writes_c = a.m > 0 && a.n > 0 && a.batch > 0;
  const bool reads_ab = writes_c && multiplies(a) && !arrays;
  if (writes_c && a.C == nullptr && !arrays) return invalid("C is null but m * n > 0");
  if (reads_ab && a.A == nullptr) return invalid("A is null but m, n, k > 0 and alpha != 0");
  if (reads_ab && a.B == nullptr) return invalid("B is null but m, n, k > 0 and alpha != 0");
  // Every kernel reads whole elements: a pointer inside one would fault on the GPU.
  const auto element_aligned = [](const char* name, const void* p, DType t) -> Status {
    const size_t bytes = size_of(t);
    if (reinterpret_cast<std::uintptr_t>(p) % bytes == 0) return {};
    return invalid(std::string(name) + " is not aligned to its " + to_string(bytes) + "-byte " + to_string(t) +
                   " elements (address % " + to_string(bytes) + " = " +
                   to_string(reinterpret_cast<std::uintptr_t>(p) % bytes) + ")");
  };
  if (reads_ab) {
    if (Status s = element_aligned("A", a.A, a.precision.ab); !s.ok()) return s;
    if (Status s = element_aligned("B", a.B, a.precision.b_type()); !s.ok()) return s;
  }
  if (writes_c && !arrays) {
    if (Status s = element_aligned("C", a.C, a.precision.c); !s.ok()) return s;
  }
  for (const auto& [scale, name] : {std::pair{a.scale_a, "scale_a"}, std::pair{a.scale_b, "scale_b"}}) {
    if (scale == nullptr) continue;
    if (!is_fp8(a.precision.ab)) {
      return invalid(std::string(name) + " is set but A and B are " + to_string(a.precision.ab) +
                     ": per-tensor scales are for FP8 inputs (e4m3, e5m2)");
    }
    if (reads_ab) {
      if (Status s = element_aligned(name, scale, DType::kF32); !s.ok()) return s;
    }
  }
  if (const Fp8BlockScales& bs = a.block_scales; bs.any()) {
    if (!is_fp8(a.precision.ab)) {
      return invalid("block_scales is set but A and B are " + std::string(to_string(a.precision.ab)) +
                     ": block scales are for FP8 inputs (e4m3, e5m2)");
    }
    if (bs.a == nullptr || bs.b == nullptr) return invalid("block_scales needs both a and b (one is null)");
    if (bs.b_block_n != 128 && bs.b_block_n != 1) {
      return invalid("block_scales.b_block_n = " + to_string(bs.b_block_n) +
                     ": B's scales cover 128 columns (128 x 128 blocks) or 1 (1 x 128 blocks)");
    }
    if (a.scale_a != nullptr || a.scale_b != nullptr) {
      return invalid("block_scales and scale_a / scale_b are exclusive: fold a per-tensor scale into alpha");
    }
    for (const auto& [stride, name] : {std::pair{bs.a_stride_m, "block_scales.a_stride_m"},
                                       std::pair{bs.a_stride_k, "block_scales.a_stride_k"},
                                       std::pair{bs.b_stride_n, "block_scales.b_stride_n"},
                                       std::pair{bs.b_stride_k, "block_scales.b_stride_k"}}) {
      if (stride < 0) return invalid(std::string(name) + " = " + to_string(stride) + " must be >= 0");
    }
    // The kernels step along k (and to B's next block of columns) in 32-bit offsets.
    const int64_t blocks = std::max<int64_t>(a.k - 1, 0) / 128, limit = std::numeric_limits<int32_t>::max();
    auto fits = [&](int64_t stride, int64_t extra) {
      return extra <= limit && stride <= (limit - extra) / std::max<int64_t>(blocks, 1);
    };
    // Per column, a thread reaches 127 columns past a tile's first.
    const int64_t columns = bs.b_block_n == 1 ? 127 : 1;
    if (!fits(bs.a_stride_k, 0) || bs.b_stride_n > limit / columns || !fits(bs.b_stride_k, columns * bs.b_stride_n)) {
      return invalid("block_scales.a_stride_k / b_stride_k / b_stride_n = " + to_string(bs.a_stride_k) + " / " +
                     to_string(bs.b_stride_k) + " / " + to_string(bs.b_stride_n) +
                     ": the kernels step through the scales of a row (a block of columns) in 32-bit offsets, and "
                     "(ceil(k / 128) - 1) * stride (+ b_stride_n, or 127 b_stride_n with b_block_n = 1) must be "
                     "below 2^31");
    }
    if (reads_ab) {
      if (Status s = element_aligned("block_scales.a", bs.a, DType::kF32); !s.ok()) return s;
      if (Status s = element_aligned("block_scales.b", bs.b, DType::kF32); !s.ok()) return s;
    }
  }
  if (a.workspace == nullptr && a.workspace_bytes > 0) {
    return invalid("workspace is null but workspace_bytes = " + to_string(a.workspace_bytes));
  }
  return writes_c ? validate_epilogue(a, element_aligned) : Status{};
}

std::string cuda_message(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

struct Device {
  int id = 0;
  int cc = 0;   // compute capability as 10 * major + minor
  int sms = 0;  // multiprocessors
};

Status current_device(Device* d) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the (non-sticky) error
    return {StatusCode::kNoDevice,
            "tessel: no CUDA GPU is visible" + (err != cudaSuccess ? " (" + cuda_message(err) + ")" : std::string())};
  }
  int major = 0, minor = 0;
  if ((err = cudaGetDevice(&d->id)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d->id)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d->id)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, d->id)) != cudaSuccess) {
    return {StatusCode::kCudaError, "tessel: cannot query the current GPU (" + cuda_message(err) + ")"};
  }
  d->cc = 10 * major + minor;
  return {};
}

// A pointer the kernels will dereference must be device or managed memory
// (or host memory mapped into the device's address space) on this device.
Status check_pointer(const void* p, const char* name, int device) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return invalid(std::string(name) + " is not a pointer CUDA knows (" + cuda_message(err) + ")");
  }
  if (attr.type == cudaMemoryTypeUnregistered || (attr.type == cudaMemoryTypeHost && attr.devicePointer == nullptr)) {
    return invalid(std::string(name) + " points to host memory; pass device (or managed) memory");
  }
  if (attr.type == cudaMemoryTypeDevice && attr.device != device) {
    return invalid(std::string(name) + " lives on GPU " + to_string(attr.device) + " but the current device is GPU " +
                   to_string(device));
  }
  return {};
}

// A pointer-array batch: its arrays (the matrices they point to are the caller's word).
Status check_pointers(const GemmArgs& a, int device) {
  if (impl::problems(a)) return check_pointer(a.problems, "problems", device);
  const bool arrays = impl::pointer_array(a);
  if (multiplies(a)) {
    if (Status s = arrays ? check_pointer(a.a_array, "a_array", device) : check_pointer(a.A, "A", device); !s.ok()) {
      return s;
    }
    if (Status s = arrays ? check_pointer(a.b_array, "b_array", device) : check_pointer(a.B, "B", device); !s.ok()) {
      return s;
    }
  }
  // The optional vectors: the FP8 scales (read only when the call multiplies) and the epilogue's.
  const bool scales = multiplies(a);
  const Epilogue& e = a.epilogue;
  const std::array<std::pair<const void*, const char*>, 10> vectors = {
      {{scales ? a.scale_a : nullptr, "scale_a"},
       {scales ? a.scale_b : nullptr, "scale_b"},
       {scales ? a.block_scales.a : nullptr, "block_scales.a"},
       {scales ? a.block_scales.b : nullptr, "block_scales.b"},
       {a.group_offsets, "group_offsets"},
       {a.group_counts, "group_counts"},
       {e.bias, "epilogue.bias"},
       {e.row_scale, "epilogue.row_scale"},
       {e.col_scale, "epilogue.col_scale"},
       {e.pre_activation, "epilogue.pre_activation"}}};
  for (const auto& [p, name] : vectors) {
    if (p == nullptr) continue;
    if (Status s = check_pointer(p, name, device); !s.ok()) return s;
  }
  return arrays ? check_pointer(a.c_array, "c_array", device) : check_pointer(a.C, "C", device);
}

// With an epilogue, the GEMM a kernel runs: the FP32 product alone (beta = 0,
// no epilogue) into the workspace, whose rows are in 16-byte units; its C a
// stand-in until the workspace is known. The epilogue pass then makes C.
GemmArgs product_call(const GemmArgs& a) {
  if (!a.epilogue.any()) return a;
  GemmArgs p = a;
  p.epilogue = {};
  p.precision.c = DType::kF32;
  p.beta = 0.0f;
  p.C = reinterpret_cast<void*>(impl::kWorkspaceAlignment);
  p.ldc = impl::flipped_ld(a.n);
  return p;
}

bool aligned(const void* p, size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

std::string precision_list(const KernelInfo& info) {
  std::string s;
  for (const Precision& p : info.precisions) s += (s.empty() ? "" : ", ") + to_string(p);
  return s;
}

std::string cc_string(int cc) { return to_string(cc / 10) + "." + to_string(cc % 10); }

// What keeps kernel e from taking these (validated) arguments on a GPU of
// compute capability cc: nothing (kNone), the precision, the GPU, or the
// alignment of A, B or C (kAlignment + 0, 1, 2). Cheap, no strings:
// auto-dispatch asks it of every registered kernel, several times per
// call, and most of them refuse (another precision).
enum Misfit { kNone = -1, kPrecision = -2, kArchitecture = -3, kTmaStride = -4, kTmaExtent = -5, kNoRoom = -6,
              kRows = -7, kBlockScales = -8, kGrouped = -9, kPointerArray = -10, kPointerArrayOps = -11,
              kColumnScales = -12, kAlignment = 0 };

// The Hopper kernels address A, B and C through TMA tensor maps: 32-bit
// coordinates, row strides below 2^40 bytes.
constexpr int64_t kTmaMaxExtent = int64_t(1) << 31;
constexpr int64_t kTmaMaxStrideBytes = int64_t(1) << 40;
bool uses_tma(const KernelInfo& info) { return info.max_compute_capability == 90; }

// One operand as a kernel's alignment needs see it (every matrix of a batch: its stride too).
struct OperandView {
  const char* name;
  const char* ld_name;
  const void* p;
  int64_t ld;
  int64_t stride;  // between the matrices of a batch; 0 for one
  int alignment;   // elements
  size_t bytes;    // per element
  bool misaligned() const {
    return alignment > 1 && (!aligned(p, alignment * bytes) || ld % alignment != 0 || stride % alignment != 0);
  }
};

std::array<OperandView, 3> operand_views(const KernelInfo& info, const GemmArgs& a) {
  const size_t ab = size_of(a.precision.ab), c = size_of(a.precision.c);
  const bool batch = a.batch > 1;
  return {{{"A", "lda", a.A, a.lda, batch ? a.stride_a : 0, info.alignment, ab},
           {"B", "ldb", a.B, a.ldb, batch ? a.stride_b : 0, info.alignment, ab},
           {"C", "ldc", a.C, a.ldc, batch ? a.stride_c : 0, info.c_alignment, c}}};
}

// realign: operands the plan copies with aligned rows (their alignment then does not matter).
int misfit(const KernelEntry& e, const GemmArgs& a, int cc, Realign realign = {}) {
  const KernelInfo& info = e.info;
  if (!info.takes(a.precision)) return kPrecision;
  if (!info.runs_on(cc)) return kArchitecture;
  if (info.max_m > 0 && a.m > info.max_m) return kRows;
  if (a.block_scales.any() && !info.fp8_block_scales) return kBlockScales;
  if (a.block_scales.any() && a.block_scales.b_block_n == 1 && !info.fp8_column_scales) return kColumnScales;
  if ((impl::grouped(a) || impl::problems(a)) && !info.grouped) return kGrouped;
  if (impl::pointer_array(a) && !info.pointer_array) return kPointerArray;
  // Layout and alignment matter only when the kernel itself runs.
  if (!multiplies(a)) return kNone;
  // K-major copies of every matrix need their pointers on the host.
  if (impl::device_matrices(a) && e.copies == Copies::kKMajor && (a.opA != Op::N || a.opB != Op::T)) {
    return kPointerArrayOps;
  }
  // Problems: each one's alignment and leading dimensions are known on the device only (pointer_maps.cuh).
  const bool own_layouts = impl::problems(a);
  const std::array<OperandView, 3> ops = operand_views(info, a);
  const bool copied[3] = {realign.a, realign.b, false};
  for (int i = 0; i < 3; ++i) {
    if (ops[i].misaligned() && !copied[i] && !own_layouts) return kAlignment + i;
  }
  if (uses_tma(info)) {
    for (const OperandView& o : ops) {
      if (std::max(o.ld, o.stride) > kTmaMaxStrideBytes / int64_t(o.bytes) && !own_layouts) return kTmaStride;
    }
    const bool beyond = a.m >= kTmaMaxExtent || a.n >= kTmaMaxExtent || a.k >= kTmaMaxExtent;
    if (beyond && (e.fallback == nullptr || own_layouts)) return kTmaExtent;  // else the plan takes the fallback
  }
  if (e.resident != nullptr) {  // a kernel whose cluster fits nowhere (a partitioned GPU) cannot run
    int resident = 0;
    if (e.resident(&resident) != cudaSuccess || resident < 1) return kNoRoom;
  }
  return kNone;
}

// misfit() as a status with the message a caller naming the kernel gets.
Status can_run(const KernelEntry& e, const GemmArgs& a, int cc, Realign realign = {}) {
  const KernelInfo& info = e.info;
  const int why = misfit(e, a, cc, realign);
  if (why == kNone) return {};
  if (why == kPrecision) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name + "' takes precision " + precision_list(info) +
                                           ", not " + to_string(a.precision)};
  }
  if (why == kArchitecture) {
    const int max_cc = info.max_compute_capability;
    const std::string needs = max_cc == info.min_compute_capability ? "compute capability " + cc_string(max_cc)
                              : max_cc != 0 ? "compute capability " + cc_string(info.min_compute_capability) +
                                                  " to " + cc_string(max_cc)
                                            : "compute capability >= " + cc_string(info.min_compute_capability);
    return {StatusCode::kNotSupported,
            "tessel: kernel '" + info.name + "' needs " + needs + ", this GPU has " + cc_string(cc)};
  }
  if (why == kTmaStride) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' reads its operands by TMA, whose strides must be below 2^40 bytes "
                                           "(lda = " + to_string(a.lda) + ", ldb = " + to_string(a.ldb) +
                                           ", ldc = " + to_string(a.ldc) + ", stride_a = " + to_string(a.stride_a) +
                                           ", stride_b = " + to_string(a.stride_b) +
                                           ", stride_c = " + to_string(a.stride_c) + ")"};
  }
  if (why == kTmaExtent) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' addresses its operands by TMA, whose coordinates are 32-bit: m, n and "
                                           "k must be below 2^31"};
  }
  if (why == kRows) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name + "' takes m <= " + to_string(info.max_m) +
                                           ", not m = " + to_string(a.m)};
  }
  if (why == kBlockScales) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' takes no FP8 block scales (the FP8 kernels with tiles 128 or 256 wide do)"};
  }
  if (why == kColumnScales) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' takes no FP8 scales per column of B (b_block_n = 1; the FP8 kernels "
                                           "with tiles 128 wide do)"};
  }
  if (why == kGrouped) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' takes no grouped GEMM (group_offsets, group_counts, problems); the "
                                           "Hopper cluster kernels do"};
  }
  if (why == kPointerArray) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' takes no pointer-array batch (a_array, b_array, c_array); the Hopper "
                                           "cluster kernels and step 08's kernels for any alignment do"};
  }
  if (why == kPointerArrayOps) {
    return {StatusCode::kNotSupported, "tessel: kernel '" + info.name +
                                           "' takes a pointer-array batch or problems with opA = N, opB = T only "
                                           "(its other op pairs copy the operands K-major first)"};
  }
  if (why == kNoRoom) {
    return {StatusCode::kNotSupported,
            "tessel: kernel '" + info.name + "' does not fit on this GPU (no block or cluster of it can be resident)"};
  }
  const OperandView o = operand_views(info, a)[why - kAlignment];
  const std::string stride = std::string("stride_") + char(std::tolower(o.name[0]));
  return {StatusCode::kNotSupported,
          "tessel: kernel '" + info.name + "' needs " + o.name + " aligned to " + to_string(o.alignment * o.bytes) +
              " bytes and " + o.ld_name + (a.batch > 1 ? " and " + stride + " multiples of " : " a multiple of ") +
              to_string(o.alignment) + " (" + o.ld_name + " = " + to_string(o.ld) +
              (a.batch > 1 ? ", " + stride + " = " + to_string(o.stride) : std::string()) + ")"};
}

// The scratch memory of a plan: the caller's workspace when it is large
// enough; tessel's own buffers unless the stream is being captured (they
// may have to be allocated, and a graph must not hold on to them): then the
// lean plan, where it needs none and keeps the tensor cores' accumulation
// chains within impl::kMaxChainDepth.
Status provide_workspace(impl::LaunchPlan* plan, const KernelEntry& e, const GemmArgs& a, Realign realign, int device,
                         cudaStream_t stream) {
  const size_t need = plan->workspace_bytes();
  if (need == 0) return {};
  if (a.workspace != nullptr) {
    if (a.workspace_bytes < need) {
      return invalid("workspace_bytes = " + to_string(a.workspace_bytes) + " is too small: this call needs " +
                     to_string(need) + " bytes (tessel::workspace_size)");
    }
    if (Status s = check_pointer(a.workspace, "workspace", device); !s.ok()) return s;
    plan->workspace = a.workspace;
    return {};
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone) {
    cudaGetLastError();
    const bool fp32_fma = a.precision.ab == DType::kF32 && a.precision.compute == Compute::kF32;
    if (const impl::LaunchPlan lean = lean_plan(*plan, e, a, realign);
        lean.workspace_bytes() == 0 && (fp32_fma || lean.k_per_split <= impl::kMaxChainDepth)) {
      *plan = lean;
      return {};
    }
    return {StatusCode::kNotSupported, "tessel: this call needs " + to_string(need) +
                                           " bytes of scratch memory and its stream is being captured: pass a "
                                           "workspace (GemmArgs::workspace, tessel::workspace_size)"};
  }
  return {};
}

Status launch_each(const KernelEntry& e, const GemmArgs& call, const Device& d, cudaStream_t stream, bool* no_room,
                   const WorkspaceAllocator* allocate, Realign realign);

// The GEMM e runs for a call: the call itself where e applies the epilogue
// to its accumulators (KernelEntry::fused_epilogue; 16-bit C) and its plan
// writes C directly (no split-k parts), else product_call(call) and the pass
// after it. The pass alone adds beta * C inside the activation and writes the
// pre-activation output.
GemmArgs kernel_call(const KernelEntry& e, const GemmArgs& call, const Device& d, Realign realign) {
  const bool fused = call.epilogue.any() && e.fused_epilogue && impl::fuses_in_kernel(call.epilogue) &&
                     call.beta == 0.0f && call.precision.c != DType::kF32 && multiplies(call) &&
                     can_run(e, call, d.cc, realign).ok() &&
                     make_plan(e, call, d.sms, realign).splits == 1;
  return fused ? call : product_call(call);
}

// The plan of a call on e: make_plan for the GEMM it runs (kernel_call),
// with a buffer for the product where an epilogue pass follows it.
impl::LaunchPlan plan_call(const KernelEntry& e, const GemmArgs& call, const GemmArgs& product, int sms,
                           Realign realign) {
  impl::LaunchPlan plan = make_plan(e, product, sms, realign);
  if (call.epilogue.any() && !product.epilogue.any()) {
    plan.product_bytes = size_t(product.m) * size_t(product.ldc) * sizeof(float);
  }
  return plan;
}

// validate -> plan -> launch: the plan (dispatch/plan.hpp) holds every
// decision; the launcher it names only carries it out.
// *no_room: the call failed only for want of memory for tessel's own
// scratch buffers (nothing was written); another kernel may do without.
// allocate: where set and the call brings no workspace, asked for the plan's scratch memory.
// realign: the operands auto-dispatch has copied with aligned rows (realign_for).
Status launch(const KernelEntry& e, const GemmArgs& call, const Device& d, cudaStream_t stream, bool* no_room = nullptr,
              const WorkspaceAllocator* allocate = nullptr, Realign realign = {}) {
  if (no_room) *no_room = false;
  if (Status s = check_pointers(call, d.id); !s.ok()) return s;
  // A strided batch that e does not run in one launch, or that only scales C: a matrix at a time.
  const bool arrays = impl::device_matrices(call);  // misfit keeps them to the kernels that walk them
  if (call.batch > 1 && !impl::grouped(call) && !arrays && !(runs_batch(e, call) && multiplies(call))) {
    return launch_each(e, call, d, stream, no_room, allocate, realign);
  }
  GemmArgs a = kernel_call(e, call, d, realign);
  const bool epilogue = call.epilogue.any() && !a.epilogue.any();  // the product to a buffer, then the pass
  if (Status s = can_run(e, a, d.cc, realign); !s.ok()) return s;
  cudaError_t err = cudaSuccess;
  float* product = nullptr;  // with an epilogue, where the kernel writes the product
  // The plan's operand copies, then its kernel on them (into the plan's product buffer where there is an epilogue).
  const auto run = [&](const impl::LaunchPlan& plan) {
    GemmArgs out = a;
    if (epilogue) {
      void* buffer = nullptr;
      if (cudaError_t got = impl::plan_workspace(plan, stream, impl::WorkspaceUse::kProduct, &buffer);
          got != cudaSuccess) {
        return got;
      }
      out.C = product = static_cast<float*>(buffer);
    }
    const cudaError_t copy = impl::copy_operands(&out, plan, stream);
    return copy != cudaSuccess ? copy : plan.launch(out, plan, stream);
  };
  if (multiplies(a)) {
    impl::LaunchPlan plan = plan_call(e, call, a, d.sms, realign);
    if (const size_t need = plan.workspace_bytes(); need > 0 && a.workspace == nullptr && allocate && *allocate) {
      if (Status s = (*allocate)(need, &a.workspace); !s.ok()) return s;
      if (a.workspace == nullptr) return {StatusCode::kInternal, "tessel: the workspace allocator returned null"};
      a.workspace_bytes = need;
    }
    if (Status s = provide_workspace(&plan, e, a, realign, d.id, stream); !s.ok()) return s;
    err = run(plan);
    if (err == cudaErrorMemoryAllocation && plan.workspace == nullptr) {  // the same kernel with less scratch
      const impl::LaunchPlan lean = lean_plan(plan, e, a, realign);
      if (lean.workspace_bytes() < plan.workspace_bytes()) err = run(lean);
      if (err == cudaErrorMemoryAllocation && no_room) *no_room = true;
    }
  } else if (!epilogue) {  // C = beta * C (a grouped GEMM's C is one matrix: its groups' rows; or each problem's)
    const impl::GroupedRows rows{a.group_offsets, a.group_counts, a.batch, impl::group_capacity(a)};
    err = impl::launch_scale(a.beta, a.C, a.m, a.n, a.ldc, stream, a.precision.c, rows, {a.c_array, a.problems},
                             a.batch);
  }
  if (err == cudaSuccess && epilogue) {  // C = act(scales * product + beta * C + bias), one rounding
    err = impl::launch_epilogue(product, a.ldc, call.beta, call.C, call.m, call.n, call.ldc, call.precision.c,
                                call.epilogue, stream);
  }
  if (err != cudaSuccess) {
    const CUresult encoder = impl::last_tensor_map_result();
    return {StatusCode::kCudaError, "tessel: kernel '" + e.info.name + "' failed to launch (" + cuda_message(err) + ")" +
                                        (uses_tma(e.info) && encoder != CUDA_SUCCESS
                                             ? "; cuTensorMapEncodeTiled returned CUresult " + to_string(int(encoder))
                                             : std::string())};
  }
  return {};
}

// A strided batch that e does not run in one launch: a launch per matrix, in
// order on the stream, each with the same kernel and the same plan (one
// workspace serves them all). *no_room only where the first matrix found no
// room, before anything was written.
Status launch_each(const KernelEntry& e, const GemmArgs& call, const Device& d, cudaStream_t stream, bool* no_room,
                   const WorkspaceAllocator* allocate, Realign realign) {
  GemmArgs one = call;
  one.batch = 1;
  if (allocate && *allocate && one.workspace == nullptr && multiplies(one)) {  // asked once, for every matrix
    if (const size_t bytes = plan_call(e, one, kernel_call(e, one, d, realign), d.sms, realign).workspace_bytes();
        bytes > 0) {
      if (Status s = (*allocate)(bytes, &one.workspace); !s.ok()) return s;
      if (one.workspace == nullptr) return {StatusCode::kInternal, "tessel: the workspace allocator returned null"};
      one.workspace_bytes = bytes;
    }
  }
  const size_t ab = size_of(call.precision.ab), c = size_of(call.precision.c);
  for (int64_t i = 0; i < call.batch; ++i) {
    one.A = static_cast<const char*>(call.A) + i * call.stride_a * int64_t(ab);
    one.B = static_cast<const char*>(call.B) + i * call.stride_b * int64_t(ab);
    one.C = static_cast<char*>(call.C) + i * call.stride_c * int64_t(c);
    if (Status s = launch(e, one, d, stream, i == 0 ? no_room : nullptr, nullptr, realign); !s.ok()) return s;
  }
  return {};
}

// Runs f, turning any exception into a status: none leaves the API.
template <class F>
Status guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return {StatusCode::kInternal, "tessel: out of host memory"};
  } catch (const std::exception& ex) {
    return {StatusCode::kInternal, std::string("tessel: ") + ex.what()};
  } catch (...) {
    return {StatusCode::kInternal, "tessel: unexpected exception"};
  }
}

// The tuning file's alignment class: A, B, C 16-byte aligned and their leading dimensions multiples of 16 bytes.
bool all_aligned(const GemmArgs& a) {
  const size_t ab = size_of(a.precision.ab);
  return impl::in_16_byte_units(a.A, a.lda, ab) && impl::in_16_byte_units(a.B, a.ldb, ab) &&
         impl::in_16_byte_units(a.C, a.ldc, size_of(a.precision.c));
}

// The auto-dispatch choice: a kernel the tuning file names for this exact
// call, if it can take it; otherwise, among the kernels of the latest ladder
// step that can take the arguments (each step is faster than the one before
// on large shapes), pick_by_blocks(); when those are persistent kernels,
// pick_persistent() among them, and for step 15 among step 14's too (stream-K
// shares k-slices only where that pays; step 14 has the other tile shapes).
// lean: only kernels that can run the call without scratch memory (the GPU had no room for it).
// realign: the operands copied with aligned rows for kernels that need them so (realign_for).
Status choose(const GemmArgs& a, const Device& d, const KernelEntry** chosen, bool lean = false, Realign realign = {}) {
  *chosen = nullptr;
  const auto fits = [&](const KernelEntry& e) {
    if (misfit(e, a, d.cc, realign) != kNone) return false;
    return !lean || !multiplies(a) ||
           lean_plan(make_plan(e, a, d.sms, realign), e, a, realign).workspace_bytes() == 0;
  };
  if (const KernelEntry* tuned = a.batch > 1 ? nullptr : find_entry(tuned_kernel(a, all_aligned(a)));
      tuned && tuned->info.auto_dispatch && fits(*tuned)) {
    *chosen = tuned;
    return {};
  }
  std::vector<const KernelEntry*> fitting;  // in registry order; each entry asked once
  for (const KernelEntry& e : registry()) {
    if (e.info.auto_dispatch && auto_candidate(e, a, d.sms) && fits(e)) fitting.push_back(&e);
  }
  // A strided batch: the kernels that run it in one launch, where any can.
  const auto one_launch = [&](const KernelEntry* e) { return runs_batch(*e, a); };
  const int64_t batch = std::any_of(fitting.begin(), fitting.end(), one_launch) ? a.batch : 1;
  if (batch > 1) fitting.erase(std::remove_if(fitting.begin(), fitting.end(), std::not_fn(one_launch)), fitting.end());
  int step = 0;
  for (const KernelEntry* e : fitting) step = std::max(step, e->info.ladder_step);
  std::vector<const KernelEntry*> candidates;
  for (const KernelEntry* e : fitting) {
    if (e->info.ladder_step == step) candidates.push_back(e);
  }
  const bool persistent = !candidates.empty() && std::all_of(candidates.begin(), candidates.end(),
                                                             [](const KernelEntry* e) { return e->persistent; });
  if (persistent && step == 15) {  // step 15's candidates and step 14's, in registry order
    candidates.clear();
    for (const KernelEntry* e : fitting) {
      const bool step_or_before = e->info.ladder_step == step || e->info.ladder_step == step - 1;
      if (step_or_before && e->persistent) candidates.push_back(e);
    }
  }
  // A grouped GEMM's estimate: its groups as equal (masked: as the expected rows, where given).
  const int64_t m = a.expected_group_rows > 0 ? a.expected_group_rows
                    : impl::grouped(a)       ? (a.m + a.batch - 1) / std::max<int64_t>(a.batch, 1)
                                             : a.m;
  const bool swap = persistent && swaps_operands(*candidates.front(), a);  // tf32: the same for every candidate
  *chosen = persistent ? pick_persistent(candidates, swap ? a.n : m, swap ? m : a.n, a.k, d.sms, batch)
                       : pick_by_blocks(candidates, m, a.n, a.k, d.sms, batch);
  if (*chosen == nullptr) {
    return {StatusCode::kNotSupported, "tessel: no registered kernel can take these arguments on this GPU"};
  }
  return {};
}

}  // namespace

namespace {

// The shared front of the entry points: validate, the empty call, the device;
// then `then(entry, device)` with the named kernel, or auto-dispatch's choice.
template <class F>
Status with_named(std::string_view kernel, const GemmArgs& args, F&& then) {
  const KernelEntry* e = find_entry(kernel);
  if (e == nullptr) {
    return {StatusCode::kUnknownKernel,
            "tessel: no kernel named '" + std::string(kernel) + "' (tessel::kernels() lists them)"};
  }
  if (Status s = validate(args); !s.ok()) return s;
  if (args.m == 0 || args.n == 0 || args.batch == 0) return {};
  Device d;
  if (Status s = current_device(&d); !s.ok()) return s;
  return then(e, d);
}

// Whether a call on `stream` can have scratch memory: the caller's workspace
// or allocator, or tessel's own buffers unless the stream is being captured.
bool scratch_available(const GemmArgs& a, cudaStream_t stream, const WorkspaceAllocator* allocate) {
  if (a.workspace != nullptr || (allocate && *allocate)) return true;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return capture == cudaStreamCaptureStatusNone;
}

// The front of the auto-dispatch entry points: then(entry, device, realign)
// with the chosen kernel and the operands copied for it. scratch(): whether
// the call can have scratch memory; where it cannot (a captured stream, no
// workspace), the choice is among the kernels that need none.
template <class Scratch, class F>
Status with_chosen(const GemmArgs& args, Scratch&& scratch, F&& then) {
  if (Status s = validate(args); !s.ok()) return s;
  if (args.m == 0 || args.n == 0 || args.batch == 0) return {};
  Device d;
  if (Status s = current_device(&d); !s.ok()) return s;
  const bool room = scratch();
  Realign realign = room ? realign_for(args) : Realign{};
  const KernelEntry* e = nullptr;
  const GemmArgs product = product_call(args);
  Status chosen = choose(product, d, &e, !room, realign);
  if (!chosen.ok() && !room) chosen = choose(product, d, &e);  // none does without: launch() says why
  if (!chosen.ok()) return chosen;
  const bool copies = realign.a || realign.b;
  if (copies && args.workspace != nullptr &&
      plan_call(*e, args, kernel_call(*e, args, d, realign), d.sms, realign).workspace_bytes() > args.workspace_bytes) {
    realign = {};  // the caller's workspace has no room for the copies: the kernels that need none
    if (Status s = choose(product, d, &e); !s.ok()) return s;
  }
  return then(e, d, realign);
}

// A call on the chosen kernel; where tessel's own scratch memory could not
// be had, once more on a kernel that needs none (with an allocator or a
// workspace, own memory is never asked for).
Status run_chosen(const KernelEntry* e, const GemmArgs& args, const Device& d, cudaStream_t stream,
                  const WorkspaceAllocator* allocate, Realign realign) {
  bool no_room = false;
  Status s = launch(*e, args, d, stream, &no_room, allocate, realign);
  if (no_room && choose(product_call(args), d, &e, true, realign).ok()) {
    s = launch(*e, args, d, stream, nullptr, nullptr, realign);
  }
  return s;
}

// The scratch memory entry e's plan for args needs.
Status plan_bytes(const KernelEntry* e, const GemmArgs& args, const Device& d, size_t* bytes, Realign realign = {}) {
  if (!multiplies(args)) return {};
  const GemmArgs product = kernel_call(*e, args, d, realign);
  if (Status s = can_run(*e, product, d.cc, realign); !s.ok()) return s;
  *bytes = plan_call(*e, args, product, d.sms, realign).workspace_bytes();
  return {};
}

}  // namespace

Status run_kernel(std::string_view kernel, const GemmArgs& args, cudaStream_t stream) {
  return run_kernel(kernel, args, stream, nullptr);
}

Status select_kernel(const GemmArgs& args, std::string* name) {
  return guarded([&]() -> Status {
    if (name == nullptr) return invalid("name is null: pass the std::string to receive the kernel's name");
    if (Status s = validate(args); !s.ok()) return s;  // an empty call too has a choice
    Device d;
    if (Status s = current_device(&d); !s.ok()) return s;
    const KernelEntry* e = nullptr;
    if (Status s = choose(product_call(args), d, &e, false, realign_for(args)); !s.ok()) return s;
    *name = e->info.name;
    return {};
  });
}

Status gemm(const GemmArgs& args, cudaStream_t stream) { return gemm(args, stream, nullptr); }

Status gemm(const GemmArgs& args, cudaStream_t stream, const WorkspaceAllocator& allocate) {
  return guarded([&] {
    return with_chosen(
        args, [&] { return scratch_available(args, stream, &allocate); },
        [&](const KernelEntry* e, const Device& d, Realign realign) {
          return run_chosen(e, args, d, stream, &allocate, realign);
        });
  });
}

Status run_kernel(std::string_view kernel, const GemmArgs& args, cudaStream_t stream,
                  const WorkspaceAllocator& allocate) {
  return guarded([&] {
    return with_named(kernel, args, [&](const KernelEntry* e, const Device& d) {
      return launch(*e, args, d, stream, nullptr, &allocate);
    });
  });
}

Status workspace_size(const GemmArgs& args, size_t* bytes) {
  return guarded([&]() -> Status {
    if (bytes == nullptr) return invalid("bytes is null: pass the size_t to receive the size");
    *bytes = 0;
    return with_chosen(
        args, [] { return true; },  // sized for a workspace the caller will pass
        [&](const KernelEntry* e, const Device& d, Realign realign) { return plan_bytes(e, args, d, bytes, realign); });
  });
}

Status workspace_size(std::string_view kernel, const GemmArgs& args, size_t* bytes) {
  return guarded([&]() -> Status {
    if (bytes == nullptr) return invalid("bytes is null: pass the size_t to receive the size");
    *bytes = 0;
    return with_named(kernel, args, [&](const KernelEntry* e, const Device& d) { return plan_bytes(e, args, d, bytes); });
  });
}

Status release_workspaces() {
  return guarded([&]() -> Status {
    if (cudaError_t err = impl::release_own_workspaces(); err != cudaSuccess) {
      return {StatusCode::kCudaError, "tessel: releasing scratch memory failed (" + cuda_message(err) + ")"};
    }
    return {};
  });
}

Status run_kernel(std::string_view kernel, const SgemmArgs& args, cudaStream_t stream) {
  return run_kernel(kernel, to_gemm(args), stream);
}

Status select_kernel(const SgemmArgs& args, std::string* name) { return select_kernel(to_gemm(args), name); }

Status sgemm(const SgemmArgs& args, cudaStream_t stream) { return gemm(to_gemm(args), stream); }

Status sgemm(Op opA, Op opB, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
             const float* B, int64_t ldb, float beta, float* C, int64_t ldc, cudaStream_t stream) {
  return sgemm(SgemmArgs{opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc}, stream);
}

}  // namespace tessel
