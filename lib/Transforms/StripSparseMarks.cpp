//===- StripSparseMarks.cpp - Remove pit.sparse marks ---------------------===//

#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "PIT/Transforms/Passes.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITSTRIPSPARSEMARKS
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

struct PITStripSparseMarksPass
    : public pit::impl::PITStripSparseMarksBase<PITStripSparseMarksPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      op->removeAttr(PITDialect::getSparseAttrName());
    });
  }
};

} // namespace
