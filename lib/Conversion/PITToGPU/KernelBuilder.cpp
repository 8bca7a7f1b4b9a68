//===- KernelBuilder.cpp - Launches and index arithmetic ------------------===//

#include "KernelBuilder.h"

#include "PIT/Conversion/TileTransfer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::pit;

void mlir::pit::declareRuntimeFunction(OpBuilder &b, Location loc,
                                       Block *entry, StringRef name,
                                       FunctionType type) {
  auto module = entry->getParentOp()->getParentOfType<ModuleOp>();
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  func::FuncOp::create(b, loc, name, type).setPrivate();
}

Value mlir::pit::buildRuntimeQueryAtEntry(OpBuilder &b, Location loc,
                                          Block *entry, StringRef name) {
  Type i64 = b.getI64Type();
  declareRuntimeFunction(b, loc, entry, name, b.getFunctionType({}, {i64}));
  for (auto call : entry->getOps<func::CallOp>())
    if (call.getCallee() == name)
      return call.getResult(0);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  return func::CallOp::create(b, loc, name, TypeRange{i64}, ValueRange{})
      .getResult(0);
}

Value mlir::pit::buildMultiprocessorCountAtEntry(OpBuilder &b, Location loc,
                                                 Block *entry) {
  Value count =
      buildRuntimeQueryAtEntry(b, loc, entry, "pitCudaMultiprocessorCount");
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(count);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), count);
}

Value mlir::pit::buildDeviceBuffer(OpBuilder &b, Location loc,
                                   MemRefType type) {
  return gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange{},
                              /*dynamicSizes=*/ValueRange{},
                              /*symbolOperands=*/ValueRange{},
                              /*hostShared=*/false)
      .getMemref();
}

Value mlir::pit::buildZeroedCounter(OpBuilder &b, Location loc,
                                    int64_t count) {
  Value counter =
      buildDeviceBuffer(b, loc, MemRefType::get({count}, b.getI32Type()));
  gpu::MemsetOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{}, counter,
                        arith::ConstantIntOp::create(b, loc, 0, 32));
  return counter;
}

bool mlir::pit::isEntryArgument(Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  return argument && argument.getOwner()->isEntryBlock() &&
         isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
}

Value mlir::pit::buildTensorMapAtEntry(OpBuilder &b, Location loc,
                                       Value tensor, int64_t boxRows,
                                       int64_t boxColumns) {
  constexpr StringLiteral kName = "pitCudaTensorMap2D";
  Block *entry = cast<BlockArgument>(tensor).getOwner();
  Type i64 = b.getI64Type();
  OpBuilder::InsertionGuard guard(b);
  declareRuntimeFunction(b, loc, entry, kName,
                         b.getFunctionType(SmallVector<Type>(5, i64), {i64}));
  auto type = cast<MemRefType>(tensor.getType());
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  for (auto call : entry->getOps<func::CallOp>()) {
    if (call.getCallee() != kName)
      continue;
    auto cast = call.getOperand(0).getDefiningOp<arith::IndexCastOp>();
    auto pointer = cast ? cast.getIn()
                              .getDefiningOp<
                                  memref::ExtractAlignedPointerAsIndexOp>()
                        : nullptr;
    if (pointer && pointer.getSource() == tensor &&
        getConstantIntValue(call.getOperand(3)) == boxRows &&
        getConstantIntValue(call.getOperand(4)) == boxColumns)
      return call.getResult(0);
  }
  b.setInsertionPointToStart(entry);
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, b.getIndexType(), tensor);
  auto constant = [&](int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64).getResult();
  };
  SmallVector<Value> operands{
      arith::IndexCastOp::create(b, loc, i64, address), constant(rows),
      constant(columns), constant(boxRows), constant(boxColumns)};
  return func::CallOp::create(b, loc, kName, TypeRange{i64}, operands)
      .getResult(0);
}

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

Value KernelBuilder::elementAddress(Value memref, ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  Value linear = index(0);
  for (auto [dim, position] : llvm::enumerate(indices))
    linear = add(mul(linear, index(type.getDimSize(dim))), position);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, b.getIndexType(), memref);
  Value bytes = mul(linear, index(type.getElementTypeBitWidth() / 8));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), add(base, bytes));
}

LLVM::InlineAsmOp KernelBuilder::inlinePtx(Type result, ValueRange operands,
                                           StringRef instruction,
                                           StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, result, operands, b.getStringAttr(instruction),
      b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
      /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
}

Value KernelBuilder::loadStreaming(VectorType type, Value memref,
                                   ValueRange indices) {
  Type word = b.getI32Type();
  auto words = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, word));
  Value loaded =
      inlinePtx(words, ValueRange{elementAddress(memref, indices)},
                "ld.global.cs.v4.b32 {$0, $1, $2, $3}, [$4];",
                "=r,=r,=r,=r,l")
          .getResult(0);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, i));
  Value vector = vector::FromElementsOp::create(
      b, loc, VectorType::get({4}, word), elements);
  return vector::BitCastOp::create(b, loc, type, vector);
}

bool mlir::pit::hasEvenRows(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return type.getLayout().isIdentity() && type.getShape().back() % 2 == 0;
}

/// The alignment of a pair of `memref`'s elements at an even column of a
/// row of even length: the pair's size.
static llvm::MaybeAlign pairAlignment(Value memref) {
  Type elementType = cast<MemRefType>(memref.getType()).getElementType();
  return llvm::MaybeAlign(2 * elementType.getIntOrFloatBitWidth() / 8);
}

Value KernelBuilder::loadPair(Value memref, ValueRange indices) {
  Type elementType = cast<MemRefType>(memref.getType()).getElementType();
  return vector::LoadOp::create(b, loc, VectorType::get({2}, elementType),
                                memref, indices, /*nontemporal=*/false,
                                pairAlignment(memref));
}

void KernelBuilder::storePair(Value pair, Value memref, ValueRange indices) {
  vector::StoreOp::create(b, loc, pair, memref, indices,
                          /*nontemporal=*/false, pairAlignment(memref));
}

void KernelBuilder::buildIf(Value condition, function_ref<void()> body) {
  auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

Value KernelBuilder::i32(int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}
Value KernelBuilder::toI32(Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
}
Value KernelBuilder::toIndex(Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

int64_t mlir::pit::memrefBytes(MemRefType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// `type` with its element type (or itself, a scalar) replaced by `element`.
static Type withElementType(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

Value KernelBuilder::widenToF32(Value value) {
  if (getElementTypeOrSelf(value).isF32())
    return value;
  return arith::ExtFOp::create(
      b, loc, withElementType(value.getType(), b.getF32Type()), value);
}

Value KernelBuilder::roundTo(Type elementType, Value value) {
  if (getElementTypeOrSelf(value) == elementType)
    return value;
  return arith::TruncFOp::create(
      b, loc, withElementType(value.getType(), elementType), value);
}

Value KernelBuilder::inclusiveWarpSum(Value value) {
  for (int64_t offset = 1; offset < kWarpSize; offset *= 2) {
    auto up = gpu::ShuffleOp::create(b, loc, value, i32(offset),
                                     i32(kWarpSize), gpu::ShuffleMode::UP);
    Value added = arith::SelectOp::create(b, loc, up.getValid(),
                                          up.getShuffleResult(), i32(0));
    value = arith::AddIOp::create(b, loc, value, added);
  }
  return value;
}

Value KernelBuilder::warpTotal(Value inclusive) {
  return gpu::ShuffleOp::create(b, loc, inclusive, i32(kWarpSize - 1),
                                i32(kWarpSize), gpu::ShuffleMode::IDX)
      .getShuffleResult();
}

gpu::LaunchOp mlir::pit::createLaunch(OpBuilder &b, Location loc,
                                      int64_t numBlocks, int64_t blockSize,
                                      TypeRange workgroupBuffers) {
  Value one = constantIndex(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, constantIndex(b, loc, numBlocks), one, one,
      constantIndex(b, loc, blockSize), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroupBuffers);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  return launch;
}
