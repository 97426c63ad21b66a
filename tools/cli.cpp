// The `tessel` command: parses, calls the library and the harness, prints.
#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <algorithm>
#include <map>
#include <tuple>
#include <stdexcept>

#include "harness/bench.hpp"
#include "harness/fuzz.hpp"
#include "harness/reference.hpp"
#include "harness/gpu.hpp"
#include "harness/typed.hpp"
#include "harness/cublaslt.hpp"
#include "harness/verify.hpp"
#include "harness/verify_batch.hpp"
#include "harness/writers.hpp"
#ifdef TESSEL_HAS_NCCL
#include "harness/tp_bench.hpp"
#endif

namespace tessel::cli {
namespace {

using namespace tessel::harness;

constexpr const char* kDefaultVerifySizes = "1,2,7,33,64,127,257,1000,31x1000x7,1000x1x255,64x4097x127,255x33x1024";
constexpr const char* kDefaultBenchSizes = "1024,2048,4096";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Edit distance (insertions, deletions, substitutions) between two names.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// Up to three registered names nearest to `name` by edit distance (within a
// third of its length), as "; did you mean ...?".
std::string suggest_kernels(const std::string& name) {
  std::vector<std::pair<size_t, std::string>> near;
  for (const KernelInfo& k : kernels()) {
    const size_t d = distance(name, k.name);
    if (d <= std::max<size_t>(2, name.size() / 3)) near.emplace_back(d, k.name);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string s;
  for (size_t i = 0; i < near.size() && i < 3; ++i) s += (i == 0 ? "; did you mean " : ", ") + near[i].second;
  return s.empty() ? s : s + "?";
}

// "all" -> every registered kernel this GPU can run (the sm_90a steps only
// on compute capability 9.0); each name must be registered or "auto" (a
// kernel named explicitly runs, or reports why not, on any GPU).
std::vector<std::string> expand_kernels(const std::vector<std::string>& asked) {
  std::vector<std::string> out;
  for (const std::string& name : asked) {
    if (name == "all") {
      const int cc = gpu_available() ? query_gpu().compute_capability : 0;  // 0: no GPU, list every kernel
      for (const KernelInfo& k : kernels()) {
        if (cc == 0 || k.runs_on(cc)) out.push_back(k.name);
      }
    } else if (name == kAuto || find_kernel(name)) {
      out.push_back(name);
    } else {
      throw UsageError("unknown kernel '" + name + "'" + suggest_kernels(name) +
                       " ('tessel list' shows every kernel; also 'auto' and 'all')");
    }
  }
  return out;
}

// --dtype: precision names ("all": every supported one); empty: each kernel's own.
std::vector<Precision> parse_dtypes(const std::vector<std::string>& names) {
  std::vector<Precision> out;
  for (const std::string& name : names) {
    if (name == "all") {
      const auto& all = supported_precisions();
      out.insert(out.end(), all.begin(), all.end());
    } else if (const auto p = parse_precision(name)) {
      out.push_back(*p);
    } else {
      throw UsageError("--dtype '" + name + "' is not one of " + supported_precision_names() + ", all");
    }
  }
  return out;
}

bool takes(const std::string& kernel, const Precision& p) {
  if (kernel == kAuto) return true;
  const auto info = find_kernel(kernel);
  return info && info->takes(p);
}

// One kernel at one precision.
struct Job {
  std::string kernel;
  Precision precision;
};

// The (kernel, precision) pairs to run, grouped by precision. Without
// --dtype each kernel runs its first precision (auto: f32); with it, each
// asked precision runs the kernels that take it ("all" skips the others, a
// kernel named explicitly that takes none of them is an error).
std::vector<Job> plan_jobs(const std::vector<std::string>& asked, const std::vector<Precision>& dtypes) {
  const std::vector<std::string> names = expand_kernels(asked);
  std::vector<Job> jobs;
  if (dtypes.empty()) {
    std::vector<Job> own;  // each kernel at its first precision
    for (const std::string& k : names) own.push_back({k, k == kAuto ? Precision{} : find_kernel(k)->precisions.at(0)});
    for (const Job& first : own) {  // grouped by precision, in order of first appearance
      const auto same = [&](const Job& j) { return j.precision == first.precision; };
      if (std::none_of(jobs.begin(), jobs.end(), same)) std::copy_if(own.begin(), own.end(), std::back_inserter(jobs), same);
    }
    return jobs;
  }
  const bool all = std::find(asked.begin(), asked.end(), "all") != asked.end();
  for (const std::string& k : names) {
    const bool any = std::any_of(dtypes.begin(), dtypes.end(), [&](const Precision& p) { return takes(k, p); });
    if (!any && !all) throw UsageError("kernel '" + k + "' takes none of the --dtype precisions (tessel list says which it takes)");
  }
  for (const Precision& p : dtypes)
    for (const std::string& k : names)
      if (takes(k, p)) jobs.push_back({k, p});
  return jobs;
}

// timed: the benchmark's reference (FP8: cuBLASLt's FP8 GEMM), else verify's.
std::string references(const std::vector<Job>& jobs, bool timed = false, bool block_scales = false,
                       int64_t b_block_n = 128) {
  std::vector<std::string> seen;
  for (const Job& j : jobs) {
    const std::string d = to_string(j.precision) + ": " +
                          (timed && CublasLt::multiplies(j.precision)
                               ? CublasLt::description(j.precision, block_scales, b_block_n)
                               : Cublas::description(j.precision));
    if (std::find(seen.begin(), seen.end(), d) == seen.end()) seen.push_back(d);
  }
  std::string s;
  for (const std::string& d : seen) s += (s.empty() ? "" : "; ") + d;
  return s;
}

template <class F>
auto parse_or_usage(F&& parse, const std::string& text) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::string join_command(const std::vector<std::string>& args) {
  std::string s = "tessel";
  for (size_t i = 1; i < args.size(); ++i) s += " " + args[i];
  return s;
}

// One line rewritten in place on a terminal; silent otherwise.
Progress terminal_progress(std::ostream& err) {
  if (&err != &std::cerr || !isatty(fileno(stderr))) return {};
  return [&err](size_t done, size_t total, const std::string& what) {
    err << fmt::format("\r\033[K[{}/{}] {}", done, total, what) << (done == total ? "\n" : "") << std::flush;
  };
}

int cmd_list(const std::string& format, std::ostream& out) {
  out << (format == "markdown" ? kernels_markdown(kernels()) : kernels_table(kernels(), format == "long"));
  return 0;
}

int cmd_info(std::ostream& out) {
  out << gpu_text(query_gpu());
  return 0;
}

// A strided batch's layouts in verify: matrices stacked, B shared, C's matrices side by side.
constexpr const char* kBatchLayouts[] = {"stack", "shared", "side"};

struct VerifyCli {
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> dtypes;
  std::string sizes = kDefaultVerifySizes;
  std::string ops = "NN,NT,TN,TT";
  std::optional<float> alpha, beta;
  std::optional<int64_t> ld_pad;
  int64_t offset = 0;
  uint64_t seed = 1;
  std::vector<std::string> epilogue_names{"none"};
  bool block_scales = false;
  int64_t b_block_n = 128;  // --block-scales: B's scales per 128 columns or per column
  int64_t batch = 1;
  std::string layout;  // a batch's one layout (stack, shared, side); empty: all three
  bool pointers = false;  // a batch as a pointer-array batch
  int64_t groups = 0;
  bool masked = false;
  std::vector<int64_t> group_rows;  // the groups' rows (masked: counts) instead of the skewed split of m
  int64_t capacity = 0;             // masked: each group's rows (0: 5 more than the largest count)
  std::optional<int64_t> tail;      // rows after the groups that none owns (default 5; masked: 0)
  bool share_b = false;             // grouped: one B for every group
  bool problems = false;            // the sizes as the problems of one grouped call
  // filled by prepare()
  std::vector<Job> jobs;
  std::vector<Shape> shapes;
  std::vector<OpPair> op_pairs;
  std::vector<EpilogueSpec> epilogues;

  void prepare() {
    jobs = plan_jobs(kernels, parse_dtypes(dtypes));
    shapes = parse_or_usage(parse_shapes, sizes);
    op_pairs = parse_or_usage(parse_ops, ops);
    epilogues.clear();
    for (const std::string& name : epilogue_names) {
      const std::optional<EpilogueSpec> e = parse_epilogue(name);
      if (!e) {
        throw UsageError("--epilogue '" + name + "': terms joined by '+' of bias or rowbias, relu, gelu, gelu_tanh "
                         "or silu, scale or colscale, pre; or none");
      }
      epilogues.push_back(*e);
    }
    if (masked && groups == 0) throw UsageError("--masked needs --groups");
    if (!group_rows.empty() && groups != int64_t(group_rows.size())) {
      throw UsageError("--group-rows gives " + std::to_string(group_rows.size()) + " groups, --groups " +
                       std::to_string(groups));
    }
    if (capacity > 0 && !masked) throw UsageError("--capacity needs --masked");
    if (!layout.empty() && batch < 2) throw UsageError("--layout needs --batch");
    if (pointers && batch < 2) throw UsageError("--pointers needs --batch");
    if (problems && (batch > 1 || groups > 0)) throw UsageError("--problems takes no --batch and no --groups");
  }
};

int cmd_verify(const VerifyCli& o, std::ostream& out, std::ostream& err) {
  // Two settings by default: alpha = 1, beta = 0 over C full of NaN with the
  // tightest leading dimensions the kernel takes (its alignment: 1 or 4);
  // then general alpha/beta with leading dimensions padded by 3x that.
  struct Setting { float alpha, beta; int64_t pad_units; };
  std::vector<Setting> settings = {{1.0f, 0.0f, 0}, {-0.75f, 1.25f, 3}};
  const bool exact_pad = o.alpha || o.beta || o.ld_pad;
  if (exact_pad) settings = {{o.alpha.value_or(1.0f), o.beta.value_or(0.0f), o.ld_pad.value_or(0)}};

  Cublas cublas;
  out << fmt::format("reference: {}; and an fp64 CPU reference\n", references(o.jobs));
  const bool epilogues = o.epilogues.size() > 1 || o.epilogues[0].any();
  out << fmt::format("{:<20} {:<8} {:<3} {:>17} {:>6} {:>6} {:>5} {:>4} {:>10} {:>10} {:>9}  {}{}\n", "kernel", "dtype",
                     "op", "m x n x k", "alpha", "beta", "align", "pad", "err cuBLAS", "err fp64", "tol",
                     epilogues ? "epilogue  " : "", "result");
  int failed = 0, refused = 0, total = 0;
  // A batch or grouped case: its row; and the summary that ends such a run.
  const auto batch_row = [&](const std::string& name, const Precision& precision, const std::string& op,
                             const std::string& shape, float alpha, float beta, const std::string& layout,
                             const VerifyResult& r) {
    ++total;
    // A pointer-array batch or problems no kernel takes (kernels that copy operands) is refused untouched:
    // reported, not failed.
    const bool refusal =
        (o.pointers || o.problems) && r.status.code() == StatusCode::kNotSupported && r.clobbered == 0;
    refused += refusal;
    failed += !r.passed && !refusal;
    const std::string align = o.offset ? "+" + std::to_string(o.offset) : "16B";
    out << fmt::format("{:<20} {:<8} {:<3} {:>17} {:>6} {:>6} {:>5} {:>4} {:>10.2e} {:>10.2e} {:>9.1e}  {}\n", name,
                       to_string(precision), op, shape, alpha, beta, align, layout, r.err_vs_cublas, r.err_vs_fp64,
                       r.tolerance, r.passed ? "PASS" : (refusal ? "REFUSED: " : "FAIL: ") + r.reason);
  };
  const auto batch_summary = [&] {
    out << fmt::format("{} passed, {} failed, {} refused\n", total - failed - refused, failed, refused);
    if (failed) err << fmt::format("error: {} of {} verification cases failed\n", failed, total);
    return failed ? 1 : 0;
  };
  if (o.groups > 0) {  // grouped GEMMs: m rows cut into skewed groups and an empty one, 5 rows in none
    for (const auto& [name, precision] : o.jobs)
      for (const OpPair& op : o.op_pairs)
        for (const Shape& shape : o.shapes) {
          GroupedCase c{name, op.second, o.group_rows, shape.n, shape.k, 5, precision};
          if (c.rows.empty()) {  // the skewed split of m after an empty group
            const std::vector<int64_t> offsets = group_offsets(shape.m, o.groups, true);
            c.rows = {0};
            for (size_t g = 0; g + 1 < offsets.size(); ++g) c.rows.push_back(offsets[g + 1] - offsets[g]);
          }
          if (o.masked) {  // every group 5 rows more than the largest unless --capacity says
            c.tail = 0;
            c.capacity = o.capacity > 0 ? o.capacity : *std::max_element(c.rows.begin(), c.rows.end()) + 5;
            if (o.group_rows.empty()) c.rows.push_back(c.capacity + 7), c.rows.push_back(-3);  // clamped counts
          }
          c.tail = o.tail.value_or(c.tail), c.share_b = o.share_b;
          c.alpha = o.alpha.value_or(c.alpha), c.beta = o.beta.value_or(c.beta);
          c.seed = o.seed + uint64_t(total);
          batch_row(name, precision, std::string("N") + op_char(op.second),
                    (o.masked ? "masked " : "") + std::to_string(c.rows.size()) + "g " + to_string(shape), c.alpha,
                    c.beta, "-", verify_grouped(cublas, c));
        }
    return batch_summary();
  }
  if (o.problems) {  // per op pair: the sizes as problems; then with empty ones, odd rows and smaller bounds
    for (const auto& [name, precision] : o.jobs)
      for (const OpPair& op : o.op_pairs) {
        ProblemsCase c;
        c.kernel = name, c.opA = op.first, c.opB = op.second, c.sizes = o.shapes, c.precision = precision;
        c.seed = o.seed + uint64_t(total);
        for (int edges = 0; edges < 2; ++edges) {
          ProblemsCase run = edges ? with_edges(c) : c;
          run.alpha = o.alpha.value_or(run.alpha), run.beta = o.beta.value_or(run.beta);
          batch_row(name, precision, to_string(op), std::to_string(run.sizes.size()) + " problems", run.alpha,
                    run.beta, edges ? "edge" : "-", verify_problems(cublas, run));
        }
      }
    return batch_summary();
  }
  if (o.batch > 1) {  // strided batches in three layouts: stacked, sharing B, C's matrices side by side
    for (const auto& [name, precision] : o.jobs)
      for (const OpPair& op : o.op_pairs)
        for (const Shape& shape : o.shapes)
          for (int layout = 0; layout < 3; ++layout) {
            if (!o.layout.empty() && o.layout != kBatchLayouts[layout]) continue;
            BatchCase c{name, op.first, op.second, shape, o.batch, precision};
            c.seed = o.seed + uint64_t(total), c.share_b = layout == 1, c.side_by_side = layout == 2;
            c.offset = o.offset, c.pointers = o.pointers;
            if (layout == 1) c.alpha = -0.75f, c.beta = 1.25f;
            c.alpha = o.alpha.value_or(c.alpha), c.beta = o.beta.value_or(c.beta);
            batch_row(name, precision, to_string(op), std::to_string(o.batch) + " x " + to_string(shape), c.alpha,
                      c.beta, (o.pointers ? "*" : "") + std::string(kBatchLayouts[layout]), verify_batch(cublas, c));
          }
    return batch_summary();
  }
  for (const auto& [name, precision] : o.jobs) {
    // With --ld-pad the leading dimensions are exactly minimum + pad, and a
    // kernel that needs aligned ones may refuse them: that is reported, not failed.
    const auto info = find_kernel(name);
    const int64_t align = exact_pad || !info ? 1 : info->alignment;
    for (const OpPair& op : o.op_pairs)
      for (const Shape& shape : o.shapes)
        for (const Setting& s : settings)
          for (const EpilogueSpec& epilogue : o.epilogues) {
          const int64_t pad = exact_pad ? s.pad_units : s.pad_units * align;
          VerifyCase c{name, op.first, op.second, shape, s.alpha, s.beta, pad, o.seed + uint64_t(total), align, precision,
                       o.offset};
          c.epilogue = epilogue;
          c.block_scales = o.block_scales, c.b_block_n = o.b_block_n;
          const VerifyResult r = verify_case(cublas, c);
          ++total;
          // A kernel refusing what its registry entry says it does not take is reported, not failed.
          const bool outside = info && info->max_m > 0 && shape.m > info->max_m;
          const bool refusal = (exact_pad || outside) && r.status.code() == StatusCode::kNotSupported;
          refused += refusal;
          failed += !r.passed && !refusal;
          const std::string result = r.passed ? (r.cublas_off ? "PASS (cuBLAS off the fp64 reference)" : "PASS") : refusal ? "REFUSED: " + r.reason : "FAIL: " + r.reason;
          out << fmt::format("{:<20} {:<8} {:<3} {:>17} {:>6} {:>6} {:>5} {:>4} {:>10.2e} {:>10.2e} {:>9.1e}  {}{}\n",
                             name, to_string(precision), to_string(op), to_string(shape), s.alpha, s.beta, align, pad, r.err_vs_cublas,
                             r.err_vs_fp64, r.tolerance, epilogues ? fmt::format("{:<10}", to_string(epilogue)) : "",
                             result);
        }
  }
  out << fmt::format("{} passed, {} failed, {} refused\n", total - failed - refused, failed, refused);
  if (failed) err << fmt::format("error: {} of {} verification cases failed\n", failed, total);
  return failed ? 1 : 0;
}

// --suite NAME[,NAME]: the suites' calls replace --sizes x --ops.
void use_suite(const std::string& suite, bool sizes_or_ops_given, BenchOptions* o) {
  if (suite.empty()) return;
  if (sizes_or_ops_given) throw UsageError("--suite gives the shapes and op pairs: leave out --sizes and --ops");
  o->cases = parse_or_usage(load_suites, suite);
  o->suite = suite;
}

// Per kernel and precision: the geometric mean and the worst of the ratios to cuBLAS.
void print_suite_summary(const std::string& suite, const std::vector<BenchRow>& rows, std::ostream& out) {
  out << fmt::format("\nsuite {}: tessel / cuBLAS per kernel and precision\n", suite);
  for (const SuiteSummary& s : summarize_suite(rows)) {
    out << fmt::format("  {:<8} {:<24} geomean {:.3f}  worst {:.3f} ({})  over {} calls{}\n", s.dtype, s.kernel, s.geomean,
                       s.worst, s.worst_call, s.timed,
                       s.timed < s.rows ? fmt::format(", {} not timed", s.rows - s.timed) : "");
    if (s.small_m > 0) {
      out << fmt::format("  {:<8} {:<24} m <= {}: geomean {:.3f}  worst {:.3f}  over {} calls; bandwidth {:.1f}% of the "
                         "copy's (geomean), worst {:.1f}%\n",
                         "", "", kMemoryBoundM, s.small_m_geomean, s.small_m_worst, s.small_m,
                         100 * s.small_m_copy_geomean, 100 * s.small_m_copy_worst);
    }
  }
}

struct BenchCli {
  int tp = 0, chunks = 0;  // --tp: ranks of the tensor-parallel benchmark
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> dtypes;
  std::vector<Job> jobs;
  std::string sizes = kDefaultBenchSizes;
  std::string ops = "NN";
  std::string csv, json;
  std::string suite;
  std::string epilogue = "none";
  std::string reference = "cublas";
  bool sizes_or_ops_given = false;
  BenchOptions options;

  void prepare() {
    jobs = plan_jobs(kernels, parse_dtypes(dtypes));
    options.shapes = parse_or_usage(parse_shapes, sizes);
    options.ops = parse_or_usage(parse_ops, ops);
    const std::optional<EpilogueSpec> e = parse_epilogue(epilogue);
    if (!e) throw UsageError("--epilogue '" + epilogue + "': see tessel verify --help");
    if (e->col_scale() && options.beta != 0.0f) throw UsageError("--epilogue with scale needs --beta 0");
    options.epilogue = *e;
    if (reference != "cublas" && reference != "cublaslt") {
      throw UsageError("--reference '" + reference + "': cublas or cublaslt");
    }
    std::string why;
    if (reference == "cublaslt" && !CublasLt::takes(*e, &why)) throw UsageError("--reference cublaslt: " + why);
    options.fused_reference = reference == "cublaslt";
    if (options.batch < 1) throw UsageError("--batch must be >= 1");
    if (options.batch > 1 && (e->any() || options.block_scales)) {
      throw UsageError("--batch takes no --epilogue and no --block-scales");
    }
    if (options.groups < 0) throw UsageError("--groups must be >= 0");
    if (options.masked && options.groups == 0) throw UsageError("--masked needs --groups");
    if (options.groups > 0 && (options.batch > 1 || e->any() || options.block_scales)) {
      throw UsageError("--groups takes no --batch, no --epilogue and no --block-scales");
    }
    if (options.pointers && (options.groups > 0 || e->any() || options.block_scales || options.fused_reference)) {
      throw UsageError("--pointers takes no --groups, no --epilogue, no --block-scales and no --reference cublaslt");
    }
    if (options.problems && (options.batch > 1 || options.groups > 0 || options.pointers || e->any() ||
                             options.block_scales || options.fused_reference || !suite.empty())) {
      throw UsageError("--problems takes no --batch, --groups, --pointers, --epilogue, --block-scales, --suite and "
                       "no --reference cublaslt");
    }
    for (const Job& j : jobs) {
      if ((options.batch > 1 || options.groups > 0 || options.pointers || options.problems) &&
          is_fp8(j.precision.ab)) {
        throw UsageError("--batch, --pointers, --groups and --problems take no FP8 precision (no cuBLAS reference)");
      }
      if ((options.groups > 0 || options.problems) && j.precision.c != j.precision.ab) {
        throw UsageError("--groups and --problems take precisions whose C is of the inputs' type (cuBLAS's grouped "
                         "GEMM, the reference, takes no other), not " + to_string(j.precision));
      }
    }
    use_suite(suite, sizes_or_ops_given, &options);
    if (options.repeat < 1) throw UsageError("--repeat must be >= 1");
    if (options.warmup < 0) throw UsageError("--warmup must be >= 0");
  }
};

int cmd_bench(const BenchCli& b, const std::string& command, std::ostream& out, std::ostream& err) {
  // The output files open before the work, so that a bad path fails in a second, not after the run.
  std::ofstream csv, json;
  if (!b.csv.empty() && !(csv.open(b.csv), csv)) throw UsageError("cannot write --csv file '" + b.csv + "'");
  if (!b.json.empty() && !(json.open(b.json), json)) throw UsageError("cannot write --json file '" + b.json + "'");
  RunInfo run{command, utc_now_iso(), query_gpu(),
              references(b.jobs, true, b.options.block_scales, b.options.b_block_n)};
  if (b.options.groups > 0 || b.options.problems) {
    run.reference = "cuBLAS's grouped GEMM cublasGemmGroupedBatchedEx_64, a group per GEMM, with the types of " +
                    run.reference;
  }
  if (b.options.fused_reference) {
    std::string lt;
    for (const Job& j : b.jobs) lt = CublasLt::description(j.precision);
    run.reference = lt;
  }
  out << fmt::format("{} ({} SMs, driver CUDA {}), {}\n", run.gpu.name, run.gpu.sm_count,
                     version_string(run.gpu.driver_version), run.date);
  out << fmt::format("reference: {}{}\nmedian of up to {} runs, L2 flushed before each ({})\n", run.reference,
                     !b.options.epilogue.any()   ? ""
                     : b.options.fused_reference ? ", epilogue " + to_string(b.options.epilogue) + " fused"
                                                 : ", then the epilogue " + to_string(b.options.epilogue) +
                                                       " in a separate pass",
                     b.options.repeat, b.options.read_flush ? "reads" : "a memset");
  Cublas cublas;
  std::vector<BenchRow> rows;
  // Rows printed and written as they are measured: a run cut short keeps what it measured.
  constexpr size_t kLabelWidth = 44;
  out << bench_header(kLabelWidth) << std::flush;
  if (csv.is_open()) csv << kCsvHeader << '\n' << std::flush;
  const auto on_row = [&](const BenchRow& r) {
    out << bench_line(r, kLabelWidth) << std::flush;
    if (csv.is_open()) csv << csv_row(r) << std::flush;
  };
  for (size_t first = 0; first < b.jobs.size();) {  // one run_bench per precision (jobs come grouped)
    BenchOptions o = b.options;
    o.precision = b.jobs[first].precision;
    o.kernels.clear();
    for (; first < b.jobs.size() && b.jobs[first].precision == o.precision; ++first) o.kernels.push_back(b.jobs[first].kernel);
    const std::vector<BenchRow> part =
        o.problems ? run_problems_bench(o, on_row) : run_bench(cublas, o, terminal_progress(err), on_row);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  if (!b.suite.empty()) print_suite_summary(b.suite, rows, out);
  if (json.is_open()) json << bench_json(run, rows).dump(2) << '\n';
  int bad = 0;
  for (const BenchRow& r : rows) bad += r.status != "ok";
  if (bad) err << fmt::format("error: {} of {} rows FAILED or did not run\n", bad, rows.size());
  return bad ? 1 : 0;
}

struct RunCli {
  std::string kernel;
  std::string dtype;
  int64_t m = 0, n = 0, k = 0;
  std::string ops = "NN";
  int iters = 10;
  float alpha = 1.0f, beta = 0.0f;
  OpPair op_pair;
  Precision precision;

  void prepare() {
    const std::vector<Job> jobs = plan_jobs({kernel}, parse_dtypes(dtype.empty() ? std::vector<std::string>{}
                                                                               : std::vector<std::string>{dtype}));
    if (jobs.size() != 1) throw UsageError("run takes one kernel and one --dtype");
    precision = jobs[0].precision;
    const auto pairs = parse_or_usage(parse_ops, ops);
    if (pairs.size() != 1) throw UsageError("--ops takes one op pair for run");
    op_pair = pairs[0];
    if (iters < 1) throw UsageError("--iters must be >= 1");
    if (m < 0 || n < 0 || k < 0) throw UsageError("--m, --n and --k must be >= 0");
  }
};

// One kernel alone, for a profiler: random inputs, `iters` launches, mean time.
int cmd_run(const RunCli& r, std::ostream& out, std::ostream& err) {
  const std::string& name = r.kernel;
  const SgemmArgs layout = make_layout(r.op_pair, {r.m, r.n, r.k}, r.alpha, r.beta);
  std::vector<float> hA(size_t(stored_rows_a(layout) * layout.lda)), hB(size_t(stored_rows_b(layout) * layout.ldb)),
      hC(size_t(r.m * layout.ldc));
  fill_random(hA, 1), fill_random(hB, 2), fill_random(hC, 3);
  DeviceBuffer<uint8_t> dA(encode(hA, r.precision.ab)), dB(encode(hB, r.precision.b_type())),
      dC(encode(hC, r.precision.c));
  GemmArgs a = to_gemm(layout);
  a.precision = r.precision;
  a.A = dA.get(), a.B = dB.get(), a.C = dC.get();
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  check_cuda(cudaEventRecord(start), "cudaEventRecord");
  for (int i = 0; i < r.iters; ++i) {
    if (Status s = run_gemm(name, a); !s.ok()) {
      err << "error: " << s.message() << '\n';
      return 1;
    }
  }
  check_cuda(cudaEventRecord(stop), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "kernel run");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const double mean = ms / r.iters;
  out << fmt::format("{} {} {} {}x{}x{}: {} launches, mean {:.4f} ms, {:.2f} TFLOP/s (back to back, L2 not flushed)\n",
                     name, to_string(r.precision), to_string(r.op_pair), r.m, r.n, r.k, r.iters, mean, tflops(r.m, r.n, r.k, mean));
  return 0;
}

// Random calls and what callers do around them until the time or the case
// count runs out; every failure is a one-line reproducer.
int cmd_fuzz(const FuzzOptions& f, std::ostream& out, std::ostream& err) {
  out << fmt::format("fuzzing for {} s{} with {} threads, seed {}\n", f.seconds,
                     f.max_cases > 0 ? fmt::format(" or {} cases", f.max_cases) : "", f.threads, f.seed);
  const FuzzReport r = run_fuzz(f, err);
  out << fmt::format("{} cases: {} passed, {} failed, {} refused by name (graph {}, pending error {}, bad input {}, "
                     "batch {}, grouped {})\n",
                     r.cases, r.passed, r.failed, r.refused, r.graph_cases, r.pending_cases, r.bad_input_cases,
                     r.batch_cases, r.grouped_cases);
  for (const std::string& line : r.failures) out << "  " << line << '\n';
  if (r.cublas_off > 0) {
    out << fmt::format("{} passed cases had cuBLAS off the fp64 reference (tessel matched fp64 on every element):\n",
                       r.cublas_off);
    for (const std::string& line : r.cublas_off_cases) out << "  " << line << '\n';
  }
  return r.failed ? 1 : 0;
}

// `bench --tp N` (harness/tp_bench.hpp): one precision, the --sizes shapes
// (default: the 8192-token MLP of a 70B-class model, up and down projections).
int cmd_bench_tp(const BenchCli& b, std::ostream& out, std::ostream& err) {
#ifdef TESSEL_HAS_NCCL
  TpBenchOptions o;
  o.ranks = b.tp, o.chunks = b.chunks, o.repeat = b.options.repeat, o.warmup = b.options.warmup;
  const std::vector<Precision> precisions = parse_dtypes(b.dtypes.empty() ? std::vector<std::string>{"bf16"} : b.dtypes);
  if (precisions.size() != 1) throw UsageError("--tp takes one --dtype");
  o.precision = precisions[0];
  o.shapes = b.sizes_or_ops_given ? b.options.shapes : parse_shapes("8192x28672x8192,8192x8192x28672");
  o.csv = b.csv;
  if (!o.csv.empty() && !std::ofstream(o.csv)) throw UsageError("cannot write --csv file '" + o.csv + "'");
  out << fmt::format("tensor-parallel layers on {} GPUs, {}, median of {} runs (NCCL_NVLS_ENABLE=0)\n", o.ranks,
                     to_string(o.precision), o.repeat);
  return run_tp_bench(o, out, err);
#else
  (void)b, (void)out, (void)err;
  throw UsageError("--tp needs tessel built with NCCL (CMake found none: set NCCL_ROOT)");
#endif
}

struct TuneCli {
  std::string sizes = kDefaultBenchSizes;
  std::string ops = "NN";
  std::string file;
  std::string suite;
  std::vector<std::string> dtypes{"f32"};
  std::vector<Precision> precisions;
  bool sizes_or_ops_given = false;
  BenchOptions options;

  void prepare() {
    precisions = parse_dtypes(dtypes);
    if (precisions.empty()) precisions = {Precision{}};
    options.shapes = parse_or_usage(parse_shapes, sizes);
    options.ops = parse_or_usage(parse_ops, ops);
    use_suite(suite, sizes_or_ops_given, &options);
    if (options.repeat < 1) throw UsageError("--repeat must be >= 1");
  }
};

// Times, per precision, every configuration of the latest two ladder steps
// that can take each call (tight leading dimensions, as `bench` makes them;
// for FP32 the latest step only) and stores the fastest in the tuning file
// that auto-dispatch reads.
int cmd_tune(const TuneCli& t, std::ostream& out, std::ostream& err) {
  const std::string path = t.file.empty() ? tuning_file_path() : t.file;
  if (path.empty()) throw std::runtime_error("no tuning file path: set TESSEL_TUNE_FILE or HOME, or pass --file");
  std::map<std::tuple<int64_t, int64_t, int64_t, int, int, bool, std::string>, TunedChoice> table;
  auto key = [](const TunedChoice& c) {
    return std::make_tuple(c.m, c.n, c.k, int(c.opA), int(c.opB), c.aligned, to_string(c.precision));
  };
  for (const TunedChoice& c : read_tuning(path)) table[key(c)] = c;
  // Written back at once, unchanged: a path that cannot be written fails now, not after the timing.
  std::vector<TunedChoice> kept;
  for (const auto& entry : table) kept.push_back(entry.second);
  if (Status s = write_tuning(path, kept); !s.ok()) throw UsageError(s.message());

  const int cc = query_gpu().compute_capability;
  Cublas cublas;
  int failed = 0;
  const std::vector<SuiteCase> calls = bench_calls(t.options);
  for (const Precision& precision : t.precisions) {
    int top = 0;
    for (const KernelInfo& k : kernels()) {
      if (k.auto_dispatch && k.takes(precision) && k.runs_on(cc)) top = std::max(top, k.ladder_step);
    }
    const int lowest = precision == Precision{} ? top : top - 1;  // Hopper: steps 14 and 15 share the calls
    for (const SuiteCase& call : calls) {
      const Shape& shape = call.shape;
      const OpPair& op = call.ops;
      const SgemmArgs tight = make_layout(op, shape, 1.0f, 0.0f);  // the leading dimensions bench uses
      const int64_t unit = 16 / int64_t(size_of(precision.ab)), unit_c = 16 / int64_t(size_of(precision.c));
      const bool aligned = tight.lda % unit == 0 && tight.ldb % unit == 0 && tight.ldc % unit_c == 0;
      BenchOptions o = t.options;
      o.precision = precision;
      o.shapes = {shape};
      o.ops = {op};
      o.cases.clear();
      o.kernels.clear();
      for (const KernelInfo& k : kernels()) {
        if (k.auto_dispatch && k.ladder_step >= lowest && k.takes(precision) && k.runs_on(cc) &&
            (k.alignment == 1 || aligned)) {
          o.kernels.push_back(k.name);
        }
      }
      const std::vector<BenchRow> rows = run_bench(cublas, o);
      out << bench_table(rows);
      const BenchRow* best = nullptr;
      for (const BenchRow& r : rows) {
        if (r.status == "ok" && (!best || r.ms.median < best->ms.median)) best = &r;
      }
      if (!best) {
        ++failed;
        err << "error: no configuration ran correctly for " << to_string(shape) << '\n';
        continue;
      }
      out << fmt::format("-> {} {} {} ({}aligned): {}\n\n", to_string(precision), to_string(op), to_string(shape),
                         aligned ? "" : "un", best->kernel);
      const TunedChoice c{shape.m, shape.n, shape.k, op.first, op.second, aligned, best->kernel, precision};
      table[key(c)] = c;
    }
  }
  std::vector<TunedChoice> all;
  for (const auto& [k, c] : table) all.push_back(c);
  if (Status s = write_tuning(path, all); !s.ok()) throw std::runtime_error(s.message());
  reload_tuning();
  out << fmt::format("wrote {} entries to {}\n", all.size(), path);
  return failed ? 1 : 0;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"tessel: GEMM kernels for NVIDIA GPUs, each measured against cuBLAS"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show the help of every command");

  std::string list_format = "short";
  auto* list = app.add_subcommand("list", "List the registered kernels and what each accepts");
  list->add_flag_callback("--long", [&] { list_format = "long"; }, "Also what each kernel does and the shapes it accepts");
  list->add_flag_callback("--markdown", [&] { list_format = "markdown"; }, "The ladder as a markdown table (README's)");
  app.add_subcommand("info", "Describe the GPU, driver, CUDA runtime and cuBLAS");

  const std::string dtype_help = "Precisions: " + supported_precision_names() + " or all (default: each kernel's first)";
  VerifyCli vo;
  float v_alpha = 1, v_beta = 0;
  int64_t v_pad = 0;
  auto* verify = app.add_subcommand("verify", "Check kernels against cuBLAS and an fp64 reference");
  verify->add_option("--kernel", vo.kernels, "Kernel names, 'auto' or 'all' (every kernel this GPU runs)")->delimiter(',')->capture_default_str();
  verify->add_option("--dtype", vo.dtypes, dtype_help)->delimiter(',');
  verify->add_option("--sizes", vo.sizes, "S, MxNxK or FIRST:LAST:STEP, comma-separated")->capture_default_str();
  verify->add_option("--ops", vo.ops, "Op pairs, e.g. NN,NT,TN,TT")->capture_default_str();
  auto* va = verify->add_option("--alpha", v_alpha, "Only this alpha (default: two settings)");
  auto* vb = verify->add_option("--beta", v_beta, "Only this beta (0 fills C with NaN)");
  auto* vp = verify->add_option("--ld-pad", v_pad, "Leading dimensions exceed their minimum by this")->check(CLI::NonNegativeNumber);
  verify->add_option("--seed", vo.seed, "Random seed")->capture_default_str();
  verify->add_option("--epilogue", vo.epilogue_names,
                     "Epilogues, comma-separated, each terms joined by '+': bias|rowbias, relu|gelu|gelu_tanh|silu, "
                     "scale|colscale, pre; or none")
      ->delimiter(',')
      ->capture_default_str();
  verify->add_option("--offset", vo.offset, "A, B and C start this many elements into their buffers")
      ->check(CLI::NonNegativeNumber);
  verify->add_option("--batch", vo.batch,
                     "A strided batch of this many GEMMs per case, in three layouts (matrices stacked, B shared, "
                     "C's side by side)")
      ->check(CLI::PositiveNumber);
  verify->add_option("--groups", vo.groups,
                     "A grouped GEMM per case: its m rows in this many skewed groups after an empty one, 5 rows "
                     "in none; op B from --ops")
      ->check(CLI::PositiveNumber);
  verify->add_flag("--masked", vo.masked,
                   "--groups: masked (GemmArgs::group_counts): groups of 5 rows more than the largest, counts "
                   "past the capacity and below 0 among them (clamped)");
  verify->add_flag("--pointers", vo.pointers,
                   "--batch: as pointer-array batches (device arrays of the matrices' pointers, in reverse order; "
                   "the layout column shows *)");
  verify->add_option("--layout", vo.layout, "--batch: this layout only (stack, shared: B shared, side: C side by side)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kBatchLayouts), std::end(kBatchLayouts))));
  verify->add_option("--group-rows", vo.group_rows,
                     "--groups: each group's rows (with --masked, its count), comma-separated, instead of the "
                     "skewed split of m")
      ->delimiter(',');
  verify->add_option("--capacity", vo.capacity, "--masked: each group's rows (default: 5 more than the largest count)")
      ->check(CLI::PositiveNumber);
  verify->add_option("--tail", vo.tail, "--groups: rows after the groups that none owns (default 5; masked 0)")
      ->check(CLI::NonNegativeNumber);
  verify->add_flag("--share-b", vo.share_b, "--groups: one B for every group");
  verify->add_flag("--problems", vo.problems,
                   "The --sizes shapes as the problems of one grouped call (GemmArgs::problems), per op pair; then "
                   "again with empty problems, rows off 16 bytes, beta and bounds below the largest sizes");
  verify->add_flag("--block-scales", vo.block_scales,
                   "FP8: 1x128 / 128x128 block scales (GemmArgs::block_scales) instead of per-tensor ones");
  verify->add_option("--b-block-n", vo.b_block_n,
                     "--block-scales: B's scales per 128 columns (128x128 blocks, the default) or per column (1: "
                     "1x128 blocks on both operands)")
      ->check(CLI::IsMember({1, 128}));

  BenchCli bo;
  auto* bench = app.add_subcommand("bench", "Time kernels against cuBLAS (the main job)");
  bench->add_option("--kernel", bo.kernels, "Kernel names, 'auto' or 'all' (every kernel this GPU runs)")->delimiter(',')->capture_default_str();
  bench->add_option("--dtype", bo.dtypes, dtype_help)->delimiter(',');
  bench->add_option("--sizes", bo.sizes, "S, MxNxK or FIRST:LAST:STEP, comma-separated")->capture_default_str();
  bench->add_option("--ops", bo.ops, "Op pairs, e.g. NN or NN,TN")->capture_default_str();
  bench->add_option("--suite", bo.suite,
                    "Shape suites from bench/suites (names or paths, comma-separated) instead of --sizes and --ops; "
                    "ends with each precision's geometric mean and worst ratio");
  bench->add_option("--repeat", bo.options.repeat, "Timed runs per row (median reported)")->capture_default_str();
  bench->add_option("--warmup", bo.options.warmup, "Untimed runs first")->capture_default_str();
  bench->add_option("--max-seconds", bo.options.max_seconds, "Stop repeating a row after this long (>= 3 runs)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  bench->add_flag("--read-flush", bo.options.read_flush,
                  "Flush L2 by reading a buffer twice its size (clean lines) instead of writing it");
  bench->add_option("--alpha", bo.options.alpha, "alpha of every call")->capture_default_str();
  bench->add_option("--beta", bo.options.beta, "beta of every call (non-zero: C is read too)")->capture_default_str();
  bench->add_option("--epilogue", bo.epilogue,
                    "Every call's epilogue, e.g. bias+gelu (terms as for verify); cuBLAS's rows then run it as a "
                    "separate pass")
      ->capture_default_str();
  bench->add_option("--reference", bo.reference,
                    "cublas (cuBLAS, an epilogue then in a separate pass) or cublaslt (cuBLASLt with its own fused "
                    "epilogue: bias, relu, gelu_tanh)")
      ->capture_default_str();
  bench->add_option("--batch", bo.options.batch,
                    "A strided batch of this many GEMMs per call (reference: cuBLAS's strided-batched GEMM)")
      ->capture_default_str();
  bench->add_flag("--share-b", bo.options.share_b, "--batch: one B for every GEMM of the batch (stride_b = 0)");
  bench->add_flag("--pointers", bo.options.pointers,
                  "--batch as a pointer-array batch (device arrays of the matrices' pointers; reference: cuBLAS's "
                  "pointer-array GEMM)");
  bench->add_option("--groups", bo.options.groups,
                    "A grouped GEMM (mixture of experts): each size's m rows cut into this many groups, a B each "
                    "(reference: cuBLAS's grouped GEMM; a loop of tessel calls timed beside it)")
      ->capture_default_str();
  bench->add_flag("--skew", bo.options.skew, "--groups: group g's rows ~ 1 / (g + 1) instead of equal");
  bench->add_flag("--problems", bo.options.problems,
                  "Every --sizes shape one problem of one grouped call per op pair (GemmArgs::problems: sizes of "
                  "their own; reference: cuBLAS's grouped GEMM; a loop of tessel calls timed beside it)");
  bench->add_flag("--masked", bo.options.masked,
                  "--groups: masked (GemmArgs::group_counts): every group has the largest group's rows, and "
                  "computes its own count of them (the mean count its expected_group_rows)");
  bench->add_flag("--block-scales", bo.options.block_scales,
                  "FP8: 1x128 / 128x128 block scales; cuBLASLt's reference then runs its VEC128 x BLK128x128 mode "
                  "(the same work, its output column-major)");
  bench->add_option("--b-block-n", bo.options.b_block_n,
                    "--block-scales: B's scales per 128 columns (128x128 blocks, the default) or per column (1: "
                    "1x128 blocks on both operands; cuBLASLt's VEC128 x VEC128 mode)")
      ->check(CLI::IsMember({1, 128}));
  bench->add_flag("--atomics", bo.options.allow_atomics,
                  "Let split-k add its parts into C with atomics (faster on small outputs, not bitwise reproducible)");
  bench->add_option("--csv", bo.csv, "Also write the rows as CSV to this file");
  bench->add_option("--json", bo.json, "Also write the rows and the GPU as JSON to this file");
  bench->add_option("--tp", bo.tp,
                    "Tensor-parallel layers on this many GPUs through NCCL: per --sizes shape (the whole layer; "
                    "default the 8192-token MLP of a 70B-class model), all-gather + GEMM and GEMM + reduce-scatter, "
                    "overlapped against NCCL then cuBLAS")
      ->check(CLI::Range(1, 64));
  bench->add_option("--chunks", bo.chunks, "--tp: chunks of each rank's rows (0: the library's choice)")
      ->check(CLI::NonNegativeNumber);

  RunCli ro;
  auto* runc = app.add_subcommand("run", "Run one kernel alone (for a profiler such as ncu)");
  runc->add_option("--kernel", ro.kernel, "Kernel name or 'auto'")->required();
  runc->add_option("--dtype", ro.dtype, "Precision (default: the kernel's first; auto: f32)");
  runc->add_option("--m", ro.m)->required();
  runc->add_option("--n", ro.n)->required();
  runc->add_option("--k", ro.k)->required();
  runc->add_option("--ops", ro.ops, "One op pair, e.g. NN")->capture_default_str();
  runc->add_option("--iters", ro.iters, "Launches, back to back")->capture_default_str();
  runc->add_option("--alpha", ro.alpha, "alpha")->capture_default_str();
  runc->add_option("--beta", ro.beta, "beta (non-zero: C is read too)")->capture_default_str();

  TuneCli to;
  auto* tune = app.add_subcommand("tune", "Time the fastest step's configurations per shape and store the winners for auto-dispatch");
  tune->add_option("--sizes", to.sizes, "S, MxNxK or FIRST:LAST:STEP, comma-separated")->capture_default_str();
  tune->add_option("--ops", to.ops, "Op pairs, e.g. NN or NN,TN")->capture_default_str();
  tune->add_option("--suite", to.suite, "Shape suites instead of --sizes and --ops");
  tune->add_option("--dtype", to.dtypes, "Precisions to tune (default f32; 'all')")->delimiter(',');
  tune->add_option("--repeat", to.options.repeat, "Timed runs per configuration")->capture_default_str();
  tune->add_option("--file", to.file, "Tuning file (default: $TESSEL_TUNE_FILE or the per-GPU cache file)");

  FuzzOptions fo;
  auto* fuzz = app.add_subcommand("fuzz", "Random calls checked against cuBLAS and fp64, with graphs, threads and bad input");
  fuzz->add_option("--seconds", fo.seconds, "How long to run")->capture_default_str()->check(CLI::NonNegativeNumber);
  fuzz->add_option("--cases", fo.max_cases, "Stop after this many cases (0: no limit)")->capture_default_str();
  fuzz->add_option("--seed", fo.seed, "Random seed")->capture_default_str();
  fuzz->add_option("--threads", fo.threads, "Host threads, each on its own stream")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));

  const auto& commands = app.get_subcommands({});
  const bool known = std::any_of(commands.begin(), commands.end(), [&](const CLI::App* c) {
    return args.size() > 1 && c->get_name() == args[1];
  });
  if (args.size() > 1 && !args[1].empty() && args[1][0] != '-' && !known) {
    err << "error: unknown command '" << args[1] << "' (commands: list, info, verify, bench, run, tune, fuzz; --help)\n";
    return kExitUsage;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(int(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return code == 0 ? 0 : kExitUsage;
  }
  if (va->count()) vo.alpha = v_alpha;
  if (vb->count()) vo.beta = v_beta;
  if (vp->count()) vo.ld_pad = v_pad;

  bo.sizes_or_ops_given = bench->count("--sizes") + bench->count("--ops") > 0;
  to.sizes_or_ops_given = tune->count("--sizes") + tune->count("--ops") > 0;
  try {
    if (list->parsed()) return cmd_list(list_format, out);
    // Every other command needs a GPU: check the command line first, then say so in one line.
    if (verify->parsed()) vo.prepare();
    if (bench->parsed()) bo.prepare();
    if (runc->parsed()) ro.prepare();
    if (tune->parsed()) to.prepare();
    // Before any CUDA call: the tensor-parallel benchmark forks its ranks.
    if (bench->parsed() && bo.tp > 0) return cmd_bench_tp(bo, out, err);
    std::string why;
    if (!gpu_available(&why)) {
      err << "error: this command needs a GPU: " << why << "\n";
      return kExitNoGpu;
    }
    if (app.got_subcommand("info")) return cmd_info(out);
    if (verify->parsed()) return cmd_verify(vo, out, err);
    if (bench->parsed()) return cmd_bench(bo, join_command(args), out, err);
    if (tune->parsed()) return cmd_tune(to, out, err);
    if (fuzz->parsed()) return cmd_fuzz(fo, out, err);
    return cmd_run(ro, out, err);
  } catch (const UsageError& e) {
    err << "error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace tessel::cli
