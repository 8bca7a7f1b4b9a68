//===- PITToGPU.cpp - Lower pit ops to gpu kernels ------------------------===//

#include "DeviceSelection.h"
#include "KernelBuilder.h"
#include "SimtLinalg.h"
#include "TensorCoreSTiles.h"
#include "VectorDetection.h"

#include "PIT/Conversion/Detection.h"
#include "PIT/Conversion/Passes.h"
#include "PIT/Conversion/TileTransfer.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "PIT/Target/Chip.h"
#include "PIT/Transforms/OptionErrors.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_CONVERTPITTOGPU
#include "PIT/Conversion/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// pit.detect and pit.count
//===----------------------------------------------------------------------===//

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
      b, loc, ceilDiv(sampled * capacity, blockSize), blockSize);
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

//===----------------------------------------------------------------------===//
// pit.stile
//===----------------------------------------------------------------------===//

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
  int64_t maxPitTiles = ceilDiv(domain[pitLoop], tile[pitLoop]);
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

//===----------------------------------------------------------------------===//
// The host code around them
//===----------------------------------------------------------------------===//

/// The function's buffers are device buffers: its allocations go to the
/// device, and the linalg ops it still has run as grid-stride kernels.
/// Whether `op` fills a whole contiguous buffer with one 16- or 32-bit
/// value, which gpu.memset does.
bool isMemsetFill(Operation *op) {
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !fill.hasPureBufferSemantics())
    return false;
  auto type = dyn_cast<MemRefType>(fill.getOutputs()[0].getType());
  Type element = type ? type.getElementType() : Type();
  return type && type.getLayout().isIdentity() && element.isIntOrFloat() &&
         (element.getIntOrFloatBitWidth() == 32 ||
          element.getIntOrFloatBitWidth() == 16);
}

/// Whether `value` is computed from a pit.select's result.
bool dependsOnChoice(Value value) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (isa<SelectOp>(def))
      return true;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// Whether `op` runs only for some choices of run-time selection (in a
/// region of a switch on a pit.select, or of an scf.if on a condition
/// computed from one), whose kernels the device's choice will guard.
bool runsInVariant(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(parent);
        switchOp && dependsOnChoice(switchOp.getArg()))
      return true;
    if (auto ifOp = dyn_cast<scf::IfOp>(parent);
        ifOp && dependsOnChoice(ifOp.getCondition()))
      return true;
  }
  return false;
}

/// Whether `fill` clears a buffer that its variant of run-time selection
/// allocates and that only that variant uses: a memset of it may then run
/// whatever the device chooses (lowerSelectOnDevice moves it next to the
/// allocation, coalesceDeviceAllocations to the call's first memset), since
/// no other work sees what the buffer holds.
bool clearsVariantPrivateBuffer(linalg::FillOp fill) {
  Value buffer = fill.getOutputs()[0];
  Operation *alloc = buffer.getDefiningOp();
  if (!isa_and_nonnull<memref::AllocOp, gpu::AllocOp>(alloc) ||
      !runsInVariant(alloc))
    return false;
  Region *variant = alloc->getParentRegion();
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return variant->isAncestor(user->getParentRegion());
  });
}

/// Blocks of a grid-stride kernel: with 256 threads each, about as many
/// threads as an H100 holds at once. More blocks only cost scheduling, which
/// a kernel of an unchosen variant (whose blocks exit at once) pays in full.
constexpr int64_t kMaxGridStrideBlocks = 1024;

void lowerHostCode(RewriterBase &rewriter, func::FuncOp func,
                   int64_t blockSize) {
  SmallVector<Operation *> hostOps;
  func.walk([&](Operation *op) {
    if (op->getParentOfType<gpu::LaunchOp>())
      return;
    if (isa<memref::AllocOp, memref::DeallocOp, linalg::LinalgOp>(op))
      hostOps.push_back(op);
  });
  for (Operation *op : hostOps) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::AllocOp>(
          alloc, alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/false);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                             ValueRange{}, dealloc.getMemref());
      rewriter.eraseOp(dealloc);
    } else if (isMemsetFill(op) &&
               (!runsInVariant(op) ||
                clearsVariantPrivateBuffer(cast<linalg::FillOp>(op)))) {
      // A fill of 16- or 32-bit elements (the clearing of an output) is a
      // memset on the stream: no kernel, at copy-engine bandwidth. In a
      // variant of run-time selection only where it clears the variant's
      // own buffer: a kernel can be told whether the device chose its
      // variant, a memset cannot.
      auto fill = cast<linalg::FillOp>(op);
      gpu::MemsetOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                            fill.getOutputs()[0], fill.getInputs()[0]);
      rewriter.eraseOp(fill);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      // With a dynamic extent, as many blocks as any extent may need: the
      // threads stride over whatever the run-time extents hold.
      std::optional<int64_t> points = getStaticIterationPoints(linalgOp);
      OpBuilder::InsertionGuard guard(rewriter);
      gpu::LaunchOp launch = createLaunch(
          rewriter, loc,
          points ? std::clamp<int64_t>(ceilDiv(*points, blockSize), 1,
                                       kMaxGridStrideBlocks)
                 : kMaxGridStrideBlocks,
          blockSize);
      Threads threads = gridThreads(rewriter, loc, launch);
      Operation *inner = rewriter.clone(*op);
      lowerLinalgToThreads(rewriter, cast<linalg::LinalgOp>(inner), threads);
      rewriter.eraseOp(op);
    }
  }
}

/// Erases the linalg ops on buffers whose iteration space is empty (a
/// static extent of 0): they run their body nowhere, so they change
/// nothing, and the kernels' block and tile arithmetic need extents of at
/// least 1.
void eraseEmptyLinalgOps(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::LinalgOp> empty;
  func.walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics() &&
        llvm::is_contained(op.getStaticLoopRanges(), 0))
      empty.push_back(op);
  });
  for (linalg::LinalgOp op : empty)
    rewriter.eraseOp(op);
}

struct ConvertPITToGPUPass
    : public pit::impl::ConvertPITToGPUBase<ConvertPITToGPUPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto invalid = [&](StringRef option, int64_t value, StringRef wanted) {
      return emitOptionError(context, getArgument(), option, value, wanted);
    };
    // Whole warps; a block has at most 1024 threads.
    if (threadsPerBlock < 32 || threadsPerBlock > 1024 ||
        threadsPerBlock % 32 != 0)
      return invalid("threads-per-block", threadsPerBlock,
                     "a multiple of 32 from 32 to 1024");
    return verifyChipOption(context, getArgument(), chip);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    bool failed = false;
    module.walk([&](func::FuncOp func) {
      // A function without pit ops still runs on the device where it holds
      // linalg ops (a dense fallback forced at compile time): left to the
      // host, they would read device buffers.
      bool runsOnDevice = false;
      func.walk([&](Operation *op) {
        runsOnDevice |=
            isa<PITDialect>(op->getDialect()) || isa<linalg::LinalgOp>(op);
      });
      if (!runsOnDevice)
        return;
      eraseEmptyLinalgOps(rewriter, func);
      SmallVector<STileOp> stiles;
      SmallVector<DetectOp> detects;
      func.walk([&](STileOp op) { stiles.push_back(op); });
      SmallVector<CountOp> counts;
      func.walk([&](DetectOp op) { detects.push_back(op); });
      func.walk([&](CountOp op) { counts.push_back(op); });
      SmallVector<CompactedCopy> copies;
      ChipFacts chipFacts = getChipFacts(chip);
      for (STileOp op : stiles) {
        // Tensor cores where the tile is a half-precision matmul or SDDMM;
        // the SIMT lowering for every other tile.
        if (useTensorCores &&
            (succeeded(lowerMatmulSTileToMMA(rewriter, op, chipFacts,
                                             copies)) ||
             succeeded(lowerSddmmSTileToMMA(rewriter, op))))
          continue;
        failed |= mlir::failed(lowerSTile(rewriter, op, threadsPerBlock));
      }
      for (DetectOp op : detects) {
        Value copy;
        for (const CompactedCopy &compacted : copies)
          if (compacted.detect == op)
            copy = compacted.buffer;
        failed |= mlir::failed(lowerScan(rewriter, MicroTileScan::of(op),
                                         threadsPerBlock, copy));
      }
      for (CountOp op : counts)
        failed |=
            mlir::failed(lowerScan(rewriter, MicroTileScan::of(op),
                                   threadsPerBlock, /*compactedCopy=*/{}));
      // Dense matmuls and SDDMMs (the fallback of a selection among
      // variants) run on the tensor cores too.
      if (useTensorCores) {
        SmallVector<linalg::LinalgOp> denseOps;
        func.walk([&](linalg::LinalgOp op) {
          if (!op->getParentOfType<gpu::LaunchOp>())
            denseOps.push_back(op);
        });
        for (linalg::LinalgOp op : denseOps)
          (void)(succeeded(lowerMatmulToMMA(rewriter, op, chipFacts)) ||
                 succeeded(lowerSddmmToMMA(rewriter, op, chipFacts)));
      }
      lowerHostCode(rewriter, func, threadsPerBlock);
      // Last: the choice guards every kernel of the variants.
      SmallVector<SelectOp> selects;
      func.walk([&](SelectOp op) { selects.push_back(op); });
      for (auto [slot, op] : llvm::enumerate(selects))
        failed |= mlir::failed(lowerSelectOnDevice(rewriter, op, slot));
    });
    if (failed)
      return signalPassFailure();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
  }
};

} // namespace
