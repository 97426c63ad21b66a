// Step 15 (15_stream_k.cu) on 128 x 192 tiles, f16 inputs (bf16: 15_stream_k_128x192_bf16.cu).
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

TESSEL_STREAM_K(Cluster128x192, DType::kF16);

}  // namespace tessel::impl
