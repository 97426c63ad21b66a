// Internal: planning a call — every decision about how a kernel runs it,
// made once (impl::LaunchPlan), before anything is launched. The launchers
// only read the plan; the dispatcher's estimates (heuristic.hpp) read the
// same schedule.
#pragma once

#include <cstdint>

#include "dispatch/registry.hpp"

namespace tessel {

// The schedule of an m x n x k call on entry e as registered, on `sms` SMs:
// split-k parts, the stream-K plan, a persistent kernel's clusters, the
// stream-K workspace. *busiest: the estimated slice times (or k-depth for
// split-k) of the busiest SM's or cluster's work, for the estimates.
// A strided batch of `batch` such calls that e runs in one launch: whole tiles only.
impl::LaunchPlan plan_schedule(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int sms,
                               int64_t* busiest = nullptr, int64_t batch = 1);

// The operands of a call that auto-dispatch copies with their rows in
// 16-byte units before an aligned kernel reads them: those whose pointer or
// leading dimension is not, where the copies pay (impl::realign_pays).
struct Realign {
  bool a = false, b = false;
};
Realign realign_for(const GemmArgs& a);

// Whether e runs the strided batch of call a (a.batch > 1) in one launch
// (after the operand copies it needs, all matrices at once): it walks batches
// (KernelInfo::batched) and there is no epilogue pass; else dispatch runs it
// a matrix at a time.
bool runs_batch(const KernelEntry& e, const GemmArgs& a);

// Whether auto-dispatch considers e for call a: every kernel within its
// auto_max_m; step 16's swapped wgmma tiles where they measured faster
// (kSwap*: 16-bit or tf32, m <= 16, A op N, deep k), and where they do not, step 16 on
// tensor cores with 16-bit B op N only where it measured faster than the wgmma
// tiles (kSmallMmaOpN*: few rows, deep k, wide n), and for tf32 with op N only;
// step 16 on CUDA cores for FP32 where it measured faster (kSmallMFma*); the
// tf32 wgmma kernels not where they would copy B transposed for few rows
// (kTf32CopyBMinM); step 14's single CTAs with k split where the output has few of their tiles
// (kSplitSoloSmsPerTile) on `sms` SMs.
bool auto_candidate(const KernelEntry& e, const GemmArgs& a, int sms);

// tf32 on the wgmma kernels (K-major shared-memory operands only, but A may
// come from registers, so op pairs (N, T) and (T, T) copy nothing): whether
// e runs call a, op pair (N, N), swapped, Cᵀ = Bᵀ·Aᵀ, with B (n contiguous)
// read into registers as the kernel's A and the results stored transposed:
// where k is deep enough for m (kTf32SwapDepthQuarters); elsewhere, and for
// (T, N), B is copied K-major first. A grouped GEMM (the swap would make its
// rows columns) and a pointer-array batch have both operands K-major, as FP8.
// The swapped step-16 kernels (KernelEntry::swaps) run every call so.
bool swaps_operands(const KernelEntry& e, const GemmArgs& a);

// The whole plan of a validated call that multiplies (m, n, k > 0, alpha !=
// 0) on entry e: the configuration it runs on (e's, its 4-warp variant, or
// its fallback), the schedule, operand copies (those `realign` names, where
// e needs aligned operands and copies them no other way), split-k parts and
// workspace.
impl::LaunchPlan make_plan(const KernelEntry& e, const GemmArgs& a, int sms, Realign realign = {});

// The plan without the scratch memory it can do without, for when the GPU has
// no room for it: no optional operand copies, k not split, no stream-K
// sharing. Copies the kernel cannot run without (TMA, tf32 K-major, the
// operands `realign` names) stay.
impl::LaunchPlan lean_plan(impl::LaunchPlan plan, const KernelEntry& e, const GemmArgs& a, Realign realign = {});

}  // namespace tessel
