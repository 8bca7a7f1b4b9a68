//===- SddmmMMA.cpp - Tensor-core kernels for SDDMM STiles ----------------===//
//
// SDDMM, `C[m, n] += M[m, n] * sum_k A[m, k] B[k, n]` with the mask M sparse,
// on the tensor cores. The mask's micro-tiles are gathered along m (A's rows
// come with them) or along n (B's columns come with them); either way one
// block owns a tile of gathered output elements, multiplies A by B over the
// whole of k (the pieces of BlockMma.h), scales each sum by its mask element
// and adds it into C. No other block writes those elements, so no atomics.
//
// Scaling the sum rather than each product is the same function: the mask
// element does not depend on k.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreSTiles.h"

#include "BlockMma.h"
#include "STileBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// What the SDDMM tile reads and writes, found in the STile body.
struct SddmmTile {
  /// Whether the mask's rows are gathered (with A's) rather than its columns
  /// (with B's).
  bool alongM;
  Value a, b, mask, c;
  /// C's element type: f32, or the inputs' f16 or bf16 (the product is
  /// summed in f32 either way and rounded once, where C is stored).
  Type outputType;
  Value positions;
  MmaTileShape shape;
  /// The micro-tile's extent along the gathered dimension.
  int64_t micro;
};

/// The block argument that `value` is, possibly through an extf.
BlockArgument stripExtension(Value value) {
  if (auto extension = value.getDefiningOp<arith::ExtFOp>())
    value = extension.getIn();
  return dyn_cast<BlockArgument>(value);
}

/// Whether `body` yields `out + x * y * w` (any association and order of the
/// product) over its three inputs x, y, w and its output out.
bool isScaledProductSum(Block &body) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto sum = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!sum)
    return false;
  Value out = body.getArgument(3);
  Value product = sum.getLhs() == out ? sum.getRhs() : sum.getLhs();
  if ((sum.getLhs() == out) == (sum.getRhs() == out))
    return false;
  SmallVector<Value> factors{product};
  SmallVector<unsigned> inputs;
  while (!factors.empty()) {
    Value factor = factors.pop_back_val();
    if (auto multiply = factor.getDefiningOp<arith::MulFOp>()) {
      factors.push_back(multiply.getLhs());
      factors.push_back(multiply.getRhs());
      continue;
    }
    BlockArgument argument = stripExtension(factor);
    if (!argument || argument.getOwner() != &body)
      return false;
    inputs.push_back(argument.getArgNumber());
  }
  llvm::sort(inputs);
  return inputs == SmallVector<unsigned>{0, 1, 2};
}

/// Whether B's gathered pieces are narrower than a copy, so that they go
/// through registers.
bool narrowB(const SddmmTile &t) { return !t.alongM && t.micro % kVector != 0; }

/// Recognises the body pit-sparsify writes for an SDDMM whose sparse mask is
/// gathered along m or n.
FailureOr<SddmmTile> matchSddmmTile(STileOp op) {
  if (op.getNumLoops() != 3)
    return failure();
  auto map = [&](unsigned r0, unsigned r1) {
    return getOperandMap(op.getContext(), r0, r1);
  };
  int64_t axis = op.getPitAxis();
  if (op.getSparseMap() != map(0, 1) || (axis != 0 && axis != 1))
    return failure();
  FailureOr<STileBody> body = findSTileBody(op);
  if (failed(body))
    return failure();
  auto [generic, write] = *body;
  if (generic.getNumDpsInputs() != 3 ||
      generic.getNumDpsInits() != 1 ||
      generic.getIndexingMapsArray() !=
          SmallVector<AffineMap>{map(0, 2), map(2, 1), map(0, 1), map(0, 1)} ||
      generic.getIteratorTypesArray() !=
          SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel,
                                           utils::IteratorType::reduction} ||
      !isScaledProductSum(generic.getRegion().front()))
    return failure();

  SReadOp readA = findRead(generic.getDpsInputs()[0]);
  SReadOp readB = findRead(generic.getDpsInputs()[1]);
  SReadOp readMask = findRead(generic.getDpsInputs()[2]);
  int64_t micro = op.getMicroTile()[axis];
  bool alongM = axis == 0;
  // The gathered operand (A along m, B along n) and the mask come through
  // the index; the other operand is read densely.
  SReadOp gatheredInput = alongM ? readA : readB;
  SReadOp denseInput = alongM ? readB : readA;
  if (!isGatheredRead(gatheredInput, alongM ? 0 : 1, micro) ||
      !isGatheredRead(readMask, axis, micro) || !denseInput ||
      denseInput.getPositions() || !write.getPositions() ||
      write.getAxis() != axis || write.getMicro() != micro ||
      write.getCombiner() != CombinerKind::Add ||
      write.getSource() != generic.getDpsInits()[0])
    return failure();

  SddmmTile tile;
  tile.alongM = alongM;
  tile.a = readA.getSource();
  tile.b = readB.getSource();
  tile.mask = readMask.getSource();
  tile.c = write.getDest();
  tile.positions = gatheredInput.getPositions();
  tile.micro = micro;
  Type inputType = readA.getSource().getType().getElementType();
  tile.outputType = write.getDest().getType().getElementType();
  auto isStatic = [](Value memref) {
    return cast<MemRefType>(memref.getType()).hasStaticShape();
  };
  if (!(inputType.isF16() || inputType.isBF16()) ||
      readB.getSource().getType().getElementType() != inputType ||
      !isa<FloatType>(readMask.getSource().getType().getElementType()) ||
      !(tile.outputType.isF32() || tile.outputType == inputType) ||
      !isStatic(tile.a) ||
      !isStatic(tile.b) || !isStatic(tile.mask) || !isStatic(tile.c))
    return failure();
  ArrayRef<int64_t> shape = op.getTile();
  tile.shape = {shape[0], shape[1], shape[2], inputType};
  if (!tile.shape.isWhole() || tile.shape.sharedBytes() > kSharedBytes ||
      (narrowB(tile) &&
       !BlockMma::splitsIntoPieces(tile.shape.k, tile.shape.n)))
    return failure();
  return tile;
}

/// A block per (segment, tile of gathered rows or columns): the product over
/// the whole of k, scaled by the mask, added into the scattered elements.
void buildSddmm(OpBuilder &b, Location loc, STileOp op, const SddmmTile &t) {
  KernelBuilder k{b, loc};
  const MmaTileShape &s = t.shape;
  ArrayRef<int64_t> domain = op.getDomain();
  // Along m, a segment is a block of the mask's columns (s.n wide) and the
  // block's tile holds gathered rows; along n, the other way round.
  int64_t gatheredExtent = t.alongM ? domain[0] : domain[1];
  int64_t gatheredTile = t.alongM ? s.m : s.n;
  int64_t capacity = gatheredExtent / t.micro;
  int64_t gatheredTiles = llvm::divideCeil(gatheredExtent, gatheredTile);
  int64_t numChunks = domain[2] / s.k;
  BlockMma mma(b, loc, s, op.getNumSegments() * gatheredTiles,
               /*stages=*/numChunks > 1 ? 2 : 1);

  // Gathered tiles vary slowest: the live ones (below a segment's count)
  // come first, and spread over all blocks when blocks take several tiles
  // each.
  int64_t numSegments = op.getNumSegments();
  Value segment = k.rem(mma.blockId, numSegments);
  Value gathered0 =
      k.mul(k.div(mma.blockId, numSegments), k.index(gatheredTile));
  Value dense0 = k.mul(segment, k.index(t.alongM ? s.n : s.m));
  Value count = loadCount(k, op.getCounts(), segment);
  auto gathered = [&](Value c) {
    return gatheredCoordinate(k, t.positions, segment, count,
                              k.add(gathered0, c), t.micro, capacity);
  };

  // Blocks past the segment's gathered micro-tiles have nothing to do.
  enterIfLive(k, gathered0, count, t.micro);

  auto issue = [&](Value stage, Value k0) {
    // A: rows contiguous along k, gathered along m.
    mma.spread(s.m * s.k / kVector, [&](Value v) {
      Value row = k.div(v, s.k / kVector);
      Value column = k.mul(k.rem(v, s.k / kVector), k.index(kVector));
      Value source = k.add(k0, column);
      if (!t.alongM)
        return mma.copy(mma.sA, stage, row, column, t.a,
                        {k.add(dense0, row), source}, Value());
      auto [sourceRow, valid] = gathered(row);
      mma.copy(mma.sA, stage, row, column, t.a, {sourceRow, source}, valid);
    });
    // B: rows contiguous along n; gathered along n, 16-byte copies only when
    // a micro-tile row holds whole vectors.
    if (!t.alongM && t.micro % kVector != 0)
      return;
    mma.spread(s.k * s.n / kVector, [&](Value v) {
      Value row = k.div(v, s.n / kVector);
      Value column = k.mul(k.rem(v, s.n / kVector), k.index(kVector));
      Value sourceRow = k.add(k0, row);
      if (t.alongM)
        return mma.copy(mma.sB, stage, row, column, t.b,
                        {sourceRow, k.add(dense0, column)}, Value());
      auto [sourceColumn, valid] = gathered(column);
      mma.copy(mma.sB, stage, row, column, t.b, {sourceRow, sourceColumn},
               valid);
    });
  };
  // Else B's gathered columns element by element, through registers.
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(s.inputType));
  auto load = [&](Value k0) {
    return mma.loadPieces(s.k, s.n, [&](Value row, Value column) {
      auto [sourceColumn, valid] = gathered(column);
      Value value = memref::LoadOp::create(
          b, loc, t.b, ValueRange{k.add(k0, row), sourceColumn});
      return arith::SelectOp::create(b, loc, valid, value, zero).getResult();
    });
  };
  auto store = [&](Value stage, ValueRange pieces) {
    mma.storePieces(mma.sB, stage, pieces);
  };
  BlockMma::ChunkFill fill{issue};
  if (narrowB(t)) {
    fill.load = load;
    fill.store = store;
  }
  SmallVector<Value> acc = mma.accumulateChunks(k.index(numChunks), fill);

  // SWrite: scale by the mask and add into the block's scattered elements;
  // padding is not written. Every mask weight and old value of C is loaded
  // before the first store: as far as LLVM knows a store into C may alias
  // the loads after it, so loads between stores would wait for each other,
  // a round trip to memory per element (the 32x1 SDDMM at 99% spent most
  // of its STile's time so). A padding element reads the in-bounds element
  // at position 0 and keeps it.
  struct Write {
    Value valid, sum;
    SmallVector<Value> indices;
  };
  SmallVector<Write> writes;
  // With gathered rows, a thread's two neighbours in a row are neighbours
  // in C and in the mask too: one access each for both (half the L1
  // wavefronts of element by element, which bound the 1x64 STile at low
  // sparsity). Gathered columns are not neighbours in memory.
  bool pairs = t.alongM && hasEvenRows(t.mask) && hasEvenRows(t.c);
  if (pairs) {
    mma.forEachAccumulatorPair(
        acc, [&](Value row, Value column, Value first, Value second) {
          auto [target, valid] = gathered(row);
          SmallVector<Value> indices{target, k.add(dense0, column)};
          Value weights = k.widenToF32(k.loadPair(t.mask, indices));
          Value old = k.widenToF32(k.loadPair(t.c, indices));
          Value products = arith::MulFOp::create(
              b, loc,
              vector::FromElementsOp::create(
                  b, loc, VectorType::get({2}, b.getF32Type()),
                  ValueRange{first, second}),
              weights);
          Value sums = arith::AddFOp::create(b, loc, old, products);
          writes.push_back({valid, k.roundTo(t.outputType, sums), indices});
        });
  } else {
    mma.forEachAccumulator(acc, [&](Value row, Value column, Value value) {
      auto [target, valid] = gathered(t.alongM ? row : column);
      SmallVector<Value> indices =
          t.alongM ? SmallVector<Value>{target, k.add(dense0, column)}
                   : SmallVector<Value>{k.add(dense0, row), target};
      Value weight =
          k.widenToF32(memref::LoadOp::create(b, loc, t.mask, indices));
      Value old = k.widenToF32(memref::LoadOp::create(b, loc, t.c, indices));
      Value scaled = arith::MulFOp::create(b, loc, value, weight);
      Value sum = arith::AddFOp::create(b, loc, old, scaled);
      writes.push_back({valid, k.roundTo(t.outputType, sum), indices});
    });
  }
  for (const Write &write : writes)
    k.buildIf(write.valid, [&] {
      if (pairs)
        k.storePair(write.sum, t.c, write.indices);
      else
        memref::StoreOp::create(b, loc, write.sum, t.c, write.indices);
    });
}

} // namespace

LogicalResult mlir::pit::lowerSddmmSTileToMMA(RewriterBase &rewriter,
                                              STileOp op) {
  FailureOr<SddmmTile> matched = matchSddmmTile(op);
  if (failed(matched))
    return failure();
  rewriter.setInsertionPoint(op);
  buildSddmm(rewriter, op.getLoc(), op, *matched);
  rewriter.eraseOp(op);
  return success();
}
