/*===- PIT-runtime/CudaRuntime.h - PIT's CUDA host runtime ---------*- C -*-===*\
|*                                                                            *|
|* The host code that MLIR's gpu-to-llvm lowering emits calls mgpu* functions *|
|* (module loading, launches, streams, allocations). libpit_cuda_runtime      *|
|* provides them over the CUDA driver API, with no LLVM dependency.           *|
|*                                                                            *|
|* Every driver call is checked. The first failure is recorded, with the call *|
|* and the driver's message, printed to stderr, and turns the following mgpu *|
|* calls of the thread into no-ops, so that a failed allocation or module     *|
|* load is never used. Callers take the error with pitCudaTakeError().        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PIT_RUNTIME_CUDARUNTIME_H
#define PIT_RUNTIME_CUDARUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The pending error of the calling thread ("cuMemAlloc(...) failed: out of
/// memory"), or null; taking it clears it. The text stays valid until the
/// thread's next error.
const char *pitCudaTakeError(void);

/// The name of the device the runtime uses (device 0, or PIT_CUDA_DEVICE).
/// Null, with an error pending, when no device can be used.
const char *pitCudaDeviceName(void);

/// Runs the calling thread's following PIT calls on `stream` (a CUstream, for
/// instance torch.cuda.current_stream().cuda_stream; null is the legacy
/// default stream, which is torch's default stream, handle 0), stream-ordered
/// as a CUDA library call is: a call returns once its work is queued on the
/// stream, and the caller's later work on the stream runs after it. PIT's
/// functions never wait for the device in between (run-time selection
/// chooses on the device). A failure of a kernel itself then surfaces at the
/// caller's next synchronisation, not as the call's error.
void pitCudaSetStream(void *stream);

/// Goes back to the default for the calling thread: calls on the legacy
/// default stream that wait for their work to finish, and report its
/// failures, before they return.
void pitCudaClearStream(void);

/// How many kernels this process launched as dependents (programmatic
/// stream serialization; see above). Tests use it to see that the launches
/// of marked modules take that path, and no other.
uint64_t pitCudaDependentLaunchCount(void);

/// The multiprocessors of the device: kernels whose blocks walk their tiles
/// launch one block for each (the host code asks before the launch). 0,
/// with an error pending, when the device cannot say.
int64_t pitCudaMultiprocessorCount(void);

/// The device address of a tensor map (TMA descriptor) of the row-major
/// rows x columns tensor of 16-bit elements at device address `base` (16-byte
/// aligned, rows of whole 16 bytes), in boxes of boxRows x boxColumns
/// (boxColumns x 2 = 128 bytes) with the 128-byte swizzle that wgmma reads.
/// The kernels of the pit-to-ptx pipeline copy their tiles with it; the host
/// code asks for it before their launch. Maps are kept per tensor and box
/// (a call asks again for the same), and a new one is copied to the device
/// in the order of the calling thread's stream. 0, with an error pending, on
/// failure.
uint64_t pitCudaTensorMap2D(uint64_t base, int64_t rows, int64_t columns,
                            int64_t boxRows, int64_t boxColumns);

/// How many pit.select ops of a function record their choice (see
/// pitCudaLastChoice): the first ones, in the order the function runs them.
#define PIT_CUDA_CHOICE_SLOTS 16

/// The device address of the record of choices: PIT_CUDA_CHOICE_SLOTS
/// int32 slots, each -1 until a choosing kernel writes it. The host code of
/// a function that chooses on the device asks for it at its entry; its
/// choosing kernels write their choice to it as well as to the call's own
/// buffer, which is what its kernels read. 0, with an error pending, when
/// it cannot be allocated.
uint64_t pitCudaChoiceRecord(void);

/// The variant that the latest call to run a `slot`-th pit.select chose on
/// the device, in the numbering of that select (its latencies; the last
/// number is dense), or -1 when none has yet (or `slot` is out of range,
/// with an error pending). It waits for all the device's work, so that the
/// latest choice is there: it is for tests and benchmarks, not between
/// calls. Calls running on several streams at once race for the slot.
int32_t pitCudaLastChoice(int64_t slot);

/// Sets every slot of the record of choices back to -1, after the device's
/// work so far: a test then sees whether its next call writes its slot.
void pitCudaClearChoices(void);

/// The host code of one call of a compiled function (the checked entry
/// point's, PIT-runtime/Entry.h), run on `closure`, its arguments.
typedef void (*PITCudaCallBody)(const void *closure);

/// Runs `body(closure)`, one call whose host code depends only on the
/// `keyLength` words of `key` (the entry point gives its body and its
/// tensors' addresses). Where the calling thread lent a stream, a call with
/// a key seen before on that stream runs as a CUDA graph: at the second
/// call the runtime records the work the host code would queue into a
/// graph instead (memsets, launches with dependent ones as programmatic
/// edges and clusters as node attributes, the allocation as the graph's
/// own) and launches it; later calls launch it again, one driver call
/// instead of one for each launch. No stream is captured, so other threads
/// may synchronise meanwhile. A call whose host code does what a graph
/// would not repeat (copies, events) runs launch by launch instead, and so
/// do calls without a lent stream (they wait for their work, which a graph
/// would not shorten), on the per-thread default stream, or on a stream
/// the caller is capturing (their work joins the caller's graph). At most
/// 64 keys are kept (calls seen once count), the least recently used
/// dropped. Recording a call costs the host about 100 us, so calls whose
/// tensors change every call or two are slower with graphs: turn them off
/// there. A graph's first kernel starts after the work before it in the
/// stream ends (a dependent launch would overlap its tail).
void pitCudaRunCall(const uint64_t *key, int64_t keyLength,
                    PITCudaCallBody body, const void *closure);

/// Turns call graphs on (the default, unless the environment sets
/// PIT_CUDA_CALL_GRAPHS=0) or off for the process. Off, calls run launch by
/// launch; the graphs kept stay for when they are on again.
void pitCudaSetCallGraphs(int enabled);

/// How many calls this process ran by launching a graph.
uint64_t pitCudaCallGraphLaunchCount(void);

#ifdef __cplusplus
}
#endif

#endif // PIT_RUNTIME_CUDARUNTIME_H
