//===- StageBarriers.cpp - The mbarriers of the stages --------------------===//
//
// Each stage's `full` and `empty` mbarriers, their phases and waits.
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
