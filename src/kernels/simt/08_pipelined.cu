// Ladder step 08 (the kernel: 08_pipelined.cuh): the aligned configurations
// compiled at ptxas's default register-usage level.
#include "kernels/simt/08_pipelined.cuh"

namespace tessel::impl {

template cudaError_t launch_pipelined<Pipelined128x128, true, Schedule::kTiles>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, true, Schedule::kTiles>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64, true, Schedule::kSplitK>(const SgemmArgs&, cudaStream_t);
template cudaError_t launch_pipelined<Pipelined64x64Warps4, true, Schedule::kSplitK>(const SgemmArgs&, cudaStream_t);

cudaError_t launch_pipelined_splitk_64x64(const SgemmArgs& args, cudaStream_t stream) {
  int sms = 0;
  if (cudaError_t err = current_sms(sms); err != cudaSuccess) return err;
  if (split_k_four_warps(args.m, args.n, args.k, sms, args.opA == Op::N || args.opB == Op::T)) {
    return launch_pipelined<Pipelined64x64Warps4, true, Schedule::kSplitK>(args, stream);
  }
  return launch_pipelined<Pipelined64x64, true, Schedule::kSplitK>(args, stream);
}

}  // namespace tessel::impl
