//===- MatmulMMA.cpp - Tensor-core kernels for matmul STiles --------------===//
//
// Tensor-core kernels for the STiles of `C += A x B` (f16 or bf16 A and B;
// f32 C, or C of the inputs' type), built from the pieces of BlockMma.h.
//
// * Gathered along k (matmul, batch matmul): one block per output tile loops
//   over the segment's compacted k, chunk by chunk, and adds its tile into C
//   at the end. It owns the tile, so no atomics (GatherAlongK.cpp).
// * Gathered along m (rows of A): one block per tile of gathered rows, one
//   k segment and one n tile; it scatters its rows back into C with atomic
//   adds, since other k segments add into the same rows.
// * Gathered along m with a panel (pit.stile `panel`): PanelMatmul.cpp.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreSTiles.h"

#include "PIT/Conversion/PITToGPU.h"

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
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Takes what `config` chose (the block, its stages and specialisation)
/// and the chip's facts into `tile`.
void applyConfig(MatmulTile &tile, MmaConfigAttr config,
                 const ChipFacts &chip) {
  ArrayRef<int64_t> block = config.getBlock();
  tile.shape = {block[0], block[1], block[2], tile.shape.inputType};
  tile.stages = config.getStages();
  tile.specialize = config.getSpecialize();
  tile.tensorCopies = config.getTensorCopies();
  tile.clusterBlocks = config.getClusterBlocks();
  tile.kSplits = config.getKSplits();
  tile.chip = chip;
  tile.vectorAtomics = chip.vectorAtomics && tile.cRowsInPieces;
}

MmaConfigAttr getConfig(MLIRContext *context, const MmaTileShape &block,
                        int64_t stages, const MmaStrategyOptions &options,
                        int64_t kSplits = 1) {
  return MmaConfigAttr::get(context, {block.m, block.n, block.k}, stages,
                            options.specialize, options.tensorCopies,
                            options.clusterBlocks, kSplits);
}

/// Why `config` does not fit the kernels of `tile` (empty if it does): the
/// blocks' rows are a segment's (the STile's m), their columns whole tiles of
/// the STile along n, their chunk of k free only when k is gathered.
std::string whyConfigDoesNotFit(const MatmulTile &tile, MmaConfigAttr config) {
  ArrayRef<int64_t> block = config.getBlock();
  if (block[0] != tile.shape.m)
    return "its rows are not the STile's " + std::to_string(tile.shape.m);
  if (tile.extentN % block[1] != 0 || block[1] % tile.shape.n != 0)
    return "its columns are not whole tiles of the STile that divide n";
  if (tile.alongM && block[2] != tile.shape.k)
    return "rows gathered along m keep the STile's k tile";
  return "";
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

/// The buffer `value` views (through view-like ops), or `value` itself.
Value getViewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `op`, between the op that starts `c` and the matmul that reads
/// `c`, neither reads nor writes `c`: PIT's own index allocations,
/// detection, constants, and copies into fresh buffers of what is not `c`
/// (the k-by-n copy of B that pit-transpose-matmul-b makes of y = x W^T's
/// W).
bool leavesAlone(Operation *op, Value c) {
  if (llvm::is_contained(op->getOperands(), c))
    return false;
  if (isa<memref::AllocOp, DetectOp, arith::ConstantOp>(op))
    return true;
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  return transpose && transpose.getInit().getDefiningOp<memref::AllocOp>() &&
         getViewedBuffer(transpose.getInput()) != getViewedBuffer(c);
}

/// Whether `op` writes a start of `c` that a kernel may fold into its
/// stores: zeros, or (`allowBias`) a vector of C's element type broadcast
/// along C's rows or columns (linalg.broadcast of a 2-D C, the vector not
/// C itself).
bool startsC(Operation *op, Value c, bool allowBias) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getOutputs()[0] == c &&
           matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  auto broadcast = dyn_cast<linalg::BroadcastOp>(op);
  if (!allowBias || !broadcast || broadcast.getInit() != c)
    return false;
  auto biasType = dyn_cast<MemRefType>(broadcast.getInput().getType());
  auto cType = cast<MemRefType>(c.getType());
  return biasType && biasType.getRank() == 1 && cType.getRank() == 2 &&
         biasType.getLayout().isIdentity() &&
         biasType.getElementType() == cType.getElementType() &&
         getViewedBuffer(broadcast.getInput()) != getViewedBuffer(c);
}

/// The op that last wrote a foldable start into `c` before `op` (startsC),
/// when nothing between them touches `c` (leavesAlone).
Operation *findStartOfCBefore(Operation *op, Value c, bool allowBias) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<linalg::FillOp, linalg::BroadcastOp>(prev))
      return startsC(prev, c, allowBias) ? prev : nullptr;
    if (!leavesAlone(prev, c))
      return nullptr;
  }
  return nullptr;
}

/// Where C's start (a zero fill, or with `allowBias` a broadcast bias)
/// comes right before `op` (and C is neither input), records it in `tile`
/// and erases it: the kernel then stores its tiles (plus the bias) instead
/// of adding them. Leaves the insertion point before `op`.
void foldStartOfC(RewriterBase &rewriter, Operation *op, MatmulTile &tile,
                  bool allowBias) {
  if (tile.c != tile.a && tile.c != tile.b && !tile.batched)
    tile.cStart = findStartOfCBefore(op, tile.c, allowBias);
  rewriter.setInsertionPoint(op);
  auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(tile.cStart);
  if (broadcast) {
    // dimensions = [1]: C's columns are the added dimension, so bias[i]
    // fills row i.
    tile.bias = broadcast.getInput();
    tile.biasPerRow = broadcast.getDimensions()[0] == 1;
  }
  if (tile.cStart)
    rewriter.eraseOp(tile.cStart);
}

/// Recognises the body pit-sparsify writes for a matmul gathered along k
/// (A's columns with B's rows) or along m (A's rows, scattered into C): the
/// tile as the body gives it, with the STile's own block.
FailureOr<MatmulTile> analyzeMatmulSTile(STileOp op) {
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
  tile.microK = microK;
  tile.microM = microM;
  auto cType = cast<MemRefType>(tile.c.getType());
  tile.cRowsInPieces = cType.hasStaticShape() &&
                       cType.getLayout().isIdentity() &&
                       cType.getShape().back() % 4 == 0;
  return tile;
}

/// The strategy of a matmul STile: a block covers several of the STile's
/// tiles along n, where n allows: each gathered chunk of A is then reused
/// over more of B. Gathered along k, the chunk of compacted k is free
/// (copies never straddle micro-tiles: they are 8 elements at multiples of
/// 8). A tile to keep (a measured variant) is the block as it is.
MmaConfigAttr chooseSTileConfig(STileOp op, const MatmulTile &tile,
                                const MmaStrategyOptions &options) {
  MmaTileShape block = tile.shape;
  if (!op.getKeepTile()) {
    if (tile.extentN % options.blockColumns == 0 &&
        options.blockColumns % block.n == 0)
      block.n = options.blockColumns;
    if (!tile.alongM && options.chunk > 0 && options.chunk % 16 == 0)
      block.k = options.chunk;
  }
  return getConfig(op.getContext(), block, options.stages, options);
}

/// The matmul STile `op` (`tile`, as analyzeMatmulSTile found it) as its
/// kernels build it with `config`, or failure (with a remark where the
/// reason is not the body) for the SIMT lowering.
FailureOr<MatmulTile> matchMatmulTile(STileOp op, MatmulTile tile,
                                      MmaConfigAttr config,
                                      const ChipFacts &chip) {
  if (std::string why = whyConfigDoesNotFit(tile, config); !why.empty()) {
    op.emitRemark("the tile is left to the SIMT lowering: ")
        << config << " does not fit it (" << why << ")";
    return failure();
  }
  applyConfig(tile, config, chip);
  bool alongM = tile.alongM;
  if (alongM && op.getPanel()) {
    std::string why = whyNoPanel(op, tile);
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
  bool narrowA = !alongM && tile.microK % kVector != 0;
  if (!tile.shape.isWhole() || tile.shape.sharedBytes() > kMaxSharedBytes ||
      (narrowA && !BlockMma::splitsIntoPieces(tile.shape.m, tile.shape.k)) ||
      !cast<MemRefType>(tile.a.getType()).hasStaticShape() ||
      !cast<MemRefType>(tile.b.getType()).hasStaticShape())
    return failure();
  return tile;
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
                  kDenseChunk = 64;

/// Recognises a dense `C += A x B` (linalg.matmul, or a generic with its
/// maps; B stored k by n, or n by k as in y = x W^T) on static, contiguous
/// f16/bf16 A and B and f32 (or f16/bf16) C.
FailureOr<MatmulTile> analyzeDenseMatmul(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 3 ||
      !linalg::isaContractionOpInterface(op))
    return failure();
  auto map = [&](unsigned r0, unsigned r1) {
    return getOperandMap(op.getContext(), r0, r1);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != map(0, 2) || maps[2] != map(0, 1) ||
      (maps[1] != map(2, 1) && maps[1] != map(1, 2)))
    return failure();
  MatmulTile tile;
  tile.batched = false;
  tile.alongM = false;
  tile.bByN = maps[1] == map(1, 2);
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
  tile.shape.inputType = inputType;
  // A "micro-tile" of one copy along k: the walk never splits a copy.
  tile.microK = kVector;
  tile.microM = 1;
  return tile;
}

/// The blocks a dense matmul may get on a chip with wgmma, each with the
/// share of the widest block's throughput it reaches when the matmul fills
/// every multiprocessor many times over: set from a first H200 run over the
/// 18 shapes of bench/suite.py (Llama-3-8B and OPT-6.7B projections at 1k
/// to 16k tokens; that run's file was not kept). The next run, on its 13
/// shapes of at least two waves of 128 x 256 tiles, cuBLAS / PIT: 128 x 256
/// 0.91-1.03, 128 x 128 0.77-0.91, 64 x 256 0.66-0.91, 64 x 128 0.46-0.59
/// (`git show 8b57a3a:docs/benchmarks/2026-11-29-H200-suite-results.json`;
/// the latest run: docs/benchmarks/2026-11-29-H200-suite.md).
struct DenseBlockCandidate {
  int64_t rows, columns;
  double relativeThroughput;
};
constexpr DenseBlockCandidate kWarpgroupDenseBlocks[] = {
    {128, 256, 1.0}, {128, 128, 0.84}, {64, 256, 0.84}, {64, 128, 0.5}};

/// The partial sums split-k exchanges, against the multiplication: a part
/// other than the last writes a tile of f32 partial sums, and the last
/// reads each (SplitK.cpp). One exchange costs about kExchangeCostTimesK /
/// K of the tile's whole multiplication: measured on an H200, 512 x 5120 x
/// 5120 in 3 parts of 128 x 256 tiles took 0.094 ms against 0.068 whole,
/// about 0.19 of a tile an exchange at K = 5120 (docs/Rationale.md,
/// split-k). L2's rate alone (12 TB/s, against 740 dense TFLOPS) would make
/// it 124 / K: the last part's reads wait on their latency, a batch of
/// loads at a time, and its adds spill registers.
constexpr double kExchangeCostTimesK = 1000.0;

/// A dense matmul's time with `block` and its tiles split into `kSplits`
/// parts of k, in units of the widest block's time for one of its own
/// tiles: the persistent blocks walk the parts in waves of one a
/// multiprocessor, and a wave takes as long as a part's area x k over the
/// block's throughput, plus the exchange of its partial sums. A matmul of
/// few tiles (1024 x 1024 has 32 of 128 x 256) leaves most multiprocessors
/// idle with wide blocks: there smaller blocks win (on an H200, 128 x 256
/// ran at 0.37-0.45 of cuBLAS's speed there, 64 x 128 at 0.74-1.05), or
/// parts of k where the waves they save outweigh their exchanges
/// (2048 x 13824 x 5120: 320 tiles of 128 x 256, 2.4 waves; 2 parts of
/// each, 4.8 waves of half the work, 5 x (1/2 + 1000/13824) = 2.86 of a
/// wave of whole tiles against 3; measured: 0.92 of cuBLAS against 0.85).
double estimateDenseTime(const MatmulTile &tile,
                         const DenseBlockCandidate &block, int64_t kSplits,
                         int64_t multiprocessors) {
  int64_t tiles = (tile.extentM / block.rows) * (tile.extentN / block.columns);
  int64_t waves = llvm::divideCeilSigned(tiles * kSplits, multiprocessors);
  double area = static_cast<double>(block.rows * block.columns) /
                (kWarpgroupDenseBlocks[0].rows *
                 kWarpgroupDenseBlocks[0].columns);
  double part = 1.0 / kSplits + (kSplits - 1) * kExchangeCostTimesK /
                                    static_cast<double>(tile.extentK);
  return waves * area * part / block.relativeThroughput;
}

/// The parts of k the strategy considers: exactly `options.kSplits` where
/// it is set; otherwise 1. Split-k is not chosen by the estimate yet: on
/// an H200 it lost where the estimate said it would win (512 x 13824 x
/// 5120 in 3 parts: 0.68 of cuBLAS against 0.80 whole; 1024 x 4096 x
/// 14336: 0.80 against 0.92), and won on one shape (2048 x 13824 x 5120 in
/// 2 parts: 0.92 against 0.85). Its exchange must cost less first
/// (docs/Rationale.md, split-k).
int64_t getKSplits(const MmaStrategyOptions &options) {
  return options.kSplits > 0 ? options.kSplits : 1;
}

/// The strategy of a dense matmul: with wgmma, the block of
/// kWarpgroupDenseBlocks that divides the extents and takes the least
/// estimated time with its tiles in getKSplits parts (the widest of
/// equals); otherwise kDenseBlockRows x kDenseBlockColumns. Chunks of
/// kDenseChunk, 3 stages.
MmaConfigAttr chooseDenseConfig(MLIRContext *context, const MatmulTile &tile,
                                const MmaStrategyOptions &options,
                                const ChipFacts &chip) {
  MmaTileShape block{kDenseBlockRows, kDenseBlockColumns, kDenseChunk,
                     tile.shape.inputType};
  int64_t kSplits = getKSplits(options);
  if (chip.warpgroupMma) {
    double best = std::numeric_limits<double>::infinity();
    for (const DenseBlockCandidate &candidate : kWarpgroupDenseBlocks) {
      MmaTileShape shape{candidate.rows, candidate.columns, kDenseChunk,
                         tile.shape.inputType};
      if (!BlockMma::supportsWarpgroupMma(shape, /*aStoredByK=*/false) ||
          tile.extentM % shape.m != 0 || tile.extentN % shape.n != 0)
        continue;
      double time =
          estimateDenseTime(tile, candidate, kSplits, chip.multiprocessors);
      if (time < best) {
        best = time;
        block = shape;
      }
    }
  }
  return getConfig(context, block, /*stages=*/3, options, kSplits);
}

/// A dense matmul (`tile`, as analyzeDenseMatmul found it) as its kernel
/// builds it with `config`, or failure where its extents are not whole
/// blocks.
FailureOr<MatmulTile> matchDenseMatmul(MatmulTile tile, MmaConfigAttr config,
                                       const ChipFacts &chip) {
  applyConfig(tile, config, chip);
  if (tile.extentM % tile.shape.m != 0 || tile.extentN % tile.shape.n != 0 ||
      tile.extentK % tile.shape.k != 0 || !tile.shape.isWhole() ||
      tile.shape.sharedBytes() > kMaxSharedBytes)
    return failure();
  tile.numSegments = tile.extentM / tile.shape.m;
  return tile;
}

/// `op`'s #pit.mma_config, or the default strategy's where it has none.
MmaConfigAttr getConfigOrDefault(Operation *op, const ChipFacts &chip,
                                 const MatmulTile &analyzed) {
  if (auto config = op->getAttrOfType<MmaConfigAttr>(
          PITDialect::getMmaConfigAttrName()))
    return config;
  MmaStrategyOptions defaults;
  if (auto stile = dyn_cast<STileOp>(op))
    return chooseSTileConfig(stile, analyzed, defaults);
  return chooseDenseConfig(op->getContext(), analyzed, defaults, chip);
}

} // namespace

FailureOr<MmaConfigAttr>
mlir::pit::chooseMatmulConfig(Operation *op, const MmaStrategyOptions &options,
                              const ChipFacts &chip) {
  if (auto stile = dyn_cast<STileOp>(op)) {
    FailureOr<MatmulTile> analyzed = analyzeMatmulSTile(stile);
    if (failed(analyzed))
      return failure();
    return chooseSTileConfig(stile, *analyzed, options);
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return failure();
  FailureOr<MatmulTile> analyzed = analyzeDenseMatmul(linalgOp);
  if (failed(analyzed))
    return failure();
  // Extents that are not whole blocks keep the SIMT lowering: no config.
  MmaConfigAttr config =
      chooseDenseConfig(op->getContext(), *analyzed, options, chip);
  if (failed(matchDenseMatmul(*analyzed, config, chip)))
    return failure();
  return config;
}

namespace {

/// For a kernel that reads B k by n only: a k-by-n copy of `tile`'s B
/// (stored n by k), made before `op` by a linalg.transpose that the host
/// stage lowers (TiledTranspose.cpp), which `tile` then reads. Returns the
/// copy, which the caller frees after the kernel.
Value transposeIntoCopy(RewriterBase &rewriter, Location loc,
                        MatmulTile &tile, Operation *op) {
  auto storedByN = cast<MemRefType>(tile.b.getType());
  auto copyType =
      MemRefType::get({storedByN.getDimSize(1), storedByN.getDimSize(0)},
                      storedByN.getElementType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Value copy = memref::AllocOp::create(rewriter, loc, copyType);
  linalg::TransposeOp::create(rewriter, loc, tile.b, copy,
                              ArrayRef<int64_t>{1, 0});
  tile.b = copy;
  tile.bByN = false;
  return copy;
}

/// A dense `C += A x B` (f16 or bf16 A and B, f32 C, static and contiguous)
/// outside any STile: the dense fallback of run-time selection, and any
/// plain matmul of a PIT program. The same kernel as the matmul STile
/// gathered along k, walking all of k with the blocks of `op`'s
/// #pit.mma_config, or of the default strategy (chooseDenseConfig); a zero
/// fill of C right before it is folded into its stores. A B stored n by k
/// is copied by TMA as it is stored where the kernel copies with TMA, and
/// read from a k-by-n copy elsewhere.
LogicalResult lowerMatmulToMMA(RewriterBase &rewriter, linalg::LinalgOp op,
                               const ChipFacts &chip) {
  FailureOr<MatmulTile> analyzed = analyzeDenseMatmul(op);
  if (failed(analyzed))
    return failure();
  FailureOr<MatmulTile> matched = matchDenseMatmul(
      *analyzed, getConfigOrDefault(op, chip, *analyzed), chip);
  if (failed(matched))
    return failure();
  foldStartOfC(rewriter, op, *matched, /*allowBias=*/true);
  Value copyOfB;
  if (matched->bByN &&
      !planGatherAlongK(op->getContext(), *matched).tensorCopies)
    copyOfB = transposeIntoCopy(rewriter, op.getLoc(), *matched, op);
  buildGatherAlongK(rewriter, op.getLoc(), *matched);
  if (copyOfB) {
    rewriter.setInsertionPointAfter(op);
    memref::DeallocOp::create(rewriter, op.getLoc(), copyOfB);
  }
  rewriter.eraseOp(op);
  return success();
}

/// The tile of an f16 or bf16 matmul (or batch matmul) with f32
/// accumulation, gathered along k (A's columns with B's rows) or along m
/// (A's rows, scattered into C): gathered chunks go to shared memory
/// (cp.async, 16 bytes, where a micro-tile row holds 8 elements or more),
/// mma.sync m16n8k16 accumulates in registers, and the block adds its tile
/// into C (atomically when it is gathered along m).
///
/// A's single-column micro-tiles (32x1) would be gathered element by element,
/// a 32-byte sector each: instead the kernel reads a compacted copy of them,
/// which it asks `op`'s detection to write (recorded in `copies`).
///
/// The block is `op`'s #pit.mma_config, or the default strategy's.
LogicalResult
lowerMatmulSTileToMMA(RewriterBase &rewriter, STileOp op, const ChipFacts &chip,
                      llvm::DenseMap<Operation *, Value> &copies) {
  FailureOr<MatmulTile> analyzed = analyzeMatmulSTile(op);
  if (failed(analyzed))
    return failure();
  FailureOr<MatmulTile> matched =
      matchMatmulTile(op, *analyzed, getConfigOrDefault(op, chip, *analyzed),
                      chip);
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
  if (readsCopy)
    matched->compactedA = copies.lookup(detect);
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
    copies[detect] = matched->compactedA;
  }
  if (matched->alongM && matched->panelRows) {
    // A block owns its panel: C's fill folds into the panel's start.
    foldStartOfC(rewriter, op, *matched, /*allowBias=*/false);
    buildPanelMatmul(rewriter, op, *matched);
  } else if (matched->alongM) {
    // Other k segments add into the same elements: C's fill stays.
    rewriter.setInsertionPoint(op);
    buildGatherAlongM(rewriter, op.getLoc(), op, *matched);
  } else {
    foldStartOfC(rewriter, op, *matched, /*allowBias=*/true);
    buildGatherAlongK(rewriter, op.getLoc(), *matched);
  }
  if (ownsCopy) {
    setInsertionPointForCopyDealloc(rewriter, detect, op);
    memref::DeallocOp::create(rewriter, op.getLoc(), matched->compactedA);
  }
  rewriter.eraseOp(op);
  return success();
}

struct MatmulSTileToMma : OpRewritePattern<STileOp> {
  MatmulSTileToMma(MLIRContext *context, const ChipFacts &chip,
                   PITToGPUState &state)
      : OpRewritePattern<STileOp>(context, /*benefit=*/2), chip(chip),
        state(state) {}

  LogicalResult matchAndRewrite(STileOp op,
                                PatternRewriter &rewriter) const override {
    return lowerMatmulSTileToMMA(rewriter, op, chip, state.compactedCopies);
  }

  ChipFacts chip;
  PITToGPUState &state;
};

} // namespace

void mlir::pit::populateMatmulSTileToMmaPatterns(RewritePatternSet &patterns,
                                                 const ChipFacts &chip,
                                                 PITToGPUState &state) {
  patterns.add<MatmulSTileToMma>(patterns.getContext(), chip, state);
}

void mlir::pit::populateDenseMatmulToMmaPatterns(RewritePatternSet &patterns,
                                                 const ChipFacts &chip) {
  patterns.add<DenseOpToMma>(patterns.getContext(), lowerMatmulToMMA, chip);
}
