#pragma once

#include <cstddef>
#include <vector>

namespace tessel::harness {

struct Summary {
  double median = 0, min = 0, max = 0;
  size_t count = 0;
};
// Median (mean of the middle two for an even count), min and max. Throws on an empty sample.
Summary summarize(std::vector<double> samples);

// 2 m n k / time, in TFLOP/s, for a time in milliseconds.
double tflops(double m, double n, double k, double ms);

}  // namespace tessel::harness
