//===- PITToSCF.cpp - Lower pit ops to loops for the CPU ------------------===//

#include "PIT/Conversion/Detection.h"
#include "PIT/Conversion/Passes.h"
#include "PIT/Conversion/Selection.h"
#include "PIT/Conversion/TileTransfer.h"
#include "PIT/Dialect/PIT/IR/PITCombiner.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_CONVERTPITTOSCF
#include "PIT/Conversion/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// A loop nest over every index of `extents`, one unit step each.
void buildElementLoops(OpBuilder &b, Location loc, ArrayRef<Value> extents,
                       function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  Value zero = constantIndex(b, loc, 0), one = constantIndex(b, loc, 1);
  SmallVector<Value> zeros(extents.size(), zero), ones(extents.size(), one);
  scf::buildLoopNest(b, loc, zeros, extents, ones, body);
}


//===----------------------------------------------------------------------===//
// pit.detect and pit.count
//===----------------------------------------------------------------------===//

void lowerScan(RewriterBase &rewriter, const MicroTileScan &scan) {
  Location loc = scan.op->getLoc();
  rewriter.setInsertionPoint(scan.op);
  OpBuilder &b = rewriter;
  Value one = constantIndex(b, loc, 1);
  SmallVector<Value> shape = getMemRefExtents(b, loc, scan.source);
  SmallVector<Value> grid, micro;
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    micro.push_back(constantIndex(b, loc, scan.microTile[dim]));
    grid.push_back(arith::DivUIOp::create(b, loc, extent, micro.back()));
  }

  // The sampled segments, from the source's extents (the counts may be
  // dynamic): ceil(segments / every).
  Value every = constantIndex(b, loc, scan.every);
  Value segments = one;
  for (auto [dim, extent] : llvm::enumerate(grid))
    if (static_cast<int64_t>(dim) != scan.axis)
      segments = arith::MulIOp::create(b, loc, segments, extent);
  Value sampled = arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, segments, every), one),
      every);

  // counts[i] = 0 for every sampled segment.
  Value zeroI32 = arith::ConstantIntOp::create(b, loc, 0, 32);
  buildElementLoops(b, loc, {sampled},
                    [&](OpBuilder &b, Location loc, ValueRange ivs) {
                      memref::StoreOp::create(b, loc, zeroI32, scan.counts,
                                              ivs);
                    });

  buildElementLoops(b, loc, {sampled, grid[scan.axis]},
                    [&](OpBuilder &b, Location loc, ValueRange ivs) {
    // Walk the candidates of a segment in descending order: the index is
    // unordered by contract, and the consumers must not notice.
    Value last = arith::SubIOp::create(b, loc, grid[scan.axis], one);
    Value position = arith::SubIOp::create(b, loc, last, ivs[1]);
    Value segment = arith::MulIOp::create(b, loc, ivs[0], every);
    SmallVector<Value> origin =
        buildMicroTileOrigin(b, loc, scan, grid, segment, position);
    Value hasNonZero =
        buildMicroTileHasNonZero(b, loc, scan.source, origin, micro);
    scf::IfOp::create(b, loc, hasNonZero, [&](OpBuilder &b, Location loc) {
      Value count = memref::LoadOp::create(b, loc, scan.counts, ivs[0]);
      if (scan.positions) {
        Value slot =
            arith::IndexCastOp::create(b, loc, b.getIndexType(), count);
        Value position32 =
            arith::IndexCastOp::create(b, loc, b.getI32Type(), position);
        memref::StoreOp::create(b, loc, position32, scan.positions,
                                ValueRange{segment, slot});
      }
      Value oneI32 = arith::ConstantIntOp::create(b, loc, 1, 32);
      memref::StoreOp::create(b, loc,
                              arith::AddIOp::create(b, loc, count, oneI32),
                              scan.counts, ivs[0]);
      scf::YieldOp::create(b, loc);
    });
  });
  rewriter.eraseOp(scan.op);
}

//===----------------------------------------------------------------------===//
// pit.stile
//===----------------------------------------------------------------------===//

void lowerSTile(RewriterBase &rewriter, STileOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  ArrayRef<int64_t> domain = op.getDomain(), tile = op.getTile(),
                    microTile = op.getMicroTile();
  AffineMap map = op.getSparseMap();
  unsigned pitLoop = op.getPitAxis(), sparseAxis = op.getSparseAxis();
  Value zero = constantIndex(b, loc, 0), one = constantIndex(b, loc, 1);

  // Tiles run one after the other on the CPU, so every statically shaped
  // tile buffer of the body is allocated once, before the loops, instead of
  // once per tile on a stack that would grow with the number of tiles.
  IRMapping hoisted;
  bool keepsAllocas = false;
  for (Operation &bodyOp : op.getBody().front().without_terminator()) {
    auto alloca = dyn_cast<memref::AllocaOp>(bodyOp);
    if (alloca && alloca->getNumOperands() == 0)
      b.clone(bodyOp, hoisted);
    else
      keepsAllocas |= bodyOp.walk([](memref::AllocaOp) {
                              return WalkResult::interrupt();
                            }).wasInterrupted();
  }

  scf::buildLoopNest(b, loc, zero, constantIndex(b, loc, op.getNumSegments()),
                     one, [&](OpBuilder &b, Location loc, ValueRange ivs) {
    Value segment = ivs.front();
    Value count32 = memref::LoadOp::create(b, loc, op.getCounts(), segment);
    Value count = arith::IndexCastOp::create(b, loc, b.getIndexType(), count32);

    // The segment's coordinate along every other dimension of the sparse
    // operand, row-major as pit.detect numbers segments.
    SmallVector<Value> origins(op.getNumLoops());
    Value rest = segment;
    for (int64_t result = map.getNumResults() - 1; result >= 0; --result) {
      if (result == sparseAxis)
        continue;
      unsigned loop = map.getDimPosition(result);
      Value gridExtent =
          constantIndex(b, loc, domain[loop] / microTile[result]);
      Value coordinate = arith::RemUIOp::create(b, loc, rest, gridExtent);
      rest = arith::DivUIOp::create(b, loc, rest, gridExtent);
      origins[loop] = arith::MulIOp::create(
          b, loc, coordinate, constantIndex(b, loc, microTile[result]));
    }

    // Loops over the tiles of the remaining loops; the PIT loop covers the
    // compacted extent count * micro.
    SmallVector<unsigned> tiledLoops;
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned loop = 0; loop < op.getNumLoops(); ++loop) {
      if (origins[loop])
        continue;
      tiledLoops.push_back(loop);
      lbs.push_back(zero);
      steps.push_back(constantIndex(b, loc, tile[loop]));
      ubs.push_back(loop == pitLoop
                        ? Value(arith::MulIOp::create(
                              b, loc, count,
                              constantIndex(b, loc, microTile[sparseAxis])))
                        : constantIndex(b, loc, domain[loop]));
    }
    scf::buildLoopNest(b, loc, lbs, ubs, steps,
                       [&](OpBuilder &b, Location loc, ValueRange tileIvs) {
      for (auto [loop, iv] : llvm::zip(tiledLoops, tileIvs))
        origins[loop] = iv;
      // Allocations the body keeps are scoped to one tile.
      if (keepsAllocas) {
        auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange{});
        b.setInsertionPointToStart(b.createBlock(&scope.getBodyRegion()));
        memref::AllocaScopeReturnOp::create(b, loc);
        b.setInsertionPointToStart(&scope.getBodyRegion().front());
      }
      IRMapping mapping = hoisted;
      for (unsigned loop = 0; loop < op.getNumLoops(); ++loop)
        mapping.map(op.getTileOrigin(loop), origins[loop]);
      mapping.map(op.getSegment(), segment);
      for (Operation &bodyOp : op.getBody().front().without_terminator()) {
        bool isHoisted = isa<memref::AllocaOp>(bodyOp) &&
                         hoisted.contains(bodyOp.getResult(0));
        if (!isHoisted)
          b.clone(bodyOp, mapping);
      }
    });
  });
  rewriter.eraseOp(op);
}

//===----------------------------------------------------------------------===//
// pit.sread / pit.swrite
//===----------------------------------------------------------------------===//

struct ConvertPITToSCFPass
    : public pit::impl::ConvertPITToSCFBase<ConvertPITToSCFPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Tiles first: their bodies hold the reads and writes lowered next.
    SmallVector<STileOp> stiles;
    getOperation()->walk<WalkOrder::PreOrder>([&](STileOp op) {
      stiles.push_back(op);
      return WalkResult::skip();
    });
    for (STileOp op : stiles)
      lowerSTile(rewriter, op);
    getOperation()->walk([&](Operation *op) {
      if (auto detect = dyn_cast<DetectOp>(op))
        lowerScan(rewriter, MicroTileScan::of(detect));
      else if (auto count = dyn_cast<CountOp>(op))
        lowerScan(rewriter, MicroTileScan::of(count));
      else if (auto read = dyn_cast<SReadOp>(op))
        lowerSReadToElements(rewriter, read, buildElementLoops);
      else if (auto write = dyn_cast<SWriteOp>(op))
        lowerSWriteToElements(rewriter, write, buildElementLoops,
                              CombineWrite::ReadModifyWrite);
      else if (auto select = dyn_cast<SelectOp>(op)) {
        // The counts are host memory already; variants that share an
        // index share its total.
        rewriter.setInsertionPoint(select);
        llvm::DenseMap<Value, Value> totalOf;
        SmallVector<Value> totals;
        for (Value counts : select.getCounts()) {
          Value &total = totalOf[counts];
          if (!total)
            total = buildCountTotal(rewriter, select.getLoc(), counts);
          totals.push_back(total);
        }
        rewriter.replaceOp(select, buildVariantChoice(rewriter, select.getLoc(),
                                                      select, totals));
      }
    });
  }
};

} // namespace
