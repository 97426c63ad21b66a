// The benchmark's GPU-made operands and GPU-side check against the host
// versions, and one benchmark row end to end.
#include <cmath>
#include <cstring>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "harness/bench.hpp"
#include "harness/device_data.hpp"
#include "harness/typed.hpp"
#include "harness/verify.hpp"

namespace {

using namespace tessel::harness;
using tessel::DType;

class Harness : public GpuTest {};

std::vector<float> filled(DType type, size_t count, uint64_t seed) {
  DeviceBuffer<uint8_t> d(count * tessel::size_of(type));
  fill_device(d.get(), type, count, seed);
  return decode(d.download(), type);
}

TEST_F(Harness, DeviceFillIsSpreadDeterministicAndPerSeed) {
  for (DType type : {DType::kF32, DType::kF16, DType::kBF16}) {
    const std::vector<float> a = filled(type, 100000, 7), b = filled(type, 100000, 7), c = filled(type, 100000, 8);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_NE(std::vector<float>(a.begin() + 1, a.end()), std::vector<float>(c.begin(), c.end() - 1));
    double sum = 0, lo = 1, hi = -1;
    for (float x : a) sum += x, lo = std::min<double>(lo, x), hi = std::max<double>(hi, x);
    EXPECT_GE(lo, -1.0);
    EXPECT_LE(hi, 1.0);
    EXPECT_LT(lo, -0.99);
    EXPECT_GT(hi, 0.99);
    EXPECT_LT(std::abs(sum / double(a.size())), 0.01);
  }
}

TEST_F(Harness, DeviceComparisonIsTheHostOne) {
  const int64_t m = 37, n = 53, ld = 61;
  for (DType type : {DType::kF32, DType::kBF16}) {
    std::vector<float> d = filled(type, size_t(m * ld), 1), r = filled(type, size_t(m * ld), 2);
    d[size_t(5 * ld + 7)] = std::nanf("");  // one NaN inside
    d[size_t(3 * ld + 55)] = std::nanf("");  // and one in the padding: not counted
    round_to(d, type), round_to(r, type);
    DeviceBuffer<uint8_t> D(encode(d, type)), R(encode(r, type));
    const Comparison host = compare(d, r, m, n, ld), device = compare_device(D.get(), R.get(), m, n, ld, type);
    EXPECT_EQ(device.nonfinite, 1);
    EXPECT_EQ(host.nonfinite, device.nonfinite);
    EXPECT_TRUE(std::isnan(device.diff2));
    EXPECT_NEAR(device.ref2, host.ref2, 1e-9 * host.ref2);
  }
  std::vector<float> d = filled(DType::kF32, 1000, 3), r = filled(DType::kF32, 1000, 4);
  DeviceBuffer<uint8_t> D(encode(d, DType::kF32)), R(encode(r, DType::kF32));
  const Comparison host = compare(d, r, 10, 100, 100), device = compare_device(D.get(), R.get(), 10, 100, 100, DType::kF32);
  EXPECT_NEAR(device.rel_err, host.rel_err, 1e-12 * host.rel_err);
}

TEST_F(Harness, OneBenchmarkRow) {
  Cublas cublas;
  BenchOptions o;
  o.kernels = {kAuto};
  o.shapes = {{96, 80, 200}};
  o.ops = {{tessel::Op::N, tessel::Op::T}};
  o.repeat = 3, o.warmup = 1;
  const std::vector<BenchRow> rows = run_bench(cublas, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, "ok") << rows[0].note;
  EXPECT_GT(rows[0].ratio, 0.0);
  EXPECT_LT(rows[0].rel_err, tolerance(o.precision, 200));
}

}  // namespace
