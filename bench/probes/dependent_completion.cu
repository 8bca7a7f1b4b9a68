// Probe: does a dependent launch that ends without griddepcontrol.wait
// still complete, for the kernels after it, only once the kernels before it
// have?
//
// PIT's guarded kernels of a run-time selection rely on it
// (DeviceSelection.cpp guardLaunch): a kernel the choice leaves out reads
// the choice early and ends at once, without waiting for the kernel before
// it, while the kernels after it wait only for it (griddepcontrol.wait) or
// follow it in the stream.
//
// A spins for about 100 us (one block) and then writes a flag; B (one or
// four kernels, 132 or 2048 blocks, dependent launches) ends at once
// without waiting; C waits for its prerequisites and reads the flag. C,
// after B, must see A's write. Each form runs 50 times, then once more
// captured in a CUDA graph, launched 50 times.
//
//   nvcc -O2 -arch=sm_90a -o build/probes/dependent_completion
//        bench/probes/dependent_completion.cu
//   build/probes/dependent_completion
//
// Prints, for each form, how often C read the flag unwritten, and how long
// before A's write B ran (so that the run tests something).

#include "Probe.h"

#include <cstdio>
#include <cstdlib>

namespace {

/// When A wrote its flag, and when the first B began (globaltimer, ns).
__device__ unsigned long long stamps[2];

__device__ unsigned long long now() {
  unsigned long long time;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(time));
  return time;
}

__global__ void spinThenWrite(volatile int *flag, long long cycles) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
  __threadfence();
  *flag = 1;
  if (threadIdx.x == 0)
    stamps[0] = now();
}

__global__ void endAtOnce() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (blockIdx.x == 0 && threadIdx.x == 0)
    stamps[1] = now();
}

__global__ void waitThenRead(volatile int *flag, int *out) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  *out = *flag;
}

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), bool dependent, cudaStream_t stream,
            int blocks, Args... args) {
  launchKernel(stream, kernel, blocks, /*threads=*/128, /*sharedBytes=*/0,
               dependent, args...);
}

struct Form {
  const char *name;
  int middles, middleBlocks;
  bool dependentReader;
};

/// One call: clear, A, the B kernels, C.
void enqueue(const Form &form, cudaStream_t stream, int *flag, int *out) {
  CHECK(cudaMemsetAsync(flag, 0, sizeof(int), stream));
  CHECK(cudaMemsetAsync(out, 0xff, sizeof(int), stream));
  launch(spinThenWrite, false, stream, 1, (volatile int *)flag, 200000LL);
  for (int i = 0; i < form.middles; ++i)
    launch(endAtOnce, true, stream, form.middleBlocks);
  launch(waitThenRead, form.dependentReader, stream, 1, (volatile int *)flag,
         out);
}

int readBack(cudaStream_t stream, int *out) {
  int value = 0;
  CHECK(cudaMemcpyAsync(&value, out, sizeof value, cudaMemcpyDeviceToHost,
                        stream));
  CHECK(cudaStreamSynchronize(stream));
  return value;
}

double bBeforeAUs() {
  unsigned long long times[2];
  CHECK(cudaMemcpyFromSymbol(times, stamps, sizeof times));
  return (static_cast<double>(times[0]) - static_cast<double>(times[1])) / 1e3;
}

} // namespace

int main() {
  constexpr int kTrials = 50;
  int *flag, *out;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const Form forms[] = {
      {"C a dependent launch", 1, 132, true},
      {"C a plain launch", 1, 132, false},
      {"B of 2048 blocks", 1, 2048, true},
      {"four B kernels", 4, 132, true},
  };
  for (const Form &form : forms) {
    int unwritten = 0;
    for (int trial = 0; trial < kTrials; ++trial) {
      enqueue(form, stream, flag, out);
      unwritten += readBack(stream, out) != 1;
    }
    std::printf("%-22s: C read the flag unwritten in %d of %d calls; B began "
                "%.1f us before A wrote it\n",
                form.name, unwritten, kTrials, bBeforeAUs());
  }
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  enqueue(forms[3], stream, flag, out);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  int unwritten = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    CHECK(cudaGraphLaunch(exec, stream));
    unwritten += readBack(stream, out) != 1;
  }
  std::printf("%-22s: C read the flag unwritten in %d of %d calls; B began "
              "%.1f us before A wrote it\n",
              "four B kernels, graph", unwritten, kTrials, bBeforeAUs());
  return 0;
}
