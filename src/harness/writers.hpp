// Result writers: terminal tables, CSV and JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "harness/bench.hpp"
#include "harness/gpu.hpp"

namespace tessel::harness {

// Where and how a set of results was made.
struct RunInfo {
  std::string command;  // the exact command line
  std::string date;     // UTC, ISO 8601
  GpuInfo gpu;
  std::string reference = Cublas::description();
};

std::string utc_now_iso();

inline constexpr const char* kCsvHeader =
    "kernel,dtype,opA,opB,m,n,k,status,median_ms,min_ms,max_ms,runs,tflops,ref_median_ms,ref_tflops,ratio,rel_err,note,ran,suite,epilogue,gbs,copy_gbs,ref_err,batch";
void write_csv(std::ostream& out, const std::vector<BenchRow>& rows);
std::string csv_row(const BenchRow& row);  // one line of write_csv's

nlohmann::json to_json(const GpuInfo& gpu);
nlohmann::json to_json(const BenchRow& row);
nlohmann::json bench_json(const RunInfo& run, const std::vector<BenchRow>& rows);

std::string gpu_text(const GpuInfo& gpu);
// `tessel list`: a line per kernel (long_form: with what it does and the shapes it accepts).
std::string kernels_table(const std::vector<KernelInfo>& kernels, bool long_form = false);
// `tessel list --markdown`: the ladder as README's table.
std::string kernels_markdown(const std::vector<KernelInfo>& kernels);
std::string bench_table(const std::vector<BenchRow>& rows);
// bench_table's header and one of its lines, with the kernel column `width` wide (rows printed as they come).
std::string bench_header(size_t width);
std::string bench_line(const BenchRow& row, size_t width);

}  // namespace tessel::harness
