// Step 16 on Hopper: decode on TMA-fed wgmma tiles, the call swapped (configs.hpp's SwapConfig;
// cluster.cuh's launch_swapped): the weight streams through the tiles' 64 rows, the call's few rows
// are the narrow tiles' columns.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_SWAPPED(Swap64x16, DType::kF16);
TESSEL_SWAPPED(Swap64x16, DType::kBF16);
TESSEL_SWAPPED(Swap64x16, DType::kF32);

}  // namespace tessel::impl
