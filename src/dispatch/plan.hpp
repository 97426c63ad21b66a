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
impl::LaunchPlan plan_schedule(const KernelEntry& e, int64_t m, int64_t n, int64_t k, int sms,
                               int64_t* busiest = nullptr);

// The whole plan of a validated call that multiplies (m, n, k > 0, alpha !=
// 0) on entry e: the configuration it runs on (e's, its 4-warp variant, or
// its fallback), the schedule, operand copies, split-k parts and workspace.
impl::LaunchPlan make_plan(const KernelEntry& e, const GemmArgs& a, int sms);

// The plan without the scratch memory it can do without, for when the GPU has
// no room for it: no optional operand copies, k not split, no stream-K
// sharing. Copies the kernel cannot run without (TMA, tf32 K-major) stay.
impl::LaunchPlan lean_plan(impl::LaunchPlan plan, const KernelEntry& e, const GemmArgs& a);

}  // namespace tessel
