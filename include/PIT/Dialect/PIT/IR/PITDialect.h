//===- PITDialect.h - The pit dialect ---------------------------*- C++ -*-===//

#ifndef PIT_DIALECT_PIT_IR_PITDIALECT_H
#define PIT_DIALECT_PIT_IR_PITDIALECT_H

#include "mlir/IR/Dialect.h"

#include "PIT/Dialect/PIT/IR/PITDialect.h.inc"

#endif // PIT_DIALECT_PIT_IR_PITDIALECT_H
