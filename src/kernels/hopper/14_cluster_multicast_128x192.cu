// Step 14 (14_cluster_multicast.cu) on 128 x 192 tiles, f16 and bf16 inputs.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Cluster128x192, DType::kF16);
TESSEL_CLUSTER(Cluster128x192, DType::kBF16);

}  // namespace tessel::impl
