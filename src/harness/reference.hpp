// Host-side operands and the fp64 CPU reference.
#pragma once

#include <tessel/tessel.hpp>

#include <cstdint>
#include <vector>

namespace tessel::harness {

// Fills v with uniform values in [-1, 1) from a fixed-seed generator (never zeros).
void fill_random(std::vector<float>& v, uint64_t seed);

// Element (i, j) of alpha * op(A) op(B) + beta * C computed in double from
// host arrays (args' pointers are host pointers; C is the input C, unread when beta == 0).
double reference_element(const SgemmArgs& host, int64_t i, int64_t j);

// All m x n elements, row-major with leading dimension n.
std::vector<double> reference_gemm(const SgemmArgs& host);

// Elements of each stored operand: rows * ld (rows of A are m for op N, k for op T ...).
int64_t stored_rows_a(const SgemmArgs& a);
int64_t stored_rows_b(const SgemmArgs& a);

}  // namespace tessel::harness
