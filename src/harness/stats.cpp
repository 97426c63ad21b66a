#include "harness/stats.hpp"

#include <algorithm>
#include <stdexcept>

namespace tessel::harness {

Summary summarize(std::vector<double> s) {
  if (s.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  const double median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return {median, s.front(), s.back(), n};
}

double tflops(double m, double n, double k, double ms) { return ms > 0 ? 2.0 * m * n * k / (ms * 1e-3) / 1e12 : 0.0; }

}  // namespace tessel::harness
