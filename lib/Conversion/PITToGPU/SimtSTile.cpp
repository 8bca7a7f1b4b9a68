//===- SimtSTile.cpp - pit.stile as a SIMT kernel -------------------------===//
//
// The lowering every STile has: one block per tile, the body's tile buffers
// in shared memory, its reads, writes and linalg ops spread over the block's
// threads element by element with a barrier after each. The tensor-core
// patterns outrank it where they match.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "SimtLinalg.h"

#include "PIT/Conversion/PITToGPU.h"
#include "PIT/Conversion/TileTransfer.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The STile body's statically shaped buffers, which become the block's
/// shared memory (`sharedTypes`), or an error where they cannot.
LogicalResult collectTileBuffers(STileOp op,
                                 SmallVectorImpl<memref::AllocaOp> &tileBuffers,
                                 SmallVectorImpl<Type> &sharedTypes) {
  int64_t sharedBytes = 0;
  auto workgroup = gpu::AddressSpaceAttr::get(op.getContext(),
                                              gpu::AddressSpace::Workgroup);
  for (Operation &bodyOp : op.getBody().front().without_terminator()) {
    auto alloca = dyn_cast<memref::AllocaOp>(bodyOp);
    if (!alloca)
      continue;
    MemRefType type = alloca.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return alloca.emitOpError("the GPU lowering needs tile buffers of "
                                "static shape and identity layout");
    tileBuffers.push_back(alloca);
    sharedTypes.push_back(MemRefType::get(type.getShape(),
                                          type.getElementType(),
                                          MemRefLayoutAttrInterface(),
                                          workgroup));
    sharedBytes += memrefBytes(type);
  }
  if (sharedBytes > kStaticSharedBytesPerBlock)
    return op.emitOpError("its tile buffers need ")
           << sharedBytes << " bytes of shared memory, more than "
           << kStaticSharedBytesPerBlock << "; choose smaller tiles";
  return success();
}

LogicalResult lowerSTile(RewriterBase &rewriter, STileOp op,
                         int64_t blockSize) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> domain = op.getDomain(), tile = op.getTile(),
                    microTile = op.getMicroTile();
  AffineMap map = op.getSparseMap();
  unsigned pitLoop = op.getPitAxis(), sparseAxis = op.getSparseAxis();
  int64_t micro = microTile[sparseAxis];

  SmallVector<memref::AllocaOp> tileBuffers;
  SmallVector<Type> sharedTypes;
  if (failed(collectTileBuffers(op, tileBuffers, sharedTypes)))
    return failure();

  // One block per tile: segments x free tiles x the most tiles the
  // compacted loop can hold.
  int64_t maxPitTiles = llvm::divideCeilSigned(domain[pitLoop], tile[pitLoop]);
  SmallVector<unsigned> freeLoops;
  int64_t numBlocks = op.getNumSegments() * maxPitTiles;
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop)
    if (loop != pitLoop &&
        !map.getResultPosition(getAffineDimExpr(loop, op.getContext()))) {
      freeLoops.push_back(loop);
      numBlocks *= domain[loop] / tile[loop];
    }

  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  gpu::LaunchOp launch =
      createLaunch(b, loc, numBlocks, blockSize, sharedTypes);
  Value rest = launch.getBlockIds().x;
  SmallVector<Value> origins(op.getNumLoops());
  auto takeCoordinate = [&](int64_t extent) {
    Value extentValue = constantIndex(b, loc, extent);
    Value coordinate = arith::RemUIOp::create(b, loc, rest, extentValue);
    rest = arith::DivUIOp::create(b, loc, rest, extentValue);
    return coordinate;
  };
  Value pitTile = takeCoordinate(maxPitTiles);
  origins[pitLoop] = arith::MulIOp::create(b, loc, pitTile,
                                           constantIndex(b, loc, tile[pitLoop]));
  for (unsigned loop : llvm::reverse(freeLoops))
    origins[loop] = arith::MulIOp::create(
        b, loc, takeCoordinate(domain[loop] / tile[loop]),
        constantIndex(b, loc, tile[loop]));
  Value segment = rest;

  // Blocks past the segment's count have nothing to do.
  Value count32 = memref::LoadOp::create(b, loc, op.getCounts(), segment);
  Value count = arith::IndexCastOp::create(b, loc, b.getIndexType(), count32);
  Value compacted =
      arith::MulIOp::create(b, loc, count, constantIndex(b, loc, micro));
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     origins[pitLoop], compacted);
  auto ifLive = scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
  b.setInsertionPoint(ifLive.thenBlock()->getTerminator());

  // The segment's coordinates give the origins of the other sparse loops.
  Value segmentRest = segment;
  for (int64_t result = map.getNumResults() - 1; result >= 0; --result) {
    if (result == sparseAxis)
      continue;
    unsigned loop = map.getDimPosition(result);
    Value gridExtent = constantIndex(b, loc, domain[loop] / microTile[result]);
    Value coordinate = arith::RemUIOp::create(b, loc, segmentRest, gridExtent);
    segmentRest = arith::DivUIOp::create(b, loc, segmentRest, gridExtent);
    origins[loop] = arith::MulIOp::create(
        b, loc, coordinate, constantIndex(b, loc, microTile[result]));
  }

  IRMapping mapping;
  for (unsigned loop = 0; loop < op.getNumLoops(); ++loop)
    mapping.map(op.getTileOrigin(loop), origins[loop]);
  mapping.map(op.getSegment(), segment);
  for (auto [alloca, shared] :
       llvm::zip(tileBuffers, launch.getWorkgroupAttributions()))
    mapping.map(alloca.getResult(), shared);
  SmallVector<Operation *> cloned;
  for (Operation &bodyOp : op.getBody().front().without_terminator())
    if (!isa<memref::AllocaOp>(bodyOp) ||
        !mapping.contains(bodyOp.getResult(0)))
      cloned.push_back(b.clone(bodyOp, mapping));

  // Spread the tile work over the block's threads, with a barrier after
  // each step so that the next one sees the shared memory it wrote.
  Threads threads = blockThreads(launch);
  auto spread = [&](OpBuilder &b, Location loc, ArrayRef<Value> extents,
                    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
    buildStridedLoops(b, loc, extents, threads, body);
  };
  for (Operation *bodyOp : cloned) {
    bool isStep = isa<SReadOp, SWriteOp, linalg::LinalgOp>(bodyOp);
    if (auto read = dyn_cast<SReadOp>(bodyOp))
      lowerSReadToElements(rewriter, read, spread);
    else if (auto write = dyn_cast<SWriteOp>(bodyOp))
      lowerSWriteToElements(rewriter, write, spread, CombineWrite::Atomic);
    else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(bodyOp))
      lowerLinalgToThreads(rewriter, linalgOp, threads);
    if (isStep)
      gpu::BarrierOp::create(b, loc);
  }
  rewriter.eraseOp(op);
  return success();
}


/// Whether the STile's body reduces 16-bit floats: work the tensor cores
/// would take, so that running it on CUDA cores deserves a remark.
bool reducesHalfFloats(STileOp op) {
  bool found = false;
  op.getBody().walk([&](linalg::LinalgOp linalgOp) {
    auto isHalf = [](Value value) {
      Type element = getElementTypeOrSelf(value.getType());
      return element.isF16() || element.isBF16();
    };
    found |= linalgOp.getNumReductionLoops() > 0 &&
             llvm::any_of(linalgOp.getDpsInputs(), isHalf);
  });
  return found;
}

struct STileToSimtKernel : OpRewritePattern<STileOp> {
  STileToSimtKernel(MLIRContext *context, int64_t blockSize)
      : OpRewritePattern<STileOp>(context, /*benefit=*/1),
        blockSize(blockSize) {}

  LogicalResult matchAndRewrite(STileOp op,
                                PatternRewriter &rewriter) const override {
    // The tensor-core patterns outrank this one: an STile of f16 or bf16
    // products that reaches it is one they declined, often silently (a
    // layout they do not read), and runs an order of magnitude slower.
    if (reducesHalfFloats(op))
      op.emitRemark("convert-pit-to-gpu: the tile runs on the SIMT lowering "
                    "(CUDA cores): no tensor-core kernel takes it (they take "
                    "matmuls whose sparse operand is A, read m by k, with B "
                    "k by n or n by k, and SDDMMs reading A m by k and B k "
                    "by n, with n, and an SDDMM's k, in whole blocks)");
    return lowerSTile(rewriter, op, blockSize);
  }

  int64_t blockSize;
};

/// Erases a linalg op on buffers whose iteration space is empty (a static
/// extent of 0): it runs its body nowhere, so it changes nothing, and the
/// kernels' block and tile arithmetic need extents of at least 1. It goes
/// before the kernels are built: the post-order walk meets an STile's body
/// before the STile, and a fill before the matmul it clears.
struct EraseEmptyLinalgOp
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  EraseEmptyLinalgOp(MLIRContext *context)
      : OpInterfaceRewritePattern<linalg::LinalgOp>(context,
                                                    /*benefit=*/10) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() ||
        !llvm::is_contained(op.getStaticLoopRanges(), 0))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::pit::populateSimtSTilePatterns(RewritePatternSet &patterns,
                                          int64_t threadsPerBlock) {
  patterns.add<STileToSimtKernel>(patterns.getContext(), threadsPerBlock);
  patterns.add<EraseEmptyLinalgOp>(patterns.getContext());
}
