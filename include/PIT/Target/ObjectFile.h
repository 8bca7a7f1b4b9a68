//===- ObjectFile.h - Host code as an object file, in process ---*- C++ -*-===//
//
// After a pipeline (pit-cpu-pipeline, pit-to-ptx) a module's host code is
// the LLVM dialect. Both drivers, pit-compile (through pit-translate
// --pit-to-object) and pit.compile (through the C API), turn it into an
// object file for this machine here, with LLVM's TargetMachine in process:
// one code generator, so that their libraries are made the same way.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_TARGET_OBJECTFILE_H
#define PIT_TARGET_OBJECTFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pit {

/// The translations to LLVM IR of the dialects a lowered module holds
/// (builtin, LLVM, GPU with its offloading model, NVVM).
void registerHostTranslations(DialectRegistry &registry);

/// Writes `module`'s host code as a position-independent object file for
/// the machine this runs on, at -O2 (what `llc -O2 -filetype=obj
/// -relocation-model=pic` writes). Fails with a diagnostic.
LogicalResult translateToObject(ModuleOp module, llvm::raw_pwrite_stream &os);

/// `pit-translate --pit-to-object`.
void registerToObjectTranslation();

} // namespace mlir::pit

#endif // PIT_TARGET_OBJECTFILE_H
