//===- Target.cpp - Translations out of MLIR, from C ----------------------===//

#include "PIT-c/Target.h"
#include "PIT-c/Registration.h"

#include "PIT/Target/CEntry.h"
#include "PIT/Target/ExtentTies.h"
#include "PIT/Target/Manifest.h"
#include "PIT/Target/ObjectFile.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace mlir;

namespace {

/// The module op behind `op`, or null after a diagnostic on a wrong operation.
ModuleOp getModuleOrEmitError(MlirOperation op) {
  Operation *operation = unwrap(op);
  auto module = dyn_cast<ModuleOp>(operation);
  if (!module)
    emitError(operation->getLoc())
        << "expects a builtin.module, got '" << operation->getName() << "'";
  return module;
}

/// Runs `translation` (text or bytes out of the module `op`) into the
/// callback.
MlirLogicalResult
translateInto(MlirOperation op, MlirStringCallback callback, void *userData,
             function_ref<LogicalResult(ModuleOp, raw_ostream &)> translation) {
  ModuleOp module = getModuleOrEmitError(op);
  if (!module)
    return mlirLogicalResultFailure();
  detail::CallbackOstream stream(callback, userData);
  LogicalResult result = translation(module, stream);
  stream.flush();
  return wrap(result);
}

} // namespace

MlirLogicalResult mlirPITTranslateModuleToLLVMIR(MlirOperation op,
                                                 MlirStringCallback callback,
                                                 void *userData) {
  ModuleOp module = getModuleOrEmitError(op);
  if (!module)
    return mlirLogicalResultFailure();
  DialectRegistry registry;
  mlirPITRegisterLLVMIRTranslations(wrap(&registry));
  module->getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    emitError(module.getLoc()) << "failed to translate the module to LLVM IR";
    return mlirLogicalResultFailure();
  }
  detail::CallbackOstream stream(callback, userData);
  llvmModule->print(stream, nullptr);
  stream.flush();
  return mlirLogicalResultSuccess();
}

MlirLogicalResult mlirPITTranslateModuleToCEntry(MlirOperation op,
                                                 MlirStringCallback callback,
                                                 void *userData) {
  return translateInto(op, callback, userData, pit::translateToCEntry);
}

MlirLogicalResult mlirPITTranslateModuleToCManifest(MlirOperation op,
                                                    MlirStringRef target,
                                                    MlirStringCallback callback,
                                                    void *userData) {
  return translateInto(op, callback, userData,
                      [&](ModuleOp module, raw_ostream &os) {
                        return pit::translateToCManifest(module, unwrap(target),
                                                         os);
                      });
}

MlirLogicalResult mlirPITTranslateModuleToObject(MlirOperation op,
                                                 MlirStringCallback callback,
                                                 void *userData) {
  return translateInto(op, callback, userData,
                      [](ModuleOp module, raw_ostream &os) {
                        // The object writer seeks back: memory first.
                        SmallVector<char> object;
                        llvm::raw_svector_ostream buffer(object);
                        if (failed(pit::translateToObject(module, buffer)))
                          return failure();
                        os.write(object.data(), object.size());
                        return success();
                      });
}

MlirLogicalResult mlirPITModuleGetExtentTies(MlirOperation op,
                                             MlirPITExtentTieCallback callback,
                                             void *userData) {
  ModuleOp module = getModuleOrEmitError(op);
  if (!module)
    return mlirLogicalResultFailure();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    for (const pit::ExtentTie &tie : pit::getExtentTies(func))
      callback(wrap(func.getSymName()),
               {tie.argument, tie.dim, tie.otherArgument, tie.otherDim,
                tie.extent},
               userData);
  }
  return mlirLogicalResultSuccess();
}
