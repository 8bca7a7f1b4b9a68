//===- Detection.cpp - Scanning micro-tiles for non-zeros -----------------===//

#include "PIT/Conversion/Detection.h"

#include "PIT/Conversion/TileTransfer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

Value mlir::pit::buildMicroTileHasNonZero(OpBuilder &b, Location loc,
                                          Value source, ValueRange origin,
                                          ValueRange microExtents) {
  Value zero = constantIndex(b, loc, 0), one = constantIndex(b, loc, 1);
  SmallVector<Value> zeros(microExtents.size(), zero),
      ones(microExtents.size(), one);
  Value falseValue = arith::ConstantIntOp::create(b, loc, 0, 1);
  scf::LoopNest elements = scf::buildLoopNest(
      b, loc, zeros, microExtents, ones, ValueRange{falseValue},
      [&](OpBuilder &b, Location loc, ValueRange ivs, ValueRange anyNonZero) {
        SmallVector<Value> indices;
        for (auto [start, iv] : llvm::zip(origin, ivs))
          indices.push_back(arith::AddIOp::create(b, loc, start, iv));
        Value value = memref::LoadOp::create(b, loc, source, indices);
        Value zeroValue =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType()));
        Value nonZero =
            isa<FloatType>(value.getType())
                ? Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                              value, zeroValue))
                : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              value, zeroValue));
        return scf::ValueVector{
            arith::OrIOp::create(b, loc, anyNonZero.front(), nonZero)};
      });
  return elements.results.front();
}

SmallVector<Value> mlir::pit::buildMicroTileOrigin(OpBuilder &b, Location loc,
                                                   const MicroTileScan &scan,
                                                   ArrayRef<Value> grid,
                                                   Value segment,
                                                   Value position) {
  int64_t rank = scan.microTile.size();
  SmallVector<Value> origin(rank);
  Value rest = segment;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    Value coordinate = position;
    if (dim != scan.axis) {
      coordinate = arith::RemUIOp::create(b, loc, rest, grid[dim]);
      rest = arith::DivUIOp::create(b, loc, rest, grid[dim]);
    }
    origin[dim] = arith::MulIOp::create(
        b, loc, coordinate, constantIndex(b, loc, scan.microTile[dim]));
  }
  return origin;
}
