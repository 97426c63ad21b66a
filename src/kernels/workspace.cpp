#include "kernels/workspace.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace tessel::impl {

cudaError_t stream_workspace(cudaStream_t stream, size_t bytes, void** buffer) {
  struct Block {
    void* ptr = nullptr;
    size_t bytes = 0;
  };
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, Block> blocks;
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mutex);
  Block& b = blocks[{device, stream}];
  if (b.bytes < bytes) {
    if (b.ptr != nullptr) {
      if (cudaError_t err = cudaFree(b.ptr); err != cudaSuccess) return err;
      b = Block{};
    }
    if (cudaError_t err = cudaMalloc(&b.ptr, bytes); err != cudaSuccess) return err;
    if (cudaError_t err = cudaMemsetAsync(b.ptr, 0, bytes, stream); err != cudaSuccess) {
      cudaFree(b.ptr);
      b = Block{};
      return err;
    }
    b.bytes = bytes;
  }
  *buffer = b.ptr;
  return cudaSuccess;
}

}  // namespace tessel::impl
