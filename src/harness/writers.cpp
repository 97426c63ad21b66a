#include "harness/writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace tessel::harness {
namespace {

// CSV field: quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string csv_row(const BenchRow& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{},{:.4f},{:.6f},{:.4f},{:.4f},{:.3e},{},{},{},{},{:.1f},{:.1f},{:.3e},{}\n",
                     csv_field(r.kernel), r.dtype, op_char(r.ops.first), op_char(r.ops.second), r.shape.m, r.shape.n,
                     r.shape.k, r.status, r.ms.median, r.ms.min, r.ms.max, r.ms.count, r.tflops, r.ref_ms.median,
                     r.ref_tflops, r.ratio, r.rel_err, csv_field(r.note), r.ran, csv_field(r.suite), r.epilogue, r.gbs, r.copy_gbs,
                     r.ref_err, r.batch);
}

void write_csv(std::ostream& out, const std::vector<BenchRow>& rows) {
  out << kCsvHeader << '\n';
  for (const BenchRow& r : rows) out << csv_row(r);
}

nlohmann::json to_json(const GpuInfo& g) {
  return {{"device", g.device},
          {"name", g.name},
          {"compute_capability", fmt::format("{}.{}", g.compute_capability / 10, g.compute_capability % 10)},
          {"sm_count", g.sm_count},
          {"sm_clock_max_mhz", g.sm_clock_mhz},
          {"mem_clock_max_mhz", g.mem_clock_mhz},
          {"mem_bus_bits", g.mem_bus_bits},
          {"memory_bytes", g.memory_bytes},
          {"l2_bytes", g.l2_bytes},
          {"smem_per_block_optin", g.smem_per_block_optin},
          {"driver", version_string(g.driver_version)},
          {"runtime", version_string(g.runtime_version)},
          {"cublas", fmt::format("{}.{}.{}", g.cublas_version / 10000, g.cublas_version / 100 % 100, g.cublas_version % 100)},
          {"peak_fp32_tflops", g.peak_fp32_tflops}};
}

nlohmann::json to_json(const BenchRow& r) {
  return {{"kernel", r.kernel},       {"dtype", r.dtype},
          {"opA", std::string(1, op_char(r.ops.first))}, {"opB", std::string(1, op_char(r.ops.second))},
          {"m", r.shape.m},           {"n", r.shape.n},
          {"k", r.shape.k},           {"status", r.status},
          {"median_ms", r.ms.median}, {"min_ms", r.ms.min},
          {"max_ms", r.ms.max},       {"runs", r.ms.count},
          {"tflops", r.tflops},       {"ref_median_ms", r.ref_ms.median},
          {"ref_min_ms", r.ref_ms.min}, {"ref_max_ms", r.ref_ms.max},
          {"ref_runs", r.ref_ms.count}, {"ref_tflops", r.ref_tflops},
          {"ratio", r.ratio},         {"rel_err", r.rel_err}, {"ref_err", r.ref_err},
          {"note", r.note},           {"ran", r.ran},       {"suite", r.suite},
          {"epilogue", r.epilogue},   {"gbs", r.gbs},       {"copy_gbs", r.copy_gbs},
          {"batch", r.batch}};
}

nlohmann::json bench_json(const RunInfo& run, const std::vector<BenchRow>& rows) {
  nlohmann::json results = nlohmann::json::array();
  for (const BenchRow& r : rows) results.push_back(to_json(r));
  return {{"command", run.command}, {"date", run.date}, {"gpu", to_json(run.gpu)},
          {"reference", run.reference}, {"results", results}};
}

std::string gpu_text(const GpuInfo& g) {
  std::string s;
  s += fmt::format("GPU {}: {} (compute capability {}.{})\n", g.device, g.name, g.compute_capability / 10,
                   g.compute_capability % 10);
  s += fmt::format("  SMs              {}\n", g.sm_count);
  s += fmt::format("  SM clock (max)   {} MHz\n", g.sm_clock_mhz);
  s += fmt::format("  memory           {:.1f} GiB, {}-bit bus, clock (max) {} MHz\n", g.memory_bytes / 1073741824.0,
                   g.mem_bus_bits, g.mem_clock_mhz);
  s += fmt::format("  L2 cache         {:.1f} MiB\n", g.l2_bytes / 1048576.0);
  s += fmt::format("  shared mem/block {} KiB (opt-in)\n", g.smem_per_block_optin / 1024);
  s += fmt::format("  driver / runtime CUDA {} / {}\n", version_string(g.driver_version), version_string(g.runtime_version));
  s += fmt::format("  cuBLAS           {}.{}.{}\n", g.cublas_version / 10000, g.cublas_version / 100 % 100,
                   g.cublas_version % 100);
  s += fmt::format("  peak FP32 (est.) {:.1f} TFLOP/s (SMs x FP32 lanes x 2 x max clock)\n", g.peak_fp32_tflops);
  return s;
}

namespace {
std::string precisions_of(const KernelInfo& k) {
  std::string types;
  for (const Precision& p : k.precisions) types += (types.empty() ? "" : ",") + to_string(p);
  return types;
}
// The same for a terminal: C types after the first of one input type joined by '/' ("e4m3:bf16/f16/f32").
std::string short_precisions_of(const KernelInfo& k) {
  std::string types, inputs;
  for (const Precision& p : k.precisions) {
    const std::string name = to_string(p);
    const size_t colon = name.find(':');
    const std::string in = colon == std::string::npos ? "" : name.substr(0, colon);  // none: no C type named
    types += !in.empty() && in == inputs ? "/" + name.substr(colon + 1) : (types.empty() ? "" : ",") + name;
    inputs = in.empty() ? inputs : in;
  }
  return types;
}
std::string cc_of(const KernelInfo& k) {
  return fmt::format("{}.{}{}", k.min_compute_capability / 10, k.min_compute_capability % 10,
                     k.max_compute_capability == 0 ? "+" : "");
}
}  // namespace

std::string kernels_table(const std::vector<KernelInfo>& kernels, bool long_form) {
  size_t w = 12;
  for (const KernelInfo& k : kernels) w = std::max(w, k.name.size());
  std::string s = fmt::format("{:>4}  {:<{}}  {:<13} {:>7} {:>5} {:>5}  {}\n", "step", "name", w, "dtype", "tile", "cc",
                              "align", "notes");
  for (const KernelInfo& k : kernels) {
    const std::string tile = fmt::format("{}x{}", k.tile_m, k.tile_n);
    std::string line = fmt::format("{:>4}  {:<{}}  {:<13} {:>7} {:>5} {:>5}  {}", fmt::format("{:02d}", k.ladder_step),
                                   k.name, w, short_precisions_of(k), tile, cc_of(k), k.alignment,
                                   k.split_k ? "split-k" : "");
    s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
    if (long_form) {
      s += fmt::format("      {}\n      accepts: {}{}{}{}\n", k.summary, k.constraints,
                       k.batched ? "; batched (a strided batch in one launch)" : "",
                       k.pointer_array ? "; pointer arrays (GemmArgs::a_array, b_array, c_array)" : "",
                       k.grouped ? "; grouped (GemmArgs::group_offsets)" : "");
    }
  }
  return s;
}

std::string kernels_markdown(const std::vector<KernelInfo>& kernels) {
  std::string s = "| step | kernel | precisions | tile | GPU | what it does |\n|---:|---|---|---|---|---|\n";
  for (const KernelInfo& k : kernels) {
    s += fmt::format("| {:02d} | `{}` | {} | {}x{} | {} | {} |\n", k.ladder_step, k.name, precisions_of(k), k.tile_m,
                     k.tile_n, k.max_compute_capability != 0 ? "sm_90a only" : "sm_" + std::to_string(k.min_compute_capability) + "+",
                     k.summary);
  }
  return s;
}

namespace {
// "auto" rows name the kernel auto-dispatch ran: "auto:pipelined_128x256".
std::string label(const BenchRow& r) { return r.ran.empty() ? r.kernel : r.kernel + ":" + r.ran; }
}  // namespace

std::string bench_header(size_t w) {
  return fmt::format("{:<{}} {:<3} {:>17} {:>10} {:>9} {:>12} {:>9}  {}\n", "kernel", w, "op", "m x n x k", "median ms",
                     "TFLOP/s", "cuBLAS TF/s", "% cuBLAS", "status");
}

std::string bench_line(const BenchRow& r, size_t w) {
  // A batch: "64 x 512x512x512".
  const std::string shape = (r.batch > 1 ? std::to_string(r.batch) + " x " : std::string()) + to_string(r.shape);
  if (r.status == "ok") {
    return fmt::format("{:<{}} {:<3} {:>17} {:>10.4f} {:>9.2f} {:>12.2f} {:>8.1f}%  ok\n", label(r), w,
                       to_string(r.ops), shape, r.ms.median, r.tflops, r.ref_tflops, 100.0 * r.ratio);
  }
  return fmt::format("{:<{}} {:<3} {:>17} {:>10} {:>9} {:>12.2f} {:>9}  {}: {}\n", label(r), w, to_string(r.ops),
                     shape, "-", "-", r.ref_tflops, "-", r.status, r.note);
}

std::string bench_table(const std::vector<BenchRow>& rows) {
  size_t w = 12;
  for (const BenchRow& r : rows) w = std::max(w, label(r).size());
  std::string s = bench_header(w);
  for (const BenchRow& r : rows) s += bench_line(r, w);
  return s;
}

}  // namespace tessel::harness
