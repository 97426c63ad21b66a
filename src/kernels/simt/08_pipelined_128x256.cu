// Ladder step 08 (the kernel: 08_pipelined.cuh), 128 x 256 configuration,
// compiled with ptxas --register-usage-level=10 (CMakeLists.txt): with 16 x 8
// results per thread, ptxas then spends a few more registers (227 -> 231-235)
// and the kernel runs 1.7% faster on an H100 (83.3% -> 84.8-85.7% of cuBLAS at
// 4096^3). The 128 x 128 configuration lost 2% at that level, so it stays in
// 08_pipelined.cu. The three schedules: one block per tile, split-k, stream-K.
#include "kernels/simt/08_pipelined.cuh"

namespace tessel::impl {

template cudaError_t launch_pipelined<Pipelined128x256, true, Schedule::kTiles>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined128x256, true, Schedule::kSplitK>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined128x256, true, Schedule::kStreamK>(const SgemmArgs&, cudaStream_t);

}  // namespace tessel::impl
