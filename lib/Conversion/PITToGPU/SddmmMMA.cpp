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
// A dense SDDMM (the fallback of run-time selection, or one without a mark)
// runs over C's own tiles. With a short k its products cost little next to
// the mask it reads and the elements of C it reads and writes, so it reads
// the whole mask, coalesced, and touches C only where the mask is not zero;
// a wave of blocks walks the tiles, each next tile's loads in flight while
// the one before is multiplied and written (buildDenseSddmmWalk).
//
//===----------------------------------------------------------------------===//

#include "TensorCoreSTiles.h"

#include "PIT/Conversion/PITToGPU.h"

#include "BlockMma.h"
#include "STileBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The block tile of a dense SDDMM: C's 64 x 64 tiles, k whole up to
/// kDenseWalkMaxK and by chunks of 64 beyond. With k of 64-128 the product
/// costs little next to the mask and C: the kernel is bound by their bytes
/// and by how many of them it keeps in flight.
/// Kernel times of earlier kernels, a tile a block, 4096^2 with k = 64 at
/// 90% sparsity, 32x1 / 1x64 masks (H100, 2026-11-24): 64 x 64 47.5 / 35.3
/// us; 64 x 128 51.0 / 41.1 (242 registers); 32 x 128 47.4 / 35.8; 32 x
/// 64 59.9 / 33.3.
constexpr int64_t kDenseRows = 64, kDenseColumns = 64, kDenseChunk = 64;
/// The longest k that a dense SDDMM takes whole: two stages of 64 x k and
/// k x 64 take 64 KiB at 128, and leave room for 2 blocks a multiprocessor.
/// At k = 128, chunks of 64 with 3 blocks took 4-8% longer (32x1 / 1x64
/// masks, 0-99% sparsity, H100 2026-11-24: 46.7 / 46.7 us against 44.5 /
/// 44.9 at 0%, 36.2 / 31.5 against 33.8 / 30.4 at 99%): a tile then waits
/// for two chunks.
constexpr int64_t kDenseWalkMaxK = 128;
/// Blocks of a dense SDDMM walk on each multiprocessor at most: what their
/// registers allow (about 150 a thread). Their shared memory may allow
/// fewer (2 with a whole k of 96 or 128).
constexpr int64_t kDenseWalkBlocksPerMultiprocessor = 3;
/// f32 elements after each row of a dense SDDMM walk's sums in shared
/// memory.
constexpr int64_t kDenseSumsPadding = 8;

/// What the SDDMM tile reads and writes, found in the STile body.
/// A dense SDDMM (matchDenseSddmm) has the operands, shape and extents
/// only: its tiles are C's own.
struct SddmmTile {
  Value a, b, mask, c;
  /// C's element type: f32, or the inputs' f16 or bf16 (the product is
  /// summed in f32 either way and rounded once, where C is stored).
  Type outputType;
  MmaTileShape shape;
  /// The extents of (m, n, k).
  SmallVector<int64_t, 3> domain;
  /// STiles: whether the mask's rows are gathered (with A's) rather than
  /// its columns (with B's); the index; the micro-tile's extent along the
  /// gathered dimension; the segments along the dimension that is not.
  bool alongM = false;
  Value positions, counts;
  int64_t micro = 0;
  int64_t numSegments = 0;
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

/// Whether `generic` is an SDDMM: C (m x n) += A (m x k) x B (k x n) scaled
/// by a mask (m x n), each element by its own.
bool isSddmmGeneric(linalg::GenericOp generic) {
  auto map = [&](unsigned r0, unsigned r1) {
    return getOperandMap(generic.getContext(), r0, r1);
  };
  return generic.getNumDpsInputs() == 3 && generic.getNumDpsInits() == 1 &&
         generic.getIndexingMapsArray() ==
             SmallVector<AffineMap>{map(0, 2), map(2, 1), map(0, 1),
                                    map(0, 1)} &&
         generic.getIteratorTypesArray() ==
             SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                              utils::IteratorType::parallel,
                                              utils::IteratorType::reduction} &&
         isScaledProductSum(generic.getRegion().front());
}

/// Whether the tile's buffers are static and of types the kernel takes:
/// f16 or bf16 A and B, a float mask, and C of f32 or A's type.
bool hasSupportedTypes(const SddmmTile &t) {
  auto elementType = [](Value memref) {
    return cast<MemRefType>(memref.getType()).getElementType();
  };
  Type inputType = elementType(t.a);
  return (inputType.isF16() || inputType.isBF16()) &&
         elementType(t.b) == inputType && isa<FloatType>(elementType(t.mask)) &&
         (t.outputType.isF32() || t.outputType == inputType) &&
         llvm::all_of(ValueRange{t.a, t.b, t.mask, t.c}, [](Value memref) {
           return cast<MemRefType>(memref.getType()).hasStaticShape();
         });
}

/// Whether B's gathered pieces are narrower than a copy, so that they go
/// through registers.
bool narrowB(const SddmmTile &t) { return !t.alongM && t.micro % kVector != 0; }

/// Recognises the body pit-sparsify writes for an SDDMM whose sparse mask is
/// gathered along m or n.
FailureOr<SddmmTile> matchSddmmTile(STileOp op) {
  if (op.getNumLoops() != 3)
    return failure();
  int64_t axis = op.getPitAxis();
  if (op.getSparseMap() != getOperandMap(op.getContext(), 0, 1) ||
      (axis != 0 && axis != 1))
    return failure();
  FailureOr<STileBody> body = findSTileBody(op);
  if (failed(body))
    return failure();
  auto [generic, write] = *body;
  if (!isSddmmGeneric(generic))
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
  tile.counts = op.getCounts();
  tile.micro = micro;
  tile.domain = llvm::to_vector_of<int64_t, 3>(op.getDomain());
  tile.numSegments = op.getNumSegments();
  tile.outputType = write.getDest().getType().getElementType();
  if (!hasSupportedTypes(tile))
    return failure();
  ArrayRef<int64_t> shape = op.getTile();
  tile.shape = {shape[0], shape[1], shape[2],
                readA.getSource().getType().getElementType()};
  if (!tile.shape.isWhole() || tile.shape.sharedBytes() > kStaticSharedBytesPerBlock ||
      (narrowB(tile) &&
       !BlockMma::splitsIntoPieces(tile.shape.k, tile.shape.n)))
    return failure();
  return tile;
}

/// Recognises a dense SDDMM whose extents divide the dense block tile.
FailureOr<SddmmTile> matchDenseSddmm(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureBufferSemantics() ||
      !isSddmmGeneric(generic))
    return failure();
  SddmmTile tile;
  tile.a = generic.getDpsInputs()[0];
  tile.b = generic.getDpsInputs()[1];
  tile.mask = generic.getDpsInputs()[2];
  tile.c = generic.getDpsInits()[0];
  tile.outputType = getElementTypeOrSelf(tile.c.getType());
  if (!hasSupportedTypes(tile) ||
      !llvm::all_of(generic->getOperands(), [](Value memref) {
        return cast<MemRefType>(memref.getType()).getLayout().isIdentity();
      }))
    return failure();
  tile.domain = llvm::to_vector_of<int64_t, 3>(op.getStaticLoopRanges());
  // k whole, or by chunks of 64 where it is longer.
  int64_t depth = tile.domain[2];
  tile.shape = {kDenseRows, kDenseColumns,
                depth <= kDenseWalkMaxK ? depth : kDenseChunk,
                getElementTypeOrSelf(tile.a.getType())};
  if (tile.domain[0] % tile.shape.m != 0 ||
      tile.domain[1] % tile.shape.n != 0 || depth % tile.shape.k != 0 ||
      !tile.shape.isWhole())
    return failure();
  return tile;
}

/// The SWrite of an SDDMM tile: scale by the mask and add into the block's
/// scattered elements; padding is not written. Where each of the thread's
/// elements goes, and its mask weight, come before the product: their
/// loads' latency then overlaps its copies and multiplications. Every old
/// value of C is loaded before the first store: as far as LLVM knows a
/// store into C may alias the loads after it, so loads between stores would
/// wait for each other, a round trip to memory per element (the 32x1 SDDMM
/// at 99% spent most of its STile's time so). A padding element reads the
/// in-bounds element at position 0 and keeps it.
///
/// `multiply()` builds the product and returns its accumulators; the
/// tile's rows or columns are gathered as `gathered` says, the others
/// start at `dense0`.
void buildScaledWrite(KernelBuilder &k, BlockMma &mma, const SddmmTile &t,
                      function_ref<std::pair<Value, Value>(Value)> gathered,
                      Value dense0,
                      function_ref<SmallVector<Value>()> multiply) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  struct Write {
    /// Whether the elements are written: real, not padding.
    Value valid;
    SmallVector<Value> indices;
    /// The element's (or pair's) weights, f32 sums and old value.
    Value weights, sums, old;
  };
  SmallVector<Write> writes;
  // With gathered rows, a thread's two neighbours in a row are neighbours
  // in C and in the mask too: one access each for both (half the L1
  // wavefronts of element by element, which bound the 1x64 STile at low
  // sparsity). Gathered columns are not neighbours in memory.
  bool pairs = t.alongM && hasEvenRows(t.mask) && hasEvenRows(t.c);
  // The accumulators' places, without their values.
  SmallVector<Value> places = mma.zeroAccumulators();
  if (pairs) {
    mma.forEachAccumulatorPair(places,
                               [&](Value row, Value column, Value, Value) {
                                 auto [target, valid] = gathered(row);
                                 writes.push_back(
                                     {valid, {target, k.add(dense0, column)}});
                               });
  } else {
    mma.forEachAccumulator(places, [&](Value row, Value column, Value) {
      auto [target, valid] = gathered(t.alongM ? row : column);
      writes.push_back(
          {valid, t.alongM ? SmallVector<Value>{target, k.add(dense0, column)}
                           : SmallVector<Value>{k.add(dense0, row), target}});
    });
  }
  // An element, or a pair, of the mask or of C.
  auto loadOutput = [&](Value memref, ArrayRef<Value> indices) -> Value {
    if (pairs)
      return k.loadPair(memref, indices);
    return memref::LoadOp::create(b, loc, memref, indices);
  };
  for (Write &write : writes)
    write.weights = loadOutput(t.mask, write.indices);

  SmallVector<Value> acc = multiply();
  // The same places, in the same order, with their values.
  Write *next = writes.begin();
  if (pairs) {
    mma.forEachAccumulatorPair(acc,
                               [&](Value, Value, Value first, Value second) {
                                 (next++)->sums = vector::FromElementsOp::create(
                                     b, loc,
                                     VectorType::get({2}, b.getF32Type()),
                                     ValueRange{first, second});
                               });
  } else {
    mma.forEachAccumulator(
        acc, [&](Value, Value, Value value) { (next++)->sums = value; });
  }
  for (Write &write : writes)
    write.old = loadOutput(t.c, write.indices);
  for (Write &write : writes) {
    Value scaled =
        arith::MulFOp::create(b, loc, write.sums, k.widenToF32(write.weights));
    Value sum = k.roundTo(
        t.outputType,
        arith::AddFOp::create(b, loc, k.widenToF32(write.old), scaled));
    k.buildIf(write.valid, [&] {
      if (pairs)
        k.storePair(sum, t.c, write.indices);
      else
        memref::StoreOp::create(b, loc, sum, t.c, write.indices);
    });
  }
}

/// A block per (segment, tile of gathered rows or columns): the product over
/// the whole of k, scaled by the mask, added into the scattered elements.
void buildSddmm(OpBuilder &b, Location loc, const SddmmTile &t) {
  KernelBuilder k{b, loc};
  const MmaTileShape &s = t.shape;
  ArrayRef<int64_t> domain = t.domain;
  // Along m, a segment is a block of the mask's columns (s.n wide) and the
  // block's tile holds gathered rows; along n, the other way round.
  int64_t gatheredExtent = t.alongM ? domain[0] : domain[1];
  int64_t gatheredTile = t.alongM ? s.m : s.n;
  int64_t capacity = gatheredExtent / t.micro;
  int64_t gatheredTiles = llvm::divideCeil(gatheredExtent, gatheredTile);
  int64_t numChunks = domain[2] / s.k;
  BlockMma mma(b, loc, s, t.numSegments * gatheredTiles,
               /*stages=*/numChunks > 1 ? 2 : 1);

  // Gathered tiles vary slowest: the live ones (below a segment's count)
  // come first, and spread over all blocks when blocks take several tiles
  // each.
  Value segment = k.rem(mma.blockId, t.numSegments);
  Value gathered0 =
      k.mul(k.div(mma.blockId, t.numSegments), k.index(gatheredTile));
  Value dense0 = k.mul(segment, k.index(t.alongM ? s.n : s.m));
  // Where gathered coordinate `c` of the block's tile lives, and whether it
  // is a micro-tile the detection found.
  Value count = loadCount(k, t.counts, segment);
  auto gathered = [&](Value c) {
    return gatheredCoordinate(k, t.positions, segment, count,
                              k.add(gathered0, c), t.micro, capacity);
  };
  // Blocks past the segment's gathered micro-tiles have nothing to do.
  enterIfLive(k, gathered0, count, t.micro);

  auto issue = [&](Value stage, Value k0) {
    // A: rows contiguous along k, gathered along m.
    mma.spreadPieces(s.m, s.k, [&](Value row, Value column) {
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
    mma.spreadPieces(s.k, s.n, [&](Value row, Value column) {
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

  buildScaledWrite(k, mma, t, gathered, dense0, [&] {
    return mma.accumulateChunks(k.index(numChunks), fill);
  });
}

/// One wave of blocks of a dense SDDMM walk, each walking its tiles: a
/// block more than fits would walk its tiles after the others. A
/// multiprocessor has the reserve of one block more than a block may ask
/// for, and keeps a reserve for each block.
Value buildDenseWalkGrid(KernelBuilder &k, const MmaTileShape &s,
                         MemRefType sumsType, int64_t numTiles, Block *entry,
                         const ChipFacts &chip) {
  int64_t blocksPerMultiprocessor = std::clamp<int64_t>(
      (chip.sharedBytesPerBlock + chip.sharedBytesReservedPerBlock) /
          (BlockMma::dynamicSharedBytes(s, /*stages=*/2, /*warpgroup=*/false,
                                        {sumsType}) +
           chip.sharedBytesReservedPerBlock),
      1, kDenseWalkBlocksPerMultiprocessor);
  return arith::MinUIOp::create(
      k.b, k.loc, k.index(numTiles),
      k.mul(buildMultiprocessorCountAtEntry(k.b, k.loc, entry),
            k.index(blocksPerMultiprocessor)));
}

/// kVector neighbours of `memref` from `indices`, 16-byte aligned.
Value loadVectorRun(KernelBuilder &k, Value memref, ValueRange indices) {
  return vector::LoadOp::create(
      k.b, k.loc, VectorType::get({kVector}, getElementTypeOrSelf(memref)),
      memref, indices, /*nontemporal=*/false, llvm::MaybeAlign(16));
}

/// The runs of C at `origin` whose weights are not all zero (`live`), and
/// their old values (`old`; a run that is not live reads the tile's first).
void loadLiveC(KernelBuilder &k, const SddmmTile &t,
               std::pair<Value, Value> origin,
               ArrayRef<std::pair<Value, Value>> runs, ValueRange weights,
               Value zeroWeights, SmallVectorImpl<Value> &live,
               SmallVectorImpl<Value> &old) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto [m0, n0] = origin;
  for (auto [run, weight] : llvm::zip(runs, weights)) {
    Value nonzero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                          weight, zeroWeights);
    live.push_back(vector::ReductionOp::create(
        b, loc, vector::CombiningKind::OR, nonzero));
    old.push_back(loadVectorRun(
        k, t.c,
        {arith::SelectOp::create(b, loc, live.back(), k.add(m0, run.first),
                                 m0),
         arith::SelectOp::create(b, loc, live.back(), k.add(n0, run.second),
                                 n0)}));
  }
}

/// A dense SDDMM walk's write-back of the tile at `origin`: the sums
/// through shared memory (`sums`), into the thread's `runs` of the tile,
/// scaled by their `weights` and added to their `old` values of C where
/// they are `live`.
void writeBackTile(KernelBuilder &k, BlockMma &mma, const SddmmTile &t,
                   ValueRange acc, Value sums, std::pair<Value, Value> origin,
                   ArrayRef<std::pair<Value, Value>> runs, ValueRange weights,
                   ValueRange live, ValueRange old) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto [m0, n0] = origin;
  mma.forEachAccumulatorPair(
      acc, [&](Value row, Value column, Value firstSum, Value secondSum) {
        Value pair = vector::FromElementsOp::create(
            b, loc, VectorType::get({2}, b.getF32Type()),
            ValueRange{firstSum, secondSum});
        vector::StoreOp::create(b, loc, pair, sums, ValueRange{row, column},
                                /*nontemporal=*/false, llvm::MaybeAlign(8));
      });
  gpu::BarrierOp::create(b, loc);
  for (auto [run, weight, isRunLive, oldRun] :
       llvm::zip(runs, weights, live, old)) {
    Value scaled = arith::MulFOp::create(
        b, loc, loadVectorRun(k, sums, {run.first, run.second}),
        k.widenToF32(weight));
    Value sum = k.roundTo(
        t.outputType,
        arith::AddFOp::create(b, loc, k.widenToF32(oldRun), scaled));
    k.buildIf(isRunLive, [&] {
      vector::StoreOp::create(
          b, loc, sum, t.c,
          ValueRange{k.add(m0, run.first), k.add(n0, run.second)},
          /*nontemporal=*/false, llvm::MaybeAlign(16));
    });
  }
}

/// A dense SDDMM: its blocks, a few a multiprocessor, walk C's tiles
/// (every grid-th), and start each next tile while the one before is in
/// hand. A tile waits on memory three times: A's and B's copies, the
/// mask's weights, and the elements of C the weights let through; one tile
/// a block would wait for them in turn, every tile. Here, in a tile's turn:
/// its C loads go out first (its weights came in the turn before), then the
/// next chunk's copies (the other stage; after the tile's last chunk, the
/// next tile's first, and its weights), and only then does the block wait
/// for this chunk's copies and multiply; it writes back once the last
/// chunk is in, by which time its C has come in. With k of 128 or less
/// (one chunk) this is one wait a tile.
///
/// The mask and C are read and written 16 bytes a thread, whole rows of a
/// warp: the accumulators' own layout (two neighbours a thread, 8 rows a
/// warp) cost an L1 access for every 4 bytes, and bound the kernel on L1.
/// The sums go through shared memory to get there. A run of 8 weights that
/// are all zero reads its tile's first run instead (one sector a warp, from
/// L1), so that no branch waits on a load, and is not written.
void buildDenseSddmmWalk(OpBuilder &b, Location loc, const SddmmTile &t,
                         Block *entry, const ChipFacts &chip) {
  KernelBuilder k{b, loc};
  const MmaTileShape &s = t.shape;
  int64_t columnTiles = t.domain[1] / s.n;
  int64_t numTiles = t.domain[0] / s.m * columnTiles;
  // The tile's f32 sums, rows padded by 32 bytes: the accumulators' pairs
  // of 8 rows then fall on 2 sets of banks, not 1.
  auto sumsType =
      MemRefType::get({s.m, s.n + kDenseSumsPadding}, b.getF32Type());
  Value gridBlocks =
      buildDenseWalkGrid(k, s, sumsType, numTiles, entry, chip);
  BlockMma mma(b, loc, s, numTiles, /*stages=*/2, /*aStoredByK=*/false,
               /*warpgroupMma=*/false, /*workspace=*/{sumsType},
               /*columnWarpgroups=*/1, /*otherWarpgroups=*/0,
               /*replicas=*/1, /*clusterBlocks=*/1, gridBlocks);
  Value sums = mma.workspace.front();

  // Tiles go along n first: the blocks at work share A's rows.
  auto originOf = [&](Value tile) -> std::pair<Value, Value> {
    return {k.mul(k.div(tile, columnTiles), k.index(s.m)),
            k.mul(k.rem(tile, columnTiles), k.index(s.n))};
  };
  // Copies chunk `chunk` (static) of `tile`'s A rows and B columns into
  // `stage`, a group of their own.
  auto issue = [&](Value stage, Value tile, int64_t chunk) {
    auto [m0, n0] = originOf(tile);
    Value k0 = k.index(chunk * s.k);
    mma.spreadPieces(s.m, s.k, [&](Value row, Value column) {
      mma.copy(mma.sA, stage, row, column, t.a,
               {k.add(m0, row), k.add(k0, column)}, Value());
    });
    mma.spreadPieces(s.k, s.n, [&](Value row, Value column) {
      mma.copy(mma.sB, stage, row, column, t.b,
               {k.add(k0, row), k.add(n0, column)}, Value());
    });
    mma.commitCopies();
  };
  // The thread's runs of kVector neighbours in a row of the tile: run
  // tid + r x threads of the tile's s.m x s.n / kVector.
  SmallVector<std::pair<Value, Value>> runs;
  int64_t runsPerRow = s.n / kVector;
  for (int64_t r = 0; r < s.m * runsPerRow / mma.numThreads; ++r) {
    Value run = k.add(mma.tid, k.index(r * mma.numThreads));
    runs.push_back({k.div(run, runsPerRow),
                    k.mul(k.rem(run, runsPerRow), k.index(kVector))});
  }
  auto loadRun = [&](Value memref, ValueRange indices) {
    return loadVectorRun(k, memref, indices);
  };
  auto weightsOf = [&](Value tile) {
    auto [m0, n0] = originOf(tile);
    SmallVector<Value> weights;
    for (auto [row, column] : runs)
      weights.push_back(loadRun(t.mask, {k.add(m0, row), k.add(n0, column)}));
    return weights;
  };
  // The weights of a run that leaves C alone: a run of C is read and
  // written only where its weights are not all zero.
  Value zeroWeights = arith::ConstantOp::create(
      b, loc,
      b.getZeroAttr(VectorType::get({kVector}, getElementTypeOrSelf(t.mask))));

  Value first = mma.blockId;
  Value step = mma.launch.getGridSize().x;
  int64_t numChunks = t.domain[2] / s.k;
  issue(k.index(0), first, /*chunk=*/0);
  SmallVector<Value> initial = weightsOf(first);
  initial.push_back(k.index(0));
  auto walk =
      scf::ForOp::create(b, loc, first, k.index(numTiles), step, initial);
  b.setInsertionPointToStart(walk.getBody());
  Value tile = walk.getInductionVar();
  ValueRange carried = walk.getRegionIterArgs();
  ValueRange weights = carried.drop_back();
  Value stage = carried.back();
  auto [m0, n0] = originOf(tile);

  // This tile's C, where its weights let it through.
  SmallVector<Value> live, old;
  loadLiveC(k, t, {m0, n0}, runs, weights, zeroWeights, live, old);
  // The next tile (past the last tile, this one again: its loads stay in
  // bounds, and nothing branches).
  Value next = k.add(tile, step);
  next = arith::SelectOp::create(b, loc, k.ult(next, k.index(numTiles)), next,
                                 tile);
  // This tile's product, chunk by chunk, each chunk's copies the older of
  // the two groups in flight: first the next chunk's copies (the next
  // tile's first one, with its weights, after the last) go into the other
  // stage. A barrier after each chunk's product frees its stage for the
  // copies of the chunk after next; after the last one, the barrier that
  // follows the sums does. (The next tile's first barrier keeps its sums
  // from overwriting these before every thread has read them.)
  SmallVector<Value> acc, nextCarried;
  for (int64_t chunk = 0; chunk < numChunks; ++chunk) {
    bool last = chunk + 1 == numChunks;
    Value otherStage = arith::SubIOp::create(b, loc, k.index(1), stage);
    issue(otherStage, last ? next : tile, last ? 0 : chunk + 1);
    if (last)
      nextCarried = weightsOf(next);
    mma.waitForCopies(/*pending=*/1);
    if (chunk == 0)
      acc = mma.startProduct(stage);
    else
      mma.multiply(acc, stage);
    if (!last)
      gpu::BarrierOp::create(b, loc);
    stage = otherStage;
  }
  // The stage of the next tile's first chunk.
  nextCarried.push_back(stage);
  writeBackTile(k, mma, t, acc, sums, {m0, n0}, runs, weights, live, old);
  scf::YieldOp::create(b, loc, nextCarried);
  // No copy may still be landing when the block ends.
  b.setInsertionPointAfter(walk);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
}

/// The tile of an SDDMM, `C[m, n] += M[m, n] * sum_k A[m, k] B[k, n]` with f16
/// or bf16 A and B, f32 C and the mask M sparse, gathered along m (A's and
/// M's rows) or along n (B's and M's columns): the block multiplies its
/// gathered tile over the whole of k with mma.sync, multiplies by the mask in
/// the epilogue, and adds the result into its scattered elements of C.
LogicalResult lowerSddmmSTileToMMA(RewriterBase &rewriter, STileOp op) {
  FailureOr<SddmmTile> matched = matchSddmmTile(op);
  if (failed(matched))
    return failure();
  rewriter.setInsertionPoint(op);
  buildSddmm(rewriter, op.getLoc(), *matched);
  rewriter.eraseOp(op);
  return success();
}

/// A dense SDDMM outside any STile (the fallback of run-time selection, and
/// any SDDMM of a PIT program), with the same operand types, static and
/// contiguous, and extents that divide the block tile (64 x 64; k a
/// multiple of 16 up to 128, or of 64): a kernel over C's own tiles that
/// reads the mask coalesced and touches C only where it is not zero. Its
/// blocks, as many as fit on the chip at once (by its shared memory), walk
/// the tiles with each next tile's loads in flight.
LogicalResult lowerSddmmToMMA(RewriterBase &rewriter, linalg::LinalgOp op,
                              const ChipFacts &chip) {
  FailureOr<SddmmTile> matched = matchDenseSddmm(op);
  if (failed(matched))
    return failure();
  rewriter.setInsertionPoint(op);
  buildDenseSddmmWalk(
      rewriter, op.getLoc(), *matched,
      &op->getParentOfType<FunctionOpInterface>().getFunctionBody().front(),
      chip);
  rewriter.eraseOp(op);
  return success();
}

struct SddmmSTileToMma : OpRewritePattern<STileOp> {
  SddmmSTileToMma(MLIRContext *context)
      : OpRewritePattern<STileOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(STileOp op,
                                PatternRewriter &rewriter) const override {
    return lowerSddmmSTileToMMA(rewriter, op);
  }
};

} // namespace

void mlir::pit::populateSddmmSTileToMmaPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SddmmSTileToMma>(patterns.getContext());
}

void mlir::pit::populateDenseSddmmToMmaPatterns(RewritePatternSet &patterns,
                                                const ChipFacts &chip) {
  patterns.add<DenseOpToMma>(patterns.getContext(), lowerSddmmToMMA, chip);
}
