// Step 17 for A and B of different FP8 types (e4m3 x e5m2, e5m2 x e4m3: an
// FP8 training step's gradients in e5m2 against e4m3 weights or
// activations). The kernel is 17_fp8.cu's: the operands are bytes to TMA and
// the descriptors alike, and only the wgmma names the two types
// (device::InputPair, wgmma_64xN); the same three tiles. A e5m2, B e4m3:
// 17_fp8_mixed_e5m2.cu.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

TESSEL_CLUSTER(Fp8Cluster128x128, DType::kE4M3, DType::kE5M2);
TESSEL_CLUSTER(Cluster128x192, DType::kE4M3, DType::kE5M2);
TESSEL_CLUSTER(Cluster128x256, DType::kE4M3, DType::kE5M2);

}  // namespace tessel::impl
