//===- PITOps.h - pit dialect operations ------------------------*- C++ -*-===//

#ifndef PIT_DIALECT_PIT_IR_PITOPS_H
#define PIT_DIALECT_PIT_IR_PITOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"

#define GET_OP_CLASSES
#include "PIT/Dialect/PIT/IR/PITOps.h.inc"

namespace mlir::pit {

/// The number of segments and the number of micro-tiles per segment of the
/// micro-tile grid of `shape` gathered along `axis` (as pit.detect numbers
/// them); dynamic if any extent they depend on is.
std::pair<int64_t, int64_t> getSegmentsAndCapacity(ArrayRef<int64_t> shape,
                                                   ArrayRef<int64_t> microTile,
                                                   int64_t axis);

/// The segments pit.count counts taking every `every`-th of `segments`
/// (dynamic if `segments` is).
int64_t getNumSampledSegments(int64_t segments, int64_t every);

} // namespace mlir::pit

#endif // PIT_DIALECT_PIT_IR_PITOPS_H
