// The benchmark's operands made and checked on the GPU: at the sizes of the
// shape suites (8192 x 28672 and up) filling, uploading and comparing on the
// host took seconds a row, longer than the timing itself.
#pragma once

#include <tessel/tessel.hpp>

#include <cstddef>
#include <cstdint>

#include "harness/verify.hpp"

namespace tessel::harness {

// `count` elements of `type` at p: uniform in [-1, 1), from a hash of (seed,
// index), rounded once to the type (different seeds: unrelated values).
void fill_device(void* p, DType type, size_t count, uint64_t seed, cudaStream_t stream = nullptr);

// Reads `bytes` (a multiple of 16) at p, 16-byte aligned, into nothing (sink: 16 bytes never written
// in practice): an L2 flush that leaves clean lines, unlike a memset's dirty ones.
void read_device(const void* p, size_t bytes, void* sink, cudaStream_t stream = nullptr);

// FP8 block scales as one stored operand sees them: element (r, c) of the
// stored matrix (rows of ld elements) is multiplied by
// s[(outer / outer_block) * outer_stride + (k / 128) * k_stride], with (outer, k)
// = (r, c), or (c, r) when k runs down the rows (k_along_rows). s null: none.
struct StoredScales {
  const float* s = nullptr;
  int64_t outer_stride = 0, k_stride = 0, ld = 1;
  int outer_block = 1;
  bool k_along_rows = false;
};

// dst = the `count` elements of `type` at src as `to` (bf16 or f16: FP8 values are exact in both;
// with scales, exact when they are powers of two).
void widen_device(const void* src, DType type, size_t count, void* dst, DType to, cudaStream_t stream = nullptr,
                  StoredScales scales = {});

// The epilogue as a separate pass after a GEMM that wrote D (m x n, leading
// dimension ld, of `type`): D = act(row_scale * col_scale * D + bias) in place,
// act's input to e.pre_activation where set; the benchmark's unfused reference.
void unfused_epilogue_device(void* D, int64_t m, int64_t n, int64_t ld, DType type, const Epilogue& e,
                             cudaStream_t stream = nullptr);

// compare() on device arrays: D against R over the m x n elements (leading
// dimension ld) of `type`; waits for the result.
Comparison compare_device(const void* D, const void* R, int64_t m, int64_t n, int64_t ld, DType type);

}  // namespace tessel::harness
