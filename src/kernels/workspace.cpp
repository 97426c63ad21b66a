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
  // other's two launches); flags and partial sums are used by one launch at a time, which
  // the stream serialises.
  const bool per_thread =
      stream == cudaStreamPerThread || use == WorkspaceUse::kOperands || use == WorkspaceUse::kSplitParts;
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
  void* f = nullptr;
  void* ws = nullptr;
  if (cudaError_t err = stream_workspace(stream, size_t(slots) * sizeof(int), &f, WorkspaceUse::kFlags);
      err != cudaSuccess) {
    return err;
  }
  const size_t bytes = size_t(slots) * size_t(slot_floats) * sizeof(float);
  if (cudaError_t err = stream_workspace(stream, bytes, &ws, WorkspaceUse::kPartials); err != cudaSuccess) return err;
  *flags = static_cast<int*>(f);
  *partials = static_cast<float*>(ws);
  return cudaSuccess;
}

cudaError_t stream_k_work(const LaunchPlan& plan, cudaStream_t stream, StreamKWork* sk) {
  static_cast<StreamKPlan&>(*sk) = plan.stream_k;
  return stream_k_workspace(stream, plan.stream_k_slots, plan.stream_k_slot_floats, &sk->flags, &sk->partials);
}

}  // namespace tessel::impl
