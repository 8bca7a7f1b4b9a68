// Probe: how fast can a scan read a 4096x4096 f16 matrix once, finding its
// non-zero 1x64 micro-tiles, and what does the test of each row cost?
//
// PIT's detection of 1x64 micro-tiles (VectorDetection.cpp) gives a thread
// a 16-byte column of 16 rows: it loads all 16, tests each, ORs the flags
// of the 8 threads of a micro-tile with shuffles and counts them. This
// probe times that scan with each row tested as 32-bit words (OR-ed, the
// halves' sign bits masked: -0 is zero) and with a comparison a lane (as
// __hne), each as one thread per 16 or 4 rows; a grid-stride form of it;
// a plain read of the same bytes (OR-reduced); and a device-to-device
// copy. A is 1% non-zero micro-tiles and leaves L2 before each call: a
// 64 MiB memset of another buffer, whose dirty lines the call's reads then
// make L2 write back, as a benchmark call's detection does after the call
// before wrote C. Median of 30 calls between CUDA events, after a second
// of memsets (an idle GPU starts at low clocks).
//
//   nvcc -O3 -arch=sm_90a -std=c++17 -o build/probes/detection_scan
//        bench/probes/detection_scan.cu
//   build/probes/detection_scan

#include "Probe.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kSize = 4096;
constexpr int kVectorsPerRow = kSize / 8;
constexpr int kLanesPerMicroTile = 64 / 8;

/// How a scan loads A: as the detection does, or marking A's lines in L2 as
/// the first to evict (so that reading A evicts A, not other dirty lines).
enum class Load { Plain, Streaming, EvictFirst };

template <Load How>
__device__ __forceinline__ uint4 load(const uint4 *address) {
  if constexpr (How == Load::Plain) {
    return *address;
  } else if constexpr (How == Load::Streaming) {
    return __ldcs(address);
  } else {
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
        : "=l"(policy));
    uint4 v;
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(address), "l"(policy));
    return v;
  }
}

/// Whether row r of a thread's column holds a non-zero: bit r.
template <int Rows, bool Words, Load How = Load::Plain>
__device__ __forceinline__ unsigned scanColumn(const uint4 *a, int item) {
  int band = item / kVectorsPerRow, column = item % kVectorsPerRow;
  uint4 rows[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r)
    rows[r] = load<How>(&a[size_t(band * Rows + r) * kVectorsPerRow + column]);
  unsigned flags = 0;
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    bool nonZero;
    if (Words) {
      nonZero = ((rows[r].x | rows[r].y | rows[r].z | rows[r].w) &
                 0x7fff7fffu) != 0;
    } else {
      const __half *lanes = reinterpret_cast<const __half *>(&rows[r]);
      unsigned any = 0;
#pragma unroll
      for (int l = 0; l < 8; ++l)
        any |= __hne(lanes[l], __float2half(0.f)) ? 1u << l : 0u;
      nonZero = any != 0;
    }
    flags |= unsigned(nonZero) << r;
  }
  return flags;
}

/// The threads of a micro-tile OR their flags; the first counts them.
__device__ __forceinline__ void countMicroTiles(unsigned flags, int item,
                                                int *counts) {
  for (int offset = 1; offset < kLanesPerMicroTile; offset <<= 1)
    flags |= __shfl_xor_sync(~0u, flags, offset);
  if (threadIdx.x % kLanesPerMicroTile == 0 && flags)
    atomicAdd(&counts[(item % kVectorsPerRow) / kLanesPerMicroTile],
              __popc(flags));
}

template <int Rows, bool Words, Load How = Load::Plain>
__global__ void scanOnce(const uint4 *a, int *counts) {
  int item = blockIdx.x * blockDim.x + threadIdx.x;
  countMicroTiles(scanColumn<Rows, Words, How>(a, item), item, counts);
}

template <int Rows>
__global__ void scanGridStride(const uint4 *a, int *counts, int items) {
  for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < items;
       item += gridDim.x * blockDim.x)
    countMicroTiles(scanColumn<Rows, true>(a, item), item, counts);
}

__global__ void readOnce(const uint4 *a, int *out, int vectors) {
  unsigned any = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < vectors;
       i += gridDim.x * blockDim.x) {
    uint4 v = a[i];
    any |= v.x | v.y | v.z | v.w;
  }
  if (any == 0x12345678u)
    *out = 1;
}

} // namespace

int main() {
  size_t bytes = size_t(kSize) * kSize * sizeof(__half);
  uint4 *a, *scratch;
  int *counts;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&scratch, 64 << 20));
  CHECK(cudaMalloc(&counts, kVectorsPerRow * sizeof(int)));
  std::vector<__half> host(size_t(kSize) * kSize, __float2half(0.f));
  std::srand(1);
  for (int row = 0; row < kSize; ++row)
    for (int tile = 0; tile < kSize / 64; ++tile)
      if (std::rand() % 100 == 0)
        host[size_t(row) * kSize + tile * 64 + std::rand() % 64] =
            __float2half(1.f);
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  int multiprocessors = 0;
  CHECK(cudaDeviceGetAttribute(&multiprocessors,
                               cudaDevAttrMultiProcessorCount, 0));
  // A second of work first: an idle GPU starts at low clocks.
  for (auto start = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - start < std::chrono::seconds(1);) {
    CHECK(cudaMemset(scratch, 0, 64 << 20));
    CHECK(cudaDeviceSynchronize());
  }
  cudaEvent_t before, after;
  CHECK(cudaEventCreate(&before));
  CHECK(cudaEventCreate(&after));
  // Before each call, L2 holds another buffer's lines: dirty (a memset, as
  // after a call that wrote C) or clean (a read of it).
  auto time = [&](const char *name, auto call, bool dirty = true) {
    std::vector<float> times;
    for (int i = 0; i < 30; ++i) {
      CHECK(cudaMemset(scratch, i, 64 << 20));
      if (!dirty) {
        readOnce<<<multiprocessors * 8, 256>>>(scratch, counts,
                                               (64 << 20) / sizeof(uint4));
        readOnce<<<multiprocessors * 8, 256>>>(a, counts,
                                               int(bytes / sizeof(uint4)));
        readOnce<<<multiprocessors * 8, 256>>>(scratch, counts,
                                               (64 << 20) / sizeof(uint4));
      }
      CHECK(cudaEventRecord(before));
      call();
      CHECK(cudaEventRecord(after));
      CHECK(cudaEventSynchronize(after));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, before, after));
      times.push_back(ms * 1000);
    }
    std::sort(times.begin(), times.end());
    float us = times[times.size() / 2];
    std::printf("%-48s %6.2f us (%.2f TB/s of A)\n", name, us,
                bytes / (us * 1e-6) / 1e12);
  };
  int itemsOf16 = kSize / 16 * kVectorsPerRow, itemsOf4 = kSize / 4 * kVectorsPerRow;
  time("16 rows a thread, words", [&] {
    scanOnce<16, true><<<itemsOf16 / 128, 128>>>(a, counts);
  });
  time("16 rows a thread, a comparison a lane", [&] {
    scanOnce<16, false><<<itemsOf16 / 128, 128>>>(a, counts);
  });
  time("4 rows a thread, words", [&] {
    scanOnce<4, true><<<itemsOf4 / 128, 128>>>(a, counts);
  });
  time("4 rows a thread, words, streaming loads", [&] {
    scanOnce<4, true, Load::Streaming><<<itemsOf4 / 128, 128>>>(a, counts);
  });
  time("4 rows a thread, words, L2 evict_first", [&] {
    scanOnce<4, true, Load::EvictFirst><<<itemsOf4 / 128, 128>>>(a, counts);
  });
  time("16 rows a thread, words, L2 evict_first", [&] {
    scanOnce<16, true, Load::EvictFirst><<<itemsOf16 / 128, 128>>>(a, counts);
  });
  time("4 rows a thread, words, clean L2", [&] {
    scanOnce<4, true><<<itemsOf4 / 128, 128>>>(a, counts);
  }, false);
  time("4 rows a thread, words, L2 evict_first, clean L2", [&] {
    scanOnce<4, true, Load::EvictFirst><<<itemsOf4 / 128, 128>>>(a, counts);
  }, false);
  time("4 rows a thread, a comparison a lane", [&] {
    scanOnce<4, false><<<itemsOf4 / 128, 128>>>(a, counts);
  });
  time("grid-stride, 4 rows, 8 blocks an SM, words", [&] {
    scanGridStride<4><<<multiprocessors * 8, 128>>>(a, counts, itemsOf4);
  });
  time("read once (OR of every word)", [&] {
    readOnce<<<multiprocessors * 8, 256>>>(a, counts,
                                           int(bytes / sizeof(uint4)));
  });
  time("device-to-device copy of A", [&] {
    CHECK(cudaMemcpyAsync(scratch, a, bytes, cudaMemcpyDeviceToDevice));
  });
  return 0;
}
