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

#endif // PIT_DIALECT_PIT_IR_PITOPS_H
