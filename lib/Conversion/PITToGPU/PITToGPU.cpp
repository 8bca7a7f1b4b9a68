//===- PITToGPU.cpp - Lower pit ops to gpu kernels ------------------------===//
//
// convert-pit-to-gpu: the patterns of PITToGPU.h, applied in their stages.
//
//===----------------------------------------------------------------------===//

#include "PIT/Conversion/PITToGPU.h"
#include "PIT/Conversion/Passes.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "PIT/Target/Chip.h"
#include "PIT/Transforms/OptionErrors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::pit {
#define GEN_PASS_DEF_CONVERTPITTOGPU
#include "PIT/Conversion/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Remembers the ops a rewrite erased, so that the driver skips them.
struct ErasedOps : RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override { erased.insert(op); }
  llvm::DenseSet<Operation *> erased;
};

/// Applies `patterns` once to each op under `root` that exists when it
/// starts, in post-order. Unlike walkAndApplyPatterns, a rewrite may erase
/// ops other than its root (a fill folded into a kernel, the users of a
/// choice): the driver skips them.
void applyOnceInPostOrder(Operation *root,
                          const FrozenRewritePatternSet &patterns) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op != root)
      ops.push_back(op);
  });
  ErasedOps listener;
  PatternRewriter rewriter(root->getContext());
  rewriter.setListener(&listener);
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  for (Operation *op : ops)
    if (!listener.erased.contains(op))
      (void)applicator.matchAndRewrite(op, rewriter);
}

/// Whether `func` has work for the device: pit ops, or linalg ops (a dense
/// fallback forced at compile time), which left to the host would read
/// device buffers.
bool runsOnDevice(func::FuncOp func) {
  WalkResult found = func.walk([](Operation *op) {
    return isa<PITDialect>(op->getDialect()) || isa<linalg::LinalgOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Whether a pit op is left in `func`: a pattern failed on it, and said why.
bool hasPITOps(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return isa<STileOp, DetectOp, CountOp, SelectOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct ConvertPITToGPUPass
    : public pit::impl::ConvertPITToGPUBase<ConvertPITToGPUPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto invalid = [&](StringRef option, int64_t value, StringRef wanted) {
      return emitOptionError(context, getArgument(), option, value, wanted);
    };
    // Whole warps; a block has at most 1024 threads.
    if (threadsPerBlock < 32 || threadsPerBlock > 1024 ||
        threadsPerBlock % 32 != 0)
      return invalid("threads-per-block", threadsPerBlock,
                     "a multiple of 32 from 32 to 1024");
    return verifyChipOption(context, getArgument(), chip);
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ChipFacts chipFacts = getChipFacts(chip);
    bool failed = false;
    getOperation().walk([&](func::FuncOp func) {
      if (!runsOnDevice(func))
        return;
      PITToGPUState state;
      RewritePatternSet stiles(context), denseOps(context), scans(context),
          host(context), choice(context);
      if (useTensorCores) {
        populateMatmulSTileToMmaPatterns(stiles, chipFacts, state);
        populateSddmmSTileToMmaPatterns(stiles);
        populateDenseMatmulToMmaPatterns(denseOps, chipFacts);
        populateDenseSddmmToMmaPatterns(denseOps, chipFacts);
      }
      populateSimtSTilePatterns(stiles, threadsPerBlock);
      populateMicroTileScanPatterns(scans, threadsPerBlock, state);
      populateHostCodePatterns(host, threadsPerBlock);
      populateTiledTransposePatterns(host);
      populateDeviceSelectionPatterns(choice, state);
      for (RewritePatternSet *stage :
           {&stiles, &denseOps, &scans, &host, &choice})
        applyOnceInPostOrder(func, FrozenRewritePatternSet(std::move(*stage)));
      failed |= hasPITOps(func);
    });
    if (failed)
      return signalPassFailure();
    getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                            UnitAttr::get(context));
  }
};

} // namespace
