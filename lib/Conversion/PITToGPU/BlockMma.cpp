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

BlockMma::BlockMma(OpBuilder &b, Location loc, const MmaTileShape &shape,
                   int64_t numTiles, int64_t stages, bool aKMajor)
    : b(b), loc(loc), k{b, loc}, shape(shape), stages(stages),
      aKMajor(aKMajor) {
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  SmallVector<int64_t> aShape =
      aKMajor ? SmallVector<int64_t>{stages, shape.k, shape.m}
              : SmallVector<int64_t>{stages, shape.m, shape.k};
  auto sharedA = MemRefType::get(aShape, shape.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  auto sharedB = MemRefType::get({stages, shape.k, shape.n}, shape.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  // Up to 48 KiB the tiles are static workgroup buffers; beyond, they are
  // views of dynamic shared memory, which the launch asks for (and the
  // runtime allows the kernel).
  int64_t bytesA = stages * shape.m * shape.k * 2;
  int64_t bytes = stages * shape.sharedBytes();
  bool dynamic = bytes > kSharedBytes;
  Value one = k.index(1);
  int64_t numBlocks = std::min(numTiles, kMaxMmaBlocks);
  Value dynamicBytes =
      dynamic ? arith::ConstantIntOp::create(b, loc, bytes, 32).getResult()
              : Value();
  launch = gpu::LaunchOp::create(
      b, loc, k.index(numBlocks), one, one, k.index(kMmaThreads), one, one,
      dynamicBytes, nullptr, {},
      dynamic ? TypeRange{} : TypeRange{sharedA, sharedB});
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  if (dynamic) {
    auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                     MemRefLayoutAttrInterface(), workgroup);
    Value buffer = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
    sA = memref::ViewOp::create(b, loc, sharedA, buffer, k.index(0),
                                ValueRange{});
    sB = memref::ViewOp::create(b, loc, sharedB, buffer, k.index(bytesA),
                                ValueRange{});
  } else {
    sA = launch.getWorkgroupAttributions()[0];
    sB = launch.getWorkgroupAttributions()[1];
  }
  tid = launch.getThreadIds().x;
  Value warp = k.div(tid, kMmaLanes);
  lane = k.rem(tid, kMmaLanes);
  group = k.div(lane, 4);
  inGroup = k.rem(lane, 4);
  warpColumn = k.mul(warp, k.index(shape.n / kMmaWarps));
  blockId = launch.getBlockIds().x;
  if (numBlocks == numTiles)
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

SmallVector<Value> BlockMma::sharedIndices(Value tile, Value stage, Value row,
                                           Value column) {
  // 16-byte pieces per row, and how many rows share one XOR pattern so that
  // 8 consecutive rows cover all 32 banks once.
  int64_t rowElements = cast<MemRefType>(tile.getType()).getDimSize(2);
  int64_t pieces = rowElements / kVector;
  if (pieces < 2)
    return {stage, row, column};
  int64_t patterns = std::min<int64_t>(pieces, 8);
  int64_t rowsPerPattern = std::max<int64_t>(1, 8 / pieces);
  Value pattern = k.rem(k.div(row, rowsPerPattern), patterns);
  Value piece = arith::XOrIOp::create(b, loc, k.div(column, kVector), pattern);
  return {stage, row,
          k.add(k.mul(piece, k.index(kVector)), k.rem(column, kVector))};
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

void BlockMma::spread(int64_t count, function_ref<void(Value)> copyOne) {
  for (int64_t round = 0; round < count / kMmaThreads; ++round)
    copyOne(k.add(tid, k.index(round * kMmaThreads)));
  if (int64_t rest = count % kMmaThreads) {
    auto guard = scf::IfOp::create(b, loc, k.ult(tid, k.index(rest)), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    copyOne(k.add(k.index(count - rest), tid));
  }
}

SmallVector<Value>
BlockMma::loadPieces(int64_t rows, int64_t columns,
                     function_ref<Value(Value, Value)> loadElement) {
  SmallVector<Value> pieces;
  int64_t piecesPerRow = columns / kVector;
  for (int64_t round = 0; round < rows * piecesPerRow / kMmaThreads; ++round) {
    Value piece = k.add(tid, k.index(round * kMmaThreads));
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
  int64_t piecesPerRow =
      cast<MemRefType>(tile.getType()).getDimSize(2) / kVector;
  for (auto [round, value] : llvm::enumerate(pieces)) {
    Value piece = k.add(tid, k.index(round * kMmaThreads));
    Value row = k.div(piece, piecesPerRow);
    Value column0 = k.mul(k.rem(piece, piecesPerRow), k.index(kVector));
    vector::StoreOp::create(b, loc, value, tile,
                            sharedIndices(tile, stage, row, column0));
  }
}

void BlockMma::commitCopies() { NVVM::CpAsyncCommitGroupOp::create(b, loc); }

void BlockMma::waitForCopies(int64_t pending) {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(pending));
  gpu::BarrierOp::create(b, loc);
}

SmallVector<Value> BlockMma::zeroAccumulators() {
  auto type = VectorType::get({2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(cast<ShapedType>(type), 0.0f));
  return SmallVector<Value>(mSubtiles() * nSubtiles(), zero);
}

void BlockMma::multiply(SmallVector<Value> &acc, Value stage) {
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

SmallVector<Value> BlockMma::accumulateChunks(Value numChunks,
                                              const ChunkFill &fill) {
  Value zero = k.index(0), one = k.index(1);
  // Fills stage `stage` with the chunk that starts at k0, where `present`.
  auto fillStage = [&](Value present, Value stage, Value k0) {
    auto ifPresent = scf::IfOp::create(b, loc, present, false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifPresent.thenBlock()->getTerminator());
    fill.issue(stage, k0);
    if (fill.load)
      fill.store(stage, fill.load(k0));
  };
  auto chunkStart = [&](Value chunk) {
    return k.mul(chunk, k.index(shape.k));
  };

  // The first stages - 1 chunks (just chunk 0 with one stage), each its
  // own copy group; every thread commits every group, empty or not, so that
  // group counts mean the same chunks in all threads.
  for (int64_t ahead = 0; ahead < std::max<int64_t>(1, stages - 1); ++ahead) {
    Value chunk = k.index(ahead);
    fillStage(k.ult(chunk, numChunks), k.index(ahead), chunkStart(chunk));
    commitCopies();
  }

  auto chunks = scf::ForOp::create(b, loc, zero, numChunks, one,
                                   zeroAccumulators());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value chunk = chunks.getInductionVar();
  Value stage = k.rem(chunk, stages);
  SmallVector<Value> acc(chunks.getRegionIterArgs());
  if (stages == 1) {
    waitForCopies(0);
    multiply(acc, stage);
    // The next chunk overwrites the shared tiles.
    gpu::BarrierOp::create(b, loc);
    Value next = k.add(chunk, one);
    fillStage(k.ult(next, numChunks), stage, chunkStart(next));
    commitCopies();
    scf::YieldOp::create(b, loc, acc);
    return SmallVector<Value>(chunks.getResults());
  }

  // Start chunk c + stages - 1 into the stage that chunk c - 1 used, then
  // wait for chunk c (all groups but the newest stages - 1) and multiply it.
  // Pieces that go through registers are loaded before the multiplication
  // and stored after, so that their loads are in flight meanwhile.
  Value ahead = k.add(chunk, k.index(stages - 1));
  Value aheadStage = k.rem(ahead, stages);
  Value hasAhead = k.ult(ahead, numChunks);
  Value aheadStart = chunkStart(ahead);
  {
    auto ifAhead = scf::IfOp::create(b, loc, hasAhead, false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifAhead.thenBlock()->getTerminator());
    fill.issue(aheadStage, aheadStart);
  }
  commitCopies();
  SmallVector<Value> staged;
  if (fill.load) {
    SmallVector<Type> types;
    auto ifLoad = scf::IfOp::create(
        b, loc, hasAhead,
        [&](OpBuilder &, Location) {
          SmallVector<Value> values = fill.load(aheadStart);
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
    staged = SmallVector<Value>(ifLoad.getResults());
  }
  waitForCopies(stages - 1);
  multiply(acc, stage);
  if (fill.load) {
    auto ifStore = scf::IfOp::create(b, loc, hasAhead, false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifStore.thenBlock()->getTerminator());
    fill.store(aheadStage, staged);
  }
  // The next round's copies go into the stage just multiplied.
  gpu::BarrierOp::create(b, loc);
  scf::YieldOp::create(b, loc, acc);
  return SmallVector<Value>(chunks.getResults());
}

void BlockMma::forEachAccumulator(
    ValueRange acc, function_ref<void(Value, Value, Value)> write) {
  for (int64_t ms = 0; ms < mSubtiles(); ++ms)
    for (int64_t ns = 0; ns < nSubtiles(); ++ns)
      for (int64_t i0 = 0; i0 < 2; ++i0)
        for (int64_t i1 = 0; i1 < 2; ++i1) {
          Value value = vector::ExtractOp::create(
              b, loc, acc[ms * nSubtiles() + ns], ArrayRef<int64_t>{i0, i1});
          Value row = k.add(group, k.index(ms * 16 + i0 * 8));
          Value column = k.add(warpColumn, k.add(k.mul(inGroup, k.index(2)),
                                                 k.index(ns * 8 + i1)));
          write(row, column, value);
        }
}

void BlockMma::forEachAccumulatorPair(
    ValueRange acc, function_ref<void(Value, Value, Value, Value)> write) {
  for (int64_t ms = 0; ms < mSubtiles(); ++ms)
    for (int64_t ns = 0; ns < nSubtiles(); ++ns)
      for (int64_t i0 = 0; i0 < 2; ++i0) {
        Value tile = acc[ms * nSubtiles() + ns];
        Value first =
            vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{i0, 0});
        Value second =
            vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{i0, 1});
        Value row = k.add(group, k.index(ms * 16 + i0 * 8));
        Value column = k.add(warpColumn, k.add(k.mul(inGroup, k.index(2)),
                                               k.index(ns * 8)));
        write(row, column, first, second);
      }
}

Value BlockMma::fragmentA(Value stage, int64_t ms, int64_t k16) {
  if (aKMajor) {
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
  // B is k-major in shared memory; transposed 8x8 loads give the column
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

std::pair<Value, Value> mlir::pit::gatheredCoordinate(KernelBuilder &k,
                                                      Value positions,
                                                      Value segment,
                                                      Value count, Value c,
                                                      int64_t micro,
                                                      int64_t capacity) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value slot = k.div(c, micro);
  Value within = k.rem(c, micro);
  Value valid = k.ult(slot, count);
  Value clamped = arith::MinUIOp::create(b, loc, slot, k.index(capacity - 1));
  Value position = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, positions, ValueRange{segment, clamped}));
  // Past the count the index holds whatever the buffer held before (the
  // allocator reuses memory): position 0 keeps the address in bounds for
  // the loads that padding still issues.
  position = arith::SelectOp::create(b, loc, valid, position, k.index(0));
  return {k.add(k.mul(position, k.index(micro)), within), valid};
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
