//===- CallGraphs.cpp - Calls launched as CUDA graphs ---------------------===//
//
// A stream-ordered call issues its memsets, its allocation and its launches
// one driver call at a time: at high sparsity the host takes as long to
// issue them as the device takes to run them. Its host code depends only on
// its arguments (the shapes are static, selection chooses on the device,
// and a stream-ordered call never reads back), so every call with the same
// arguments on the same stream issues the same work. The second such call
// runs as usual while each piece of its work is also added to a graph (no
// stream capture: capturing would fail other threads' device-wide
// synchronisations while it lasts), and later calls launch the graph: one
// driver call.
//
//===----------------------------------------------------------------------===//

#include "PIT-runtime/CudaRuntime.h"
#include "Support.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#define PIT_EXPORT extern "C" __attribute__((visibility("default")))

using namespace pit::runtime;

namespace {

/// Enough for the calls a loop alternates between (the benchmark's: two
/// libraries on six inputs each) while bounding what the graphs hold: each
/// keeps its call's index buffers.
constexpr size_t kMaxCallGraphs = 64;

struct CallKey {
  std::vector<uint64_t> words;
  CUstream stream;
  bool operator==(const CallKey &other) const {
    return stream == other.stream && words == other.words;
  }
};

struct CallKeyHash {
  size_t operator()(const CallKey &key) const {
    size_t hash = std::hash<CUstream>()(key.stream);
    for (uint64_t word : key.words)
      hash = hash * 31 + std::hash<uint64_t>()(word);
    return hash;
  }
};

/// A graph being built from the work a call queues.
struct Recording {
  CUgraph graph = nullptr;
  /// The node the next one waits for, and whether it is a kernel (a
  /// dependent launch may then overlap it).
  CUgraphNode last = nullptr;
  bool lastIsKernel = false;
  /// The call's allocations: its graph's kernels use them.
  std::vector<CUdeviceptr> kept;
  uint64_t dependentLaunches = 0;
  /// Why the call cannot be a graph; empty while it can.
  std::string abandoned;
};

thread_local Recording *activeRecording = nullptr;

/// The stream on which dropped graphs' allocations are freed, after their
/// last launch: the runtime's own, so that the free never joins a
/// caller's capture; null (their memory then stays) if it cannot be made.
CUstream releaseStream() {
  static CUstream stream = [] {
    CUstream fresh = nullptr;
    if (cuStreamCreate(&fresh, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
      return CUstream(nullptr);
    return fresh;
  }();
  return stream;
}

/// A recorded call's graph and what it holds. Shared, so that a thread
/// launches it without holding the cache's lock: dropping the key while a
/// launch is being queued releases it after that launch.
struct RecordedGraph {
  CUgraphExec executable = nullptr;
  /// The recorded call's allocations: the graph's kernels use them.
  std::vector<CUdeviceptr> kept;
  /// Recorded after the graph's latest launch (always on the key's one
  /// stream): the allocations are freed after it, without that stream,
  /// which the caller may have destroyed.
  CUevent launched = nullptr;
  uint64_t dependentLaunches = 0;

  RecordedGraph() = default;
  RecordedGraph(const RecordedGraph &) = delete;
  RecordedGraph &operator=(const RecordedGraph &) = delete;

  /// Nothing waits on the host, and a failure is nobody's call's error:
  /// memory that cannot be freed in order stays allocated. A graph still
  /// running is destroyed when done.
  ~RecordedGraph() {
    if (executable)
      cuGraphExecDestroy(executable);
    CUstream stream = kept.empty() ? nullptr : releaseStream();
    if (stream && cuStreamWaitEvent(stream, launched, 0) == CUDA_SUCCESS)
      for (CUdeviceptr pointer : kept)
        cuMemFreeAsync(pointer, stream);
    if (launched)
      cuEventDestroy(launched);
  }
};

/// What is known of the calls with one key.
struct CallGraph {
  enum class State {
    Seen,         // ran once, launch by launch
    Recording,    // a thread is recording it; others run launch by launch
    Recorded,     // `graph` runs it
    Unrecordable, // launch by launch from now on
  };
  State state = State::Seen;
  /// Tells this key's entry from a later one of the same key, should the
  /// graphs be dropped while a thread records it.
  uint64_t generation = 0;
  std::shared_ptr<RecordedGraph> graph;
  uint64_t lastUse = 0;
};

struct CallGraphs {
  std::mutex mutex;
  std::unordered_map<CallKey, CallGraph, CallKeyHash> calls;
  uint64_t clock = 0;
  std::atomic<bool> enabled{true};
  std::atomic<uint64_t> launches{0};
};

/// Never destroyed, like the runtime's other records: kernel libraries may
/// unload their modules after this library's globals are gone.
CallGraphs &callGraphs() {
  static CallGraphs *graphs = [] {
    auto *fresh = new CallGraphs;
    const char *setting = std::getenv("PIT_CUDA_CALL_GRAPHS");
    fresh->enabled = !(setting && std::strcmp(setting, "0") == 0);
    return fresh;
  }();
  return *graphs;
}

/// Drops least recently used keys until there is room for one more, but
/// none that a thread records (a graph that a thread is launching goes
/// once that launch is queued). `graphs.mutex` is held.
void makeRoom(CallGraphs &graphs) {
  while (graphs.calls.size() >= kMaxCallGraphs) {
    auto oldest = graphs.calls.end();
    for (auto it = graphs.calls.begin(); it != graphs.calls.end(); ++it)
      if (it->second.state != CallGraph::State::Recording &&
          (oldest == graphs.calls.end() ||
           it->second.lastUse < oldest->second.lastUse))
        oldest = it;
    if (oldest == graphs.calls.end())
      return;
    graphs.calls.erase(oldest);
  }
}

/// Checks a driver call of the recording: a failure abandons the graph,
/// not the call.
bool checkRecording(Recording &recording, CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  recording.abandoned = std::string(call) + " failed: " + (name ? name : "?");
  return false;
}

#define PIT_RECORD(call) checkRecording(*recording, (call), #call)

/// Makes `node` the recording's last, after the one before it: fully, or,
/// for a dependent launch after a kernel, as the stream does, from the
/// moment that kernel lets its dependents start.
void append(Recording *recording, CUgraphNode node, bool programmatic) {
  if (recording->last) {
    CUgraphEdgeData edge = {};
    if (programmatic) {
      edge.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
      edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    }
    if (!PIT_RECORD(cuGraphAddDependencies(recording->graph, &recording->last,
                                           &node, &edge, 1)))
      return;
  }
  recording->last = node;
}

/// Runs `body(closure)`, the call, while recording its work into a graph.
/// Returns the graph's executable, or null (the call ran all the same).
CUgraphExec record(PITCudaCallBody body, const void *closure,
                   Recording &recording) {
  if (!checkRecording(recording, cuGraphCreate(&recording.graph, 0),
                      "cuGraphCreate(&graph, 0)")) {
    body(closure);
    return nullptr;
  }
  activeRecording = &recording;
  body(closure);
  activeRecording = nullptr;
  CUgraphExec executable = nullptr;
  // A failed call keeps its error for the entry point to report.
  if (hasError())
    recording.abandoned = "the call failed";
  else if (recording.abandoned.empty())
    checkRecording(recording,
                   cuGraphInstantiate(&executable, recording.graph, 0),
                   "cuGraphInstantiate(&executable, graph, 0)");
  cuGraphDestroy(recording.graph);
  return executable;
}

} // namespace

bool pit::runtime::recordingCall() { return activeRecording != nullptr; }

void pit::runtime::recordLaunch(CUfunction function,
                                const CUlaunchConfig &config, void **params) {
  Recording *recording = activeRecording;
  if (!recording || !recording->abandoned.empty())
    return;
  CUDA_KERNEL_NODE_PARAMS launch = {};
  launch.func = function;
  launch.gridDimX = config.gridDimX;
  launch.gridDimY = config.gridDimY;
  launch.gridDimZ = config.gridDimZ;
  launch.blockDimX = config.blockDimX;
  launch.blockDimY = config.blockDimY;
  launch.blockDimZ = config.blockDimZ;
  launch.sharedMemBytes = config.sharedMemBytes;
  // The driver copies the parameters' values now, as a launch does.
  launch.kernelParams = params;
  CUgraphNode node = nullptr;
  if (!PIT_RECORD(cuGraphAddKernelNode(&node, recording->graph, nullptr, 0,
                                       &launch)))
    return;
  bool dependent = false;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    const CUlaunchAttribute &attribute = config.attrs[i];
    if (attribute.id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) {
      dependent = attribute.value.programmaticStreamSerializationAllowed;
      continue;
    }
    if (!PIT_RECORD(cuGraphKernelNodeSetAttribute(node, attribute.id,
                                                  &attribute.value)))
      return;
  }
  append(recording, node, dependent && recording->lastIsKernel);
  recording->lastIsKernel = true;
  recording->dependentLaunches += dependent;
}

void pit::runtime::recordMemset(CUdeviceptr destination, unsigned value,
                                unsigned elementSize, size_t count) {
  Recording *recording = activeRecording;
  if (!recording || !recording->abandoned.empty())
    return;
  CUDA_MEMSET_NODE_PARAMS memset = {};
  memset.dst = destination;
  memset.value = value;
  memset.elementSize = elementSize;
  memset.width = count;
  memset.height = 1;
  CUcontext context = nullptr;
  CUgraphNode node = nullptr;
  if (!PIT_RECORD(cuCtxGetCurrent(&context)) ||
      !PIT_RECORD(cuGraphAddMemsetNode(&node, recording->graph, nullptr, 0,
                                       &memset, context)))
    return;
  append(recording, node, false);
  recording->lastIsKernel = false;
}

void pit::runtime::recordAllocation(CUdeviceptr pointer) {
  if (activeRecording)
    activeRecording->kept.push_back(pointer);
}

bool pit::runtime::keepsAllocation(CUdeviceptr pointer) {
  return activeRecording &&
         std::find(activeRecording->kept.begin(), activeRecording->kept.end(),
                   pointer) != activeRecording->kept.end();
}

void pit::runtime::abandonRecording(const char *why) {
  if (activeRecording && activeRecording->abandoned.empty())
    activeRecording->abandoned = why;
}

void pit::runtime::forgetCallGraphs() {
  CallGraphs &graphs = callGraphs();
  std::lock_guard<std::mutex> lock(graphs.mutex);
  graphs.calls.clear();
}

PIT_EXPORT void pitCudaRunCall(const uint64_t *key, int64_t keyLength,
                               PITCudaCallBody body, const void *closure) {
  CallGraphs &graphs = callGraphs();
  if (!ready() || !callsAreStreamOrdered() || !graphs.enabled ||
      recordingCall()) {
    body(closure);
    return;
  }
  CUstream stream = callStream();
  // In a capture of the caller's (torch.cuda.graph), the call's work joins
  // that capture launch by launch, as it did before graphs (a graph
  // launched into it would end it). The per-thread default stream is one
  // handle for many streams: a graph of one thread's call would share its
  // allocations with another thread's launches.
  if (stream == CU_STREAM_PER_THREAD || isStreamCapturing(stream)) {
    body(closure);
    return;
  }
  CallKey callKey{std::vector<uint64_t>(key, key + keyLength), stream};
  std::unique_lock<std::mutex> lock(graphs.mutex);
  auto found = graphs.calls.find(callKey);
  if (found == graphs.calls.end()) {
    makeRoom(graphs);
    graphs.calls[callKey].lastUse = ++graphs.clock;
    lock.unlock();
    body(closure);
    return;
  }
  CallGraph &call = found->second;
  call.lastUse = ++graphs.clock;
  if (call.state == CallGraph::State::Recorded) {
    std::shared_ptr<RecordedGraph> graph = call.graph;
    lock.unlock();
    if (PIT_CHECK(cuGraphLaunch(graph->executable, stream)) &&
        PIT_CHECK(cuEventRecord(graph->launched, stream))) {
      ++graphs.launches;
      countDependentLaunches(graph->dependentLaunches);
    }
    return;
  }
  if (call.state != CallGraph::State::Seen) {
    lock.unlock();
    body(closure);
    return;
  }
  call.state = CallGraph::State::Recording;
  uint64_t generation = call.generation = ++graphs.clock;
  lock.unlock();
  Recording recording;
  CUgraphExec executable = record(body, closure, recording);
  // The call's own kernels use the allocations kept: an event after them
  // orders their release.
  CUevent launched = nullptr;
  if (executable &&
      (cuEventCreate(&launched, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
       cuEventRecord(launched, stream) != CUDA_SUCCESS))
    recording.abandoned = "no event to order the release of its memory";
  lock.lock();
  found = graphs.calls.find(callKey);
  bool dropped =
      found == graphs.calls.end() || found->second.generation != generation;
  if (dropped || !recording.abandoned.empty()) {
    // Dropped meanwhile (a module unloaded), or no graph: the allocations
    // kept go after the call's work, on its stream.
    if (executable)
      cuGraphExecDestroy(executable);
    if (launched)
      cuEventDestroy(launched);
    for (CUdeviceptr pointer : recording.kept)
      cuMemFreeAsync(pointer, stream);
    if (dropped)
      return;
    // A call that failed may succeed next time; anything else would not
    // make a graph either.
    bool failed = hasError();
    found->second.state = failed ? CallGraph::State::Seen
                                 : CallGraph::State::Unrecordable;
    if (!failed)
      std::fprintf(stderr,
                   "pit-cuda-runtime: calls with these arguments run launch "
                   "by launch, not as a graph: %s\n",
                   recording.abandoned.c_str());
    return;
  }
  auto graph = std::make_shared<RecordedGraph>();
  graph->executable = executable;
  graph->kept = std::move(recording.kept);
  graph->launched = launched;
  graph->dependentLaunches = recording.dependentLaunches;
  found->second.state = CallGraph::State::Recorded;
  found->second.graph = std::move(graph);
}

PIT_EXPORT void pitCudaSetCallGraphs(int enabled) {
  callGraphs().enabled = enabled != 0;
}

PIT_EXPORT uint64_t pitCudaCallGraphLaunchCount() {
  return callGraphs().launches;
}
