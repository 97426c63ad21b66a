// Ladder step 08 (08_pipelined_launch.cuh): the aligned configurations
// compiled at ptxas's default register-usage level.
#include "kernels/simt/08_pipelined_launch.cuh"

namespace tessel::impl {

template cudaError_t launch_pipelined<Pipelined128x128, true, Schedule::kTiles>(const GemmArgs&, const LaunchPlan&,
                                                                              cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, true, Schedule::kTiles>(const GemmArgs&, const LaunchPlan&,
                                                                            cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, true, Schedule::kSplitK>(const GemmArgs&, const LaunchPlan&,
                                                                             cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64Warps4, true, Schedule::kSplitK>(const GemmArgs&,
                                                                                   const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
