//===- BlockMma.cpp - Pieces of the tensor-core STile kernels -------------===//

#include "BlockMma.h"

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

/// `c + a x b` on the tensor cores, m16n8k16, with the fragments as
/// nvgpu.mma.sync takes them. nvgpu lowers f16 only, so bf16 goes straight
/// to nvvm.mma.sync, whose bf16 operands are packed pairs in 32-bit
/// registers.
static Value buildMma(OpBuilder &b, Location loc, Value a, Value bFragment,
                      Value c) {
  Type elementType = cast<VectorType>(a.getType()).getElementType();
  if (elementType.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, c,
                                    ArrayRef<int64_t>{16, 8, 16});
  auto packedRegisters = [&](Value fragment, int64_t count) {
    SmallVector<Value> registers;
    for (int64_t reg = 0; reg < count; ++reg) {
      Value pair = vector::ExtractOp::create(b, loc, fragment,
                                             ArrayRef<int64_t>{reg});
      Value packed = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      registers.push_back(
          vector::ExtractOp::create(b, loc, packed, ArrayRef<int64_t>{0}));
    }
    return registers;
  };
  SmallVector<Value> accumulators;
  for (int64_t i0 = 0; i0 < 2; ++i0)
    for (int64_t i1 = 0; i1 < 2; ++i1)
      accumulators.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{i0, i1}));
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, packedRegisters(a, 4), packedRegisters(bFragment, 2),
      accumulators, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  Value flat = vector::FromElementsOp::create(
      b, loc, VectorType::get({4}, f32), elements);
  return vector::ShapeCastOp::create(b, loc, c.getType(), flat);
}

/// LLVM pointers into this block's shared memory, and into the shared
/// memory of the blocks of its cluster (addresses from nvvm.mapa).
static LLVM::LLVMPointerType sharedPointerType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(
      context, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
}
static LLVM::LLVMPointerType clusterPointerType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(
      context, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
}

/// The shared-memory pointer `offset` (index) bytes past shared address
/// `address` (i64), as the TMA's instructions and nvvm.mapa take it.
static Value sharedPointerAt(KernelBuilder &k, Value address, Value offset) {
  Value bytes =
      arith::IndexCastOp::create(k.b, k.loc, k.b.getI64Type(), offset);
  return LLVM::IntToPtrOp::create(
             k.b, k.loc, sharedPointerType(k.b.getContext()),
             arith::AddIOp::create(k.b, k.loc, address, bytes).getResult())
      .getResult();
}

/// Orders this thread's writes to shared memory (stores, landed copies)
/// before reads through the async proxy (wgmma's, TMA's).
static void fenceForAsyncProxy(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc,
      NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

/// wgmma's 128-byte swizzle: rows of kSwizzleRowElements f16/bf16 elements,
/// 8 rows (1024 bytes) to one pattern of the 16-byte pieces.
constexpr int64_t kSwizzleAtomBytes = 1024;

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

/// A wgmma shared-memory matrix descriptor: the start address, the byte
/// offsets between 8-row core-matrix groups in the leading and the stride
/// dimension (each in 16-byte units, 14 bits), and the 128-byte swizzle.
static Value buildDescriptor(KernelBuilder &k, Value address,
                             int64_t leadingBytes, int64_t strideBytes) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto i64 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  };
  constexpr int64_t kSwizzle128B = 1;
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, i64(0x3FFFF)), i64(4));
  int64_t fields = ((leadingBytes >> 4) << 16) | ((strideBytes >> 4) << 32) |
                   (kSwizzle128B << 62);
  return arith::OrIOp::create(b, loc, start, i64(fields));
}

Value BlockMma::descriptorAddress(Value tileAddress, Value stageBytes,
                                  int64_t offsetBytes) {
  Value bytes = arith::IndexCastOp::create(b, loc, b.getI64Type(), stageBytes);
  Value offset = arith::ConstantIntOp::create(b, loc, offsetBytes, 64);
  return arith::AddIOp::create(b, loc, tileAddress,
                               arith::AddIOp::create(b, loc, bytes, offset));
}

Value BlockMma::mnMajorDescriptor(Value tileAddress, Value stageBytes,
                                  int64_t k16) {
  return buildDescriptor(
      k,
      descriptorAddress(tileAddress, stageBytes, k16 * 2 * kSwizzleAtomBytes),
      /*leadingBytes=*/shape.k * kSwizzleRowElements * 2,
      /*strideBytes=*/kSwizzleAtomBytes);
}

Value BlockMma::descriptorA(Value stage, int64_t k16) {
  // Stored k by k, sA is k x 64 (one warpgroup): m-major, one block.
  if (aStoredByK)
    return mnMajorDescriptor(addressA,
                             k.mul(stage, k.index(shape.m * shape.k * 2)), k16);
  // A with k contiguous: rows of 128 bytes, 8-row groups 1024 bytes apart;
  // the k16 steps move 32 bytes along the (swizzled) row. The warpgroup
  // reads its 64 rows.
  Value stageBytes =
      k.add(k.mul(stage, k.index(shape.m * shape.k * 2)),
            k.mul(warpgroupRows, k.index(64 * kSwizzleRowElements * 2)));
  return buildDescriptor(k, descriptorAddress(addressA, stageBytes, k16 * 32),
                         /*leadingBytes=*/16,
                         /*strideBytes=*/kSwizzleAtomBytes);
}

Value BlockMma::descriptorB(Value stage, int64_t k16) {
  // n-major; the warpgroup reads its n' columns.
  int64_t blockBytes = shape.k * kSwizzleRowElements * 2;
  return mnMajorDescriptor(
      addressB,
      k.add(k.mul(stage, k.index(shape.k * shape.n * 2)),
            k.mul(warpgroupColumns,
                  k.index(warpgroupN() / kSwizzleRowElements * blockBytes))),
      k16);
}

void BlockMma::multiplyWarpgroup(SmallVector<Value> &acc, Value stage,
                                 int64_t pending, bool fresh) {
  MLIRContext *ctx = b.getContext();
  NVVM::WGMMATypes inputType = shape.inputType.isF16()
                                   ? NVVM::WGMMATypes::f16
                                   : NVVM::WGMMATypes::bf16;
  auto typeIn = NVVM::WGMMATypesAttr::get(ctx, inputType);
  auto typeOut = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto scaleOne = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  auto accumulate = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
  auto overwrite =
      NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::zero);
  auto mmaShape = NVVM::MMAShapeAttr::get(ctx, 64, warpgroupN(), 16);
  // A with k contiguous ("row"), or stored k by k, m contiguous ("col":
  // transposed); B n-major ("row": transposed from wgmma's k-major).
  auto row = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
  auto layoutA =
      aStoredByK ? NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col) : row;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t k16 = 0; k16 < shape.k / 16; ++k16) {
    acc.front() = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc.front().getType(), acc.front(), descriptorA(stage, k16),
        descriptorB(stage, k16), mmaShape, typeIn, typeIn, typeOut,
        fresh && k16 == 0 ? overwrite : accumulate,
        scaleOne, scaleOne, layoutA, row, /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
}

SmallVector<Value>
BlockMma::accumulateChunksWarpgroup(Value numChunks, const ChunkFill &fill) {
  Value zero = k.index(0), one = k.index(1);
  fillFirstChunks(fill, numChunks, stages - 1);

  auto chunks = scf::ForOp::create(b, loc, zero, numChunks, one,
                                   zeroAccumulators());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value chunk = chunks.getInductionVar();
  SmallVector<Value> acc(chunks.getRegionIterArgs());
  Value ahead = k.add(chunk, k.index(stages - 1));
  Value hasAhead = k.ult(ahead, numChunks);
  Value aheadStart = chunkStart(ahead);
  // Pieces that go through registers are loaded first, so that their loads
  // are in flight during the multiplication.
  SmallVector<Value> staged = loadChunkIf(fill, hasAhead, aheadStart);
  // Chunk c has landed once all groups but the newest stages - 2 have.
  waitForCopies(stages - 2);
  // Multiply chunk c, leaving it in flight; chunk c - 1's multiplication
  // is then done in this warp, and after the barrier in every warp: its
  // stage takes chunk c + stages - 1.
  multiplyWarpgroup(acc, k.rem(chunk, stages), /*pending=*/1);
  gpu::BarrierOp::create(b, loc);
  fillChunkIf(fill, hasAhead, k.rem(ahead, stages), aheadStart, staged);
  commitCopies();
  scf::YieldOp::create(b, loc, acc);
  b.setInsertionPointAfter(chunks);
  // The last chunk's multiplication, before anyone reads the accumulators.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  return SmallVector<Value>(chunks.getResults());
}

Value BlockMma::fragmentA(Value stage, int64_t ms, int64_t k16) {
  if (aStoredByK) {
    // sA is k x m: transposed 8x8 loads. The matrices a0..a3 are (m 0-7,
    // k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15): lanes
    // 8i..8i+7 address the 8 k rows of matrix i at its first m.
    Value kRow = k.add(k.add(k.rem(lane, 8), k.mul(k.div(lane, 16), k.index(8))),
                       k.index(k16 * 16));
    Value mColumn = k.add(k.mul(k.rem(k.div(lane, 8), 2), k.index(8)),
                          k.index(ms * 16));
    return nvgpu::LdMatrixOp::create(
        b, loc, VectorType::get({4, 2}, shape.inputType), sA,
        sharedIndices(sA, stage, kRow, mColumn), b.getBoolAttr(true),
        b.getI32IntegerAttr(4));
  }
  // Lanes 0-15 address rows 0-15 at k 0, lanes 16-31 the same rows at k 8:
  // the four 8x8 matrices come back as the registers a0..a3.
  Value row = k.add(k.rem(lane, 16), k.index(ms * 16));
  Value column = k.add(k.mul(k.div(lane, 16), k.index(8)), k.index(k16 * 16));
  return nvgpu::LdMatrixOp::create(
      b, loc, VectorType::get({4, 2}, shape.inputType), sA,
      sharedIndices(sA, stage, row, column), b.getBoolAttr(false),
      b.getI32IntegerAttr(4));
}

std::pair<Value, Value> BlockMma::fragmentsB(Value stage, int64_t ns,
                                             int64_t k16) {
  // B is stored k by k in shared memory; transposed 8x8 loads give the column
  // fragments. Lanes 0-15 address k rows 0-15 of piece ns, lanes 16-31 those
  // of piece ns + 1, when there is one.
  bool pair = ns + 1 < nSubtiles();
  Value row = k.add(k.rem(lane, 16), k.index(k16 * 16));
  Value column = k.add(warpColumn, k.index(ns * 8));
  if (pair)
    column = k.add(column, k.mul(k.div(lane, 16), k.index(8)));
  Value loaded = nvgpu::LdMatrixOp::create(
      b, loc, VectorType::get({pair ? 4 : 2, 2}, shape.inputType), sB,
      sharedIndices(sB, stage, row, column), b.getBoolAttr(true),
      b.getI32IntegerAttr(pair ? 4 : 2));
  if (!pair)
    return {loaded, Value()};
  auto half = [&](int64_t first) {
    return vector::ExtractStridedSliceOp::create(
        b, loc, loaded, ArrayRef<int64_t>{first, 0},
        ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1});
  };
  return {half(0), half(2)};
}

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
                         function_ref<void(Value, Value)> body) {
  auto tiles = scf::ForOp::create(b, loc, walk.first, walk.end, walk.step,
                                  ValueRange{k.index(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  Value firstUse = tiles.getRegionIterArgs()[0];
  body(tiles.getInductionVar(), firstUse);
  scf::YieldOp::create(b, loc, ValueRange{k.add(firstUse, walk.numChunks)});
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
  walkTiles(walk, [&](Value tile, Value firstUse) {
    std::optional<TensorCopies> copies;
    if (walk.copiesOf)
      copies = walk.copiesOf(tile);
    auto chunks = scf::ForOp::create(b, loc, zero, walk.numChunks, one);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value chunk = chunks.getInductionVar();
    Value use = k.add(firstUse, chunk);
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
  walkTiles(walk, [&](Value tile, Value firstUse) {
    auto chunks = scf::ForOp::create(b, loc, zero, walk.numChunks, one,
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
    k.buildIf(k.ult(zero, walk.numChunks), [&] {
      release(k.add(firstUse,
                    arith::SubIOp::create(b, loc, walk.numChunks, one)));
    });
    walk.finish(tile, chunks.getResults());
  });
  if (walk.afterLastTile)
    walk.afterLastTile();
}

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

void BlockMma::storeTileWithTensorMap(Value acc, const TensorStores &stores,
                                      Value m0, Value n0, Type outputType) {
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
        Value column = swizzledColumn(
            rowInBox, k.add(k.index(8 * j), k.mul(inGroup, k.index(2))),
            kStagedColumns);
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

void BlockMma::storeTileThroughSharedTiles(ValueRange acc, Value mapC,
                                           Value m0, Value n0,
                                           Type outputType) {
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
    copyBoxIntoStage(addressB, bytesB, stage,
                     k.mul(block, k.index(blockBytes)), mapB,
                     {k.toI32(column), k.toI32(k0)}, full, multicastMask);
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

StageBarriers::StageBarriers(KernelBuilder &k, Value buffer, int64_t stages)
    : k(k), stages(stages) {
  address = memref::ExtractAlignedPointerAsIndexOp::create(
      k.b, k.loc, k.b.getIndexType(), buffer);
}

MemRefType StageBarriers::type(MLIRContext *context, int64_t stages) {
  return MemRefType::get({2 * stages}, IntegerType::get(context, 64));
}

Value StageBarriers::at(Value index) {
  auto sharedPointer = sharedPointerType(k.b.getContext());
  Value byteAddress = k.add(address, k.mul(index, k.index(8)));
  return LLVM::IntToPtrOp::create(
      k.b, k.loc, sharedPointer,
      arith::IndexCastOp::create(k.b, k.loc, k.b.getI64Type(), byteAddress)
          .getResult());
}

Value StageBarriers::full(Value stage) { return at(stage); }

Value StageBarriers::empty(Value stage) {
  return at(k.add(stage, k.index(stages)));
}

void StageBarriers::init(int64_t fullArrivals, int64_t emptyArrivals) {
  for (int64_t stage = 0; stage < stages; ++stage) {
    NVVM::MBarrierInitOp::create(k.b, k.loc, full(k.index(stage)),
                                 k.i32(fullArrivals), Value());
    NVVM::MBarrierInitOp::create(k.b, k.loc, empty(k.index(stage)),
                                 k.i32(emptyArrivals), Value());
  }
}

void StageBarriers::invalidate() {
  for (int64_t stage = 0; stage < stages; ++stage) {
    NVVM::MBarrierInvalOp::create(k.b, k.loc, full(k.index(stage)));
    NVVM::MBarrierInvalOp::create(k.b, k.loc, empty(k.index(stage)));
  }
}

Value StageBarriers::stageOf(Value use) { return k.rem(use, stages); }

Value StageBarriers::parity(Value use, int64_t plus) {
  return k.toI32(k.rem(k.add(k.div(use, stages), k.index(plus)), 2));
}

void StageBarriers::wait(Value barrier, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(k.b, k.loc, barrier, parity,
                                        k.i32(kMbarrierSuspendHintNs));
}

void StageBarriers::waitUntilFull(Value use) {
  wait(full(stageOf(use)), parity(use, 0));
}

void StageBarriers::waitUntilFree(Value use) {
  wait(empty(stageOf(use)), parity(use, 1));
}

void StageBarriers::waitUntilLanded(Value use) {
  waitUntilFull(use);
  fenceForAsyncProxy(k.b, k.loc);
}

Value mlir::pit::loadGatheredPosition(KernelBuilder &k, Value positions,
                                      Value segment, Value c, int64_t micro,
                                      int64_t capacity) {
  Value clamped = arith::MinUIOp::create(k.b, k.loc, k.div(c, micro),
                                         k.index(capacity - 1));
  return memref::LoadOp::create(k.b, k.loc, positions,
                                ValueRange{segment, clamped});
}

std::pair<Value, Value> mlir::pit::gatheredFromPosition(KernelBuilder &k,
                                                        Value position,
                                                        Value count, Value c,
                                                        int64_t micro) {
  Value valid = k.ult(k.div(c, micro), count);
  // Past the count the index holds whatever the buffer held before (the
  // allocator reuses memory): position 0 keeps the address in bounds for
  // the loads that padding still issues.
  Value index = arith::SelectOp::create(
      k.b, k.loc, valid,
      arith::IndexCastOp::create(k.b, k.loc, k.b.getIndexType(), position),
      k.index(0));
  return {k.add(k.mul(index, k.index(micro)), k.rem(c, micro)), valid};
}

std::pair<Value, Value> mlir::pit::gatheredCoordinate(KernelBuilder &k,
                                                      Value positions,
                                                      Value segment,
                                                      Value count, Value c,
                                                      int64_t micro,
                                                      int64_t capacity) {
  return gatheredFromPosition(
      k, loadGatheredPosition(k, positions, segment, c, micro, capacity),
      count, c, micro);
}

void mlir::pit::enterIfLive(KernelBuilder &k, Value origin, Value count,
                            int64_t micro) {
  Value live = k.ult(origin, k.mul(count, k.index(micro)));
  auto ifLive = scf::IfOp::create(k.b, k.loc, live, /*withElseRegion=*/false);
  k.b.setInsertionPoint(ifLive.thenBlock()->getTerminator());
}

Value mlir::pit::loadCount(KernelBuilder &k, Value counts, Value segment) {
  return arith::IndexCastOp::create(
      k.b, k.loc, k.b.getIndexType(),
      memref::LoadOp::create(k.b, k.loc, counts, segment));
}
