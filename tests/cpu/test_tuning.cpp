// The tuning file's format, read and written by the library.
#include <gtest/gtest.h>
#include <tessel/tessel.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

using tessel::Op;
using tessel::TunedChoice;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tessel-test-" + std::to_string(::getpid()) + "/" + name)).string();
}

TEST(Tuning, WriteThenReadRoundTrips) {
  const std::string path = temp_path("sub/dir/gpu.tune");  // folders are created
  const std::vector<TunedChoice> choices = {{4096, 4096, 4096, Op::N, Op::N, true, "pipelined_128x256"},
                                            {127, 4097, 1000, Op::T, Op::N, false, "pipelined_64x64_any"}};
  ASSERT_TRUE(tessel::write_tuning(path, choices).ok());
  const auto back = tessel::read_tuning(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].m, 127);
  EXPECT_EQ(back[1].n, 4097);
  EXPECT_EQ(back[1].opA, Op::T);
  EXPECT_FALSE(back[1].aligned);
  EXPECT_EQ(back[1].kernel, "pipelined_64x64_any");
  std::filesystem::remove_all(std::filesystem::path(path).parent_path().parent_path().parent_path());
}

TEST(Tuning, BadLinesAreSkippedAndMissingFileIsEmpty) {
  const std::string path = temp_path("bad.tune");
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "# comment\n1 2 3 N N 1 ok_kernel\n1 2 N N 1 short\n1 2 3 X N 1 bad_op\n1 2 3 N N 7 bad_flag\n\n";
  const auto back = tessel::read_tuning(path);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].kernel, "ok_kernel");
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  EXPECT_TRUE(tessel::read_tuning(path).empty());
}

TEST(Tuning, UnwritablePathIsAnError) {
  const tessel::Status s = tessel::write_tuning("/proc/tessel/x.tune", {});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/proc/tessel/x.tune"), std::string::npos) << s.message();
}

}  // namespace

namespace {

// A tuning file that is a device or a FIFO is ignored at once: neither an
// endless read (/dev/zero used to throw bad_alloc) nor a reader blocked forever.
TEST(Tuning, FileThatIsNotRegularIsIgnored) {
  EXPECT_TRUE(tessel::read_tuning("/dev/zero").empty());
  const std::string fifo = temp_path("fifo.tune");
  std::filesystem::create_directories(std::filesystem::path(fifo).parent_path());
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(tessel::read_tuning(fifo).empty());
  std::filesystem::remove(fifo);
}

}  // namespace

namespace {

// Entries carry their precision; a line without one (an older file) is f32.
TEST(Tuning, EntriesCarryTheirPrecision) {
  const std::string path = temp_path("precision.tune");
  TunedChoice bf16{4096, 4096, 4096, Op::N, Op::T, true, "wgmma_cluster_bf16_128x256", *tessel::parse_precision("bf16")};
  ASSERT_TRUE(tessel::write_tuning(path, {bf16}).ok());
  {
    std::ofstream more(path, std::ios::app);
    more << "1024 1024 1024 N N 1 pipelined_128x256\n"        // the format without a precision
         << "1024 1024 1024 N N 1 fp7 pipelined_128x256\n";  // an unknown precision: skipped
  }
  const auto back = tessel::read_tuning(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].precision, *tessel::parse_precision("bf16"));
  EXPECT_EQ(back[0].kernel, "wgmma_cluster_bf16_128x256");
  EXPECT_EQ(back[1].precision, tessel::Precision{});
  EXPECT_EQ(back[1].kernel, "pipelined_128x256");
}

}  // namespace
