// Host-side operands and the fp64 CPU reference.
#pragma once

#include <tessel/tessel.hpp>

#include <cstdint>
#include <vector>

#include "harness/shapes.hpp"

namespace tessel::harness {

// Fills v with uniform values in [-1, 1) from a fixed-seed generator (never zeros).
void fill_random(std::vector<float>& v, uint64_t seed);

// Element (i, j) of alpha * op(A) op(B) + beta * C computed in double from
// host arrays (args' pointers are host pointers; C is the input C, unread when beta == 0).
// *terms2: the sum of the squares of alpha's k products (the size a sum of
// rounding errors scales with, whatever the products cancel to).
double reference_element(const SgemmArgs& host, int64_t i, int64_t j, double* terms2 = nullptr);

// All m x n elements, row-major with leading dimension n.
std::vector<double> reference_gemm(const SgemmArgs& host);

// The arguments of an op(A) (m x k) by op(B) (k x n) product, pointers null:
// every leading dimension is its minimum, max(1, stored columns), rounded up
// to a multiple of ld_align, plus ld_pad.
SgemmArgs make_layout(OpPair ops, const Shape& shape, float alpha, float beta, int64_t ld_align = 1, int64_t ld_pad = 0);

// Shapes of the stored operands: A is m x k for op N and k x m for op T; B is k x n or n x k.
int64_t stored_rows_a(const SgemmArgs& a);
int64_t stored_cols_a(const SgemmArgs& a);
int64_t stored_rows_b(const SgemmArgs& a);
int64_t stored_cols_b(const SgemmArgs& a);

}  // namespace tessel::harness
