//===- Registration.cpp - Register PIT from C -----------------------------===//

#include "PIT-c/Registration.h"

#include "PIT/InitAllPIT.h"
#include "PIT/Target/ObjectFile.h"
#include "mlir/CAPI/IR.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void mlirPITRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &unwrapped = *unwrap(registry);
  mlir::registerAllDialects(unwrapped);
  mlir::registerAllExtensions(unwrapped);
  mlir::pit::registerAllPITDialects(unwrapped);
}

void mlirPITRegisterLLVMIRTranslations(MlirDialectRegistry registry) {
  mlir::pit::registerHostTranslations(*unwrap(registry));
}

void mlirPITRegisterAllPasses() {
  mlir::registerAllPasses();
  mlir::pit::registerAllPITPasses();
}
