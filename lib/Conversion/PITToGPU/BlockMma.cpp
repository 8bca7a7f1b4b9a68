//===- BlockMma.cpp - A tensor-core block: its tiles, copies, chunks ------===//
//
// BlockMma's construction, its shared-memory tiles and their swizzle, the
// cp.async copies of the chunks and the loop over them, and the walk over
// the accumulators. The other mechanisms are in files of their own:
// MmaSync.cpp, WarpgroupMma.cpp, WarpSpecialization.cpp,
// TensorMemoryAccelerator.cpp, StageBarriers.cpp, GatheredIndex.cpp.
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

namespace mlir::pit::detail {

/// LLVM pointers into this block's shared memory, and into the shared
/// memory of the blocks of its cluster (addresses from nvvm.mapa).
LLVM::LLVMPointerType sharedPointerType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(
      context, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
}
LLVM::LLVMPointerType clusterPointerType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(
      context, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
}

/// The shared-memory pointer `offset` (index) bytes past shared address
/// `address` (i64), as the TMA's instructions and nvvm.mapa take it.
Value sharedPointerAt(KernelBuilder &k, Value address, Value offset) {
  Value bytes =
      arith::IndexCastOp::create(k.b, k.loc, k.b.getI64Type(), offset);
  return LLVM::IntToPtrOp::create(
             k.b, k.loc, sharedPointerType(k.b.getContext()),
             arith::AddIOp::create(k.b, k.loc, address, bytes).getResult())
      .getResult();
}

/// Orders this thread's writes to shared memory (stores, landed copies)
/// before reads through the async proxy (wgmma's, TMA's).
void fenceForAsyncProxy(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc,
      NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

} // namespace mlir::pit::detail

bool BlockMma::supportsWarpgroupMma(const MmaTileShape &shape,
                                    bool aStoredByK) {
  // A warpgroup for each 64 rows, n / 2 accumulators a thread. An A stored
  // k by k keeps sA k x m, rows of all of m: wgmma's m-major layout (blocks
  // of 64 rows, each k x 128 bytes, as sB's of 64 columns) only where m is
  // 64, one warpgroup.
  if (aStoredByK && shape.m != kSwizzleRowElements)
    return false;
  return shape.m % 64 == 0 && shape.m <= kMaxWarpgroups * 64 &&
         shape.k == kSwizzleRowElements &&
         shape.n % kSwizzleRowElements == 0 && shape.n <= 256;
}

/// Bytes a workspace buffer takes in shared memory: each starts 16-byte
/// aligned.
static int64_t workspaceBytes(MemRefType type) {
  return llvm::alignTo(memrefBytes(type), 16);
}

/// Where the tiles of a block start in dynamic shared memory: wgmma reads
/// swizzled tiles from multiples of 1024 bytes.
static int64_t tileAlignment(bool warpgroup) {
  return warpgroup ? kSwizzleAtomBytes : 16;
}

int64_t BlockMma::dynamicSharedBytes(const MmaTileShape &shape,
                                     int64_t stages, bool warpgroup,
                                     ArrayRef<MemRefType> workspace) {
  int64_t bytes = stages * shape.sharedBytes();
  for (MemRefType type : workspace)
    bytes += workspaceBytes(type);
  // The dynamic buffer is 16-byte aligned; the tiles move up to the next
  // multiple of their alignment.
  return bytes + tileAlignment(warpgroup) - 16;
}

BlockMma::BlockMma(OpBuilder &b, Location loc, const MmaTileShape &shape,
                   int64_t numTiles, int64_t stages, bool aStoredByK,
                   bool warpgroupMma, ArrayRef<MemRefType> workspace,
                   int64_t columnWarpgroups, int64_t otherWarpgroups,
                   int64_t replicas, int64_t clusterBlocks,
                   Value gridBlocks, Value tileCounter)
    : b(b), loc(loc), k{b, loc}, shape(shape), stages(stages),
      aStoredByK(aStoredByK),
      warpgroup(warpgroupMma && supportsWarpgroupMma(shape, aStoredByK) &&
                shape.n % (columnWarpgroups * kSwizzleRowElements) == 0),
      columnWarpgroups(warpgroup ? columnWarpgroups : 1),
      clusterBlocks(clusterBlocks) {
  replicaThreads =
      kMmaThreads * (warpgroup ? shape.m / 64 * this->columnWarpgroups : 1);
  mmaThreads = replicaThreads * replicas;
  numThreads = mmaThreads + kMmaThreads * otherWarpgroups;
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  SmallVector<int64_t> aShape =
      aStoredByK ? SmallVector<int64_t>{stages, shape.k, shape.m}
                 : SmallVector<int64_t>{stages, shape.m, shape.k};
  // wgmma reads B in blocks of 64 columns, each k x 64.
  SmallVector<int64_t> bShape =
      warpgroup ? SmallVector<int64_t>{stages, shape.n / kSwizzleRowElements,
                                       shape.k, kSwizzleRowElements}
                : SmallVector<int64_t>{stages, shape.k, shape.n};
  auto sharedA = MemRefType::get(aShape, shape.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  auto sharedB = MemRefType::get(bShape, shape.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  // Up to 48 KiB the tiles are static workgroup buffers; beyond, and
  // always for wgmma (whose tiles must start at multiples of 1024 bytes),
  // they are views of dynamic shared memory, which the launch asks for (and
  // the runtime allows the kernel).
  int64_t bytesA = stages * shape.m * shape.k * 2;
  SmallVector<MemRefType> workspaceTypes;
  for (MemRefType type : workspace)
    workspaceTypes.push_back(MemRefType::get(type.getShape(),
                                             type.getElementType(),
                                             MemRefLayoutAttrInterface(),
                                             workgroup));
  bool dynamic = warpgroup || stages * shape.sharedBytes() > kStaticSharedBytesPerBlock ||
                 !workspace.empty();
  int64_t alignment = tileAlignment(warpgroup);
  Value one = k.index(1);
  int64_t numBlocks = std::min(numTiles, kMaxMmaBlocks);
  Value dynamicBytes =
      dynamic ? arith::ConstantIntOp::create(
                    b, loc,
                    dynamicSharedBytes(shape, stages, warpgroup, workspace), 32)
                    .getResult()
              : Value();
  Value clusterX = clusterBlocks > 1 ? k.index(clusterBlocks) : Value();
  // Where thread 0 hands the block its next tile, in turn (a block's
  // threads may still read one slot while thread 0 writes the other).
  auto slotsType = MemRefType::get({2}, b.getI32Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  SmallVector<Type> attributions;
  if (!dynamic)
    attributions = {sharedA, sharedB};
  if (tileCounter)
    attributions.push_back(slotsType);
  launch = gpu::LaunchOp::create(
      b, loc, gridBlocks ? gridBlocks : k.index(numBlocks), one, one,
      k.index(numThreads), one, one, dynamicBytes, nullptr, {}, attributions,
      TypeRange{}, clusterX, clusterX ? one : Value(),
      clusterX ? one : Value());
  Block &body = launch.getBody().front();
  // The builder gives the body the block and thread ids and sizes only;
  // a clustered launch's body also takes the cluster ids and sizes, right
  // after them (before any workgroup buffer).
  if (clusterX)
    for (unsigned i = 12; i < 18; ++i)
      body.insertArgument(i, b.getIndexType(), loc);
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  if (dynamic) {
    viewDynamicSharedMemory(sharedA, sharedB, bytesA, alignment,
                            workspaceTypes);
  } else {
    sA = launch.getWorkgroupAttributions()[0];
    sB = launch.getWorkgroupAttributions()[1];
  }
  tid = launch.getThreadIds().x;
  copyingTid = tid;
  copyingThreads = numThreads;
  // With wgmma, warpgroup g multiplies rows [64 r, 64 r + 64) and columns
  // [c n', (c + 1) n') for r, c = g / columnWarpgroups, g % columnWarpgroups
  // and n' = n / columnWarpgroups.
  Value warpgroupIndex = k.div(tid, kMmaThreads);
  if (replicas > 1)
    warpgroupIndex = k.rem(warpgroupIndex, replicaThreads / kMmaThreads);
  warpgroupRows = warpgroupIndex;
  warpgroupColumns = k.index(0);
  if (this->columnWarpgroups > 1) {
    warpgroupRows = k.div(warpgroupIndex, this->columnWarpgroups);
    warpgroupColumns = k.rem(warpgroupIndex, this->columnWarpgroups);
  }
  warp = k.rem(k.div(tid, kMmaLanes), kMmaWarps);
  lane = k.rem(tid, kMmaLanes);
  group = k.div(lane, 4);
  inGroup = k.rem(lane, 4);
  warpColumn = k.mul(warp, k.index(shape.n / kMmaWarps));
  blockId = launch.getBlockIds().x;
  if (tileCounter) {
    walkTilesInTurn(numTiles, tileCounter,
                    launch.getWorkgroupAttributions().back());
    return;
  }
  if (gridBlocks || numBlocks == numTiles)
    return;
  // More tiles than blocks: each block takes every numBlocks-th tile. A
  // barrier ends each tile, so that no warp's copies for the next tile land
  // in shared memory that another warp still multiplies from.
  auto tiles = scf::ForOp::create(b, loc, blockId, k.index(numTiles),
                                  k.index(numBlocks));
  b.setInsertionPoint(tiles.getBody()->getTerminator());
  blockId = tiles.getInductionVar();
  auto endOfTile = gpu::BarrierOp::create(b, loc);
  b.setInsertionPoint(endOfTile);
}

void BlockMma::walkTilesInTurn(int64_t numTiles, Value tileCounter,
                               Value slots) {
  Type index = b.getIndexType();
  Value grid = launch.getGridSizeX();
  Value isFirstThread =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, k.index(0));
  auto walk = scf::WhileOp::create(
      b, loc, TypeRange{index, index}, ValueRange{blockId, k.index(0)},
      [&](OpBuilder &b, Location loc, ValueRange tile) {
        scf::ConditionOp::create(b, loc, k.ult(tile[0], k.index(numTiles)),
                                 tile);
      },
      [&](OpBuilder &b, Location loc, ValueRange tile) {
        // Thread 0 takes the next tile now, so that the atomic's round trip
        // overlaps this tile's work.
        auto taken = scf::IfOp::create(
            b, loc, isFirstThread,
            [&](OpBuilder &b, Location loc) {
              Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
              Value before = memref::AtomicRMWOp::create(
                  b, loc, arith::AtomicRMWKind::addi, one, tileCounter,
                  ValueRange{k.index(0)});
              scf::YieldOp::create(b, loc, before);
            },
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(
                  b, loc, arith::ConstantIntOp::create(b, loc, 0, 32).getResult());
            });
        Value slot = tile[1];
        // The tile's work goes here (the constructor's caller builds it).
        k.buildIf(isFirstThread, [&] {
          Value next = arith::AddIOp::create(
              b, loc, taken.getResult(0),
              arith::IndexCastOp::create(b, loc, b.getI32Type(), grid));
          memref::StoreOp::create(b, loc, next, slots, ValueRange{slot});
        });
        // Also: no warp's copies for the next tile land in shared memory
        // that another warp still multiplies from.
        gpu::BarrierOp::create(b, loc);
        Value next = arith::IndexCastOp::create(
            b, loc, index,
            memref::LoadOp::create(b, loc, slots, ValueRange{slot}));
        scf::YieldOp::create(
            b, loc, ValueRange{next, k.rem(k.add(slot, k.index(1)), 2)});
      });
  Block *tileBody = walk.getAfterBody();
  blockId = tileBody->getArgument(0);
  // Right after the atomic's if: the first op of the tile's body.
  b.setInsertionPointAfter(&tileBody->front());
}

void BlockMma::viewDynamicSharedMemory(MemRefType sharedA, MemRefType sharedB,
                                       int64_t bytesA, int64_t alignment,
                                       ArrayRef<MemRefType> workspaceTypes) {
  auto bytesType =
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), sharedA.getMemorySpace());
  Value buffer = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  Value start = k.index(0), startB = k.index(bytesA);
  if (alignment > 16) {
    // The address in the shared window decides the swizzle wgmma applies:
    // start at the next multiple of `alignment`.
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(
        b, loc, b.getIndexType(), buffer);
    Value misalignment = k.rem(address, alignment);
    start = k.rem(
        arith::SubIOp::create(b, loc, k.index(alignment), misalignment),
        alignment);
    auto toI64 = [&](Value index) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    };
    startB = k.add(start, startB);
    addressA = toI64(k.add(address, start));
    addressB = toI64(k.add(address, startB));
  }
  sA = memref::ViewOp::create(b, loc, sharedA, buffer, start, ValueRange{});
  sB = memref::ViewOp::create(b, loc, sharedB, buffer, startB, ValueRange{});
  // The workspace after the tiles, each buffer 16-byte aligned.
  int64_t offset = sharedB.getNumElements() * 2;
  for (MemRefType type : workspaceTypes) {
    workspace.push_back(memref::ViewOp::create(
        b, loc, type, buffer, k.add(startB, k.index(offset)), ValueRange{}));
    offset += workspaceBytes(type);
  }
}

int64_t BlockMma::rowElements(Value tile) const {
  if (tile == sA)
    return aStoredByK ? shape.m : shape.k;
  return shape.n;
}

Value BlockMma::swizzledColumn(Value row, Value column, int64_t elements) {
  // The 16-byte piece of a row is XORed with the row: 8 consecutive rows
  // then cover all 32 banks once. Rows of fewer than 8 pieces share a
  // pattern between 8 / pieces of them. Rows of 8 pieces (128 bytes) are
  // the TMA's and wgmma's 128-byte swizzle.
  int64_t pieces = elements / kVector;
  if (pieces < 2)
    return column;
  int64_t patterns = std::min<int64_t>(pieces, 8);
  int64_t rowsPerPattern = std::max<int64_t>(1, 8 / pieces);
  Value pattern = k.rem(k.div(row, rowsPerPattern), patterns);
  Value piece = arith::XOrIOp::create(b, loc, k.div(column, kVector), pattern);
  return k.add(k.mul(piece, k.index(kVector)), k.rem(column, kVector));
}

SmallVector<Value> BlockMma::sharedIndices(Value tile, Value stage, Value row,
                                           Value column) {
  if (warpgroup && tile == sB)
    return {stage, k.div(column, kSwizzleRowElements), row,
            swizzledColumn(row, k.rem(column, kSwizzleRowElements),
                           kSwizzleRowElements)};
  return {stage, row, swizzledColumn(row, column, rowElements(tile))};
}

void BlockMma::copy(Value tile, Value stage, Value row, Value column, Value src,
                    ValueRange srcIndices, Value valid) {
  Value elements = valid ? Value(arith::SelectOp::create(
                               b, loc, valid, k.index(kVector), k.index(0)))
                         : k.index(kVector);
  nvgpu::DeviceAsyncCopyOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tile,
      sharedIndices(tile, stage, row, column), src, srcIndices,
      b.getIndexAttr(kVector), elements, /*bypassL1=*/nullptr);
}

void BlockMma::spread(int64_t count, function_ref<void(Value)> copyOne,
                      bool guarded) {
  for (int64_t round = 0; round < count / copyingThreads; ++round)
    copyOne(k.add(copyingTid, k.index(round * copyingThreads)));
  int64_t rest = count % copyingThreads;
  if (!rest)
    return;
  auto last = [&] { copyOne(k.add(k.index(count - rest), copyingTid)); };
  if (guarded)
    k.buildIf(k.ult(copyingTid, k.index(rest)), last);
  else
    last();
}

void BlockMma::spreadPieces(int64_t rows, int64_t columns,
                            function_ref<void(Value, Value)> copyOne,
                            bool guarded) {
  int64_t piecesPerRow = columns / kVector;
  spread(
      rows * piecesPerRow,
      [&](Value piece) {
        Value row = k.div(piece, piecesPerRow);
        Value column = k.mul(k.rem(piece, piecesPerRow), k.index(kVector));
        copyOne(row, column);
      },
      guarded);
}

SmallVector<Value>
BlockMma::loadPieces(int64_t rows, int64_t columns,
                     function_ref<Value(Value, Value)> loadElement) {
  SmallVector<Value> pieces;
  int64_t piecesPerRow = columns / kVector;
  for (int64_t round = 0; round < rows * piecesPerRow / numThreads; ++round) {
    Value piece = k.add(tid, k.index(round * numThreads));
    Value row = k.div(piece, piecesPerRow);
    Value column0 = k.mul(k.rem(piece, piecesPerRow), k.index(kVector));
    SmallVector<Value> elements;
    for (int64_t e = 0; e < kVector; ++e)
      elements.push_back(loadElement(row, k.add(column0, k.index(e))));
    pieces.push_back(vector::FromElementsOp::create(
        b, loc, VectorType::get({kVector}, shape.inputType), elements));
  }
  return pieces;
}

void BlockMma::storePieces(Value tile, Value stage, ValueRange pieces) {
  int64_t piecesPerRow = rowElements(tile) / kVector;
  for (auto [round, value] : llvm::enumerate(pieces)) {
    Value piece = k.add(tid, k.index(round * numThreads));
    Value row = k.div(piece, piecesPerRow);
    Value column0 = k.mul(k.rem(piece, piecesPerRow), k.index(kVector));
    vector::StoreOp::create(b, loc, value, tile,
                            sharedIndices(tile, stage, row, column0));
  }
}

void BlockMma::commitCopies() { NVVM::CpAsyncCommitGroupOp::create(b, loc); }

void BlockMma::waitForCopies(int64_t pending) {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending));
  if (warpgroup)
    fenceForAsyncProxy(b, loc);
  gpu::BarrierOp::create(b, loc);
}

SmallVector<Value> BlockMma::zeroAccumulators() {
  if (warpgroup) {
    // One struct of n' / 2 f32: the warpgroup's 64 rows and n' columns, as
    // wgmma takes them.
    auto type = LLVM::LLVMStructType::getLiteral(
        b.getContext(),
        SmallVector<Type>(warpgroupN() / 2, b.getF32Type()));
    return {LLVM::ZeroOp::create(b, loc, type).getResult()};
  }
  auto type = VectorType::get({2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(cast<ShapedType>(type), 0.0f));
  return SmallVector<Value>(mSubtiles() * nSubtiles(), zero);
}

void BlockMma::multiply(SmallVector<Value> &acc, Value stage) {
  if (warpgroup)
    return multiplyWarpgroup(acc, stage, /*pending=*/0);
  for (int64_t k16 = 0; k16 < shape.k / 16; ++k16) {
    SmallVector<Value> fragments;
    for (int64_t ns = 0; ns < nSubtiles(); ns += 2) {
      auto [first, second] = fragmentsB(stage, ns, k16);
      fragments.push_back(first);
      if (second)
        fragments.push_back(second);
    }
    for (int64_t ms = 0; ms < mSubtiles(); ++ms) {
      Value a = fragmentA(stage, ms, k16);
      for (int64_t ns = 0; ns < nSubtiles(); ++ns) {
        Value &c = acc[ms * nSubtiles() + ns];
        c = buildMma(b, loc, a, fragments[ns], c);
      }
    }
  }
}

SmallVector<Value> BlockMma::startProduct(Value stage) {
  SmallVector<Value> acc;
  if (warpgroup) {
    acc.push_back(LLVM::PoisonOp::create(
        b, loc, zeroAccumulators().front().getType()));
    multiplyWarpgroup(acc, stage, /*pending=*/1, /*fresh=*/true);
    return acc;
  }
  acc = zeroAccumulators();
  multiply(acc, stage);
  return acc;
}

void BlockMma::finishMultiply() {
  if (warpgroup)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
}

Value BlockMma::chunkStart(Value chunk) {
  return k.mul(chunk, k.index(shape.k));
}

void BlockMma::fillChunkIf(const ChunkFill &fill, Value present, Value stage,
                           Value k0, ValueRange staged) {
  k.buildIf(present, [&] {
    fill.issue(stage, k0);
    if (fill.load)
      fill.store(stage, staged.empty() ? fill.load(k0)
                                       : SmallVector<Value>(staged));
  });
}

void BlockMma::fillFirstChunks(const ChunkFill &fill, Value numChunks,
                               int64_t count) {
  // Each chunk its own copy group; every thread commits every group, empty
  // or not, so that group counts mean the same chunks in all threads.
  for (int64_t ahead = 0; ahead < count; ++ahead) {
    Value chunk = k.index(ahead);
    fillChunkIf(fill, k.ult(chunk, numChunks), chunk, chunkStart(chunk));
    commitCopies();
  }
}

SmallVector<Value> BlockMma::loadChunkIf(const ChunkFill &fill, Value present,
                                         Value k0) {
  if (!fill.load)
    return {};
  SmallVector<Type> types;
  auto ifLoad = scf::IfOp::create(
      b, loc, present,
      [&](OpBuilder &, Location) {
        SmallVector<Value> values = fill.load(k0);
        for (Value value : values)
          types.push_back(value.getType());
        scf::YieldOp::create(b, loc, values);
      },
      [&](OpBuilder &, Location) {
        // Past the last chunk nothing is stored; zeros stand in.
        SmallVector<Value> zeros;
        for (Type type : types)
          zeros.push_back(
              arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
        scf::YieldOp::create(b, loc, zeros);
      });
  return SmallVector<Value>(ifLoad.getResults());
}

SmallVector<Value> BlockMma::accumulateChunks(Value numChunks,
                                              const ChunkFill &fill) {
  if (warpgroup && stages >= 2)
    return accumulateChunksWarpgroup(numChunks, fill);
  Value zero = k.index(0), one = k.index(1);
  // The first stages - 1 chunks (just chunk 0 with one stage).
  fillFirstChunks(fill, numChunks, std::max<int64_t>(1, stages - 1));

  // With stages >= 2, the loop carries what fill.prefetch loaded for the
  // chunk its first round issues, after the accumulators.
  SmallVector<Value> initial = zeroAccumulators();
  size_t numAccumulators = initial.size();
  if (stages >= 2 && fill.prefetch)
    llvm::append_range(initial,
                       fill.prefetch(chunkStart(k.index(stages - 1))));
  auto chunks = scf::ForOp::create(b, loc, zero, numChunks, one, initial);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value chunk = chunks.getInductionVar();
  Value stage = k.rem(chunk, stages);
  SmallVector<Value> acc(
      chunks.getRegionIterArgs().take_front(numAccumulators));
  if (stages == 1) {
    waitForCopies(0);
    multiply(acc, stage);
    // The next chunk overwrites the shared tiles.
    gpu::BarrierOp::create(b, loc);
    Value next = k.add(chunk, one);
    fillChunkIf(fill, k.ult(next, numChunks), stage, chunkStart(next));
    commitCopies();
    scf::YieldOp::create(b, loc, acc);
    return SmallVector<Value>(chunks.getResults());
  }

  // Start chunk c + stages - 1 into the stage that chunk c - 1 used, then
  // wait for chunk c (all groups but the newest stages - 1) and multiply it.
  // Pieces that go through registers are loaded before the multiplication
  // and stored after, so that their loads are in flight meanwhile; so are
  // the loads that the next round's copies wait for (fill.prefetch), which
  // the loop carries.
  Value ahead = k.add(chunk, k.index(stages - 1));
  Value aheadStage = k.rem(ahead, stages);
  Value hasAhead = k.ult(ahead, numChunks);
  Value aheadStart = chunkStart(ahead);
  ValueRange prefetched = chunks.getRegionIterArgs().drop_front(acc.size());
  k.buildIf(hasAhead, [&] {
    if (fill.prefetch)
      fill.issuePrefetched(aheadStage, aheadStart, prefetched);
    else
      fill.issue(aheadStage, aheadStart);
  });
  commitCopies();
  SmallVector<Value> next;
  if (fill.prefetch)
    next = fill.prefetch(chunkStart(k.add(ahead, one)));
  SmallVector<Value> staged = loadChunkIf(fill, hasAhead, aheadStart);
  waitForCopies(stages - 1);
  multiply(acc, stage);
  if (fill.load)
    k.buildIf(hasAhead, [&] { fill.store(aheadStage, staged); });
  // The next round's copies go into the stage just multiplied.
  gpu::BarrierOp::create(b, loc);
  acc.append(next);
  scf::YieldOp::create(b, loc, acc);
  return SmallVector<Value>(chunks.getResults().take_front(numAccumulators));
}

void BlockMma::forEachAccumulator(
    ValueRange acc, function_ref<void(Value, Value, Value)> write) {
  forEachAccumulatorPair(
      acc, [&](Value row, Value column, Value first, Value second) {
        write(row, column, first);
        write(row, k.add(column, k.index(1)), second);
      });
}

void BlockMma::forEachAccumulatorPair(
    ValueRange acc, function_ref<void(Value, Value, Value, Value)> write) {
  forEachAccumulatorBlock(acc, [&](Value row, Value column,
                                   ArrayRef<Value> values) {
    write(row, column, values[0], values[1]);
    write(k.add(row, k.index(8)), column, values[2], values[3]);
  });
}

void BlockMma::forEachAccumulatorQuad(
    ValueRange acc, function_ref<void(Value, Value, ValueRange)> write) {
  // Lanes 2p and 2p + 1 of a group hold columns 4p .. 4p + 3 of rows r and
  // r + 8 between them, two each. They swap: the even lane sends its row
  // r + 8 pair and keeps row r, the odd lane the other way round.
  Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    k.rem(inGroup, 2), k.index(1));
  Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
  Value width = arith::ConstantIntOp::create(b, loc, kMmaLanes, 32);
  forEachAccumulatorBlock(acc, [&](Value row, Value column,
                                   ArrayRef<Value> values) {
    SmallVector<Value> received;
    for (int64_t e = 0; e < 2; ++e) {
      Value sent = arith::SelectOp::create(b, loc, odd, values[e],
                                           values[2 + e]);
      received.push_back(gpu::ShuffleOp::create(b, loc, sent, one, width,
                                                 gpu::ShuffleMode::XOR)
                             .getShuffleResult());
    }
    SmallVector<Value> quad;
    for (int64_t e = 0; e < 4; ++e) {
      // Even lane: its row r pair, then the partner's; odd lane: the
      // partner's row r + 8 pair, then its own.
      Value even = e < 2 ? values[e] : received[e - 2];
      Value oddValue = e < 2 ? received[e] : values[e];
      quad.push_back(arith::SelectOp::create(b, loc, odd, oddValue, even));
    }
    Value quadRow = arith::SelectOp::create(b, loc, odd,
                                            k.add(row, k.index(8)), row);
    Value quadColumn = k.mul(k.div(column, 4), k.index(4));
    write(quadRow, quadColumn, quad);
  });
}

void BlockMma::forEachAccumulatorOctet(
    ValueRange acc, function_ref<Value(Value, Value, Value, Value)> pack,
    function_ref<void(Value, Value, ValueRange)> write) {
  // Lane c of a group holds four packed pairs of two neighbouring 8-column
  // blocks j and j + 1: item 0 (row r, block j), 1 (row r, block j + 1), 2
  // (row r + 8, block j), 3 (row r + 8, block j + 1), columns 2c and 2c + 1
  // of each. Lane t is to write item t of every lane, which is a 4 x 4
  // transpose (lanes x items): first the lanes two apart swap the items
  // whose high bit differs from theirs, then neighbouring lanes the items
  // whose low bit does.
  Value width = arith::ConstantIntOp::create(b, loc, kMmaLanes, 32);
  auto exchange = [&](SmallVector<Value> &items, int64_t distance) {
    Value upper = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        k.rem(k.div(inGroup, distance), 2), k.index(0));
    Value offset = arith::ConstantIntOp::create(b, loc, distance, 32);
    for (int64_t item = 0; item < 4; ++item) {
      if (item & distance)
        continue;
      Value low = items[item], high = items[item + distance];
      // A lower lane keeps its low item and sends its high one.
      Value sent = arith::SelectOp::create(b, loc, upper, low, high);
      Value received = gpu::ShuffleOp::create(b, loc, sent, offset, width,
                                              gpu::ShuffleMode::XOR)
                           .getShuffleResult();
      items[item] = arith::SelectOp::create(b, loc, upper, received, low);
      items[item + distance] =
          arith::SelectOp::create(b, loc, upper, high, received);
    }
  };
  Value outputRow = k.mul(k.div(inGroup, 2), k.index(8));
  Value outputBlock = k.mul(k.rem(inGroup, 2), k.index(8));
  SmallVector<Value> pending;
  Value pendingRow, pendingColumn;
  forEachAccumulatorBlock(acc, [&](Value row, Value column,
                                   ArrayRef<Value> values) {
    Value rowBelow = k.add(row, k.index(8));
    if (pending.empty()) {
      pending = {pack(row, column, values[0], values[1]),
                 pack(rowBelow, column, values[2], values[3])};
      pendingRow = row;
      pendingColumn = column;
      return;
    }
    // Blocks come in column order: this one is 8 columns right of the one
    // pending.
    SmallVector<Value> items{pending[0],
                             pack(row, column, values[0], values[1]),
                             pending[1],
                             pack(rowBelow, column, values[2], values[3])};
    pending.clear();
    exchange(items, 2);
    exchange(items, 1);
    Value blockStart = k.mul(k.div(pendingColumn, 8), k.index(8));
    write(k.add(pendingRow, outputRow), k.add(blockStart, outputBlock),
          items);
  });
  assert(pending.empty() && "8-column blocks come in pairs");
}

Value BlockMma::warpgroupAccumulatorRow() {
  assert(warpgroup && "wgmma accumulators only");
  return k.add(k.add(k.mul(warpgroupRows, k.index(64)),
                     k.mul(warp, k.index(16))),
               group);
}

void BlockMma::forEachAccumulatorBlock(
    ValueRange acc,
    function_ref<void(Value, Value, ArrayRef<Value>)> write) {
  if (warpgroup) {
    // wgmma's m64nN accumulator: register 4 j + 2 i + e holds row 16 warp
    // + group + 8 i, column 8 j + 2 inGroup + e of the warpgroup's 64 rows.
    Value warpRow = warpgroupAccumulatorRow();
    Value pairColumn = k.add(k.mul(inGroup, k.index(2)),
                             k.mul(warpgroupColumns, k.index(warpgroupN())));
    for (int64_t j = 0; j < warpgroupN() / 8; ++j) {
      SmallVector<Value> values;
      for (int64_t reg = 4 * j; reg < 4 * j + 4; ++reg)
        values.push_back(LLVM::ExtractValueOp::create(b, loc, acc.front(), reg));
      write(warpRow, k.add(pairColumn, k.index(j * 8)), values);
    }
    return;
  }
  for (int64_t ms = 0; ms < mSubtiles(); ++ms) {
    Value row = k.add(group, k.index(ms * 16));
    for (int64_t ns = 0; ns < nSubtiles(); ++ns) {
      Value tile = acc[ms * nSubtiles() + ns];
      SmallVector<Value> values;
      for (int64_t i0 = 0; i0 < 2; ++i0)
        for (int64_t e = 0; e < 2; ++e)
          values.push_back(
              vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{i0, e}));
      Value column = k.add(warpColumn, k.add(k.mul(inGroup, k.index(2)),
                                             k.index(ns * 8)));
      write(row, column, values);
    }
  }
}
