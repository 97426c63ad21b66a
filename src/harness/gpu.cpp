#include "harness/gpu.hpp"

#include <algorithm>

#include "harness/device_data.hpp"


namespace tessel::harness {

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
  }
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(status));
  }
}

bool gpu_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (!why) return false;
    int driver = 0, runtime = 0;
    if (err == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0) {
      *why = "no CUDA GPU is visible (no NVIDIA driver is loaded)";
    } else if (err == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
               cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
      *why = "the NVIDIA driver supports CUDA " + version_string(driver) + " but tessel was built with CUDA " +
             version_string(runtime) + ": update the driver";
    } else if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
      *why = "no CUDA GPU is visible";
    } else {
      *why = std::string("the CUDA runtime cannot reach a GPU: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
    }
    return false;
  }
  return true;
}

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

namespace {
// FP32 lanes per SM by architecture (CUDA programming guide's throughput table).
int fp32_lanes_per_sm(int cc) {
  switch (cc) {
    case 80: return 64;                    // A100
    case 86: case 87: case 89: return 128; // Ampere consumer, Ada
    case 90: return 128;                   // Hopper
    default: return cc >= 100 ? 128 : 64;
  }
}
}  // namespace

GpuInfo query_gpu() {
  GpuInfo g;
  check_cuda(cudaGetDevice(&g.device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, g.device), "cudaGetDeviceProperties");
  g.name = prop.name;
  g.compute_capability = prop.major * 10 + prop.minor;
  g.sm_count = prop.multiProcessorCount;
  int khz = 0;
  check_cuda(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, g.device), "cudaDeviceGetAttribute(ClockRate)");
  g.sm_clock_mhz = khz / 1000;
  check_cuda(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, g.device), "cudaDeviceGetAttribute(MemoryClockRate)");
  g.mem_clock_mhz = khz / 1000;
  g.mem_bus_bits = prop.memoryBusWidth;
  g.memory_bytes = prop.totalGlobalMem;
  g.l2_bytes = size_t(prop.l2CacheSize);
  g.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  check_cuda(cudaDriverGetVersion(&g.driver_version), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&g.runtime_version), "cudaRuntimeGetVersion");
  int major = 0, minor = 0, patch = 0;
  check_cublas(cublasGetProperty(MAJOR_VERSION, &major), "cublasGetProperty");
  check_cublas(cublasGetProperty(MINOR_VERSION, &minor), "cublasGetProperty");
  check_cublas(cublasGetProperty(PATCH_LEVEL, &patch), "cublasGetProperty");
  g.cublas_version = major * 10000 + minor * 100 + patch;
  g.peak_fp32_tflops = double(g.sm_count) * fp32_lanes_per_sm(g.compute_capability) * 2.0 * g.sm_clock_mhz * 1e-6;
  return g;
}

Cublas::Cublas() {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  check_cublas(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
}

Cublas::~Cublas() { cublasDestroy(handle_); }

namespace {
const char* cuda_type_name(DType t) {
  switch (t) {
    case DType::kF16: return "CUDA_R_16F";
    case DType::kBF16: return "CUDA_R_16BF";
    case DType::kE4M3: return "CUDA_R_8F_E4M3";
    case DType::kE5M2: return "CUDA_R_8F_E5M2";
    case DType::kF32: break;
  }
  return "CUDA_R_32F";
}
bool is_sgemm(const Precision& p) { return p == Precision{}; }
cublasOperation_t cublas_op(Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }
cublasComputeType_t compute_type(const Precision& p) {
  return p.compute == Compute::kTF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}
}  // namespace

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::kF16: return CUDA_R_16F;
    case DType::kBF16: return CUDA_R_16BF;
    case DType::kE4M3: return CUDA_R_8F_E4M3;
    case DType::kE5M2: return CUDA_R_8F_E5M2;
    case DType::kF32: break;
  }
  return CUDA_R_32F;
}

std::string Cublas::description(const Precision& p) {
  if (is_sgemm(p)) return "cuBLAS cublasSgemm_64, CUBLAS_DEFAULT_MATH (pure FP32, TF32 off)";
  if (is_fp8(p.ab)) return std::string("cuBLAS cublasGemmEx_64 on the FP8 operands widened to bf16 (f16 for f16 C), C ") + cuda_type_name(p.c);
  return std::string("cuBLAS cublasGemmEx_64, A/B ") + cuda_type_name(p.ab) + ", C " + cuda_type_name(p.c) + ", " +
         (p.compute == Compute::kTF32 ? "CUBLAS_COMPUTE_32F_FAST_TF32" : "CUBLAS_COMPUTE_32F");
}

GemmArgs Cublas::widened(const GemmArgs& a, cudaStream_t stream) {
  GemmArgs wide = a;  // f16 inputs for f16 C (cuBLAS has no bf16 x bf16 -> f16); both hold FP8 exactly
  wide.precision.ab = a.precision.c == DType::kF16 ? DType::kF16 : DType::kBF16;
  wide.precision.b.reset();
  wide.scale_a = wide.scale_b = nullptr;
  wide.block_scales = {};
  auto widen = [&](const void* src, DType type, int64_t rows, int64_t cols, int64_t ld,
                   DeviceBuffer<uint16_t>& buffer, StoredScales scales) {
    const size_t count = rows > 0 && cols > 0 ? size_t((rows - 1) * ld + cols) : 0;
    if (buffer.size() < count) buffer = DeviceBuffer<uint16_t>(count);
    scales.ld = ld;
    widen_device(src, type, count, buffer.get(), wide.precision.ab, stream, scales);
    return buffer.get();
  };
  // Block scales multiplied into the widened values: A's rows (op N: k along a row), B's 128-column blocks.
  const bool an = a.opA == Op::N, bn = a.opB == Op::N;
  const Fp8BlockScales& bs = a.block_scales;
  const StoredScales sa{bs.a, bs.a_stride_m, bs.a_stride_k, 1, 1, !an};
  const StoredScales sb{bs.b, bs.b_stride_n, bs.b_stride_k, 1, int(bs.b_block_n), bn};
  wide.A = widen(a.A, a.precision.ab, an ? a.m : a.k, an ? a.k : a.m, a.lda, wide_a_, sa);
  wide.B = widen(a.B, a.precision.b_type(), bn ? a.k : a.n, bn ? a.n : a.k, a.ldb, wide_b_, sb);
  for (const float* scale : {a.scale_a, a.scale_b}) {
    float value = 1.0f;
    if (scale) check_cuda(cudaMemcpy(&value, scale, sizeof value, cudaMemcpyDeviceToHost), "scale D2H");
    wide.alpha *= value;
  }
  return wide;
}

void Cublas::gemm(const GemmArgs& a, cudaStream_t stream) {
  const auto op = cublas_op;
  if (a.batch > 1 && is_fp8(a.precision.ab)) {  // no strided-batched FP8 in cuBLAS: a call per matrix
    for (int64_t i = 0; i < a.batch; ++i) gemm(matrix_call(a, i), stream);
    return;
  }
  if (a.c_array != nullptr) {  // a pointer-array batch in one call (16-bit and FP32)
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    if (is_sgemm(a.precision)) {
      check_cublas(cublasSgemmBatched_64(handle_, op(a.opB), op(a.opA), a.n, a.m, a.k, &a.alpha,
                                         reinterpret_cast<const float* const*>(a.b_array), a.ldb,
                                         reinterpret_cast<const float* const*>(a.a_array), a.lda, &a.beta,
                                         reinterpret_cast<float* const*>(a.c_array), a.ldc, a.batch),
                   "cublasSgemmBatched_64");
      return;
    }
    const cudaDataType_t ab = cuda_type(a.precision.ab), c = cuda_type(a.precision.c);
    check_cublas(cublasGemmBatchedEx_64(handle_, op(a.opB), op(a.opA), a.n, a.m, a.k, &a.alpha, a.b_array, ab, a.ldb,
                                        a.a_array, ab, a.lda, &a.beta, a.c_array, c, a.ldc, a.batch,
                                        compute_type(a.precision), CUBLAS_GEMM_DEFAULT),
                 "cublasGemmBatchedEx_64");
    return;
  }
  if (a.batch > 1) {  // the strided batch in one call
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    if (is_sgemm(a.precision)) {
      check_cublas(cublasSgemmStridedBatched_64(handle_, op(a.opB), op(a.opA), a.n, a.m, a.k, &a.alpha,
                                                static_cast<const float*>(a.B), a.ldb, a.stride_b,
                                                static_cast<const float*>(a.A), a.lda, a.stride_a, &a.beta,
                                                static_cast<float*>(a.C), a.ldc, a.stride_c, a.batch),
                   "cublasSgemmStridedBatched_64");
      return;
    }
    const cudaDataType_t ab = cuda_type(a.precision.ab), c = cuda_type(a.precision.c);
    check_cublas(cublasGemmStridedBatchedEx_64(handle_, op(a.opB), op(a.opA), a.n, a.m, a.k, &a.alpha, a.B, ab, a.ldb,
                                               a.stride_b, a.A, ab, a.lda, a.stride_a, &a.beta, a.C, c, a.ldc,
                                               a.stride_c, a.batch, compute_type(a.precision), CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx_64");
    return;
  }
  if (is_sgemm(a.precision)) {
    sgemm(SgemmArgs{a.opA, a.opB, a.m, a.n, a.k, a.alpha, static_cast<const float*>(a.A), a.lda,
                    static_cast<const float*>(a.B), a.ldb, a.beta, static_cast<float*>(a.C), a.ldc},
          stream);
    return;
  }
  if (is_fp8(a.precision.ab)) {
    gemm(widened(a, stream), stream);
    return;
  }
  const cudaDataType_t ab = cuda_type(a.precision.ab), c = cuda_type(a.precision.c);
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
  check_cublas(cublasGemmEx_64(handle_, op(a.opB), op(a.opA), a.n, a.m, a.k, &a.alpha, a.B, ab, a.ldb, a.A, ab, a.lda,
                               &a.beta, a.C, c, a.ldc, compute_type(a.precision), CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx_64");
}

void Cublas::sgemm(const SgemmArgs& a, cudaStream_t stream) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the
  // row-major arrays read as column-major are the transposes, so swap the
  // operands and m/n and keep each op.
  const auto op = cublas_op;
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
  check_cublas(cublasSgemm_64(handle_, op(a.opB), op(a.opA), a.n, a.m, a.k, &a.alpha, a.B, a.ldb, a.A, a.lda,
                              &a.beta, a.C, a.ldc),
               "cublasSgemm_64");
}

GemmArgs matrix_call(const GemmArgs& a, int64_t i) {
  GemmArgs one = a;
  one.batch = 1, one.stride_a = one.stride_b = one.stride_c = 0;
  one.A = static_cast<const char*>(a.A) + i * a.stride_a * int64_t(size_of(a.precision.ab));
  one.B = static_cast<const char*>(a.B) + i * a.stride_b * int64_t(size_of(a.precision.ab));
  one.C = static_cast<char*>(a.C) + i * a.stride_c * int64_t(size_of(a.precision.c));
  return one;
}

std::vector<uint64_t> pointer_arrays(const GemmArgs& batch, bool reversed) {
  std::vector<uint64_t> a, b, c;
  for (int64_t i = 0; i < batch.batch; ++i) {
    const GemmArgs one = matrix_call(batch, reversed ? batch.batch - 1 - i : i);
    a.push_back(reinterpret_cast<uint64_t>(one.A)), b.push_back(reinterpret_cast<uint64_t>(one.B));
    c.push_back(reinterpret_cast<uint64_t>(one.C));
  }
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

std::vector<GroupRows> offset_groups(const std::vector<int64_t>& offsets) {
  std::vector<GroupRows> groups;
  for (size_t g = 0; g + 1 < offsets.size(); ++g) groups.push_back({offsets[g], offsets[g + 1] - offsets[g]});
  return groups;
}

std::vector<GroupRows> masked_groups(const std::vector<int64_t>& counts, int64_t capacity) {
  std::vector<GroupRows> groups;
  for (size_t g = 0; g < counts.size(); ++g) {
    groups.push_back({int64_t(g) * capacity, std::clamp<int64_t>(counts[g], 0, capacity)});
  }
  return groups;
}

GemmArgs group_call(const GemmArgs& a, const GroupRows& rows, size_t g) {
  GemmArgs one = a;
  one.batch = 1, one.group_offsets = one.group_counts = nullptr, one.stride_b = 0, one.m = rows.count;
  one.A = static_cast<const char*>(a.A) + rows.begin * a.lda * int64_t(size_of(a.precision.ab));
  one.B = static_cast<const char*>(a.B) + int64_t(g) * a.stride_b * int64_t(size_of(a.precision.ab));
  one.C = static_cast<char*>(a.C) + rows.begin * a.ldc * int64_t(size_of(a.precision.c));
  return one;
}

std::vector<GemmArgs> group_calls(const GemmArgs& a, const std::vector<GroupRows>& groups) {
  std::vector<GemmArgs> calls;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].count > 0) calls.push_back(group_call(a, groups[g], g));
  }
  return calls;
}

CublasGrouped::CublasGrouped(const std::vector<GemmArgs>& calls) {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  std::vector<const void*> as, bs;
  std::vector<void*> cs;
  for (const GemmArgs& one : calls) {
    // Column-major C^T = op(B)^T op(A)^T, as Cublas::gemm.
    op_a_.push_back(cublas_op(one.opB)), op_b_.push_back(cublas_op(one.opA));
    m_.push_back(one.n), n_.push_back(one.m), k_.push_back(one.k);
    lda_.push_back(one.ldb), ldb_.push_back(one.lda), ldc_.push_back(one.ldc), size_.push_back(1);
    alpha_.push_back(one.alpha), beta_.push_back(one.beta);
    as.push_back(one.B), bs.push_back(one.A), cs.push_back(one.C);
  }
  a_ = DeviceBuffer<const void*>(as), b_ = DeviceBuffer<const void*>(bs), c_ = DeviceBuffer<void*>(cs);
  const Precision precision = calls.empty() ? Precision{} : calls.front().precision;
  ab_ = cuda_type(precision.ab), c_type_ = cuda_type(precision.c);
  compute_ = compute_type(precision);
}

CublasGrouped::~CublasGrouped() { cublasDestroy(handle_); }

void CublasGrouped::run(cudaStream_t stream) {
  if (m_.empty()) return;
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
  check_cublas(cublasGemmGroupedBatchedEx_64(handle_, op_a_.data(), op_b_.data(), m_.data(), n_.data(), k_.data(),
                                             alpha_.data(), a_.get(), ab_, lda_.data(), b_.get(), ab_, ldb_.data(),
                                             beta_.data(), c_.get(), c_type_, ldc_.data(), int64_t(m_.size()),
                                             size_.data(), compute_),
               "cublasGemmGroupedBatchedEx_64");
}

Status run_gemm(const std::string& kernel, const SgemmArgs& args, cudaStream_t stream) {
  return kernel == kAuto ? sgemm(args, stream) : run_kernel(kernel, args, stream);
}

Status run_gemm(const std::string& kernel, const GemmArgs& args, cudaStream_t stream) {
  return kernel == kAuto ? gemm(args, stream) : run_kernel(kernel, args, stream);
}

}  // namespace tessel::harness
