// Probe: would a k-walk STile whose strips share B's rows in shared memory
// beat PIT's, where each 32-row strip gathers its own rows of B?
//
// At 4096^3 f16 with 32x1 micro-tiles at 90%, PIT's STile (a block per
// 32-row strip and n tile, mma.sync) reads B from L2 once for every strip:
// 128 x 410 rows x 8 KiB = 430 MB, and takes about 76 us
// (b_gather_read.cu times that gather alone at 58 us). Here a block takes a
// GROUP of strips and an n tile (KCOLUMNS, 64 columns a warp): it walks the
// UNION of its strips' k sets in chunks of KCHUNK rows of B (cp.async,
// 16-byte pieces, swizzled), a ring of stages, and each strip's warps
// multiply their own k, 16 at a time, reading their B rows out of the ring
// with ldmatrix (each lane addresses its own row: a gather out of shared
// memory costs nothing more). With 8 strips the union covers 57% of k: B
// flows from L2 as 16 x 0.57 x 32 MiB = 306 MB. Each chunk's 16-k groups
// (A's fragments and their rows' union positions) come with its rows of B;
// mbarriers, not a block barrier, pace the warps: a stage is full once
// every thread's copies into it have landed, and empty once every warp's
// window (KWINDOW chunks) has passed it. KAHEAD chunks are in flight ahead
// of the one multiplied, KSLACK more stages let warps drift apart.
//
// What the detection would have to write for it is prepared on the host:
// each group's union of rows, and each strip's k in groups of 16 (a group
// closes early where its rows would span more than KWINDOW chunks, padded
// with zero A), each with the union positions of its rows and its A in
// mma.sync fragment order. The kernel's result is checked on 64 rows
// against a float64 product on the host. Median of 30 calls between CUDA
// events, each after a 64 MiB memset (L2 full of dirty lines, as a call's
// STile meets them), after a second of memsets. Measured on an H100
// (docs/benchmarks/2026-11-24-H100-union-stile-probe.txt): sharing never
// beat the one-strip form.
//
//   nvcc -O3 -arch=sm_90a -std=c++17 [-DKCOLUMNS=256 -DKCHUNK=32
//        -DKWINDOW=2 -DKAHEAD=2 -DKSLACK=1] -o build/probes/union_stile
//        bench/probes/union_stile.cu
//   build/probes/union_stile [density]

#include "Probe.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// The ring's shape, settable at compile time (-DKCHUNK=... ).
#ifndef KCHUNK
#define KCHUNK 64
#endif
#ifndef KWINDOW
#define KWINDOW 3
#endif
#ifndef KAHEAD
#define KAHEAD 3
#endif
#ifndef KCOLUMNS
#define KCOLUMNS 128
#endif
#ifndef KSLACK
#define KSLACK 1
#endif

namespace {

constexpr int kSize = 4096;
constexpr int kStripRows = 32;
constexpr int kStrips = kSize / kStripRows;
constexpr int kTileColumns = KCOLUMNS;
/// Warps of a strip, 64 columns each; 16-byte pieces of a row of B.
constexpr int kWarpsPerStrip = kTileColumns / 64;
constexpr int kPiecesPerRow = kTileColumns / 8;
constexpr int kNTiles = kSize / kTileColumns;
constexpr int kChunkRows = KCHUNK;
/// Chunks a group of 16 k may span, all resident while it is multiplied.
constexpr int kWindow = KWINDOW;
/// Chunks in flight ahead of the one multiplied.
constexpr int kAhead = KAHEAD;
/// Chunks a warp may run ahead of the slowest one, beyond its window.
constexpr int kSlack = KSLACK;
constexpr int kStages = kWindow + kAhead + kSlack;
constexpr int kRowBytes = kTileColumns * 2;
constexpr int kStageBytes = kChunkRows * kRowBytes;

/// A 16-k group as the kernel copies it: A's fragments (2 x 32 lanes x 16
/// bytes) and the union positions of its 16 rows of B.
constexpr int kRecordPieces = 64 + 4;
constexpr int kRecordBytes = kRecordPieces * 16;
/// Groups a strip may finish in one chunk (the host checks it).
constexpr int kMaxGroupsPerChunk = kChunkRows / 16 + 2;
constexpr int kSlotBytes = kMaxGroupsPerChunk * kRecordBytes;
constexpr int kMaxChunks = kSize / kChunkRows;

struct Groups {
  int maxGroups;              // 16-k groups a strip, at most
  std::vector<int> unionRows; // [group][kSize]
  std::vector<int> unionCount;
  /// [strip][kMaxChunks + 1]: the first group that chunk c finishes.
  std::vector<int> firstGroup;
  std::vector<uint4> records; // [strip][maxGroups][kRecordPieces]
};

__device__ __forceinline__ unsigned sharedAddress(const void *pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ void waitForPhase(unsigned barrier,
                                             unsigned parity) {
  asm volatile("{\n .reg .pred done;\n WAIT%=:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               " @!done bra WAIT%=;\n}" ::"r"(barrier),
               "r"(parity)
               : "memory");
}

/// Block (group g, n tile): kWarpsPerStrip warps a strip, each 32 rows x
/// 64 columns. Shared memory: the ring of B's chunks, then for each stage
/// and strip the records of the groups that chunk finishes, then each
/// stage's two mbarriers. A chunk's records come with its rows of B, so a
/// warp never waits on global memory while it multiplies. The warps do not
/// meet at a barrier a chunk: a stage is `full` once every thread's copies
/// into it have landed (cp.async.mbarrier.arrive), and `empty` once every
/// warp's window has passed its chunk; a warp may run up to kSlack chunks
/// ahead of the slowest.
template <int StripsPerGroup>
__global__ void __launch_bounds__(StripsPerGroup * kWarpsPerStrip * 32)
    unionSTile(const __half *b, __half *c, const int *unionRows,
               const int *unionCount, const int *firstGroup,
               const uint4 *records, int maxGroups) {
  extern __shared__ __align__(1024) unsigned char ring[];
  constexpr int kThreads = StripsPerGroup * kWarpsPerStrip * 32;
  constexpr int kStripThreads = kWarpsPerStrip * 32;
  constexpr int kGroups = kStrips / StripsPerGroup;
  int group = blockIdx.x % kGroups;
  int n0 = blockIdx.x / kGroups * kTileColumns;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int local = warp / kWarpsPerStrip;
  int strip = group * StripsPerGroup + local;
  int quarter = warp % kWarpsPerStrip;
  int stripThread = threadIdx.x % kStripThreads;
  int rows = unionCount[group];
  int chunks = (rows + kChunkRows - 1) / kChunkRows;
  const int *myRows = unionRows + group * kSize;
  const int *myFirst = firstGroup + strip * (kMaxChunks + 1);
  unsigned ringAddress = sharedAddress(ring);
  unsigned slotsAddress = ringAddress + kStages * kStageBytes;
  unsigned barriers = slotsAddress + kStages * StripsPerGroup * kSlotBytes;
  auto full = [&](int chunk) { return barriers + (chunk % kStages) * 8; };
  auto empty = [&](int chunk) {
    return barriers + (kStages + chunk % kStages) * 8;
  };
  auto slotOf = [&](int chunk) {
    return slotsAddress +
           ((chunk % kStages) * StripsPerGroup + local) * kSlotBytes;
  };
  if (threadIdx.x == 0)
    for (int stage = 0; stage < kStages; ++stage) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(
                       full(stage)),
                   "r"(kThreads));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(
                       empty(stage)),
                   "r"(kThreads / 32));
    }
  __syncthreads();

  // A thread's pieces of a chunk, and their rows of B loaded a chunk
  // ahead (issuing a chunk would otherwise wait for them first); the same
  // for the strip's groups of the chunk (first, and the next chunk's).
  static_assert(kChunkRows * kPiecesPerRow % kThreads == 0,
                "a chunk's pieces spread evenly over the block");
  constexpr int kPieces = kChunkRows * kPiecesPerRow / kThreads;
  int rowsAhead[kPieces];
  auto loadRows = [&](int chunk) {
#pragma unroll
    for (int i = 0; i < kPieces; ++i) {
      int u = chunk * kChunkRows + (threadIdx.x + i * kThreads) / kPiecesPerRow;
      rowsAhead[i] = u < rows ? myRows[u] : -1;
    }
  };
  int groupFirst = 0, groupEnd = myFirst[1];
  auto issueChunk = [&](int chunk) {
    if (chunk >= chunks)
      return;
    // The stage's chunk before: every warp's window past it.
    if (chunk >= kStages)
      waitForPhase(empty(chunk), (chunk / kStages - 1) & 1);
    unsigned stage = ringAddress + (chunk % kStages) * kStageBytes;
#pragma unroll
    for (int i = 0; i < kPieces; ++i) {
      int piece = threadIdx.x + i * kThreads;
      int row = piece / kPiecesPerRow, column = piece % kPiecesPerRow;
      if (rowsAhead[i] >= 0) {
        const __half *source =
            b + static_cast<size_t>(rowsAhead[i]) * kSize + n0 + column * 8;
        unsigned target = stage + row * kRowBytes + ((column ^ (row & 7)) * 16);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(target),
                     "l"(source));
      }
    }
    int pieces = (groupEnd - groupFirst) * kRecordPieces;
    const uint4 *source =
        records +
        (static_cast<size_t>(strip) * maxGroups + groupFirst) * kRecordPieces;
    unsigned slot = slotOf(chunk);
    for (int piece = stripThread; piece < pieces; piece += kStripThreads)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                       slot + piece * 16),
                   "l"(source + piece));
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(
        full(chunk)));
    loadRows(chunk + 1);
    groupFirst = groupEnd;
    groupEnd = chunk + 2 <= kMaxChunks ? myFirst[chunk + 2] : groupFirst;
  };

  float acc[2][8][4] = {};
  loadRows(0);
  for (int chunk = 0; chunk < kAhead; ++chunk)
    issueChunk(chunk);
  int first = 0, end = myFirst[1];
  for (int chunk = 0; chunk < chunks; ++chunk) {
    issueChunk(chunk + kAhead);
    waitForPhase(full(chunk), (chunk / kStages) & 1);
    unsigned slot = slotOf(chunk);
    for (int i = 0; i < end - first; ++i) {
      unsigned record = slot + i * kRecordBytes;
      uint4 a0, a1;
      int u;
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a0.x), "=r"(a0.y), "=r"(a0.z), "=r"(a0.w)
                   : "r"(record + lane * 16));
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a1.x), "=r"(a1.y), "=r"(a1.z), "=r"(a1.w)
                   : "r"(record + 512 + lane * 16));
      asm volatile("ld.shared.u32 %0, [%1];"
                   : "=r"(u)
                   : "r"(record + 1024 + (lane % 16) * 4));
      unsigned rowAddress = ringAddress +
                            ((u / kChunkRows) % kStages) * kStageBytes +
                            (u % kChunkRows) * kRowBytes;
#pragma unroll
      for (int pair = 0; pair < 4; ++pair) {
        int column = quarter * 8 + pair * 2 + lane / 16;
        unsigned address = rowAddress + ((column ^ (u & 7)) * 16);
        unsigned r0, r1, r2, r3;
        asm volatile(
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, "
            "%3}, [%4];"
            : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
            : "r"(address));
#pragma unroll
        for (int m = 0; m < 2; ++m) {
          uint4 a = m ? a1 : a0;
#pragma unroll
          for (int t = 0; t < 2; ++t) {
            float *d = acc[m][pair * 2 + t];
            unsigned b0 = t ? r2 : r0, b1 = t ? r3 : r1;
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, "
                "%2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
          }
        }
      }
    }
    first = end;
    end = chunk + 2 <= kMaxChunks ? myFirst[chunk + 2] : first;
    // The oldest chunk of this warp's window is done with.
    if (chunk + 1 >= kWindow) {
      __syncwarp();
      if (lane == 0)
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(
                         empty(chunk + 1 - kWindow))
                     : "memory");
    }
  }
  // C's rows of the strip, this warp's 64 columns.
  int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int m = 0; m < 2; ++m)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int row = strip * kStripRows + m * 16 + g;
      int column = n0 + quarter * 64 + j * 8 + 2 * t;
      *reinterpret_cast<__half2 *>(c + static_cast<size_t>(row) * kSize +
                                   column) =
          __floats2half2_rn(acc[m][j][0], acc[m][j][1]);
      *reinterpret_cast<__half2 *>(c + static_cast<size_t>(row + 8) * kSize +
                                   column) =
          __floats2half2_rn(acc[m][j][2], acc[m][j][3]);
    }
}

unsigned packHalves(__half low, __half high) {
  return static_cast<unsigned>(__half_as_ushort(low)) |
         (static_cast<unsigned>(__half_as_ushort(high)) << 16);
}

/// What the detection would write for groups of `stripsPerGroup` strips.
Groups makeGroups(const std::vector<std::vector<int>> &kSets,
                  const std::vector<__half> &a, int stripsPerGroup) {
  Groups out;
  int groups = kStrips / stripsPerGroup;
  out.unionRows.assign(static_cast<size_t>(groups) * kSize, 0);
  out.unionCount.assign(groups, 0);
  std::vector<std::vector<int>> positions(kStrips);
  for (int group = 0; group < groups; ++group) {
    std::vector<int> where(kSize, -1);
    int count = 0;
    for (int k = 0; k < kSize; ++k)
      for (int s = 0; s < stripsPerGroup; ++s) {
        const auto &set = kSets[group * stripsPerGroup + s];
        if (std::binary_search(set.begin(), set.end(), k)) {
          where[k] = count;
          out.unionRows[group * kSize + count++] = k;
          break;
        }
      }
    out.unionCount[group] = count;
    for (int s = 0; s < stripsPerGroup; ++s) {
      int strip = group * stripsPerGroup + s;
      for (int k : kSets[strip])
        positions[strip].push_back(where[k]);
    }
  }
  // Each strip's k in groups of 16 that span at most kWindow chunks.
  std::vector<std::vector<std::pair<int, int>>> spans(kStrips);
  out.maxGroups = 0;
  for (int strip = 0; strip < kStrips; ++strip) {
    const auto &p = positions[strip];
    for (size_t first = 0; first < p.size();) {
      size_t last = first;
      while (last + 1 < p.size() && last + 1 - first < 16 &&
             p[last + 1] / kChunkRows - p[first] / kChunkRows < kWindow)
        ++last;
      spans[strip].push_back({static_cast<int>(first),
                              static_cast<int>(last + 1)});
      first = last + 1;
    }
    out.maxGroups =
        std::max(out.maxGroups, static_cast<int>(spans[strip].size()));
  }
  out.firstGroup.assign(static_cast<size_t>(kStrips) * (kMaxChunks + 1), 0);
  out.records.assign(static_cast<size_t>(kStrips) * out.maxGroups *
                         kRecordPieces,
                     uint4{0, 0, 0, 0});
  for (int strip = 0; strip < kStrips; ++strip) {
    const auto &p = positions[strip];
    const auto &set = kSets[strip];
    std::vector<int> finished(kMaxChunks, 0);
    for (size_t q = 0; q < spans[strip].size(); ++q) {
      int first = spans[strip][q].first, end = spans[strip][q].second;
      ++finished[p[end - 1] / kChunkRows];
      uint4 *record = &out.records[(static_cast<size_t>(strip) *
                                        out.maxGroups + q) *
                                   kRecordPieces];
      int *rowsOfGroup = reinterpret_cast<int *>(record + 64);
      for (int i = 0; i < 16; ++i)
        rowsOfGroup[i] = first + i < end ? p[first + i] : p[first];
      // A(row, i): the strip's row at its k number first + i (0 past end).
      auto value = [&](int row, int i) {
        if (first + i >= end)
          return __float2half(0.0f);
        return a[static_cast<size_t>(strip * kStripRows + row) * kSize +
                 set[first + i]];
      };
      for (int m = 0; m < 2; ++m)
        for (int lane = 0; lane < 32; ++lane) {
          int g = lane / 4, t = lane % 4, r = m * 16 + g;
          record[m * 32 + lane] = uint4{
              packHalves(value(r, 2 * t), value(r, 2 * t + 1)),
              packHalves(value(r + 8, 2 * t), value(r + 8, 2 * t + 1)),
              packHalves(value(r, 2 * t + 8), value(r, 2 * t + 9)),
              packHalves(value(r + 8, 2 * t + 8), value(r + 8, 2 * t + 9))};
        }
    }
    int *first = &out.firstGroup[static_cast<size_t>(strip) * (kMaxChunks + 1)];
    for (int chunk = 0; chunk < kMaxChunks; ++chunk) {
      if (finished[chunk] > kMaxGroupsPerChunk) {
        std::fprintf(stderr, "strip %d finishes %d groups in chunk %d\n",
                     strip, finished[chunk], chunk);
        std::exit(1);
      }
      first[chunk + 1] = first[chunk] + finished[chunk];
    }
  }
  return out;
}

template <typename T> T *toDevice(const std::vector<T> &host) {
  T *device;
  CHECK(cudaMalloc(&device, sizeof(T) * std::max<size_t>(host.size(), 1)));
  CHECK(cudaMemcpy(device, host.data(), sizeof(T) * host.size(),
                   cudaMemcpyHostToDevice));
  return device;
}

template <int StripsPerGroup>
void timeGroups(const std::vector<std::vector<int>> &kSets,
                const std::vector<__half> &a, const std::vector<__half> &b,
                const __half *bDevice, __half *cDevice, void *dirty,
                cudaStream_t stream) {
  Groups groups = makeGroups(kSets, a, StripsPerGroup);
  int *unionRows = toDevice(groups.unionRows);
  int *unionCount = toDevice(groups.unionCount);
  int *firstGroup = toDevice(groups.firstGroup);
  uint4 *records = toDevice(groups.records);
  int ring = kStages * kStageBytes + kStages * StripsPerGroup * kSlotBytes +
             2 * kStages * 8;
  auto kernel = unionSTile<StripsPerGroup>;
  CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ring));
  int blocks = kStrips / StripsPerGroup * kNTiles;
  constexpr int kThreads = StripsPerGroup * kWarpsPerStrip * 32;
  double median = medianMicroseconds(
      stream, 31,
      [&] {
        CHECK(cudaMemsetAsync(dirty, 7, size_t(64) << 20, stream));
        CHECK(cudaMemsetAsync(cDevice, 0xff, size_t(kSize) * kSize * 2,
                              stream));
      },
      [&] {
        launchKernel(stream, kernel, blocks, kThreads, ring, false,
                     bDevice, cDevice, unionRows, unionCount, firstGroup,
                     records, groups.maxGroups);
      });
  // Check 64 rows (two of each of 32 strips) against float64.
  std::vector<__half> c(static_cast<size_t>(kSize) * kSize);
  CHECK(cudaMemcpy(c.data(), cDevice, sizeof(__half) * c.size(),
                   cudaMemcpyDeviceToHost));
  double worst = 0.0, largest = 0.0;
  for (int r = 0; r < 64; ++r) {
    int row = (r / 2) * 4 * kStripRows + (r % 2 ? 31 : 5);
    int strip = row / kStripRows;
    std::vector<double> reference(kSize, 0.0);
    for (int k : kSets[strip]) {
      double av = __half2float(a[static_cast<size_t>(row) * kSize + k]);
      for (int n = 0; n < kSize; ++n)
        reference[n] += av * __half2float(b[static_cast<size_t>(k) * kSize + n]);
    }
    for (int n = 0; n < kSize; ++n) {
      double got = __half2float(c[static_cast<size_t>(row) * kSize + n]);
      worst = std::max(worst, std::fabs(got - reference[n]));
      largest = std::max(largest, std::fabs(reference[n]));
    }
  }
  long long unionRowsTotal = 0;
  for (int count : groups.unionCount)
    unionRowsTotal += count;
  std::printf("%2d strips a group: %4d blocks of %3d threads, union rows %lld "
              "(B from L2 %.0f MB), %.1f us (median of 30), rel err %.1e %s\n",
              StripsPerGroup, blocks, kThreads, unionRowsTotal,
              unionRowsTotal * double(kSize) * 2 / 1e6, median,
              worst / largest, worst / largest < 1e-2 ? "PASS" : "FAIL");
  for (void *p : {static_cast<void *>(unionRows),
                  static_cast<void *>(unionCount),
                  static_cast<void *>(firstGroup),
                  static_cast<void *>(records)})
    CHECK(cudaFree(p));
}

} // namespace

int main(int argc, char **argv) {
  double density = argc > 1 ? std::atof(argv[1]) : 0.1;
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::bernoulli_distribution nonZero(density);
  std::vector<__half> a(static_cast<size_t>(kSize) * kSize, __float2half(0.0f));
  std::vector<__half> b(static_cast<size_t>(kSize) * kSize);
  std::vector<std::vector<int>> kSets(kStrips);
  for (int strip = 0; strip < kStrips; ++strip)
    for (int k = 0; k < kSize; ++k)
      if (nonZero(random)) {
        kSets[strip].push_back(k);
        for (int r = 0; r < kStripRows; ++r)
          a[static_cast<size_t>(strip * kStripRows + r) * kSize + k] =
              __float2half(uniform(random));
      }
  for (auto &value : b)
    value = __float2half(uniform(random));
  __half *bDevice = toDevice(b), *cDevice;
  CHECK(cudaMalloc(&cDevice, sizeof(__half) * b.size()));
  void *dirty;
  CHECK(cudaMalloc(&dirty, size_t(64) << 20));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  warmUp(stream, dirty, size_t(64) << 20);
  std::printf("32x1 micro-tiles at density %.2f, 4096^3 f16, n tiles of %d, "
              "chunks of %d union rows, %d stages\n",
              density, kTileColumns, kChunkRows, kStages);
  timeGroups<1>(kSets, a, b, bDevice, cDevice, dirty, stream);
  timeGroups<2>(kSets, a, b, bDevice, cDevice, dirty, stream);
  timeGroups<4>(kSets, a, b, bDevice, cDevice, dirty, stream);
  if constexpr (8 * kWarpsPerStrip * 32 <= 512)
    timeGroups<8>(kSets, a, b, bDevice, cDevice, dirty, stream);
  return 0;
}
