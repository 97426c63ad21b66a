// The harness's random sequences, the same on the host (fill_random) and on
// the device (fill_device): element i of seed s is splitmix64's output for
// mix(s + c) + (i + 1) * golden, its top 24 bits scaled to [-1, 1).
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define TESSEL_RANDOM_FN __host__ __device__ __forceinline__
#else
#define TESSEL_RANDOM_FN inline
#endif

namespace tessel::harness {

TESSEL_RANDOM_FN uint64_t splitmix(uint64_t z) {  // splitmix64's output function
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The start of seed's sequence: mixed, so that the sequences of seeds s and
// s + 1 are unrelated (not one shifted by an element).
TESSEL_RANDOM_FN uint64_t random_base(uint64_t seed) { return splitmix(seed + 0x2545F4914F6CDD1Dull); }

TESSEL_RANDOM_FN float random_element(uint64_t base, uint64_t i) {
  const uint64_t z = splitmix(base + (i + 1) * 0x9E3779B97F4A7C15ull);
  return float(double(z >> 40) * (1.0 / 16777216.0) * 2.0 - 1.0);
}

}  // namespace tessel::harness

#undef TESSEL_RANDOM_FN
