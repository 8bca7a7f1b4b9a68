//===- ScanToGPU.cpp - pit.detect and pit.count as scanning kernels -------===//
//
// The micro-tile scans: a memset clears the counts, and a kernel scans the
// tensor once, claiming a slot of its segment for each micro-tile that holds
// a non-zero (VectorDetection.cpp builds the 16-byte-load form; this file
// the element form and the patterns).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "SimtLinalg.h"
#include "VectorDetection.h"

#include "PIT/Conversion/Detection.h"
#include "PIT/Conversion/PITToGPU.h"
#include "PIT/Conversion/TileTransfer.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// `compactedCopy`: where the scan also writes the non-zero micro-tiles, for
/// a tensor-core STile that reads them (or null).
LogicalResult lowerScan(RewriterBase &rewriter, const MicroTileScan &scan,
                        int64_t blockSize, Value compactedCopy) {
  auto sourceType = cast<MemRefType>(scan.source.getType());
  if (!sourceType.hasStaticShape())
    return scan.op->emitOpError("the GPU lowering needs a static shape, got ")
           << sourceType;
  Location loc = scan.op->getLoc();
  rewriter.setInsertionPoint(scan.op);
  OpBuilder &b = rewriter;

  // Clear the counts: a memset on the stream, no kernel to launch.
  gpu::MemsetOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                        scan.counts,
                        arith::ConstantIntOp::create(b, loc, 0, 32));

  // 16-byte loads where the shapes allow; otherwise one thread per
  // micro-tile scans it, and if it holds a non-zero, claims a slot in its
  // segment. Slots come in whatever order the atomics land.
  if (succeeded(buildVectorizedDetection(b, loc, scan, blockSize,
                                         compactedCopy))) {
    rewriter.eraseOp(scan.op);
    return success();
  }
  if (compactedCopy)
    return scan.op->emitOpError("the scan cannot write the compacted copy "
                                "that the tensor-core STile reads");
  SmallVector<Value> grid, micro;
  for (auto [extent, microExtent] :
       llvm::zip(sourceType.getShape(), scan.microTile)) {
    grid.push_back(constantIndex(b, loc, extent / microExtent));
    micro.push_back(constantIndex(b, loc, microExtent));
  }
  // From the source, static here (the counts may be dynamic).
  auto [segments, capacity] = getSegmentsAndCapacity(
      sourceType.getShape(), scan.microTile, scan.axis);
  int64_t sampled = getNumSampledSegments(segments, scan.every);
  gpu::LaunchOp launch = createLaunch(
      b, loc, llvm::divideCeilSigned(sampled * capacity, blockSize), blockSize);
  Value every = constantIndex(b, loc, scan.every);
  buildStridedLoops(
      b, loc, {constantIndex(b, loc, sampled), grid[scan.axis]},
      gridThreads(b, loc, launch),
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Value segment = arith::MulIOp::create(b, loc, ivs[0], every);
        SmallVector<Value> origin =
            buildMicroTileOrigin(b, loc, scan, grid, segment, ivs[1]);
        Value hasNonZero =
            buildMicroTileHasNonZero(b, loc, scan.source, origin, micro);
        scf::IfOp::create(b, loc, hasNonZero, [&](OpBuilder &b, Location loc) {
          Value oneI32 = arith::ConstantIntOp::create(b, loc, 1, 32);
          Value slot32 = memref::AtomicRMWOp::create(
              b, loc, arith::AtomicRMWKind::addi, oneI32, scan.counts,
              ValueRange{ivs[0]});
          if (scan.positions) {
            Value slot =
                arith::IndexCastOp::create(b, loc, b.getIndexType(), slot32);
            Value position =
                arith::IndexCastOp::create(b, loc, b.getI32Type(), ivs[1]);
            memref::StoreOp::create(b, loc, position, scan.positions,
                                    ValueRange{segment, slot});
          }
          scf::YieldOp::create(b, loc);
        });
      });
  rewriter.eraseOp(scan.op);
  return success();
}


/// pit.detect or pit.count; a detection writes the compacted copy of its
/// source that stage 1 allocated for a tensor-core STile, if there is one.
template <typename ScanOp>
struct MicroTileScanToGPU : OpRewritePattern<ScanOp> {
  MicroTileScanToGPU(MLIRContext *context, int64_t blockSize,
                     const PITToGPUState &state)
      : OpRewritePattern<ScanOp>(context), blockSize(blockSize), state(state) {}

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    return lowerScan(rewriter, MicroTileScan::of(op), blockSize,
                     state.compactedCopies.lookup(op.getOperation()));
  }

  int64_t blockSize;
  const PITToGPUState &state;
};

} // namespace

void mlir::pit::populateMicroTileScanPatterns(RewritePatternSet &patterns,
                                              int64_t threadsPerBlock,
                                              const PITToGPUState &state) {
  patterns.add<MicroTileScanToGPU<DetectOp>, MicroTileScanToGPU<CountOp>>(
      patterns.getContext(), threadsPerBlock, state);
}
