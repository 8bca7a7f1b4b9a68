//===- Manifest.h - What a compiled library holds, as JSON ------*- C++ -*-===//
//
// Every compiled library, whichever driver made it (pit-compile or
// pit.compile), exports `const char *pit_manifest(void)`: JSON with the
// target and, per public function, its arguments' element types and shapes
// (a dynamic extent is negative) and the extent ties the caller must keep
// (ExtentTies.h). The Python runtime calls a library from it alone.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_TARGET_MANIFEST_H
#define PIT_TARGET_MANIFEST_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pit {

/// Writes C source defining `pit_manifest()` for `module` (before
/// compilation, on memrefs) compiled for `target` ("cpu" or a chip). Fails,
/// with a diagnostic, on a public function with an argument that is not a
/// memref or with results.
LogicalResult translateToCManifest(ModuleOp module, StringRef target,
                                   raw_ostream &os);

/// `pit-translate --pit-to-c-manifest [--pit-manifest-target=CHIP]`.
void registerToCManifestTranslation();

} // namespace mlir::pit

#endif // PIT_TARGET_MANIFEST_H
