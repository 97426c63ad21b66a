// Host-side element types: FP32 values stored as f32, f16 or bf16 bytes
// (round to nearest even) and read back, so that the harness keeps every
// operand as floats and uploads the bytes of the precision under test.
#pragma once

#include <tessel/tessel.hpp>

#include <cstdint>
#include <vector>

namespace tessel::harness {

std::vector<uint8_t> encode(const std::vector<float>& values, DType type);
std::vector<float> decode(const std::vector<uint8_t>& bytes, DType type);
// values = decode(encode(values)): what the matrix holds once stored as `type`.
void round_to(std::vector<float>& values, DType type);

}  // namespace tessel::harness
