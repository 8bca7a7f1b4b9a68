/*===- PIT-c/Registration.h - Register PIT from C -------------------*- C -*-===*\
|*                                                                            *|
|* What a C client or the Python bindings call to get a context that knows   *|
|* PIT and upstream MLIR, and pipelines that name PIT's passes.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PIT_C_REGISTRATION_H
#define PIT_C_REGISTRATION_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds the pit dialect and every upstream dialect and extension to
/// `registry`.
MLIR_CAPI_EXPORTED void mlirPITRegisterAllDialects(MlirDialectRegistry registry);

/// Adds the translations to LLVM IR of the dialects a lowered PIT module
/// holds (builtin, llvm, gpu with gpu.binary's object embedding, nvvm) to
/// `registry`: gpu-module-to-binary in
/// pit-to-ptx and the translation of the host code need them.
MLIR_CAPI_EXPORTED void
mlirPITRegisterLLVMIRTranslations(MlirDialectRegistry registry);

/// Registers PIT's passes and every upstream pass in the global registry.
MLIR_CAPI_EXPORTED void mlirPITRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif // PIT_C_REGISTRATION_H
