//===- SimtLinalg.cpp - linalg ops spread over a launch's threads ---------===//

#include "SimtLinalg.h"

#include "PIT/Conversion/TileTransfer.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::pit;

Threads mlir::pit::gridThreads(OpBuilder &b, Location loc,
                               gpu::LaunchOp launch) {
  Value blockSize = launch.getBlockSizeX();
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, blockSize),
      launch.getThreadIds().x);
  Value stride = arith::MulIOp::create(b, loc, launch.getGridSizeX(), blockSize);
  return {first, stride};
}

Threads mlir::pit::blockThreads(gpu::LaunchOp launch) {
  return {launch.getThreadIds().x, launch.getBlockSizeX()};
}

void mlir::pit::buildStridedLoops(
    OpBuilder &b, Location loc, ArrayRef<Value> extents, Threads threads,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  Value total = constantIndex(b, loc, 1);
  for (Value extent : extents)
    total = arith::MulIOp::create(b, loc, total, extent);
  scf::ForOp::create(
      b, loc, threads.first, total, threads.stride, ValueRange{},
      [&](OpBuilder &b, Location loc, Value linear, ValueRange) {
        SmallVector<Value> ivs(extents.size());
        Value rest = linear;
        for (int64_t dim = extents.size() - 1; dim >= 0; --dim) {
          ivs[dim] = arith::RemUIOp::create(b, loc, rest, extents[dim]);
          rest = arith::DivUIOp::create(b, loc, rest, extents[dim]);
        }
        body(b, loc, ivs);
        scf::YieldOp::create(b, loc);
      });
}

std::optional<int64_t>
mlir::pit::getStaticIterationPoints(linalg::LinalgOp op) {
  int64_t points = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    points *= range;
  }
  return points;
}

namespace {

/// Where `operand` is read or written at the loop point `ivs`: its indexing
/// map applied to them, whatever affine expressions it holds.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, linalg::LinalgOp op,
                             OpOperand &operand, ArrayRef<Value> ivs) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  return llvm::to_vector(*affine::expandAffineMap(b, loc, map, ivs));
}

/// The value of an input at `ivs`: a load, or the scalar itself.
Value loadInput(OpBuilder &b, Location loc, linalg::LinalgOp op,
                OpOperand &input, ArrayRef<Value> ivs) {
  if (!isa<MemRefType>(input.get().getType()))
    return input.get();
  return memref::LoadOp::create(b, loc, input.get(),
                                indicesAt(b, loc, op, input, ivs));
}

SmallVector<Value> loadOutputs(OpBuilder &b, Location loc, linalg::LinalgOp op,
                               ArrayRef<Value> ivs) {
  SmallVector<Value> values;
  for (OpOperand &init : op.getDpsInitsMutable())
    values.push_back(memref::LoadOp::create(
        b, loc, init.get(), indicesAt(b, loc, op, init, ivs)));
  return values;
}

void storeOutputs(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  ValueRange values, ArrayRef<Value> ivs) {
  for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), values))
    memref::StoreOp::create(b, loc, value, init.get(),
                            indicesAt(b, loc, op, init, ivs));
}

/// One evaluation of the body at `ivs` with the outputs' current values
/// `outputs`; returns what it yields.
SmallVector<Value> evaluateBody(OpBuilder &b, Location loc,
                                linalg::LinalgOp op, ArrayRef<Value> ivs,
                                ValueRange outputs) {
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands())
    mapping.map(op.getMatchingBlockArgument(input),
                loadInput(b, loc, op, *input, ivs));
  mapping.map(op.getRegionOutputArgs(), outputs);
  Block *body = op.getBlock();
  SmallVector<Operation *> cloned;
  for (Operation &bodyOp : body->without_terminator())
    cloned.push_back(b.clone(bodyOp, mapping));
  // linalg.index, also in nested regions, is the loop's induction variable.
  for (Operation *clone : cloned)
    clone->walk([&](linalg::IndexOp index) {
      index.replaceAllUsesWith(ivs[index.getDim()]);
      index.erase();
    });
  return llvm::map_to_vector(body->getTerminator()->getOperands(),
                             [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// Whether every output element belongs to exactly one point of the
/// parallel loops: each output is indexed by a permutation of all of them.
bool outputsOwnedByParallelPoints(linalg::LinalgOp op,
                                  ArrayRef<unsigned> parallel) {
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    return map.isProjectedPermutation(/*allowZeroInResults=*/false) &&
           map.getNumResults() == parallel.size() &&
           llvm::all_of(map.getResults(), [&](AffineExpr result) {
             return llvm::is_contained(
                 parallel, cast<AffineDimExpr>(result).getPosition());
           });
  });
}

/// The threads split the parallel points; each runs the reduction loops
/// with the outputs in registers.
void buildParallelNest(OpBuilder &b, Location loc, linalg::LinalgOp op,
                       ArrayRef<Value> extents, Threads threads) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (iterator == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(loop);
  auto pick = [&](ArrayRef<unsigned> loops) {
    return llvm::map_to_vector(loops, [&](unsigned l) { return extents[l]; });
  };
  buildStridedLoops(b, loc, pick(parallel), threads,
                    [&](OpBuilder &b, Location loc, ValueRange parallelIvs) {
    SmallVector<Value> ivs(extents.size());
    for (auto [loop, iv] : llvm::zip(parallel, parallelIvs))
      ivs[loop] = iv;
    SmallVector<Value> values = loadOutputs(b, loc, op, ivs);
    if (reduction.empty()) {
      values = evaluateBody(b, loc, op, ivs, values);
    } else {
      Value zero = constantIndex(b, loc, 0), one = constantIndex(b, loc, 1);
      scf::LoopNest nest = scf::buildLoopNest(
          b, loc, SmallVector<Value>(reduction.size(), zero), pick(reduction),
          SmallVector<Value>(reduction.size(), one), values,
          [&](OpBuilder &b, Location loc, ValueRange reductionIvs,
              ValueRange carried) {
            for (auto [loop, iv] : llvm::zip(reduction, reductionIvs))
              ivs[loop] = iv;
            return evaluateBody(b, loc, op, ivs, carried);
          });
      values = nest.results;
    }
    storeOutputs(b, loc, op, values, ivs);
  });
}

/// The first thread runs every point in the op's loop order, reading and
/// writing the outputs at each.
void buildSerialNest(OpBuilder &b, Location loc, linalg::LinalgOp op,
                     ArrayRef<Value> extents, Threads threads) {
  Value zero = constantIndex(b, loc, 0), one = constantIndex(b, loc, 1);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threads.first, zero);
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &b, Location loc) {
    scf::buildLoopNest(b, loc, SmallVector<Value>(extents.size(), zero),
                       extents, SmallVector<Value>(extents.size(), one),
                       [&](OpBuilder &b, Location loc, ValueRange ivs) {
      SmallVector<Value> point(ivs);
      storeOutputs(b, loc, op,
                   evaluateBody(b, loc, op, point,
                                loadOutputs(b, loc, op, point)),
                   point);
    });
    scf::YieldOp::create(b, loc);
  });
}

} // namespace

void mlir::pit::lowerLinalgToThreads(RewriterBase &rewriter,
                                     linalg::LinalgOp op, Threads threads) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  // Static extents as constants, dynamic ones read from the operands.
  SmallVector<Value> extents = llvm::map_to_vector(
      op.createLoopRanges(b, loc), [&](const Range &range) {
        return getValueOrCreateConstantIndexOp(b, loc, range.size);
      });
  SmallVector<unsigned> parallel;
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(loop);
  if (outputsOwnedByParallelPoints(op, parallel))
    buildParallelNest(b, loc, op, extents, threads);
  else
    buildSerialNest(b, loc, op, extents, threads);
  rewriter.eraseOp(op);
}
