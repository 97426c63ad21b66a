// Ladder step 08 (08_pipelined_launch.cuh) for any alignment: each launcher
// holds the kernel for every alignment of A and B (and, with split k, for
// parts added into C or stored to a workspace), so these take a file of
// their own, built in parallel with the aligned ones.
#include "kernels/simt/08_pipelined_launch.cuh"

namespace tessel::impl {

template cudaError_t launch_pipelined<PipelinedAny128x128, false, Schedule::kTiles>(const GemmArgs&,
                                                                                  const LaunchPlan&, cudaStream_t);
template cudaError_t launch_pipelined<PipelinedAny128x128, false, Schedule::kSplitK>(const GemmArgs&,
                                                                                   const LaunchPlan&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, false, Schedule::kTiles>(const GemmArgs&, const LaunchPlan&,
                                                                             cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64Warps4, false, Schedule::kSplitK>(const GemmArgs&,
                                                                                    const LaunchPlan&, cudaStream_t);

}  // namespace tessel::impl
