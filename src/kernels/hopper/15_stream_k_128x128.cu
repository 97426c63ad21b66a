// Step 15 (15_stream_k.cu) on 128 x 128 tiles in clusters.
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Cluster128x128, DType::kF16);
TESSEL_STREAM_K(Cluster128x128, DType::kBF16);

}  // namespace tessel::impl
