//===- KernelBuilder.h - Index arithmetic for GPU kernels -------*- C++ -*-===//
//
// Short builders for the index arithmetic of the hand-built GPU kernels of
// convert-pit-to-gpu (tensor-core STiles, detection).
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_KERNELBUILDER_H
#define PIT_LIB_CONVERSION_PITTOGPU_KERNELBUILDER_H

#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// Index arithmetic at one insertion point.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, int64_t y);
  Value rem(Value x, int64_t y);
  Value ult(Value x, Value y);
};

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_KERNELBUILDER_H
