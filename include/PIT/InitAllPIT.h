//===- InitAllPIT.h - Register the project's dialects and passes -*- C++ -*-===//
//
// The one place that knows everything PIT contributes to a DialectRegistry and
// to the global pass registry. pit-opt, the mlir-opt plugin, the C API and any
// compiler that embeds PIT call these, so a new dialect or pass group is
// added here once and reaches all of them.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_INITALLPIT_H
#define PIT_INITALLPIT_H

#include "PIT/Conversion/Passes.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "PIT/Pipelines/Pipelines.h"
#include "PIT/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::pit {

/// Adds every dialect defined by PIT to `registry`.
inline void registerAllPITDialects(DialectRegistry &registry) {
  registry.insert<PITDialect>();
}

/// Registers every pass (and pass pipeline) defined by PIT, so that textual
/// pipelines such as `--pit-mark-sparse` resolve.
inline void registerAllPITPasses() {
  registerPITPasses();
  registerPITConversionPasses();
  registerPITPipelines();
}

} // namespace mlir::pit

#endif // PIT_INITALLPIT_H
