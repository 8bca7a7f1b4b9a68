//===- KernelBuilder.cpp - Index arithmetic for GPU kernels ---------------===//

#include "KernelBuilder.h"

#include "PIT/Conversion/TileTransfer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::pit;

Value KernelBuilder::index(int64_t value) {
  return constantIndex(b, loc, value);
}
Value KernelBuilder::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value KernelBuilder::div(Value x, int64_t y) {
  return arith::DivUIOp::create(b, loc, x, index(y));
}
Value KernelBuilder::rem(Value x, int64_t y) {
  return arith::RemUIOp::create(b, loc, x, index(y));
}
Value KernelBuilder::ult(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
}
