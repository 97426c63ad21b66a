// The tessel command's parsing and error exits (no GPU needed).
#include <gtest/gtest.h>

#include <sstream>

#include "cli.hpp"
#include "harness/gpu.hpp"

namespace {

struct Result {
  int code;
  std::string out, err;
};

Result run(std::vector<std::string> args) {
  args.insert(args.begin(), "tessel");
  std::ostringstream out, err;
  const int code = tessel::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(Cli, ListShowsEveryKernel) {
  const Result r = run({"list"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const auto& k : tessel::kernels()) EXPECT_NE(r.out.find(k.name), std::string::npos) << k.name;
}

TEST(Cli, HelpExitsZero) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("bench"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwoWithAMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{}, "subcommand"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"bench", "--kernel", "nope"}, "unknown kernel 'nope'"},
      {{"verify", "--kernel", "naive,nope"}, "unknown kernel 'nope'"},
      {{"bench", "--kernel", "pipelined_64x64_splitkk"}, "did you mean pipelined_64x64_splitk"},
      {{"bench", "--sizes", "10:5:1"}, "LAST < FIRST"},
      {{"bench", "--sizes", "0:-1:1"}, "'-1'"},
      {{"bench", "--ops", "XX"}, "bad op pair 'XX'"},
      {{"bench", "--suite", "nosuch"}, "no suite 'nosuch'"},
      {{"bench", "--suite", "llm", "--sizes", "64"}, "leave out --sizes and --ops"},
      {{"tune", "--suite", "nosuch"}, "the suites: fp8_deepseek, llm, skinny, squares, unaligned"},
      {{"bench", "--repeat", "0"}, "--repeat must be >= 1"},
      {{"bench", "--repeat", "many"}, "many"},
      {{"verify", "--ld-pad", "-1"}, "ld-pad"},
      // The batch and grouped forms the fuzz tester's reproducers use.
      {{"verify", "--groups", "3", "--group-rows", "1,2"}, "--group-rows gives 2 groups, --groups 3"},
      {{"verify", "--groups", "2", "--group-rows", "1,2", "--capacity", "4"}, "--capacity needs --masked"},
      {{"verify", "--layout", "side"}, "--layout needs --batch"},
      {{"verify", "--batch", "2", "--layout", "diagonal"}, "diagonal"},
      {{"run", "--kernel", "smem", "--m", "-1", "--n", "2", "--k", "3"}, "must be >= 0"},
      {{"run", "--kernel", "smem", "--m", "1", "--n", "2"}, "--k"},
      {{"run", "--kernel", "smem", "--m", "1", "--n", "2", "--k", "3", "--ops", "NN,TT"}, "one op pair"},
      {{"tune", "--sizes", "12x"}, "bad shape '12x'"},
      {{"tune", "--repeat", "0"}, "--repeat must be >= 1"},
      {{"bench", "--dtype", "fp16"}, "--dtype 'fp16' is not one of"},
      {{"verify", "--dtype", "f16:bf16"}, "--dtype 'f16:bf16' is not one of"},
      {{"bench", "--kernel", "mma_f16_128x128", "--dtype", "f32"}, "kernel 'mma_f16_128x128' takes none of the --dtype precisions"},
      {{"verify", "--kernel", "naive", "--dtype", "tf32"}, "kernel 'naive' takes none of the --dtype precisions"},
      {{"run", "--kernel", "mma_bf16_128x128", "--dtype", "f16", "--m", "1", "--n", "1", "--k", "1"}, "takes none of"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.code, tessel::cli::kExitUsage) << joined << "\n" << r.err;
    EXPECT_NE((r.err + r.out).find(c.needle), std::string::npos) << joined << "\nerr: " << r.err;
  }
}

// One line per kernel, readable at 100 columns; --markdown is README's table.
TEST(Cli, ListFitsATerminalAndRendersMarkdown) {
  const Result r = run({"list"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_EQ(count, tessel::kernels().size() + 1);
  const Result md = run({"list", "--markdown"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("| step | kernel |", 0), 0u) << md.out;
  for (const auto& k : tessel::kernels()) EXPECT_NE(md.out.find("`" + k.name + "`"), std::string::npos) << k.name;
  const Result lg = run({"list", "--long"});
  EXPECT_NE(lg.out.find("accepts:"), std::string::npos);
}

TEST(Cli, UnknownKernelMessageIsShort) {
  const Result r = run({"bench", "--kernel", "nope"});
  EXPECT_LT(r.err.size(), 200u) << r.err;
}

// The precisions --dtype accepts are the ones the library names, and the
// list shows each kernel's precisions.
TEST(Cli, ListShowsPrecisions) {
  const Result r = run({"list"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* p : {"f16,f16:f32", "bf16,bf16:f32", "tf32", "e4m3xe5m2:bf16/f16/f32"}) {
    EXPECT_NE(r.out.find(p), std::string::npos) << p;
  }
}

TEST(Cli, GpuCommandsSayThereIsNoGpu) {
  if (tessel::harness::gpu_available()) GTEST_SKIP() << "a GPU is visible";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"info"}, {"bench"}, {"verify", "--kernel", "naive"}, {"run", "--kernel", "naive", "--m", "1", "--n", "1", "--k", "1"},
           {"bench", "--kernel", "all,auto", "--dtype", "all"}, {"verify", "--kernel", "mma_f16_128x128", "--dtype", "f16:f32"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, tessel::cli::kExitNoGpu) << args[0];
    EXPECT_NE(r.err.find("no CUDA GPU is visible"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
}

}  // namespace
