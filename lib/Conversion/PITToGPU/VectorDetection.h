//===- VectorDetection.h - Detection with 16-byte loads ---------*- C++ -*-===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_VECTORDETECTION_H
#define PIT_LIB_CONVERSION_PITTOGPU_VECTORDETECTION_H

#include "PIT/Conversion/Detection.h"

namespace mlir::pit {

/// Whether the scan of `op` can also write a compacted copy of its non-zero
/// micro-tiles: single columns (micro-tile [m, 1], gathered along the
/// columns) of whole 16-byte vectors of rows, up to a warp of them (m / v
/// lanes share a band column, v rows each; v: a vector's elements).
bool canWriteCompactedCopy(DetectOp op);

/// Builds, at the builder's insertion point, `scan` (of a 2-D source, into
/// cleared counts) as one kernel whose threads each read a column of 16-byte
/// vectors down one band of micro-tile rows, so that a warp reads whole rows
/// of the band with full-width loads, and each byte is read once.
/// Micro-tiles narrower than a vector are split among the vector's lanes;
/// wider ones are OR-reduced over the threads that share them with warp
/// shuffles. Slots are claimed with as few atomic adds as the layout allows:
/// gathered along the columns (a band is a segment), one per warp when a
/// warp lies in one band (a prefix sum of its lanes' counts places each
/// lane's slots), else one per thread (per group of lanes that share a band
/// column); gathered along the rows (a micro-tile column is a segment), a
/// thread scans several bands and claims each of its columns' slots once.
/// A count (no positions) only adds to the counts, and a sample scans only
/// its segments' bands or micro-tile columns. Returns failure, building
/// nothing, when the source is not 2-D with rows of whole vectors, a
/// micro-tile row is not a power-of-two fraction or multiple (up to a warp)
/// of a vector, or a sample along the rows has micro-tiles narrower than a
/// vector.
///
/// With `compactedCopy` (memref<segments x capacity x m>, see
/// canWriteCompactedCopy), the scan also writes each non-zero micro-tile's
/// m elements, contiguous, at [segment, slot]: the scan has loaded them
/// anyway, and a consumer then reads them with 16-byte copies instead of
/// one 32-byte sector per element. The m rows are then split among m / v
/// neighbouring lanes (v elements a vector), so that each micro-tile column
/// is stored by one instruction in whole sectors.
LogicalResult buildVectorizedDetection(OpBuilder &b, Location loc,
                                       const MicroTileScan &scan,
                                       int64_t blockSize,
                                       Value compactedCopy = nullptr);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_VECTORDETECTION_H
