//===- DeviceSelection.cpp - Run-time selection on the device -------------===//

#include "DeviceSelection.h"

#include "KernelBuilder.h"

#include "PIT/Conversion/Selection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Threads of the choosing kernel: its loads of the counts are spread over
/// them, since one thread would wait for each load in turn.
constexpr int64_t kChoiceThreads = 256;

/// Why `region` cannot run under a choice made on the device, or null: its
/// kernels can be guarded, its allocations run anyway, but any other host
/// op with effects would run whatever the choice.
Operation *findUnguardableOp(Region &region) {
  for (Operation &op : region.front().without_terminator()) {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      if (!launch.getBody().hasOneBlock())
        return &op;
      continue;
    }
    if (!isa<gpu::AllocOp, gpu::DeallocOp>(op) && !isMemoryEffectFree(&op))
      return &op;
  }
  return nullptr;
}

/// A kernel of one block that writes `op`'s choice into `choice`
/// (memref<1xi32>): its threads add up the counts of each distinct index,
/// each its share, then by halves in shared memory (the same address added
/// to by every thread, atomically, serialized them: 10 us a call); one
/// thread evaluates the cost model.
void buildChoiceKernel(OpBuilder &b, Location loc, SelectOp op, Value choice) {
  KernelBuilder k{b, loc};
  llvm::SetVector<Value> distinct(op.getCounts().begin(),
                                  op.getCounts().end());
  Type i64 = b.getI64Type();
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto partialsType = MemRefType::get(
      {static_cast<int64_t>(distinct.size()), kChoiceThreads}, i64,
      MemRefLayoutAttrInterface(), workgroup);
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch =
      createLaunch(b, loc, /*numBlocks=*/1, kChoiceThreads, partialsType);
  Value partials = launch.getWorkgroupAttributions()[0];
  Value tid = launch.getThreadIds().x;
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);

  for (auto [slot, counts] : llvm::enumerate(distinct)) {
    int64_t segments = cast<MemRefType>(counts.getType()).getDimSize(0);
    auto loop = scf::ForOp::create(
        b, loc, tid, k.index(segments), k.index(kChoiceThreads),
        ValueRange{zero},
        [&](OpBuilder &b, Location loc, Value segment, ValueRange partial) {
          Value count = memref::LoadOp::create(b, loc, counts, segment);
          Value wide = arith::ExtUIOp::create(b, loc, i64, count);
          scf::YieldOp::create(
              b, loc, ValueRange{arith::AddIOp::create(b, loc, partial[0], wide)});
        });
    memref::StoreOp::create(b, loc, loop.getResult(0), partials,
                            ValueRange{k.index(slot), tid});
  }
  for (int64_t half = kChoiceThreads / 2; half > 0; half /= 2) {
    gpu::BarrierOp::create(b, loc);
    k.buildIf(k.ult(tid, k.index(half)), [&] {
      for (int64_t slot = 0; slot < static_cast<int64_t>(distinct.size());
           ++slot) {
        Value mine = memref::LoadOp::create(b, loc, partials,
                                            ValueRange{k.index(slot), tid});
        Value other = memref::LoadOp::create(
            b, loc, partials,
            ValueRange{k.index(slot), k.add(tid, k.index(half))});
        memref::StoreOp::create(b, loc,
                                arith::AddIOp::create(b, loc, mine, other),
                                partials, ValueRange{k.index(slot), tid});
      }
    });
  }
  // One thread evaluates the cost model (thread 0 wrote the last sums).
  auto firstThread = scf::IfOp::create(b, loc, k.ult(tid, k.index(1)),
                                       /*withElse=*/false);
  b.setInsertionPoint(firstThread.thenBlock()->getTerminator());
  SmallVector<Value> totals;
  for (Value counts : op.getCounts()) {
    int64_t slot = llvm::find(distinct, counts) - distinct.begin();
    Value sum = memref::LoadOp::create(b, loc, partials,
                                       ValueRange{k.index(slot), k.index(0)});
    totals.push_back(
        arith::UIToFPOp::create(b, loc, b.getF64Type(), sum).getResult());
  }
  Value chosen = buildVariantChoice(b, loc, op, totals);
  Value narrow =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), chosen);
  memref::StoreOp::create(b, loc, narrow, choice, k.index(0));
}

/// Makes `launch` do its work only when `isChosen(choice[0])` holds: its
/// body moves into an scf.if on the value it reads (the same for all
/// threads, so barriers inside stay uniform).
void guardLaunch(RewriterBase &rewriter, gpu::LaunchOp launch, Value choice,
                 function_ref<Value(OpBuilder &, Value)> isChosen) {
  Location loc = launch.getLoc();
  Block &body = launch.getBody().front();
  Operation *terminator = body.getTerminator();
  rewriter.setInsertionPointToStart(&body);
  Value index = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value chosen = memref::LoadOp::create(rewriter, loc, choice, index);
  auto ifOp = scf::IfOp::create(rewriter, loc, isChosen(rewriter, chosen),
                                /*withElse=*/false);
  Block *then = ifOp.thenBlock();
  then->getOperations().splice(then->getTerminator()->getIterator(),
                               body.getOperations(),
                               std::next(ifOp->getIterator()),
                               terminator->getIterator());
}

/// Replaces `op` by all its regions in order, the kernels of each guarded
/// by whether `choice` names that region (a case's value, or none of them
/// for the default).
void predicateSwitch(RewriterBase &rewriter, scf::IndexSwitchOp op,
                     Value choice) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> cases = op.getCases();
  auto compare = [&](OpBuilder &b, arith::CmpIPredicate predicate,
                     Value chosen, int64_t value) -> Value {
    Value constant = arith::ConstantIntOp::create(b, loc, value, 32);
    return arith::CmpIOp::create(b, loc, predicate, chosen, constant);
  };
  auto inlineRegion = [&](Region &region,
                          function_ref<Value(OpBuilder &, Value)> isChosen) {
    Block &block = region.front();
    for (auto launch : llvm::to_vector(block.getOps<gpu::LaunchOp>()))
      guardLaunch(rewriter, launch, choice, isChosen);
    rewriter.eraseOp(block.getTerminator());
    rewriter.inlineBlockBefore(&block, op);
  };
  for (auto [value, region] : llvm::zip(cases, op.getCaseRegions()))
    inlineRegion(region, [&, value = value](OpBuilder &b, Value chosen) {
      return compare(b, arith::CmpIPredicate::eq, chosen, value);
    });
  inlineRegion(op.getDefaultRegion(), [&](OpBuilder &b, Value chosen) {
    Value none = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (int64_t value : cases)
      none = arith::AndIOp::create(
          b, loc, none, compare(b, arith::CmpIPredicate::ne, chosen, value));
    return none;
  });
  rewriter.eraseOp(op);
}

} // namespace

LogicalResult mlir::pit::lowerSelectOnDevice(RewriterBase &rewriter,
                                             SelectOp op) {
  SmallVector<scf::IndexSwitchOp> switches;
  for (Operation *user : op->getUsers()) {
    auto switchOp = dyn_cast<scf::IndexSwitchOp>(user);
    if (!switchOp || switchOp.getArg() != op.getResult() ||
        switchOp.getNumResults() != 0 || switchOp->getBlock() != op->getBlock())
      return op.emitOpError(
          "can only choose on the device for scf.index_switch ops without "
          "results that follow it in its block; used by ")
             << user->getName();
    for (Region &region : switchOp->getRegions())
      if (Operation *hostOp = findUnguardableOp(region))
        return op.emitOpError("cannot choose on the device: a variant runs '")
               << hostOp->getName()
               << "' on the host, which would run whatever the choice";
    switches.push_back(switchOp);
  }

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto choiceType = MemRefType::get({1}, rewriter.getI32Type());
  Value choice = gpu::AllocOp::create(
                     rewriter, loc, choiceType, /*asyncToken=*/Type(),
                     /*asyncDependencies=*/ValueRange{},
                     /*dynamicSizes=*/ValueRange{},
                     /*symbolOperands=*/ValueRange{}, /*hostShared=*/false)
                     .getMemref();
  buildChoiceKernel(rewriter, loc, op, choice);
  Operation *last = op;
  for (scf::IndexSwitchOp switchOp : switches)
    if (last->isBeforeInBlock(switchOp))
      last = switchOp;
  rewriter.setInsertionPointAfter(last);
  gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                         choice);
  for (scf::IndexSwitchOp switchOp : switches)
    predicateSwitch(rewriter, switchOp, choice);
  rewriter.eraseOp(op);
  return success();
}
