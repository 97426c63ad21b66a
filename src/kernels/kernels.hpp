// Internal: the launch functions of the kernels, one per kernel file.
// Each takes arguments the dispatcher has already validated (m, n, k > 0,
// alpha != 0, legal leading dimensions, device pointers) and returns the
// launch error, if any. The registry (src/dispatch/registry.cpp) lists them.
#pragma once

#include <tessel/tessel.hpp>

namespace tessel::impl {

using LaunchFn = cudaError_t (*)(const SgemmArgs&, cudaStream_t);

cudaError_t launch_naive(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_coalesced(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_smem(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_blocktile_1d(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_blocktile_2d(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_vectorized(const SgemmArgs& args, cudaStream_t stream);
cudaError_t launch_warptile(const SgemmArgs& args, cudaStream_t stream);
// Step 08 for the configurations in kernels/simt/configs.hpp (explicitly
// instantiated in 08_pipelined.cu). Aligned = false reads A and B element by
// element; SplitK also splits k across blocks that add into C atomically.
template <class Cfg, bool Aligned, bool SplitK>
cudaError_t launch_pipelined(const SgemmArgs& args, cudaStream_t stream);

// C = beta * C over the m x n matrix (beta == 0 writes zeros without reading C).
// The dispatcher's path for k == 0 or alpha == 0.
cudaError_t launch_scale(float beta, float* C, int64_t m, int64_t n, int64_t ldc, cudaStream_t stream);

}  // namespace tessel::impl
