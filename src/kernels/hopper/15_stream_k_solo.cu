// Step 15 (15_stream_k.cu) on single CTAs for small m (configs.hpp's Solo tiles), 64 x 128 tiles here;
// 128 x 128 in 15_stream_k_solo_128x128.cu, 64 x 64 in 15_stream_k_solo_64x64.cu.
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Solo64x128, DType::kF16);
TESSEL_STREAM_K(Solo64x128, DType::kBF16);

}  // namespace tessel::impl
