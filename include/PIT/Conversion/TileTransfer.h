//===- TileTransfer.h - Element-level lowering of sread/swrite --*- C++ -*-===//
//
// Shared by the CPU and GPU lowerings of pit.sread and pit.swrite: both turn
// them into loops over the tile's elements that go through the micro-tile
// index, and differ in who runs the loops (one thread, or all threads of a
// block) and in how a combined element is written.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_CONVERSION_TILETRANSFER_H
#define PIT_CONVERSION_TILETRANSFER_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {

/// Builds loops that visit every index of `extents` and call `body` on it.
using ElementLoopBuilder = function_ref<void(
    OpBuilder &, Location, ArrayRef<Value> extents,
    function_ref<void(OpBuilder &, Location, ValueRange)> body)>;

/// How an element of a `combine` write is updated: a plain read-modify-write
/// when one thread owns the destination, an atomic update when tiles run
/// concurrently.
enum class CombineWrite { ReadModifyWrite, Atomic };

/// Replaces `op` by element loops built with `buildLoops`.
void lowerSReadToElements(RewriterBase &rewriter, SReadOp op,
                          ElementLoopBuilder buildLoops);
void lowerSWriteToElements(RewriterBase &rewriter, SWriteOp op,
                           ElementLoopBuilder buildLoops,
                           CombineWrite combineWrite);

/// The extents of `memref` as index values (static ones as constants).
SmallVector<Value> getMemRefExtents(OpBuilder &b, Location loc, Value memref);

Value constantIndex(OpBuilder &b, Location loc, int64_t value);

} // namespace mlir::pit

#endif // PIT_CONVERSION_TILETRANSFER_H
