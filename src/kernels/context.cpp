#include "kernels/context.hpp"

#include <cuda.h>

#include <map>
#include <mutex>
#include <utility>

namespace tessel::impl {
namespace {

using GetCurrent = CUresult (*)(CUcontext*);
using GetId = CUresult (*)(CUcontext, unsigned long long*);

// The driver's entry points, found once through the runtime (the library links the runtime only).
template <class F>
F driver_function(const char* name, int version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<F>(p);
}

}  // namespace

cudaError_t current_context(uint64_t* id) {
  static const GetCurrent get_current = driver_function<GetCurrent>("cuCtxGetCurrent", 4000);
  static const GetId get_id = driver_function<GetId>("cuCtxGetId", 12000);
  *id = 0;
  CUcontext ctx = nullptr;
  if (get_current == nullptr || get_id == nullptr || get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    return cudaSuccess;
  }
  unsigned long long value = 0;
  if (get_id(ctx, &value) != CUDA_SUCCESS) return cudaErrorContextIsDestroyed;
  *id = value;
  return cudaSuccess;
}

cudaError_t cached_in_context(const void* key, int* value, const std::function<cudaError_t(int*)>& compute) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, uint64_t>, int> cache;  // (key, context) -> value
  uint64_t context = 0;
  if (cudaError_t err = current_context(&context); err != cudaSuccess) return err;
  const std::pair<const void*, uint64_t> at{key, context};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(at); it != cache.end()) return *value = it->second, cudaSuccess;
  }
  if (cudaError_t err = compute(value); err != cudaSuccess || context == 0) return err;
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(at, *value);
  return cudaSuccess;
}

}  // namespace tessel::impl
