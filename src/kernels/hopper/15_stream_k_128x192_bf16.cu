// Step 15 (15_stream_k.cu) on 128 x 192 tiles, bf16 inputs.
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Cluster128x192, DType::kBF16);

}  // namespace tessel::impl
