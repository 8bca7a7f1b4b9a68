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
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::pit::test {
void registerTestPITRulesPass();
} // namespace mlir::pit::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::pit::registerAllPITDialects(registry);

  mlir::registerAllPasses();
  mlir::pit::registerAllPITPasses();
  mlir::pit::test::registerTestPITRulesPass();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "PIT optimizer driver\n", registry));
}
