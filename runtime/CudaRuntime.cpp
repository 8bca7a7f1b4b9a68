//===- CudaRuntime.cpp - mgpu* over the CUDA driver API -------------------===//
//
// The functions MLIR's gpu-to-llvm lowering calls, written for PIT. The
// signatures are the ones that lowering emits in LLVM 22.
//
//===----------------------------------------------------------------------===//

#include "PIT-runtime/CudaRuntime.h"
#include "Support.h"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#define PIT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

thread_local std::string pendingError;
thread_local std::string takenError;

struct Device {
  CUdevice device = 0;
  CUcontext context = nullptr;
  char name[256] = {0};
  bool ready = false;
};

/// Records the first failure of the thread (and prints it); later ones
/// follow from it.
void recordError(const std::string &message) {
  if (!pendingError.empty())
    return;
  pendingError = message;
  std::fprintf(stderr, "pit-cuda-runtime: %s\n", message.c_str());
}

} // namespace

namespace pit::runtime {

bool hasError() { return !pendingError.empty(); }

bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  recordError(std::string(call) + " failed: " + (name ? name : "?") + " (" +
              (text ? text : "unknown error") + ")");
  return false;
}

} // namespace pit::runtime

using namespace pit::runtime;

namespace {

/// Checks a release (unload, destroy, free). At process exit the driver may
/// already be shut down and have released everything itself: that is not an
/// error worth reporting.
void checkRelease(CUresult result, const char *call) {
  if (result != CUDA_ERROR_DEINITIALIZED)
    check(result, call);
}

/// The primary context of the device, retained once per process and made
/// current on every thread that calls in.
Device *getDevice() {
  static Device device;
  static std::once_flag once;
  std::call_once(once, [] {
    int ordinal = 0;
    if (const char *chosen = std::getenv("PIT_CUDA_DEVICE"))
      ordinal = std::atoi(chosen);
    device.ready = PIT_CHECK(cuInit(0)) &&
                   PIT_CHECK(cuDeviceGet(&device.device, ordinal)) &&
                   PIT_CHECK(cuDevicePrimaryCtxRetain(&device.context,
                                                      device.device)) &&
                   PIT_CHECK(cuDeviceGetName(device.name, sizeof(device.name),
                                             device.device));
  });
  if (!device.ready) {
    recordError("no usable CUDA device");
    return nullptr;
  }
  thread_local bool current = false;
  if (!current)
    current = PIT_CHECK(cuCtxSetCurrent(device.context));
  return current ? &device : nullptr;
}

} // namespace

bool pit::runtime::ready() { return !hasError() && getDevice(); }

CUdevice pit::runtime::callDevice() { return getDevice()->device; }

PIT_EXPORT const char *pitCudaTakeError() {
  if (!hasError())
    return nullptr;
  takenError = pendingError;
  pendingError.clear();
  return takenError.c_str();
}

PIT_EXPORT const char *pitCudaDeviceName() {
  Device *device = getDevice();
  return device ? device->name : nullptr;
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

namespace {

/// The name of the global by which a module says that each of its kernels
/// first waits for its prerequisite grids (griddepcontrol.wait): only then
/// may a launch of its kernels overlap the kernel before it in the stream.
/// PIT's pipeline defines it (pit-dependent-launch).
constexpr const char *kDependentLaunchMarker = "pit_dependent_launch";

/// The modules whose kernels may overlap the kernel before them in the
/// stream, and how many such launches were made. A kernel's module comes
/// from the driver (cuFuncGetModule) when it is launched.
struct DependentLaunches {
  std::mutex mutex;
  std::unordered_set<CUmodule> modules;
  std::atomic<uint64_t> launches{0};
};

/// Never destroyed: at process exit a kernel library's destructor may unload
/// its modules after this library's globals are gone.
DependentLaunches &dependentLaunches() {
  static DependentLaunches *state = new DependentLaunches;
  return *state;
}

/// Whether `function`'s module carries the marker, or nothing (with the
/// error recorded) when the driver cannot say which module that is.
std::optional<bool> isDependentKernel(CUfunction function) {
  CUmodule module = nullptr;
  if (!PIT_CHECK(cuFuncGetModule(&module, function)))
    return std::nullopt;
  DependentLaunches &state = dependentLaunches();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.modules.count(module) != 0;
}

/// Remembers `module`, loaded from the `size` bytes of `image`, when it
/// defines the marker. The image is searched for the marker's name first:
/// asking the driver for a global that is not there is an API error, which
/// compute-sanitizer reports for every module without it.
void noteDependentLaunch(CUmodule module, const void *image, size_t size) {
  std::string_view bytes(static_cast<const char *>(image), size);
  if (bytes.find(kDependentLaunchMarker) == std::string_view::npos)
    return;
  // The name may also occur in something else than the global (a string, a
  // longer symbol): not finding the global then means "not marked", and is
  // no error of the call.
  CUdeviceptr marker = 0;
  size_t markerBytes = 0;
  if (cuModuleGetGlobal(&marker, &markerBytes, module,
                        kDependentLaunchMarker) != CUDA_SUCCESS)
    return;
  DependentLaunches &state = dependentLaunches();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.modules.insert(module);
}

} // namespace

void pit::runtime::countDependentLaunches(uint64_t count) {
  dependentLaunches().launches += count;
}

PIT_EXPORT CUmodule mgpuModuleLoad(void *data, size_t size) {
  CUmodule module = nullptr;
  if (ready() && PIT_CHECK(cuModuleLoadData(&module, data)))
    noteDependentLaunch(module, data, size);
  return module;
}

PIT_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule module = nullptr;
  if (!ready())
    return module;
  // The PTX is compiled here by the driver; its log says why it failed.
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  if (!PIT_CHECK(cuModuleLoadDataEx(&module, data, 3, options, values))) {
    if (log[0])
      std::fprintf(stderr, "pit-cuda-runtime: PTX JIT log: %s\n", log);
    return module;
  }
  // PTX: text, ended by a null.
  noteDependentLaunch(module, data, std::strlen(static_cast<char *>(data)));
  return module;
}

PIT_EXPORT void mgpuModuleUnload(CUmodule module) {
  // Unloading must happen even after an error, so that nothing leaks.
  if (!module)
    return;
  {
    DependentLaunches &state = dependentLaunches();
    std::lock_guard<std::mutex> lock(state.mutex);
    state.modules.erase(module);
  }
  forgetCallGraphs();
  checkRelease(cuModuleUnload(module), "cuModuleUnload(module)");
}

PIT_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction function = nullptr;
  if (!ready())
    return function;
  if (!module) {
    recordError(std::string("no module to get kernel '") + name + "' from");
    return function;
  }
  PIT_CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

/// Lets `function` use `sharedBytes` of dynamic shared memory, asking the
/// driver only when an earlier launch did not already ask for as much.
static bool allowSharedBytes(CUfunction function, int32_t sharedBytes) {
  static std::mutex mutex;
  static std::unordered_map<CUfunction, int32_t> allowed;
  std::lock_guard<std::mutex> lock(mutex);
  int32_t &bytes = allowed[function];
  if (bytes >= sharedBytes)
    return true;
  if (!PIT_CHECK(cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          sharedBytes)))
    return false;
  bytes = sharedBytes;
  return true;
}

/// Launches `function` over `grid` blocks of `block` threads, in clusters
/// of `cluster` blocks unless that is 1 x 1 x 1, and as a dependent of the
/// kernel before it where its module is marked.
static void launch(CUfunction function, const intptr_t cluster[3],
                   const intptr_t grid[3], const intptr_t block[3],
                   int32_t sharedBytes, CUstream stream, void **params,
                   void **extra) {
  if (!ready())
    return;
  if (!function) {
    recordError("launch of a kernel that was not loaded");
    return;
  }
  // Beyond 48 KiB, dynamic shared memory must be asked for explicitly, once
  // per kernel (the attribute stays; asking again on every launch would add
  // a driver call to each).
  if (sharedBytes > 48 * 1024 && !allowSharedBytes(function, sharedBytes))
    return;
  std::optional<bool> dependent = isDependentKernel(function);
  if (!dependent)
    return;
  CUlaunchAttribute attributes[2] = {};
  unsigned numAttributes = 0;
  if (cluster[0] * cluster[1] * cluster[2] != 1) {
    CUlaunchAttribute &dims = attributes[numAttributes++];
    dims.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    dims.value.clusterDim.x = static_cast<unsigned>(cluster[0]);
    dims.value.clusterDim.y = static_cast<unsigned>(cluster[1]);
    dims.value.clusterDim.z = static_cast<unsigned>(cluster[2]);
  }
  // Programmatic stream serialization: the kernel may be scheduled while the
  // kernel before it in the stream (which lets it, griddepcontrol.
  // launch_dependents) is finishing, and waits for it with
  // griddepcontrol.wait. That hides the gap between two launches (about a
  // microsecond each), and lets a kernel that its guard switches off exit as
  // soon as the one before it is done.
  if (*dependent) {
    CUlaunchAttribute &serialization = attributes[numAttributes++];
    serialization.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    serialization.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig config = {};
  config.gridDimX = static_cast<unsigned>(grid[0]);
  config.gridDimY = static_cast<unsigned>(grid[1]);
  config.gridDimZ = static_cast<unsigned>(grid[2]);
  config.blockDimX = static_cast<unsigned>(block[0]);
  config.blockDimY = static_cast<unsigned>(block[1]);
  config.blockDimZ = static_cast<unsigned>(block[2]);
  config.sharedMemBytes = static_cast<unsigned>(sharedBytes);
  config.hStream = stream;
  config.attrs = attributes;
  config.numAttrs = numAttributes;
  // A call being recorded (CallGraphs.cpp) becomes a graph's node, which
  // takes the kernel's parameters from `params` as they are now (MLIR's
  // launches never pass `extra`).
  if (recordingCall()) {
    if (extra)
      abandonRecording("a launch passes its parameters in `extra`");
    else
      recordLaunch(function, config, params);
    return;
  }
  if (PIT_CHECK(cuLaunchKernelEx(&config, function, params, extra)) &&
      *dependent)
    ++dependentLaunches().launches;
}

PIT_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t sharedBytes,
                                 CUstream stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  const intptr_t cluster[3] = {1, 1, 1}, grid[3] = {gridX, gridY, gridZ},
                 block[3] = {blockX, blockY, blockZ};
  launch(function, cluster, grid, block, sharedBytes, stream, params, extra);
}

PIT_EXPORT void mgpuLaunchClusterKernel(
    CUfunction function, intptr_t clusterX, intptr_t clusterY,
    intptr_t clusterZ, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t sharedBytes,
    CUstream stream, void **params, void **extra) {
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ},
                 grid[3] = {gridX, gridY, gridZ},
                 block[3] = {blockX, blockY, blockZ};
  launch(function, cluster, grid, block, sharedBytes, stream, params, extra);
}

PIT_EXPORT int64_t pitCudaMultiprocessorCount() {
  if (!ready())
    return 0;
  // Kept once known; a failed query is asked again next time.
  static std::atomic<int> known{0};
  int count = known.load();
  if (count > 0)
    return count;
  if (!PIT_CHECK(cuDeviceGetAttribute(
          &count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
          getDevice()->device)))
    return 0;
  if (count <= 0) {
    recordError("the device reports no multiprocessors");
    return 0;
  }
  known.store(count);
  return count;
}

namespace {

/// Sets every slot of `record` to -1 once the device's work so far is done,
/// and waits for it: the memset is queued on the legacy stream, and a
/// kernel on a lent non-blocking stream must not write a slot before it.
bool clearChoiceRecord(CUdeviceptr record) {
  return PIT_CHECK(cuCtxSynchronize()) &&
         PIT_CHECK(cuMemsetD32(record, ~0u, PIT_CUDA_CHOICE_SLOTS)) &&
         PIT_CHECK(cuCtxSynchronize());
}

/// The record of choices, allocated and set to -1 once per process. Never
/// freed: kernels of any library may write it until the process ends.
CUdeviceptr choiceRecord() {
  static std::mutex mutex;
  static CUdeviceptr record = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (record)
    return record;
  CUdeviceptr fresh = 0;
  if (!PIT_CHECK(cuMemAlloc(&fresh, PIT_CUDA_CHOICE_SLOTS * sizeof(int32_t))))
    return 0;
  if (!clearChoiceRecord(fresh)) {
    checkRelease(cuMemFree(fresh), "cuMemFree(fresh)");
    return 0;
  }
  record = fresh;
  return record;
}

} // namespace

PIT_EXPORT uint64_t pitCudaChoiceRecord() {
  return ready() ? choiceRecord() : 0;
}

PIT_EXPORT void pitCudaClearChoices() {
  if (CUdeviceptr record = pitCudaChoiceRecord())
    clearChoiceRecord(record);
}

PIT_EXPORT int32_t pitCudaLastChoice(int64_t slot) {
  if (slot < 0 || slot >= PIT_CUDA_CHOICE_SLOTS) {
    recordError("pitCudaLastChoice: slot " + std::to_string(slot) +
                " is not in [0, " + std::to_string(PIT_CUDA_CHOICE_SLOTS) +
                ")");
    return -1;
  }
  CUdeviceptr record = pitCudaChoiceRecord();
  int32_t choice = -1;
  if (!record || !PIT_CHECK(cuCtxSynchronize()) ||
      !PIT_CHECK(cuMemcpyDtoH(&choice, record + slot * sizeof(int32_t),
                              sizeof(int32_t))))
    return -1;
  return choice;
}

PIT_EXPORT uint64_t pitCudaDependentLaunchCount() {
  return dependentLaunches().launches;
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

namespace {

/// The stream the caller lent (pitCudaSetStream), or null; and whether one
/// is lent at all (null lends the legacy stream): then calls are
/// stream-ordered, and the waits the lowering puts at their end do nothing.
thread_local CUstream lentStream = nullptr;
thread_local bool streamOrdered = false;

} // namespace

bool pit::runtime::callsAreStreamOrdered() { return streamOrdered; }

CUstream pit::runtime::callStream() {
  return lentStream ? lentStream : CU_STREAM_LEGACY;
}

bool pit::runtime::isStreamCapturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS ||
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

PIT_EXPORT void pitCudaSetStream(void *stream) {
  lentStream = static_cast<CUstream>(stream);
  streamOrdered = true;
}

PIT_EXPORT void pitCudaClearStream() {
  lentStream = nullptr;
  streamOrdered = false;
}

/// Without a lent stream, calls run on the legacy default stream, where
/// torch and most callers put their work unless they say otherwise: ordered
/// with that work, and with no stream of the runtime's own to create or to
/// wait on.
PIT_EXPORT CUstream mgpuStreamCreate() {
  if (!ready())
    return nullptr;
  return callStream();
}

PIT_EXPORT void mgpuStreamDestroy(CUstream stream) {
  // The lent stream is the caller's and the legacy one the driver's; a
  // stream from elsewhere is released.
  if (stream && stream != lentStream && stream != CU_STREAM_LEGACY)
    checkRelease(cuStreamDestroy(stream), "cuStreamDestroy(stream)");
}

PIT_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  // Synchronising also reports failures of kernels that ran asynchronously.
  // Stream-ordered calls leave that to the caller's next synchronisation.
  if (ready() && !streamOrdered)
    PIT_CHECK(cuStreamSynchronize(stream));
}

PIT_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  if (abandonRecording("the call waits for an event"))
    return;
  if (ready())
    PIT_CHECK(cuStreamWaitEvent(stream, event, /*flags=*/0));
}

PIT_EXPORT CUevent mgpuEventCreate() {
  CUevent event = nullptr;
  if (ready())
    PIT_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

PIT_EXPORT void mgpuEventDestroy(CUevent event) {
  if (event)
    checkRelease(cuEventDestroy(event), "cuEventDestroy(event)");
}

PIT_EXPORT void mgpuEventSynchronize(CUevent event) {
  if (ready() && !streamOrdered)
    PIT_CHECK(cuEventSynchronize(event));
}

PIT_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  if (abandonRecording("the call records an event"))
    return;
  if (ready())
    PIT_CHECK(cuEventRecord(event, stream));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Makes the device's default memory pool keep what is freed, so that the
/// stream-ordered allocations of the next call are served from the pool
/// instead of the driver.
bool keepPoolMemory() {
  static bool kept = [] {
    CUmemoryPool pool = nullptr;
    cuuint64_t unlimited = ~cuuint64_t(0);
    return PIT_CHECK(cuDeviceGetDefaultMemPool(&pool, getDevice()->device)) &&
           PIT_CHECK(cuMemPoolSetAttribute(
               pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &unlimited));
  }();
  return kept;
}

PIT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                              bool isHostShared) {
  CUdeviceptr pointer = 0;
  if (!ready() || sizeBytes == 0)
    return nullptr;
  if (isHostShared) {
    // Managed memory can hang the GPU when oversubscribed; PIT never asks
    // for it, so a request is a bug in the caller.
    recordError("host-shared (managed) allocations are not supported");
    return nullptr;
  }
  // A call being recorded allocates in its function's workspace.
  if (recordingCall())
    return reinterpret_cast<void *>(recordAllocation(sizeBytes));
  // Stream-ordered when there is a stream: no device-wide synchronisation,
  // and the pool reuses the index buffers of earlier calls.
  if (stream) {
    if (keepPoolMemory())
      PIT_CHECK(cuMemAllocAsync(&pointer, sizeBytes, stream));
  } else {
    PIT_CHECK(cuMemAlloc(&pointer, sizeBytes));
  }
  return reinterpret_cast<void *>(pointer);
}

PIT_EXPORT void mgpuMemFree(void *pointer, CUstream stream) {
  if (!pointer)
    return;
  CUdeviceptr device = reinterpret_cast<CUdeviceptr>(pointer);
  if (recordingCall()) {
    recordFree(device);
    return;
  }
  if (stream)
    checkRelease(cuMemFreeAsync(device, stream), "cuMemFreeAsync(pointer)");
  else
    checkRelease(cuMemFree(device), "cuMemFree(pointer)");
}

PIT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  if (abandonRecording("the call copies memory"))
    return;
  if (ready())
    PIT_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                            reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                            stream));
}

PIT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             CUstream stream) {
  CUdeviceptr device = reinterpret_cast<CUdeviceptr>(dst);
  if (recordingCall())
    recordMemset(device, value, 4, count);
  else if (ready())
    PIT_CHECK(cuMemsetD32Async(device, value, count, stream));
}

PIT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             CUstream stream) {
  CUdeviceptr device = reinterpret_cast<CUdeviceptr>(dst);
  if (recordingCall())
    recordMemset(device, value, 2, count);
  else if (ready())
    PIT_CHECK(cuMemsetD16Async(device, value, count, stream));
}

PIT_EXPORT void mgpuSetDefaultDevice(int32_t /*ordinal*/) {
  // The device is chosen once per process, by PIT_CUDA_DEVICE.
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

namespace {

/// The tensor maps (TMA descriptors) of the kernels' tile copies live in
/// device memory, each in a slot of a buffer, and are encoded once for each
/// tensor and box: a call finds its maps there (the same tensors come back
/// call after call) and only a new one costs an encoding and a copy,
/// stream-ordered, from pinned memory.
constexpr int kTensorMapSlots = 1024;

struct TensorMapKey {
  uint64_t base;
  int64_t rows, columns, boxRows, boxColumns;
  bool operator==(const TensorMapKey &other) const {
    return base == other.base && rows == other.rows &&
           columns == other.columns && boxRows == other.boxRows &&
           boxColumns == other.boxColumns;
  }
};

struct TensorMapKeyHash {
  size_t operator()(const TensorMapKey &key) const {
    size_t hash = std::hash<uint64_t>()(key.base);
    for (int64_t value : {key.rows, key.columns, key.boxRows, key.boxColumns})
      hash = hash * 31 + std::hash<int64_t>()(value);
    return hash;
  }
};

/// A map in its slot: its device address, the stream its copy went on,
/// and an event after that copy, which work on another stream waits for
/// until it has passed (`settled`).
struct TensorMapSlot {
  CUdeviceptr address = 0;
  CUstream copiedOn = nullptr;
  CUevent copied = nullptr;
  bool settled = false;
};

/// The slots of the maps in use. A full buffer is not rewritten: a kernel
/// still queued, or the current call itself, may hold one of its maps, and
/// waiting for the device would stall every stream (and break a stream
/// capture). A new buffer takes the next maps; the old ones stay, 256 KiB
/// (device and pinned) for every kTensorMapSlots distinct maps a process
/// makes.
struct TensorMaps {
  std::mutex mutex;
  CUdeviceptr device = 0;
  CUtensorMap *staging = nullptr;
  /// Where maps made during a capture of the caller's are copied.
  CUstream copyStream = nullptr;
  int used = kTensorMapSlots;
  std::unordered_map<TensorMapKey, TensorMapSlot, TensorMapKeyHash> slots;
};

/// Never destroyed, like the dependent-launch records: kernel libraries may
/// be unloaded after the runtime's static objects are gone.
TensorMaps &tensorMaps() {
  static TensorMaps *maps = new TensorMaps;
  return *maps;
}

/// A fresh buffer of slots for `maps`, or false with an error pending.
bool startTensorMapBuffer(TensorMaps &maps) {
  CUdeviceptr device = 0;
  void *staging = nullptr;
  size_t bytes = kTensorMapSlots * sizeof(CUtensorMap);
  if (!PIT_CHECK(cuMemAlloc(&device, bytes)))
    return false;
  if (!PIT_CHECK(cuMemAllocHost(&staging, bytes))) {
    checkRelease(cuMemFree(device), "cuMemFree(device)");
    return false;
  }
  maps.device = device;
  maps.staging = static_cast<CUtensorMap *>(staging);
  maps.used = 0;
  return true;
}

} // namespace

PIT_EXPORT uint64_t pitCudaTensorMap2D(uint64_t base, int64_t rows,
                                       int64_t columns, int64_t boxRows,
                                       int64_t boxColumns) {
  if (!ready())
    return 0;
  TensorMaps &maps = tensorMaps();
  std::lock_guard<std::mutex> lock(maps.mutex);
  TensorMapKey key{base, rows, columns, boxRows, boxColumns};
  CUstream stream = mgpuStreamCreate();
  // In a capture of the caller's (torch.cuda.graph), the event of a copy
  // may not be queried, and the copy must not join the capture (its event
  // would then belong to the caller's graph): the capture waits for it as
  // an external event, which its replays find done.
  bool capturing = isStreamCapturing(stream);
  auto found = maps.slots.find(key);
  if (found != maps.slots.end()) {
    TensorMapSlot &slot = found->second;
    if (!slot.settled && capturing) {
      if (!PIT_CHECK(cuStreamWaitEvent(stream, slot.copied,
                                       CU_EVENT_WAIT_EXTERNAL)))
        return 0;
      return slot.address;
    }
    // Copied on another stream and maybe not yet done: this one's work
    // waits for that copy.
    if (!slot.settled && slot.copiedOn != stream) {
      CUresult done = cuEventQuery(slot.copied);
      if (done == CUDA_SUCCESS) {
        slot.settled = true;
      } else if (done != CUDA_ERROR_NOT_READY) {
        check(done, "cuEventQuery(slot.copied)");
        return 0;
      } else if (!PIT_CHECK(cuStreamWaitEvent(stream, slot.copied, 0))) {
        return 0;
      }
    }
    return slot.address;
  }
  if (maps.used == kTensorMapSlots && !startTensorMapBuffer(maps))
    return 0;
  if (capturing && !maps.copyStream &&
      !PIT_CHECK(cuStreamCreate(&maps.copyStream, CU_STREAM_NON_BLOCKING)))
    return 0;
  int index = maps.used;
  // Row-major 16-bit elements (f16 and bf16 copy alike), dimensions and
  // boxes innermost first; rows of boxColumns x 2 = 128 bytes, swizzled
  // the way wgmma reads its 128-byte swizzled tiles.
  cuuint64_t dims[2] = {static_cast<cuuint64_t>(columns),
                        static_cast<cuuint64_t>(rows)};
  cuuint64_t strides[1] = {static_cast<cuuint64_t>(columns) * 2};
  cuuint32_t box[2] = {static_cast<cuuint32_t>(boxColumns),
                       static_cast<cuuint32_t>(boxRows)};
  cuuint32_t elementStrides[2] = {1, 1};
  TensorMapSlot slot;
  slot.address = maps.device + index * sizeof(CUtensorMap);
  slot.copiedOn = capturing ? maps.copyStream : stream;
  if (!PIT_CHECK(cuTensorMapEncodeTiled(
          &maps.staging[index], CU_TENSOR_MAP_DATA_TYPE_UINT16, 2,
          reinterpret_cast<void *>(base), dims, strides, box, elementStrides,
          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) ||
      !PIT_CHECK(cuEventCreate(&slot.copied, CU_EVENT_DISABLE_TIMING)) ||
      !PIT_CHECK(cuMemcpyHtoDAsync(slot.address, &maps.staging[index],
                                   sizeof(CUtensorMap), slot.copiedOn)) ||
      !PIT_CHECK(cuEventRecord(slot.copied, slot.copiedOn)) ||
      (capturing && !PIT_CHECK(cuStreamWaitEvent(stream, slot.copied,
                                                 CU_EVENT_WAIT_EXTERNAL))))
    return 0;
  maps.slots[key] = slot;
  ++maps.used;
  return slot.address;
}
