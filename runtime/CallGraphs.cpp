//===- CallGraphs.cpp - Calls launched as CUDA graphs ---------------------===//
//
// A stream-ordered call issues its memsets, its allocation and its launches
// one driver call at a time: at high sparsity the host takes as long to
// issue them as the device takes to run them. Its host code depends only on
// its arguments (the shapes are static, selection chooses on the device,
// and a stream-ordered call never reads back), so every call with the same
// arguments on the same stream issues the same work. The second such call
// is recorded: each piece of work its host code would queue is added to a
// graph instead, and the graph is launched; later calls launch the graph
// again: one driver call. What the call allocates (and frees) becomes a
// workspace of its function on its stream, which every graph of that
// function on that stream shares, not an allocation of the graph's own.
// No stream is captured: a capture would make other threads' device-wide
// synchronisations fail while it lasts.
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
#include <unordered_set>
#include <vector>

#define PIT_EXPORT extern "C" __attribute__((visibility("default")))

using namespace pit::runtime;

namespace {

/// Enough for the calls a loop alternates between (the benchmark's: two
/// libraries on six inputs each), while bounding the graphs kept.
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

/// Device memory of recorded calls: the n-th allocation of a function's
/// call on a stream. Every graph of that function on that stream uses the
/// same one, one graph after the other, as the stream runs them, instead of
/// an allocation node and a free node of its own (those cost a call
/// 0.7-0.9 us more on an H100: docs/Rationale.md, Runtime; measured
/// 2026-11-24 08:4x UTC). Held by the graphs (and recordings) that use it
/// and by the table of workspaces, which lets go of it when a module is
/// unloaded; freed after its last holder, once the device is idle: a graph may still
/// run on a stream that its caller has since destroyed.
struct Workspace {
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
  Workspace(CUdeviceptr pointer, size_t bytes)
      : pointer(pointer), bytes(bytes) {}
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  /// Quietly: also at process exit, when the driver may be gone (ready()
  /// only makes the device's context current on this thread).
  ~Workspace() {
    (void)ready();
    if (cuCtxSynchronize() == CUDA_SUCCESS)
      cuMemFree(pointer);
  }
};

struct WorkspaceKey {
  PITCudaCallBody body;
  CUstream stream;
  unsigned ordinal;
  bool operator==(const WorkspaceKey &other) const {
    return body == other.body && stream == other.stream &&
           ordinal == other.ordinal;
  }
};

struct WorkspaceKeyHash {
  size_t operator()(const WorkspaceKey &key) const {
    size_t hash =
        std::hash<const void *>()(reinterpret_cast<const void *>(key.body));
    hash = hash * 31 + std::hash<CUstream>()(key.stream);
    return hash * 31 + key.ordinal;
  }
};

struct Workspaces {
  std::mutex mutex;
  std::unordered_map<WorkspaceKey, std::shared_ptr<Workspace>, WorkspaceKeyHash>
      table;
};

/// Never destroyed (see callGraphs).
Workspaces &workspaces() {
  static Workspaces *all = new Workspaces;
  return *all;
}

/// A graph being built from the work a call's host code queues.
struct Recording {
  CUgraph graph = nullptr;
  /// The node the next one waits for, and whether it is a kernel (a
  /// dependent launch may then overlap it).
  CUgraphNode last = nullptr;
  bool lastIsKernel = false;
  uint64_t dependentLaunches = 0;
  /// Whose call it is: the workspaces it allocates in are theirs.
  PITCudaCallBody body = nullptr;
  CUstream stream = nullptr;
  /// The allocations made so far, and those not yet freed: the next call
  /// reuses the workspaces, so a call that keeps one (returns it) cannot be
  /// a graph.
  unsigned allocations = 0;
  std::vector<std::shared_ptr<Workspace>> workspaces;
  std::vector<CUdeviceptr> live;
  /// Why the call cannot be a graph; empty while it can. A driver's failure
  /// may pass (`retry`); what the call does would not.
  std::string abandoned;
  bool retry = false;
};

thread_local Recording *activeRecording = nullptr;

/// A recorded call's executable graph. Shared, so that a thread launches
/// it without holding the cache's lock; a graph still running when the
/// last owner lets go is destroyed when done.
struct RecordedGraph {
  CUgraphExec executable = nullptr;
  uint64_t dependentLaunches = 0;
  /// What its launches use: kept until it is gone.
  std::vector<std::shared_ptr<Workspace>> workspaces;
  /// Launches of one executable graph must not overlap on the host (the
  /// driver's rule); threads lending the same stream share a key.
  std::mutex launching;

  RecordedGraph(CUgraphExec executable, uint64_t dependentLaunches,
                std::vector<std::shared_ptr<Workspace>> workspaces)
      : executable(executable), dependentLaunches(dependentLaunches),
        workspaces(std::move(workspaces)) {}
  RecordedGraph(const RecordedGraph &) = delete;
  RecordedGraph &operator=(const RecordedGraph &) = delete;
  ~RecordedGraph() { cuGraphExecDestroy(executable); }
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
  /// The host code (bodies) whose calls were said to run launch by launch:
  /// said once, not for every set of tensors.
  std::unordered_set<uint64_t> toldUnrecordable;
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
      break;
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
  recording.retry = true;
  return false;
}

#define PIT_RECORD(call) checkRecording(*recording, (call), #call)

/// The recording, while it is still to be kept.
Recording *liveRecording() {
  Recording *recording = activeRecording;
  return recording && recording->abandoned.empty() ? recording : nullptr;
}

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
  recording->lastIsKernel = false;
}

/// Runs `body(closure)`, the call's host code, recording the work it would
/// queue. Returns the graph's executable, or null (nothing ran).
CUgraphExec record(PITCudaCallBody body, const void *closure,
                   Recording &recording) {
  if (!checkRecording(recording, cuGraphCreate(&recording.graph, 0),
                      "cuGraphCreate(&graph, 0)"))
    return nullptr;
  recording.body = body;
  recording.stream = callStream();
  activeRecording = &recording;
  body(closure);
  activeRecording = nullptr;
  CUgraphExec executable = nullptr;
  if (hasError()) {
    recording.abandoned = "the call failed";
    recording.retry = true;
  } else if (recording.abandoned.empty() && !recording.live.empty()) {
    recording.abandoned = "the call leaves an allocation unfreed";
  }
  if (recording.abandoned.empty())
    checkRecording(recording,
                   cuGraphInstantiate(&executable, recording.graph, 0),
                   "cuGraphInstantiate(&executable, graph, 0)");
  cuGraphDestroy(recording.graph);
  return executable;
}

/// Launches `graph` on `stream` for one call.
void launch(CallGraphs &graphs, RecordedGraph &graph, CUstream stream) {
  std::lock_guard<std::mutex> lock(graph.launching);
  if (!PIT_CHECK(cuGraphLaunch(graph.executable, stream)))
    return;
  ++graphs.launches;
  countDependentLaunches(graph.dependentLaunches);
}

} // namespace

bool pit::runtime::recordingCall() { return activeRecording != nullptr; }

void pit::runtime::recordLaunch(CUfunction function,
                                const CUlaunchConfig &config, void **params) {
  Recording *recording = liveRecording();
  if (!recording)
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
  if (!PIT_RECORD(
          cuGraphAddKernelNode(&node, recording->graph, nullptr, 0, &launch)))
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
  Recording *recording = liveRecording();
  if (!recording)
    return;
  CUDA_MEMSET_NODE_PARAMS memset = {};
  memset.dst = destination;
  memset.value = value;
  memset.elementSize = elementSize;
  memset.width = count;
  memset.height = 1;
  CUcontext context = nullptr;
  CUgraphNode node = nullptr;
  if (PIT_RECORD(cuCtxGetCurrent(&context)) &&
      PIT_RECORD(cuGraphAddMemsetNode(&node, recording->graph, nullptr, 0,
                                      &memset, context)))
    append(recording, node, false);
}

CUdeviceptr pit::runtime::recordAllocation(size_t bytes) {
  Recording *recording = liveRecording();
  if (!recording)
    return 0;
  Workspaces &all = workspaces();
  std::lock_guard<std::mutex> lock(all.mutex);
  std::shared_ptr<Workspace> &workspace =
      all.table[{recording->body, recording->stream, recording->allocations++}];
  if (!workspace || workspace->bytes < bytes) {
    // A smaller one stays with the graphs that hold it.
    CUdeviceptr pointer = 0;
    if (!PIT_RECORD(cuMemAlloc(&pointer, bytes)))
      return 0;
    workspace = std::make_shared<Workspace>(pointer, bytes);
  }
  recording->workspaces.push_back(workspace);
  recording->live.push_back(workspace->pointer);
  return workspace->pointer;
}

void pit::runtime::recordFree(CUdeviceptr pointer) {
  Recording *recording = liveRecording();
  if (!recording || !pointer)
    return;
  // Memory the call did not allocate (a caller's) is not its to free.
  auto live =
      std::find(recording->live.begin(), recording->live.end(), pointer);
  if (live == recording->live.end()) {
    abandonRecording("the call frees memory it did not allocate");
    return;
  }
  recording->live.erase(live);
}

bool pit::runtime::abandonRecording(const char *why) {
  if (!activeRecording)
    return false;
  if (activeRecording->abandoned.empty())
    activeRecording->abandoned = why;
  return true;
}

void pit::runtime::forgetCallGraphs() {
  CallGraphs &graphs = callGraphs();
  std::lock_guard<std::mutex> lock(graphs.mutex);
  graphs.calls.clear();
  // Freed once the graphs that hold them are gone too (a thread may be
  // launching one).
  Workspaces &all = workspaces();
  std::lock_guard<std::mutex> workspacesLock(all.mutex);
  all.table.clear();
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
  // handle for many streams, which would share one graph's memory.
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
    launch(graphs, *graph, stream);
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
  lock.lock();
  found = graphs.calls.find(callKey);
  bool kept =
      found != graphs.calls.end() && found->second.generation == generation;
  if (!executable) {
    // Nothing ran: the call runs launch by launch, unless it failed. A call
    // that failed, or whose recording a driver's failure stopped, may be
    // recorded next time; any other reason stays.
    bool failed = hasError();
    if (kept)
      found->second.state = recording.retry ? CallGraph::State::Seen
                                            : CallGraph::State::Unrecordable;
    bool tell = !failed && graphs.toldUnrecordable
                               .insert(reinterpret_cast<uintptr_t>(body))
                               .second;
    lock.unlock();
    if (failed)
      return;
    if (tell)
      std::fprintf(stderr,
                   "pit-cuda-runtime: calls of this function run launch by "
                   "launch, not as a graph: %s\n",
                   recording.abandoned.c_str());
    body(closure);
    return;
  }
  auto graph = std::make_shared<RecordedGraph>(
      executable, recording.dependentLaunches, std::move(recording.workspaces));
  // Dropped meanwhile (a module unloaded): the graph runs this call only.
  if (kept) {
    found->second.state = CallGraph::State::Recorded;
    found->second.graph = graph;
  }
  lock.unlock();
  launch(graphs, *graph, stream);
}

PIT_EXPORT void pitCudaSetCallGraphs(int enabled) {
  callGraphs().enabled = enabled != 0;
}

PIT_EXPORT uint64_t pitCudaCallGraphLaunchCount() {
  return callGraphs().launches;
}
