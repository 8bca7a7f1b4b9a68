//===- CoalesceAllocations.cpp - One device arena per call ----------------===//
//
// pit-gpu-coalesce-allocations: after convert-pit-to-gpu, the device buffers
// a host function allocates and frees itself become views of one
// allocation, and their zero memsets one memset where they can.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "PIT/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITGPUCOALESCEALLOCATIONS
#include "PIT/Conversion/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Where the buffers of one arena start: aligned for any access a kernel
/// makes (16-byte vectors, cp.async) and for whole cache lines.
constexpr int64_t kArenaAlignment = 256;

/// Whether `op` is a synchronous gpu.memset of zeros.
bool isZeroMemset(Operation *op) {
  auto memset = dyn_cast<gpu::MemsetOp>(op);
  return memset && !memset.getAsyncToken() &&
         memset.getAsyncDependencies().empty() &&
         (matchPattern(memset.getValue(), m_Zero()) ||
          matchPattern(memset.getValue(), m_PosZeroFloat()));
}

/// Moves each zero memset in `block` of a view of the arena (`placeOf`)
/// that nothing used before it up to the first such memset, in their order,
/// so that mergeArenaMemsets makes one memset of them (the arena lays the
/// buffers out in the order of their first memsets). A memset between two
/// kernels waits for the first and holds back the second, which could
/// otherwise be launched as its dependent: 1-2 us of idle GPU each (1x64's
/// grouped panels at 99% on an H100: two memsets between five kernels).
void hoistArenaMemsets(
    RewriterBase &rewriter, Block &block,
    const llvm::DenseMap<Value, std::pair<int64_t, int64_t>> &placeOf) {
  Operation *last = nullptr;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto memset = dyn_cast<gpu::MemsetOp>(op);
    if (!memset || !isZeroMemset(memset) || !placeOf.count(memset.getDst()))
      continue;
    if (!last) {
      last = memset;
      continue;
    }
    // Used before (another memset, a kernel, a copy): it stays.
    bool usedBefore =
        llvm::any_of(memset.getDst().getUsers(), [&](Operation *user) {
          Operation *inBlock = block.findAncestorOpInBlock(*user);
          return inBlock != memset && inBlock->isBeforeInBlock(memset);
        });
    if (usedBefore)
      continue;
    rewriter.setInsertionPointAfter(last);
    Value zero =
        rewriter.clone(*memset.getValue().getDefiningOp())->getResult(0);
    last = gpu::MemsetOp::create(rewriter, memset.getLoc(),
                                 /*asyncToken=*/Type(), ValueRange{},
                                 memset.getDst(), zero);
    rewriter.eraseOp(memset);
  }
}

/// Replaces each run of zero memsets in `block` (with only pure ops between
/// them) of neighbouring views of `arena` (`placeOf`: each view's offset and
/// padded size) by one memset of the bytes they span, where the first was.
/// A memset waits for all work before it and holds back the kernel after
/// it: two at the start of a call cost 2 us more than one.
void mergeArenaMemsets(RewriterBase &rewriter, Block &block, Value arena,
    const llvm::DenseMap<Value, std::pair<int64_t, int64_t>> &placeOf) {
  SmallVector<gpu::MemsetOp> run;
  int64_t runStart = 0, runEnd = 0;
  auto flush = [&] {
    if (run.size() > 1) {
      Location loc = run.front().getLoc();
      rewriter.setInsertionPoint(run.front());
      Value start = arith::ConstantIndexOp::create(rewriter, loc, runStart);
      auto type = MemRefType::get({(runEnd - runStart) / 4},
                                  rewriter.getI32Type());
      Value span = memref::ViewOp::create(rewriter, loc, type, arena, start,
                                          ValueRange{});
      gpu::MemsetOp::create(rewriter, loc, /*asyncToken=*/Type(),
                            ValueRange{}, span,
                            arith::ConstantIntOp::create(rewriter, loc, 0, 32));
      for (gpu::MemsetOp memset : run)
        rewriter.eraseOp(memset);
    }
    run.clear();
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto memset = dyn_cast<gpu::MemsetOp>(op);
    auto place = memset ? placeOf.find(memset.getDst()) : placeOf.end();
    if (memset && isZeroMemset(memset) && place != placeOf.end()) {
      auto [offset, size] = place->second;
      if (run.empty() || offset != runEnd) {
        flush();
        runStart = offset;
      }
      run.push_back(memset);
      runEnd = offset + size;
      continue;
    }
    if (!isMemoryEffectFree(&op))
      flush();
  }
  flush();
}

/// Replaces the device buffers that `func` allocates and frees itself
/// (static shapes of whole bytes: the index, counts, compacted copies, the
/// choice) by views of one allocation, made at the start and freed at the
/// end. Each
/// allocation and each free costs the host microseconds of driver time a
/// call, and at high sparsity a call's kernels take little more than the
/// host takes to issue them. The buffers then live for the whole call.
void coalesceDeviceAllocations(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<gpu::AllocOp> allocs;
  func.walk([&](gpu::AllocOp alloc) {
    MemRefType type = alloc.getType();
    // Freed in the function (not escaping it), and only at its top level.
    auto isDealloc = [](Operation *user) { return isa<gpu::DeallocOp>(user); };
    bool freedHere =
        llvm::any_of(alloc->getUsers(), isDealloc) &&
        llvm::all_of(alloc->getUsers(), [&](Operation *user) {
          return !isDealloc(user) || user->getParentOp() == func;
        });
    if (alloc->getParentOp() == func && !alloc.getAsyncToken() &&
        alloc.getAsyncDependencies().empty() && !alloc.getHostShared() &&
        type.hasStaticShape() && type.getLayout().isIdentity() &&
        !type.getMemorySpace() && type.getElementType().isIntOrFloat() &&
        type.getElementTypeBitWidth() % 8 == 0 && freedHere)
      allocs.push_back(alloc);
  });
  Block &entry = func.getBody().front();
  if (allocs.size() < 2 || !func.getBody().hasOneBlock())
    return;
  // The buffers the call clears first, in the order of their memsets, so
  // that mergeArenaMemsets can clear neighbours with one memset.
  llvm::DenseMap<Operation *, Operation *> clearedBy;
  for (gpu::AllocOp alloc : allocs)
    for (Operation *user : alloc->getUsers())
      if (isZeroMemset(user) && user->getBlock() == &entry &&
          (!clearedBy.count(alloc) || user->isBeforeInBlock(clearedBy[alloc])))
        clearedBy[alloc] = user;
  llvm::stable_sort(allocs, [&](gpu::AllocOp x, gpu::AllocOp y) {
    Operation *clearsX = clearedBy.lookup(x), *clearsY = clearedBy.lookup(y);
    if (!clearsX || !clearsY)
      return clearsX && !clearsY;
    return clearsX->isBeforeInBlock(clearsY);
  });
  SmallVector<int64_t> offsets;
  int64_t bytes = 0;
  for (gpu::AllocOp alloc : allocs) {
    offsets.push_back(bytes);
    bytes += llvm::alignTo(memrefBytes(alloc.getType()), kArenaAlignment);
  }
  Location loc = func.getLoc();
  // Where the first of them was (all are in the entry block): after the
  // host work that must come before any device work (the tensor maps of
  // buildTensorMapAtEntry; a host op after a device op gets a wait).
  gpu::AllocOp first = *llvm::min_element(
      allocs, [](gpu::AllocOp x, gpu::AllocOp y) {
        return x->isBeforeInBlock(y);
      });
  rewriter.setInsertionPoint(first);
  Value arena =
      gpu::AllocOp::create(rewriter, loc,
                           MemRefType::get({bytes}, rewriter.getI8Type()),
                           /*asyncToken=*/Type(), ValueRange{}, ValueRange{},
                           ValueRange{}, /*hostShared=*/false)
          .getMemref();
  // Every view right after the arena: a memset of one may then move up to
  // the call's first memset (hoistArenaMemsets).
  llvm::DenseMap<Value, std::pair<int64_t, int64_t>> placeOf;
  for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<gpu::DeallocOp>(user))
        rewriter.eraseOp(user);
    Value start = arith::ConstantIndexOp::create(rewriter, loc, offset);
    auto view = memref::ViewOp::create(rewriter, loc, alloc.getType(), arena,
                                       start, ValueRange{});
    rewriter.replaceOp(alloc, view);
    placeOf[view] = {offset, llvm::alignTo(memrefBytes(view.getType()),
                                           kArenaAlignment)};
  }
  rewriter.setInsertionPoint(entry.getTerminator());
  gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                         arena);
  hoistArenaMemsets(rewriter, entry, placeOf);
  mergeArenaMemsets(rewriter, entry, arena, placeOf);
}

struct PITGPUCoalesceAllocationsPass
    : public pit::impl::PITGPUCoalesceAllocationsBase<
          PITGPUCoalesceAllocationsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    coalesceDeviceAllocations(rewriter, getOperation());
  }
};

} // namespace
