#pragma once

#include <gtest/gtest.h>

#include <tessel/tessel.hpp>

#include "harness/gpu.hpp"

// The current GPU's compute capability as 10 * major + minor.
inline int compute_capability() {
  static const int cc = tessel::harness::query_gpu().compute_capability;
  return cc;
}
inline bool hopper() { return compute_capability() == 90; }
// Whether kernel k's device code runs on the current GPU.
inline bool runs_here(const tessel::KernelInfo& k) { return k.runs_on(compute_capability()); }

// Base fixture: skips (reported as skipped) when no GPU is visible.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!tessel::harness::gpu_available(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
  }
};

template <class Param>
class GpuTestWithParam : public GpuTest, public ::testing::WithParamInterface<Param> {};
