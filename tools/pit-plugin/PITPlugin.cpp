//===- PITPlugin.cpp - PIT as an mlir-opt plugin --------------------------===//
//
//   mlir-opt --load-dialect-plugin=PITPlugin.so --load-pass-plugin=PITPlugin.so
//
//===----------------------------------------------------------------------===//

#include "PIT/InitAllPIT.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PIT", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            pit::registerAllPITDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PIT", LLVM_VERSION_STRING,
          []() { pit::registerAllPITPasses(); }};
}
