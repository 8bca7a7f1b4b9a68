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

#include <cstdio>
#include <cstdlib>

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

#endif // PIT_BENCH_PROBES_PROBE_H
