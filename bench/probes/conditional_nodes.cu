// Probe: what does a selecting call's unchosen work cost, as guarded kernels
// that read the choice and exit, against CUDA graph conditional (IF) nodes
// whose condition the choosing kernel sets?
//
// A call is modelled on PIT's selecting matmul: a choosing kernel (one
// block), then the sparse variant's two kernels (a detection of 1024 blocks
// without shared memory, an STile of 2048 blocks with 36 KiB), then the
// dense fallback (132 persistent blocks with 200 KiB). Each kernel after the
// choice is a dependent launch (griddepcontrol.wait, then its guard). The
// kernels spin for fixed times instead of computing: only the overheads
// between them are measured.
//
//   nvcc -O3 -arch=sm_90a -std=c++17 -rdc=true -o build/probes/conditional_nodes
//        bench/probes/conditional_nodes.cu -lcudadevrt
//   build/probes/conditional_nodes
//
// Prints, for the dense choice and the sparse one, the median time a call of
// each graph shape takes (graph launched back to back, 200 calls a sample);
// then the guarded exits' cost by grid size, and what a memset at a call's
// start (as PIT's calls clear their counters) adds.

#include "Probe.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

constexpr int kSparse = 0, kDense = 1;

__device__ void spinFor(long long nanoseconds) {
  long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start >= nanoseconds)
      break;
  }
}

__device__ bool waitThenChosen(const int *choice, int variant) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  bool chosen = *(volatile const int *)choice == variant;
  if (chosen)
    asm volatile("griddepcontrol.launch_dependents;");
  return chosen;
}

__global__ void choose(int *choice, int value,
                       cudaGraphConditionalHandle sparse,
                       cudaGraphConditionalHandle dense, int setConditions) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0) {
    *choice = value;
    if (setConditions) {
      cudaGraphSetConditional(sparse, value == kSparse);
      cudaGraphSetConditional(dense, value == kDense);
    }
  }
  asm volatile("griddepcontrol.launch_dependents;");
}

__global__ void detection(const int *choice) {
  if (waitThenChosen(choice, kSparse))
    spinFor(2000);
}

__global__ void stile(const int *choice) {
  extern __shared__ char stage[];
  if (waitThenChosen(choice, kSparse)) {
    stage[threadIdx.x] = 1;
    spinFor(5000);
  }
}

__global__ void denseKernel(const int *choice) {
  extern __shared__ char stage[];
  if (waitThenChosen(choice, kDense)) {
    stage[threadIdx.x] = 1;
    spinFor(50000);
  }
}

struct Probe {
  cudaStream_t stream;
  int *choice;
  int smSharedMax = 0;

  void launch(void (*kernel)(const int *), int blocks, int threads,
              int shared, bool dependent) {
    launchKernel(stream, kernel, blocks, threads, shared, dependent,
                 static_cast<const int *>(choice));
  }
  void launchChoose(int value, cudaGraphConditionalHandle sparse,
                    cudaGraphConditionalHandle dense, int set) {
    choose<<<1, 32, 0, stream>>>(choice, value, sparse, dense, set);
    CHECK(cudaGetLastError());
  }
  int detectionBlocks = 1024, stileBlocks = 2048;
  void sparseVariant(bool firstDependent) {
    if (detectionBlocks)
      launch(detection, detectionBlocks, 256, 0, firstDependent);
    launch(stile, stileBlocks, 128, 36 * 1024, true);
  }
  void denseVariant(bool dependent) {
    launch(denseKernel, 132, 384, 200 * 1024, dependent);
  }

  /// Captures `work` into `graph` (or a fresh one).
  template <typename Work> cudaGraph_t capture(Work work,
                                               cudaGraph_t into = nullptr) {
    if (into)
      CHECK(cudaStreamBeginCaptureToGraph(stream, into, nullptr, nullptr, 0,
                                          cudaStreamCaptureModeGlobal));
    else
      CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    work();
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    return graph;
  }

  /// Whether a call starts by clearing its counters (a memset node), as
  /// PIT's calls do.
  bool clearsFirst = false;
  int *counters = nullptr;

  /// Guarded: every kernel launched, the unchosen ones exit.
  cudaGraph_t guarded(int value) {
    return capture([&] {
      if (clearsFirst)
        CHECK(cudaMemsetAsync(counters, 0, 768, stream));
      launchChoose(value, 0, 0, 0);
      sparseVariant(true);
      denseVariant(true);
    });
  }

  /// Only the chosen variant's kernels: the floor.
  cudaGraph_t chosenOnly(int value) {
    return capture([&] {
      launchChoose(value, 0, 0, 0);
      if (value == kSparse)
        sparseVariant(true);
      else
        denseVariant(true);
    });
  }

  /// IF nodes: one a variant, after one another or both after the choice.
  cudaGraph_t conditional(int value, bool inParallel) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle sparse, dense;
    CHECK(cudaGraphConditionalHandleCreate(&sparse, graph, 0,
                                           cudaGraphCondAssignDefault));
    CHECK(cudaGraphConditionalHandleCreate(&dense, graph, 0,
                                           cudaGraphCondAssignDefault));
    capture([&] { launchChoose(value, sparse, dense, 1); }, graph);
    cudaGraphNode_t chooseNode;
    size_t count = 1;
    CHECK(cudaGraphGetNodes(graph, &chooseNode, &count));
    auto addIf = [&](cudaGraphConditionalHandle handle, cudaGraphNode_t after,
                     auto body) {
      cudaGraphNodeParams params = {};
      params.type = cudaGraphNodeTypeConditional;
      params.conditional.handle = handle;
      params.conditional.type = cudaGraphCondTypeIf;
      params.conditional.size = 1;
      cudaGraphNode_t node;
      CHECK(cudaGraphAddNode(&node, graph, &after, nullptr, 1, &params));
      capture(body, params.conditional.phGraph_out[0]);
      return node;
    };
    cudaGraphNode_t first =
        addIf(sparse, chooseNode, [&] { sparseVariant(false); });
    addIf(dense, inParallel ? chooseNode : first,
          [&] { denseVariant(false); });
    return graph;
  }

  double usPerCall(cudaGraph_t graph) {
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    constexpr int kCalls = 200;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<double> samples;
    for (int sample = 0; sample < 7; ++sample) {
      for (int i = 0; i < 10; ++i)
        CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaEventRecord(start, stream));
      for (int i = 0; i < kCalls; ++i)
        CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      samples.push_back(ms * 1000.0 / kCalls);
    }
    std::sort(samples.begin(), samples.end());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    return samples[samples.size() / 2];
  }
};

int main() {
  Probe probe;
  CHECK(cudaStreamCreateWithFlags(&probe.stream, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&probe.choice, sizeof(int)));
  CHECK(cudaFuncSetAttribute(stile, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             36 * 1024));
  CHECK(cudaFuncSetAttribute(denseKernel,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             200 * 1024));
  for (int value : {kDense, kSparse}) {
    const char *name = value == kDense ? "dense chosen" : "sparse chosen";
    double floor = probe.usPerCall(probe.chosenOnly(value));
    double guarded = probe.usPerCall(probe.guarded(value));
    double ifSequential = probe.usPerCall(probe.conditional(value, false));
    double ifParallel = probe.usPerCall(probe.conditional(value, true));
    std::printf("%-14s chosen only %7.1f us  guarded %7.1f (+%.1f)  "
                "IF nodes in turn %7.1f (+%.1f)  IF nodes side by side "
                "%7.1f (+%.1f)\n",
                name, floor, guarded, guarded - floor, ifSequential,
                ifSequential - floor, ifParallel, ifParallel - floor);
  }
  // Where the guarded exits' time goes: their grids' sizes.
  for (auto [detectionBlocks, stileBlocks] :
       {std::pair{1024, 2048}, {132, 2048}, {0, 2048}, {1024, 792},
        {1024, 132}, {0, 132}}) {
    probe.detectionBlocks = detectionBlocks;
    probe.stileBlocks = stileBlocks;
    double floor = probe.usPerCall(probe.chosenOnly(kDense));
    double guarded = probe.usPerCall(probe.guarded(kDense));
    std::printf("dense chosen, detection %4d blocks, STile %4d: guarded "
                "exits +%.1f us\n",
                detectionBlocks, stileBlocks, guarded - floor);
  }
  // What a memset at a call's start costs: a kernel after a memset cannot
  // start early (it waits for the memset to end).
  CHECK(cudaMalloc(&probe.counters, 768));
  for (int value : {kDense, kSparse}) {
    probe.detectionBlocks = 1024;
    probe.stileBlocks = 2048;
    probe.clearsFirst = false;
    double without = probe.usPerCall(probe.guarded(value));
    probe.clearsFirst = true;
    double with = probe.usPerCall(probe.guarded(value));
    probe.clearsFirst = false;
    std::printf("%s chosen, guarded: %.1f us, with a memset of 768 bytes "
                "first %.1f (+%.1f)\n",
                value == kDense ? "dense" : "sparse", without, with,
                with - without);
  }
  int choice = -1;
  CHECK(cudaMemcpy(&choice, probe.choice, sizeof(int),
                   cudaMemcpyDeviceToHost));
  std::printf("last choice written: %d\n", choice);
  return 0;
}
