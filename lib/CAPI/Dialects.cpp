//===- Dialects.cpp - C API of the pit dialect ----------------------------===//

#include "PIT-c/Dialects.h"

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace mlir::pit;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(PIT, pit, PITDialect)

MlirStringRef mlirPITGetSparseAttrName() {
  return wrap(PITDialect::getSparseAttrName());
}

bool mlirAttributeIsAPITSparseAttr(MlirAttribute attr) {
  return isa<SparseAttr>(unwrap(attr));
}

MlirAttribute mlirPITSparseAttrGet(MlirContext ctx, unsigned operand,
                                   intptr_t numMicroTiles, intptr_t rank,
                                   const int64_t *extents) {
  MLIRContext *context = unwrap(ctx);
  // Attributes of a dialect can only be built once it is loaded; a C client
  // that only registered it must not crash here.
  context->getOrLoadDialect<PITDialect>();
  SmallVector<DenseI64ArrayAttr> microTiles;
  for (intptr_t tile = 0; tile < numMicroTiles; ++tile)
    microTiles.push_back(DenseI64ArrayAttr::get(
        context, ArrayRef<int64_t>(extents + tile * rank, rank)));
  auto emitAttrError = [&] { return emitError(UnknownLoc::get(context)); };
  return wrap(SparseAttr::getChecked(emitAttrError, context, operand,
                                     ArrayRef<DenseI64ArrayAttr>(microTiles)));
}

unsigned mlirPITSparseAttrGetOperand(MlirAttribute attr) {
  return cast<SparseAttr>(unwrap(attr)).getOperand();
}

intptr_t mlirPITSparseAttrGetNumMicroTiles(MlirAttribute attr) {
  return cast<SparseAttr>(unwrap(attr)).getMicroTiles().size();
}

intptr_t mlirPITSparseAttrGetMicroTileRank(MlirAttribute attr) {
  return cast<SparseAttr>(unwrap(attr)).getMicroTileRank();
}

int64_t mlirPITSparseAttrGetMicroTileExtent(MlirAttribute attr,
                                            intptr_t microTile, intptr_t dim) {
  return cast<SparseAttr>(unwrap(attr)).getMicroTiles()[microTile][dim];
}

bool mlirAttributeIsAPITCombinerAttr(MlirAttribute attr) {
  return isa<CombinerKindAttr>(unwrap(attr));
}

MlirAttribute mlirPITCombinerAttrGet(MlirContext ctx, MlirStringRef kind) {
  MLIRContext *context = unwrap(ctx);
  context->getOrLoadDialect<PITDialect>();
  std::optional<CombinerKind> parsed = symbolizeCombinerKind(unwrap(kind));
  if (!parsed) {
    emitError(UnknownLoc::get(context))
        << "unknown pit combiner '" << unwrap(kind) << "'";
    return MlirAttribute{nullptr};
  }
  return wrap(CombinerKindAttr::get(context, *parsed));
}

MlirStringRef mlirPITCombinerAttrGetKind(MlirAttribute attr) {
  return wrap(stringifyCombinerKind(cast<CombinerKindAttr>(unwrap(attr)).getValue()));
}
