//===- Selection.h - Evaluating pit.select -----------------------*- C++ -*-===//
//
// The cost model of run-time selection, shared by the CPU and GPU lowerings
// of pit.select: the CPU lowering evaluates it on the host, the GPU one in a
// kernel; they differ only in how the counts are summed.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_CONVERSION_SELECTION_H
#define PIT_CONVERSION_SELECTION_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// The sum of a buffer of 32-bit counts, as f64, by a loop over it.
Value buildCountTotal(OpBuilder &b, Location loc, Value counts);

/// Builds the index that `op` returns from `totals[i]`, the sum of variant
/// i's counts (f64): each variant's coverage, its latency interpolated in
/// its table, and the least of them and the dense latency. `overheads`
/// (empty, or one for each variant and then dense): microseconds that
/// choosing each costs besides its own latency, added before comparing.
Value buildVariantChoice(OpBuilder &b, Location loc, SelectOp op,
                         ValueRange totals, ArrayRef<double> overheads = {});

} // namespace mlir::pit

#endif // PIT_CONVERSION_SELECTION_H
