//===- pit-translate.cpp - PIT's translations out of MLIR -----------------===//

#include "PIT/Target/CEntry.h"
#include "PIT/Target/Manifest.h"
#include "PIT/Target/ObjectFile.h"
#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::pit::registerToCEntryTranslation();
  mlir::pit::registerToCManifestTranslation();
  mlir::pit::registerToObjectTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "PIT translation driver\n"));
}
