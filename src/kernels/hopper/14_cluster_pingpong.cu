// Step 14 with the consumer warpgroups taking turns on 64 x 256 tiles (configs.hpp, PingpongConfig), f16 and bf16.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Pingpong64x256, DType::kF16);
TESSEL_CLUSTER(Pingpong64x256, DType::kBF16);

}  // namespace tessel::impl
