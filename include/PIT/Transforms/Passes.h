//===- Passes.h - pit-level passes ------------------------------*- C++ -*-===//

#ifndef PIT_TRANSFORMS_PASSES_H
#define PIT_TRANSFORMS_PASSES_H

#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pit {

#define GEN_PASS_DECL
#include "PIT/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "PIT/Transforms/Passes.h.inc"

} // namespace mlir::pit

#endif // PIT_TRANSFORMS_PASSES_H
