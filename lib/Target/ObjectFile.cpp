//===- ObjectFile.cpp - Host code as an object file, in process -----------===//

#include "PIT/Target/ObjectFile.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

void mlir::pit::registerHostTranslations(DialectRegistry &registry) {
  // libMLIR.so lacks registerAllToLLVMIRTranslations; these are the
  // dialects that the CPU and GPU pipelines leave in a lowered module.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  // gpu.binary's default #gpu.select_object embeds the kernels in the host
  // code; without its model the translation of a GPU module crashes.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
}

namespace {

/// A TargetMachine for this machine, position independent, at -O2; null
/// after a diagnostic at `loc`.
std::unique_ptr<llvm::TargetMachine> createHostMachine(Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    emitError(loc) << "no code generator for this machine (" << triple.str()
                   << "): " << error;
    return nullptr;
  }
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, /*CPU=*/"generic", /*Features=*/"", llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Default));
}

} // namespace

LogicalResult mlir::pit::translateToObject(ModuleOp module,
                                           llvm::raw_pwrite_stream &os) {
  DialectRegistry registry;
  registerHostTranslations(registry);
  module->getContext()->appendDialectRegistry(registry);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return emitError(module.getLoc(), "cannot translate the module to LLVM IR");
  std::unique_ptr<llvm::TargetMachine> machine =
      createHostMachine(module.getLoc());
  if (!machine)
    return failure();
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, /*DwoOut=*/nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return emitError(module.getLoc(),
                     "this machine's code generator cannot write objects");
  passes.run(*llvmModule);
  return success();
}

void mlir::pit::registerToObjectTranslation() {
  TranslateFromMLIRRegistration registration(
      "pit-to-object",
      "Write the host code of a lowered module as an object file for this "
      "machine",
      [](ModuleOp module, raw_ostream &os) -> LogicalResult {
        // The object writer seeks back: write to memory, then out.
        SmallVector<char> object;
        llvm::raw_svector_ostream buffer(object);
        if (failed(translateToObject(module, buffer)))
          return failure();
        os.write(object.data(), object.size());
        return success();
      },
      [](DialectRegistry &registry) {
        registry.insert<LLVM::LLVMDialect, gpu::GPUDialect, NVVM::NVVMDialect>();
        registerHostTranslations(registry);
      });
}
