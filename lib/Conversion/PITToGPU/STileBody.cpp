//===- STileBody.cpp - Recognising the body of an STile -------------------===//

#include "STileBody.h"

using namespace mlir;
using namespace mlir::pit;

FailureOr<STileBody> mlir::pit::findSTileBody(STileOp op) {
  STileBody body;
  for (Operation &bodyOp : op.getBody().front()) {
    if (auto generic = dyn_cast<linalg::GenericOp>(bodyOp))
      body.generic = generic;
    if (auto write = dyn_cast<SWriteOp>(bodyOp))
      body.write = write;
  }
  if (!body.generic || !body.write)
    return failure();
  return body;
}

SReadOp mlir::pit::findRead(Value tile) {
  for (Operation *user : tile.getUsers())
    if (auto read = dyn_cast<SReadOp>(user))
      return read;
  return nullptr;
}

bool mlir::pit::isGatheredRead(SReadOp read, int64_t axis, int64_t micro) {
  return read && read.getPositions() && read.getAxis() == axis &&
         read.getMicro() == micro;
}

AffineMap mlir::pit::getOperandMap(MLIRContext *context, unsigned r0,
                                   unsigned r1) {
  return AffineMap::getMultiDimMapWithTargets(3, {r0, r1}, context);
}
