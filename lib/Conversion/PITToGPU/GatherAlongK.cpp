//===- GatherAlongK.cpp - The tensor-core kernel of a gather along k ------===//
//
// The kernel of a matmul STile gathered along k (A's columns with B's rows)
// and of a dense matmul, which is the same walk over all of k: a block per
// (segment, n tile) loops over the chunks of the segment's compacted k and
// adds its output tile into C. planGatherAlongK chooses how (the strategy);
// GatherAlongKKernel builds what the plan says (the emission).
//
//===----------------------------------------------------------------------===//

#include "MatmulTile.h"

#include "BlockMma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Shared-memory stages of a warp-specialised block, as many as fit up to
/// this.
constexpr int64_t kSpecializedStages = 4;

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

/// The flags of the plan that depend only on the tile, before the shared
/// memory decides the stages.
void planCopies(const MatmulTile &t, GatherAlongKPlan &plan) {
  const MmaTileShape &s = t.shape;
  // A is stored k by k when read from the compacted copy: wgmma reads it
  // m-major in tiles of 64 rows; other heights keep mma.sync.
  plan.aStoredByK = bool(t.compactedA);
  plan.warpgroupMma = t.chip.warpgroupMma &&
                      BlockMma::supportsWarpgroupMma(s, plan.aStoredByK);
  plan.numTiles = t.numSegments * (t.extentN / s.n);
  // A's pieces go through registers where a copy would straddle gathered
  // micro-tiles.
  plan.stagedA = t.microK % kVector != 0 && !t.compactedA;
  // A dense walk over A and B that the function takes as arguments can
  // copy its chunks with TMA (one thread issues them; 4096^3 f16 on an
  // H100: 195 us, 220 with cp.async; 187 with the persistent blocks below),
  // optionally in clusters of blocks of neighbouring rows that share B's
  // chunks (multicast, as cuBLAS's kernel does; mma-cluster-blocks: 178 us
  // in clusters of 2 blocks, persistent). The
  // tensor maps are asked for at the function's entry, before any device
  // work, where the host code waits for nothing.
  plan.clusterBlocks = std::max<int64_t>(1, t.clusterBlocks);
  plan.tensorCopies =
      t.specialize && t.tensorCopies && plan.warpgroupMma && !t.positions &&
      !t.batched && isEntryArgument(t.a) && isEntryArgument(t.b) &&
      s.k == kSwizzleRowElements &&
      s.n % (plan.clusterBlocks * kSwizzleRowElements) == 0 &&
      t.numSegments % plan.clusterBlocks == 0;
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
  plan.writesThroughTensorMap =
      t.chip.warpgroupMma && t.tensorCopies && t.cStart && !t.batched &&
      isEntryArgument(t.c) && cType.hasStaticShape() &&
      cType.getLayout().isIdentity() &&
      t.outputType.getIntOrFloatBitWidth() == 16;
  plan.tensorStores = plan.writesThroughTensorMap && plan.tensorCopies &&
                      s.n % (2 * BlockMma::kStagedColumns) == 0;
  // A block for each multiprocessor walks the tiles: the next tile's first
  // chunks come in while the last one is written back. (The blocks of a
  // cluster walk theirs in step: the grid is whole clusters, and the tiles
  // of a cluster are neighbours, so both have as many.)
  plan.persistent = plan.tensorCopies;
  // With wgmma and chunks copied whole, the block is warp-specialised: a
  // copying warpgroup keeps up to kSpecializedStages chunks in flight, each
  // stage's mbarriers pacing it against the multiplying warpgroups. Its
  // setmaxnreg runs once a kernel: a block takes one tile, or walks its
  // own (persistent).
  plan.specialized = t.specialize && plan.warpgroupMma && !plan.stagedA &&
                     (plan.persistent || plan.numTiles <= kMaxMmaBlocks);
}

/// The stages and the workspace of a warp-specialised block, as many
/// stages as the chip's shared memory holds; or no specialisation where
/// even two stages do not fit.
void planSpecializedStages(MLIRContext *context, const MatmulTile &t,
                           GatherAlongKPlan &plan) {
  const MmaTileShape &s = t.shape;
  plan.stages = kSpecializedStages;
  // The staging buffer first: right after the tiles (whole 1024-byte
  // swizzle patterns, from a multiple of 1024), it starts at a multiple
  // of 1024 bytes, as the TMA's swizzled reads of it need.
  auto buffers = [&](int64_t stages) {
    SmallVector<MemRefType> buffers;
    if (plan.tensorStores)
      buffers.push_back(BlockMma::stagingType(t.outputType, s.m / 64));
    buffers.push_back(StageBarriers::type(context, stages));
    return buffers;
  };
  auto bytes = [&](int64_t stages) {
    return BlockMma::dynamicSharedBytes(s, stages, /*warpgroup=*/true,
                                        buffers(stages));
  };
  // The staging buffer never takes a stage's place.
  if (plan.tensorStores && bytes(plan.stages) > t.chip.sharedBytesPerBlock)
    plan.tensorStores = false;
  while (plan.stages > 2 && bytes(plan.stages) > t.chip.sharedBytesPerBlock)
    --plan.stages;
  plan.specialized = bytes(plan.stages) <= t.chip.sharedBytesPerBlock;
  if (plan.specialized)
    plan.workspace = buffers(plan.stages);
  else
    plan.stages = fitStages(s, t.stages, plan.warpgroupMma);
  assert((!plan.tensorStores || plan.stages * s.sharedBytes() % 1024 == 0) &&
         "the staging buffer after the tiles starts 1024-byte aligned");
}

/// Tile `tile`'s segment and its first row and column.
struct TileOrigin {
  Value segment, m0, n0;
};

/// Builds the kernel of a gather along k as `plan` says.
class GatherAlongKKernel {
public:
  GatherAlongKKernel(OpBuilder &b, Location loc, const MatmulTile &t,
                     const GatherAlongKPlan &plan)
      : b(b), loc(loc), k{b, loc}, t(t), s(t.shape), plan(plan),
        capacity(t.extentK / t.microK), nTiles(t.extentN / t.shape.n) {}

  void build();

private:
  void buildLaunch();
  TileOrigin originOf(Value tile);
  SmallVector<Value> at(Value row, Value column);
  Value loadPosition(Value c);
  std::pair<Value, Value> gatheredWith(Value c,
                                       function_ref<Value(Value)> positionOf);
  void issueWith(Value stage, Value k0, function_ref<Value(Value)> positionOf);
  SmallVector<Value> loadStagedA(Value k0);
  void storeTile(ValueRange acc, Value tileM0, Value tileN0);
  void storeSixteenBitRuns(ValueRange acc, Value tileM0, Value tileN0);
  Value pairForC(ValueRange indices, Value first, Value second);
  Value startAt(Value row, Value column);
  Value startOfPair(Value row, Value column);
  void walkSpecialized(const BlockMma::ChunkFill &fill);
  std::pair<Value, Value> splitOf(Value unit);
  void finishUnit(Value unit, ValueRange acc);
  void storeWalkedTile(Value tile, ValueRange acc);
  void accumulateAndStore(const BlockMma::ChunkFill &fill);

  OpBuilder &b;
  Location loc;
  KernelBuilder k;
  const MatmulTile &t;
  const MmaTileShape &s;
  const GatherAlongKPlan &plan;
  int64_t capacity, nTiles;
  Value mapA, mapB, mapC;
  /// Split-k's partial sums and arrivals (plan.kSplits > 1).
  PartialSums sums;
  std::optional<BlockMma> mma;
  Value segment, m0, n0, batch, count, numChunks, zero;
};

void GatherAlongKKernel::buildLaunch() {
  Value gridBlocks, tileCounter;
  if (plan.tensorCopies) {
    mapA = buildTensorMapAtEntry(b, loc, t.a, s.m, s.k);
    // Boxes of B's chunk k x 64, or of 64 rows of n x k stored n by k.
    mapB = t.bByN
               ? buildTensorMapAtEntry(b, loc, t.b, kSwizzleRowElements, s.k)
               : buildTensorMapAtEntry(b, loc, t.b, s.k, kSwizzleRowElements);
  }
  if (plan.tensorStores)
    mapC = buildTensorMapAtEntry(b, loc, t.c, 64, BlockMma::kStagedColumns);
  if (plan.persistent) {
    Value blocks = arith::MinUIOp::create(
        b, loc, k.index(plan.numTiles),
        buildMultiprocessorCountAtEntry(
            b, loc, cast<BlockArgument>(t.a).getOwner()));
    gridBlocks = arith::MaxUIOp::create(
        b, loc,
        k.mul(k.div(blocks, plan.clusterBlocks), k.index(plan.clusterBlocks)),
        k.index(plan.clusterBlocks));
  }
  if (plan.kSplits > 1) {
    // A slot of the tile's f32 sums for each part but the last, and a
    // count of arrivals for each multiplying warp of each tile.
    int64_t multiplyingWarps = s.m / 64 * kMmaWarps;
    sums = PartialSums{
        buildDeviceBuffer(
            b, loc,
            MemRefType::get({(plan.kSplits - 1) * plan.numTiles * s.m * s.n},
                            b.getF32Type())),
        buildZeroedCounter(b, loc, plan.numTiles * multiplyingWarps),
        plan.numTiles, plan.kSplits};
  }
  if (plan.tileCounter) {
    Block *entry = &b.getInsertionBlock()
                        ->getParent()
                        ->getParentOfType<func::FuncOp>()
                        .getBody()
                        .front();
    gridBlocks = arith::MinUIOp::create(
        b, loc, k.index(plan.numTiles),
        k.mul(buildMultiprocessorCountAtEntry(b, loc, entry),
              k.index(plan.residentBlocks)));
    tileCounter = buildZeroedCounter(b, loc);
  }
  mma.emplace(b, loc, s, plan.numTiles, plan.stages, plan.aStoredByK,
              plan.warpgroupMma, plan.workspace,
              /*columnWarpgroups=*/1,
              /*otherWarpgroups=*/plan.specialized ? 1 : 0,
              /*replicas=*/1, plan.clusterBlocks, gridBlocks, tileCounter);
  assert((!t.bByN || plan.tensorCopies) &&
         "only the TMA copies read a B stored n by k");
  if (t.bByN)
    mma->takeBStoredByN();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(mma->launch);
  for (Value buffer : {tileCounter, sums.partials, sums.arrivals})
    if (buffer)
      gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{},
                             buffer);
}

// The blocks of a cluster take neighbouring row blocks of one n tile. An
// STile's tiles go n tile by n tile, every segment of one before the next:
// the blocks running at once then read B's rows of a few n tiles (at
// 4096^3, 528 blocks of 256 columns: 4 n tiles, 8 MiB of B), which stay in
// L2 while every segment gathers from them. Segment by segment, they read
// every row of B at once (the segments' k together cover most of it), and
// L2, where C's tiles are written too, let B's rows go before their next
// use. On an H100, 32x1 at 90% read 114 MB from DRAM that way for a 32 MiB
// B, 36 MB this way (ncu); calls at 90-95% took 2-6 us less.
TileOrigin GatherAlongKKernel::originOf(Value tile) {
  int64_t m = t.extentM;
  if (t.positions) {
    Value segment = k.rem(tile, t.numSegments);
    return TileOrigin{segment, k.mul(k.rem(segment, m / s.m), k.index(s.m)),
                      k.mul(k.div(tile, t.numSegments), k.index(s.n))};
  }
  int64_t clusterBlocks = plan.clusterBlocks;
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
}

SmallVector<Value> GatherAlongKKernel::at(Value row, Value column) {
  return t.batched ? SmallVector<Value>{batch, row, column}
                   : SmallVector<Value>{row, column};
}

/// The index's entry of compacted coordinate c of the segment (an i32).
Value GatherAlongKKernel::loadPosition(Value c) {
  return loadGatheredPosition(k, t.positions, segment, c, t.microK, capacity);
}

/// Where compacted coordinate c of the segment lives along k, and whether
/// it is real (null: always), given `positionOf(c)`, the index's entry of
/// c (an i32): loaded there (loadPosition), or a chunk earlier.
std::pair<Value, Value>
GatherAlongKKernel::gatheredWith(Value c,
                                 function_ref<Value(Value)> positionOf) {
  if (!t.positions)
    return {c, Value()};
  return gatheredFromPosition(k, positionOf(c), count, c, t.microK);
}

/// The copies of the chunk at k0 into `stage`: B's rows (whole rows of B,
/// contiguous along n), then A's pieces, unless they go through registers.
/// Each piece copies from where `positionOf(c)` (the index's entry of
/// compacted coordinate c, an i32) puts it; without positions, from c.
/// Without a stage, only the entries are asked for, in the same order, the
/// last partial round's too, outside its guard (a thread past it asks for
/// an entry of the chunk that no copy uses: the slot stays clamped).
void GatherAlongKKernel::issueWith(Value stage, Value k0,
                                   function_ref<Value(Value)> positionOf) {
  auto from = [&](Value c) { return gatheredWith(c, positionOf); };
  bool guarded = bool(stage);
  mma->spreadPieces(s.k, s.n, [&](Value row, Value column) {
    auto [source, valid] = from(k.add(k0, row));
    if (stage)
      mma->copy(mma->sB, stage, row, column, t.b,
                at(source, k.add(n0, column)), valid);
  }, guarded);
  // A from the compacted copy: micro-tile `slot` of the segment holds A's
  // rows m0.. of gathered column `slot`, contiguous: 16-byte copies of 8
  // rows into the tile stored k by k.
  if (t.compactedA) {
    if (!stage)
      return;
    mma->spreadPieces(s.k, s.m, [&](Value kk, Value row) {
      Value slot = k.add(k0, kk);
      Value clamped =
          arith::MinUIOp::create(b, loc, slot, k.index(capacity - 1));
      mma->copy(mma->sA, stage, kk, row, t.compactedA,
                {segment, clamped, row}, k.ult(slot, count));
    });
    return;
  }
  // A: 16-byte copies when a micro-tile row holds whole vectors.
  if (t.microK % kVector != 0)
    return;
  mma->spreadPieces(s.m, s.k, [&](Value row, Value column) {
    auto [source, valid] = from(k.add(k0, column));
    if (stage)
      mma->copy(mma->sA, stage, row, column, t.a, at(k.add(m0, row), source),
                valid);
  }, guarded);
}

/// A element by element through registers (a copy would straddle gathered
/// micro-tiles), loaded before the chunk ahead is multiplied.
SmallVector<Value> GatherAlongKKernel::loadStagedA(Value k0) {
  return mma->loadPieces(s.m, s.k, [&](Value row, Value column) {
    auto [source, valid] =
        gatheredWith(k.add(k0, column), [&](Value c) { return loadPosition(c); });
    Value value =
        memref::LoadOp::create(b, loc, t.a, at(k.add(m0, row), source));
    return arith::SelectOp::create(b, loc, valid, value, zero).getResult();
  });
}

/// C's start at element (row, column) of C, as an f32 sum: the bias
/// broadcast into C before the matmul (folded into the stores), or null
/// where C started at zeros or the kernel adds into C.
Value GatherAlongKKernel::startAt(Value row, Value column) {
  if (!t.bias)
    return nullptr;
  return k.widenToF32(memref::LoadOp::create(
      b, loc, t.bias, ValueRange{t.biasPerRow ? row : column}));
}

/// The same at (row, column) and (row, column + 1), an even column.
Value GatherAlongKKernel::startOfPair(Value row, Value column) {
  if (!t.bias)
    return nullptr;
  if (!t.biasPerRow)
    return k.widenToF32(k.loadPair(t.bias, ValueRange{column}));
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({2}, b.getF32Type()), startAt(row, column));
}

/// A thread's two neighbours in a row at C's `indices`, plus C's values
/// there (the kernel adds into C) or C's folded start, rounded to C's type.
Value GatherAlongKKernel::pairForC(ValueRange indices, Value first,
                                   Value second) {
  auto pairType = VectorType::get({2}, b.getF32Type());
  Value pair = vector::FromElementsOp::create(b, loc, pairType,
                                              ValueRange{first, second});
  Value start = t.cStart ? startOfPair(indices[0], indices[1])
                         : k.widenToF32(k.loadPair(t.c, indices));
  if (start)
    pair = arith::AddFOp::create(b, loc, start, pair);
  return k.roundTo(t.outputType, pair);
}

/// A 16-bit C: runs of 8 columns, 16 bytes a lane (C's rows are whole runs,
/// 16-byte aligned like the tensor).
void GatherAlongKKernel::storeSixteenBitRuns(ValueRange acc, Value tileM0,
                                             Value tileN0) {
  auto cAt = [&](Value row, Value column) {
    return at(k.add(tileM0, row), k.add(tileN0, column));
  };
  llvm::MaybeAlign runAlignment(16);
  auto pack = [&](Value row, Value column, Value first, Value second) {
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()),
        pairForC(cAt(row, column), first, second));
    return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0})
        .getResult();
  };
  auto runType = VectorType::get({8}, t.outputType);
  mma->forEachAccumulatorOctet(
      acc, pack, [&](Value row, Value column, ValueRange packed) {
        Value words = vector::FromElementsOp::create(
            b, loc, VectorType::get({4}, b.getI32Type()), packed);
        vector::StoreOp::create(
            b, loc, vector::BitCastOp::create(b, loc, runType, words), t.c,
            cAt(row, column), /*nontemporal=*/false, runAlignment);
      });
}

/// SWrite: the block owns its output tile (all of k, every block runs, an
/// empty segment too); it adds it into C, or stores it where C was only
/// cleared before (the clearing is then folded away). A thread's two
/// neighbours in a row go as one access where C's rows are contiguous (8
/// bytes of f32: the 4 threads of a group then fill whole 32-byte sectors
/// with one instruction, instead of half of each with two). An f16 C gets
/// the f32 sums rounded once, here.
void GatherAlongKKernel::storeTile(ValueRange acc, Value tileM0,
                                   Value tileN0) {
  // Element (row, column) of the tile in C.
  auto cAt = [&](Value row, Value column) {
    return at(k.add(tileM0, row), k.add(tileN0, column));
  };
  auto cType = cast<MemRefType>(t.c.getType());
  if (cType.getLayout().isIdentity() && !t.outputType.isF32() &&
      cType.getShape().back() % 8 == 0 && mma->pairsAccumulatorBlocks()) {
    storeSixteenBitRuns(acc, tileM0, tileN0);
    return;
  }
  if (cType.getLayout().isIdentity()) {
    mma->forEachAccumulatorPair(acc, [&](Value row, Value column, Value first,
                                         Value second) {
      SmallVector<Value> indices = cAt(row, column);
      k.storePair(pairForC(indices, first, second), t.c, indices);
    });
    return;
  }
  // Strided C: element by element.
  mma->forEachAccumulator(acc, [&](Value row, Value column, Value value) {
    SmallVector<Value> indices = cAt(row, column);
    if (!t.cStart) {
      Value old = memref::LoadOp::create(b, loc, t.c, indices);
      value = arith::AddFOp::create(b, loc, k.widenToF32(old), value);
    } else if (Value start = startAt(indices[0], indices[1])) {
      value = arith::AddFOp::create(b, loc, start, value);
    }
    memref::StoreOp::create(b, loc, k.roundTo(t.outputType, value), t.c,
                            indices);
  });
}

/// A walked tile's write-back: through the TMA, or the warps' own stores.
void GatherAlongKKernel::storeWalkedTile(Value tile, ValueRange acc) {
  TileOrigin walked = originOf(tile);
  if (plan.tensorStores) {
    mma->storeTileWithTensorMap(
        acc.front(), TensorStores{mapC, mma->workspace[0]}, walked.m0,
        walked.n0, t.outputType,
        [&](Value row, Value column) { return startOfPair(row, column); });
    return;
  }
  storeTile(acc, walked.m0, walked.n0);
}

/// The end of a unit of the walk: its tile's write-back; split along k,
/// the parts but the last publish their partial sums instead, and the last
/// adds them first.
void GatherAlongKKernel::finishUnit(Value unit, ValueRange acc) {
  if (plan.kSplits == 1) {
    storeWalkedTile(unit, acc);
    return;
  }
  auto [tile, split] = splitOf(unit);
  auto isLast = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, split,
                            k.index(plan.kSplits - 1)),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(isLast.thenBlock()->getTerminator());
  storeWalkedTile(tile, mma->addPartialSums(acc.front(), sums, tile));
  b.setInsertionPoint(isLast.elseBlock()->getTerminator());
  mma->publishPartialSums(acc.front(), sums, tile, split);
}

/// Split along k, the tile and the part of k of unit `unit` of the walk:
/// part by part, every tile's first part before any second one (the
/// blocks of a cluster take neighbouring tiles of one part: tile counts
/// are whole clusters). A part that waits for the others' sums then waits
/// only for units that blocks took before it (the blocks of the persistent
/// grid are all resident: none waits forever). Walking a cluster's parts
/// one after the other instead (all parts of a tile in one wave) was
/// slower on an H200: 512 x 5120 x 5120 in 3 parts, 0.49 of cuBLAS this
/// way, 0.38 that way (docs/Rationale.md, split-k).
std::pair<Value, Value> GatherAlongKKernel::splitOf(Value unit) {
  return {k.rem(unit, plan.numTiles), k.div(unit, plan.numTiles)};
}

/// A warp-specialised block: a copying warpgroup fills the stages, the
/// multiplying ones take the block's tile, or walk theirs (persistent):
/// whole tiles, or their parts of k (splitOf).
void GatherAlongKKernel::walkSpecialized(const BlockMma::ChunkFill &fill) {
  StageBarriers barriers(k, mma->workspace.back(), plan.stages);
  auto tileOf = [&](Value unit) {
    return plan.kSplits > 1 ? splitOf(unit).first : unit;
  };
  auto copiesOf = [&](Value unit) {
    TileOrigin walked = originOf(tileOf(unit));
    return TensorCopies{mapA, mapB, walked.m0, walked.n0};
  };
  // Part p of a tile's C chunks: [p C / S, (p + 1) C / S).
  auto chunksOf = [&](Value unit) {
    Value split = splitOf(unit).second;
    auto boundary = [&](Value part) {
      return k.div(k.mul(part, numChunks), plan.kSplits);
    };
    Value first = boundary(split);
    return ChunkRange{
        first, arith::SubIOp::create(
                   b, loc, boundary(k.add(split, k.index(1))), first)};
  };
  auto finish = [&](Value unit, ValueRange acc) { finishUnit(unit, acc); };
  TileWalk walk{mma->blockId, k.add(mma->blockId, k.index(1)), k.index(1),
                numChunks};
  if (plan.persistent) {
    walk.end = k.index(plan.numTiles * plan.kSplits);
    walk.step = mma->launch.getGridSize().x;
  }
  if (plan.kSplits > 1)
    walk.chunksOf = chunksOf;
  if (plan.tensorCopies)
    walk.copiesOf = copiesOf;
  walk.finish = finish;
  auto drain = [&] { mma->drainTensorStores(); };
  if (plan.tensorStores)
    walk.afterLastTile = drain;
  mma->accumulateSpecialized(fill, barriers, walk);
}

/// A block of all warps multiplying: its tile, then its store. Blocks of 16
/// rows keep their own stores: 4096^3 f16 16x16 at 90%, 145.6 -> 148.0 us
/// through the TMA (32x1 at 90%: 99.6 -> 95.9; 32x64 101.5 -> 99.6).
void GatherAlongKKernel::accumulateAndStore(const BlockMma::ChunkFill &fill) {
  SmallVector<Value> acc = mma->accumulateChunks(numChunks, fill);
  if (plan.writesThroughTensorMap && s.m >= 32 &&
      mma->canStageTileInSharedTiles()) {
    mma->storeTileThroughSharedTiles(
        acc, buildTensorMapAtEntry(b, loc, t.c, s.m, kSwizzleRowElements), m0,
        n0, t.outputType,
        [&](Value row, Value column) { return startOfPair(row, column); });
    return;
  }
  storeTile(acc, m0, n0);
}

void GatherAlongKKernel::build() {
  buildLaunch();
  TileOrigin origin = originOf(mma->blockId);
  segment = origin.segment;
  m0 = origin.m0;
  n0 = origin.n0;
  batch = k.div(segment, t.extentM / s.m);
  count = t.positions ? loadCount(k, t.counts, segment) : k.index(capacity);
  numChunks =
      k.div(k.add(k.mul(count, k.index(t.microK)), k.index(s.k - 1)), s.k);
  zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(s.inputType));

  auto issue = [&](Value stage, Value k0) {
    issueWith(stage, k0, [&](Value c) { return loadPosition(c); });
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
  auto load = [&](Value k0) { return loadStagedA(k0); };
  auto store = [&](Value stage, ValueRange pieces) {
    mma->storePieces(mma->sA, stage, pieces);
  };
  BlockMma::ChunkFill fill{issue};
  if (t.positions) {
    fill.prefetch = prefetch;
    fill.issuePrefetched = issuePrefetched;
  }
  if (plan.stagedA) {
    fill.load = load;
    fill.store = store;
  }
  if (plan.specialized)
    walkSpecialized(fill);
  else
    accumulateAndStore(fill);
}

} // namespace

GatherAlongKPlan mlir::pit::planGatherAlongK(MLIRContext *context,
                                             const MatmulTile &t) {
  const MmaTileShape &s = t.shape;
  GatherAlongKPlan plan;
  planCopies(t, plan);
  plan.stages = fitStages(s, t.stages, plan.warpgroupMma);
  if (plan.specialized)
    planSpecializedStages(context, t, plan);
  plan.tensorCopies &= plan.specialized;
  plan.tensorStores &= plan.tensorCopies;
  plan.persistent &= plan.specialized;
  // Split-k: the persistent blocks walk parts of tiles (a dense walk's
  // chunks are all of k), at least a chunk each.
  if (plan.persistent)
    plan.kSplits = std::clamp<int64_t>(t.kSplits, 1, t.extentK / s.k);
  if (!plan.tensorCopies)
    plan.clusterBlocks = 1;
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
  plan.tileCounter =
      t.positions && !plan.specialized && plan.numTiles > kMaxMmaBlocks;
  if (plan.tileCounter) {
    int64_t blockBytes =
        plan.stages * s.sharedBytes() + t.chip.sharedBytesReservedPerBlock;
    int64_t resident = std::min<int64_t>(
        (t.chip.sharedBytesPerBlock + t.chip.sharedBytesReservedPerBlock) /
            blockBytes,
        t.chip.threadsPerMultiprocessor / kMmaThreads);
    plan.residentBlocks = std::max<int64_t>(resident, 1);
  }
  return plan;
}

void mlir::pit::buildGatherAlongK(OpBuilder &b, Location loc,
                                  const MatmulTile &t) {
  GatherAlongKPlan plan = planGatherAlongK(b.getContext(), t);
  GatherAlongKKernel(b, loc, t, plan).build();
}
