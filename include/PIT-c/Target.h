/*===- PIT-c/Target.h - Translations out of MLIR, from C ------------*- C -*-===*\
|*                                                                            *|
|* What the Python compile step needs after the pipeline has run: the LLVM   *|
|* IR of a module lowered to the LLVM dialect, and the checked C entry       *|
|* points of a module's public functions (PIT-runtime/Entry.h). Both write   *|
|* their text through `callback` and report failures through the context's  *|
|* diagnostic handlers.                                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PIT_C_TARGET_H
#define PIT_C_TARGET_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "PIT-runtime/Entry.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Translates `module` (a builtin.module in the LLVM dialect, possibly with
/// gpu.binary ops) to textual LLVM IR. Registers the LLVM IR translations it
/// needs in the module's context first.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirPITTranslateModuleToLLVMIR(
    MlirOperation module, MlirStringCallback callback, void *userData);

/// Writes the C source of the checked entry points `pit_NAME` of `module`'s
/// public functions. `module` is the program before compilation: its
/// functions' memref arguments give the signatures.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirPITTranslateModuleToCEntry(
    MlirOperation module, MlirStringCallback callback, void *userData);

/// Writes the C source of `pit_manifest()` (PIT/Target/Manifest.h): the JSON
/// of `module`'s public functions for `target` ("cpu" or a chip), from which
/// PIT's Python runtime calls a compiled library.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirPITTranslateModuleToCManifest(
    MlirOperation module, MlirStringRef target, MlirStringCallback callback,
    void *userData);

/// Writes the host code of `module` (after a pipeline: the LLVM dialect) as
/// a position-independent object file for this machine
/// (PIT/Target/ObjectFile.h); `callback` receives its bytes.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirPITTranslateModuleToObject(
    MlirOperation module, MlirStringCallback callback, void *userData);

/// Receives one tie of a function's argument extents, as the checked entry
/// points hold it (PIT-runtime/Entry.h; PIT/Target/ExtentTies.h).
typedef void (*MlirPITExtentTieCallback)(MlirStringRef function,
                                         PITExtentTie tie, void *userData);

/// Calls `callback` with each extent tie of each public function of `module`
/// (the program before compilation, as for the C entry points).
MLIR_CAPI_EXPORTED MlirLogicalResult mlirPITModuleGetExtentTies(
    MlirOperation module, MlirPITExtentTieCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif // PIT_C_TARGET_H
