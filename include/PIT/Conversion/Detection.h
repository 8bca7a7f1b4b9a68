//===- Detection.h - Scanning micro-tiles for non-zeros ---------*- C++ -*-===//
//
// What pit.detect and pit.count have in common, shared by their CPU and GPU
// lowerings: which micro-tiles a scan visits and the test for a non-zero.
// The lowerings differ in who scans which micro-tile and how the slot is
// claimed.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_CONVERSION_DETECTION_H
#define PIT_CONVERSION_DETECTION_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// A scan of the micro-tiles of `source`: pit.detect's (every segment, an
/// index of counts and positions) or pit.count's (every `every`-th segment,
/// counts only). Segment `i * every` is counted into `counts[i]`.
struct MicroTileScan {
  Operation *op;
  Value source;
  Value counts;
  /// Where the positions go; null for a count.
  Value positions;
  ArrayRef<int64_t> microTile;
  int64_t axis;
  int64_t every;

  static MicroTileScan of(DetectOp op) {
    return {op,
            op.getSource(),
            op.getCounts(),
            op.getPositions(),
            op.getMicroTile(),
            static_cast<int64_t>(op.getAxis()),
            /*every=*/1};
  }
  static MicroTileScan of(CountOp op) {
    return {op,
            op.getSource(),
            op.getCounts(),
            /*positions=*/Value(),
            op.getMicroTile(),
            static_cast<int64_t>(op.getAxis()),
            static_cast<int64_t>(op.getEvery())};
  }
};

/// The element coordinates of the micro-tile at `position` along the scan's
/// axis in segment `segment` (numbered row-major over the other dimensions
/// of the micro-tile grid, whose extents are `grid`).
SmallVector<Value> buildMicroTileOrigin(OpBuilder &b, Location loc,
                                        const MicroTileScan &scan,
                                        ArrayRef<Value> grid, Value segment,
                                        Value position);

/// Builds an i1 that is true when the micro-tile of `source` at `origin`,
/// of extents `microExtents`, holds an element that is not zero (NaN counts
/// as not zero, so that it is never skipped).
Value buildMicroTileHasNonZero(OpBuilder &b, Location loc, Value source,
                               ValueRange origin, ValueRange microExtents);

} // namespace mlir::pit

#endif // PIT_CONVERSION_DETECTION_H
