// tessel — GEMM kernels for NVIDIA GPUs, callable like cuBLAS.
//
// All matrices are ROW-MAJOR: element (i, j) of a matrix X with leading
// dimension ldx is X[i * ldx + j]. The library computes, in place in C,
//
//     C = alpha * op(A) * op(B) + beta * C,      op(X) = X or X^T,
//
// with op(A) of size m x k, op(B) of size k x n and C of size m x n.
//
// Column-major callers (cuBLAS/Fortran convention): a column-major matrix is
// the row-major transpose of itself, so a column-major product
// C = op(A) op(B) is the row-major product C^T = op(B)^T op(A)^T. Swap the
// operands and the sizes and keep the ops:
//
//     cublas: gemm(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
//     tessel: sgemm(opB, opA, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc)
//
// Sizes are 64-bit. m, n or k == 0 behave as in BLAS (k == 0 or alpha == 0
// gives C = beta * C). beta == 0 never reads C, so C may hold NaN.
// Every call validates its arguments and returns a Status naming the
// offending argument; nothing is launched when the status is not ok.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel {

enum class Op { N, T };  // op(X) = X, or op(X) = X^T

enum class StatusCode {
  kSuccess = 0,
  kInvalidArgument,  // a size, leading dimension, pointer or op is not legal
  kUnknownKernel,    // no registered kernel has the name asked for
  kNotSupported,     // the kernel or the GPU cannot take these arguments
  kNoDevice,         // no CUDA GPU is visible
  kCudaError,        // the CUDA runtime reported an error
  kInternal,         // a host-side failure inside tessel (e.g. out of host memory); the message says what
};

class Status {
 public:
  Status() = default;  // success
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == StatusCode::kSuccess; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kSuccess;
  std::string message_;
};

const char* to_string(StatusCode code);

// Storage types of matrices. kE4M3 / kE5M2: the OCP FP8 formats (torch's
// float8_e4m3fn and float8_e5m2), for A and B only.
enum class DType { kF32, kF16, kBF16, kE4M3, kE5M2 };
const char* to_string(DType dtype);  // "f32", "f16", "bf16", "e4m3", "e5m2"
size_t size_of(DType dtype);         // bytes per element

// How products are formed. Accumulation is always FP32.
//   kF32:  FP32 inputs multiplied in FP32 (CUDA cores): FP32 means FP32.
//          16-bit inputs: their products are exact in FP32, so this is also
//          the mode for FP16/BF16 (tensor cores with FP32 accumulation).
//   kTF32: FP32 inputs rounded to TF32 (10-bit mantissa, round to nearest)
//          and multiplied on tensor cores. Only asked for explicitly.
enum class Compute { kF32, kTF32 };

// The type combination of a call. The combinations tessel has kernels for:
//   A/B f32,  C f32,  kF32    (SIMT ladder; sgemm)
//   A/B f32,  C f32,  kTF32   (tensor cores)
//   A/B f16,  C f16 or f32, kF32
//   A/B bf16, C bf16 or f32, kF32
//   A/B e4m3 or e5m2, C bf16, f16 or f32, kF32 (Hopper tensor cores;
//        partial sums promoted to FP32 registers every 128 of k); A and B
//        of the same FP8 type, or one of each (e4m3 x e5m2, e5m2 x e4m3)
struct Precision {
  DType ab = DType::kF32;  // A, and B unless b says otherwise
  DType c = DType::kF32;   // C, read (beta != 0) and written
  Compute compute = Compute::kF32;
  std::optional<DType> b = std::nullopt;  // B where it is not ab's type (FP8 only: the other FP8 type)
  DType b_type() const { return b.value_or(ab); }
  bool operator==(const Precision& o) const {
    return ab == o.ab && c == o.c && compute == o.compute && b_type() == o.b_type();
  }
  bool operator!=(const Precision& o) const { return !(*this == o); }
};
// "f32", "tf32", "f16", "bf16", "f16:f32" / "bf16:f32" for 16-bit inputs with FP32 C,
// "e4m3:bf16", "e4m3:f16", "e4m3:f32" (the same with e5m2) for FP8 inputs, and
// "e4m3xe5m2:bf16", ..., "e5m2xe4m3:f32" for A of one FP8 type and B of the other.
std::string to_string(const Precision& p);
// Parses the names to_string gives; std::nullopt for anything else.
std::optional<Precision> parse_precision(std::string_view text);
bool supported(const Precision& p);  // one of the combinations above
// Those combinations, in the order above.
const std::vector<Precision>& supported_precisions();
std::string supported_precision_names();  // "f32, tf32, f16, f16:f32, bf16, bf16:f32, e4m3:bf16, ..."
bool is_fp8(DType dtype);

// What follows the product, in FP32, before the one rounding to C's type:
//   D(i, j) = act(row_scale[i] * col_scale[j] * alpha * sum_k op(A)(i, k) op(B)(k, j)
//                 + beta * C(i, j) + bias)
// bias: bias[j] (one per column: nn.Linear's), or bias[i] with bias_per_row;
// act: the activation; absent scales are 1. Every pointer is device memory
// of the call's GPU, read on the stream (values may change between calls
// without a host sync). pre_activation, if set, also receives act's input,
// rounded to C's type, m x n with leading dimension ld_pre (a training
// step's backward pass reads it).
enum class Activation { kNone, kRelu, kGelu, kGeluTanh, kSilu };
const char* to_string(Activation act);  // "none", "relu", "gelu", "gelu_tanh", "silu"
struct Epilogue {
  const void* bias = nullptr;       // C's element type; n values (m with bias_per_row)
  bool bias_per_row = false;
  Activation activation = Activation::kNone;
  const float* row_scale = nullptr;  // m values
  const float* col_scale = nullptr;  // n values
  void* pre_activation = nullptr;    // C's element type
  int64_t ld_pre = 0;
  // Whether it does anything beyond alpha and beta.
  bool any() const {
    return bias || activation != Activation::kNone || row_scale || col_scale || pre_activation;
  }
};

// FP8 block scales (instead of the per-tensor scales): one FP32 scale per row
// of op(A) and 128 of k (1 x 128 blocks), and for op(B) one per 128 x 128
// block (128 of k by 128 columns: DeepSeek-V3's layout) or, with
// b_block_n = 1, one per column and 128 of k (1 x 128 blocks on both sides:
// the weight-gradient form, whose k runs over tokens). Block kb covers k =
// 128 kb .. 128 kb + 127. Scale (i, kb) of A is a[i * a_stride_m + kb *
// a_stride_k], scale (jb, kb) of B (columns b_block_n jb ..) is
// b[jb * b_stride_n + kb * b_stride_k]: row- or column-major scale tensors
// are read as they are. Device memory, read on the stream. Each 128-deep
// slice's FP32 partial sums are multiplied by their scales as they are promoted.
struct Fp8BlockScales {
  const float* a = nullptr;
  int64_t a_stride_m = 0, a_stride_k = 0;
  const float* b = nullptr;
  int64_t b_stride_n = 0, b_stride_k = 0;
  int64_t b_block_n = 128;  // columns of op(B) a scale covers: 128 or 1
  bool any() const { return a != nullptr || b != nullptr; }
};

// One GEMM of a grouped call with sizes of its own (GemmArgs::problems):
// C = alpha op(A) op(B) + beta C with op(A) m x k, op(B) k x n, each matrix
// at its pointer with its leading dimension, as in a call of its own.
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  const void* A = nullptr;
  int64_t lda = 1;
  const void* B = nullptr;
  int64_t ldb = 1;
  void* C = nullptr;
  int64_t ldc = 1;
};

// Everything one GEMM call needs, as in the positional signature below.
struct SgemmArgs {
  Op opA = Op::N, opB = Op::N;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* A = nullptr;
  int64_t lda = 1;
  const float* B = nullptr;
  int64_t ldb = 1;
  float beta = 0.0f;
  float* C = nullptr;
  int64_t ldc = 1;
};

// A GEMM of any supported precision: the same arguments as SgemmArgs with
// untyped pointers whose element types `precision` names. alpha and beta
// are FP32 for every precision; the epilogue runs in FP32 and rounds once.
struct GemmArgs {
  Op opA = Op::N, opB = Op::N;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const void* A = nullptr;
  int64_t lda = 1;
  const void* B = nullptr;
  int64_t ldb = 1;
  float beta = 0.0f;
  void* C = nullptr;
  int64_t ldc = 1;
  Precision precision;
  // Scratch memory the caller owns (device memory on the current GPU, any
  // alignment), at least workspace_size() bytes, not used by other work while
  // the call runs. Given, a call never allocates and may be captured into a
  // CUDA graph and replayed on any stream. Null: tessel's own buffers, which a
  // call being captured cannot use (it returns kNotSupported instead).
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  // Split-k parts may add into C with atomics where that is faster (small
  // outputs): the order of the additions, and so the last bits of C, can then
  // change from run to run. Off: every result is bitwise reproducible.
  bool allow_atomics = false;
  // FP8 dequantisation scales, one per tensor (FP8 inputs only): the product
  // is multiplied by *scale_a * *scale_b in FP32 before alpha. Device memory,
  // read on the stream, so they may change between calls (or graph replays)
  // without a host sync. Null: 1. Per-channel scales (a row of A, a column
  // of B) are the epilogue's row_scale and col_scale.
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  // FP8 block scales instead (both set, or neither; not with scale_a, scale_b).
  Fp8BlockScales block_scales = {};
  // Bias, activation and output scales (none by default). The Hopper
  // tensor-core kernels for 16-bit inputs (steps 14, 15) apply them to their
  // accumulators where C is 16-bit, beta = 0, the terms are per column (no
  // row terms, no pre-activation output) and the call is not split along k;
  // otherwise the FP32 product goes through a workspace buffer
  // (workspace_size counts its m x n values) and a second pass applies them.
  Epilogue epilogue = {};
  // A strided batch: `batch` GEMMs of these sizes, ops and leading
  // dimensions, the i-th reading A + i * stride_a and B + i * stride_b and
  // writing C + i * stride_c (strides in elements; stride_a or stride_b 0
  // shares that operand among all). The C matrices must not overlap: stacked
  // (stride_c >= (m - 1) * ldc + n) or side by side in each row (stride_c >=
  // n, (batch - 1) * stride_c + n <= ldc). Scales, block scales and the
  // epilogue's vectors are the same for every GEMM. batch = 0: nothing to do.
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  // A pointer-array batch (cuBLAS's gemmBatched): with a_array, b_array and
  // c_array set instead of A, B and C, GEMM i of the batch reads a_array[i]
  // and b_array[i] and writes c_array[i], each with the call's sizes, ops
  // and leading dimensions. `batch` pointers each, in device memory, read on
  // the stream (they may change between graph replays without a host sync);
  // every pointer must address device memory aligned to its elements, and
  // the C matrices must not overlap (tessel cannot check what lives on the
  // device). Strides stay 0; no epilogue, no FP8 block scales.
  const void* const* a_array = nullptr;
  const void* const* b_array = nullptr;
  void* const* c_array = nullptr;
  // A grouped GEMM (a mixture-of-experts layer, its tokens sorted by
  // expert): with group_offsets set, `batch` groups of rows of one A (op N,
  // m rows in all) and one C; group g is rows group_offsets[g] ..
  // group_offsets[g + 1] - 1 of both, multiplied by the g-th B (B + g *
  // stride_b; 0 shares one). batch + 1 non-decreasing values in device
  // memory, read on the stream (values outside 0..m are clamped): the counts
  // need no host sync and a call can be captured into a CUDA graph. Groups
  // need no padding to a tile. stride_a and stride_c stay 0. (With k = 0 or
  // alpha = 0 the groups' rows of C are scaled by beta.)
  const int64_t* group_offsets = nullptr;
  // A masked grouped GEMM (decode through experts of a fixed capacity):
  // with group_counts set instead, `batch` groups each own capacity = m /
  // batch consecutive rows of A and C (m a multiple of batch), and group g
  // multiplies its first group_counts[g] rows (batch values in device
  // memory, clamped to 0..capacity) by the g-th B; its other rows of C are
  // not written. Otherwise as group_offsets. expected_group_rows: how many
  // rows a group is expected to compute, for the choice of tile only (0: the
  // capacity); the counts decide what is computed, whatever it says.
  const int64_t* group_counts = nullptr;
  int64_t expected_group_rows = 0;
  // A grouped GEMM of problems with sizes of their own (cuBLAS's grouped
  // GEMM, its sizes on the device): with problems set, `batch` GemmProblem
  // values in device memory, read on the stream, each multiplied with the
  // call's ops, alpha, beta and precision. The call's m, n and k bound them:
  // a problem's sizes are clamped to 0..m, 0..n, 0..k (the tiles are chosen
  // for the bounds), and its leading dimensions must hold its rows. A, B, C,
  // strides and the other batch forms stay unset; lda, ldb, ldc are not read.
  // No epilogue, no FP8 block scales. A problem whose A or B (pointer or
  // leading dimension) is not in 16-byte units is multiplied by a slow path.
  const GemmProblem* problems = nullptr;
};
GemmArgs to_gemm(const SgemmArgs& args);  // the same call as a GemmArgs (f32, kF32)

// What the registry knows of a kernel. The ladder is part of the product:
// every registered kernel can be listed and run by name.
struct KernelInfo {
  std::string name;          // e.g. "smem"; what run_kernel() and the CLI take
  int ladder_step = 0;       // position in the optimisation ladder (1 = naive)
  std::string summary;       // one line: what this step does
  std::vector<Precision> precisions{Precision{}};  // the type combinations it takes
  int min_compute_capability = 0;  // e.g. 80 for sm_80
  int alignment = 1;         // A, B (pointers and lda, ldb) must be aligned to this many elements
  int c_alignment = 1;       // the same for C and ldc
  std::string constraints;   // shapes/layouts it accepts, in words
  int tile_m = 0, tile_n = 0;  // the block's tile of C
  bool split_k = false;      // splits k across blocks; their parts are summed in order (or,
                             // with GemmArgs::allow_atomics, may add into C atomically)
  int max_compute_capability = 0;  // 0: none; 90 for sm_90a code (wgmma), which runs on 9.0 only
  int max_m = 0;             // 0: any m; else the most rows of C it takes (the small-m kernels)
  bool auto_dispatch = true; // whether auto-dispatch and `tessel tune` consider it (else: by name only)
  bool fp8_block_scales = false;  // takes GemmArgs::block_scales (FP8 tiles 128 or 256 columns wide)
  bool fp8_column_scales = false;  // and B's scales per column (b_block_n = 1; FP8 tiles 128 wide)
  bool batched = false;      // runs a strided batch (GemmArgs::batch) in one launch; the others
                             // run one launch per GEMM of the batch
  bool grouped = false;      // takes a grouped GEMM (GemmArgs::group_offsets, group_counts or problems)
  bool pointer_array = false;  // takes a pointer-array batch (GemmArgs::a_array, b_array, c_array)

  // Whether precisions lists p.
  bool takes(const Precision& p) const {
    return std::find(precisions.begin(), precisions.end(), p) != precisions.end();
  }
  // Whether its device code runs on a GPU of compute capability cc (10 * major + minor).
  bool runs_on(int cc) const {
    return cc >= min_compute_capability && (max_compute_capability == 0 || cc <= max_compute_capability);
  }
};

// All registered kernels, in ladder order.
std::vector<KernelInfo> kernels();
std::optional<KernelInfo> find_kernel(std::string_view name);

// Auto-dispatch: the fastest registered kernel that can take the arguments.
Status sgemm(Op opA, Op opB, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
             int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
             cudaStream_t stream = nullptr);
Status sgemm(const SgemmArgs& args, cudaStream_t stream = nullptr);

// Any supported precision (see Precision). Auto-dispatch among the kernels
// that take args.precision; FP32 with Compute::kF32 is exactly sgemm().
Status gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

// The call with its scratch memory (if it needs any) from the caller's
// allocator, asked once with the bytes the chosen plan needs: a framework's
// caching allocator (PyTorch, CuPy) then serves it, the kernel is chosen
// once, and the call is safe to capture into a CUDA graph. GemmArgs::workspace,
// where set, is used instead. An allocator's failure is the call's status.
using WorkspaceAllocator = std::function<Status(size_t bytes, void** workspace)>;
Status gemm(const GemmArgs& args, cudaStream_t stream, const WorkspaceAllocator& allocate);
Status run_kernel(std::string_view kernel, const GemmArgs& args, cudaStream_t stream,
                  const WorkspaceAllocator& allocate);

// The scratch memory a call needs (0 for most): what auto-dispatch would run,
// or the named kernel. Pass at least that much as GemmArgs::workspace to
// capture the call into a CUDA graph.
Status workspace_size(const GemmArgs& args, size_t* bytes);
Status workspace_size(std::string_view kernel, const GemmArgs& args, size_t* bytes);

// Frees tessel's own scratch buffers on every GPU, after waiting for the work
// that may use them (a device synchronisation per GPU that has any): for
// thread pools and short-lived streams. Later calls allocate again.
Status release_workspaces();

// The kernel auto-dispatch would run for these arguments (after validation).
Status select_kernel(const SgemmArgs& args, std::string* name);
Status select_kernel(const GemmArgs& args, std::string* name);

// Tuning. `tessel tune` times the fastest step's configurations on this GPU
// for given shapes and stores each shape's winner in a small text file;
// auto-dispatch reads it at first use and takes the stored kernel for an
// exactly matching call (sizes, ops, precision, and whether A, B, C and their
// leading dimensions are 16-byte aligned), and built-in heuristics otherwise.
// The file: $TESSEL_TUNE_FILE if set, else
// ${XDG_CACHE_HOME:-$HOME/.cache}/tessel/<GPU name>.tune.
struct TunedChoice {
  int64_t m = 0, n = 0, k = 0;
  Op opA = Op::N, opB = Op::N;
  bool aligned = true;  // the 16-byte class of the call
  std::string kernel;
  Precision precision;  // of the call (a file line without one: f32)
};
std::string tuning_file_path();  // empty when no GPU is visible
std::vector<TunedChoice> read_tuning(const std::string& path);  // missing, not a regular file or over 16 MiB: empty; bad lines skipped
Status write_tuning(const std::string& path, const std::vector<TunedChoice>& choices);  // creates folders
void reload_tuning();  // forget what was read; the next auto-dispatch reads the file again

// Runs one named kernel. Returns kUnknownKernel for an unknown name and
// kNotSupported (with the reason) when that kernel cannot take the arguments.
Status run_kernel(std::string_view kernel, const SgemmArgs& args, cudaStream_t stream = nullptr);
Status run_kernel(std::string_view kernel, const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace tessel
