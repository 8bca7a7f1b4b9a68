//===- FreeTemporaries.cpp - Free what bufferization allocates ------------===//

#include "PIT/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITFREETEMPORARIES
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

struct PITFreeTemporariesPass
    : public pit::impl::PITFreeTemporariesBase<PITFreeTemporariesPass> {
  void runOnOperation() override {
    SymbolTableCollection symbolTables;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      bool allocates = false;
      Operation *frees = nullptr;
      func.walk([&](Operation *op) {
        allocates |= isa<memref::AllocOp>(op);
        if (!frees && isa<memref::DeallocOp, bufferization::DeallocOp>(op))
          frees = op;
      });
      if (!allocates)
        continue;
      if (frees) {
        frees->emitRemark("pit-free-temporaries: ")
            << "function '" << func.getSymName()
            << "' frees memory itself; its buffers are left as it manages "
               "them";
        continue;
      }
      // Public functions are PIT's entry points: their callers pass plain
      // buffers and own them, so no ownership crosses the call.
      bufferization::DeallocationOptions options;
      if (failed(bufferization::deallocateBuffersOwnershipBased(
              func, options, symbolTables)))
        return signalPassFailure();
    }
  }
};

} // namespace
