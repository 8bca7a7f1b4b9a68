//===- DecomposeAggregatedOps.cpp - linalg.softmax into generics ----------===//

#include "PIT/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITDECOMPOSEAGGREGATEDOPS
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

struct PITDecomposeAggregatedOpsPass
    : public pit::impl::PITDecomposeAggregatedOpsBase<
          PITDecomposeAggregatedOpsPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      // Upstream's decompositions build tensor.empty and results: they
      // take tensors only.
      auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
      if (!dps || !dps.hasPureTensorSemantics()) {
        op->emitRemark("left alone: aggregated ops are decomposed on tensors "
                       "only; run the pipeline on the program before "
                       "bufferization");
        continue;
      }
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results =
          op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitRemark("left alone: its decomposition failed");
        continue;
      }
      rewriter.replaceOp(op, *results);
    }
  }
};

} // namespace
