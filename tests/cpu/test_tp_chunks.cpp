// How the tensor-parallel GEMMs cut a rank's rows into chunks (src/tp/chunks.hpp).
#include <gtest/gtest.h>

#include "tp/chunks.hpp"

namespace {

using tessel::tp::Chunks;

void expect_partition(const Chunks& c) {
  EXPECT_EQ(c.begin(0), 0);
  EXPECT_EQ(c.begin(c.count), c.rows);
  for (int i = 0; i < c.count; ++i) {
    EXPECT_GT(c.size(i), 0) << "chunk " << i << " of " << c.count << " over " << c.rows;
    if (i + 1 < c.count) EXPECT_EQ(c.begin(i + 1) % c.align, 0) << "chunk " << i;  // whole groups but the last
  }
}

TEST(TpChunks, CoverEveryRowOnceInWholeGroups) {
  for (int64_t rows : {1, 2, 127, 128, 129, 1000, 1024, 4096, 4097, 10000}) {
    for (int requested : {0, 1, 2, 3, 4, 7, 8, 100}) {
      SCOPED_TRACE(std::to_string(rows) + " rows, " + std::to_string(requested) + " asked");
      const Chunks c(rows, requested);
      expect_partition(c);
      EXPECT_LE(c.count, std::max<int64_t>(1, (rows + 127) / 128));  // never more chunks than row groups
      if (requested > 0) EXPECT_LE(c.count, requested);
    }
  }
}

TEST(TpChunks, TheLibrarysChoice) {
  EXPECT_EQ(Chunks(4096, 0).count, 4);  // a 2-rank 8192-token layer: 4 chunks of 1024 rows
  EXPECT_EQ(Chunks(2048, 0).count, 2);
  EXPECT_EQ(Chunks(512, 0).count, 1);   // too few rows to cut
  EXPECT_EQ(Chunks(65536, 0).count, tessel::tp::kMaxChunks);
  const Chunks even(4096, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(even.size(i), 1024);
  const Chunks uneven(1000, 3);  // 8 groups of 128 (the last 104 rows): 3 + 3 + 2 groups
  EXPECT_EQ(uneven.begin(1), 384);
  EXPECT_EQ(uneven.begin(2), 768);
  EXPECT_EQ(uneven.size(2), 232);
}

}  // namespace
