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

Value KernelBuilder::index(int64_t value) {
  return constantIndex(b, loc, value);
}
Value KernelBuilder::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value KernelBuilder::div(Value x, int64_t y) {
  return arith::DivUIOp::create(b, loc, x, index(y));
}
Value KernelBuilder::rem(Value x, int64_t y) {
  return arith::RemUIOp::create(b, loc, x, index(y));
}
Value KernelBuilder::ult(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
}

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
                   int64_t numBlocks)
    : b(b), loc(loc), k{b, loc}, shape(shape) {
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto sharedA = MemRefType::get({shape.m, shape.k}, shape.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  auto sharedB = MemRefType::get({shape.k, shape.n}, shape.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  Value one = k.index(1);
  launch = gpu::LaunchOp::create(b, loc, k.index(numBlocks), one, one,
                                 k.index(kMmaThreads), one, one, nullptr,
                                 nullptr, {}, TypeRange{sharedA, sharedB});
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  sA = launch.getWorkgroupAttributions()[0];
  sB = launch.getWorkgroupAttributions()[1];
  blockId = launch.getBlockIds().x;
  tid = launch.getThreadIds().x;
  Value warp = k.div(tid, kMmaLanes), lane = k.rem(tid, kMmaLanes);
  group = k.div(lane, 4);
  inGroup = k.rem(lane, 4);
  warpColumn = k.mul(warp, k.index(shape.n / kMmaWarps));
}

Value BlockMma::copy(Value dst, ValueRange dstIndices, Value src,
                     ValueRange srcIndices, Value valid) {
  Value elements = valid ? Value(arith::SelectOp::create(
                               b, loc, valid, k.index(kVector), k.index(0)))
                         : k.index(kVector);
  return nvgpu::DeviceAsyncCopyOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
      dstIndices, src, srcIndices, b.getIndexAttr(kVector), elements,
      /*bypassL1=*/nullptr);
}

void BlockMma::spreadCopies(int64_t count, function_ref<Value(Value)> copyOne) {
  for (int64_t round = 0; round < count / kMmaThreads; ++round)
    tokens.push_back(copyOne(k.add(tid, k.index(round * kMmaThreads))));
  if (int64_t rest = count % kMmaThreads) {
    auto guard =
        scf::IfOp::create(b, loc, k.ult(tid, k.index(rest)), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    Value token = copyOne(k.add(k.index(count - rest), tid));
    nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
        ValueRange{token});
  }
}

void BlockMma::spreadElementCopies(int64_t count,
                                   function_ref<void(Value)> copyOne) {
  scf::ForOp::create(b, loc, tid, k.index(count), k.index(kMmaThreads),
                     ValueRange{},
                     [&](OpBuilder &nested, Location, Value linear, ValueRange) {
                       OpBuilder::InsertionGuard inner(b);
                       b.setInsertionPoint(nested.getInsertionBlock(),
                                           nested.getInsertionPoint());
                       copyOne(linear);
                       scf::YieldOp::create(b, loc);
                     });
}

void BlockMma::waitForCopies() {
  if (!tokens.empty()) {
    Value group = nvgpu::DeviceAsyncCreateGroupOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
    tokens.clear();
  }
  gpu::BarrierOp::create(b, loc);
}

SmallVector<Value> BlockMma::zeroAccumulators() {
  auto type = VectorType::get({2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(cast<ShapedType>(type), 0.0f));
  return SmallVector<Value>(mSubtiles() * nSubtiles(), zero);
}

void BlockMma::multiply(SmallVector<Value> &acc) {
  for (int64_t k16 = 0; k16 < shape.k / 16; ++k16) {
    SmallVector<Value> fragmentsB;
    for (int64_t ns = 0; ns < nSubtiles(); ++ns)
      fragmentsB.push_back(fragmentB(ns, k16));
    for (int64_t ms = 0; ms < mSubtiles(); ++ms) {
      Value a = fragmentA(ms, k16);
      for (int64_t ns = 0; ns < nSubtiles(); ++ns) {
        Value &c = acc[ms * nSubtiles() + ns];
        c = buildMma(b, loc, a, fragmentsB[ns], c);
      }
    }
  }
}

SmallVector<Value>
BlockMma::accumulateChunks(Value numChunks,
                           function_ref<void(Value)> fillChunk) {
  auto chunks = scf::ForOp::create(b, loc, k.index(0), numChunks, k.index(1),
                                   zeroAccumulators());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  fillChunk(k.mul(chunks.getInductionVar(), k.index(shape.k)));
  waitForCopies();
  SmallVector<Value> acc(chunks.getRegionIterArgs().begin(),
                         chunks.getRegionIterArgs().end());
  multiply(acc);
  // The next chunk overwrites the shared tiles.
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

Value BlockMma::fragmentA(int64_t ms, int64_t k16) {
  SmallVector<Value> elements;
  for (int64_t reg = 0; reg < 4; ++reg)
    for (int64_t half = 0; half < 2; ++half) {
      Value row = k.add(group, k.index(ms * 16 + (reg % 2) * 8));
      Value column = k.add(k.mul(inGroup, k.index(2)),
                           k.index(k16 * 16 + (reg / 2) * 8 + half));
      elements.push_back(
          memref::LoadOp::create(b, loc, sA, ValueRange{row, column}));
    }
  Value flat = vector::FromElementsOp::create(
      b, loc, VectorType::get({8}, shape.inputType), elements);
  return vector::ShapeCastOp::create(
      b, loc, VectorType::get({4, 2}, shape.inputType), flat);
}

Value BlockMma::fragmentB(int64_t ns, int64_t k16) {
  SmallVector<Value> elements;
  for (int64_t reg = 0; reg < 2; ++reg)
    for (int64_t half = 0; half < 2; ++half) {
      Value row = k.add(k.mul(inGroup, k.index(2)),
                        k.index(k16 * 16 + reg * 8 + half));
      Value column = k.add(warpColumn, k.add(group, k.index(ns * 8)));
      elements.push_back(
          memref::LoadOp::create(b, loc, sB, ValueRange{row, column}));
    }
  Value flat = vector::FromElementsOp::create(
      b, loc, VectorType::get({4}, shape.inputType), elements);
  return vector::ShapeCastOp::create(
      b, loc, VectorType::get({2, 2}, shape.inputType), flat);
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
  return {k.add(k.mul(position, k.index(micro)), within), valid};
}

Value mlir::pit::loadCount(KernelBuilder &k, STileOp op, Value segment) {
  return arith::IndexCastOp::create(
      k.b, k.loc, k.b.getIndexType(),
      memref::LoadOp::create(k.b, k.loc, op.getCounts(), segment));
}
