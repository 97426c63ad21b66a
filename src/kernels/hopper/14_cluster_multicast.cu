// Step 14: clusters of two CTAs that share B's copies (TMA multicast), TMA-store
// epilogue (Hopper, sm_90a).
//
// What changes over step 13:
//  - The grid is made of clusters of 2 CTAs (thread-block clusters: CTAs
//    scheduled together on one GPC that can reach each other's shared
//    memory). The two CTAs of a cluster take vertically neighbouring
//    128 x 256 tiles, so they need the same 256-column slice of B: each
//    copies half of it and multicasts it into both CTAs' shared memory.
//    Per cluster and k-slice, L2 delivers 2 x 16 KiB of A + 32 KiB of B
//    instead of 2 x (16 + 32) KiB: a third less traffic from L2, which
//    at ~800 TFLOP/s would otherwise have to feed ~9 TB/s.
//  - A stage may be refilled only when the consumers of both CTAs are done
//    with it (the peer's multicast writes into it): each consumer
//    warpgroup arrives on the empty barrier of both CTAs (mapa + a
//    cluster-scope arrive), and each empty barrier counts 2 x 2 arrivals.
//  - Results leave through shared memory and TMA stores (store_tile_tma):
//    each warp writes its 16 rows of C in 128-byte-wide chunks into two
//    swizzled buffers and goes on while the copy engine stores them, so the
//    stores of one tile overlap the wgmmas of the next; with beta != 0 the
//    chunks of C come into the same buffers by TMA loads first. (C, ldc or n not in 16-byte
//    units: direct stores from registers.)
//  - With 16-bit C and beta = 0 a tile's results do not even hold up the
//    next tile: they are rounded into 64 registers of packed pairs
//    (HeldTile) and written out one chunk per k-slice while the next tile's
//    first four slices multiply, so the tensor cores no longer idle for the
//    epilogue.
//  - The persistent grid is as many clusters as the GPU runs at once
//    (cudaOccupancyMaxActiveClusters), each walking pairs of tiles. The
//    CTAs meet at a cluster barrier after setting up their barriers, and a
//    producer leaves only when both CTAs' consumers have released all its
//    stages (the peer may still arrive on them until then).
//  - Tile shapes besides 128 x 256 (configs.hpp), down to 64 x 128 with
//    a single consumer warpgroup for small sizes.
//  - Split-k where the plan asks for it (few units, or k deeper than one
//    accumulation chain should be): the work items are (unit, part of k),
//    each part's FP32 results go to its own rows of the workspace, and a
//    second kernel sums the parts in order into C (the same bits every run).
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 16 bytes (TMA);
// C any alignment. f16 and bf16 inputs, or FP32 inputs read as tf32 (the
// wgmma m64nNk8 variant; operands not stored K-major are first copied so,
// copy_operands); FP32 accumulation. The kernel: cluster.cuh.
#include "kernels/hopper/cluster.cuh"

namespace tessel::impl {

// The configurations the registry lists (src/dispatch/registry.cpp), a few to a file so that they build in
// parallel: f16 128 x 256 and 64 x 128 here; bf16 in 14_cluster_multicast_bf16.cu, 128 x 192 and 128 x 128 in
// 14_cluster_multicast_128x192.cu and _128x128.cu, tf32 in 14_cluster_multicast_tf32.cu.
TESSEL_CLUSTER(Cluster128x256, DType::kF16);
TESSEL_CLUSTER(Cluster64x128, DType::kF16);

}  // namespace tessel::impl
