// Internal: which CUDA context is current, as an id that is never reused in
// the process's life. State cached per device (scratch buffers, raised
// shared-memory limits) is cached per context instead, so that it is not
// reused after cudaDeviceReset() destroyed the context it belonged to.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace tessel::impl {

// The current context's id (0 where the driver cannot say: no context yet).
cudaError_t current_context(uint64_t* id);

// *value for key (a kernel, say) in the current context: compute(value) until it succeeds there, then
// the answer it gave (per context, as above; not kept before a context exists).
cudaError_t cached_in_context(const void* key, int* value, const std::function<cudaError_t(int*)>& compute);

}  // namespace tessel::impl
