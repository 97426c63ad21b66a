#include "dispatch/plan.hpp"

#include <algorithm>

namespace tessel {
namespace {

using impl::LaunchPlan;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int64_t kMaxGridRows = 65535;         // a 2D grid's y dimension
constexpr int64_t kMaxTmaExtent = int64_t(1) << 31;  // TMA coordinates are 32-bit

// Where split_count's `splits` parts still leave SMs without blocks (a few tiles, k very deep: 64 x 64 x 65536),
// step 08 cuts k further, into parts enough for a wave of blocks, up to kMaxDeepSplits, none shallower than
// kMinDeepSplitDepth (shallower ones measured slower: the part's fixed costs).
constexpr int64_t kMaxDeepSplits = 256;
constexpr int64_t kMinDeepSplitDepth = 256;
int64_t deep_splits(int64_t tiles, int64_t k, int64_t slots, int64_t splits) {
  if (impl::fills_slots(tiles * splits, slots)) return splits;
  return std::max(splits, std::min({kMaxDeepSplits, k / kMinDeepSplitDepth, ceil_div(slots, tiles)}));
}

// Step 08 on the configuration `shape` (e's own or its 4-warp variant); a
// strided batch of `batch` matrices runs whole tiles only.
LaunchPlan plan_step08(const KernelEntry& e, const impl::SimtShape& shape, int64_t m, int64_t n, int64_t k, int sms,
                       int64_t* busiest, int64_t batch = 1) {
  LaunchPlan p;
  p.k_per_split = k;
  const int64_t tiles = ceil_div(m, e.info.tile_m) * ceil_div(n, e.info.tile_n) * batch;
  if (e.stream_k && batch == 1) {
    const int slots = sms * e.blocks_per_sm;
    int64_t slices = 0;
    p.stream_k = impl::plan_step08_stream_k(tiles, k, shape.bk, slots, &slices, e.stream_k_cost);
    if (busiest) *busiest = slices * shape.bk;
    if (p.stream_k.sharing > 0) {
      p.stream_k_slots = slots;
      p.stream_k_slot_floats = int64_t(e.info.tile_m) * e.info.tile_n;
    }
    return p;
  }
  if (e.info.split_k && batch == 1) {
    const int fill = impl::fill_blocks(shape);
    const int64_t splits = deep_splits(tiles, k, int64_t(sms) * fill, impl::split_count(tiles, k, sms, fill, shape.bk));
    const int64_t depth = impl::split_depth(k, splits, shape.bk);
    p.k_per_split = depth;
    p.splits = ceil_div(k, depth);
  }
  if (busiest) {
    const int64_t blocks = tiles * p.splits;
    const int64_t depth = e.info.split_k ? p.k_per_split + impl::kSplitPartCost : k;
    *busiest = impl::busiest_sm_blocks(blocks, sms, impl::fill_blocks(shape)) * depth;
  }
  return p;
}

// The bytes of `splits` FP32 parts of `rows` x n.
size_t parts_bytes(int64_t splits, int64_t rows, int64_t n) {
  return size_t(splits) * size_t(rows) * size_t(impl::flipped_ld(n)) * sizeof(float);
}

// How many FP32 parts of `rows` x n fit kMaxPartsBytes (at least 1).
int64_t parts_that_fit(int64_t rows, int64_t n) {
  return std::max<int64_t>(1, int64_t(impl::kMaxPartsBytes / parts_bytes(1, rows, n)));
}

// Sets the plan's split-k: k cut into parts `depth` deep (the last shorter),
// each part's FP32 results `rows` rows of the workspace, summed in a fixed order.
void take_parts(LaunchPlan* p, int64_t k, int64_t depth, int64_t rows, int64_t n) {
  p->k_per_split = depth;
  p->splits = ceil_div(k, depth);
  p->part_rows = rows;
  p->parts_to_workspace = true;
  p->parts_bytes = parts_bytes(p->splits, rows, n);
}

// Split-k on a persistent kernel: k cut into parts of whole slices, each
// (unit, part) a work item, so that few units still fill the clusters; the
// parts go to the workspace (rows in whole units) and are summed in a fixed order.
// Of the counts whose parts fit kMaxPartsBytes, those that keep every
// accumulation chain within kMaxChainDepth (else the most parts), the fastest.
void plan_persistent_split(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int64_t units, int64_t slices,
                           LaunchPlan* p, int64_t* time) {
  const impl::ClusterUnits cu(m, n, e.info.tile_m, e.info.tile_n, e.cluster);
  const int64_t rows = cu.along_m * e.cluster * e.info.tile_m;
  // Up to a part per cluster where that is more than kMaxSplits (132 single CTAs on one 64 x 64 tile).
  const int64_t most = std::min(std::max<int64_t>(impl::kMaxSplits, p->clusters),
                                std::max<int64_t>(1, slices / impl::kMinPartSlices));
  const int64_t deep = std::min(most, ceil_div(k, impl::kMaxChainDepth));  // parts the chain bound asks for
  int64_t best = 1;
  for (int64_t s = 2; s <= most; ++s) {
    const int64_t per = ceil_div(slices, s), parts = ceil_div(slices, per);
    if (parts_bytes(parts, rows, n) > impl::kMaxPartsBytes) break;
    const int64_t t = impl::whole_units_slices(units * parts, per + impl::kPersistentPartCost, p->clusters) +
                      impl::kPersistentPartsSumCost;
    // Shorter chains first, up to the bound; then the estimate.
    const int64_t bounded = std::min(parts, deep), best_bounded = std::min(best, deep);
    if (bounded > best_bounded || (bounded == best_bounded && t < *time)) best = parts, *time = t;
  }
  if (best > 1) take_parts(p, k, ceil_div(slices, best) * e.k_slice, rows, n);
}

// Split-k on a grid of tiles (steps 09, 10): the count that fills the SMs
// with the least work (impl::split_count), at least enough parts to keep
// every accumulation chain within kMaxChainDepth, fewer where the parts
// would not fit kMaxPartsBytes; each part a row of blocks, its FP32 results
// in the workspace, summed in a fixed order.
void plan_tile_split(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int64_t tiles, int sms, LaunchPlan* p) {
  const int64_t most = std::min(impl::kMaxSplits, ceil_div(k, e.k_slice));
  const int64_t deep = ceil_div(k, impl::kMaxChainDepth);
  int64_t splits = std::max(impl::split_count(tiles, k, sms, 1, e.k_slice), deep);
  splits = std::min(splits, parts_that_fit(m, n));
  splits = std::min(splits, most);
  if (splits <= 1) return;
  const int64_t depth = impl::split_depth(k, splits, e.k_slice), parts = ceil_div(k, depth);
  const int64_t whole_time = impl::busiest_sm_blocks(tiles, sms, 1) * k;
  const int64_t split_time =
      impl::busiest_sm_blocks(tiles * parts, sms, 1) * (depth + impl::kSplitPartCost) + impl::kTensorPartsSumCost;
  if (parts <= 1 || (deep <= 1 && split_time >= whole_time)) return;
  take_parts(p, k, depth, m, n);
}

// Step 16: k cut into at most `splits` parts of whole k-slices (at most
// kMaxSplits, and fewer where they would not fit kMaxPartsBytes); false where
// that leaves k whole.
bool take_small_m_parts(LaunchPlan* p, const KernelEntry& e, const GemmArgs& a, int64_t splits) {
  splits = std::min({splits, impl::kMaxSplits, ceil_div(a.k, e.k_slice), parts_that_fit(a.m, a.n)});
  if (splits <= 1) return false;
  const int64_t depth = impl::split_depth(a.k, splits, e.k_slice);
  if (ceil_div(a.k, depth) <= 1) return false;
  take_parts(p, a.k, depth, a.m, a.n);
  return true;
}

// Step 16's parts of k in whole waves: of the counts 1 .. most of parts to cut `slices` slices into, the
// one whose blocks (`blocks` a part, in rounds of `slots`, each round a part's slices plus block_cost long)
// take the least time, the fewest parts among equals; *time: that time (k = 0: one slice).
int64_t wave_parts(int64_t blocks, int64_t slots, int64_t slices, int64_t most, double block_cost, double* time) {
  slices = std::max<int64_t>(slices, 1);
  int64_t best = 1;
  for (int64_t s = 1; s <= std::max<int64_t>(most, 1); ++s) {
    const int64_t depth = ceil_div(slices, s), parts = ceil_div(slices, depth);
    const double t = double(ceil_div(blocks * parts, slots)) * (double(depth) + block_cost);
    if (s == 1 || t < *time) best = parts, *time = t;
  }
  return best;
}

// Step 16 on tensor cores: k first among a block's warps (k_groups), then
// across blocks where the blocks would fill less than 3/4 of
// kSmallMmaBlocksPerSm an SM: into as many parts as fill them without a
// partial last round (measured: shorter blocks cost more than the round
// saves); the parts are summed in the kernel. Where the blocks are more than
// a round and its last round partial, k is cut where whole rounds of shorter
// parts (each a block's cost longer, kSmallMmaBlockSlices) save a tenth.
LaunchPlan plan_small_m_mma(const KernelEntry& e, const GemmArgs& a, int sms) {
  LaunchPlan p;
  p.k_per_split = a.k;
  const size_t bytes = size_of(a.precision.ab);
  const int64_t steps = ceil_div(a.k, int64_t(impl::small_mma_step_k(a.opB, bytes)));
  const int unroll = impl::small_mma_unroll(a.m, a.opB);
  p.k_groups = impl::kSmallMmaWarps;
  while (p.k_groups > 1 && steps < p.k_groups * unroll * impl::kSmallMmaMinRounds) p.k_groups /= 2;
  const int64_t blocks = ceil_div(a.n, impl::small_mma_columns(p.k_groups, a.opB, a.m, bytes));
  const int64_t slots = impl::kSmallMmaBlocksPerSm * sms;
  if (4 * blocks < 3 * slots) {
    if (take_small_m_parts(&p, e, a, slots / blocks)) p.arrival_flags = blocks;
    return p;
  }
  if (blocks <= slots || blocks % slots == 0 || impl::small_mma_resident(a.m, a.opB) != impl::kSmallMmaBlocksPerSm) {
    return p;  // one round, whole rounds, or more blocks an SM than the slots count
  }
  const int64_t slices = ceil_div(a.k, e.k_slice);
  const int64_t most = std::min({impl::kMaxSplits, slices, parts_that_fit(a.m, a.n)});
  double whole = 0.0, split = 0.0;  // k whole; the best parts
  wave_parts(blocks, slots, slices, 1, impl::kSmallMmaBlockSlices, &whole);
  const int64_t best = wave_parts(blocks, slots, slices, most, impl::kSmallMmaBlockSlices, &split);
  if (10 * split < 9 * whole && take_small_m_parts(&p, e, a, best)) p.arrival_flags = blocks;
  return p;
}

// Step 16: k split into whole staged chunks, as many parts as take the least time: the columns' blocks
// times the parts run in waves of the blocks the SMs hold at once, each wave a part's chunks long plus
// a block's own cost (kSmallMBlockChunks); the fewest parts among equals.
LaunchPlan plan_small_m(const KernelEntry& e, const GemmArgs& a, int sms) {
  if (e.small_m_mma) return plan_small_m_mma(e, a, sms);
  const int64_t columns = a.opB == Op::T ? e.info.tile_n : impl::small_m_columns_n(size_of(a.precision.ab));
  const int64_t blocks = ceil_div(a.n, columns);
  const bool vec = impl::in_16_byte_units(a.B, a.ldb, size_of(a.precision.ab));
  auto resident = [&](bool arrive) {  // blocks an SM of the kernel with the tail that sums the parts or without
    int per_sm = 0;
    if (e.small_m_resident == nullptr || e.small_m_resident(a.opB, a.m, vec, arrive, &per_sm) != cudaSuccess ||
        per_sm < 1) {
      per_sm = impl::kSmallMBlocksPerSm;
    }
    return per_sm;
  };
  const int64_t chunks = ceil_div(std::max<int64_t>(a.k, 1), e.k_slice);
  const int64_t most = std::min({impl::kMaxSplits, chunks, parts_that_fit(a.m, a.n)});
  auto best_parts = [&](int per_sm) {
    double time = 0.0;
    return wave_parts(blocks, int64_t(per_sm) * sms, chunks, most, impl::kSmallMBlockChunks, &time);
  };
  LaunchPlan p;
  p.k_per_split = a.k;
  // The parts summed by the last one to arrive (the plan for its kernel's blocks an SM) at m <= kSmallMArrivalMaxM
  // where that block's sum is short and its kernel keeps as many blocks an SM, else by a second launch.
  const int plain = resident(false), arriving = a.m <= impl::kSmallMArrivalMaxM ? resident(true) : 0;
  if (arriving >= plain) {
    LaunchPlan q = p;
    if (take_small_m_parts(&q, e, a, best_parts(arriving)) &&
        a.m * std::min(columns, a.n) * q.splits <= impl::kSmallMArrivalMaxSums) {
      q.arrival_flags = blocks;
      return q;
    }
  }
  take_small_m_parts(&p, e, a, best_parts(plain));
  return p;
}

// Persistent kernels: `clusters` clusters (or blocks) walk the units; step 15 shares the last waves, step 14
// splits k where the units are few or k is deep. A strided batch of `batch` matrices: whole units only.
LaunchPlan plan_persistent(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int clusters, int64_t* busiest,
                           int64_t batch = 1) {
  LaunchPlan p;
  p.k_per_split = k;
  p.clusters = clusters;
  const int64_t units = impl::ClusterUnits(m, n, e.info.tile_m, e.info.tile_n, e.cluster).count() * batch;
  const int64_t slices = ceil_div(std::max<int64_t>(k, 1), e.k_slice);
  int64_t time = impl::whole_units_slices(units, slices, p.clusters);
  if (e.info.split_k && batch == 1) plan_persistent_split(e, m, n, k, units, slices, &p, &time);
  if (e.stream_k && batch == 1) {
    p.stream_k = impl::plan_stream_k(units, slices, p.clusters, &time, e.stream_k_cost);
    if (p.stream_k.sharing > 0) {  // a slot per consumer warpgroup (64 rows of the tile) of every CTA
      p.stream_k_slots = p.clusters * e.cluster * (e.info.tile_m / 64);
      p.stream_k_slot_floats = int64_t(64) * e.info.tile_n;
    }
  }
  if (busiest) *busiest = time;
  return p;
}

int full_gpu_clusters(const KernelEntry& e, int sms) { return std::max(1, sms * e.blocks_per_sm / e.cluster); }


}  // namespace

LaunchPlan plan_schedule(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int sms, int64_t* busiest,
                         int64_t batch) {
  k = std::max<int64_t>(k, 1);
  // The estimates assume a whole GPU: a cluster per `cluster` SMs.
  if (e.persistent) return plan_persistent(e, m, n, k, full_gpu_clusters(e, sms), busiest, batch);
  if (e.info.ladder_step == 8) return plan_step08(e, e.simt, m, n, k, sms, busiest, batch);
  LaunchPlan p;  // one block per tile (and part of k)
  p.k_per_split = k;
  const int64_t tiles = ceil_div(m, e.info.tile_m) * ceil_div(n, e.info.tile_n) * batch;
  if (e.info.split_k && e.info.max_m == 0 && batch == 1) plan_tile_split(e, m, n, k, tiles, sms, &p);
  if (busiest) {  // counted block by block: these kernels run at full speed with one block an SM
    const int64_t depth = p.splits > 1 ? p.k_per_split + impl::kSplitPartCost : k;
    *busiest = impl::busiest_sm_blocks(tiles * p.splits, sms, 1) * depth;
  }
  return p;
}

namespace {

// Whether A's and B's rows are in 16-byte units (pointers and leading dimensions): TMA can read them, and
// step 16 on tensor cores loads them directly.
bool operand_rows_in_16_byte_units(const GemmArgs& a) {
  const size_t bytes = size_of(a.precision.ab);
  return impl::in_16_byte_units(a.A, a.lda, bytes) && impl::in_16_byte_units(a.B, a.ldb, bytes);
}

// Step 16 on CUDA cores (FP32 multiply-adds): for an FP32 call where it measured faster than the tiles; for
// tf32 with op T where the operands' rows are not in 16-byte units, where it measured faster than step 16
// on tensor cores (the tiles would copy them first).
bool fp32_stream_pays(const GemmArgs& a) {
  if (a.precision.compute == Compute::kTF32) {
    return a.opB == Op::T && !operand_rows_in_16_byte_units(a);
  }
  if (a.precision.compute != Compute::kF32) return false;
  const int64_t weight = a.n * a.k;
  if (a.opB == Op::T) return a.m <= impl::kSmallMFmaOpTMaxM || weight >= impl::kSmallMFmaOpTMinWeight;
  return a.m <= impl::kSmallMFmaOpNMaxM || (a.k >= impl::kSmallMFmaOpNMinK && weight >= impl::kSmallMFmaOpNMinWeight);
}

// Step 16 on Hopper's swapped tiles (KernelEntry::swaps): 16-bit or tf32 inputs, m <= 16, A with op N,
// A and B where TMA reads them, one plain matrix, where they measured faster (cost_model.hpp, kSwap*).
bool swapped_tiles_pay(const GemmArgs& a) {
  const size_t bytes = size_of(a.precision.ab);
  const bool tf32 = a.precision.compute == Compute::kTF32;
  if ((bytes != 2 && !tf32) || a.m > impl::kSmallMMaxM || a.k < impl::kSwapMinK || a.opA != Op::N) return false;
  if (a.batch > 1 || impl::grouped(a) || impl::device_matrices(a) || a.epilogue.any()) return false;
  if (!operand_rows_in_16_byte_units(a)) return false;
  if (tf32) return a.opB == Op::T || a.m > impl::kSwapTf32StreamMaxM || a.n < impl::kSwapManyRowsMaxN;
  if (a.m > impl::kSwapFewRowsMaxM && a.n >= impl::kSwapManyRowsMaxN) return false;
  if (a.opB == Op::N) return a.n <= impl::kSwapOpNMaxN;
  return a.k >= impl::kSwapOpTMinK && a.n >= impl::kSwapOpTMinN;
}

// Step 16 on tensor cores: tf32 with op N (the tiles copy all of B transposed first; with op T the tiles,
// or the FP32 stream where rows are not in 16-byte units); 16-bit inputs where the operands' rows are not
// in 16-byte units (the tiles would copy them first, or WMMA run, far slower), else where it measured
// faster than the wgmma tiles (and Hopper's swapped tiles do not take the call).
bool small_mma_pays(const GemmArgs& a) {
  if (swapped_tiles_pay(a)) return false;
  const size_t bytes = size_of(a.precision.ab);
  if (bytes == 4) return a.opB == Op::N;
  if (!operand_rows_in_16_byte_units(a)) return true;
  if (a.opB == Op::T) return a.m <= impl::kSmallMmaOneTileMaxM || a.n < impl::kSmallMmaOpTTwoTileMinN;
  return a.m <= impl::kSmallMmaOpNMaxM && a.k >= impl::kSmallMmaOpNMinK && a.n >= impl::kSmallMmaOpNMinN;
}

// Step 18 where it measured faster than the tiles: k of a few values (C written at
// nearly the copy's speed), more rows than step 16 takes, a single matrix.
bool shallow_k_pays(const GemmArgs& a) {
  const bool shallow = a.k <= impl::shallow_max_k(a.precision, a.m * a.n);
  return shallow && a.m > impl::kSmallMMaxM && a.n >= impl::kShallowMinN && a.batch <= 1 && !impl::grouped(a) &&
         !impl::device_matrices(a);
}

// tf32 on the wgmma kernels with A read from registers where it is MN-major (swaps_operands).
bool tf32_registers(const KernelEntry& e, const GemmArgs& a) {
  return e.copies == Copies::kKMajor && a.precision.compute == Compute::kTF32 && !impl::grouped(a) &&
         !impl::device_matrices(a);
}

// The tf32 wgmma kernels where they still copy B with op N transposed first (not swapped): O(nk) against
// O(mnk), at few rows mostly the copy (a single matrix: batches and groups keep the kernels that walk them).
bool tf32_copies_b_for_few_rows(const KernelEntry& e, const GemmArgs& a) {
  return e.copies == Copies::kKMajor && a.precision.compute == Compute::kTF32 && a.opB == Op::N &&
         !swaps_operands(e, a) && a.m <= impl::kTf32CopyBMinM && a.batch <= 1 && !impl::grouped(a) &&
         !impl::problems(a);
}

// Step 14's single CTAs with k split (KernelEntry::few_tiles): a single matrix with few tiles, or for tf32
// one tile high or wide (kSplitSoloSmsPerTile).
bool few_tiles_pay(const KernelEntry& e, const GemmArgs& a, int sms) {
  if (a.batch > 1 || impl::grouped(a) || impl::device_matrices(a)) return false;
  const int64_t tiles = ceil_div(a.m, e.info.tile_m) * ceil_div(a.n, e.info.tile_n);
  const bool tf32_one_row = a.precision.compute == Compute::kTF32 && std::min(a.m, a.n) <= e.info.tile_m;
  return tiles * impl::kSplitSoloSmsPerTile <= sms || tf32_one_row;
}

}  // namespace

bool swaps_operands(const KernelEntry& e, const GemmArgs& a) {
  return e.swaps || (tf32_registers(e, a) && a.opA == Op::N && a.opB == Op::N &&
                     4 * a.k >= impl::kTf32SwapDepthQuarters * a.m);
}

bool auto_candidate(const KernelEntry& e, const GemmArgs& a, int sms) {
  if (e.auto_max_m > 0 && a.m > e.auto_max_m) return false;
  if (e.few_tiles && !few_tiles_pay(e, a, sms)) return false;
  if (tf32_copies_b_for_few_rows(e, a)) return false;
  if (e.swaps) return swapped_tiles_pay(a);
  if (e.shallow_k) return shallow_k_pays(a);
  if (e.small_m_mma) return small_mma_pays(a);
  if (e.info.max_m > 0) return fp32_stream_pays(a);  // the FP32 stream
  return true;
}

bool runs_batch(const KernelEntry& e, const GemmArgs& a) {
  if (impl::pointer_array(a)) return e.info.pointer_array;  // one launch, whatever the count
  if (impl::problems(a)) return e.info.grouped;
  return a.batch > 1 && e.info.batched && !a.epilogue.any() && a.batch < kMaxTmaExtent;  // a TMA coordinate
}

Realign realign_for(const GemmArgs& a) {
  if (a.k == 0 || a.alpha == 0.0f || impl::device_matrices(a)) return {};  // no copy can follow device-side pointers
  const size_t bytes = size_of(a.precision.ab);
  // Every matrix of a batch: the strides too.
  const auto units = [&](const void* p, int64_t ld, int64_t stride) {
    return impl::in_16_byte_units(p, ld, bytes) && (a.batch <= 1 || stride * int64_t(bytes) % 16 == 0);
  };
  Realign r{!units(a.A, a.lda, a.stride_a), !units(a.B, a.ldb, a.stride_b)};
  const double copied = double(bytes) * ((r.a ? double(a.m) * double(a.k) : 0.0) +
                                         (r.b ? double(a.k) * double(a.n) : 0.0));
  // FP8 has only TMA-fed kernels: an operand not in 16-byte units is always copied.
  if (copied > 0 && !is_fp8(a.precision.ab) &&
      !impl::realign_pays(2.0 * double(a.m) * double(a.n) * double(a.k), copied, a.precision)) {
    return {};
  }
  return r;
}

LaunchPlan make_plan(const KernelEntry& entry, const GemmArgs& a, int sms, Realign realign) {
  const KernelEntry* e = &entry;
  if (e->fallback != nullptr) {  // sizes TMA cannot address go to the fallback, and so do grids too tall
    const bool addressable = a.m < kMaxTmaExtent && a.n < kMaxTmaExtent && a.k < kMaxTmaExtent;
    const bool fits = addressable && (plan_schedule(*e, a.m, a.n, a.k, sms).stream_k.sharing > 0 ||
                                      ceil_div(a.m, e->info.tile_m) <= kMaxGridRows);
    if (!fits) {
      if (const KernelEntry* f = find_entry(e->fallback)) e = f;
    }
  }
  LaunchPlan p;
  impl::SimtShape shape = e->simt;
  const int64_t batch = runs_batch(*e, a) ? a.batch : 1;  // matrices of one launch
  if (e->info.ladder_step == 8) {
    p = plan_step08(*e, shape, a.m, a.n, a.k, sms, nullptr, batch);
    p.launch = e->launch;
    if (e->four_warps != nullptr) {  // few 2-warp blocks an SM: 4-warp blocks hide loads better
      const bool transposing = a.opA == Op::N || a.opB == Op::T;
      const int most = transposing ? impl::kFourWarpSplitMostBlocksTransposing : impl::kFourWarpSplitMostBlocks;
      const int64_t tiles = ceil_div(a.m, e->info.tile_m) * ceil_div(a.n, e->info.tile_n) * batch;
      if (tiles * p.splits <= int64_t(most) * sms) {
        shape = e->four_warps_simt;
        p = plan_step08(*e, shape, a.m, a.n, a.k, sms, nullptr, batch);
        p.launch = e->four_warps;
      }
    }
  } else if (e->persistent) {  // on the clusters that run at once (fewer on a partitioned GPU)
    int clusters = full_gpu_clusters(*e, sms);
    if (int resident = 0; e->resident != nullptr && e->resident(&resident) == cudaSuccess && resident > 0) {
      clusters = resident;
    }
    const bool swap = swaps_operands(*e, a);  // the kernel's m and n are the call's n and m
    p = plan_persistent(*e, swap ? a.n : a.m, swap ? a.m : a.n, a.k, clusters, nullptr, batch);
    p.launch = e->launch;
  } else if (e->info.max_m > 0) {
    p = plan_small_m(*e, a, sms);
    p.launch = e->launch;
  } else {
    p = plan_schedule(*e, a.m, a.n, a.k, sms, nullptr, batch);
    p.launch = e->launch;
    if (e->shallow_k) p.clusters = sms * impl::kShallowBlocksPerSm;  // blocks that walk the tiles
  }

  // Whole tiles: the groups fill the GPU; a pointer-array batch's matrices, or problems, are known on the
  // device only.
  if (impl::grouped(a) || impl::device_matrices(a)) p = lean_plan(p, *e, a, realign);
  if (impl::device_matrices(a) && e->info.max_compute_capability == 90) p.pointer_maps = 3 * a.batch;
  // Operands copied transposed first (a batch in one launch: all its matrices at once).
  switch (e->copies) {
    case Copies::kNone:
      break;
    case Copies::kWherePays:
      if (p.stream_k.sharing > 0) {  // the shared runs lose most on the register path: copy where it fits
        p.copy_a = a.opA == Op::N && impl::copy_fits(a.m, a.k);
        p.copy_b = a.opB == Op::T && impl::copy_fits(a.n, a.k);
      } else {
        const double flops = 2.0 * double(a.m) * double(a.n) * double(a.k) * double(batch);
        const int64_t blocks = ceil_div(a.m, e->info.tile_m) * ceil_div(a.n, e->info.tile_n) * p.splits * batch;
        const int64_t slots = int64_t(sms) * shape.min_blocks;
        const bool split = p.splits > 1;
        // A batch's copies: every matrix of the operand (one where it is shared).
        const int64_t copies_a = a.stride_a != 0 ? batch : 1, copies_b = a.stride_b != 0 ? batch : 1;
        p.copy_a = a.opA == Op::N && impl::copy_pays(flops, a.m * copies_a, a.k, blocks, slots,
                                                     impl::register_path(shape, false, split));
        p.copy_b = a.opB == Op::T && impl::copy_pays(flops, a.n * copies_b, a.k, blocks, slots,
                                                     impl::register_path(shape, true, split));
      }
      break;
    case Copies::kTransposing:
      p.copy_a = a.opA == Op::N, p.copy_b = a.opB == Op::T;
      break;
    case Copies::kAKMajor:
      p.copy_a = a.opA == Op::T;
      p.round_tf32 = a.precision.compute == Compute::kTF32;
      break;
    case Copies::kKMajor:
      if (tf32_registers(*e, a)) {  // B op N where the call is not swapped (swaps_operands)
        p.copy_b = a.opB == Op::N && !swaps_operands(*e, a);
      } else {
        p.copy_a = a.opA == Op::T, p.copy_b = a.opB == Op::N;
      }
      p.round_tf32 = a.precision.compute == Compute::kTF32;
      break;
  }
  if (impl::device_matrices(a)) p.copy_a = p.copy_b = false;  // (misfit keeps K-major copies away)
  // Operands not in 16-byte units, for a kernel that needs them so and copies them no other way.
  p.realign_a = realign.a && e->info.alignment > 1 && !p.copy_a;
  p.realign_b = realign.b && e->info.alignment > 1 && !p.copy_b;
  p.operand_bytes = impl::operand_copy_bytes(a, p.copy_a, p.copy_b, p.realign_a, p.realign_b);

  // Step 08's split-k parts (the tensor-core steps plan theirs above, always to the workspace):
  // each into the workspace, summed into C in a fixed order (the same bits every run),
  // at most kMaxPartsBytes of them (fewer parts where more would not fit; one part is plain tiles).
  // With atomics allowed they add into C instead, unless C is unaligned and large enough that
  // the sum beats element-wise atomics.
  if (e->info.ladder_step == 8 && e->info.split_k && p.splits > 1) {
    p.part_rows = a.m;
    const size_t part_bytes = parts_bytes(1, a.m, a.n);
    const bool parts_pay =
        !shape.aligned && !impl::in_16_byte_units(a.C, a.ldc, sizeof(float)) && a.m * a.n >= impl::kMinPartsOutput;
    if (!a.allow_atomics && size_t(p.splits) * part_bytes > impl::kMaxPartsBytes) {
      const int64_t fit = parts_that_fit(a.m, a.n);
      p.k_per_split = fit > 1 ? impl::split_depth(a.k, fit, shape.bk) : a.k;
      p.splits = ceil_div(a.k, p.k_per_split);
    }
    if (p.splits > 1 && (!a.allow_atomics || (parts_pay && size_t(p.splits) * part_bytes <= impl::kMaxPartsBytes))) {
      p.parts_to_workspace = true, p.parts_bytes = size_t(p.splits) * part_bytes;
    }
  }
  return p;
}

impl::LaunchPlan lean_plan(impl::LaunchPlan p, const KernelEntry& e, const GemmArgs& a, Realign realign) {
  if (e.copies == Copies::kWherePays) {  // operands not in 16-byte units are still copied, as they are
    p.copy_a = p.copy_b = false;
    p.realign_a = realign.a && e.info.alignment > 1, p.realign_b = realign.b && e.info.alignment > 1;
    p.operand_bytes = impl::operand_copy_bytes(a, false, false, p.realign_a, p.realign_b);
  }
  if (p.splits > 1 || p.parts_to_workspace) {
    p.splits = 1, p.k_per_split = a.k, p.part_rows = 0, p.parts_to_workspace = false, p.parts_bytes = 0;
  }
  if (p.stream_k.sharing > 0) {  // every unit whole
    const int64_t units = e.persistent ? impl::ClusterUnits(a.m, a.n, e.info.tile_m, e.info.tile_n, e.cluster).count()
                                       : ceil_div(a.m, e.info.tile_m) * ceil_div(a.n, e.info.tile_n);
    p.stream_k = {}, p.stream_k.whole = int(units), p.stream_k_slots = 0, p.stream_k_slot_floats = 0;
  }
  return p;
}

}  // namespace tessel
