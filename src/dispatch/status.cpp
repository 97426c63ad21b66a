#include <tessel/tessel.hpp>

namespace tessel {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kSuccess: return "success";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kUnknownKernel: return "unknown kernel";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kNoDevice: return "no CUDA device";
    case StatusCode::kCudaError: return "CUDA error";
  }
  return "unknown status";
}

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
  }
  return "unknown";
}

}  // namespace tessel
