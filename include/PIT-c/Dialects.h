/*===- PIT-c/Dialects.h - C API of the pit dialect ------------------*- C -*-===*\
|*                                                                            *|
|* The pit dialect handle and its attributes, for C clients and the Python    *|
|* bindings. Functions that build an attribute return a null attribute when   *|
|* the arguments are invalid, after reporting why through the context's       *|
|* diagnostic handlers.                                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PIT_C_DIALECTS_H
#define PIT_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(PIT, pit);

/// Name of the discardable attribute that marks a sparse operand:
/// "pit.sparse".
MLIR_CAPI_EXPORTED MlirStringRef mlirPITGetSparseAttrName(void);

//===----------------------------------------------------------------------===//
// #pit.sparse
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool mlirAttributeIsAPITSparseAttr(MlirAttribute attr);

/// Builds #pit.sparse<operand = `operand`, micro_tiles = [...]> from
/// `numMicroTiles` shapes of rank `rank`, stored row-major in `extents`.
MLIR_CAPI_EXPORTED MlirAttribute
mlirPITSparseAttrGet(MlirContext ctx, unsigned operand, intptr_t numMicroTiles,
                     intptr_t rank, const int64_t *extents);

MLIR_CAPI_EXPORTED unsigned mlirPITSparseAttrGetOperand(MlirAttribute attr);
MLIR_CAPI_EXPORTED intptr_t
mlirPITSparseAttrGetNumMicroTiles(MlirAttribute attr);
MLIR_CAPI_EXPORTED intptr_t
mlirPITSparseAttrGetMicroTileRank(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t mlirPITSparseAttrGetMicroTileExtent(
    MlirAttribute attr, intptr_t microTile, intptr_t dim);

//===----------------------------------------------------------------------===//
// #pit.combiner
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool mlirAttributeIsAPITCombinerAttr(MlirAttribute attr);

/// Builds #pit.combiner<`kind`>, where `kind` is one of add, mul, maxsi,
/// minsi, maxui, minui, maximumf, minimumf, andi, ori, xori.
MLIR_CAPI_EXPORTED MlirAttribute mlirPITCombinerAttrGet(MlirContext ctx,
                                                        MlirStringRef kind);

MLIR_CAPI_EXPORTED MlirStringRef
mlirPITCombinerAttrGetKind(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // PIT_C_DIALECTS_H
