// Parsing of the command line's size and op lists.
#pragma once

#include <tessel/tessel.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessel::harness {

struct Shape {
  int64_t m = 0, n = 0, k = 0;
  bool operator==(const Shape& o) const { return m == o.m && n == o.n && k == o.k; }
};
std::string to_string(const Shape& s);  // "MxNxK"

// A comma-separated list of items, each one of
//   S            the square shape S x S x S
//   MxNxK        one shape
//   A:B:STEP     squares A, A+STEP, ... up to and including B
// Throws std::invalid_argument naming the bad item.
std::vector<Shape> parse_shapes(const std::string& text);

using OpPair = std::pair<Op, Op>;
// "NN,NT,TN,TT" (case-insensitive). Throws std::invalid_argument on a bad item.
std::vector<OpPair> parse_ops(const std::string& text);
std::string to_string(OpPair ops);  // "NT"
char op_char(Op op);

}  // namespace tessel::harness
