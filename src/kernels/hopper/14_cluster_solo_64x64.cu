// Step 14 on single CTAs and 64 x 64 tiles (configs.hpp's Solo64x64) for small outputs with deep k: every SM
// takes its own part of k (split-k), where a cluster's second row tile would lie past m.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Solo64x64, DType::kF16);
TESSEL_CLUSTER(Solo64x64, DType::kBF16);
TESSEL_CLUSTER(Solo64x64, DType::kF32);

}  // namespace tessel::impl
