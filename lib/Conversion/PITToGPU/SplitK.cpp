//===- SplitK.cpp - The partial sums of a tile split along k --------------===//
//
// Split-k: the parts of a tile's k run in different blocks; the parts but
// the last publish their f32 partial sums, warp by warp, and the last adds
// them to its own before the tile is written back. A warp's count of
// arrivals on the tile orders them: its lanes' stores, a warp barrier, then
// lane 0's release (a fence and a relaxed add); lane 0 of the last part's
// warp acquires the count, then a warp barrier lets its lanes read.
//
//===----------------------------------------------------------------------===//

#include "BlockMmaDetail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pit;

/// Accumulators a partial-sums access of a lane moves: 16 bytes, aligned
/// (the buffer is; each lane's run starts at a multiple of 4).
constexpr int64_t kAccumulatorsAnAccess = 4;
static const llvm::MaybeAlign kAccessAlignment(16);

SmallVector<Value> BlockMma::partialSumsAt(const PartialSums &sums,
                                           Value split, Value tile,
                                           int64_t first) {
  int64_t perThread = warpgroupN() / 2;
  Value slot = k.add(k.mul(split, k.index(sums.numTiles)), tile);
  Value warpInBlock = k.div(tid, kWarpSize);
  Value index = k.add(
      k.add(k.mul(slot, k.index(mmaThreads * perThread)),
            k.mul(warpInBlock, k.index(kWarpSize * perThread))),
      k.add(k.index(first / kAccumulatorsAnAccess * kWarpSize *
                    kAccumulatorsAnAccess),
            k.mul(lane, k.index(kAccumulatorsAnAccess))));
  return {index};
}

Value BlockMma::arrivalsAt(const PartialSums &sums, Value tile) {
  int64_t warps = mmaThreads / kWarpSize;
  Value warpInBlock = k.div(tid, kWarpSize);
  return k.elementAddress(sums.arrivals,
                          {k.add(k.mul(tile, k.index(warps)), warpInBlock)});
}

/// Whether this thread is lane 0 of its warp.
static Value isFirstLane(KernelBuilder &k, Value lane) {
  return arith::CmpIOp::create(k.b, k.loc, arith::CmpIPredicate::eq, lane,
                               k.index(0));
}

/// A barrier of the warp's 32 lanes, which orders their memory accesses.
static void syncWarp(KernelBuilder &k) {
  NVVM::SyncWarpOp::create(k.b, k.loc, k.i32(-1));
}

void BlockMma::publishPartialSums(Value acc, const PartialSums &sums,
                                  Value tile, Value split) {
  assert(warpgroup && "split-k's partial sums are those of wgmma blocks");
  auto accessType = VectorType::get({kAccumulatorsAnAccess}, b.getF32Type());
  int64_t perThread = warpgroupN() / 2;
  for (int64_t first = 0; first < perThread; first += kAccumulatorsAnAccess) {
    SmallVector<Value> values;
    for (int64_t i = first; i < first + kAccumulatorsAnAccess; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    Value access = vector::FromElementsOp::create(b, loc, accessType, values);
    vector::StoreOp::create(b, loc, access, sums.partials,
                            partialSumsAt(sums, split, tile, first),
                            /*nontemporal=*/false, kAccessAlignment);
  }
  syncWarp(k);
  k.buildIf(isFirstLane(k, lane), [&] {
    k.inlinePtx(/*result=*/Type(), ValueRange{arrivalsAt(sums, tile)},
                "fence.acq_rel.gpu;\n\tred.relaxed.gpu.global.add.u32 [$0], 1;",
                "l,~{memory}");
  });
}

Value BlockMma::addPartialSums(Value acc, const PartialSums &sums,
                               Value tile) {
  assert(warpgroup && "split-k's partial sums are those of wgmma blocks");
  // Lane 0 waits until every other part's warp has arrived.
  k.buildIf(isFirstLane(k, lane), [&] {
    Value address = arrivalsAt(sums, tile);
    Value others = k.i32(sums.kSplits - 1);
    auto wait = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&wait.getBefore());
      Value arrived = k.inlinePtx(b.getI32Type(), ValueRange{address},
                                  "ld.acquire.gpu.global.u32 $0, [$1];",
                                  "=r,l,~{memory}")
                          .getResult(0);
      scf::ConditionOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, arrived,
                                others),
          ValueRange{});
      b.createBlock(&wait.getAfter());
      scf::YieldOp::create(b, loc);
    }
  });
  syncWarp(k);
  auto accessType = VectorType::get({kAccumulatorsAnAccess}, b.getF32Type());
  int64_t perThread = warpgroupN() / 2;
  for (int64_t split = 0; split + 1 < sums.kSplits; ++split) {
    for (int64_t first = 0; first < perThread;
         first += kAccumulatorsAnAccess) {
      Value access = vector::LoadOp::create(
          b, loc, accessType, sums.partials,
          partialSumsAt(sums, k.index(split), tile, first),
          /*nontemporal=*/false, kAccessAlignment);
      for (int64_t i = 0; i < kAccumulatorsAnAccess; ++i) {
        Value sum = arith::AddFOp::create(
            b, loc, LLVM::ExtractValueOp::create(b, loc, acc, first + i),
            vector::ExtractOp::create(b, loc, access, ArrayRef<int64_t>{i}));
        acc = LLVM::InsertValueOp::create(b, loc, acc, sum, first + i);
      }
    }
  }
  return acc;
}
