//===- PITCombiner.cpp - Arithmetic of pit combiners ----------------------===//

#include "PIT/Dialect/PIT/IR/PITCombiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::pit;

TypedAttr mlir::pit::getCombinerIdentity(CombinerKind kind, Type type) {
  Builder b(type.getContext());
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case CombinerKind::Add:
      return b.getFloatAttr(type, 0.0);
    case CombinerKind::Mul:
      return b.getFloatAttr(type, 1.0);
    case CombinerKind::MaximumF:
      return b.getFloatAttr(type, APFloat::getInf(semantics, /*Negative=*/true));
    case CombinerKind::MinimumF:
      return b.getFloatAttr(type, APFloat::getInf(semantics, /*Negative=*/false));
    default:
      return {};
    }
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return {};
  unsigned width = intType.getWidth();
  switch (kind) {
  case CombinerKind::Add:
  case CombinerKind::OrI:
  case CombinerKind::XOrI:
  case CombinerKind::MaxUI:
    return b.getIntegerAttr(type, APInt::getZero(width));
  case CombinerKind::Mul:
    return b.getIntegerAttr(type, APInt(width, 1));
  case CombinerKind::AndI:
  case CombinerKind::MinUI:
    return b.getIntegerAttr(type, APInt::getAllOnes(width));
  case CombinerKind::MaxSI:
    return b.getIntegerAttr(type, APInt::getSignedMinValue(width));
  case CombinerKind::MinSI:
    return b.getIntegerAttr(type, APInt::getSignedMaxValue(width));
  default:
    return {};
  }
}

Value mlir::pit::buildCombine(OpBuilder &b, Location loc, CombinerKind kind,
                              Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case CombinerKind::Add:
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case CombinerKind::Mul:
    return isFloat ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MulIOp::create(b, loc, lhs, rhs));
  case CombinerKind::MaxSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case CombinerKind::MinSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case CombinerKind::MaxUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case CombinerKind::MinUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case CombinerKind::MaximumF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  case CombinerKind::MinimumF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case CombinerKind::AndI:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case CombinerKind::OrI:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case CombinerKind::XOrI:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown combiner kind");
}
