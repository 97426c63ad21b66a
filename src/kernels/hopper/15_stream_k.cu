// Step 15: stream-K: the last waves' k-slices shared evenly by every cluster
// (Hopper, sm_90a).
//
// What changes over step 14:
//  - Step 14 hands out whole tiles, so a size whose tile count is not a
//    multiple of the clusters running at once leaves a last wave partly
//    idle: at 3072^3, 144 pairs of 128 x 256 tiles on 66 clusters is 2.18
//    waves, the third 18% full, and the GEMM takes 3 waves' time.
//  - Here the work of the last two waves (one full wave plus the remainder:
//    the remainder alone would cut units into many small pieces) is cut into
//    k-slices, laid end to end tile after tile, and every cluster takes an
//    equal run of them. A run starts and ends anywhere, so a tile may be
//    shared by consecutive clusters: the cluster with its last slices owns
//    it. Each cluster walks its run from the end backwards, so it first
//    takes the unit at the end of its run, whose later slices belong to the
//    next cluster: it writes these partial sums to a workspace in global
//    memory and raises a flag. It takes the unit at the start of its run,
//    which it owns, last: there it waits for the flags of the earlier
//    clusters that hold the unit's first slices (raised at the start of
//    their walks, so the wait is short), adds their sums and stores the
//    tile as usual.
//  - A cluster's first segment is its only one that may not own its tile,
//    so one partial-sum slot per CTA suffices (128 x 256 FP32 = 128 KiB;
//    17 MiB for 132 CTAs). Readers reset the flags, so the workspace is
//    clean for the next call on the same stream without a memset.
//  - A cluster waits only for clusters of lower index, which are dispatched
//    before it (the hardware starts blocks in index order in practice; CUDA
//    does not promise it): even when the grid does not fit at once (another
//    kernel holds SMs), the clusters waited for are running or done.
//  - Earlier waves are walked whole, as in step 14 (no fix-up cost there).
//  - Handing partial sums over is not free (about 10 slice times each), so
//    the plan (dispatch/cost_model.hpp) shares only where its estimate
//    saves at least 5% (e.g. not at 3.9 of 4 waves); otherwise this is step 14 with 128 x 256
//    tiles, held-tile epilogue included. Where the plan shares, results
//    leave after each tile: the held registers and the hand-over code
//    together did not fit the consumers' 232 registers (ptxas spilled).
//  - Small m (decode; configs.hpp's Solo tiles): a cluster's second row
//    tile would compute rows past m, so single CTAs, one per SM, take
//    64 x 128 or 128 x 128 tiles and share every unit's k-slices, and B
//    streams through all SMs at once.
//
// Needs A and B 16-byte aligned with lda, ldb multiples of 8 elements (TMA);
// C any alignment. f16 and bf16 inputs, FP32 accumulation.
#include "kernels/hopper/stream_k.cuh"

namespace tessel::impl {

// 128 x 256 tiles, f16 inputs here (a few configurations to a file, so that they build in parallel): bf16 in
// 15_stream_k_bf16.cu, the other tiles in 15_stream_k_128x192*.cu, _128x128.cu and the _solo*.cu files.
TESSEL_STREAM_K(Cluster128x256, DType::kF16);

}  // namespace tessel::impl
