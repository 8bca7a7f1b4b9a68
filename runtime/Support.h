//===- Support.h - What the runtime's own files share ----------*- C++ -*-===//
//
// Internal to libpit_cuda_runtime (hidden symbols): the calling thread's
// error, the device, the stream its calls run on, and the count of
// dependent launches, which CudaRuntime.cpp keeps; and the recording of a
// call into a graph, which CallGraphs.cpp does as CudaRuntime.cpp queues
// the call's work.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_RUNTIME_SUPPORT_H
#define PIT_RUNTIME_SUPPORT_H

#include <cuda.h>

#include <cstdint>

namespace pit::runtime {

/// Whether the calling thread has an error pending.
bool hasError();

/// Checks a driver call; `call` is its text, for the message.
bool check(CUresult result, const char *call);

#define PIT_CHECK(call) ::pit::runtime::check((call), #call)

/// True when the call may go ahead: no pending error and a device.
bool ready();

/// The device the calls run on (after ready()).
CUdevice callDevice();

/// Whether the calling thread's calls are stream-ordered (a stream is
/// lent, pitCudaSetStream): they queue their work and never wait for it.
bool callsAreStreamOrdered();

/// The stream the calling thread's calls run on: the lent one or the
/// legacy default stream.
CUstream callStream();

/// Whether work queued on `stream` now would join a capture of the
/// caller's (or the driver cannot say): it must then not be queried or
/// waited for from the host, and becomes part of the caller's graph.
bool isStreamCapturing(CUstream stream);

/// Counts `count` more kernels launched as dependents (a graph's launch
/// runs that many).
void countDependentLaunches(uint64_t count);

//===----------------------------------------------------------------------===//
// Recording a call into a graph (CallGraphs.cpp)
//===----------------------------------------------------------------------===//

/// Whether the calling thread's call is being recorded: the work it would
/// queue is added to a graph instead, which then runs it (and the later
/// calls with the same arguments) in one launch.
bool recordingCall();

/// Adds a launch: its attributes become the node's, but programmatic
/// stream serialization, which becomes a programmatic edge from the kernel
/// before it.
void recordLaunch(CUfunction function, const CUlaunchConfig &config,
                  void **params);

/// Adds a memset of `count` elements of `elementSize` bytes.
void recordMemset(CUdeviceptr destination, unsigned value,
                  unsigned elementSize, size_t count);

/// The call's next allocation of `bytes`: the address of its workspace
/// (shared by the graphs of its function on its stream; 0 once the
/// recording is abandoned); and its free, which queues nothing.
CUdeviceptr recordAllocation(size_t bytes);
void recordFree(CUdeviceptr pointer);

/// The call does something a graph would not repeat (`why`): if it is
/// being recorded, nothing it queues is kept, and it runs again launch by
/// launch. Returns whether it was being recorded (then the caller queues
/// nothing).
bool abandonRecording(const char *why);

/// Drops every graph of recorded calls: their kernels may belong to a
/// module being unloaded.
void forgetCallGraphs();

} // namespace pit::runtime

#endif // PIT_RUNTIME_SUPPORT_H
