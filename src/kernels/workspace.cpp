#include "kernels/workspace.hpp"

#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace tessel::impl {

cudaError_t stream_workspace(cudaStream_t stream, size_t bytes, void** buffer, WorkspaceUse use) {
  struct Block {
    void* ptr = nullptr;
    size_t bytes = 0;
  };
  static std::mutex mutex;
  static std::map<std::tuple<int, cudaStream_t, std::thread::id, WorkspaceUse>, Block> blocks;
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  // cudaStreamPerThread is one handle for a different stream in each host thread. Operand
  // copies and split-k parts are written by one launch and read by the next, so two threads
  // issuing to one stream must not share their buffer (one's copy could land between the
  // other's two launches); step 15's buffer is used by one launch at a time, which the
  // stream serialises.
  const bool per_thread = stream == cudaStreamPerThread || use != WorkspaceUse::kStreamK;
  const std::thread::id thread = per_thread ? std::this_thread::get_id() : std::thread::id();
  std::lock_guard<std::mutex> lock(mutex);
  Block& b = blocks[{device, stream, thread, use}];
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

cudaError_t stream_k_workspace(cudaStream_t stream, int64_t slots, int64_t slot_floats, int** flags, float** partials) {
  const size_t flag_bytes = (size_t(slots) * sizeof(int) + 255) & ~size_t(255);
  void* ws = nullptr;
  const size_t bytes = flag_bytes + size_t(slots) * size_t(slot_floats) * sizeof(float);
  if (cudaError_t err = stream_workspace(stream, bytes, &ws, WorkspaceUse::kStreamK); err != cudaSuccess) return err;
  *flags = static_cast<int*>(ws);
  *partials = reinterpret_cast<float*>(static_cast<char*>(ws) + flag_bytes);
  return cudaSuccess;
}

}  // namespace tessel::impl
