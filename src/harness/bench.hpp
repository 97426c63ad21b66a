// Benchmark harness: for each shape, cuBLAS and each kernel on the same
// random inputs; every kernel's result is checked against cuBLAS's before
// it is timed. Times are CUDA-event times of single launches with the L2
// flushed before each, summarised as median / min / max.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/gpu.hpp"
#include "harness/shapes.hpp"
#include "harness/stats.hpp"
#include "harness/verify.hpp"

namespace tessel::harness {

struct BenchOptions {
  std::vector<std::string> kernels;  // registered names or kAuto
  std::vector<Shape> shapes;
  std::vector<OpPair> ops = {{Op::N, Op::N}};
  std::vector<SuiteCase> cases;  // when not empty: these calls instead of shapes x ops
  std::string suite;             // their suites' names, carried into every row
  Precision precision;         // of every row; cuBLAS runs the same types
  float alpha = 1.0f, beta = 0.0f;
  bool allow_atomics = false;  // GemmArgs::allow_atomics of every call
  // Every call's epilogue; the reference is cuBLAS then a separate pass (unfused_epilogue_device),
  // or with fused_reference cuBLASLt's own fused epilogue (CublasLt::takes).
  // Scales need beta = 0 (the separate pass scales beta * C too).
  EpilogueSpec epilogue;
  bool fused_reference = false;
  bool block_scales = false;  // FP8: block scales (powers of two) instead of per-tensor ones
  int64_t b_block_n = 128;    // with block_scales: B's scales per 128 columns (128 x 128 blocks) or per column (1)
  // A strided batch of this many GEMMs per call (16-bit and FP32 precisions, no epilogue): the
  // matrices stacked without gaps, the reference cuBLAS's strided-batched GEMM; times and TFLOP/s
  // are of the whole batch.
  int64_t batch = 1;
  bool share_b = false;        // the batch's GEMMs share one B (stride_b = 0)
  // The batch as a pointer-array batch over the same matrices (GemmArgs::a_array ...); the
  // reference cuBLAS's pointer-array GEMM (cublasGemmBatchedEx).
  bool pointers = false;
  // A grouped GEMM (GemmArgs::group_offsets) of this many groups: a shape's m rows cut into them
  // (group_rows), op A = N, a B per group; the reference is cuBLAS's grouped GEMM
  // (CublasGrouped), and a loop of tessel calls, a group each, is timed beside it (in the note).
  int64_t groups = 0;
  bool skew = false;           // groups of Zipf-like sizes (group g ~ 1 / (g + 1)); else equal
  bool masked = false;         // as GemmArgs::group_counts: groups of the largest group's rows, each its count
  bool problems = false;       // the shapes as the problems of one grouped call per op pair (run_problems_bench)
  // The L2 flush before each timed run: a memset of twice the L2 (its dirty lines are written back
  // while the next kernel reads), or with read_flush a read of it (clean lines: a cold L2 alone).
  bool read_flush = false;
  int warmup = 3;
  int repeat = 20;             // timed runs per row ...
  double max_seconds = 5.0;    // ... unless they take longer than this (at least 3 runs)
  uint64_t seed = 42;
};

struct BenchRow {
  std::string kernel;
  std::string dtype;           // to_string(Precision): f32, tf32, f16, f16:f32, ...
  OpPair ops;
  Shape shape;
  std::string status;          // "ok", "FAILED" (wrong result, not timed) or "ERROR" (did not run)
  Summary ms;                  // tessel kernel, milliseconds (count = timed runs)
  double tflops = 0;
  Summary ref_ms;              // cuBLAS on the same inputs, timed alternately with the kernel
  double ref_tflops = 0;
  double ratio = 0;            // tflops / ref_tflops
  double rel_err = 0;          // ||D - D_cublas|| / ||D_cublas|| of the checked run
  std::string note;            // why it failed, if it did
  std::string ran;             // for kAuto: the kernel auto-dispatch ran
  std::string suite;           // the shape suite the row's call came from, if any
  std::string epilogue;        // to_string(EpilogueSpec): "none" without one
  double gbs = 0;              // the bytes the call must move (A, B read; C written, and read if beta != 0) / median
  double copy_gbs = 0;         // a device-to-device copy's bytes read + written / time, measured in the same run
  double ref_err = 0;          // the timed reference's own error against the checked result (FP8: cuBLASLt's
                               // FP8 GEMM against cuBLAS on the widened operands; else 0: they are one)
  int64_t batch = 1;           // GEMMs per call (BenchOptions::batch)
};

using Progress = std::function<void(size_t done, size_t total, const std::string& what)>;

// A grouped call's offsets: `total` rows cut into `groups` groups, equal or skewed (BenchOptions).
std::vector<int64_t> group_offsets(int64_t total, int64_t groups, bool skew);

// The calls the options ask for: their cases, else every shape with every op pair.
std::vector<SuiteCase> bench_calls(const BenchOptions& o);

// on_row: called with each row as soon as it is measured.
std::vector<BenchRow> run_bench(Cublas& cublas, const BenchOptions& options, const Progress& progress = {},
                                const std::function<void(const BenchRow&)>& on_row = {});

// A grouped GEMM of problems (GemmArgs::problems) per op pair: every shape of o.shapes one problem
// with its own A, B and C, the bounds the largest sizes; checked against cuBLAS's grouped GEMM, then
// timed in alternation with it and with a loop of tessel calls, a problem each (in the note).
// TFLOP/s count every problem's work; a row's shape is the bounds, its batch the problem count.
std::vector<BenchRow> run_problems_bench(const BenchOptions& options,
                                         const std::function<void(const BenchRow&)>& on_row = {});

// A suite's verdict per kernel and precision: the geometric mean of the
// rows' ratios to cuBLAS and the worst row (rows that did not run or failed
// are counted apart and left out of both).
struct SuiteSummary {
  std::string kernel, dtype;
  int rows = 0, timed = 0;
  double geomean = 0, worst = 0;
  std::string worst_call;  // "NT 16x6144x4096"
  // The timed rows with m <= kMemoryBoundM, where the call streams B: their ratios and
  // their bandwidth as a fraction of the copy's (geometric mean and worst).
  int small_m = 0;
  double small_m_geomean = 0, small_m_worst = 0, small_m_copy_geomean = 0, small_m_copy_worst = 0;
};
constexpr int64_t kMemoryBoundM = 16;
std::vector<SuiteSummary> summarize_suite(const std::vector<BenchRow>& rows);

}  // namespace tessel::harness
