// The tensor-parallel benchmark (`tessel bench --tp N`): N processes on one
// host, one GPU each, started by forking before any CUDA call; rank 0 makes
// NCCL's unique id and hands it to the others through pipes. Per shape (the
// whole layer, m x n x k) and pattern, rank 0 reports tessel's overlapped
// call, NCCL then cuBLAS one after the other, each part alone and the ideal
// (the larger part), and the overlapped result's error against the
// sequential one.
#pragma once

#include <tessel/tessel.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "harness/shapes.hpp"

namespace tessel::harness {

struct TpBenchOptions {
  int ranks = 2;
  std::vector<Shape> shapes;  // the whole layer: m tokens, n outputs, k inputs
  Precision precision{DType::kBF16, DType::kBF16, Compute::kF32};
  int chunks = 0;  // 0: the library's choice
  int repeat = 10, warmup = 2;
  std::string csv;
};

// Returns the exit status (0: every rank ran and every result agreed).
int run_tp_bench(const TpBenchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tessel::harness
