//===- MmaSync.cpp - mma.sync and its fragments ---------------------------===//
//
// mma.sync m16n8k16 (nvgpu for f16, nvvm for bf16) and the fragments of A
// and B it reads from the swizzled shared tiles with ldmatrix.
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

/// `c + a x b` on the tensor cores, m16n8k16, with the fragments as
/// nvgpu.mma.sync takes them. nvgpu lowers f16 only, so bf16 goes straight
/// to nvvm.mma.sync, whose bf16 operands are packed pairs in 32-bit
/// registers.
Value buildMma(OpBuilder &b, Location loc, Value a, Value bFragment,
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

} // namespace mlir::pit::detail

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
