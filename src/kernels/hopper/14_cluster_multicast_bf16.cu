// Step 14 (14_cluster_multicast.cu) for bf16 inputs, 128 x 256 and 64 x 128 tiles.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Cluster128x256, DType::kBF16);
TESSEL_CLUSTER(Cluster64x128, DType::kBF16);

}  // namespace tessel::impl
