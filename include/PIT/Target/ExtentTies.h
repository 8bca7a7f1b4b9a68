//===- ExtentTies.h - Which argument extents must agree ---------*- C++ -*-===//
//
// A function of dynamic extents takes any extent at each call, but its linalg
// ops tie extents together: a matmul's A rows and C rows are one loop. Called
// with extents that do not agree, the loops would run out of bounds. The
// checked entry points (CEntry.h) and the Python runtime refuse such a call
// before it runs, from the ties this analysis finds; the cf.asserts of
// pit-verify-dynamic-extents remain for ties it cannot see.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_TARGET_EXTENTTIES_H
#define PIT_TARGET_EXTENTTIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::pit {

/// Argument `argument`'s extent `dim` (dynamic in its type) must equal either
/// argument `otherArgument`'s extent `otherDim` or, where `otherArgument` is
/// negative, the static `extent`.
struct ExtentTie {
  int64_t argument;
  int64_t dim;
  int64_t otherArgument;
  int64_t otherDim;
  int64_t extent;
};

/// The ties among `func`'s dynamic argument extents that its linalg ops
/// imply, where their operands are the function's arguments (directly or
/// through memref.cast). Each dynamic extent of a class is tied to the
/// class's static extent if it has one, else to the class's first dynamic
/// extent.
SmallVector<ExtentTie> getExtentTies(func::FuncOp func);

} // namespace mlir::pit

#endif // PIT_TARGET_EXTENTTIES_H
