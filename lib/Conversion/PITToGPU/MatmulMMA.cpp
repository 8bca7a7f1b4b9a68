//===- MatmulMMA.cpp - Tensor-core kernels for matmul STiles --------------===//
//
// Tensor-core kernels for the STiles of `C += A x B` (f16 or bf16 A and B;
// f32 C, or C of the inputs' type), built from the pieces of BlockMma.h.
//
// * Gathered along k (matmul, batch matmul): one block per output tile loops
//   over the segment's compacted k, chunk by chunk, and adds its tile into C
//   at the end. It owns the tile, so no atomics.
// * Gathered along m (rows of A): one block per tile of gathered rows, one
//   k segment and one n tile; it scatters its rows back into C with atomic
//   adds, since other k segments add into the same rows.
// * Gathered along m with a panel (pit.stile `panel`): PanelMatmul.cpp.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreSTiles.h"

#include "BlockMma.h"
#include "MatmulTile.h"
#include "STileBody.h"
#include "VectorDetection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Shared-memory stages of a warp-specialised block (buildGatherAlongK), as
/// many as fit up to this.
constexpr int64_t kSpecializedStages = 4;

/// Takes the block options a tensor-core matmul kernel reads from the pass
/// (the chip's wgmma and shared memory, and how the block is specialised).
void takeBlockOptions(MatmulTile &tile, const MmaKernelOptions &options) {
  tile.chip = options.chip;
  tile.specialize = options.specialize;
  tile.tensorCopies = options.tensorCopies;
  tile.clusterBlocks = options.clusterBlocks;
}

/// Shared-memory stages of a block of `shape`: `wanted` (1 to 4), fewer
/// where they would not fit in the shared memory a block may ask for.
int64_t fitStages(const MmaTileShape &shape, int64_t wanted,
                  bool warpgroupMma) {
  int64_t limit = warpgroupMma ? kMaxWarpgroupSharedBytes : kMaxSharedBytes;
  int64_t stages = std::clamp<int64_t>(wanted, 1, 4);
  while (stages > 1 && stages * shape.sharedBytes() > limit)
    --stages;
  return stages;
}

/// `*address += values` for 2 or 4 adjacent f32 in global memory (8- or
/// 16-byte aligned), as one atomic operation (sm_90 and newer): a half or a
/// quarter of the atomics of scalar adds, which bound a scattered write
/// back.
void buildVectorAtomicAdd(OpBuilder &b, Location loc, Value memref,
                          ValueRange indices, ValueRange values) {
  KernelBuilder k{b, loc};
  Value address = k.elementAddress(memref, indices);
  std::string registers, constraints = "l";
  for (size_t i = 0; i < values.size(); ++i) {
    registers += (i ? ", $" : "$") + std::to_string(i + 1);
    constraints += ",f";
  }
  SmallVector<Value> operands{address};
  operands.append(values.begin(), values.end());
  k.inlinePtx(/*result=*/Type(), operands,
              "red.global.add.v" + std::to_string(values.size()) +
                  ".f32 [$0], {" + registers + "};",
              constraints);
}

/// Whether the kernels can write a C of `outputType` for inputs of
/// `inputType` (f16 or bf16): f32, or the inputs' type.
bool isOutputType(Type outputType, Type inputType) {
  return outputType.isF32() || outputType == inputType;
}

/// The pit.detect that fills `positions` before `op`, in its block or in
/// the blocks that enclose it (a variant of run-time selection runs inside a
/// case of the switch, after the detections), directly or in the scf.if
/// that runs it only for the variants that read it; or null.
DetectOp findDetect(STileOp op, Value positions) {
  auto fills = [&](Operation &candidate) {
    auto detect = dyn_cast<DetectOp>(candidate);
    return detect && detect.getPositions() == positions ? detect : DetectOp();
  };
  for (Operation *at = op; at && !isa<FunctionOpInterface>(at);
       at = at->getParentOp())
    for (Operation *prev = at->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (DetectOp detect = fills(*prev))
        return detect;
      if (auto ifOp = dyn_cast<scf::IfOp>(prev))
        for (Operation &guarded : *ifOp.thenBlock())
          if (DetectOp detect = fills(guarded))
            return detect;
    }
  return nullptr;
}

/// `detect`, or the op that encloses it in a block that also encloses `op`
/// (the scf.if that guards it): where buffers both use must be allocated.
Operation *findCommonAnchor(DetectOp detect, STileOp op) {
  Operation *anchor = detect;
  while (!anchor->getBlock()->findAncestorOpInBlock(*op)) {
    anchor = anchor->getParentOp();
    assert(anchor && "findDetect found the detection before the STile, in "
                     "a block that encloses it");
  }
  return anchor;
}

/// Where the compacted copy of `detect` is freed: with the index it is
/// written next to (after the dealloc of its positions), so that it is
/// freed whichever variant runs; right after `op` when there is no such
/// dealloc.
void setInsertionPointForCopyDealloc(OpBuilder &b, DetectOp detect,
                                     STileOp op) {
  Block *block = findCommonAnchor(detect, op)->getBlock();
  for (Operation *user : detect.getPositions().getUsers())
    if (isa<memref::DeallocOp>(user) && user->getBlock() == block) {
      b.setInsertionPointAfter(user);
      return;
    }
  b.setInsertionPointAfter(op);
}

/// The linalg.fill that last wrote zeros into `c` before `op`, when nothing
/// between them touches `c`: PIT's own index allocations and detection are
/// the only ops allowed in between.
linalg::FillOp findZeroFillBefore(Operation *op, Value c) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.getOutputs()[0] != c)
        return nullptr;
      if (!matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return nullptr;
      return fill;
    }
    bool unrelated = isa<memref::AllocOp, DetectOp, arith::ConstantOp>(prev) &&
                     !llvm::is_contained(prev->getOperands(), c);
    if (!unrelated)
      return nullptr;
  }
  return nullptr;
}

/// Where a zero fill of C comes right before `op` (and C is neither input),
/// records it in `tile` and erases it: the kernel then stores its tiles
/// instead of adding them. Leaves the insertion point before `op`.
void foldZeroFill(RewriterBase &rewriter, Operation *op, MatmulTile &tile) {
  if (tile.c != tile.a && tile.c != tile.b)
    tile.zeroFill = findZeroFillBefore(op, tile.c);
  rewriter.setInsertionPoint(op);
  if (tile.zeroFill)
    rewriter.eraseOp(tile.zeroFill);
}

/// Recognises the body pit-sparsify writes for a matmul gathered along k
/// (A's columns with B's rows) or along m (A's rows, scattered into C).
FailureOr<MatmulTile> matchMatmulTile(STileOp op,
                                      const MmaKernelOptions &options) {
  // Loops (m, n, k), or (batch, m, n, k) with the batch leading every map.
  unsigned numLoops = op.getNumLoops();
  if (numLoops != 3 && numLoops != 4)
    return failure();
  unsigned lead = numLoops - 3;
  MLIRContext *context = op.getContext();
  auto map = [&](unsigned r0, unsigned r1) {
    SmallVector<AffineExpr> results;
    if (lead)
      results.push_back(getAffineDimExpr(0, context));
    results.push_back(getAffineDimExpr(r0 + lead, context));
    results.push_back(getAffineDimExpr(r1 + lead, context));
    return AffineMap::get(numLoops, 0, results, context);
  };
  // One batch per segment: the batch extent of the micro-tile is 1. Rows are
  // only gathered without a batch loop.
  bool alongK = op.getPitAxis() == 2 + lead;
  bool alongM = !lead && op.getPitAxis() == 0;
  if (op.getSparseMap() != map(0, 2) || !(alongK || alongM) ||
      (lead && op.getMicroTile()[0] != 1))
    return failure();
  FailureOr<STileBody> body = findSTileBody(op);
  if (failed(body))
    return failure();
  auto [generic, write] = *body;
  if (generic.getNumDpsInputs() != 2 ||
      !linalg::isaContractionOpInterface(generic))
    return failure();
  if (generic.getIndexingMapsArray() !=
      SmallVector<AffineMap>{map(0, 2), map(2, 1), map(0, 1)})
    return failure();
  // The inputs come from gathered reads, the output goes out added.
  int64_t microK = op.getMicroTile()[1 + lead];
  int64_t microM = op.getMicroTile()[lead];
  SReadOp sreadA = findRead(generic.getDpsInputs()[0]);
  SReadOp sreadB = findRead(generic.getDpsInputs()[1]);
  bool readsMatch =
      alongK ? isGatheredRead(sreadA, 1 + lead, microK) &&
                   isGatheredRead(sreadB, lead, microK) && !write.getPositions()
             : isGatheredRead(sreadA, 0, microM) && sreadB &&
                   !sreadB.getPositions() && write.getPositions() &&
                   write.getAxis() == 0 && write.getMicro() == microM;
  if (!readsMatch || write.getCombiner() != CombinerKind::Add ||
      write.getSource() != generic.getDpsInits()[0])
    return failure();

  MatmulTile tile;
  tile.batched = lead;
  tile.alongM = alongM;
  tile.a = sreadA.getSource();
  tile.b = sreadB.getSource();
  tile.c = write.getDest();
  tile.positions = sreadA.getPositions();
  tile.counts = op.getCounts();
  tile.extentM = op.getDomain()[lead];
  tile.extentN = op.getDomain()[lead + 1];
  tile.extentK = op.getDomain()[lead + 2];
  tile.numSegments = op.getNumSegments();
  Type inputType = sreadA.getSource().getType().getElementType();
  tile.outputType = write.getDest().getType().getElementType();
  if (!(inputType.isF16() || inputType.isBF16()) ||
      sreadB.getSource().getType().getElementType() != inputType ||
      !isOutputType(tile.outputType, inputType))
    return failure();
  ArrayRef<int64_t> shape = op.getTile();
  tile.shape = {shape[lead], shape[lead + 1], shape[lead + 2], inputType};
  // A block covers several of the STile's tiles along n, where n allows:
  // each gathered chunk of A is then reused over more of B. Gathered along
  // k, the chunk of compacted k is free (copies never straddle micro-tiles:
  // they are 8 elements at multiples of 8). A tile to keep (a measured
  // variant) is the block as it is.
  int64_t n = op.getDomain()[lead + 1];
  if (!op.getKeepTile()) {
    if (n % options.blockColumns == 0 &&
        options.blockColumns % tile.shape.n == 0)
      tile.shape.n = options.blockColumns;
    if (alongK && options.chunk > 0 && options.chunk % 16 == 0)
      tile.shape.k = options.chunk;
  }
  takeBlockOptions(tile, options);
  tile.stages = options.stages;
  tile.microK = microK;
  tile.microM = microM;
  auto cType = cast<MemRefType>(tile.c.getType());
  tile.cRowsInPieces = cType.hasStaticShape() &&
                       cType.getLayout().isIdentity() &&
                       cType.getShape().back() % 4 == 0;
  tile.vectorAtomics = options.chip.vectorAtomics && tile.cRowsInPieces;
  if (alongM && op.getPanel()) {
    std::string why = whyNoPanel(op, tile, options);
    if (why.empty()) {
      tile.panelRows = *op.getPanel();
      tile.groupRows = op.getGroupRows();
      if (std::string whyNot = whyNoRowOrder(tile);
          tile.groupRows && !whyNot.empty()) {
        op.emitRemark("rows of the panels left in their order (")
            << whyNot << ")";
        tile.groupRows = false;
      }
    } else
      op.emitRemark("panel of ")
          << *op.getPanel() << " rows left out (" << why
          << "): the tile adds into C with atomics";
  }
  // Atomic adds of f16 partial sums would round at every add.
  if (alongM && !tile.panelRows && !tile.outputType.isF32()) {
    op.emitRemark("rows gathered along m are added into C with atomics, "
                  "which needs f32 C (C is ")
        << tile.outputType
        << "): the tile is left to the SIMT lowering; a `panel` keeps the "
           "sums in f32";
    return failure();
  }
  // A's gathered pieces narrower than a copy go through registers, in
  // 16-byte pieces spread evenly over the block.
  bool narrowA = !alongM && microK % kVector != 0;
  if (!tile.shape.isWhole() || tile.shape.sharedBytes() > kMaxSharedBytes ||
      (narrowA && !BlockMma::splitsIntoPieces(tile.shape.m, tile.shape.k)) ||
      !cast<MemRefType>(tile.a.getType()).hasStaticShape() ||
      !cast<MemRefType>(tile.b.getType()).hasStaticShape())
    return failure();
  return tile;
}

/// Gathered along k: a block per (segment, n tile) loops over the chunks of
/// the segment's compacted k and adds its output tile into C. A dense
/// matmul (no index) is the same walk over all of k.
void buildGatherAlongK(OpBuilder &b, Location loc, const MatmulTile &t) {
  KernelBuilder k{b, loc};
  const MmaTileShape &s = t.shape;
  int64_t m = t.extentM, n = t.extentN;
  int64_t capacity = t.extentK / t.microK;
  int64_t nTiles = n / s.n;
  // A is stored k by k when read from the compacted copy: wgmma reads it
  // m-major in tiles of 64 rows; other heights keep mma.sync.
  bool aStoredByK = bool(t.compactedA);
  bool warpgroupMma =
      t.chip.warpgroupMma && BlockMma::supportsWarpgroupMma(s, aStoredByK);
  int64_t numTiles = t.numSegments * nTiles;
  // A's pieces go through registers where a copy would straddle gathered
  // micro-tiles.
  bool stagedA = t.microK % kVector != 0 && !t.compactedA;
  // A dense walk over A and B that the function takes as arguments can
  // copy its chunks with TMA (one thread issues them; 4096^3 f16 on an
  // H100: 195 us, 220 with cp.async; 187 with the persistent blocks below),
  // optionally in clusters of blocks of neighbouring rows that share B's
  // chunks (multicast, as cuBLAS's kernel does; mma-cluster-blocks: 178 us
  // in clusters of 2 blocks, persistent). The
  // tensor maps are asked for at the function's entry, before any device
  // work, where the host code waits for nothing.
  int64_t clusterBlocks = std::max<int64_t>(1, t.clusterBlocks);
  bool tensorCopies =
      t.specialize && t.tensorCopies && warpgroupMma && !t.positions &&
      !t.batched && isEntryArgument(t.a) && isEntryArgument(t.b) &&
      s.k == kSwizzleRowElements &&
      s.n % (clusterBlocks * kSwizzleRowElements) == 0 &&
      t.numSegments % clusterBlocks == 0;
  // A 16-bit C that the kernel only writes (it was only cleared before),
  // an argument with a static identity layout, goes back through the TMA
  // (sm_90a, where the tiles' copies may use it too), from shared memory:
  // the warps then wait for their writes into shared memory only, not for
  // stores of their own, 16 bytes a lane into 8 rows each. The dense walk
  // stages its tiles in a buffer of their own (BlockMma::
  // storeTileWithTensorMap; 4096^3 f16 on an H100: 173.2 -> 169.8 us, 167
  // without writing C back at all), alternating two of them, so a tile of
  // an even number of pieces; the other blocks stage theirs in B's stages
  // once done with them (storeTileThroughSharedTiles).
  auto cType = cast<MemRefType>(t.c.getType());
  bool writesThroughTensorMap =
      t.chip.warpgroupMma && t.tensorCopies && t.zeroFill && !t.batched &&
      isEntryArgument(t.c) && cType.hasStaticShape() &&
      cType.getLayout().isIdentity() &&
      t.outputType.getIntOrFloatBitWidth() == 16;
  bool tensorStores = writesThroughTensorMap && tensorCopies &&
                      s.n % (2 * BlockMma::kStagedColumns) == 0;
  // A block for each multiprocessor walks the tiles: the next tile's first
  // chunks come in while the last one is written back. (The blocks of a
  // cluster walk theirs in step: the grid is whole clusters, and the tiles
  // of a cluster are neighbours, so both have as many.)
  bool persistent = tensorCopies;
  // With wgmma and chunks copied whole, the block is warp-specialised: a
  // copying warpgroup keeps up to kSpecializedStages chunks in flight, each
  // stage's mbarriers pacing it against the multiplying warpgroups. Its
  // setmaxnreg runs once a kernel: a block takes one tile, or walks its
  // own (persistent).
  bool specialized = t.specialize && warpgroupMma && !stagedA &&
                     (persistent || numTiles <= kMaxMmaBlocks);
  int64_t stages = fitStages(s, t.stages, warpgroupMma);
  SmallVector<MemRefType> workspace;
  if (specialized) {
    stages = kSpecializedStages;
    // The staging buffer first: right after the tiles (whole 1024-byte
    // swizzle patterns, from a multiple of 1024), it starts at a multiple
    // of 1024 bytes, as the TMA's swizzled reads of it need.
    auto buffers = [&](int64_t stages) {
      SmallVector<MemRefType> buffers;
      if (tensorStores)
        buffers.push_back(BlockMma::stagingType(t.outputType, s.m / 64));
      buffers.push_back(StageBarriers::type(b.getContext(), stages));
      return buffers;
    };
    auto bytes = [&](int64_t stages) {
      return BlockMma::dynamicSharedBytes(s, stages, /*warpgroup=*/true,
                                          buffers(stages));
    };
    // The staging buffer never takes a stage's place.
    if (tensorStores && bytes(stages) > t.chip.sharedBytesPerBlock)
      tensorStores = false;
    while (stages > 2 && bytes(stages) > t.chip.sharedBytesPerBlock)
      --stages;
    specialized = bytes(stages) <= t.chip.sharedBytesPerBlock;
    if (specialized)
      workspace = buffers(stages);
    else
      stages = fitStages(s, t.stages, warpgroupMma);
    assert((!tensorStores || stages * s.sharedBytes() % 1024 == 0) &&
           "the staging buffer after the tiles starts 1024-byte aligned");
  }
  tensorCopies &= specialized;
  tensorStores &= tensorCopies;
  persistent &= specialized;
  if (!tensorCopies)
    clusterBlocks = 1;
  Value mapA, mapB, mapC, gridBlocks;
  if (tensorCopies) {
    mapA = buildTensorMapAtEntry(b, loc, t.a, s.m, s.k);
    mapB = buildTensorMapAtEntry(b, loc, t.b, s.k, kSwizzleRowElements);
  }
  if (tensorStores)
    mapC = buildTensorMapAtEntry(b, loc, t.c, 64, BlockMma::kStagedColumns);
  if (persistent) {
    Value blocks = arith::MinUIOp::create(
        b, loc, k.index(numTiles),
        buildMultiprocessorCountAtEntry(
            b, loc, cast<BlockArgument>(t.a).getOwner()));
    gridBlocks = arith::MaxUIOp::create(
        b, loc, k.mul(k.div(blocks, clusterBlocks), k.index(clusterBlocks)),
        k.index(clusterBlocks));
  }
  // An STile with more tiles than kMaxMmaBlocks (not warp-specialised):
  // its blocks take their tiles in turn from a counter, about as many
  // blocks as the multiprocessors hold at once (by shared memory and
  // threads), instead of each taking every kMaxMmaBlocks-th tile. The
  // blocks share the tiles as they finish them, and a choice that leaves
  // the STile out waits for fewer blocks to exit. On an H100, 16x16 and
  // 32x64 at 4096^3: 90% 151.0 -> 148.7 and 107.1 -> 99.9 us a call, 50%
  // -1.5 and -1.8 us. (Where a block took one tile, as 32x1's 2048, the
  // counter made the STile slower, 81.6 -> 99.1 us at 90%: in the loop the
  // kernel needs 211 registers, not 128, so that 2 blocks fit on a
  // multiprocessor instead of 4. Blocks taking every grid-th tile of a
  // smaller grid were slower too: 100.7 -> 113.1 us a call with 1024.)
  Value tileCounter;
  if (t.positions && !specialized && numTiles > kMaxMmaBlocks) {
    int64_t blockBytes =
        stages * s.sharedBytes() + t.chip.sharedBytesReservedPerBlock;
    int64_t resident = std::min<int64_t>(
        (t.chip.sharedBytesPerBlock + t.chip.sharedBytesReservedPerBlock) /
            blockBytes,
        t.chip.threadsPerMultiprocessor / kMmaThreads);
    Block *entry = &b.getInsertionBlock()
                        ->getParent()
                        ->getParentOfType<func::FuncOp>()
                        .getBody()
                        .front();
    gridBlocks = arith::MinUIOp::create(
        b, loc, k.index(numTiles),
        k.mul(buildMultiprocessorCountAtEntry(b, loc, entry),
              k.index(std::max<int64_t>(resident, 1))));
    tileCounter = buildZeroedCounter(b, loc);
  }
  BlockMma mma(b, loc, s, numTiles, stages, aStoredByK, warpgroupMma, workspace,
               /*columnWarpgroups=*/1, /*otherWarpgroups=*/specialized ? 1 : 0,
               /*replicas=*/1, clusterBlocks, gridBlocks, tileCounter);
  if (tileCounter) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(mma.launch);
    gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                           tileCounter);
  }

  // Tile `tile`'s segment and its first row and column. The blocks of a
  // cluster take neighbouring row blocks of one n tile. An STile's tiles go
  // n tile by n tile, every segment of one before the next: the blocks
  // running at once then read B's rows of a few n tiles (at 4096^3, 528
  // blocks of 256 columns: 4 n tiles, 8 MiB of B), which stay in L2 while
  // every segment gathers from them. Segment by segment, they read every
  // row of B at once (the segments' k together cover most of it), and L2,
  // where C's tiles are written too, let B's rows go before their next
  // use. On an H100, 32x1 at 90% read 114 MB from DRAM that way for a 32
  // MiB B, 36 MB this way (ncu); calls at 90-95% took 2-6 us less.
  struct TileOrigin {
    Value segment, m0, n0;
  };
  auto originOf = [&](Value tile) {
    if (t.positions) {
      Value segment = k.rem(tile, t.numSegments);
      return TileOrigin{segment, k.mul(k.rem(segment, m / s.m), k.index(s.m)),
                        k.mul(k.div(tile, t.numSegments), k.index(s.n))};
    }
    Value cluster = k.div(tile, clusterBlocks);
    Value ordered =
        k.add(k.mul(k.div(cluster, nTiles), k.index(clusterBlocks * nTiles)),
              k.add(k.mul(k.rem(tile, clusterBlocks), k.index(nTiles)),
                    k.rem(cluster, nTiles)));
    Value segment = k.div(ordered, nTiles);
    // Segments are numbered (batch, row block), row-major, as pit.detect
    // does.
    return TileOrigin{segment, k.mul(k.rem(segment, m / s.m), k.index(s.m)),
                      k.mul(k.rem(ordered, nTiles), k.index(s.n))};
  };
  TileOrigin origin = originOf(mma.blockId);
  Value segment = origin.segment, m0 = origin.m0, n0 = origin.n0;
  Value batch = k.div(segment, m / s.m);
  auto at = [&](Value row, Value column) {
    return t.batched ? SmallVector<Value>{batch, row, column}
                     : SmallVector<Value>{row, column};
  };
  Value count = t.positions ? loadCount(k, t.counts, segment)
                            : k.index(capacity);
  Value numChunks =
      k.div(k.add(k.mul(count, k.index(t.microK)), k.index(s.k - 1)), s.k);
  // Where compacted coordinate c of the segment lives along k, and whether
  // it is real (null: always), given `positionOf(c)`, the index's entry of
  // c (an i32): loaded there (loadPosition), or a chunk earlier.
  auto loadPosition = [&](Value c) {
    return loadGatheredPosition(k, t.positions, segment, c, t.microK,
                                capacity);
  };
  auto gatheredWith = [&](Value c, function_ref<Value(Value)> positionOf)
      -> std::pair<Value, Value> {
    if (!t.positions)
      return {c, Value()};
    return gatheredFromPosition(k, positionOf(c), count, c, t.microK);
  };
  auto gathered = [&](Value c) { return gatheredWith(c, loadPosition); };

  // The copies of the chunk at k0 into `stage`: B's rows (whole rows of B,
  // contiguous along n), then A's pieces, unless they go through registers.
  // Each piece copies from where `positionOf(c)` (the index's entry of
  // compacted coordinate c, an i32) puts it; without positions, from c.
  // Without a stage, only the entries are asked for, in the same order,
  // the last partial round's too, outside its guard (a thread past it asks
  // for an entry of the chunk that no copy uses: the slot stays clamped).
  auto issueWith = [&](Value stage, Value k0,
                       function_ref<Value(Value)> positionOf) {
    auto from = [&](Value c) { return gatheredWith(c, positionOf); };
    bool guarded = bool(stage);
    mma.spreadPieces(s.k, s.n, [&](Value row, Value column) {
      auto [source, valid] = from(k.add(k0, row));
      if (stage)
        mma.copy(mma.sB, stage, row, column, t.b,
                 at(source, k.add(n0, column)), valid);
    }, guarded);
    // A from the compacted copy: micro-tile `slot` of the segment holds
    // A's rows m0.. of gathered column `slot`, contiguous: 16-byte copies of
    // 8 rows into the tile stored k by k.
    if (t.compactedA) {
      if (!stage)
        return;
      mma.spreadPieces(s.k, s.m, [&](Value kk, Value row) {
        Value slot = k.add(k0, kk);
        Value clamped =
            arith::MinUIOp::create(b, loc, slot, k.index(capacity - 1));
        mma.copy(mma.sA, stage, kk, row, t.compactedA,
                 {segment, clamped, row}, k.ult(slot, count));
      });
      return;
    }
    // A: 16-byte copies when a micro-tile row holds whole vectors.
    if (t.microK % kVector != 0)
      return;
    mma.spreadPieces(s.m, s.k, [&](Value row, Value column) {
      auto [source, valid] = from(k.add(k0, column));
      if (stage)
        mma.copy(mma.sA, stage, row, column, t.a, at(k.add(m0, row), source),
                 valid);
    }, guarded);
  };
  auto issue = [&](Value stage, Value k0) {
    issueWith(stage, k0, loadPosition);
  };
  // The index entries a thread's copies of the chunk at k0 read, loaded a
  // chunk ahead (ChunkFill::prefetch): issuing a chunk otherwise waited for
  // them first (ncu of 32x1 and 32x64 at 99% on an H100: a quarter of the
  // stall samples on the address arithmetic right after those loads).
  auto prefetch = [&](Value k0) {
    SmallVector<Value> entries;
    issueWith(Value(), k0, [&](Value c) {
      entries.push_back(loadPosition(c));
      return entries.back();
    });
    return entries;
  };
  auto issuePrefetched = [&](Value stage, Value k0, ValueRange entries) {
    size_t next = 0;
    issueWith(stage, k0, [&](Value) { return entries[next++]; });
  };
  // Else A element by element through registers (a copy would straddle
  // gathered micro-tiles), loaded before the chunk ahead is multiplied.
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(s.inputType));
  auto load = [&](Value k0) {
    return mma.loadPieces(s.m, s.k, [&](Value row, Value column) {
      auto [source, valid] = gathered(k.add(k0, column));
      Value value =
          memref::LoadOp::create(b, loc, t.a, at(k.add(m0, row), source));
      return arith::SelectOp::create(b, loc, valid, value, zero).getResult();
    });
  };
  auto store = [&](Value stage, ValueRange pieces) {
    mma.storePieces(mma.sA, stage, pieces);
  };
  BlockMma::ChunkFill fill{issue};
  if (t.positions) {
    fill.prefetch = prefetch;
    fill.issuePrefetched = issuePrefetched;
  }
  if (stagedA) {
    fill.load = load;
    fill.store = store;
  }

  // SWrite: the block owns its output tile (all of k, every block runs, an
  // empty segment too); it adds it into C, or stores it where C was only
  // cleared before (the clearing is then folded away). A thread's two
  // neighbours in a row go as one access where C's rows are contiguous (8
  // bytes of f32: the 4 threads of a group then fill whole 32-byte sectors
  // with one instruction, instead of half of each with two). An f16 C gets
  // the f32 sums rounded once, here.
  auto storeTile = [&](ValueRange acc, Value tileM0, Value tileN0) {
    // Element (row, column) of the tile in C.
    auto cAt = [&](Value row, Value column) {
      return at(k.add(tileM0, row), k.add(tileN0, column));
    };
    auto cType = cast<MemRefType>(t.c.getType());
    auto pairType = VectorType::get({2}, b.getF32Type());
    // A thread's two neighbours in a row at C's `indices`, plus C's values
    // there unless C was only cleared, rounded to C's type.
    auto pairForC = [&](ValueRange indices, Value first, Value second) {
      Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                                  ValueRange{first, second});
      if (!t.zeroFill) {
        Value old = k.loadPair(t.c, indices);
        pair = arith::AddFOp::create(b, loc, k.widenToF32(old), pair);
      }
      return k.roundTo(t.outputType, pair);
    };
    if (cType.getLayout().isIdentity() && !t.outputType.isF32() &&
        cType.getShape().back() % 8 == 0 && mma.pairsAccumulatorBlocks()) {
      // A 16-bit C: runs of 8 columns, 16 bytes a lane (C's rows are whole
      // runs, 16-byte aligned like the tensor).
      llvm::MaybeAlign runAlignment(16);
      auto pack = [&](Value row, Value column, Value first, Value second) {
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()),
            pairForC(cAt(row, column), first, second));
        return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0})
            .getResult();
      };
      auto runType = VectorType::get({8}, t.outputType);
      mma.forEachAccumulatorOctet(
          acc, pack, [&](Value row, Value column, ValueRange packed) {
            Value words = vector::FromElementsOp::create(
                b, loc, VectorType::get({4}, b.getI32Type()), packed);
            vector::StoreOp::create(
                b, loc, vector::BitCastOp::create(b, loc, runType, words), t.c,
                cAt(row, column), /*nontemporal=*/false, runAlignment);
          });
      return;
    }
    if (cType.getLayout().isIdentity()) {
      mma.forEachAccumulatorPair(acc, [&](Value row, Value column, Value first,
                                          Value second) {
        SmallVector<Value> indices = cAt(row, column);
        k.storePair(pairForC(indices, first, second), t.c, indices);
      });
      return;
    }
    // Strided C: element by element.
    mma.forEachAccumulator(acc, [&](Value row, Value column, Value value) {
      SmallVector<Value> indices = cAt(row, column);
      if (!t.zeroFill) {
        Value old = memref::LoadOp::create(b, loc, t.c, indices);
        value = arith::AddFOp::create(b, loc, k.widenToF32(old), value);
      }
      memref::StoreOp::create(b, loc, k.roundTo(t.outputType, value), t.c,
                              indices);
    });
  };
  if (specialized) {
    StageBarriers barriers(k, mma.workspace.back(), stages);
    auto copiesOf = [&](Value tile) {
      TileOrigin walked = originOf(tile);
      return TensorCopies{mapA, mapB, walked.m0, walked.n0};
    };
    auto finish = [&](Value tile, ValueRange acc) {
      TileOrigin walked = originOf(tile);
      if (tensorStores) {
        mma.storeTileWithTensorMap(acc.front(),
                                   TensorStores{mapC, mma.workspace[0]},
                                   walked.m0, walked.n0, t.outputType);
        return;
      }
      storeTile(acc, walked.m0, walked.n0);
    };
    TileWalk walk{mma.blockId, k.add(mma.blockId, k.index(1)), k.index(1),
                  numChunks};
    if (persistent) {
      walk.end = k.index(numTiles);
      walk.step = mma.launch.getGridSize().x;
    }
    if (tensorCopies)
      walk.copiesOf = copiesOf;
    walk.finish = finish;
    auto drain = [&] { mma.drainTensorStores(); };
    if (tensorStores)
      walk.afterLastTile = drain;
    mma.accumulateSpecialized(fill, barriers, walk);
    return;
  }
  // Blocks of 16 rows keep their own stores: 4096^3 f16 16x16 at 90%, 145.6
  // -> 148.0 us through the TMA (32x1 at 90%: 99.6 -> 95.9; 32x64 101.5 ->
  // 99.6).
  SmallVector<Value> acc = mma.accumulateChunks(numChunks, fill);
  if (writesThroughTensorMap && s.m >= 32 && mma.canStageTileInSharedTiles()) {
    mma.storeTileThroughSharedTiles(
        acc, buildTensorMapAtEntry(b, loc, t.c, s.m, kSwizzleRowElements), m0,
        n0, t.outputType);
    return;
  }
  storeTile(acc, m0, n0);
}

/// Gathered along m: a block per (k segment, n tile, tile of gathered rows)
/// multiplies its rows of A by the segment's rows of B and scatters the
/// partial sums back into C's rows, atomically.
void buildGatherAlongM(OpBuilder &b, Location loc, STileOp op,
                       const MatmulTile &t) {
  KernelBuilder k{b, loc};
  const MmaTileShape &s = t.shape;
  int64_t n = op.getDomain()[1];
  int64_t capacity = op.getDomain()[0] / t.microM;
  int64_t nTiles = n / s.n;
  int64_t rowTiles = llvm::divideCeil(op.getDomain()[0], s.m);
  BlockMma mma(b, loc, s, op.getNumSegments() * nTiles * rowTiles);

  // n tiles vary slowest: the blocks at work at one time add into a few
  // column slabs of C, which stay in L2 through the several partial sums
  // each element gets (all of a large C does not fit, and atomics that
  // miss go to DRAM: a read and a write each). Within a slab, tiles of
  // gathered rows come next: the live ones (below a segment's count) come
  // first.
  int64_t tilesPerSlab = op.getNumSegments() * rowTiles;
  Value slab = k.div(mma.blockId, tilesPerSlab);
  Value rest = k.rem(mma.blockId, tilesPerSlab);
  Value n0 = k.mul(slab, k.index(s.n));
  Value rowTile = k.div(rest, op.getNumSegments());
  Value segment = k.rem(rest, op.getNumSegments());
  Value k0 = k.mul(segment, k.index(s.k));
  Value row0 = k.mul(rowTile, k.index(s.m));
  Value count = loadCount(k, op.getCounts(), segment);
  auto gathered = [&](Value row) {
    return gatheredCoordinate(k, t.positions, segment, count,
                              k.add(row0, row), t.microM, capacity);
  };

  // Blocks past the segment's gathered rows have nothing to do.
  enterIfLive(k, row0, count, t.microM);

  Value stage = k.index(0);
  mma.spreadPieces(s.m, s.k, [&](Value row, Value column) {
    auto [source, valid] = gathered(row);
    mma.copy(mma.sA, stage, row, column, t.a, {source, k.add(k0, column)},
             valid);
  });
  mma.spreadPieces(s.k, s.n, [&](Value row, Value column) {
    mma.copy(mma.sB, stage, row, column, t.b,
             {k.add(k0, row), k.add(n0, column)}, Value());
  });
  mma.commitCopies();
  mma.waitForCopies(0);
  SmallVector<Value> acc = mma.zeroAccumulators();
  mma.multiply(acc, stage);

  // SWrite: scatter the rows back; padding rows are not written. Four
  // adjacent columns at a time where the chip has vector atomics (C's rows
  // hold whole runs of four: 16-byte aligned, since the entry points take
  // 16-byte aligned tensors, PIT_ARG_ALIGNMENT).
  auto scatter = [&](Value row, Value column, ValueRange values) {
    auto [target, valid] = gathered(row);
    k.buildIf(valid, [&] {
      Value c0 = k.add(n0, column);
      if (t.vectorAtomics) {
        buildVectorAtomicAdd(b, loc, t.c, {target, c0}, values);
        return;
      }
      for (auto [i, value] : llvm::enumerate(values))
        memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, value,
                                    t.c,
                                    ValueRange{target, k.add(c0, k.index(i))});
    });
  };
  if (t.vectorAtomics) {
    mma.forEachAccumulatorQuad(acc, scatter);
    return;
  }
  mma.forEachAccumulatorPair(
      acc, [&](Value row, Value column, Value first, Value second) {
        scatter(row, column, ValueRange{first, second});
      });
}

/// The block of a dense matmul: with no index to follow, a block may cover
/// many rows, and 128 x 128 reads A and B half as often from L2 as the
/// 32-row blocks of a gathered segment. With wgmma, 128 x 256, a warpgroup
/// for each 64 rows (128 accumulators a thread), reads them a quarter less
/// again and multiplies m64n256 (the dense kernel went from 0.29 to 0.24 ms
/// at 4096^3 on an H100); mma.sync keeps 128 x 128 (its 4 warps would hold
/// 256 accumulators each). Chunks of 64 of k halve the barriers of chunks
/// of 32 (and are the rows wgmma reads A in); 3 stages of them take 96 KiB
/// of shared memory at 128 x 128, 144 KiB at 128 x 256.
constexpr int64_t kDenseBlockRows = 128, kDenseBlockColumns = 128,
                  kDenseWarpgroupBlockColumns = 256, kDenseChunk = 64;

/// Recognises a dense `C += A x B` (linalg.matmul, or a generic with its
/// maps) on static, contiguous f16/bf16 A and B and f32 (or f16/bf16) C,
/// whose extents are whole blocks.
FailureOr<MatmulTile> matchDenseMatmul(linalg::LinalgOp op,
                                       const MmaKernelOptions &options) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 3 ||
      !linalg::isaContractionOpInterface(op))
    return failure();
  auto map = [&](unsigned r0, unsigned r1) {
    return getOperandMap(op.getContext(), r0, r1);
  };
  if (op.getIndexingMapsArray() !=
      SmallVector<AffineMap>{map(0, 2), map(2, 1), map(0, 1)})
    return failure();
  MatmulTile tile;
  tile.batched = false;
  tile.alongM = false;
  tile.a = op.getDpsInputs()[0];
  tile.b = op.getDpsInputs()[1];
  tile.c = op.getDpsInits()[0];
  for (Value operand : {tile.a, tile.b, tile.c}) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return failure();
  }
  Type inputType = cast<MemRefType>(tile.a.getType()).getElementType();
  tile.outputType = cast<MemRefType>(tile.c.getType()).getElementType();
  if (!(inputType.isF16() || inputType.isBF16()) ||
      cast<MemRefType>(tile.b.getType()).getElementType() != inputType ||
      !isOutputType(tile.outputType, inputType))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  tile.extentM = ranges[0];
  tile.extentN = ranges[1];
  tile.extentK = ranges[2];
  MmaTileShape wide{kDenseBlockRows, kDenseWarpgroupBlockColumns, kDenseChunk,
                    inputType};
  bool widens = options.chip.warpgroupMma &&
                BlockMma::supportsWarpgroupMma(wide, /*aStoredByK=*/false) &&
                tile.extentN % wide.n == 0;
  tile.shape = {kDenseBlockRows, widens ? wide.n : kDenseBlockColumns,
                kDenseChunk, inputType};
  if (tile.extentM % tile.shape.m != 0 || tile.extentN % tile.shape.n != 0 ||
      tile.extentK % tile.shape.k != 0)
    return failure();
  tile.numSegments = tile.extentM / tile.shape.m;
  // A "micro-tile" of one copy along k: the walk never splits a copy.
  tile.microK = kVector;
  tile.microM = 1;
  takeBlockOptions(tile, options);
  tile.stages = 3;
  return tile;
}

} // namespace

LogicalResult mlir::pit::lowerMatmulToMMA(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          const MmaKernelOptions &options) {
  FailureOr<MatmulTile> matched = matchDenseMatmul(op, options);
  if (failed(matched))
    return failure();
  foldZeroFill(rewriter, op, *matched);
  buildGatherAlongK(rewriter, op.getLoc(), *matched);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult
mlir::pit::lowerMatmulSTileToMMA(RewriterBase &rewriter, STileOp op,
                                 const MmaKernelOptions &options,
                                 SmallVectorImpl<CompactedCopy> &copies) {
  FailureOr<MatmulTile> matched = matchMatmulTile(op, options);
  if (failed(matched))
    return failure();
  // Single-column micro-tiles of A (32x1, 64x1, ...): read a compacted copy
  // that the detection writes, when this STile's detection scans A itself.
  // STiles of one detection (variants of run-time selection that differ in
  // their tile) read the same copy: the detection writes one. (64x1 at
  // 4096^3 on an H100, 90% sparse: 233 us a call with A gathered element by
  // element, 123 from the copy with mma.sync, 114 with wgmma and chunks of
  // 64; docs/benchmarks/2026-11-24-H100-column-micro-tiles.txt.)
  DetectOp detect = findDetect(op, matched->positions);
  bool readsCopy = !matched->alongM && !matched->batched &&
                   matched->microK == 1 && detect &&
                   detect.getSource() == matched->a &&
                   canWriteCompactedCopy(detect) &&
                   detect.getMicroTile()[0] == matched->shape.m;
  bool ownsCopy = false;
  if (readsCopy) {
    for (const CompactedCopy &copy : copies)
      if (copy.detect == detect)
        matched->compactedA = copy.buffer;
  }
  if (readsCopy && !matched->compactedA) {
    ownsCopy = true;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(findCommonAnchor(detect, op));
    auto positionsType = cast<MemRefType>(matched->positions.getType());
    auto copyType = MemRefType::get(
        {positionsType.getDimSize(0), positionsType.getDimSize(1),
         matched->shape.m},
        matched->shape.inputType);
    matched->compactedA =
        memref::AllocOp::create(rewriter, op.getLoc(), copyType);
    copies.push_back({detect, matched->compactedA});
  }
  if (matched->alongM && matched->panelRows) {
    // A block owns its panel: C's fill folds into the panel's start.
    foldZeroFill(rewriter, op, *matched);
    buildPanelMatmul(rewriter, op, *matched);
  } else if (matched->alongM) {
    // Other k segments add into the same elements: C's fill stays.
    rewriter.setInsertionPoint(op);
    buildGatherAlongM(rewriter, op.getLoc(), op, *matched);
  } else {
    foldZeroFill(rewriter, op, *matched);
    buildGatherAlongK(rewriter, op.getLoc(), *matched);
  }
  if (ownsCopy) {
    setInsertionPointForCopyDealloc(rewriter, detect, op);
    memref::DeallocOp::create(rewriter, op.getLoc(), matched->compactedA);
  }
  rewriter.eraseOp(op);
  return success();
}
