#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include <sstream>

#include "harness/bench.hpp"
#include "harness/writers.hpp"

namespace {

using namespace tessel::harness;
using tessel::Op;

std::vector<BenchRow> sample_rows() {
  BenchRow ok{"smem", "f32", {Op::N, Op::T}, {4096, 2048, 1024}, "ok", {2.0, 1.5, 3.0, 20}, 8.589934592,
              {1.0, 0.9, 1.2, 20}, 17.179869184, 0.5, 1.5e-7, ""};
  BenchRow bad{"naive", "f32", {Op::N, Op::N}, {7, 7, 7}, "FAILED", {}, 0, {0.01, 0.01, 0.01, 3}, 0.0686, 0, 0.3,
               "relative error, above tolerance"};
  BenchRow automatic = ok;
  automatic.kernel = "auto", automatic.ran = "pipelined_128x256", automatic.suite = "llm";
  automatic.epilogue = "bias+gelu";
  automatic.gbs = 2500.0, automatic.copy_gbs = 3000.0;
  return {ok, bad, automatic};
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep && sep != '\n') out.emplace_back();  // a trailing empty field
  return out;
}

TEST(Writers, CsvHasHeaderAndOneLinePerRow) {
  std::ostringstream out;
  write_csv(out, sample_rows());
  const auto lines = split(out.str(), '\n');
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], kCsvHeader);
  const auto header = split(lines[0], ',');
  for (const char* col : {"kernel", "dtype", "m", "n", "k", "median_ms", "tflops", "ref_tflops"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), col), header.end()) << col;
  }
  const auto f = split(lines[1], ',');
  ASSERT_EQ(f.size(), header.size());
  EXPECT_EQ(f[0], "smem");
  EXPECT_EQ(f[2], "N");
  EXPECT_EQ(f[3], "T");
  EXPECT_EQ(f[4], "4096");
  EXPECT_EQ(f[8], "2.000000");
  EXPECT_EQ(f[11], "20");
  EXPECT_EQ(f[12], "8.5899");
  EXPECT_EQ(f[15], "0.5000");
  // A note holding a comma is quoted so the column count stays right.
  EXPECT_NE(lines[2].find("\"relative error, above tolerance\""), std::string::npos) << lines[2];
  const auto last = split(lines[3], ',');
  ASSERT_EQ(last.size(), header.size());
  const auto column = [&](const char* name) { return last[size_t(std::find(header.begin(), header.end(), name) - header.begin())]; };
  EXPECT_EQ(column("ran"), "pipelined_128x256");  // auto rows say what ran ...
  EXPECT_EQ(column("suite"), "llm");              // ... suite rows their suite
  EXPECT_EQ(column("epilogue"), "bias+gelu");     // ... and the epilogue, if any
  EXPECT_EQ(column("gbs"), "2500.0");             // ... and the bandwidths
  EXPECT_EQ(column("copy_gbs"), "3000.0");
}

TEST(Writers, JsonCarriesRowsAndGpu) {
  GpuInfo gpu;
  gpu.name = "Test GPU";
  gpu.compute_capability = 90;
  gpu.sm_count = 132;
  gpu.driver_version = 13000;
  gpu.cublas_version = 130100;
  const RunInfo run{"tessel bench --sizes 4096", "2026-11-21T00:00:00Z", gpu};
  const nlohmann::json j = nlohmann::json::parse(bench_json(run, sample_rows()).dump());
  EXPECT_EQ(j["command"], "tessel bench --sizes 4096");
  EXPECT_EQ(j["gpu"]["name"], "Test GPU");
  EXPECT_EQ(j["gpu"]["compute_capability"], "9.0");
  EXPECT_EQ(j["gpu"]["driver"], "13.0");
  EXPECT_EQ(j["gpu"]["cublas"], "13.1.0");
  EXPECT_NE(j["reference"].get<std::string>().find("TF32 off"), std::string::npos);
  ASSERT_EQ(j["results"].size(), 3u);
  EXPECT_EQ(j["results"][2]["ran"], "pipelined_128x256");
  EXPECT_EQ(j["results"][0]["kernel"], "smem");
  EXPECT_EQ(j["results"][0]["m"], 4096);
  EXPECT_DOUBLE_EQ(j["results"][0]["ref_tflops"].get<double>(), 17.179869184);
  EXPECT_EQ(j["results"][1]["status"], "FAILED");
}

TEST(Writers, TablesShowStatusAndRatio) {
  const std::string t = bench_table(sample_rows());
  EXPECT_NE(t.find("50.0%"), std::string::npos) << t;
  EXPECT_NE(t.find("FAILED: relative error"), std::string::npos) << t;
  EXPECT_NE(t.find("auto:pipelined_128x256"), std::string::npos) << t;
  const std::string k = kernels_table(tessel::kernels());
  EXPECT_NE(k.find("naive"), std::string::npos);
  EXPECT_NE(k.find("03"), std::string::npos);
  EXPECT_EQ(version_string(12080), "12.8");
}

// README's ladder table is `tessel list --markdown`: the registry and the README cannot drift apart.
TEST(Writers, ReadmeLadderTableIsTheRegistry) {
  std::ifstream f(std::string(TESSEL_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(f) << "README.md not found under " << TESSEL_SOURCE_DIR;
  const std::string readme((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- tessel list --markdown -->\n", end = "<!-- end of tessel list --markdown -->";
  const size_t b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(readme.substr(b + begin.size(), e - b - begin.size()), kernels_markdown(tessel::kernels()))
      << "regenerate README's table with `tessel list --markdown`";
}

}  // namespace

namespace {

TEST(Writers, SuiteSummaryIsGeomeanAndWorstPerPrecision) {
  std::vector<BenchRow> rows(4);
  const double ratios[] = {1.1, 0.9, 0, 2.0};
  const char* dtypes[] = {"f32", "f32", "f32", "bf16"};
  for (int i = 0; i < 4; ++i) {
    rows[i].kernel = "auto", rows[i].dtype = dtypes[i], rows[i].ratio = ratios[i];
    rows[i].status = i == 2 ? "FAILED" : "ok";
    rows[i].ops = {Op::N, Op::T}, rows[i].shape = {i == 1 ? 17 : 16, 6144, int64_t(4096 + i)};
    rows[i].gbs = 1000.0 * (i + 1), rows[i].copy_gbs = 4000.0;
  }
  const auto s = tessel::harness::summarize_suite(rows);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].dtype, "f32");
  EXPECT_EQ(s[0].rows, 3);
  EXPECT_EQ(s[0].timed, 2);
  EXPECT_NEAR(s[0].geomean, std::sqrt(1.1 * 0.9), 1e-12);
  EXPECT_DOUBLE_EQ(s[0].worst, 0.9);
  EXPECT_EQ(s[0].worst_call, "NT 17x6144x4097");
  EXPECT_DOUBLE_EQ(s[1].geomean, 2.0);
  // m <= 16: the first row alone among f32's timed ones (the second has m = 17).
  EXPECT_EQ(s[0].small_m, 1);
  EXPECT_DOUBLE_EQ(s[0].small_m_geomean, 1.1);
  EXPECT_DOUBLE_EQ(s[0].small_m_copy_worst, 0.25);
  EXPECT_DOUBLE_EQ(s[1].small_m_copy_geomean, 1.0);
}

}  // namespace
