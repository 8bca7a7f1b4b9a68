//===- GatheredIndex.cpp - Reading an STile's index in a kernel -----------===//
//
// Where a gathered coordinate lives (the index's positions and counts),
// and whether a block has anything to do.
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
