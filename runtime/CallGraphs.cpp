//===- CallGraphs.cpp - Calls launched as CUDA graphs ---------------------===//
//
// A stream-ordered call issues its memsets, its allocation and its launches
// one driver call at a time: at high sparsity the host takes as long to
// issue them as the device takes to run them. Its host code depends only on
// its arguments (the shapes are static, selection chooses on the device,
// and a stream-ordered call never reads back), so every call with the same
// arguments on the same stream issues the same work: it is captured once
// into a graph, and launched as one.
//
//===----------------------------------------------------------------------===//

#include "PIT-runtime/CudaRuntime.h"
#include "Support.h"

#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#define PIT_EXPORT extern "C" __attribute__((visibility("default")))

using namespace pit::runtime;

namespace {

/// Enough for the calls a loop alternates between (the benchmark's: two
/// libraries on six inputs each) while bounding what the graphs hold: each
/// keeps its own copy of the call's index buffers.
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

/// What is known of the calls with one key.
struct CallGraph {
  enum class State {
    Seen,         // ran once, launch by launch
    Capturing,    // a thread is capturing it; others run launch by launch
    Captured,     // `graph` runs it
    Uncapturable, // its capture failed: launch by launch from now on
  };
  State state = State::Seen;
  CUgraphExec graph = nullptr;
  /// The dependent launches of one run, counted again at each launch of
  /// the graph, so that pitCudaDependentLaunchCount counts kernels run.
  uint64_t dependentLaunches = 0;
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

/// Destroys a graph; one still running is freed when it is done.
void destroyGraph(CUgraphExec graph) {
  if (graph)
    checkRelease(cuGraphExecDestroy(graph), "cuGraphExecDestroy(graph)");
}

/// Drops the least recently used key that no thread is capturing, until
/// there is room for one more. `graphs.mutex` is held.
void makeRoom(CallGraphs &graphs) {
  while (graphs.calls.size() >= kMaxCallGraphs) {
    auto oldest = graphs.calls.end();
    for (auto it = graphs.calls.begin(); it != graphs.calls.end(); ++it)
      if (it->second.state != CallGraph::State::Capturing &&
          (oldest == graphs.calls.end() ||
           it->second.lastUse < oldest->second.lastUse))
        oldest = it;
    if (oldest == graphs.calls.end())
      return;
    destroyGraph(oldest->second.graph);
    graphs.calls.erase(oldest);
  }
}

/// The calling thread's stream for captures: its own, non-blocking, so that
/// work on the legacy stream never joins a capture (and the legacy stream,
/// where calls often run, cannot be captured itself). Kept for the thread.
CUstream captureStream() {
  thread_local CUstream stream = nullptr;
  if (!stream)
    PIT_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

/// Captures `body(closure)` into an executable graph and counts its
/// dependent launches; null when the capture failed, with nothing run and
/// no error left pending (the caller runs the call launch by launch, which
/// reports a failure of its own).
CUgraphExec capture(PITCudaCallBody body, const void *closure,
                    uint64_t &dependentLaunches) {
  CUstream stream = captureStream();
  if (!stream ||
      !PIT_CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED))) {
    pitCudaTakeError();
    return nullptr;
  }
  uint64_t before = threadDependentLaunches();
  redirectCalls(stream);
  body(closure);
  redirectCalls(nullptr);
  dependentLaunches = threadDependentLaunches() - before;
  CUgraph graph = nullptr;
  // Ended whatever happened: the stream must leave capture mode.
  CUresult ended = cuStreamEndCapture(stream, &graph);
  CUgraphExec executable = nullptr;
  if (!hasError() && PIT_CHECK(ended))
    PIT_CHECK(cuGraphInstantiate(&executable, graph, 0));
  if (graph)
    checkRelease(cuGraphDestroy(graph), "cuGraphDestroy(graph)");
  if (const char *error = pitCudaTakeError()) {
    std::fprintf(stderr,
                 "pit-cuda-runtime: a call was not captured into a graph "
                 "(%s); it runs launch by launch\n",
                 error);
    destroyGraph(executable);
    return nullptr;
  }
  // Its launches ran nothing yet: the graph's launch counts them.
  processDependentLaunches() -= dependentLaunches;
  threadDependentLaunches() -= dependentLaunches;
  return executable;
}

/// Launches the graph of `call` on `stream`. `graphs.mutex` is held, so
/// that no other thread destroys the graph meanwhile.
void launch(CallGraphs &graphs, const CallGraph &call, CUstream stream) {
  if (!PIT_CHECK(cuGraphLaunch(call.graph, stream)))
    return;
  ++graphs.launches;
  processDependentLaunches() += call.dependentLaunches;
  threadDependentLaunches() += call.dependentLaunches;
}

} // namespace

void pit::runtime::forgetCallGraphs() {
  CallGraphs &graphs = callGraphs();
  std::lock_guard<std::mutex> lock(graphs.mutex);
  for (auto &[key, call] : graphs.calls)
    destroyGraph(call.graph);
  graphs.calls.clear();
}

PIT_EXPORT void pitCudaRunCall(const uint64_t *key, int64_t keyLength,
                               PITCudaCallBody body, const void *closure) {
  CallGraphs &graphs = callGraphs();
  if (!ready() || !callsAreStreamOrdered() || !graphs.enabled ||
      capturingCalls()) {
    body(closure);
    return;
  }
  CUstream stream = callStream();
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
  if (call.state == CallGraph::State::Captured) {
    launch(graphs, call, stream);
    return;
  }
  if (call.state != CallGraph::State::Seen) {
    lock.unlock();
    body(closure);
    return;
  }
  call.state = CallGraph::State::Capturing;
  lock.unlock();
  uint64_t dependentLaunches = 0;
  CUgraphExec graph = capture(body, closure, dependentLaunches);
  lock.lock();
  // The key may have been dropped meanwhile (a module unloaded); the graph
  // then runs this call only.
  found = graphs.calls.find(callKey);
  if (found != graphs.calls.end()) {
    found->second.state = graph ? CallGraph::State::Captured
                                : CallGraph::State::Uncapturable;
    found->second.graph = graph;
    found->second.dependentLaunches = dependentLaunches;
  }
  if (!graph) {
    lock.unlock();
    body(closure);
    return;
  }
  CallGraph once;
  once.graph = graph;
  once.dependentLaunches = dependentLaunches;
  launch(graphs, found != graphs.calls.end() ? found->second : once, stream);
  if (found == graphs.calls.end())
    destroyGraph(graph);
}

PIT_EXPORT void pitCudaSetCallGraphs(int enabled) {
  callGraphs().enabled = enabled != 0;
}

PIT_EXPORT uint64_t pitCudaCallGraphLaunchCount() {
  return callGraphs().launches;
}
