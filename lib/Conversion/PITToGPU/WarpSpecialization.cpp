//===- WarpSpecialization.cpp - A copying warpgroup and multiplying ones --===//
//
// Warp-specialised blocks: a copying warpgroup keeps chunks in flight, the
// multiplying ones take them as they land (stage mbarriers, setmaxnreg),
// walking one tile or many (persistent).
//
//===----------------------------------------------------------------------===//

#include "BlockMmaDetail.h"

#include "PIT/Conversion/TileTransfer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pit;
using namespace mlir::pit::detail;

/// Registers a thread of a warp-specialised block of 3 warpgroups keeps
/// once the copying warpgroup has given some to the two multiplying ones
/// (128 accumulators a thread): such a block launches with 168 a thread
/// (65536 / 384, in 8s), and 128 x 104 + 256 x 200 is all of that. With
/// fewer, the copying warps spill the addresses of their copies, which LLVM
/// keeps across the chunks (40: 388 bytes, 72: 56 bytes). A block of 2
/// warpgroups launches with enough for both.
constexpr int32_t kCopyingRegisters = 104, kMultiplyingRegisters = 200;
constexpr int64_t kRegistersPerSM = 65536;

void BlockMma::accumulateSpecialized(const ChunkFill &fill,
                                     StageBarriers &barriers,
                                     const TileWalk &walk) {
  // setmaxnreg runs once a kernel: the tiles are walked here, not by the
  // block's own loop. Pieces staged through registers would be spread over
  // every thread.
  bool tensorCopies = bool(walk.copiesOf);
  assert(warpgroup && stages >= 2 && !fill.load &&
         numThreads == mmaThreads + kMmaThreads &&
         blockId == launch.getBlockIds().x &&
         "a warp-specialised block of wgmma, walking its own tiles");
  assert((mmaThreads == kMmaThreads ||
          kCopyingRegisters * kMmaThreads +
                  kMultiplyingRegisters * mmaThreads <=
              kRegistersPerSM / numThreads / 8 * 8 * numThreads) &&
         "the registers moved are more than the block launches with");
  Value isFirstThread = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, tid, k.index(0));
  // A phase of `full` is the copying warpgroup's arrivals (each lane's as
  // its copies land), one of `empty` the multiplying threads'. With TMA, a
  // phase of `full` is the copying thread's arrival and the chunk's bytes,
  // one of `empty` an arrival of each multiplying warp of the cluster.
  int64_t multiplyingWarps = mmaThreads / kWarpSize;
  k.buildIf(isFirstThread, [&] {
    if (tensorCopies)
      barriers.init(1, clusterBlocks * multiplyingWarps);
    else
      barriers.init(kMmaThreads, mmaThreads);
    // TMA completes the mbarriers through the async proxy, the other blocks
    // of a cluster through theirs: both see them set up.
    if (tensorCopies)
      fenceForAsyncProxy(b, loc);
    if (clusterBlocks > 1)
      NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  // The other blocks of the cluster copy into this one's stages and free
  // them: their mbarriers are set up before anyone goes on.
  syncBlockOrCluster();
  auto ifCopying = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                            k.index(mmaThreads)),
      /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifCopying.thenBlock()->getTerminator());
    copyTiles(fill, barriers, walk);
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifCopying.elseBlock()->getTerminator());
    multiplyTiles(barriers, walk);
  }
  // No block leaves while another of its cluster may still arrive on its
  // mbarriers.
  syncBlockOrCluster();
  k.buildIf(isFirstThread, [&] { barriers.invalidate(); });
}

void BlockMma::syncBlockOrCluster() {
  if (clusterBlocks == 1) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/nullptr);
  NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/nullptr);
}

void BlockMma::walkTiles(const TileWalk &walk,
                         function_ref<void(Value, Value, ChunkRange)> body) {
  auto units = scf::ForOp::create(b, loc, walk.first, walk.end, walk.step,
                                  ValueRange{k.index(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(units.getBody());
  Value unit = units.getInductionVar();
  Value firstUse = units.getRegionIterArgs()[0];
  ChunkRange chunks = walk.chunksOf ? walk.chunksOf(unit)
                                    : ChunkRange{k.index(0), walk.numChunks};
  body(unit, firstUse, chunks);
  scf::YieldOp::create(b, loc, ValueRange{k.add(firstUse, chunks.count)});
}

void BlockMma::copyTiles(const ChunkFill &fill, StageBarriers &barriers,
                         const TileWalk &walk) {
  // A chunk goes into its stage once the multiplying warps are done with
  // the use `stages` before there.
  Value zero = k.index(0), one = k.index(1);
  if (mmaThreads > kMmaThreads)
    NVVM::SetMaxRegisterOp::create(b, loc, kCopyingRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
  copyingTid = arith::SubIOp::create(b, loc, tid, k.index(mmaThreads));
  copyingThreads = kMmaThreads;
  // With TMA, the warpgroup's first thread issues every copy.
  OpBuilder::InsertionGuard guard(b);
  if (walk.copiesOf) {
    auto ifFirst = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, copyingTid,
                              zero),
        /*withElseRegion=*/false);
    b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
  }
  walkTiles(walk, [&](Value unit, Value firstUse, ChunkRange range) {
    std::optional<TensorCopies> copies;
    if (walk.copiesOf)
      copies = walk.copiesOf(unit);
    auto chunks = scf::ForOp::create(b, loc, zero, range.count, one);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value use = k.add(firstUse, chunks.getInductionVar());
    Value chunk = walk.chunksOf
                      ? k.add(range.first, chunks.getInductionVar())
                      : chunks.getInductionVar();
    Value stage = barriers.stageOf(use);
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, use,
                                    k.index(stages)),
              [&] { barriers.waitUntilFree(use); });
    if (copies) {
      copyChunkWithTensorMaps(*copies, chunk, stage, barriers.full(stage));
    } else {
      fill.issue(stage, chunkStart(chunk));
      NVVM::CpAsyncMBarrierArriveOp::create(b, loc, barriers.full(stage),
                                            /*noinc=*/true);
    }
  });
  copyingTid = tid;
  copyingThreads = numThreads;
}

void BlockMma::multiplyTiles(StageBarriers &barriers, const TileWalk &walk) {
  // A chunk is multiplied once it has landed, left in flight while the next
  // one waits; the one before is then done, and its stage free. A tile's
  // last chunk is freed before the tile is written back, so that the next
  // tile's first chunks come in meanwhile.
  Value zero = k.index(0), one = k.index(1);
  bool tensorCopies = bool(walk.copiesOf);
  if (mmaThreads > kMmaThreads)
    NVVM::SetMaxRegisterOp::create(b, loc, kMultiplyingRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  auto release = [&](Value use) {
    Value stage = barriers.stageOf(use);
    if (tensorCopies)
      releaseStageInCluster(barriers, stage);
    else
      NVVM::MBarrierArriveOp::create(b, loc, Type(), barriers.empty(stage),
                                     Value());
  };
  walkTiles(walk, [&](Value unit, Value firstUse, ChunkRange range) {
    auto chunks = scf::ForOp::create(b, loc, zero, range.count, one,
                                     zeroAccumulators());
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(chunks.getBody());
      Value chunk = chunks.getInductionVar();
      Value use = k.add(firstUse, chunk);
      SmallVector<Value> acc(chunks.getRegionIterArgs());
      // TMA writes through the async proxy that wgmma reads through: no
      // fence.
      if (tensorCopies)
        barriers.waitUntilFull(use);
      else
        barriers.waitUntilLanded(use);
      multiplyWarpgroup(acc, barriers.stageOf(use), /*pending=*/1);
      k.buildIf(k.ult(zero, chunk), [&] {
        release(arith::SubIOp::create(b, loc, use, one));
      });
      scf::YieldOp::create(b, loc, acc);
    }
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    k.buildIf(k.ult(zero, range.count), [&] {
      release(k.add(firstUse,
                    arith::SubIOp::create(b, loc, range.count, one)));
    });
    walk.finish(unit, chunks.getResults());
  });
  if (walk.afterLastTile)
    walk.afterLastTile();
}
