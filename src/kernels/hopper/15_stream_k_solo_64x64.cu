// Step 15 on single CTAs for small m on 64 x 64 tiles (configs.hpp's Solo64x64),
// a file of its own so that it builds beside 15_stream_k_solo.cu.
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Solo64x64, DType::kF16);
TESSEL_STREAM_K(Solo64x64, DType::kBF16);

}  // namespace tessel::impl
