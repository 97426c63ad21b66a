// Step 17: FP8 inputs (e4m3, e5m2) on the step-14 kernel (Hopper, sm_90a).
//
// What changes over step 14:
//  - A and B are one byte an element: a 128-byte k-slice holds 128 values
//    of k, and each wgmma (m64nNk32, e4m3 or e5m2) takes 32 of them, so a
//    stage carries twice the multiply-adds of a 16-bit one for the same
//    bytes, and the tensor cores run at twice the 16-bit rate.
//  - The tensor cores add FP8 products into their FP32 accumulators with
//    fewer bits than an FP32 add keeps; over a deep k the error grows well
//    past bf16's. Each k-slice is therefore multiplied into accumulators of
//    its own (scale-d = 0 on its first wgmma), waited for, and added to the
//    tile's accumulators in FP32 registers (consume_tile), every 128 of k.
//    128 x 128 tiles promote a slice while the next one's wgmmas run (two
//    sets of slice accumulators); 128 x 192 tiles promote a slice at once,
//    128 x 256 tiles in two pieces of 128 columns, while the other consumer
//    warpgroup's wgmmas run. Block scales: the tiles whose promoted pieces
//    are 128 columns, one B scale block (kFp8BlockScales).
//  - FP8 wgmma reads K-major operands only (no transpose bit): A with op T
//    and B with op N are copied transposed first (copy_operands), as tf32's.
//  - Per-tensor dequantisation scales (GemmArgs::scale_a, scale_b: device
//    pointers, so they may change without a host sync) are read once per
//    thread and folded into alpha; per-channel scales are the epilogue's.
//  - C is bf16, f16 or FP32: the kernel is instantiated per 16-bit C type.
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 16 (TMA); C any
// alignment.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

// The configurations the registry lists (src/dispatch/registry.cpp).
TESSEL_CLUSTER(Fp8Cluster128x128, DType::kE4M3);
TESSEL_CLUSTER(Cluster128x192, DType::kE4M3);
TESSEL_CLUSTER(Cluster128x256, DType::kE4M3);
TESSEL_CLUSTER(Fp8Cluster128x128, DType::kE5M2);

}  // namespace tessel::impl
