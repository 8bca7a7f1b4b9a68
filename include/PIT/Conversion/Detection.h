//===- Detection.h - Scanning micro-tiles for non-zeros ---------*- C++ -*-===//
//
// The test at the heart of pit.detect, shared by its CPU and GPU lowerings:
// they differ in who scans which micro-tile and how the slot is claimed.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_CONVERSION_DETECTION_H
#define PIT_CONVERSION_DETECTION_H

#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// Builds an i1 that is true when the micro-tile of `source` at `origin`,
/// of extents `microExtents`, holds an element that is not zero (NaN counts
/// as not zero, so that it is never skipped).
Value buildMicroTileHasNonZero(OpBuilder &b, Location loc, Value source,
                               ValueRange origin, ValueRange microExtents);

} // namespace mlir::pit

#endif // PIT_CONVERSION_DETECTION_H
