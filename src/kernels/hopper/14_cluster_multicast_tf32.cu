// Step 14 (14_cluster_multicast.cu) for FP32 inputs as tf32.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Cluster128x256, DType::kF32);
TESSEL_CLUSTER(Cluster128x192, DType::kF32);
TESSEL_CLUSTER(Cluster128x128, DType::kF32);
TESSEL_CLUSTER(Cluster64x128, DType::kF32);

}  // namespace tessel::impl
