#include "kernels/workspace.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "kernels/context.hpp"
#include "kernels/kernels.hpp"

namespace tessel::impl {
namespace {

struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  int device = 0;
  uint64_t context = 0;  // a buffer of a context that is gone (cudaDeviceReset) went with it
};

using Key = std::tuple<uint64_t, cudaStream_t, std::thread::id, WorkspaceUse>;

std::mutex g_mutex;
std::map<Key, Buffer> g_buffers;
std::vector<Buffer> g_retired;  // replaced by larger ones; work enqueued before may still read them

}  // namespace

cudaError_t plan_workspace(const LaunchPlan& plan, cudaStream_t stream, WorkspaceUse use, void** buffer) {
  const size_t bytes = plan.bytes_for(use);
  if (plan.workspace != nullptr) {
    const uintptr_t base = (reinterpret_cast<uintptr_t>(plan.workspace) + kWorkspaceAlignment - 1) /
                           kWorkspaceAlignment * kWorkspaceAlignment;
    *buffer = reinterpret_cast<void*>(base + plan.offset_of(use));
    return cudaSuccess;
  }
  int device = 0;
  uint64_t context = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (cudaError_t err = current_context(&context); err != cudaSuccess) return err;
  const bool per_thread =
      stream == cudaStreamPerThread || use == WorkspaceUse::kOperands || use == WorkspaceUse::kSplitParts ||
      use == WorkspaceUse::kProduct || use == WorkspaceUse::kTensorMaps;
  const Key key{context, stream, per_thread ? std::this_thread::get_id() : std::thread::id(), use};
  std::lock_guard<std::mutex> lock(g_mutex);
  Buffer& b = g_buffers[key];
  if (b.bytes < bytes) {
    Buffer grown{nullptr, std::max(bytes, b.bytes + b.bytes / 2), device, context};  // geometric: few replaced buffers
    if (cudaError_t err = cudaMalloc(&grown.ptr, grown.bytes); err != cudaSuccess) {
      cudaGetLastError();
      return err;
    }
    if (cudaError_t err = cudaMemsetAsync(grown.ptr, 0, grown.bytes, stream); err != cudaSuccess) {
      cudaFree(grown.ptr);
      cudaGetLastError();
      return err;
    }
    if (b.ptr != nullptr) g_retired.push_back(b);
    b = grown;
  }
  *buffer = b.ptr;
  return cudaSuccess;
}

cudaError_t arrival_flags(const LaunchPlan& plan, cudaStream_t stream, int** flags) {
  void* region = nullptr;
  if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kFlags, &region); err != cudaSuccess) return err;
  if (plan.workspace != nullptr) {
    if (cudaError_t err = cudaMemsetAsync(region, 0, plan.bytes_for(WorkspaceUse::kFlags), stream); err != cudaSuccess) {
      cudaGetLastError();
      return err;
    }
  }
  *flags = static_cast<int*>(region);
  return cudaSuccess;
}

cudaError_t stream_k_work(const LaunchPlan& plan, cudaStream_t stream, StreamKWork* sk) {
  static_cast<StreamKPlan&>(*sk) = plan.stream_k;
  int* flags = nullptr;
  void* partials = nullptr;
  if (cudaError_t err = arrival_flags(plan, stream, &flags); err != cudaSuccess) return err;
  if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kPartials, &partials); err != cudaSuccess) {
    return err;
  }
  sk->flags = flags;
  sk->partials = static_cast<float*>(partials);
  return cudaSuccess;
}

cudaError_t split_parts_output(const GemmArgs& call, const LaunchPlan& plan, cudaStream_t stream, GemmArgs* out) {
  *out = call;
  if (plan.splits <= 1) return cudaSuccess;
  void* parts = nullptr;
  if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kSplitParts, &parts); err != cudaSuccess) return err;
  out->C = parts, out->precision.c = DType::kF32, out->ldc = flipped_ld(call.n), out->beta = 0.0f;
  out->epilogue = {};  // partial products: an epilogue belongs after their sum
  return cudaSuccess;
}

cudaError_t sum_split_parts(const GemmArgs& call, const LaunchPlan& plan, const GemmArgs& out, cudaStream_t stream,
                            bool after_trigger) {
  if (plan.splits <= 1) return cudaSuccess;
  return launch_sum_parts(static_cast<const float*>(out.C), plan.splits, plan.part_rows * out.ldc, out.ldc, call.beta,
                          call.C, call.m, call.n, call.ldc, stream, call.precision.c, after_trigger);
}

cudaError_t release_own_workspaces() {
  std::lock_guard<std::mutex> lock(g_mutex);
  int current = 0;
  if (cudaError_t err = cudaGetDevice(&current); err != cudaSuccess) return err;
  std::vector<Buffer> all = g_retired;
  for (const auto& entry : g_buffers) {
    if (entry.second.ptr != nullptr) all.push_back(entry.second);
  }
  cudaError_t first = cudaSuccess;
  auto note = [&](cudaError_t err) {
    if (err != cudaSuccess && first == cudaSuccess) first = err;
  };
  std::vector<int> synced;
  for (const Buffer& b : all) {
    uint64_t context = 0;
    note(cudaSetDevice(b.device));
    note(current_context(&context));
    if (context != b.context) continue;
    if (std::find(synced.begin(), synced.end(), b.device) == synced.end()) {
      note(cudaDeviceSynchronize());
      synced.push_back(b.device);
    }
    note(cudaFree(b.ptr));
  }
  note(cudaSetDevice(current));
  g_buffers.clear();
  g_retired.clear();
  if (first != cudaSuccess) cudaGetLastError();
  return first;
}

}  // namespace tessel::impl
