// Step 15 (15_stream_k.cu) on single CTAs for small m (configs.hpp's Solo tiles).
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Solo64x128, DType::kF16);
TESSEL_STREAM_K(Solo64x128, DType::kBF16);
TESSEL_STREAM_K(Solo128x128, DType::kF16);
TESSEL_STREAM_K(Solo128x128, DType::kBF16);

}  // namespace tessel::impl
