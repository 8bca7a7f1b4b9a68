//===- MarkSparse.cpp - Mark operands as dynamically sparse ---------------===//

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "PIT/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITMARKSPARSE
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Parses a shape written `32x1` into its extents.
FailureOr<SmallVector<int64_t>> parseShape(StringRef text) {
  SmallVector<StringRef> pieces;
  text.split(pieces, 'x');
  SmallVector<int64_t> extents;
  for (StringRef piece : pieces) {
    int64_t extent;
    if (piece.trim().getAsInteger(10, extent) || extent <= 0)
      return failure();
    extents.push_back(extent);
  }
  return extents;
}

struct PITMarkSparsePass
    : public pit::impl::PITMarkSparseBase<PITMarkSparsePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (microTiles.empty())
      return emitError(UnknownLoc::get(context))
             << "pit-mark-sparse needs at least one shape in 'micro-tiles'";
    SmallVector<DenseI64ArrayAttr> shapes;
    for (const std::string &text : microTiles) {
      FailureOr<SmallVector<int64_t>> extents = parseShape(text);
      if (failed(extents))
        return emitError(UnknownLoc::get(context))
               << "pit-mark-sparse: micro-tile '" << text
               << "' is not a shape of positive extents such as 32x1";
      shapes.push_back(DenseI64ArrayAttr::get(context, *extents));
    }
    auto emitMarkError = [&] { return emitError(UnknownLoc::get(context)); };
    mark = SparseAttr::getChecked(emitMarkError, context, operand.getValue(),
                                  ArrayRef<DenseI64ArrayAttr>(shapes));
    return success(static_cast<bool>(mark));
  }

  void runOnOperation() override {
    StringRef markName = PITDialect::getSparseAttrName();
    getOperation()->walk([&](Operation *op) {
      if (op->getName().getStringRef() != opName)
        return;
      if (op->hasAttr(markName)) {
        op->emitRemark("pit-mark-sparse: left alone, already marked");
        return;
      }
      if (operand >= op->getNumOperands()) {
        op->emitRemark("pit-mark-sparse: left alone, it has no operand ")
            << operand.getValue();
        return;
      }
      auto type = dyn_cast<ShapedType>(op->getOperand(operand).getType());
      if (!type || !type.hasRank() ||
          type.getRank() != mark.getMicroTileRank()) {
        op->emitRemark("pit-mark-sparse: left alone, operand ")
            << operand.getValue() << " is not ranked with the micro-tiles' rank "
            << mark.getMicroTileRank();
        return;
      }
      op->setAttr(markName, mark);
    });
  }

  SparseAttr mark;
};

} // namespace
