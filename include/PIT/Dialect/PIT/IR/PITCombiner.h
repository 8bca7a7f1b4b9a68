//===- PITCombiner.h - Arithmetic of pit combiners --------------*- C++ -*-===//
//
// What a #pit.combiner means in arith: its identity (where a partial result
// starts) and the operation that applies it. Shared by the transformations
// that build partial results and by every lowering of pit.swrite.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_DIALECT_PIT_IR_PITCOMBINER_H
#define PIT_DIALECT_PIT_IR_PITCOMBINER_H

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// The identity of `kind` on `type`: the value a partial result starts from.
/// Null if `kind` does not apply to `type`.
TypedAttr getCombinerIdentity(CombinerKind kind, Type type);

/// Builds `kind(lhs, rhs)` with arith operations.
Value buildCombine(OpBuilder &builder, Location loc, CombinerKind kind,
                   Value lhs, Value rhs);

} // namespace mlir::pit

#endif // PIT_DIALECT_PIT_IR_PITCOMBINER_H
