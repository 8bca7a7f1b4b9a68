//===- VerifyDynamicExtents.cpp - Run-time checks of dynamic extents ------===//

#include "PIT/Transforms/Passes.h"

#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITVERIFYDYNAMICEXTENTS
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

bool hasDynamicOperand(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasRank() && !shaped.hasStaticShape();
  });
}

struct PITVerifyDynamicExtentsPass
    : public pit::impl::PITVerifyDynamicExtentsBase<
          PITVerifyDynamicExtentsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> dynamic;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (hasDynamicOperand(op))
        dynamic.push_back(op);
    });
    OpBuilder b(&getContext());
    for (linalg::LinalgOp op : dynamic) {
      auto verifiable = dyn_cast<RuntimeVerifiableOpInterface>(*op);
      if (!verifiable)
        continue;
      b.setInsertionPoint(op);
      verifiable.generateRuntimeVerification(
          b, op.getLoc(), [](Operation *op, StringRef what) {
            std::string message;
            llvm::raw_string_ostream os(message);
            os << "PIT: '" << op->getName() << "' at " << op->getLoc()
               << " was called with extents that do not agree: " << what;
            return message;
          });
    }
  }
};

} // namespace
