//===- PITAttrs.h - pit dialect attributes ----------------------*- C++ -*-===//

#ifndef PIT_DIALECT_PIT_IR_PITATTRS_H
#define PIT_DIALECT_PIT_IR_PITATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "PIT/Dialect/PIT/IR/PITEnums.h.inc"

namespace mlir::pit {
/// The most parts #pit.mma_config's `k_splits` may split a tile's k into.
constexpr int64_t kMaxKSplits = 8;
} // namespace mlir::pit

#define GET_ATTRDEF_CLASSES
#include "PIT/Dialect/PIT/IR/PITAttrs.h.inc"

#endif // PIT_DIALECT_PIT_IR_PITATTRS_H
