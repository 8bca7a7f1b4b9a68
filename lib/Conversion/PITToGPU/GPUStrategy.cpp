//===- GPUStrategy.cpp - The tensor-core kernel each op gets --------------===//
//
// pit-gpu-strategy: the choices of the GPU lowering, recorded on the ops as
// #pit.mma_config before convert-pit-to-gpu builds them.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreSTiles.h"

#include "PIT/Conversion/Passes.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "PIT/Target/Chip.h"
#include "PIT/Transforms/OptionErrors.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITGPUSTRATEGY
#include "PIT/Conversion/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

struct PITGPUStrategyPass
    : public pit::impl::PITGPUStrategyBase<PITGPUStrategyPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto invalid = [&](StringRef option, int64_t value, StringRef wanted) {
      return emitOptionError(context, getArgument(), option, value, wanted);
    };
    // Whole mma.sync columns (8); wgmma's widest block has 256.
    if (mmaBlockColumns < 8 || mmaBlockColumns > 1024 ||
        mmaBlockColumns % 8 != 0)
      return invalid("mma-block-columns", mmaBlockColumns,
                     "a multiple of 8 from 8 to 1024");
    // Whole k steps of mma (16).
    if (mmaChunk < 0 || mmaChunk > 1024 || mmaChunk % 16 != 0)
      return invalid("mma-chunk", mmaChunk,
                     "0 (the STile's k tile) or a multiple of 16 up to 1024");
    if (mmaStages < 1 || mmaStages > 4)
      return invalid("mma-stages", mmaStages, "from 1 to 4");
    // The blocks of a cluster share B's chunks in halves (or not at all).
    if (mmaClusterBlocks != 1 && mmaClusterBlocks != 2)
      return invalid("mma-cluster-blocks", mmaClusterBlocks, "1 or 2");
    if (mmaKSplits < 0 || mmaKSplits > kMaxKSplits)
      return invalid("mma-k-splits", mmaKSplits,
                     "from 0 (the strategy's) to " +
                         std::to_string(kMaxKSplits));
    if (multiprocessors < 0 || multiprocessors > 1024)
      return invalid("multiprocessors", multiprocessors,
                     "from 0 (the chip's) to 1024");
    return verifyChipOption(context, getArgument(), chip);
  }

  void runOnOperation() override {
    MmaStrategyOptions options{mmaBlockColumns, mmaChunk,
                               mmaStages,       mmaSpecialize,
                               mmaTensorCopies, mmaClusterBlocks,
                               mmaKSplits};
    ChipFacts chipFacts = getChipFacts(chip);
    if (multiprocessors > 0)
      chipFacts.multiprocessors = multiprocessors;
    StringRef name = PITDialect::getMmaConfigAttrName();
    getOperation()->walk([&](Operation *op) {
      // An STile's body is lowered with its STile, by the STile's config.
      if (!isa<STileOp, linalg::LinalgOp>(op) || op->hasAttr(name) ||
          op->getParentOfType<STileOp>())
        return;
      if (FailureOr<MmaConfigAttr> config =
              chooseMatmulConfig(op, options, chipFacts);
          succeeded(config))
        op->setAttr(name, *config);
    });
  }
};

} // namespace
