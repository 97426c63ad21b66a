// Ladder step 08's launcher (the kernels: 08_pipelined.cuh): launches the
// plan dispatch made (src/dispatch/plan.cpp) — split-k parts, stream-K's two
// launches; dispatch made the operand copies — and decides nothing itself.
// Instantiated per configuration in 08_pipelined*.cu.
#pragma once

#include "kernels/simt/08_pipelined.cuh"
#include "kernels/workspace.hpp"

namespace tessel::impl {

template <class Cfg, bool Aligned, Schedule S>
cudaError_t launch_pipelined(const GemmArgs& call, const LaunchPlan& plan, cudaStream_t stream) {
  constexpr bool SplitK = S == Schedule::kSplitK;
  constexpr size_t kSmem = 2 * sizeof(float) * Cfg::kBK * (Cfg::kBM + Cfg::kBN + 2 * Cfg::kPad);
  const SgemmArgs args = to_sgemm(call);  // operands the plan copied transposed already point at their copies
  if constexpr (S == Schedule::kStreamK) {
    static_assert(Aligned, "stream-K is compiled for the aligned kernels only");
    if (plan.stream_k.sharing > 0) {
      StreamKWork sk;
      if (cudaError_t err = stream_k_work(plan, stream, &sk); err != cudaSuccess) return err;
      // Two launches: the whole waves' tiles by the tile kernel, at its speed, then the remainder's runs.
      return device::with_ops(args.opA, args.opB, [&](auto ta, auto tb) {
        auto tiles_kernel = pipelined_kernel<Cfg, true, true, true, KSplit::kNone, ta, tb, true>;
        auto runs_kernel = pipelined_stream_k_kernel<Cfg, ta, tb>;
        for (const void* kernel :
             {reinterpret_cast<const void*>(tiles_kernel), reinterpret_cast<const void*>(runs_kernel)}) {
          if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem));
              err != cudaSuccess) {
            return err;
          }
        }
        if (sk.whole > 0) {
          if (cudaError_t err = device::launch(tiles_kernel, unsigned(sk.whole), Cfg::kThreads, kSmem, stream, args,
                                               args.k, int64_t(0), MatrixStrides{});
              err != cudaSuccess) {
            return err;
          }
        }
        return device::launch(runs_kernel, unsigned(sk.sharing), Cfg::kThreads, kSmem, stream, args, sk);
      });
    }
  }
  // One block per tile and part of k. Each part stores into its own aligned
  // matrix in the workspace, summed into C in a fixed order afterwards (C is
  // written last, and the same bits every run), or, where the plan allows
  // atomics, the parts add into C (scaled by beta first). One part: plain tiles.
  const int64_t splits = SplitK ? plan.splits : 1, per_split = SplitK ? plan.k_per_split : args.k;
  const bool to_parts = SplitK && splits > 1 && plan.parts_to_workspace;
  SgemmArgs out = args;  // what the kernel writes
  int64_t part_stride = 0;
  if (to_parts) {
    void* parts = nullptr;
    if (cudaError_t err = plan_workspace(plan, stream, WorkspaceUse::kSplitParts, &parts); err != cudaSuccess) {
      return err;
    }
    const int64_t ldp = flipped_ld(args.n);
    out.C = static_cast<float*>(parts), out.ldc = ldp, out.beta = 0.0f, part_stride = args.m * ldp;
  } else if (SplitK && splits > 1) {
    if (cudaError_t err = launch_scale(args.beta, args.C, args.m, args.n, args.ldc, stream); err != cudaSuccess) return err;
  }
  auto launch = [&](auto aligned_a, auto aligned_b, auto aligned_c, auto split) {
    return device::with_ops(args.opA, args.opB, [&](auto ta, auto tb) {
      auto kernel = pipelined_kernel<Cfg, aligned_a, aligned_b, aligned_c, split, ta, tb>;
      if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem));
          err != cudaSuccess) {
        return err;
      }
      // A strided batch on z (one part of k), in launches of at most kMaxGridZ matrices.
      MatrixStrides strides{call.stride_a, call.stride_b, call.stride_c, call.a_array, call.b_array, call.c_array};
      const int64_t matrices = splits > 1 ? 1 : call.batch;
      for (int64_t b0 = 0; b0 < matrices; b0 += device::kMaxGridZ) {
        SgemmArgs first = out;
        first.A += b0 * strides.a, first.B += b0 * strides.b, first.C += b0 * strides.c;
        strides.first = b0;
        const unsigned z = unsigned(splits > 1 ? splits : std::min(device::kMaxGridZ, matrices - b0));
        if (cudaError_t err = device::split_rows(first, Cfg::kBM, [&](const SgemmArgs& p) {
              const dim3 grid(device::ceil_div(p.n, Cfg::kBN), device::ceil_div(p.m, Cfg::kBM), z);
              return device::launch(kernel, grid, Cfg::kThreads, kSmem, stream, p, per_split, part_stride, strides);
            });
            err != cudaSuccess) {
          return err;
        }
      }
      return cudaSuccess;
    });
  };
  using AlignedC = device::Bool<Aligned>;
  auto launch_split = [&](auto aligned_a, auto aligned_b) {
    if constexpr (!SplitK) {
      return launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kNone>{});
    } else {
      if (splits == 1) return launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kNone>{});
      return to_parts ? launch(aligned_a, aligned_b, device::Bool<true>{}, KSplitConstant<KSplit::kParts>{})
                      : launch(aligned_a, aligned_b, AlignedC{}, KSplitConstant<KSplit::kAtomic>{});
    }
  };
  cudaError_t err = cudaSuccess;
  if constexpr (Aligned) {
    err = launch_split(device::Bool<true>{}, device::Bool<true>{});
  } else {  // the kernel for any alignment still reads an operand that is aligned in 16-byte chunks
    const bool arrays = pointer_array(call);  // each matrix's pointer is known on the device only
    err = device::with_bools(!arrays && in_16_byte_units(args.A, args.lda, sizeof(float)),
                             !arrays && in_16_byte_units(args.B, args.ldb, sizeof(float)), launch_split);
  }
  if (err != cudaSuccess || !to_parts) return err;
  return launch_sum_parts(out.C, splits, part_stride, out.ldc, args.beta, args.C, args.m, args.n, args.ldc, stream);
}

}  // namespace tessel::impl
