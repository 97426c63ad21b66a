#pragma once

#include <gtest/gtest.h>

#include "harness/gpu.hpp"

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
