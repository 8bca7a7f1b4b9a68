//===- Selection.cpp - Evaluating pit.select ------------------------------===//

#include "PIT/Conversion/Selection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::pit;

Value mlir::pit::buildCountTotal(OpBuilder &b, Location loc, Value counts) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value size = memref::DimOp::create(b, loc, counts, 0);
  Value start = arith::ConstantIntOp::create(b, loc, 0, 64);
  auto loop = scf::ForOp::create(
      b, loc, zero, size, one, ValueRange{start},
      [&](OpBuilder &b, Location loc, Value segment, ValueRange total) {
        Value count = memref::LoadOp::create(b, loc, counts, segment);
        Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), count);
        scf::YieldOp::create(
            b, loc, ValueRange{arith::AddIOp::create(b, loc, total[0], wide)});
      });
  return arith::UIToFPOp::create(b, loc, b.getF64Type(), loop.getResult(0));
}

/// The latency at `coverage`, interpolated linearly between the table's
/// points and held at its ends.
static Value buildInterpolation(OpBuilder &b, Location loc, Value coverage,
                                ArrayRef<double> points,
                                ArrayRef<double> latencies) {
  auto f64 = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  };
  Value latency = f64(latencies.front());
  Value zero = f64(0.0), one = f64(1.0);
  for (size_t j = 1; j < points.size(); ++j) {
    // On segment j, t = (coverage - p[j-1]) / (p[j] - p[j-1]), clamped to
    // [0, 1]; segments are visited in increasing order, so the last one
    // that coverage passes the start of wins.
    Value t = arith::DivFOp::create(
        b, loc, arith::SubFOp::create(b, loc, coverage, f64(points[j - 1])),
        f64(points[j] - points[j - 1]));
    t = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, t, zero),
                                  one);
    Value value = arith::AddFOp::create(
        b, loc, f64(latencies[j - 1]),
        arith::MulFOp::create(b, loc, t, f64(latencies[j] - latencies[j - 1])));
    Value past = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                       coverage, f64(points[j - 1]));
    latency = arith::SelectOp::create(b, loc, past, value, latency);
  }
  return latency;
}

Value mlir::pit::buildVariantChoice(OpBuilder &b, Location loc, SelectOp op,
                                    ValueRange totals,
                                    ArrayRef<double> overheads) {
  assert((overheads.empty() ||
          overheads.size() == static_cast<size_t>(op.getNumVariants()) + 1) &&
         "an overhead for each variant and dense");
  auto overheadOf = [&](size_t variant) {
    return overheads.empty() ? 0.0 : overheads[variant];
  };
  auto tableOf = [](ArrayAttr tables, size_t variant) {
    return cast<DenseF64ArrayAttr>(tables[variant]).asArrayRef();
  };
  Value best, bestLatency;
  // Dense's estimate: the least of its tables at each variant's coverage.
  Value dense;
  for (auto [variant, total] : llvm::enumerate(totals)) {
    int64_t segments =
        cast<MemRefType>(op.getCounts()[variant].getType()).getDimSize(0);
    double candidates =
        static_cast<double>(segments) * op.getCapacities()[variant];
    Value coverage = arith::DivFOp::create(
        b, loc, total,
        arith::ConstantOp::create(b, loc, b.getF64FloatAttr(candidates)));
    if (ArrayAttr denseTables = op.getDenseLatenciesAttr()) {
      Value estimate = buildInterpolation(b, loc, coverage, op.getCoverage(),
                                          tableOf(denseTables, variant));
      dense = dense ? arith::MinimumFOp::create(b, loc, dense, estimate)
                          .getResult()
                    : estimate;
    }
    Value latency = buildInterpolation(b, loc, coverage, op.getCoverage(),
                                       tableOf(op.getLatencies(), variant));
    if (double overhead = overheadOf(variant))
      latency = arith::AddFOp::create(
          b, loc, latency,
          arith::ConstantOp::create(b, loc, b.getF64FloatAttr(overhead)));
    Value number = arith::ConstantIndexOp::create(b, loc, variant);
    if (!best) {
      best = number;
      bestLatency = latency;
      continue;
    }
    Value lower = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                        latency, bestLatency);
    best = arith::SelectOp::create(b, loc, lower, number, best);
    bestLatency = arith::SelectOp::create(b, loc, lower, latency, bestLatency);
  }
  double denseOverhead = overheadOf(op.getNumVariants());
  if (!dense)
    dense = arith::ConstantOp::create(
        b, loc,
        b.getF64FloatAttr(op.getDense().convertToDouble() + denseOverhead));
  else if (denseOverhead)
    dense = arith::AddFOp::create(
        b, loc, dense,
        arith::ConstantOp::create(b, loc, b.getF64FloatAttr(denseOverhead)));
  Value denseLower = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                           dense, bestLatency);
  return arith::SelectOp::create(
      b, loc, denseLower,
      arith::ConstantIndexOp::create(b, loc, op.getNumVariants()), best);
}
