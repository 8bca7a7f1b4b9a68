// Probe: is a k-walk STile at 90-95% bound by the rows of B it gathers
// through L2, and how many fewer bytes would strips that share B rows read?
//
// A 32x1 STile of PIT at 4096^3 gives each 32-row strip of A its own k set
// (the k columns where the strip has a non-zero) and has each block (strip,
// n tile) read B's rows of that set. With random patterns the k sets of two
// strips overlap only by the density, so B flows from L2 to the SMs once
// for every strip: 128 x 410 rows x 8 KiB = 430 MB at 90%, where the STile
// takes about 76 us. This probe times that gather alone (no A, no
// tensor cores, no C): each block reads its rows of B over its n tile and
// XORs them into one word. Variants:
//   - strips of 32 rows, each its own k set (as PIT's STile);
//   - groups of 2-16 strips reading the UNION of their k sets once (what a
//     kernel that keeps the union in shared memory for all its strips
//     would read);
//   - the same shapes with every block reading the same 410 rows (all hits
//     in L2, no DRAM), as the ceiling of this access shape.
// Tiles go n tile by n tile (tile t: group t mod G, n tile t / G), as the
// STiles do. Before each call a 64 MiB memset leaves L2 full of dirty lines
// of another buffer, as a call's STile meets them after its detection.
// Median of 30 calls between CUDA events, after a second of memsets (an
// idle GPU starts at low clocks).
//
//   nvcc -O3 -arch=sm_90a -std=c++17 -o build/probes/b_gather_read
//        bench/probes/b_gather_read.cu
//   build/probes/b_gather_read [calls a case]

#include "Probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kSize = 4096;
constexpr int kStripRows = 32;
constexpr int kStrips = kSize / kStripRows;
constexpr int kThreads = 128;

/// Reads, for each of its group's rows, the `Width` columns of its n tile of
/// B, 16 bytes a lane, with every load of a batch of 8 in flight at once.
template <int Width>
__global__ void gatherRows(const uint4 *b, const int *rowStarts,
                           const int *rows, int groups, uint4 *sink) {
  constexpr int kLanesPerRow = Width / 8;
  constexpr int kRowsPerStep = kThreads / kLanesPerRow;
  constexpr int kVectorsPerRow = kSize / 8;
  int group = blockIdx.x % groups;
  int nTile = blockIdx.x / groups;
  int lane = threadIdx.x % kLanesPerRow;
  int rowInStep = threadIdx.x / kLanesPerRow;
  const uint4 *tile = b + nTile * kLanesPerRow + lane;
  int begin = rowStarts[group], end = rowStarts[group + 1];
  uint4 sum = {0, 0, 0, 0};
  for (int first = begin; first < end; first += 8 * kRowsPerStep) {
    uint4 batch[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      int index = first + i * kRowsPerStep + rowInStep;
      batch[i] = index < end
                     ? tile[static_cast<size_t>(rows[index]) * kVectorsPerRow]
                     : uint4{0, 0, 0, 0};
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      sum.x ^= batch[i].x;
      sum.y ^= batch[i].y;
      sum.z ^= batch[i].z;
      sum.w ^= batch[i].w;
    }
  }
  if ((sum.x ^ sum.y ^ sum.z ^ sum.w) == 0x9e3779b9u)
    sink[blockIdx.x] = sum;
}

struct RowLists {
  std::vector<int> starts; // groups + 1 offsets into rows
  std::vector<int> rows;   // each group's rows, ascending
};

/// The k sets of `kStrips` random strips of density `density`, merged by
/// groups of `stripsPerGroup` (the union of their k sets). `sameRows` gives
/// every group the rows 0..409 instead: all hits in L2.
RowLists makeRows(double density, int stripsPerGroup, bool sameRows,
                  std::mt19937 &random) {
  std::bernoulli_distribution nonZero(density);
  RowLists lists;
  lists.starts.push_back(0);
  for (int group = 0; group < kStrips / stripsPerGroup; ++group) {
    std::vector<bool> used(kSize, false);
    for (int strip = 0; strip < stripsPerGroup; ++strip)
      for (int k = 0; k < kSize; ++k)
        if (nonZero(random))
          used[k] = true;
    int count = 0;
    for (int k = 0; k < kSize; ++k)
      if (sameRows ? k < 410 : used[k]) {
        lists.rows.push_back(k);
        ++count;
      }
    lists.starts.push_back(lists.starts.back() + count);
  }
  return lists;
}

struct Case {
  double density;
  int stripsPerGroup;
  int width;
  bool sameRows;
};

} // namespace

int main(int argc, char **argv) {
  // A smaller count (as `b_gather_read 2`) serves a profiler's run.
  int calls = argc > 1 ? std::atoi(argv[1]) : 31;
  if (calls < 2) {
    std::fprintf(stderr, "usage: b_gather_read [calls a case, at least 2]\n");
    return 1;
  }
  uint4 *b, *sink;
  void *dirty;
  int *rowStarts, *rows;
  CHECK(cudaMalloc(&b, size_t(kSize) * kSize * 2));
  CHECK(cudaMemset(b, 0x3c, size_t(kSize) * kSize * 2));
  CHECK(cudaMalloc(&dirty, size_t(64) << 20));
  CHECK(cudaMalloc(&sink, sizeof(uint4) * kStrips * kSize));
  CHECK(cudaMalloc(&rowStarts, sizeof(int) * (kStrips + 1)));
  CHECK(cudaMalloc(&rows, sizeof(int) * kStrips * kSize));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  warmUp(stream, dirty, size_t(64) << 20);

  std::vector<Case> cases;
  for (double density : {0.10, 0.05})
    for (int strips : {1, 2, 4, 8, 16})
      for (bool same : {false, true})
        cases.push_back({density, strips,
                          strips >= 16 ? 64 : strips >= 4 ? 128 : 256,
                          same});

  std::printf("density strips/group n-tile rows blocks MB-read time(us) "
              "GB/s\n");
  std::mt19937 random(7);
  for (const Case &c : cases) {
    RowLists lists = makeRows(c.density, c.stripsPerGroup, c.sameRows, random);
    int groups = kStrips / c.stripsPerGroup;
    CHECK(cudaMemcpy(rowStarts, lists.starts.data(),
                     sizeof(int) * lists.starts.size(),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(rows, lists.rows.data(), sizeof(int) * lists.rows.size(),
                     cudaMemcpyHostToDevice));
    int nTiles = kSize / c.width;
    int blocks = groups * nTiles;
    double median = medianMicroseconds(
        stream, calls,
        [&] { CHECK(cudaMemsetAsync(dirty, 7, size_t(64) << 20, stream)); },
        [&] {
          if (c.width == 256)
            launchKernel(stream, gatherRows<256>, blocks, kThreads, 0, false,
                         b, rowStarts, rows, groups, sink);
          else if (c.width == 128)
            launchKernel(stream, gatherRows<128>, blocks, kThreads, 0, false,
                         b, rowStarts, rows, groups, sink);
          else
            launchKernel(stream, gatherRows<64>, blocks, kThreads, 0, false,
                         b, rowStarts, rows, groups, sink);
        });
    double bytes = double(lists.rows.size()) * kSize * 2; // every n tile
    std::printf("%.2f %d %d %s %zu %d %.1f %.1f %.0f\n", c.density,
                c.stripsPerGroup, c.width, c.sameRows ? "same" : "own",
                lists.rows.size(), blocks, bytes / 1e6, median,
                bytes / median / 1e3);
  }
  return 0;
}
