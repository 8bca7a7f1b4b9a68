//===- Selection.h - Evaluating pit.select -----------------------*- C++ -*-===//
//
// The cost model of run-time selection, shared by the CPU and GPU lowerings
// of pit.select: both evaluate it on the host, and differ only in where the
// counts are (the GPU lowering copies them to the host first).
//
//===----------------------------------------------------------------------===//

#ifndef PIT_CONVERSION_SELECTION_H
#define PIT_CONVERSION_SELECTION_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// Builds the index that `op` returns, reading variant i's counts from
/// `counts[i]` (the op's own counts, or copies of them with the same
/// shape): each variant's coverage, its latency interpolated in its table,
/// and the least of them and the dense latency.
Value buildVariantChoice(OpBuilder &b, Location loc, SelectOp op,
                         ValueRange counts);

} // namespace mlir::pit

#endif // PIT_CONVERSION_SELECTION_H
