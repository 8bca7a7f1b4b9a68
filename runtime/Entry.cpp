//===- Entry.cpp - Checks behind the generated C entry points -------------===//

#include "PIT-runtime/Entry.h"
#include "PIT-runtime/CudaRuntime.h"

#include <cstdio>
#include <string>
#include <vector>

#define PIT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

thread_local std::string lastError;

int fail(const std::string &message) {
  lastError = message;
  return 1;
}

const char *dtypeName(int32_t dtype) {
  static const char *const names[] = {"f16", "bf16", "f32", "f64",
                                      "i8",  "i32",  "i64"};
  return dtype >= 0 && dtype <= PIT_I64 ? names[dtype] : "unknown";
}

/// "[?, 64]": a spec's dynamic extent (-1) is "?".
std::string shapeText(int32_t rank, const int64_t *shape, bool isSpec) {
  std::string text = "[";
  for (int32_t dim = 0; dim < rank; ++dim)
    text += (dim ? ", " : "") +
            (isSpec && shape[dim] < 0 ? "?" : std::to_string(shape[dim]));
  return text + "]";
}

bool hasNoElements(const PITTensor &tensor) {
  for (int32_t dim = 0; dim < tensor.rank; ++dim)
    if (tensor.shape[dim] == 0)
      return true;
  return false;
}

} // namespace

PIT_EXPORT int pitCheckArgs(const char *function, const PITArgSpec *specs,
                            int64_t numSpecs, const PITTensor *args,
                            int64_t numArgs) {
  std::string where = std::string(function) + ": ";
  if (numArgs != numSpecs)
    return fail(where + "expects " + std::to_string(numSpecs) +
                " arguments, got " + std::to_string(numArgs));
  if (!args)
    return fail(where + "the argument array is null");
  for (int64_t i = 0; i < numSpecs; ++i) {
    const PITArgSpec &spec = specs[i];
    const PITTensor &arg = args[i];
    std::string which = where + "argument " + std::to_string(i) + " (" +
                        spec.name + "): ";
    if (arg.dtype != spec.dtype)
      return fail(which + "expects element type " + dtypeName(spec.dtype) +
                  ", got " + dtypeName(arg.dtype));
    if (arg.rank != spec.rank)
      return fail(which + "expects rank " + std::to_string(spec.rank) +
                  ", got " + std::to_string(arg.rank));
    if (!arg.shape)
      return fail(which + "the shape is null");
    // A dynamic extent (-1 in the spec) takes any extent of 0 or more.
    for (int32_t dim = 0; dim < spec.rank; ++dim)
      if (arg.shape[dim] < 0 ||
          (spec.shape[dim] >= 0 && arg.shape[dim] != spec.shape[dim]))
        return fail(which + "expects shape " +
                    shapeText(spec.rank, spec.shape, /*isSpec=*/true) +
                    ", got " +
                    shapeText(arg.rank, arg.shape, /*isSpec=*/false));
    // A tensor of no elements (a dynamic extent of 0) may have no storage:
    // the call reads and writes none of it.
    if (!arg.data && !hasNoElements(arg))
      return fail(which + "null pointer");
    if (reinterpret_cast<uintptr_t>(arg.data) % PIT_ARG_ALIGNMENT)
      return fail(which + "pointer is not " +
                  std::to_string(PIT_ARG_ALIGNMENT) + "-byte aligned");
  }
  lastError.clear();
  return 0;
}

PIT_EXPORT int pitCheckExtentTies(const char *function,
                                  const PITExtentTie *ties, int64_t numTies,
                                  const PITTensor *args) {
  for (int64_t i = 0; i < numTies; ++i) {
    const PITExtentTie &tie = ties[i];
    int64_t extent = args[tie.argument].shape[tie.dim];
    bool toArgument = tie.otherArgument >= 0;
    int64_t expected =
        toArgument ? args[tie.otherArgument].shape[tie.otherDim] : tie.extent;
    if (extent == expected)
      continue;
    std::string what = "extent " + std::to_string(tie.dim) + " of argument " +
                       std::to_string(tie.argument) + " is " +
                       std::to_string(extent) + ", but ";
    what += toArgument ? "extent " + std::to_string(tie.otherDim) +
                             " of argument " +
                             std::to_string(tie.otherArgument) + " is " +
                             std::to_string(expected)
                       : "the function's loops over it run " +
                             std::to_string(expected);
    return fail(std::string(function) + ": " + what +
                "; the two are one loop of the function and must agree");
  }
  lastError.clear();
  return 0;
}

PIT_EXPORT void pitRunCall(void (*body)(const void *args),
                           const PITTensor *args, int64_t numArgs) {
  // The element types are the signature's (checked); the addresses and
  // the extents (dynamic ones differ from call to call) tell two calls'
  // host code apart.
  std::vector<uint64_t> key;
  key.reserve(numArgs + 1);
  key.push_back(reinterpret_cast<uintptr_t>(body));
  for (int64_t i = 0; i < numArgs; ++i) {
    key.push_back(reinterpret_cast<uintptr_t>(args[i].data));
    for (int32_t dim = 0; dim < args[i].rank; ++dim)
      key.push_back(static_cast<uint64_t>(args[i].shape[dim]));
  }
  pitCudaRunCall(key.data(), static_cast<int64_t>(key.size()), body, args);
}

PIT_EXPORT int pitFinishCall(const char *function) {
  if (const char *error = pitCudaTakeError())
    return fail(std::string(function) + ": " + error);
  return 0;
}

PIT_EXPORT const char *pitLastError() {
  return lastError.empty() ? nullptr : lastError.c_str();
}
