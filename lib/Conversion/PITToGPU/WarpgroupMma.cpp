//===- WarpgroupMma.cpp - wgmma and its descriptors -----------------------===//
//
// wgmma m64nNk16 straight from shared memory: the matrix descriptors of the
// swizzled tiles, one multiplication in flight, the loop over the chunks.
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

/// wgmma's descriptor of a k-major tile `stageBytes` (an index) past
/// `tileAddress` (i64), at k16 step `k16`: rows of 128 bytes (64 of k),
/// 8-row groups 1024 bytes apart; the k16 steps move 32 bytes along the
/// (swizzled) row.
Value BlockMma::kMajorDescriptor(Value tileAddress, Value stageBytes,
                                 int64_t k16) {
  return buildDescriptor(
      k, descriptorAddress(tileAddress, stageBytes, k16 * 32),
      /*leadingBytes=*/16, /*strideBytes=*/kSwizzleAtomBytes);
}

Value BlockMma::descriptorA(Value stage, int64_t k16) {
  // Stored k by k, sA is k x 64 (one warpgroup): m-major, one block.
  if (aStoredByK)
    return mnMajorDescriptor(addressA,
                             k.mul(stage, k.index(shape.m * shape.k * 2)), k16);
  // A with k contiguous: the warpgroup reads its 64 rows.
  return kMajorDescriptor(
      addressA,
      k.add(k.mul(stage, k.index(shape.m * shape.k * 2)),
            k.mul(warpgroupRows, k.index(64 * kSwizzleRowElements * 2))),
      k16);
}

Value BlockMma::descriptorB(Value stage, int64_t k16) {
  // The warpgroup reads its n' columns: blocks of 64 of them (k x 128
  // bytes n-major, or 64 rows of 128 bytes of k stored n by k), a block's
  // bytes either way.
  int64_t blockBytes = shape.k * kSwizzleRowElements * 2;
  Value stageBytes =
      k.add(k.mul(stage, k.index(shape.k * shape.n * 2)),
            k.mul(warpgroupColumns,
                  k.index(warpgroupN() / kSwizzleRowElements * blockBytes)));
  if (bStoredByN)
    return kMajorDescriptor(addressB, stageBytes, k16);
  return mnMajorDescriptor(addressB, stageBytes, k16);
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
  // transposed); B n-major ("row": transposed from wgmma's k-major), or
  // stored n by k ("col": k-major, wgmma's own).
  auto row = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
  auto col = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col);
  auto layoutA = aStoredByK ? col : row;
  auto layoutB = bStoredByN ? col : row;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t k16 = 0; k16 < shape.k / 16; ++k16) {
    acc.front() = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc.front().getType(), acc.front(), descriptorA(stage, k16),
        descriptorB(stage, k16), mmaShape, typeIn, typeIn, typeOut,
        fresh && k16 == 0 ? overwrite : accumulate,
        scaleOne, scaleOne, layoutA, layoutB, /*satfinite=*/nullptr);
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
