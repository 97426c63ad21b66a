// Ladder step 08 (the kernel: 08_pipelined.cuh): the aligned configurations
// compiled at ptxas's default register-usage level.
#include "kernels/simt/08_pipelined.cuh"

namespace tessel::impl {

template cudaError_t launch_pipelined<Pipelined128x128, true, Schedule::kTiles>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, true, Schedule::kTiles>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, true, Schedule::kSplitK>(const SgemmArgs&, cudaStream_t);

}  // namespace tessel::impl
