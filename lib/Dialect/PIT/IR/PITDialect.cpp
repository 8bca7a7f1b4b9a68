//===- PITDialect.cpp - The pit dialect -----------------------------------===//

#include "PIT/Dialect/PIT/IR/PITDialect.h"

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::pit;

#include "PIT/Dialect/PIT/IR/PITDialect.cpp.inc"

void PITDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "PIT/Dialect/PIT/IR/PITOps.cpp.inc"
      >();
  registerAttributes();
}

/// Checks a `pit.sparse` mark against the operation that carries it. The mark
/// is discardable, so it can sit on any op, but it must name an operand that
/// exists and whose rank matches the micro-tiles; otherwise every pass that
/// reads it would have to repeat these checks.
static LogicalResult verifySparseMark(Operation *op, SparseAttr mark) {
  unsigned numOperands = op->getNumOperands();
  if (mark.getOperand() >= numOperands)
    return op->emitOpError("marks operand ")
           << mark.getOperand() << " as sparse, but it has only "
           << numOperands << " operand" << (numOperands == 1 ? "" : "s");
  Type type = op->getOperand(mark.getOperand()).getType();
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return op->emitOpError("marks operand ")
           << mark.getOperand() << " as sparse, but its type " << type
           << " is not a ranked tensor or memref";
  if (shaped.getRank() != mark.getMicroTileRank())
    return op->emitOpError("marks operand ")
           << mark.getOperand() << " of rank " << shaped.getRank()
           << " as sparse with micro-tiles of rank " << mark.getMicroTileRank();
  return success();
}

LogicalResult PITDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  if (attribute.getName() == getDependentWaitAttrName()) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError("'")
             << getDependentWaitAttrName() << "' expects a unit attribute";
    return success();
  }
  if (attribute.getName() == getMmaConfigAttrName()) {
    if (!isa<MmaConfigAttr>(attribute.getValue()))
      return op->emitError("'")
             << getMmaConfigAttrName()
             << "' expects a #pit.mma_config attribute, got "
             << attribute.getValue();
    // By name: the dialect does not link linalg's.
    if (!isa<STileOp>(op) && op->getName().getDialectNamespace() != "linalg")
      return op->emitError("'")
             << getMmaConfigAttrName()
             << "' belongs on a pit.stile or a linalg op";
    return success();
  }
  if (attribute.getName() != getSparseAttrName())
    return op->emitError("unknown pit dialect attribute '")
           << attribute.getName().getValue() << "'";
  auto mark = dyn_cast<SparseAttr>(attribute.getValue());
  if (!mark)
    return op->emitError("'")
           << getSparseAttrName() << "' expects a #pit.sparse attribute, got "
           << attribute.getValue();
  return verifySparseMark(op, mark);
}
