//===- Registration.cpp - Register PIT from C -----------------------------===//

#include "PIT-c/Registration.h"

#include "PIT/InitAllPIT.h"
#include "mlir/CAPI/IR.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void mlirPITRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &unwrapped = *unwrap(registry);
  mlir::registerAllDialects(unwrapped);
  mlir::registerAllExtensions(unwrapped);
  mlir::pit::registerAllPITDialects(unwrapped);
}

void mlirPITRegisterLLVMIRTranslations(MlirDialectRegistry registry) {
  // libMLIR.so lacks registerAllToLLVMIRTranslations; these are the dialects
  // that the CPU and GPU pipelines leave in a lowered module.
  mlir::DialectRegistry &unwrapped = *unwrap(registry);
  mlir::registerBuiltinDialectTranslation(unwrapped);
  mlir::registerLLVMDialectTranslation(unwrapped);
  mlir::registerGPUDialectTranslation(unwrapped);
  // gpu.binary's default #gpu.select_object embeds the kernels in the host
  // code; without its model the translation of a GPU module crashes.
  mlir::gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(
      unwrapped);
  mlir::registerNVVMDialectTranslation(unwrapped);
}

void mlirPITRegisterAllPasses() {
  mlir::registerAllPasses();
  mlir::pit::registerAllPITPasses();
}
