// The tuning file: one line per tuned call,
//   m n k opA opB aligned precision kernel   e.g.  4096 4096 4096 N N 1 bf16 wgmma_cluster_bf16_128x256
// with '#' comment lines. Lines without the precision (an older file) are f32.
#include "dispatch/tuning.hpp"

#include <cuda_runtime_api.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>

namespace tessel {
namespace {

// A call's sizes, ops, alignment class and precision (its types and compute mode).
using Key = std::tuple<int64_t, int64_t, int64_t, int, int, bool, int, int, int, int>;
Key key_of(int64_t m, int64_t n, int64_t k, Op a, Op b, bool aligned, const Precision& p) {
  return {m, n, k, int(a), int(b), aligned, int(p.ab), int(p.b_type()), int(p.c), int(p.compute)};
}

std::mutex g_mutex;
std::shared_ptr<const std::map<Key, std::string>> g_table;  // null until read

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

}  // namespace

std::string tuning_file_path() {
  if (const char* env = std::getenv("TESSEL_TUNE_FILE"); env && *env) return env;
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  std::string base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home) base = std::string(home) + "/.cache";
  else return {};
  return base + "/tessel/" + sanitize(prop.name) + ".tune";
}

std::vector<TunedChoice> read_tuning(const std::string& path) {
  std::vector<TunedChoice> out;
  // Only a regular file of sane size: a FIFO would block every caller, a device file never end.
  constexpr std::uintmax_t kMostBytes = std::uintmax_t(16) << 20;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > kMostBytes || ec) {
    return out;
  }
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    TunedChoice c;
    char a = 0, b = 0;
    int aligned = -1;
    std::string precision, kernel;
    if (!(fields >> c.m >> c.n >> c.k >> a >> b >> aligned >> precision)) continue;
    if (fields >> kernel) {
      const std::optional<Precision> p = parse_precision(precision);
      if (!p) continue;
      c.precision = *p, c.kernel = kernel;
    } else {
      c.kernel = precision;  // m n k opA opB aligned kernel: f32
    }
    if ((a != 'N' && a != 'T') || (b != 'N' && b != 'T') || (aligned != 0 && aligned != 1)) continue;
    c.opA = a == 'N' ? Op::N : Op::T;
    c.opB = b == 'N' ? Op::N : Op::T;
    c.aligned = aligned == 1;
    out.push_back(c);
  }
  return out;
}

Status write_tuning(const std::string& path, const std::vector<TunedChoice>& choices) {
  std::error_code ec;
  const auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  std::ofstream out(path);
  if (!out) return {StatusCode::kInvalidArgument, "tessel: cannot write the tuning file '" + path + "'"};
  out << "# tessel tuning: m n k opA opB aligned precision kernel\n";
  for (const TunedChoice& c : choices) {
    out << c.m << ' ' << c.n << ' ' << c.k << ' ' << (c.opA == Op::N ? 'N' : 'T') << ' ' << (c.opB == Op::N ? 'N' : 'T')
        << ' ' << (c.aligned ? 1 : 0) << ' ' << to_string(c.precision) << ' ' << c.kernel << '\n';
  }
  return out ? Status() : Status(StatusCode::kInvalidArgument, "tessel: error writing the tuning file '" + path + "'");
}

void reload_tuning() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_table.reset();
}

std::string tuned_kernel(const GemmArgs& a, bool aligned) {
  std::shared_ptr<const std::map<Key, std::string>> table;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_table) {
      auto fresh = std::make_shared<std::map<Key, std::string>>();
      if (const std::string path = tuning_file_path(); !path.empty()) {
        for (const TunedChoice& c : read_tuning(path)) {
          (*fresh)[key_of(c.m, c.n, c.k, c.opA, c.opB, c.aligned, c.precision)] = c.kernel;
        }
      }
      g_table = fresh;
    }
    table = g_table;
  }
  const auto it = table->find(key_of(a.m, a.n, a.k, a.opA, a.opB, aligned, a.precision));
  return it == table->end() ? std::string() : it->second;
}

}  // namespace tessel
