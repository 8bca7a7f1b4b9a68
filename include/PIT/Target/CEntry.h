//===- CEntry.h - Checked C entry points for compiled functions -*- C++ -*-===//
//
// `pit-translate --pit-to-c-entry` reads a module before compilation and
// writes C source with one checked entry point per public function (see
// PIT-runtime/Entry.h). Linked with the compiled module, it is what C, C++ and
// Python (ctypes) call.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_TARGET_CENTRY_H
#define PIT_TARGET_CENTRY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pit {

/// Writes the C entry points of `module`'s public functions. Fails, with a
/// diagnostic, on a function whose arguments are not statically shaped,
/// identity-layout memrefs of a supported element type, or that returns
/// values.
LogicalResult translateToCEntry(ModuleOp module, raw_ostream &os);

void registerToCEntryTranslation();

} // namespace mlir::pit

#endif // PIT_TARGET_CENTRY_H
