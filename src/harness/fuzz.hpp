// The fuzz tester: random calls through the public API, each checked as
// `tessel verify` checks a case (cuBLAS and fp64 references, poisoned
// outputs, guard zones, A and B unchanged), and phases for what callers do
// around calls: many threads and streams, CUDA graphs replayed elsewhere, an
// error left pending, hostile arguments. A failure prints a one-line
// reproducer.
#pragma once

#include <tessel/tessel.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tessel::harness {

struct FuzzOptions {
  double seconds = 60;    // stop starting cases after this long ...
  int64_t max_cases = 0;  // ... or after this many (0: no limit)
  uint64_t seed = 1;
  int threads = 4;        // host threads, each on its own stream
};

struct FuzzReport {
  int64_t cases = 0, passed = 0, failed = 0, refused = 0;  // refused: kNotSupported by a named kernel
  int64_t graph_cases = 0, pending_cases = 0, bad_input_cases = 0;  // the phases' share of the cases
  int64_t batch_cases = 0, grouped_cases = 0;  // strided batches; grouped GEMMs, offsets or masked (Hopper)
  int64_t cublas_off = 0;  // passed cases where cuBLAS was off the fp64 reference (tessel checked on every element)
  std::vector<std::string> cublas_off_cases;  // their reproducers (the first 50)
  std::vector<std::string> failures;  // one reproducer line each (the first 50)
};

FuzzReport run_fuzz(const FuzzOptions& options, std::ostream& log);

// The precisions grouped by their inputs (FP32, tf32, f16, bf16; every FP8 pair one family), in first-seen order:
// the fuzz tester draws a family, then one of its precisions, so that FP8's many pairs do not crowd out the rest.
std::vector<std::vector<Precision>> precision_families(const std::vector<Precision>& precisions);

}  // namespace tessel::harness
