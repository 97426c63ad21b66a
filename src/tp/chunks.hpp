// Internal: how the tensor-parallel GEMMs cut each rank's block of rows into
// chunks, so that the GEMM of one chunk runs while the next is in flight.
// Plain C++ (tests/cpu/test_tp_chunks.cpp checks the arithmetic).
#pragma once

#include <algorithm>
#include <cstdint>

namespace tessel::tp {

// Rows per chunk the library aims for: a chunk's GEMM (rows x n x k per
// rank) must fill the GPU on its own, and each chunk costs a collective's
// latency. At most kMaxChunks chunks.
constexpr int64_t kChunkRows = 1024;
constexpr int kMaxChunks = 8;

// `rows` rows cut into `count` chunks of whole `align`-row groups where
// possible, the first ones one group larger where they do not divide evenly.
struct Chunks {
  int64_t rows = 0;
  int count = 1;
  int64_t align = 1;

  Chunks(int64_t rows_, int requested, int64_t align_ = 128) : rows(rows_), align(std::max<int64_t>(align_, 1)) {
    const int64_t groups = (rows + align - 1) / align;
    const int64_t chosen = requested > 0 ? requested : std::clamp<int64_t>(rows / kChunkRows, 1, kMaxChunks);
    count = int(std::clamp<int64_t>(chosen, 1, std::max<int64_t>(groups, 1)));
  }
  // First row of chunk c (c = count: rows).
  int64_t begin(int c) const {
    const int64_t groups = (rows + align - 1) / align, per = groups / count, extra = groups % count;
    return std::min(rows, (int64_t(c) * per + std::min<int64_t>(c, extra)) * align);
  }
  int64_t size(int c) const { return begin(c + 1) - begin(c); }
};

}  // namespace tessel::tp
