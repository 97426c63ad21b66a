// tessel's Python extension: the C++ API on any array that speaks DLPack
// (CuPy, JAX, NumPy for the checks), and on torch tensors described by
// pointer, sizes and strides (a DLPack capsule per array costs microseconds
// a call). The op and leading dimension of each operand come from its
// strides, so a transposed view costs no copy. Everything else (allocating
// `out`, streams, torch ops) is Python.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>

#include <tessel/tessel.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace nb = nanobind;

namespace {

using Array = nb::ndarray<nb::ndim<2>>;

// One matrix as tessel takes it: a row-major array and whether it is the
// transpose of the operand (a column-major view).
struct Stored {
  const void* data = nullptr;
  int64_t ld = 1;
  bool transposed = false;
  tessel::DType dtype = tessel::DType::kF32;
};

// A 2-D operand as the extension reads it: from a DLPack array, or from the
// pointer, sizes, strides (elements) and dtype name a torch tensor hands over
// directly (no DLPack capsule per call).
struct Matrix {
  const void* data = nullptr;
  int64_t rows = 0, cols = 0, s0 = 0, s1 = 0;
  tessel::DType dtype = tessel::DType::kF32;
};
using Described = std::tuple<uintptr_t, int64_t, int64_t, int64_t, int64_t, std::string>;

tessel::DType dtype_of(const Array& x, const char* name) {
  const nb::dlpack::dtype t = x.dtype();
  if (t == nb::dtype<float>()) return tessel::DType::kF32;
  if (t.code == uint8_t(nb::dlpack::dtype_code::Float) && t.bits == 16 && t.lanes == 1) return tessel::DType::kF16;
  if (t.code == uint8_t(nb::dlpack::dtype_code::Bfloat) && t.bits == 16 && t.lanes == 1) return tessel::DType::kBF16;
  throw nb::type_error((std::string(name) + ": tessel takes float32, float16 and bfloat16 arrays").c_str());
}

Matrix matrix(const Array& x, const char* name) {
  return {x.data(), int64_t(x.shape(0)), int64_t(x.shape(1)), int64_t(x.stride(0)), int64_t(x.stride(1)),
          dtype_of(x, name)};
}

Matrix matrix(const Described& d, const char* name) {
  const auto& [data, rows, cols, s0, s1, dtype] = d;
  if (rows < 0 || cols < 0) throw nb::value_error((std::string(name) + ": negative size").c_str());
  for (tessel::DType t : {tessel::DType::kF32, tessel::DType::kF16, tessel::DType::kBF16, tessel::DType::kE4M3,
                          tessel::DType::kE5M2}) {
    if (dtype == tessel::to_string(t)) return {reinterpret_cast<const void*>(data), rows, cols, s0, s1, t};
  }
  throw nb::type_error(
      (std::string(name) + ": tessel takes float32, float16, bfloat16 and float8 (e4m3, e5m2) tensors").c_str());
}

// Row-major (unit stride along columns) is op N; column-major is the
// row-major transpose, op T. A dimension of size 1 takes any stride: a
// single row's leading dimension is its length rounded up to 16 bytes, and a
// contiguous column reads as one such row of op T, not as rows of one element
// (rows not in 16-byte units would cost the kernels their vector loads).
// `prefer`: the layout taken where both fit (a vector or an empty matrix), as matmul_list's problems share one.
bool fits_row_major(const Matrix& x) {
  return (x.cols <= 1 || x.s1 == 1) && (x.rows <= 1 || x.s0 >= std::max<int64_t>(x.cols, 1));
}
bool fits_col_major(const Matrix& x) {
  return (x.rows <= 1 || x.s0 == 1) && (x.cols <= 1 || x.s1 >= std::max<int64_t>(x.rows, 1));
}
Stored stored(const Matrix& x, const char* name, std::optional<bool> prefer_transposed = std::nullopt) {
  const int64_t rows = x.rows, cols = x.cols, s0 = x.s0, s1 = x.s1;
  Stored s;
  s.data = x.data;
  s.dtype = x.dtype;
  const int64_t unit = std::max<int64_t>(1, 16 / int64_t(tessel::size_of(x.dtype)));
  const auto one_row = [unit](int64_t length) { return (std::max<int64_t>(length, 1) + unit - 1) / unit * unit; };
  const bool row_major = fits_row_major(x), col_major = fits_col_major(x);
  const bool column = rows > 1 && cols <= 1 && s0 == 1;
  const bool as_rows = row_major && col_major && prefer_transposed ? !*prefer_transposed : row_major && !column;
  if (as_rows) {
    s.ld = rows <= 1 ? one_row(cols) : s0;
  } else if (col_major) {
    s.ld = cols <= 1 ? one_row(rows) : s1, s.transposed = true;
  } else {
    throw nb::value_error((std::string(name) + ": strides (" + std::to_string(s0) + ", " + std::to_string(s1) +
                           ") are neither row- nor column-major; pass a contiguous copy")
                              .c_str());
  }
  return s;
}

void check(const tessel::Status& s) {
  if (s.ok()) return;
  if (s.code() == tessel::StatusCode::kInvalidArgument) throw nb::value_error(s.message().c_str());
  throw std::runtime_error(s.message());
}

// The call out = alpha * a @ b + beta * out as tessel's row-major GemmArgs.
// A column-major out is the transpose of a row-major one: out^T = b^T a^T.
tessel::GemmArgs make_args(const Matrix& a, const Matrix& b, const Matrix& out, float alpha, float beta,
                           const std::string& precision, const std::array<std::optional<bool>, 3>& prefer = {}) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (b.rows != k) {
    throw nb::value_error(("a is " + std::to_string(m) + " x " + std::to_string(k) + " but b is " +
                           std::to_string(b.rows) + " x " + std::to_string(n) + ": the inner sizes differ")
                              .c_str());
  }
  if (out.rows != m || out.cols != n) {
    throw nb::value_error(("out is " + std::to_string(out.rows) + " x " + std::to_string(out.cols) +
                           " but a @ b is " + std::to_string(m) + " x " + std::to_string(n))
                              .c_str());
  }
  Stored sa = stored(a, "a", prefer[0]), sb = stored(b, "b", prefer[1]), sc = stored(out, "out", prefer[2]);
  if (sa.dtype != sb.dtype && !(tessel::is_fp8(sa.dtype) && tessel::is_fp8(sb.dtype))) {
    throw nb::type_error("a and b must have the same dtype (or each an FP8 one)");
  }
  const std::optional<tessel::Precision> p = tessel::parse_precision(precision);
  if (!p) throw nb::value_error(("precision '" + precision + "' is not one of " + tessel::supported_precision_names()).c_str());
  if (p->ab != sa.dtype || p->b_type() != sb.dtype || p->c != sc.dtype) {
    throw nb::type_error(("precision " + precision + " takes A " + tessel::to_string(p->ab) + ", B " +
                          tessel::to_string(p->b_type()) + " and C " + tessel::to_string(p->c) + ", not " +
                          tessel::to_string(sa.dtype) + ", " + tessel::to_string(sb.dtype) + " and " +
                          tessel::to_string(sc.dtype))
                             .c_str());
  }
  tessel::GemmArgs g;
  g.precision = *p, g.alpha = alpha, g.beta = beta, g.k = k;
  if (sc.transposed && sa.dtype != sb.dtype) g.precision.ab = sb.dtype, g.precision.b = sa.dtype;  // b^T a^T
  if (!sc.transposed) {
    g.m = m, g.n = n;
    g.A = sa.data, g.lda = sa.ld, g.opA = sa.transposed ? tessel::Op::T : tessel::Op::N;
    g.B = sb.data, g.ldb = sb.ld, g.opB = sb.transposed ? tessel::Op::T : tessel::Op::N;
  } else {  // out^T (n x m, row-major) = b^T a^T
    g.m = n, g.n = m;
    g.A = sb.data, g.lda = sb.ld, g.opA = sb.transposed ? tessel::Op::N : tessel::Op::T;
    g.B = sa.data, g.ldb = sa.ld, g.opB = sa.transposed ? tessel::Op::N : tessel::Op::T;
  }
  g.C = const_cast<void*>(sc.data), g.ldc = sc.ld;
  return g;
}

tessel::Activation parse_activation(const std::string& name) {
  for (tessel::Activation act : {tessel::Activation::kNone, tessel::Activation::kRelu, tessel::Activation::kGelu,
                                 tessel::Activation::kGeluTanh, tessel::Activation::kSilu}) {
    if (name == tessel::to_string(act)) return act;
  }
  throw nb::value_error(("activation '" + name + "' is not one of none, relu, gelu, gelu_tanh, silu").c_str());
}

// Runs on the arrays' GPU (the current device while the call is made).
class OnDevice {
 public:
  explicit OnDevice(const Array& x) : OnDevice(x.device_type() == nb::device::cuda::value ? int(x.device_id()) : -1) {}
  explicit OnDevice(int device) {
    if (device < 0) throw nb::value_error("the arrays must be on a CUDA GPU (this one is in host memory)");
    cudaGetDevice(&previous_);
    if (device != previous_) cudaSetDevice(device), restore_ = true;
  }
  ~OnDevice() {
    if (restore_) cudaSetDevice(previous_);
  }

 private:
  int previous_ = 0;
  bool restore_ = false;
};

// Whether array x is on CUDA device `device`.
bool on_gpu(const nb::ndarray<>& x, int device) {
  return x.device_type() == nb::device::cuda::value && int(x.device_id()) == device;
}

// Whether work enqueued on `stream` now would be captured into a graph (a
// failed query counts as captured: the caller's allocator is then asked).
bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess) return status != cudaStreamCaptureStatusNone;
  cudaGetLastError();
  return true;
}

// The call, with scratch memory from `workspace`, or, where the call needs
// some and the stream is being captured, from allocate(bytes) (asked by
// tessel once it has chosen the kernel): a graph then owns its memory.
// Outside a capture tessel's own buffers serve, kept per stream with their
// flags at zero, so a call neither allocates nor clears scratch memory.
// The GIL is released while tessel plans and enqueues.
void run(tessel::GemmArgs g, const std::string& kernel, uintptr_t stream, std::optional<nb::ndarray<>> workspace,
         const std::optional<nb::callable>& allocate, int device) {
  const bool named = !kernel.empty() && kernel != "auto";
  if (workspace) {
    if (!on_gpu(*workspace, device)) throw nb::value_error("the workspace must be on the arrays' GPU");
    g.workspace = workspace->data(), g.workspace_bytes = workspace->nbytes();
  }
  nb::object keep;  // the allocated workspace, alive until the call is enqueued (released with the GIL held)
  const tessel::WorkspaceAllocator from_python = [&](size_t bytes, void** out) -> tessel::Status {
    try {
      keep = (*allocate)(bytes);
      const auto array = nb::cast<nb::ndarray<>>(keep);
      if (!on_gpu(array, device) || array.nbytes() < bytes) {
        return {tessel::StatusCode::kInvalidArgument, "tessel: allocate() must return >= " + std::to_string(bytes) +
                                                          " bytes on the arrays' GPU"};
      }
      *out = array.data();
      return {};
    } catch (const std::exception& e) {
      return {tessel::StatusCode::kInternal, std::string("tessel: allocate() failed: ") + e.what()};
    }
  };
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  tessel::Status status;
  if (allocate && !workspace && capturing(s)) {  // the GIL kept: the allocator may be called (enqueueing does not block)
    status = named ? tessel::run_kernel(kernel, g, s, from_python) : tessel::gemm(g, s, from_python);
  } else {
    nb::gil_scoped_release unlocked;
    status = named ? tessel::run_kernel(kernel, g, s) : tessel::gemm(g, s);
  }
  check(status);
}

template <class X, class Y>
void same_device(const X& x, const Y& y, const char* what) {
  if (x.device_type() != y.device_type() || x.device_id() != y.device_id()) {
    throw nb::value_error((std::string(what) + " are on different devices").c_str());
  }
}

}  // namespace

NB_MODULE(_tessel, m) {
  m.doc() = "tessel's C++ API on DLPack arrays (use the tessel package, not this module)";

  m.def(
      "gemm",
      [](const Array& a, const Array& b, const Array& out, float alpha, float beta, const std::string& precision,
         const std::string& kernel, uintptr_t stream, std::optional<nb::ndarray<>> workspace,
         std::optional<nb::callable> allocate) {
        const tessel::GemmArgs g = make_args(matrix(a, "a"), matrix(b, "b"), matrix(out, "out"), alpha, beta, precision);
        same_device(a, b, "a and b"), same_device(a, out, "a and out");
        OnDevice on(a);
        run(g, kernel, stream, std::move(workspace), allocate, int(a.device_id()));
      },
      nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("alpha"), nb::arg("beta"), nb::arg("precision"),
      nb::arg("kernel"), nb::arg("stream"), nb::arg("workspace").none() = nb::none(),
      nb::arg("allocate").none() = nb::none(),
      "out = alpha * a @ b + beta * out, in place, enqueued on `stream`; scratch memory from `workspace`, "
      "or from allocate(bytes) (an array of at least that many bytes on a's device) when the call needs any");

  m.def(
      "gemm_described",
      [](const Described& a, const Described& b, const Described& out, int device, float alpha, float beta,
         const std::string& precision, const std::string& kernel, uintptr_t stream,
         std::optional<nb::callable> allocate, uintptr_t bias, const std::string& activation, uintptr_t pre,
         uintptr_t scale_a, uintptr_t scale_b, std::optional<std::tuple<uintptr_t, int64_t, int64_t>> block_a,
         std::optional<std::tuple<uintptr_t, int64_t, int64_t, int64_t>> block_b,
         std::optional<std::tuple<int64_t, int64_t, int64_t, int64_t>> batch, uintptr_t group_offsets,
         uintptr_t group_counts, int64_t expected_group_rows) {
        const Matrix c = matrix(out, "out");
        tessel::GemmArgs g = make_args(matrix(a, "a"), matrix(b, "b"), c, alpha, beta, precision);
        // out stored column-major is computed as out^T = b^T a^T: the operands, and so their scales, swap.
        const bool swapped = stored(c, "out").transposed;
        g.scale_a = reinterpret_cast<const float*>(swapped ? scale_b : scale_a);
        g.scale_b = reinterpret_cast<const float*>(swapped ? scale_a : scale_b);
        if (batch) {  // (count, stride of a, of b, of out), elements
          const auto& [count, sa, sb, sc] = *batch;
          g.batch = count, g.stride_a = swapped ? sb : sa, g.stride_b = swapped ? sa : sb, g.stride_c = sc;
        }
        if (group_offsets != 0 || group_counts != 0) {  // groups of out's rows: out^T's columns would not be rows
          if (swapped) throw nb::value_error("a grouped matmul needs a row-major out");
          g.group_offsets = reinterpret_cast<const int64_t*>(group_offsets);
          g.group_counts = reinterpret_cast<const int64_t*>(group_counts);
          g.expected_group_rows = expected_group_rows;
        }
        if (block_a || block_b) {
          if (!block_a || !block_b) throw nb::value_error("block scales need both block_a and block_b");
          if (swapped) throw nb::value_error("block scales need a row-major out (1x128 blocks are A's)");
          const auto& [pa, sam, sak] = *block_a;
          const auto& [pb, sbn, sbk, columns] = *block_b;
          g.block_scales = {reinterpret_cast<const float*>(pa), sam, sak, reinterpret_cast<const float*>(pb), sbn, sbk,
                            columns};
        }
        g.epilogue.activation = parse_activation(activation);
        g.epilogue.bias = reinterpret_cast<const void*>(bias);
        g.epilogue.bias_per_row = stored(c, "out").transposed;  // out stored column-major: the call computes out^T
        if (pre != 0) g.epilogue.pre_activation = reinterpret_cast<void*>(pre), g.epilogue.ld_pre = g.ldc;
        OnDevice on(device);
        run(g, kernel, stream, std::nullopt, allocate, device);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("device"), nb::arg("alpha"), nb::arg("beta"),
      nb::arg("precision"), nb::arg("kernel"), nb::arg("stream"), nb::arg("allocate").none() = nb::none(),
      nb::arg("bias") = 0, nb::arg("activation") = "none", nb::arg("pre") = 0, nb::arg("scale_a") = 0,
      nb::arg("scale_b") = 0, nb::arg("block_a").none() = nb::none(), nb::arg("block_b").none() = nb::none(),
      nb::arg("batch").none() = nb::none(), nb::arg("group_offsets") = 0, nb::arg("group_counts") = 0,
      nb::arg("expected_group_rows") = 0,
      "gemm on operands given as (pointer, rows, cols, row stride, column stride, dtype name), all on CUDA "
      "device `device` (the caller checks that): torch's path, without a DLPack capsule per array. bias: "
      "a pointer to one value per column of out in out's dtype (0: none); activation: none, relu, gelu, "
      "gelu_tanh or silu; both applied in FP32 before the one rounding to out's dtype; pre: a pointer to an "
      "array with out's shape, dtype and strides that receives the activation's input (0: none); scale_a, "
      "scale_b: pointers to FP8 per-tensor scales, one float32 each (0: none); block_a, block_b: FP8 block "
      "scales as (pointer, stride along m or n blocks, stride along k blocks), float32, block_b with the columns "
      "each scale covers last, 128 or 1 (tessel::Fp8BlockScales); "
      "batch: (count, stride of a, of b, of out) in elements, a strided batch whose first matrices a, b and out "
      "describe (tessel::GemmArgs::batch; stride 0 shares an operand); group_offsets: a pointer to batch + 1 "
      "int64 row offsets of a grouped GEMM (tessel::GemmArgs::group_offsets; 0: none); group_counts: a pointer to "
      "batch int64 row counts of a masked grouped GEMM, a and out holding batch groups of rows "
      "(tessel::GemmArgs::group_counts; 0: none), expected_group_rows its hint for the tile");

  m.def(
      "gemm_problems",
      [](const std::vector<Described>& a, const std::vector<Described>& b, const std::vector<Described>& out,
         uintptr_t problems, int device, float alpha, float beta, const std::string& precision,
         const std::string& kernel, uintptr_t stream, std::optional<nb::callable> allocate) {
        if (b.size() != a.size() || out.size() != a.size()) throw nb::value_error("a, b and out differ in length");
        if (a.empty()) return;
        // Each list's layout: its first matrix that fits one only (vectors and empty matrices fit both).
        std::array<std::optional<bool>, 3> layout;
        for (int list = 0; list < 3; ++list) {
          for (const Described& d : list == 0 ? a : list == 1 ? b : out) {
            const Matrix x{nullptr, std::get<1>(d), std::get<2>(d), std::get<3>(d), std::get<4>(d)};
            if (fits_row_major(x) != fits_col_major(x)) {
              layout[list] = fits_col_major(x);
              break;
            }
          }
        }
        tessel::GemmArgs g;  // the call: the problems' ops and precision, their sizes' bounds
        std::vector<tessel::GemmProblem> host(a.size());
        for (size_t i = 0; i < a.size(); ++i) {
          tessel::GemmArgs one;
          try {
            one = make_args(matrix(a[i], "a"), matrix(b[i], "b"), matrix(out[i], "out"), alpha, beta, precision,
                            layout);
          } catch (const nb::builtin_exception& e) {
            throw nb::builtin_exception(e.type(), ("problem " + std::to_string(i) + ": " + e.what()).c_str());
          }
          if (i == 0) g = one, g.m = g.n = g.k = 0;
          if (one.opA != g.opA || one.opB != g.opB) {
            throw nb::value_error(("problem " + std::to_string(i) + ": its operands' layouts (row- or column-major) "
                                   "differ from problem 0's; one call takes one op pair")
                                      .c_str());
          }
          g.m = std::max(g.m, one.m), g.n = std::max(g.n, one.n), g.k = std::max(g.k, one.k);
          host[i] = {one.m, one.n, one.k, one.A, one.lda, one.B, one.ldb, one.C, one.ldc};
        }
        g.A = g.B = nullptr, g.C = nullptr, g.lda = g.ldb = g.ldc = 1;
        g.batch = int64_t(host.size()), g.problems = reinterpret_cast<const tessel::GemmProblem*>(problems);
        OnDevice on(device);
        // From pageable memory: returns once the values are staged, so `host` may go.
        const size_t bytes = host.size() * sizeof(tessel::GemmProblem);
        if (const cudaError_t err = cudaMemcpyAsync(reinterpret_cast<void*>(problems), host.data(), bytes,
                                                    cudaMemcpyHostToDevice, reinterpret_cast<cudaStream_t>(stream));
            err != cudaSuccess) {
          cudaGetLastError();  // returned, not left pending
          throw std::runtime_error(std::string("tessel: copying the problems to the GPU failed: ") +
                                   cudaGetErrorString(err));
        }
        run(g, kernel, stream, std::nullopt, allocate, device);
      },
      nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("problems"), nb::arg("device"), nb::arg("alpha"),
      nb::arg("beta"), nb::arg("precision"), nb::arg("kernel"), nb::arg("stream"),
      nb::arg("allocate").none() = nb::none(),
      "out[i] = alpha * a[i] @ b[i] + beta * out[i] for every i in one call (tessel::GemmArgs::problems): the "
      "operands described as gemm_described's, `problems` a device buffer of len(a) GemmProblem values (72 bytes "
      "each) that the call fills on `stream` from the host; every problem's layouts must give the same op pair");

  m.def(
      "select_kernel",
      [](const Array& a, const Array& b, const Array& out, const std::string& precision) {
        const tessel::GemmArgs g = make_args(matrix(a, "a"), matrix(b, "b"), matrix(out, "out"), 1.0f, 0.0f, precision);
        OnDevice on(a);
        std::string name;
        check(tessel::select_kernel(g, &name));
        return name;
      },
      nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("precision"));

  m.def("list_kernels", [] {
    nb::list out;
    for (const tessel::KernelInfo& k : tessel::kernels()) {
      nb::list precisions;
      for (const tessel::Precision& p : k.precisions) precisions.append(tessel::to_string(p));
      nb::dict d;
      d["name"] = k.name, d["step"] = k.ladder_step, d["summary"] = k.summary, d["precisions"] = precisions;
      d["tile"] = nb::make_tuple(k.tile_m, k.tile_n), d["alignment"] = k.alignment;
      d["min_compute_capability"] = k.min_compute_capability, d["max_compute_capability"] = k.max_compute_capability;
      d["split_k"] = k.split_k, d["batched"] = k.batched, d["grouped"] = k.grouped;
      d["pointer_array"] = k.pointer_array;
      out.append(d);
    }
    return out;
  });

  m.def("precisions", [] {
    std::vector<std::string> names;
    for (const tessel::Precision& p : tessel::supported_precisions()) names.push_back(tessel::to_string(p));
    return names;
  });

  m.def("release_workspaces", [] { check(tessel::release_workspaces()); });
}
