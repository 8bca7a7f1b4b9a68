//===- pit-opt.cpp - The PIT optimizer driver -----------------------------===//
//
// mlir-opt with every upstream dialect, extension and pass, plus PIT's.
//
//===----------------------------------------------------------------------===//

#include "PIT/InitAllPIT.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::pit::test {
void registerTestPITRulesPass();
} // namespace mlir::pit::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::pit::registerAllPITDialects(registry);
  // gpu-module-to-binary translates kernels to LLVM IR in process.
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);

  mlir::registerAllPasses();
  mlir::pit::registerAllPITPasses();
  mlir::pit::test::registerTestPITRulesPass();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "PIT optimizer driver\n", registry));
}
