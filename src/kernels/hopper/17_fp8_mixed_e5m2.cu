// Step 17 for A e5m2, B e4m3 (17_fp8_mixed.cu): the same three tiles.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Fp8Cluster128x128, DType::kE5M2, DType::kE4M3);
TESSEL_CLUSTER(Cluster128x192, DType::kE5M2, DType::kE4M3);
TESSEL_CLUSTER(Cluster128x256, DType::kE5M2, DType::kE4M3);

}  // namespace tessel::impl
