//===- DecomposeAggregatedOps.cpp - linalg.softmax into generics ----------===//

#include "PIT/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITDECOMPOSEAGGREGATEDOPS
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// A linalg.generic over `inputs` into `output` with `maps` and
/// `iterators`, whose body yields `body(inputs' and output's elements)`.
void buildGeneric(RewriterBase &rewriter, Location loc, ValueRange inputs,
                  Value output, ArrayRef<AffineMap> maps,
                  ArrayRef<utils::IteratorType> iterators,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  linalg::GenericOp::create(
      rewriter, loc, inputs, ValueRange{output}, maps, iterators,
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
        linalg::YieldOp::create(b, bodyLoc, body(b, bodyLoc, args));
      });
}

/// linalg.softmax on buffers, in the steps of upstream's decomposition on
/// tensors: the maximum along the op's dimension, y = exp(x - max), the
/// sum of y along it, y / sum; the maximum and the sum in buffers of the
/// reduced shape, which the pipelines free (pit-free-temporaries: a
/// dealloc of our own would make the function one that manages its memory,
/// and none of its other temporaries would be freed).
void decomposeSoftmaxOnBuffers(RewriterBase &rewriter, linalg::SoftmaxOp op) {
  Location loc = op.getLoc();
  Value x = op.getInput(), y = op.getOutput();
  auto type = cast<MemRefType>(x.getType());
  int64_t dimension = op.getDimension();
  SmallVector<int64_t> reducedShape;
  SmallVector<Value> dynamicSizes;
  for (auto [i, extent] : llvm::enumerate(type.getShape())) {
    if (int64_t(i) == dimension)
      continue;
    reducedShape.push_back(extent);
    if (ShapedType::isDynamic(extent))
      dynamicSizes.push_back(memref::DimOp::create(rewriter, loc, x, i));
  }
  Type elementType = type.getElementType();
  auto reducedType = MemRefType::get(reducedShape, elementType);
  Value max = memref::AllocOp::create(rewriter, loc, reducedType, dynamicSizes);
  Value sum = memref::AllocOp::create(rewriter, loc, reducedType, dynamicSizes);
  auto floatType = cast<FloatType>(elementType);
  Value lowest = arith::ConstantOp::create(
      rewriter, loc,
      rewriter.getFloatAttr(floatType,
                            APFloat::getInf(floatType.getFloatSemantics(),
                                            /*Negative=*/true)));
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getZeroAttr(elementType));
  linalg::FillOp::create(rewriter, loc, lowest, max);
  linalg::FillOp::create(rewriter, loc, zero, sum);

  int64_t rank = type.getRank();
  AffineMap all = rewriter.getMultiDimIdentityMap(rank);
  AffineMap reduced = all.dropResult(dimension);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> reduction = parallel;
  reduction[dimension] = utils::IteratorType::reduction;
  buildGeneric(rewriter, loc, x, max, {all, reduced}, reduction,
               [](OpBuilder &b, Location l, ValueRange args) -> Value {
                 return arith::MaxNumFOp::create(b, l, args[0], args[1]);
               });
  buildGeneric(rewriter, loc, {x, max}, y, {all, reduced, all}, parallel,
               [](OpBuilder &b, Location l, ValueRange args) -> Value {
                 Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
                 return math::ExpOp::create(b, l, shifted);
               });
  buildGeneric(rewriter, loc, y, sum, {all, reduced}, reduction,
               [](OpBuilder &b, Location l, ValueRange args) -> Value {
                 return arith::AddFOp::create(b, l, args[0], args[1]);
               });
  buildGeneric(rewriter, loc, sum, y, {reduced, all}, parallel,
               [](OpBuilder &b, Location l, ValueRange args) -> Value {
                 return arith::DivFOp::create(b, l, args[1], args[0]);
               });
  rewriter.eraseOp(op);
}

struct PITDecomposeAggregatedOpsPass
    : public pit::impl::PITDecomposeAggregatedOpsBase<
          PITDecomposeAggregatedOpsPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      // Upstream's decompositions build tensor.empty and results: they
      // take tensors only. Softmax on buffers has one of PIT's.
      rewriter.setInsertionPoint(op);
      auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
      auto softmax = dyn_cast<linalg::SoftmaxOp>(op.getOperation());
      if (softmax && softmax.hasPureBufferSemantics()) {
        decomposeSoftmaxOnBuffers(rewriter, softmax);
        continue;
      }
      if (!dps || !dps.hasPureTensorSemantics()) {
        op->emitRemark("left alone: aggregated ops other than linalg.softmax "
                       "are decomposed on tensors only; run the pipeline on "
                       "the program before bufferization");
        continue;
      }
      FailureOr<SmallVector<Value>> results =
          op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitRemark("left alone: its decomposition failed");
        continue;
      }
      rewriter.replaceOp(op, *results);
    }
  }
};

} // namespace
