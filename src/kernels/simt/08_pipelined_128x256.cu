// Ladder step 08 (08_pipelined_launch.cuh), 128 x 256 configuration,
// compiled with ptxas --register-usage-level=10 (CMakeLists.txt): with
// 16 x 8 results per thread ptxas then spends a few more registers and the
// kernel runs faster (the 128 x 128 configuration runs slower, so it stays
// in 08_pipelined.cu). The three schedules: one block per tile, split-k, stream-K; and the same
// lane tile on 64 x 256 blocks, split-k.
#include "kernels/simt/08_pipelined_launch.cuh"

namespace tessel::impl {

template cudaError_t launch_pipelined<Pipelined128x256, true, Schedule::kTiles>(const GemmArgs&, const LaunchPlan&,
                                                                              cudaStream_t);
template cudaError_t launch_pipelined<Pipelined128x256, true, Schedule::kSplitK>(const GemmArgs&, const LaunchPlan&,
                                                                               cudaStream_t);
template cudaError_t launch_pipelined<Pipelined128x256, true, Schedule::kStreamK>(const GemmArgs&,
                                                                                const LaunchPlan&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x256, true, Schedule::kSplitK>(const GemmArgs&, const LaunchPlan&,
                                                                              cudaStream_t);

}  // namespace tessel::impl
