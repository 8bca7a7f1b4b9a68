//===- TensorMemoryAccelerator.cpp - Copies and stores with the TMA -------===//
//
// The bulk tensor copies: chunks of A and B into the stages (multicast
// to a cluster), tiles of C back to global memory through staging buffers.
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

void BlockMma::drainTensorStores() {
  k.buildIf(isWarpgroupLeader(),
            [&] { NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, nullptr); });
}

Value BlockMma::isWarpgroupLeader() {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               k.rem(tid, kMmaThreads), k.index(0));
}

MemRefType BlockMma::stagingType(Type outputType, int64_t warpgroups) {
  auto workgroup = gpu::AddressSpaceAttr::get(outputType.getContext(),
                                              gpu::AddressSpace::Workgroup);
  return MemRefType::get({2 * warpgroups, 64, kStagedColumns}, outputType,
                         MemRefLayoutAttrInterface(), workgroup);
}

Value BlockMma::tensorMapPointer(Value map) {
  return LLVM::IntToPtrOp::create(
             b, loc, LLVM::LLVMPointerType::get(b.getContext()), map)
      .getResult();
}

void BlockMma::storeBoxWithTensorMap(Value map, Value source, Value column,
                                     Value row) {
  NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
      b, loc, map, source, ValueRange{k.toI32(column), k.toI32(row)},
      /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
      /*predicate=*/Value());
}

/// `pair` plus C's start at (row, column), where `startOfPair` gives one
/// (built with the kernel's builder, which this block shares).
static Value addStart(OpBuilder &b, PairStart startOfPair, Value pair,
                      Value row, Value column) {
  Value start = startOfPair(row, column);
  return start ? arith::AddFOp::create(b, pair.getLoc(), start, pair) : pair;
}

void BlockMma::storeTileWithTensorMap(Value acc, const TensorStores &stores,
                                      Value m0, Value n0, Type outputType,
                                      PairStart startOfPair) {
  // A tile of an even number of pieces starts in buffer 0 again where the
  // one before started: the piece two before is always the same buffer's.
  assert(warpgroup && columnWarpgroups == 1 &&
         outputType.getIntOrFloatBitWidth() == 16 &&
         warpgroupN() % (2 * kStagedColumns) == 0 &&
         "a wgmma block's 16-bit tile, a warpgroup for each 64 rows, an even "
         "number of pieces");
  Value leader = isWarpgroupLeader();
  // Named barrier 1 + g joins the 4 warps of warpgroup g (0 is the
  // block's).
  Value barrierId = k.toI32(k.add(warpgroupRows, k.index(1)));
  Value warpgroupThreads = k.i32(kMmaThreads);
  auto syncWarpgroup = [&] {
    NVVM::BarrierOp::create(b, loc, TypeRange{}, barrierId, warpgroupThreads,
                            /*reductionOp=*/{}, /*reductionPredicate=*/Value());
  };
  // This thread's rows among the warpgroup's 64: r and r + 8.
  Value row = k.add(k.mul(warp, k.index(16)), group);
  Value stagingAddress = arith::IndexCastOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, stores.staging));
  Value map = tensorMapPointer(stores.mapC);
  Value firstRow = k.add(m0, k.mul(warpgroupRows, k.index(64)));
  // Block j of this thread's accumulators holds columns 8 j + 2 inGroup
  // (+ 1) of its rows.
  SmallVector<SmallVector<Value>> blocks;
  forEachAccumulatorBlock(acc, [&](Value, Value, ArrayRef<Value> values) {
    blocks.emplace_back(values);
  });
  int64_t blocksPerPiece = kStagedColumns / 8;
  auto pairType = VectorType::get({2}, b.getF32Type());
  for (int64_t piece = 0; piece * blocksPerPiece < int64_t(blocks.size());
       ++piece) {
    Value buffer = k.add(k.mul(warpgroupRows, k.index(2)), k.index(piece % 2));
    // The piece two before, in the same buffer, has been read by the TMA.
    k.buildIf(leader, [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 1, b.getUnitAttr());
    });
    syncWarpgroup();
    for (int64_t j = 0; j < blocksPerPiece; ++j) {
      ArrayRef<Value> values = blocks[piece * blocksPerPiece + j];
      for (int64_t half = 0; half < 2; ++half) {
        Value rowInBox = k.add(row, k.index(8 * half));
        Value pair = vector::FromElementsOp::create(
            b, loc, pairType,
            ValueRange{values[2 * half], values[2 * half + 1]});
        Value columnInBox = k.add(k.index(8 * j), k.mul(inGroup, k.index(2)));
        if (startOfPair)
          pair = addStart(
              b, startOfPair, pair, k.add(firstRow, rowInBox),
              k.add(n0, k.add(columnInBox, k.index(piece * kStagedColumns))));
        Value column = swizzledColumn(rowInBox, columnInBox, kStagedColumns);
        vector::StoreOp::create(b, loc, k.roundTo(outputType, pair),
                                stores.staging,
                                ValueRange{buffer, rowInBox, column});
      }
    }
    // The TMA reads through the async proxy what the threads wrote.
    fenceForAsyncProxy(b, loc);
    syncWarpgroup();
    k.buildIf(leader, [&] {
      int64_t bufferBytes =
          64 * kStagedColumns * outputType.getIntOrFloatBitWidth() / 8;
      Value source = sharedPointerAt(k, stagingAddress,
                                     k.mul(buffer, k.index(bufferBytes)));
      storeBoxWithTensorMap(map, source,
                            k.add(n0, k.index(piece * kStagedColumns)),
                            firstRow);
      NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    });
  }
}

/// The bytes of B's stages (sB) of a block of `shape` with `stages`.
static int64_t stagesBytesB(const MmaTileShape &shape, int64_t stages) {
  return stages * shape.k * shape.n * 2;
}

bool BlockMma::canStageTileInSharedTiles() const {
  // Blocks that multiply with mma.sync only: with wgmma, another
  // warpgroup's last multiplication may still read B's stage when a
  // warpgroup is done with its own (each waits for its own only). The
  // stages start at least 16-byte aligned: at most 1008 bytes go before
  // the first multiple of 1024.
  return !warpgroup && shape.n % kSwizzleRowElements == 0 &&
         shape.m * shape.n * 2 + kSwizzleAtomBytes - 16 <=
             stagesBytesB(shape, stages);
}

void BlockMma::storeTileThroughSharedTiles(ValueRange acc, Value mapC, Value m0,
                                           Value n0, Type outputType,
                                           PairStart startOfPair) {
  assert(canStageTileInSharedTiles() &&
         outputType.getIntOrFloatBitWidth() == 16 &&
         "a 16-bit tile that fits in B's stages");
  Type i64 = b.getI64Type();
  auto i64Constant = [&](int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64).getResult();
  };
  // The 128-byte swizzle's pattern repeats every 1024 bytes, counted in
  // the shared window: the tile starts at a multiple of it.
  Value stagesAddress = arith::IndexCastOp::create(
      b, loc, i64,
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, sB));
  Value start = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, stagesAddress,
                            i64Constant(kSwizzleAtomBytes - 1)),
      i64Constant(-kSwizzleAtomBytes));
  auto pointerAt = [&](Value bytes) { return sharedPointerAt(k, start, bytes); };
  // Box j holds columns [64 j, 64 j + 64) of the tile, rows of 128 bytes.
  int64_t boxBytes = shape.m * kSwizzleRowElements * 2;
  auto pairType = VectorType::get({2}, b.getF32Type());
  forEachAccumulatorBlock(acc, [&](Value row, Value column,
                                   ArrayRef<Value> values) {
    Value box = k.div(column, kSwizzleRowElements);
    Value inBox = k.rem(column, kSwizzleRowElements);
    for (int64_t half = 0; half < 2; ++half) {
      Value r = k.add(row, k.index(8 * half));
      Value element = k.add(
          k.mul(r, k.index(kSwizzleRowElements)),
          swizzledColumn(r, inBox, kSwizzleRowElements));
      Value bytes = k.add(k.mul(box, k.index(boxBytes)),
                          k.mul(element, k.index(2)));
      Value pair = vector::FromElementsOp::create(
          b, loc, pairType,
          ValueRange{values[2 * half], values[2 * half + 1]});
      if (startOfPair)
        pair = addStart(b, startOfPair, pair, k.add(m0, r), k.add(n0, column));
      LLVM::StoreOp::create(b, loc, k.roundTo(outputType, pair),
                            pointerAt(bytes), /*alignment=*/4);
    }
  });
  // The TMA reads through the async proxy what the threads wrote.
  fenceForAsyncProxy(b, loc);
  gpu::BarrierOp::create(b, loc);
  k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                  k.index(0)),
            [&] {
    Value map = tensorMapPointer(mapC);
    for (int64_t j = 0; j < shape.n / kSwizzleRowElements; ++j)
      storeBoxWithTensorMap(map, pointerAt(k.index(j * boxBytes)),
                            k.add(n0, k.index(j * kSwizzleRowElements)), m0);
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
  });
}

void BlockMma::copyBoxIntoStage(Value address, int64_t stageBytes,
                                Value stage, Value offset, Value map,
                                ValueRange coordinates, Value full,
                                Value multicastMask) {
  // The copy takes this block's shared memory by its address in the
  // cluster's window (a multicast one writes the same offset in each block).
  Value local = sharedPointerAt(
      k, address, k.add(k.mul(stage, k.index(stageBytes)), offset));
  Value destination =
      NVVM::MapaOp::create(b, loc, clusterPointerType(b.getContext()), local,
                           k.toI32(k.rem(blockId, clusterBlocks)))
          .getResult();
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, loc, destination, tensorMapPointer(map), coordinates, full,
      /*im2colOffsets=*/{}, multicastMask, /*l2CacheHint=*/Value(),
      /*mode=*/nullptr, /*isCTAOnly=*/nullptr, /*group=*/nullptr,
      /*predicate=*/Value());
}

void BlockMma::copyBlocksOfB(Value mapB, Value stage, Value n0, Value k0,
                             Value firstBlock, int64_t numBlocks, Value full,
                             Value multicastMask) {
  int64_t bytesB = shape.k * shape.n * 2;
  int64_t blockBytes = shape.k * kSwizzleRowElements * 2;
  for (int64_t i = 0; i < numBlocks; ++i) {
    Value block = k.add(firstBlock, k.index(i));
    Value column = k.add(n0, k.mul(block, k.index(kSwizzleRowElements)));
    // A tensor map's coordinates go innermost first.
    SmallVector<Value> coordinates{k.toI32(column), k.toI32(k0)};
    if (bStoredByN)
      std::swap(coordinates[0], coordinates[1]);
    copyBoxIntoStage(addressB, bytesB, stage,
                     k.mul(block, k.index(blockBytes)), mapB, coordinates,
                     full, multicastMask);
  }
}

void BlockMma::copyBWithTensorMap(Value mapB, Value stage, Value n0, Value k0,
                                  Value full) {
  NVVM::MBarrierExpectTxOp::create(b, loc, full,
                                   k.i32(shape.k * shape.n * 2));
  copyBlocksOfB(mapB, stage, n0, k0, /*firstBlock=*/k.index(0),
                shape.n / kSwizzleRowElements, full, /*multicastMask=*/Value());
}

void BlockMma::copyChunkWithTensorMaps(const TensorCopies &copies,
                                       Value chunk, Value stage, Value full) {
  // This block's A, and all of B's chunk: its own share and the other
  // blocks' shares of the cluster.
  int64_t bytesA = shape.m * shape.k * 2, bytesB = shape.k * shape.n * 2;
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full,
                                         k.i32(bytesA + bytesB),
                                         /*scope=*/nullptr, /*relaxed=*/nullptr,
                                         /*predicate=*/Value());
  Value k0 = chunkStart(chunk);
  copyBoxIntoStage(addressA, bytesA, stage, k.index(0), copies.mapA,
                   {k.toI32(k0), k.toI32(copies.m0)}, full, Value());
  // B's chunk in blocks of 64 columns (k x 64 each, as wgmma reads them):
  // rank r of the cluster copies blocks [r, r + 1) x share into every block.
  int64_t share = shape.n / kSwizzleRowElements / clusterBlocks;
  Value multicastMask =
      clusterBlocks > 1
          ? arith::ConstantIntOp::create(b, loc, (1 << clusterBlocks) - 1, 16)
                .getResult()
          : Value();
  Value rank = k.rem(blockId, clusterBlocks);
  copyBlocksOfB(copies.mapB, stage, copies.n0, k0,
                k.mul(rank, k.index(share)), share, full, multicastMask);
}

void BlockMma::releaseStageInCluster(StageBarriers &barriers, Value stage) {
  Value isFirstLane = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, k.rem(tid, kWarpSize), k.index(0));
  k.buildIf(isFirstLane, [&] {
    Value empty = barriers.empty(stage);
    if (clusterBlocks == 1) {
      NVVM::MBarrierArriveOp::create(b, loc, Type(), empty, Value());
      return;
    }
    // The warp only read the stage (its wgmma are done): a release at the
    // block's scope is enough. One at the cluster's scope fences every
    // arrival (ncu: warps stalled on a memory barrier half the time, the
    // kernel twice as slow).
    auto clusterPointer = clusterPointerType(b.getContext());
    for (int64_t rank = 0; rank < clusterBlocks; ++rank) {
      Value there =
          NVVM::MapaOp::create(b, loc, clusterPointer, empty, k.i32(rank));
      NVVM::MBarrierArriveOp::create(b, loc, Type(), there, Value());
    }
  });
}
