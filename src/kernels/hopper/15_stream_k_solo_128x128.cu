// Step 15 on single CTAs for small m on 128 x 128 tiles (configs.hpp's Solo128x128).
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Solo128x128, DType::kF16);
TESSEL_STREAM_K(Solo128x128, DType::kBF16);

}  // namespace tessel::impl
