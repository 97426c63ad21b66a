#include "harness/shapes.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

namespace tessel::harness {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

// A whole, non-negative decimal number; `item` names the list item in errors.
int64_t parse_size(const std::string& s, const std::string& item) {
  if (s.empty() || s.size() > 12) throw std::invalid_argument("bad size '" + s + "' in '" + item + "'");
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      throw std::invalid_argument("bad size '" + s + "' in '" + item + "': expected a whole number >= 0");
    }
  }
  return std::stoll(s);
}

}  // namespace

std::string to_string(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// More shapes than a benchmark can time in a day: a typo, not a plan.
constexpr int64_t kMaxShapes = 100000;

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> shapes;
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw std::invalid_argument("empty item in size list '" + text + "'");
    if (item.find(':') != std::string::npos) {
      const auto r = split(item, ':');
      if (r.size() != 3) throw std::invalid_argument("bad range '" + item + "': expected FIRST:LAST:STEP");
      const int64_t first = parse_size(r[0], item), last = parse_size(r[1], item), step = parse_size(r[2], item);
      if (step <= 0) throw std::invalid_argument("bad range '" + item + "': STEP must be > 0");
      if (last < first) throw std::invalid_argument("bad range '" + item + "': LAST < FIRST");
      if ((last - first) / step + 1 + int64_t(shapes.size()) > kMaxShapes) {
        throw std::invalid_argument("range '" + item + "' makes more than " + std::to_string(kMaxShapes) +
                                    " shapes: use a larger STEP");
      }
      for (int64_t s = first; s <= last; s += step) shapes.push_back({s, s, s});
    } else if (item.find_first_of("xX") != std::string::npos) {
      std::string lower = item;
      for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
      const auto d = split(lower, 'x');
      if (d.size() != 3) throw std::invalid_argument("bad shape '" + item + "': expected MxNxK");
      shapes.push_back({parse_size(d[0], item), parse_size(d[1], item), parse_size(d[2], item)});
    } else {
      const int64_t s = parse_size(item, item);
      shapes.push_back({s, s, s});
    }
  }
  if (shapes.empty()) throw std::invalid_argument("the size list is empty");
  // The harness holds A, B and C on the host (and the GPU): each must have a size it can allocate.
  constexpr int64_t kMaxElements = int64_t(1) << 33;
  for (const Shape& sh : shapes) {
    for (auto [rows, cols, name] : {std::tuple{sh.m, sh.k, "A"}, std::tuple{sh.k, sh.n, "B"}, std::tuple{sh.m, sh.n, "C"}}) {
      if (cols > 0 && rows > kMaxElements / cols) {
        throw std::invalid_argument("shape " + std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" +
                                    std::to_string(sh.k) + ": " + name + " would hold more than 2^33 elements");
      }
    }
  }
  return shapes;
}

char op_char(Op op) { return op == Op::N ? 'N' : 'T'; }

std::string to_string(OpPair ops) { return {op_char(ops.first), op_char(ops.second)}; }

std::vector<SuiteCase> parse_suite(const std::string& text, const std::string& name) {
  std::vector<SuiteCase> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string m, n, k, ops, extra;
    if (!(fields >> m)) continue;  // blank or comment
    const std::string where = name + ":" + std::to_string(number);
    if (!(fields >> n >> k >> ops) || (fields >> extra)) {
      throw std::invalid_argument(where + ": expected 'm n k OPS', e.g. '16 6144 4096 NT'");
    }
    const std::vector<Shape> shape = parse_shapes(m + "x" + n + "x" + k);
    const std::vector<OpPair> pair = parse_ops(ops);
    if (pair.size() != 1) throw std::invalid_argument(where + ": one op pair per line");
    out.push_back({shape[0], pair[0]});
  }
  if (out.empty()) throw std::invalid_argument("suite '" + name + "' has no cases");
  return out;
}

namespace {

std::string suite_dir() {
  if (const char* env = std::getenv("TESSEL_SUITES"); env && *env) return env;
  return TESSEL_SUITE_DIR;
}

}  // namespace

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(suite_dir(), ec)) {
    if (entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<SuiteCase> load_suites(const std::string& names) {
  std::vector<SuiteCase> all;
  std::istringstream list(names);
  std::string name;
  while (std::getline(list, name, ',')) {
    const bool path = name.find('/') != std::string::npos;
    const std::string file = path ? name : suite_dir() + "/" + name + ".txt";
    std::ifstream in(file);
    if (!in) {
      std::string known;
      for (const std::string& s : suite_names()) known += (known.empty() ? "" : ", ") + s;
      throw std::invalid_argument("no suite '" + name + "' (" + file + "); the suites: " +
                                  (known.empty() ? "none found" : known));
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::vector<SuiteCase> cases = parse_suite(text.str(), name);
    all.insert(all.end(), cases.begin(), cases.end());
  }
  if (all.empty()) throw std::invalid_argument("no suite named");
  return all;
}

std::vector<OpPair> parse_ops(const std::string& text) {
  std::vector<OpPair> ops;
  for (const std::string& item : split(text, ',')) {
    auto op = [&](char c) {
      c = char(std::toupper(static_cast<unsigned char>(c)));
      if (c != 'N' && c != 'T') throw std::invalid_argument("bad op pair '" + item + "': expected NN, NT, TN or TT");
      return c == 'N' ? Op::N : Op::T;
    };
    if (item.size() != 2) throw std::invalid_argument("bad op pair '" + item + "': expected NN, NT, TN or TT");
    ops.emplace_back(op(item[0]), op(item[1]));
  }
  if (ops.empty()) throw std::invalid_argument("the op list is empty");
  return ops;
}

}  // namespace tessel::harness
