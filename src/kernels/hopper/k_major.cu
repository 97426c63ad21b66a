// Transposing copies that put tf32 operands K-major (see k_major.hpp), by
// launch_transpose (transpose.cu).
#include "kernels/hopper/k_major.hpp"

#include <cstdint>

#include "kernels/kernels.hpp"
#include "kernels/workspace.hpp"

namespace tessel::impl {

cudaError_t k_major_operands(const GemmArgs& a, cudaStream_t stream, GemmArgs* out) {
  *out = a;
  const bool copy_a = a.opA == Op::T, copy_b = a.opB == Op::N;
  if (!copy_a && !copy_b) return cudaSuccess;
  const int64_t ld = (a.k + 3) / 4 * 4;  // copies: rows of k values, 16-byte aligned
  const size_t a_bytes = copy_a ? (size_t(a.m) * ld * sizeof(float) + 255) / 256 * 256 : 0;
  const size_t b_bytes = copy_b ? size_t(a.n) * ld * sizeof(float) : 0;
  void* ws = nullptr;
  if (cudaError_t err = stream_workspace(stream, a_bytes + b_bytes, &ws, WorkspaceUse::kOperands); err != cudaSuccess) {
    return err;
  }
  if (copy_a) {  // A stored k x m -> m x k
    float* dst = static_cast<float*>(ws);
    if (cudaError_t err = launch_transpose(static_cast<const float*>(a.A), a.k, a.m, a.lda, dst, ld, true, stream);
        err != cudaSuccess) {
      return err;
    }
    out->A = dst, out->lda = ld, out->opA = Op::N;
  }
  if (copy_b) {  // B stored k x n -> n x k
    float* dst = reinterpret_cast<float*>(static_cast<char*>(ws) + a_bytes);
    if (cudaError_t err = launch_transpose(static_cast<const float*>(a.B), a.k, a.n, a.ldb, dst, ld, true, stream);
        err != cudaSuccess) {
      return err;
    }
    out->B = dst, out->ldb = ld, out->opB = Op::T;
  }
  return cudaSuccess;
}

}  // namespace tessel::impl
