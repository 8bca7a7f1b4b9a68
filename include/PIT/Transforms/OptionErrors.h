//===- OptionErrors.h - Errors of pass options out of range -----*- C++ -*-===//
//
// PIT's passes check their options in initialize(), before anything runs,
// and name the pass and the option in the error. These are the messages
// they share.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_TRANSFORMS_OPTIONERRORS_H
#define PIT_TRANSFORMS_OPTIONERRORS_H

#include "PIT/Target/Chip.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

namespace mlir::pit {

/// "PASS: OPTION must be WANTED, got VALUE", at no location (the options
/// belong to no op).
inline InFlightDiagnostic emitOptionError(MLIRContext *context,
                                          StringRef pass, StringRef option,
                                          int64_t value, StringRef wanted) {
  return emitError(UnknownLoc::get(context))
         << pass << ": " << option << " must be " << wanted << ", got "
         << value;
}

/// Fails, naming `pass`, on a `chip` option PIT cannot compile for; an
/// empty one (no chip named) is taken.
inline LogicalResult verifyChipOption(MLIRContext *context, StringRef pass,
                                      StringRef chip) {
  if (chip.empty())
    return success();
  if (std::string reason = getUnsupportedChipReason(chip); !reason.empty())
    return emitError(UnknownLoc::get(context))
           << pass << ": chip: " << reason;
  return success();
}

} // namespace mlir::pit

#endif // PIT_TRANSFORMS_OPTIONERRORS_H
