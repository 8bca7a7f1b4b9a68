//===- Support.h - What the runtime's own files share ----------*- C++ -*-===//
//
// Internal to libpit_cuda_runtime (hidden symbols): the calling thread's
// error, the device, the stream its calls run on, and the count of
// dependent launches, which CudaRuntime.cpp keeps and CallGraphs.cpp uses.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_RUNTIME_SUPPORT_H
#define PIT_RUNTIME_SUPPORT_H

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace pit::runtime {

/// Whether the calling thread has an error pending.
bool hasError();

/// Records the first failure of the thread (and prints it); later ones
/// follow from it.
void recordError(const std::string &message);

/// Checks a driver call; `call` is its text, for the message.
bool check(CUresult result, const char *call);

#define PIT_CHECK(call) ::pit::runtime::check((call), #call)

/// Checks a release (unload, destroy, free), where a driver already shut
/// down at process exit is no error.
void checkRelease(CUresult result, const char *call);

/// True when the call may go ahead: no pending error and a device.
bool ready();

/// Whether the calling thread's calls are stream-ordered (a stream is
/// lent, pitCudaSetStream): they queue their work and never wait for it.
bool callsAreStreamOrdered();

/// The stream the calling thread's calls run on: the lent one, the legacy
/// default stream, or the stream they are being captured on.
CUstream callStream();

/// Whether the calling thread's call is being captured into a graph.
bool capturingCalls();

/// While `stream` is not null, the calling thread's calls run on it
/// instead (a call being captured into a graph); null ends that.
void redirectCalls(CUstream stream);

/// The kernels launched as dependents, by the whole process and by the
/// calling thread.
std::atomic<uint64_t> &processDependentLaunches();
uint64_t &threadDependentLaunches();

/// Drops every graph of captured calls: their kernels may belong to a
/// module being unloaded (CallGraphs.cpp).
void forgetCallGraphs();

} // namespace pit::runtime

#endif // PIT_RUNTIME_SUPPORT_H
