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

// A shape suite (bench/suites/NAME.txt): one call per line, "m n k OPS"
// (e.g. "16 6144 4096 NT"), '#' starts a comment. Throws std::invalid_argument
// naming the line of a bad entry.
struct SuiteCase {
  Shape shape;
  OpPair ops;
};
std::vector<SuiteCase> parse_suite(const std::string& text, const std::string& name);
// The cases of comma-separated suites, each a name in the suite folder
// ($TESSEL_SUITES, else the source tree's bench/suites) or a path to a file.
std::vector<SuiteCase> load_suites(const std::string& names);
std::vector<std::string> suite_names();  // those in the suite folder

}  // namespace tessel::harness
