//===- Probe.h - What the CUDA probes share --------------------------------===//
//
// The probes of bench/probes are single-file CUDA programs, each built with
// one nvcc command (its header says which); they include this file from
// their own directory.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_BENCH_PROBES_PROBE_H
#define PIT_BENCH_PROBES_PROBE_H

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

/// Ends the probe with the call and its error where a CUDA call fails.
#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t error = (call);                                                \
    if (error != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,        \
                   cudaGetErrorString(error));                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// Launches `kernel` on `stream`, as a dependent launch (programmatic stream
/// serialization: it may start once the kernel before it lets it) where
/// `dependent` holds, as PIT's runtime launches the kernels of sm_90 modules.
template <typename... Params, typename... Args>
void launchKernel(cudaStream_t stream, void (*kernel)(Params...), int blocks,
                  int threads, int sharedBytes, bool dependent,
                  Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = dependent ? 1 : 0;
  CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

/// Runs memsets of `bytes` at `buffer` for a second: an idle GPU starts at
/// low clocks.
inline void warmUp(cudaStream_t stream, void *buffer, size_t bytes) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < until)
    CHECK(cudaMemsetAsync(buffer, 1, bytes, stream));
}

/// The median in microseconds of `calls` - 1 runs of `launch()` between
/// CUDA events on `stream` (the first run, not timed, warms up), each after
/// `before()` (outside the events).
template <typename Before, typename Launch>
double medianMicroseconds(cudaStream_t stream, int calls, Before before,
                          Launch launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int call = 0; call < calls; ++call) {
    before();
    CHECK(cudaEventRecord(start, stream));
    launch();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (call > 0)
      times.push_back(ms * 1000);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

#endif // PIT_BENCH_PROBES_PROBE_H
