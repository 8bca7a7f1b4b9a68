//===- KernelBuilder.h - Launches and index arithmetic ----------*- C++ -*-===//
//
// Short builders for the hand-built GPU kernels of convert-pit-to-gpu
// (tensor-core STiles, detection, selection): their 1-D launch and their
// index arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_KERNELBUILDER_H
#define PIT_LIB_CONVERSION_PITTOGPU_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// A 1-D launch of `numBlocks` x `blockSize` threads with the given
/// workgroup buffers, ended by its terminator; the insertion point is left
/// at the start of its body.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t numBlocks,
                           int64_t blockSize, TypeRange workgroupBuffers = {});

/// Bytes a buffer of static `type` takes (an element of less than a byte
/// takes one, as LLVM stores it).
int64_t memrefBytes(MemRefType type);

/// Declares the runtime's function `name` of `type` in the module of the
/// function whose entry block is `entry`, unless it is there.
void declareRuntimeFunction(OpBuilder &b, Location loc, Block *entry,
                            StringRef name, FunctionType type);

/// The i64 that the runtime's `name` (no operands) returns: a call at the
/// start of `entry`, made once per function. The host code asks the runtime
/// before any device work, since a host call after it would wait for that
/// work (gpu-async-region).
Value buildRuntimeQueryAtEntry(OpBuilder &b, Location loc, Block *entry,
                               StringRef name);

/// The device's multiprocessors (index): a call of the runtime's
/// pitCudaMultiprocessorCount at the start of `entry`, made once.
Value buildMultiprocessorCountAtEntry(OpBuilder &b, Location loc,
                                      Block *entry);

/// A device buffer of static `type` (gpu.alloc) at the builder's point on
/// the host, which the caller frees.
Value buildDeviceBuffer(OpBuilder &b, Location loc, MemRefType type);

/// A device buffer of `count` i32 (gpu.alloc) and its gpu.memset to zero,
/// at the builder's point on the host: counters that the call clears with
/// its other buffers (the memsets of the call's allocation merge at its
/// start). The caller frees it.
Value buildZeroedCounter(OpBuilder &b, Location loc, int64_t count = 1);

/// Whether `value` is an argument of its function's entry block: what the
/// host code can ask a tensor map of before anything else runs.
bool isEntryArgument(Value value);

/// The device address (i64) of the tensor map of `tensor` (a 2-D row-major
/// f16/bf16 memref, an argument of the function) in boxes of boxRows x
/// boxColumns: a call of the runtime's pitCudaTensorMap2D at the function's
/// entry (declared in the module if it is not yet), reused for the same
/// tensor and box.
Value buildTensorMapAtEntry(OpBuilder &b, Location loc, Value tensor,
                            int64_t boxRows, int64_t boxColumns);

/// Index arithmetic at one insertion point.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, int64_t y);
  Value rem(Value x, int64_t y);
  Value ult(Value x, Value y);
  /// An i32 constant, and casts between index and i32.
  Value i32(int64_t value);
  Value toI32(Value index);
  Value toIndex(Value value);
  /// `value` (a float or a vector of floats) as f32, and rounded to
  /// `elementType`: where a 16-bit C meets the f32 sums of the kernels, which
  /// round once, when they store. Either is `value` itself where the types
  /// already agree.
  Value widenToF32(Value value);
  Value roundTo(Type elementType, Value value);

  /// The byte address (i64) of element `indices` of `memref`, static and
  /// laid out row after row: what inline PTX and NVVM's pointer ops take.
  Value elementAddress(Value memref, ValueRange indices);
  /// Inline PTX `instruction` on `operands` with `constraints`, with side
  /// effects (it stays where it is built), returning `result` (or nothing
  /// where it is null).
  LLVM::InlineAsmOp inlinePtx(Type result, ValueRange operands,
                              StringRef instruction, StringRef constraints);

  /// The 16 bytes of `memref` (static, row after row, in global memory) at
  /// `indices` as a `type` vector, loaded streaming (`ld.global.cs`): its
  /// L2 lines are the first to go. For data read once: reading it then
  /// evicts its own clean lines, not the dirty lines of earlier kernels,
  /// which would have to be written back first (elementAddress).
  Value loadStreaming(VectorType type, Value memref, ValueRange indices);

  /// Element `indices` (an even column) of `memref` and the next one, as
  /// one access of a vector<2>: rows of even length, contiguous
  /// (hasEvenRows), so the pair is aligned to its own size.
  Value loadPair(Value memref, ValueRange indices);
  void storePair(Value pair, Value memref, ValueRange indices);

  /// Builds `body` where `condition` holds (an scf.if without results);
  /// the insertion point stays after the scf.if.
  void buildIf(Value condition, function_ref<void()> body);

  /// The sum of the i32 `value` over this lane and the lanes below it in
  /// its warp (every lane of the warp must get here).
  Value inclusiveWarpSum(Value value);
  /// The warp's last lane's `inclusive` (an inclusiveWarpSum): the warp's
  /// total, in every lane.
  Value warpTotal(Value inclusive);
};

/// Whether `memref`'s rows are contiguous and of even length, so that an
/// even column and the next one can be accessed as one pair
/// (KernelBuilder::loadPair, storePair).
bool hasEvenRows(Value memref);

/// Lanes of a warp.
constexpr int64_t kWarpSize = 32;

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_KERNELBUILDER_H
