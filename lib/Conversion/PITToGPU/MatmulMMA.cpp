//===- MatmulMMA.cpp - Tensor-core kernels for matmul STiles --------------===//
//
// Tensor-core kernels for the STiles of `C += A x B` (f16 or bf16 A and B,
// f32 C), built from the pieces of BlockMma.h.
//
// * Gathered along k (matmul, batch matmul): one block per output tile loops
//   over the segment's compacted k, chunk by chunk, and adds its tile into C
//   at the end. It owns the tile, so no atomics.
// * Gathered along m (rows of A): one block per tile of gathered rows, one
//   k segment and one n tile; it scatters its rows back into C with atomic
//   adds, since other k segments add into the same rows.
// * Gathered along m with a panel (pit.stile `panel`): one block per panel
//   of C's rows and n tile walks every k segment, adds the segment's rows
//   that fall in its panel up in shared memory and stores the panel once.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreSTiles.h"

#include "BlockMma.h"
#include "STileBody.h"
#include "VectorDetection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// What the matmul tile reads and writes, found in the STile body.
struct MatmulTile {
  /// Whether a batch loop leads every operand (batch_matmul).
  bool batched;
  /// Whether A's rows are gathered (and C's scattered) rather than k.
  bool alongM;
  Value a, b, c;
  /// The index of the gathered dimension; null for a dense matmul, whose
  /// block walks all of k.
  Value positions;
  /// The matmul's extents (without the batch) and the number of row blocks
  /// (times the batch): a block computes one n tile of one of them.
  int64_t extentM, extentN, extentK, numSegments;
  /// The counts of the STile's index (when there is one).
  Value counts;
  MmaTileShape shape;
  int64_t microK, microM;
  /// Shared-memory stages of the gather along k asked for (the block gets
  /// as many as fit).
  int64_t stages;
  /// The fill that wrote zeros into C just before the STile, or null. With
  /// one, the kernel stores its tile instead of adding it (gather along k
  /// only: there a block owns its tile), and the fill goes away.
  linalg::FillOp zeroFill;
  /// A compacted copy of A's non-zero micro-tiles (memref<segments x
  /// capacity x microM>), which the detection writes, or null.
  Value compactedA;
  /// Whether scattered partial sums may use four-element vector atomics.
  bool vectorAtomics = false;
  /// Whether the chip has wgmma (the kernel uses it where the block's
  /// shape and A's layout allow).
  bool warpgroupMma = false;
  /// Gathered along m: the rows of C a block owns (pit.stile `panel`), or
  /// 0 for atomic adds.
  int64_t panelRows = 0;
  /// Shared memory a block may ask for on the chip.
  int64_t sharedBytesPerBlock = 0;
};

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
  auto type = cast<MemRefType>(memref.getType());
  Value linear = k.index(0);
  for (auto [dim, index] : llvm::enumerate(indices))
    linear = k.add(k.mul(linear, k.index(type.getDimSize(dim))), index);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, b.getIndexType(), memref);
  Value byteAddress = k.add(base, k.mul(linear, k.index(4)));
  Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteAddress);
  std::string registers, constraints = "l";
  for (size_t i = 0; i < values.size(); ++i) {
    registers += (i ? ", $" : "$") + std::to_string(i + 1);
    constraints += ",f";
  }
  SmallVector<Value> operands{address};
  operands.append(values.begin(), values.end());
  LLVM::InlineAsmOp::create(
      b, loc, /*res=*/Type(), operands,
      b.getStringAttr("red.global.add.v" + std::to_string(values.size()) +
                      ".f32 [$0], {" + registers + "};"),
      b.getStringAttr(constraints), b.getUnitAttr(), /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
}

/// The pit.detect that fills `positions` before `op`, in its block or in
/// the blocks that enclose it (a variant of run-time selection runs inside a
/// case of the switch, after the detections), or null.
DetectOp findDetect(STileOp op, Value positions) {
  for (Operation *at = op; at && !isa<FunctionOpInterface>(at);
       at = at->getParentOp())
    for (Operation *prev = at->getPrevNode(); prev; prev = prev->getPrevNode())
      if (auto detect = dyn_cast<DetectOp>(prev))
        if (detect.getPositions() == positions)
          return detect;
  return nullptr;
}

/// Where the compacted copy of `detect` is freed: with the index it is
/// written next to (after the dealloc of its positions), so that it is
/// freed whichever variant runs; right after `op` when there is no such
/// dealloc.
void setInsertionPointForCopyDealloc(OpBuilder &b, DetectOp detect,
                                     STileOp op) {
  for (Operation *user : detect.getPositions().getUsers())
    if (isa<memref::DeallocOp>(user) &&
        user->getBlock() == detect->getBlock()) {
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

/// Gathered along m with a panel: the rows of a block's unit of gathered
/// rows (one multiplication, then added into the panel), the stages of its
/// copies, and the shared memory the block takes.
constexpr int64_t kPanelUnitRows = 64, kPanelStages = 4;
/// Warpgroups a panel block multiplies with: with fewer columns than that
/// many warpgroups cover, replicas of them take the units in turn, so that
/// one's multiplication runs while another adds into the panel.
constexpr int64_t kPanelMmaWarpgroups = 2;
/// How long a thread waiting on an mbarrier may be suspended at a time.
constexpr int64_t kMbarrierSuspendHintNs = 1000000;
/// Padding of a panel row in shared memory, in f32: rows then start 32
/// bytes apart modulo the 128 bytes of the banks, so that the 4 rows a half
/// warp adds into in one access spread over them (and every address is a
/// row's start plus a constant).
constexpr int64_t kPanelRowPadding = 8;

int64_t panelSharedBytes(const MmaTileShape &shape, int64_t panelRows,
                         int64_t stages, int64_t numSegments) {
  int64_t units = numSegments * llvm::divideCeil(panelRows, shape.m);
  // The panel, the tiles, the unit lists, and the alignment the tiles
  // start at.
  return panelRows * (shape.n + kPanelRowPadding) * 4 +
         stages * shape.sharedBytes() +
         4 * (units + numSegments + stages * shape.m + 1) + 8 * 2 * stages +
         6 * 16 + 1024;
}

/// Why an STile gathered along m cannot run its `panel` (empty if it can):
/// the block keeps panel x n f32 in shared memory and stores it in 16-byte
/// pieces; with wgmma, a warpgroup for each 64 columns.
std::string whyNoPanel(STileOp op, const MatmulTile &tile,
                       const MmaKernelOptions &options) {
  auto cType = cast<MemRefType>(tile.c.getType());
  if (!cType.hasStaticShape() || !cType.getLayout().isIdentity() ||
      cType.getShape().back() % 4 != 0)
    return "C is not static and contiguous in rows of 16-byte pieces";
  if (tile.shape.n % 8 != 0)
    return "the tile's n is not a multiple of 8";
  if (tile.shape.m != kPanelUnitRows)
    return "the tile's m is not " + std::to_string(kPanelUnitRows);
  if (!options.warpgroupMma ||
      !BlockMma::supportsWarpgroupMma(tile.shape, /*aKMajor=*/false))
    return "it needs wgmma (sm_90a) on a tile of whole 64-column blocks";
  int64_t bytes = panelSharedBytes(tile.shape, *op.getPanel(), 2,
                                   op.getNumSegments());
  if (bytes > options.sharedBytesPerBlock)
    return "it needs " + std::to_string(bytes) +
           " bytes of shared memory, the chip allows " +
           std::to_string(options.sharedBytesPerBlock);
  return "";
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
  Type outputType = write.getDest().getType().getElementType();
  if (!(inputType.isF16() || inputType.isBF16()) ||
      sreadB.getSource().getType().getElementType() != inputType ||
      !outputType.isF32())
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
  tile.warpgroupMma = options.warpgroupMma;
  tile.sharedBytesPerBlock = options.sharedBytesPerBlock;
  tile.stages = options.stages;
  tile.microK = microK;
  tile.microM = microM;
  auto cType = cast<MemRefType>(tile.c.getType());
  tile.vectorAtomics = options.vectorAtomics && cType.hasStaticShape() &&
                       cType.getLayout().isIdentity() &&
                       cType.getShape().back() % 4 == 0;
  if (alongM && op.getPanel()) {
    std::string why = whyNoPanel(op, tile, options);
    if (why.empty())
      tile.panelRows = *op.getPanel();
    else
      op.emitRemark("panel of ")
          << *op.getPanel() << " rows left out (" << why
          << "): the tile adds into C with atomics";
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
  // A is k-major when read from the compacted copy: wgmma's block needs it
  // k-major in rows, so that block keeps mma.sync.
  bool aKMajor = bool(t.compactedA);
  bool warpgroupMma =
      t.warpgroupMma && BlockMma::supportsWarpgroupMma(s, aKMajor);
  BlockMma mma(b, loc, s, t.numSegments * nTiles,
               fitStages(s, t.stages, warpgroupMma), aKMajor, warpgroupMma);

  Value segment = k.div(mma.blockId, nTiles);
  // Segments are numbered (batch, row block), row-major, as pit.detect does.
  Value m0 = k.mul(k.rem(segment, m / s.m), k.index(s.m));
  Value batch = k.div(segment, m / s.m);
  auto at = [&](Value row, Value column) {
    return t.batched ? SmallVector<Value>{batch, row, column}
                     : SmallVector<Value>{row, column};
  };
  Value n0 = k.mul(k.rem(mma.blockId, nTiles), k.index(s.n));
  Value count = t.positions ? loadCount(k, t.counts, segment)
                            : k.index(capacity);
  Value numChunks =
      k.div(k.add(k.mul(count, k.index(t.microK)), k.index(s.k - 1)), s.k);
  // Where compacted coordinate c of the segment lives along k, and whether
  // it is real (null: always).
  auto gathered = [&](Value c) -> std::pair<Value, Value> {
    if (!t.positions)
      return {c, Value()};
    return gatheredCoordinate(k, t.positions, segment, count, c, t.microK,
                              capacity);
  };

  // B: rows of the chunk (whole rows of B, contiguous along n).
  auto issue = [&](Value stage, Value k0) {
    mma.spread(s.k * s.n / kVector, [&](Value v) {
      Value row = k.div(v, s.n / kVector);
      Value column = k.mul(k.rem(v, s.n / kVector), k.index(kVector));
      auto [source, valid] = gathered(k.add(k0, row));
      mma.copy(mma.sB, stage, row, column, t.b, at(source, k.add(n0, column)),
               valid);
    });
    // A from the compacted copy: micro-tile `slot` of the segment holds
    // A's rows m0.. of gathered column `slot`, contiguous: 16-byte copies of
    // 8 rows into the k-major tile.
    if (t.compactedA) {
      mma.spread(s.k * s.m / kVector, [&](Value v) {
        Value kk = k.div(v, s.m / kVector);
        Value row = k.mul(k.rem(v, s.m / kVector), k.index(kVector));
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
    mma.spread(s.m * s.k / kVector, [&](Value v) {
      Value row = k.div(v, s.k / kVector);
      Value column = k.mul(k.rem(v, s.k / kVector), k.index(kVector));
      auto [source, valid] = gathered(k.add(k0, column));
      mma.copy(mma.sA, stage, row, column, t.a, at(k.add(m0, row), source),
               valid);
    });
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
  if (t.microK % kVector != 0 && !t.compactedA) {
    fill.load = load;
    fill.store = store;
  }
  SmallVector<Value> acc = mma.accumulateChunks(numChunks, fill);

  // SWrite: the block owns its output tile (all of k, every block runs, an
  // empty segment too); it adds it into C, or stores it where C was only
  // cleared before (the clearing is then folded away). A thread's two
  // neighbours in a row go as one 8-byte access where C's rows are
  // contiguous: the 4 threads of a group then fill whole 32-byte sectors
  // with one instruction, instead of half of each with two.
  auto cType = cast<MemRefType>(t.c.getType());
  if (cType.getLayout().isIdentity()) {
    auto pairType = VectorType::get({2}, b.getF32Type());
    llvm::MaybeAlign pairAlignment(8);
    mma.forEachAccumulatorPair(acc, [&](Value row, Value column, Value first,
                                        Value second) {
      SmallVector<Value> indices = at(k.add(m0, row), k.add(n0, column));
      Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                                  ValueRange{first, second});
      if (!t.zeroFill) {
        Value old = vector::LoadOp::create(b, loc, pairType, t.c, indices,
                                           /*nontemporal=*/false, pairAlignment);
        pair = arith::AddFOp::create(b, loc, old, pair);
      }
      vector::StoreOp::create(b, loc, pair, t.c, indices,
                              /*nontemporal=*/false, pairAlignment);
    });
    return;
  }
  mma.forEachAccumulator(acc, [&](Value row, Value column, Value value) {
    SmallVector<Value> indices = at(k.add(m0, row), k.add(n0, column));
    if (!t.zeroFill) {
      Value old = memref::LoadOp::create(b, loc, t.c, indices);
      value = arith::AddFOp::create(b, loc, old, value);
    }
    memref::StoreOp::create(b, loc, value, t.c, indices);
  });
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
  mma.spread(s.m * s.k / kVector, [&](Value v) {
    Value row = k.div(v, s.k / kVector);
    Value column = k.mul(k.rem(v, s.k / kVector), k.index(kVector));
    auto [source, valid] = gathered(row);
    mma.copy(mma.sA, stage, row, column, t.a, {source, k.add(k0, column)},
             valid);
  });
  mma.spread(s.k * s.n / kVector, [&](Value v) {
    Value row = k.div(v, s.n / kVector);
    Value column = k.mul(k.rem(v, s.n / kVector), k.index(kVector));
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
    auto guard = scf::IfOp::create(b, loc, valid, false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    Value c0 = k.add(n0, column);
    if (t.vectorAtomics) {
      buildVectorAtomicAdd(b, loc, t.c, {target, c0}, values);
      return;
    }
    for (auto [i, value] : llvm::enumerate(values))
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, value,
                                  t.c,
                                  ValueRange{target, k.add(c0, k.index(i))});
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

/// The index of an STile gathered along m, sorted by panel: for each
/// segment and panel, the count of the segment's micro-tiles in the panel
/// (memref<segments x panels x i32>) and their positions within it
/// (memref<segments x panels x micro-tiles a panel x i32>), in no order.
struct PanelIndex {
  Value counts, positions;
};

/// Blocks of the kernel that sorts an index by panel; past that, threads
/// take several slots.
constexpr int64_t kSortBlocks = 512, kSortThreads = 256;

/// Sorts the STile's index by panel of `t.panelRows` rows: the counts are
/// cleared (a fill, which becomes a memset, or a kernel inside a variant of
/// run-time selection), then a thread for each slot of the index claims a
/// slot in its panel with an atomic add.
PanelIndex buildPanelIndex(OpBuilder &b, Location loc, const MatmulTile &t) {
  KernelBuilder k{b, loc};
  int64_t numPanels = t.extentM / t.panelRows;
  int64_t capacity = t.extentM / t.microM;
  int64_t panelCapacity = t.panelRows / t.microM;
  Type i32 = b.getI32Type();
  PanelIndex index;
  index.counts = memref::AllocOp::create(
      b, loc, MemRefType::get({t.numSegments, numPanels}, i32));
  index.positions = memref::AllocOp::create(
      b, loc, MemRefType::get({t.numSegments, numPanels, panelCapacity}, i32));
  linalg::FillOp::create(b, loc, k.i32(0), index.counts);

  OpBuilder::InsertionGuard guard(b);
  int64_t slots = t.numSegments * capacity;
  int64_t numBlocks =
      std::min<int64_t>(llvm::divideCeil(slots, kSortThreads), kSortBlocks);
  gpu::LaunchOp launch = createLaunch(b, loc, numBlocks, kSortThreads);
  Value first = k.add(k.mul(launch.getBlockIds().x, k.index(kSortThreads)),
                      launch.getThreadIds().x);
  auto loop = scf::ForOp::create(b, loc, first, k.index(slots),
                                 k.index(numBlocks * kSortThreads));
  b.setInsertionPointToStart(loop.getBody());
  Value slot = loop.getInductionVar();
  Value segment = k.div(slot, capacity);
  Value within = k.rem(slot, capacity);
  auto ifReal = scf::IfOp::create(
      b, loc, k.ult(within, loadCount(k, t.counts, segment)), false);
  b.setInsertionPoint(ifReal.thenBlock()->getTerminator());
  Value position = k.toIndex(memref::LoadOp::create(
      b, loc, t.positions, ValueRange{segment, within}));
  Value panel = k.div(position, panelCapacity);
  Value claimed = memref::AtomicRMWOp::create(
      b, loc, arith::AtomicRMWKind::addi, k.i32(1), index.counts,
      ValueRange{segment, panel});
  memref::StoreOp::create(b, loc, k.toI32(k.rem(position, panelCapacity)),
                          index.positions,
                          ValueRange{segment, panel, k.toIndex(claimed)});
  return index;
}

/// Gathered along m with a panel: a block per (panel of t.panelRows rows of
/// C, n tile) keeps its panel in shared memory (f32) and walks every k
/// segment. A segment's micro-tiles in the panel (from the sorted index)
/// make units of up to m gathered rows; a unit's rows of A and the
/// segment's rows of B are copied in (`stages` deep), multiplied, and added
/// into the panel rows they came from. The panel is stored into C once:
/// no atomics, and C is neither cleared nor read where it was only zeroed.
///
/// The block is warp-specialised (wgmma only): one warpgroup copies the
/// units in, the others multiply them, a unit's multiplication running
/// while the unit before is added into the panel; the two sides meet
/// through each stage's mbarriers. With a block barrier a unit, 4 warps an
/// SM waited on each other's copies, multiplications and adds in turn
/// (1x64 at 90% on an H100: 215 us for the kernel; 181 us split).
/// The copying warpgroup loads a unit's row positions while it issues the
/// unit before, so that their latency overlaps that work.
void buildPanelAlongM(OpBuilder &b, Location loc, const MatmulTile &t,
                      const PanelIndex &index) {
  KernelBuilder k{b, loc};
  const MmaTileShape &s = t.shape;
  int64_t panelRows = t.panelRows;
  int64_t numPanels = t.extentM / panelRows;
  int64_t panelCapacity = panelRows / t.microM;
  int64_t unitsPerSegment = llvm::divideCeil(panelRows, s.m);
  int64_t stages = kPanelStages;
  while (stages > 2 && panelSharedBytes(s, panelRows, stages, t.numSegments) >
                           t.sharedBytesPerBlock)
    --stages;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  SmallVector<MemRefType> workspace{
      MemRefType::get({panelRows, s.n + kPanelRowPadding}, f32),
      MemRefType::get({t.numSegments * unitsPerSegment}, i32),
      MemRefType::get({t.numSegments}, i32),
      MemRefType::get({stages, s.m}, i32), MemRefType::get({1}, i32),
      MemRefType::get({2 * stages}, b.getI64Type())};
  // The warpgroups that multiply (one for each 64 columns, in replicas
  // that take units in turn), then one that copies the units in.
  int64_t columnWarpgroups = s.n / 64;
  int64_t replicas =
      std::max<int64_t>(1, kPanelMmaWarpgroups / columnWarpgroups);
  BlockMma mma(b, loc, s, numPanels * (t.extentN / s.n), stages,
               /*aKMajor=*/false, /*warpgroupMma=*/true, workspace,
               columnWarpgroups, /*otherWarpgroups=*/1, replicas);
  assert(mma.usesWarpgroupMma() && "whyNoPanel checks for wgmma");
  // units: unit u is number `j` of segment `seg`, as seg * unitsPerSegment
  // + j; segmentRows: the segment's gathered rows in the panel; unitRows:
  // each row of a stage's unit as a row of the panel (-1: padding);
  // barriers: each stage's `full` mbarrier, then each stage's `empty` one.
  Value panel = mma.workspace[0], units = mma.workspace[1],
        segmentRows = mma.workspace[2], unitRows = mma.workspace[3],
        numUnitsBuffer = mma.workspace[4], barriers = mma.workspace[5];
  int64_t threads = mma.numThreads, consumers = mma.mmaThreads,
          producerWarps = (threads - consumers) / kWarpSize;
  // The mbarriers as the shared-memory pointers the NVVM ops take.
  Value barriersAddress = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, b.getIndexType(), barriers);
  auto sharedPointer = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  auto barrierAt = [&](Value barrier) -> Value {
    Value address = k.add(barriersAddress, k.mul(barrier, k.index(8)));
    return LLVM::IntToPtrOp::create(
        b, loc, sharedPointer,
        arith::IndexCastOp::create(b, loc, b.getI64Type(), address)
            .getResult());
  };
  auto full = [&](Value stage) { return barrierAt(stage); };
  auto empty = [&](Value stage) {
    return barrierAt(k.add(stage, k.index(stages)));
  };
  auto waitFor = [&](Value barrier, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parity,
                                          k.i32(kMbarrierSuspendHintNs));
  };
  // Panels vary fastest: the blocks at work share a few column slabs of B.
  Value panelIndex = k.rem(mma.blockId, numPanels);
  Value r0 = k.mul(panelIndex, k.index(panelRows));
  Value n0 = k.mul(k.div(mma.blockId, numPanels), k.index(s.n));
  // Each row of the panel in pieces of 4 columns, spread over the block.
  auto forEachPanelPiece = [&](function_ref<void(Value, Value)> body) {
    int64_t pieces = panelRows * s.n / 4;
    auto loop = scf::ForOp::create(b, loc, mma.tid, k.index(pieces),
                                   k.index(threads));
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(loop.getBody());
    Value piece = loop.getInductionVar();
    body(k.div(piece, s.n / 4), k.mul(k.rem(piece, s.n / 4), k.index(4)));
  };
  auto pieceType = VectorType::get({4}, f32);
  // C's pieces of 4 are 16-byte aligned (the entry points take 16-byte
  // aligned tensors, and C's rows are whole pieces): one access each, not
  // four.
  llvm::MaybeAlign pieceAlignment(16);

  // The panel starts at C's values, or at zeros where C was only cleared.
  forEachPanelPiece([&](Value row, Value column) {
    Value value =
        t.zeroFill
            ? arith::ConstantOp::create(
                  b, loc, DenseElementsAttr::get(pieceType, 0.0f))
                  .getResult()
            : vector::LoadOp::create(
                  b, loc, pieceType, t.c,
                  ValueRange{k.add(r0, row), k.add(n0, column)},
                  /*nontemporal=*/false, pieceAlignment)
                  .getResult();
    vector::StoreOp::create(b, loc, value, panel, ValueRange{row, column});
  });

  // The first warp lists the units: a lane per segment, 32 segments a
  // round, each lane's units after those of the lanes before it.
  {
    Value lane = k.rem(mma.tid, kWarpSize);
    auto ifFirstWarp =
        scf::IfOp::create(b, loc, k.ult(mma.tid, k.index(kWarpSize)), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifFirstWarp.thenBlock()->getTerminator());
    int64_t rounds = llvm::divideCeil(t.numSegments, kWarpSize);
    auto loop = scf::ForOp::create(b, loc, k.index(0), k.index(rounds),
                                   k.index(1), ValueRange{k.i32(0)});
    {
      OpBuilder::InsertionGuard body(b);
      b.setInsertionPointToStart(loop.getBody());
      Value base = loop.getRegionIterArgs()[0];
      Value segment = k.add(k.mul(loop.getInductionVar(), k.index(kWarpSize)),
                            lane);
      Value inRange = k.ult(segment, k.index(t.numSegments));
      Value clamped = arith::MinUIOp::create(b, loc, segment,
                                             k.index(t.numSegments - 1));
      Value count = memref::LoadOp::create(b, loc, index.counts,
                                           ValueRange{clamped, panelIndex});
      count = arith::SelectOp::create(b, loc, inRange, count, k.i32(0));
      Value rows = arith::MulIOp::create(b, loc, count, k.i32(t.microM));
      Value unitsHere = arith::DivUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, rows, k.i32(s.m - 1)),
          k.i32(s.m));
      {
        auto ifInRange = scf::IfOp::create(b, loc, inRange, false);
        OpBuilder::InsertionGuard store(b);
        b.setInsertionPoint(ifInRange.thenBlock()->getTerminator());
        memref::StoreOp::create(b, loc, rows, segmentRows, segment);
      }
      Value inclusive = k.inclusiveWarpSum(unitsHere);
      Value start = k.toIndex(arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, base, inclusive), unitsHere));
      auto listUnits = scf::ForOp::create(b, loc, k.index(0),
                                          k.toIndex(unitsHere), k.index(1));
      {
        OpBuilder::InsertionGuard list(b);
        b.setInsertionPointToStart(listUnits.getBody());
        Value j = listUnits.getInductionVar();
        Value entry =
            k.toI32(k.add(k.mul(segment, k.index(unitsPerSegment)), j));
        memref::StoreOp::create(b, loc, entry, units, k.add(start, j));
      }
      Value total = gpu::ShuffleOp::create(b, loc, inclusive,
                                           k.i32(kWarpSize - 1),
                                           k.i32(kWarpSize),
                                           gpu::ShuffleMode::IDX)
                        .getShuffleResult();
      scf::YieldOp::create(b, loc,
                           ValueRange{arith::AddIOp::create(b, loc, base, total)});
    }
    auto ifFirstLane = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                              k.index(0)),
        false);
    b.setInsertionPoint(ifFirstLane.thenBlock()->getTerminator());
    memref::StoreOp::create(b, loc, loop.getResult(0), numUnitsBuffer,
                            k.index(0));
  }
  // Thread 0 sets up each stage's mbarriers before the block's barrier.
  Value isFirstThread = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, mma.tid, k.index(0));
  k.buildIf(isFirstThread, [&] {
    for (int64_t stage = 0; stage < stages; ++stage) {
      NVVM::MBarrierInitOp::create(b, loc, full(k.index(stage)),
                                   k.i32(2 * kWarpSize), Value());
      NVVM::MBarrierInitOp::create(b, loc, empty(k.index(stage)),
                                   k.i32(mma.replicaThreads), Value());
    }
  });
  gpu::BarrierOp::create(b, loc);
  Value numUnits = k.toIndex(
      memref::LoadOp::create(b, loc, numUnitsBuffer, ValueRange{k.index(0)}));

  // Each copying warp copies every producingWarps-th unit in, so that the
  // warps' units are in flight together. The warps that copy divide the
  // stages: a stage then always takes the units of one warp, in order, as
  // its mbarriers' phases need. A unit's copies of A, m rows of
  // 16-byte pieces, are whole rounds of the warp (as are B's). `prepare`
  // loads the index slot of each of this lane's pieces (whatever the slot
  // holds: padding past the segment's rows is sorted out where the slots
  // are used, so that nothing waits for the loads before); `issue` copies
  // the rows.
  int64_t piecesPerRow = s.k / kVector;
  int64_t rounds = s.m * piecesPerRow / kWarpSize;
  int64_t roundsB = s.k * s.n / kVector / kWarpSize;
  assert(s.m * piecesPerRow % kWarpSize == 0 &&
         s.k * s.n / kVector % kWarpSize == 0 &&
         "wgmma tiles are whole rounds of a warp's copies");
  Value producer = arith::SubIOp::create(b, loc, mma.tid, k.index(consumers));
  Value producerLane = k.rem(producer, kWarpSize);
  Value producerWarp = k.div(producer, kWarpSize);
  int64_t producingWarps = producerWarps;
  while (stages % producingWarps != 0)
    --producingWarps;
  // The segment, its number j among the segment's units, and the
  // segment's rows in the panel, of a unit below numUnits.
  auto unitOf = [&](Value unit) {
    Value entry = k.toIndex(memref::LoadOp::create(b, loc, units, unit));
    Value segment = arith::MinUIOp::create(
        b, loc, k.div(entry, unitsPerSegment), k.index(t.numSegments - 1));
    Value rows =
        k.toIndex(memref::LoadOp::create(b, loc, segmentRows, segment));
    return std::tuple{segment, k.rem(entry, unitsPerSegment), rows};
  };
  auto pieceOf = [&](int64_t round) {
    Value piece = k.add(producerLane, k.index(round * kWarpSize));
    return std::pair{k.div(piece, piecesPerRow),
                     k.mul(k.rem(piece, piecesPerRow), k.index(kVector))};
  };
  auto gatheredRow = [&](Value j, int64_t round) {
    return k.add(k.mul(j, k.index(s.m)), pieceOf(round).first);
  };
  auto prepare = [&](Value unit) {
    // Past the last unit the last one's slots are loaded, and not used.
    Value last = arith::SubIOp::create(
        b, loc, arith::MaxUIOp::create(b, loc, numUnits, k.index(1)),
        k.index(1));
    auto fields = unitOf(arith::MinUIOp::create(b, loc, unit, last));
    Value segment = std::get<0>(fields), j = std::get<1>(fields);
    SmallVector<Value> slots;
    for (int64_t round = 0; round < rounds; ++round) {
      Value slot = arith::MinUIOp::create(
          b, loc, k.div(gatheredRow(j, round), t.microM),
          k.index(panelCapacity - 1));
      slots.push_back(memref::LoadOp::create(
          b, loc, index.positions, ValueRange{segment, panelIndex, slot}));
    }
    return slots;
  };
  auto issue = [&](Value stage, Value unit, ValueRange slots) {
    auto [segment, j, rows] = unitOf(unit);
    Value k0 = k.mul(segment, k.index(s.k));
    for (int64_t round = 0; round < rounds; ++round) {
      auto [row, column] = pieceOf(round);
      Value gathered = gatheredRow(j, round);
      Value valid = k.ult(gathered, rows);
      // The row within the panel, or -1 for padding.
      Value local = arith::SelectOp::create(
          b, loc, valid,
          arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, slots[round],
                                    k.i32(t.microM)),
              k.toI32(k.rem(gathered, t.microM))),
          k.i32(-1));
      Value source = k.add(
          r0, k.toIndex(arith::MaxSIOp::create(b, loc, local, k.i32(0))));
      mma.copy(mma.sA, stage, row, column, t.a,
               ValueRange{source, k.add(k0, column)}, valid);
      // The thread that copies a row's first piece records the row.
      k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      column, k.index(0)),
                [&] {
                  memref::StoreOp::create(b, loc, local, unitRows,
                                          ValueRange{stage, row});
                });
    }
    for (int64_t round = 0; round < roundsB; ++round) {
      Value piece = k.add(producerLane, k.index(round * kWarpSize));
      Value row = k.div(piece, s.n / kVector);
      Value column = k.mul(k.rem(piece, s.n / kVector), k.index(kVector));
      mma.copy(mma.sB, stage, row, column, t.b,
               ValueRange{k.add(k0, row), k.add(n0, column)}, Value());
    }
  };
  // The two rows of a unit this thread's accumulators hold, as rows of the
  // panel (-1: padding): loaded when the unit has landed, used a round
  // later, when the unit is added into the panel.
  Value accumulatorRow = mma.warpgroupAccumulatorRow();
  auto loadUnitRows = [&](Value slot) {
    SmallVector<Value> rows;
    for (int64_t below : {0, 8})
      rows.push_back(memref::LoadOp::create(
          b, loc, unitRows,
          ValueRange{slot, k.add(accumulatorRow, k.index(below))}));
    return rows;
  };
  // Adds a unit's product into the panel rows its rows came from. A unit's
  // real rows come first and its padding after them, so a thread skips the
  // adds of a padding row, and a warp whose rows are all padding skips them
  // altogether: the adds are most of the shared memory traffic of a unit,
  // and a unit of a sparse panel is mostly padding. A unit's rows are
  // distinct, so all of a row's loads may go before its stores.
  auto addIntoPanel = [&](ValueRange acc, ValueRange rows) {
    auto pairType = VectorType::get({2}, f32);
    // The thread's accumulator pairs (column, values) of each of its rows.
    SmallVector<SmallVector<std::pair<Value, Value>>> pairsOfRow(2);
    mma.forEachAccumulatorBlock(acc, [&](Value, Value column,
                                         ArrayRef<Value> values) {
      for (int64_t half = 0; half < 2; ++half)
        pairsOfRow[half].push_back(
            {column, vector::FromElementsOp::create(
                         b, loc, pairType,
                         ValueRange{values[2 * half], values[2 * half + 1]})});
    });
    for (auto [local, pairs] : llvm::zip(rows, pairsOfRow)) {
      Value real = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         local, k.i32(0));
      k.buildIf(real, [&] {
        // Not negative here: zero-extended.
        Value panelRow = arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                                      local);
        SmallVector<Value> sums;
        for (auto [column, pair] : pairs) {
          Value old = vector::LoadOp::create(b, loc, pairType, panel,
                                             ValueRange{panelRow, column});
          sums.push_back(arith::AddFOp::create(b, loc, old, pair));
        }
        for (auto [sum, columnAndPair] : llvm::zip(sums, pairs))
          vector::StoreOp::create(b, loc, sum, panel,
                                  ValueRange{panelRow, columnAndPair.first});
      });
    }
  };
  // Units of different segments may hold the same panel row, in the rows
  // of different warps: the units are added in order, a turn each. Replica
  // r of a column warpgroup takes its turn at named barrier 1 + c R + r
  // (c: the columns, R replicas; 0 is the block's barrier) when the
  // warpgroup of the unit before, r - 1 (mod R), hands it over: one side
  // syncs, the other arrives. That also keeps the warps of a warpgroup
  // together (with one replica, it hands the turn to itself).
  Value replica = k.div(mma.tid, mma.replicaThreads);
  Value columnGroup = k.rem(k.div(mma.tid, kMmaThreads), columnWarpgroups);
  auto turnOf = [&](Value replicaIndex) {
    return k.toI32(k.add(k.mul(columnGroup, k.index(replicas)),
                         k.add(replicaIndex, k.index(1))));
  };
  Value turnThreads = k.i32(2 * kMmaThreads);
  auto takeTurn = [&] {
    NVVM::BarrierOp::create(b, loc, Type(), turnOf(replica), turnThreads,
                            /*reductionOp=*/nullptr,
                            /*reductionPredicate=*/Value());
  };
  auto handOverTurn = [&] {
    NVVM::BarrierArriveOp::create(
        b, loc, turnOf(k.rem(k.add(replica, k.index(1)), replicas)),
        turnThreads);
  };
  auto addInTurn = [&](ValueRange acc, ValueRange rows) {
    takeTurn();
    addIntoPanel(acc, rows);
    handOverTurn();
  };
  // Unit u takes stage u % stages, as the (u / stages)-th use of it: the
  // phase whose parity its full mbarrier completes, and its empty mbarrier
  // the phase before.
  auto stageOf = [&](Value unit) { return k.rem(unit, stages); };
  auto useParity = [&](Value unit, int64_t plus) {
    return k.toI32(k.rem(k.add(k.div(unit, stages), k.index(plus)), 2));
  };

  auto isBelow = [&](Value x, Value y) -> Value { return k.ult(x, y); };
  auto ifProducer = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, mma.tid,
                            k.index(consumers)),
      /*withElseRegion=*/true);
  {
    // The producers: a warp loads the index slots of its next unit while
    // it issues this one; the copies of unit u wait for the consumers to
    // be done with unit u - stages.
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifProducer.thenBlock()->getTerminator());
    auto ifProducing = scf::IfOp::create(
        b, loc, k.ult(producerWarp, k.index(producingWarps)), false);
    b.setInsertionPoint(ifProducing.thenBlock()->getTerminator());
    auto loop = scf::ForOp::create(b, loc, producerWarp, numUnits,
                                   k.index(producingWarps),
                                   prepare(producerWarp));
    b.setInsertionPointToStart(loop.getBody());
    Value unit = loop.getInductionVar();
    SmallVector<Value> nextSlots =
        prepare(k.add(unit, k.index(producingWarps)));
    Value stage = stageOf(unit);
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, unit,
                                    k.index(stages)),
              [&] { waitFor(empty(stage), useParity(unit, 1)); });
    issue(stage, unit, loop.getRegionIterArgs());
    // The stage is full once the warp's copies have landed (an arrival of
    // each lane's own, counted in the mbarrier's 2 x 32) and its rows are
    // recorded (this arrival, a release).
    NVVM::CpAsyncMBarrierArriveOp::create(b, loc, full(stage),
                                          /*noinc=*/true);
    NVVM::MBarrierArriveOp::create(b, loc, Type(), full(stage), Value());
    scf::YieldOp::create(b, loc, nextSlots);
  }
  {
    // The consumers: replica r multiplies units r, r + R, ..., each while
    // its unit before is added into the panel (in turn); once a unit is
    // multiplied (and its rows read), its stage is free.
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifProducer.elseBlock()->getTerminator());
    // The last replica hands the first its first turn.
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                    k.index(replicas - 1)),
              handOverTurn);
    // The loop carries the product of the replica's unit before and its
    // rows.
    SmallVector<Value> carried = mma.zeroAccumulators();
    int64_t numAccumulators = carried.size();
    carried.append({k.i32(-1), k.i32(-1)});
    auto loop = scf::ForOp::create(b, loc, replica, numUnits,
                                   k.index(replicas), carried);
    {
      OpBuilder::InsertionGuard body(b);
      b.setInsertionPointToStart(loop.getBody());
      Value unit = loop.getInductionVar();
      waitFor(full(stageOf(unit)), useParity(unit, 0));
      // wgmma reads through the async proxy what the copies wrote.
      NVVM::FenceProxyOp::create(
          b, loc,
          NVVM::ProxyKindAttr::get(b.getContext(),
                                   NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      SmallVector<Value> rows = loadUnitRows(stageOf(unit));
      SmallVector<Value> acc = mma.startProduct(stageOf(unit));
      ValueRange previous = loop.getRegionIterArgs();
      k.buildIf(isBelow(k.index(replicas - 1), unit), [&] {
        addInTurn(previous.take_front(numAccumulators),
                  previous.drop_front(numAccumulators));
      });
      mma.finishMultiply();
      NVVM::MBarrierArriveOp::create(b, loc, Type(), empty(stageOf(unit)),
                                     Value());
      acc.append(rows);
      scf::YieldOp::create(b, loc, acc);
    }
    k.buildIf(isBelow(replica, numUnits), [&] {
      ValueRange last = loop.getResults();
      addInTurn(last.take_front(numAccumulators),
                last.drop_front(numAccumulators));
    });
    // The turn handed over after the last unit: its replica takes it, so
    // that every handover is taken.
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                    k.rem(numUnits, replicas)),
              takeTurn);
  }
  gpu::BarrierOp::create(b, loc);
  // The stages' mbarriers are done with: the block's next tile sets them
  // up again.
  k.buildIf(isFirstThread, [&] {
    for (int64_t stage = 0; stage < stages; ++stage) {
      NVVM::MBarrierInvalOp::create(b, loc, full(k.index(stage)));
      NVVM::MBarrierInvalOp::create(b, loc, empty(k.index(stage)));
    }
  });
  forEachPanelPiece([&](Value row, Value column) {
    Value value =
        vector::LoadOp::create(b, loc, pieceType, panel,
                               ValueRange{row, column});
    vector::StoreOp::create(b, loc, value, t.c,
                            ValueRange{k.add(r0, row), k.add(n0, column)},
                            /*nontemporal=*/false, pieceAlignment);
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
/// maps) on static, contiguous f16/bf16 A and B and f32 C, whose extents
/// are whole blocks.
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
  if (!(inputType.isF16() || inputType.isBF16()) ||
      cast<MemRefType>(tile.b.getType()).getElementType() != inputType ||
      !cast<MemRefType>(tile.c.getType()).getElementType().isF32())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  tile.extentM = ranges[0];
  tile.extentN = ranges[1];
  tile.extentK = ranges[2];
  MmaTileShape wide{kDenseBlockRows, kDenseWarpgroupBlockColumns, kDenseChunk,
                    inputType};
  bool widens = options.warpgroupMma &&
                BlockMma::supportsWarpgroupMma(wide, /*aKMajor=*/false) &&
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
  tile.warpgroupMma = options.warpgroupMma;
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
  // Single-column micro-tiles of A (32x1): read a compacted copy that the
  // detection writes, when this STile's detection scans A itself. STiles
  // of one detection (variants of run-time selection that differ in their
  // tile) read the same copy: the detection writes one.
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
    rewriter.setInsertionPoint(detect);
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
    PanelIndex index = buildPanelIndex(rewriter, op.getLoc(), *matched);
    buildPanelAlongM(rewriter, op.getLoc(), *matched, index);
    rewriter.setInsertionPointAfter(op);
    memref::DeallocOp::create(rewriter, op.getLoc(), index.counts);
    memref::DeallocOp::create(rewriter, op.getLoc(), index.positions);
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
