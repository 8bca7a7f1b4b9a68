//===- Passes.h - Conversions out of the pit dialect ------------*- C++ -*-===//

#ifndef PIT_CONVERSION_PASSES_H
#define PIT_CONVERSION_PASSES_H

#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pit {

#define GEN_PASS_DECL
#include "PIT/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "PIT/Conversion/Passes.h.inc"

} // namespace mlir::pit

#endif // PIT_CONVERSION_PASSES_H
