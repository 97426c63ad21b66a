// Harness helpers around the CUDA runtime and cuBLAS: error checks, the
// GPU description, owning device buffers, and cuBLAS as the reference GEMM.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <tessel/tessel.hpp>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessel::harness {

// Throws std::runtime_error naming `what` when err is not cudaSuccess.
void check_cuda(cudaError_t err, const char* what);
void check_cublas(cublasStatus_t status, const char* what);
cudaDataType_t cuda_type(DType t);  // CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF, CUDA_R_8F_E4M3, CUDA_R_8F_E5M2

// True when a CUDA GPU is visible; otherwise *why says what CUDA answered.
bool gpu_available(std::string* why = nullptr);

struct GpuInfo {
  int device = 0;
  std::string name;
  int compute_capability = 0;  // 10 * major + minor
  int sm_count = 0;
  int sm_clock_mhz = 0;        // maximum (boost) clock as the driver reports it
  int mem_clock_mhz = 0;
  int mem_bus_bits = 0;
  size_t memory_bytes = 0;
  size_t l2_bytes = 0;
  size_t smem_per_block_optin = 0;
  int driver_version = 0;      // e.g. 13000 for 13.0
  int runtime_version = 0;
  int cublas_version = 0;     // e.g. 130100 for 13.1.0
  double peak_fp32_tflops = 0; // sm_count * FP32 lanes per SM * 2 * sm clock
};
GpuInfo query_gpu();
std::string version_string(int cuda_version);  // 13000 -> "13.0"

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(count, 1) * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  // Both return with the copy done: cudaMemcpy from pageable memory or within the device may return
  // earlier, and work on a non-blocking stream does not wait for the legacy stream's copy.
  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw std::logic_error("DeviceBuffer::upload: size mismatch");
    check_cuda(cudaMemcpy(ptr_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
  }
  void copy_from(const DeviceBuffer& other) {
    if (other.count_ != count_) throw std::logic_error("DeviceBuffer::copy_from: size mismatch");
    check_cuda(cudaMemcpy(ptr_, other.ptr_, count_ * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy D2D");
    check_cuda(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    check_cuda(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return host;
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// cuBLAS as the reference, called on tessel's row-major arguments through
// the transpose identity: FP32 is cublasSgemm_64 with CUBLAS_DEFAULT_MATH
// (no TF32); every other precision is cublasGemmEx_64 with the same input
// and output types and FP32 accumulation (CUBLAS_COMPUTE_32F, or
// CUBLAS_COMPUTE_32F_FAST_TF32 for tf32).
class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  void sgemm(const SgemmArgs& args, cudaStream_t stream = nullptr);
  // FP8 inputs: widened(args) multiplied (a reference result; cuBLASLt's FP8 GEMM: CublasLt); a
  // strided batch in one call (FP8: a call per matrix, cuBLAS has no FP8 batch).
  void gemm(const GemmArgs& args, cudaStream_t stream = nullptr);
  // An FP8 call as a 16-bit one on the same values: A and B widened to bf16
  // (f16 for f16 C; both hold FP8 exactly) into buffers this object keeps
  // until the next call, the per-tensor scales read back and folded into alpha,
  // block scales multiplied into the widened values (exact for powers of two).
  GemmArgs widened(const GemmArgs& args, cudaStream_t stream = nullptr);
  static std::string description(const Precision& precision = {});

 private:
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer<uint16_t> wide_a_, wide_b_;  // FP8 operands widened
};

// Matrix i of a strided batch as a call of its own.
GemmArgs matrix_call(const GemmArgs& batch, int64_t i);
// The same matrices as a pointer-array batch's arrays, one after another:
// A's, B's and C's addresses (matrix_call's), batch each, in order or reversed.
std::vector<uint64_t> pointer_arrays(const GemmArgs& batch, bool reversed = false);
// The rows of group g of a grouped call (GemmArgs::group_offsets or
// group_counts, their values given on the host too): begin .. begin + count
// - 1 of A and C.
struct GroupRows {
  int64_t begin = 0, count = 0;
};
std::vector<GroupRows> offset_groups(const std::vector<int64_t>& offsets);
// group_counts of groups of `capacity` rows, clamped as the kernels clamp them.
std::vector<GroupRows> masked_groups(const std::vector<int64_t>& counts, int64_t capacity);
// Group g as a call of its own: its rows of A and C, its B.
GemmArgs group_call(const GemmArgs& grouped, const GroupRows& rows, size_t g);

// Each group of a grouped call as a call of its own (group_call), the empty ones left out.
std::vector<GemmArgs> group_calls(const GemmArgs& grouped, const std::vector<GroupRows>& groups);

// cuBLAS's grouped GEMM (cublasGemmGroupedBatchedEx_64) over plain calls of
// one precision and alpha, beta (a grouped call's groups, or problems): a
// group of one GEMM per call, its pointer arrays set up once.
class CublasGrouped {
 public:
  explicit CublasGrouped(const std::vector<GemmArgs>& calls);
  CublasGrouped(const CublasGrouped&) = delete;
  CublasGrouped& operator=(const CublasGrouped&) = delete;
  ~CublasGrouped();
  void run(cudaStream_t stream = nullptr);

 private:
  cublasHandle_t handle_ = nullptr;
  std::vector<cublasOperation_t> op_a_, op_b_;
  std::vector<int64_t> m_, n_, k_, lda_, ldb_, ldc_, size_;
  std::vector<float> alpha_, beta_;
  DeviceBuffer<const void*> a_, b_;
  DeviceBuffer<void*> c_;
  cudaDataType_t ab_, c_type_;
  cublasComputeType_t compute_;
};

// Runs `kernel` by name, or tessel's auto-dispatch when kernel == kAuto.
inline constexpr const char* kAuto = "auto";
Status run_gemm(const std::string& kernel, const SgemmArgs& args, cudaStream_t stream = nullptr);
Status run_gemm(const std::string& kernel, const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace tessel::harness
