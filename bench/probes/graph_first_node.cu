// Probe: what do a CUDA graph's first nodes cost a call, when the graph
// clears a buffer first (a memset node, or a kernel that clears it) and
// when it allocates its buffer itself (allocation and free nodes)?
//
// PIT's calls run as graphs (runtime/CallGraphs.cpp): a selecting call
// clears its counts and choice, then counts a sample (128 blocks), then
// chooses. A kernel after a memset is not launched as a dependent of it;
// after a clearing kernel it can be. Each form is the same two kernels (a
// 128-block count, a dependent 132-block kernel after it) behind a
// different start, launched after a 132-block kernel that spins for about
// 100 us (queued: as a benchmark's call after cuBLAS), and alone (the
// stream idle). The time is the median of 60 of each, from an event
// recorded right before the graph to one right after it, after a second of
// the spinning kernel (an idle GPU starts at low clocks).
//
//   nvcc -O2 -arch=sm_90a -std=c++17 -o build/probes/graph_first_node
//        bench/probes/graph_first_node.cu
//   build/probes/graph_first_node

#include "Probe.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kCountedInts = 256;

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// Stands in for the sample count: reads a little, adds to the counts.
__global__ void count(const int4 *source, int *counts) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  int4 v = source[blockIdx.x * blockDim.x + threadIdx.x];
  if (v.x | v.y | v.z | v.w)
    atomicAdd(&counts[blockIdx.x % 8], 1);
}

/// Stands in for the choice: reads the counts.
__global__ void choose(const int *counts, int *out) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *out = counts[0];
}

/// Clears the counts; lets its dependents launch at its start, or only
/// once its stores are fenced (as a kernel whose writes they read before
/// they wait must).
template <bool AllowsDependentsAtEnd>
__global__ void clear(int *counts, int n) {
  if (!AllowsDependentsAtEnd)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    counts[i] = 0;
  if (AllowsDependentsAtEnd) {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    __syncthreads();
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  }
}

template <typename... Params, typename... Args>
void launch(cudaStream_t stream, void (*kernel)(Params...), int blocks,
            int threads, bool dependent, Args... args) {
  launchKernel(stream, kernel, blocks, threads, /*sharedBytes=*/0, dependent,
               args...);
}

enum class Start { Memset, ClearingKernelEnd, ClearingKernelStart, Nothing };

struct Form {
  const char *name;
  Start start;
  bool allocates;
};

} // namespace

int main() {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int4 *source;
  size_t sourceBytes = 128 * 256 * sizeof(int4);
  CHECK(cudaMalloc(&source, sourceBytes));
  CHECK(cudaMemset(source, 1, sourceBytes));
  int *counts, *out;
  CHECK(cudaMalloc(&counts, kCountedInts * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));

  const Form forms[] = {
      {"memset node first", Start::Memset, false},
      {"clearing kernel, dependents at its end", Start::ClearingKernelEnd,
       false},
      {"clearing kernel, dependents at its start", Start::ClearingKernelStart,
       false},
      {"no clearing", Start::Nothing, false},
      {"memset node first, allocation nodes", Start::Memset, true},
      {"clearing kernel (end), allocation nodes", Start::ClearingKernelEnd,
       true},
  };
  std::vector<cudaGraphExec_t> graphs;
  for (const Form &form : forms) {
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    int *buffer = counts;
    if (form.allocates)
      CHECK(cudaMallocAsync(&buffer, kCountedInts * sizeof(int), stream));
    switch (form.start) {
    case Start::Memset:
      CHECK(cudaMemsetAsync(buffer, 0, kCountedInts * sizeof(int), stream));
      break;
    case Start::ClearingKernelEnd:
      launch(stream, clear<true>, 1, 256, true, buffer, kCountedInts);
      break;
    case Start::ClearingKernelStart:
      launch(stream, clear<false>, 1, 256, true, buffer, kCountedInts);
      break;
    case Start::Nothing:
      break;
    }
    launch(stream, count, 128, 256, true, static_cast<const int4 *>(source),
           buffer);
    launch(stream, choose, 132, 128, true, static_cast<const int *>(buffer),
           out);
    if (form.allocates)
      CHECK(cudaFreeAsync(buffer, stream));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t executable;
    CHECK(cudaGraphInstantiate(&executable, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    graphs.push_back(executable);
  }

  // A second of work first: an idle GPU starts at low clocks.
  for (auto start = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - start < std::chrono::seconds(1);) {
    spin<<<132, 128, 0, stream>>>(200000);
    CHECK(cudaStreamSynchronize(stream));
  }
  cudaEvent_t before, after;
  CHECK(cudaEventCreate(&before));
  CHECK(cudaEventCreate(&after));
  auto timed = [&](cudaGraphExec_t graph) {
    CHECK(cudaEventRecord(before, stream));
    CHECK(cudaGraphLaunch(graph, stream));
    CHECK(cudaEventRecord(after, stream));
    CHECK(cudaEventSynchronize(after));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, before, after));
    return ms * 1000;
  };
  auto median = [](std::vector<float> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  for (size_t i = 0; i < graphs.size(); ++i) {
    std::vector<float> queued, alone;
    for (int call = 0; call < 60; ++call) {
      spin<<<132, 128, 0, stream>>>(200000);
      queued.push_back(timed(graphs[i]));
      alone.push_back(timed(graphs[i]));
    }
    std::printf("%-42s after a kernel (queued): %5.2f us, alone: %5.2f us\n",
                forms[i].name, median(queued), median(alone));
  }
  return 0;
}
