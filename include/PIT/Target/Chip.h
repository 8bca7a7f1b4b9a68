//===- Chip.h - What an NVIDIA chip name says -------------------*- C++ -*-===//
//
// The passes and the pipeline decide what to emit from the `chip` option
// ("sm_80", "sm_90a", ...): the compute capability it names.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_TARGET_CHIP_H
#define PIT_TARGET_CHIP_H

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::pit {

/// The compute capability `chip` names (90 for "sm_90" and "sm_90a", 100
/// for "sm_100"), or 0 when it does not read as "sm_" and a number.
inline int64_t getChipVersion(llvm::StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_") ||
      chip.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}

} // namespace mlir::pit

#endif // PIT_TARGET_CHIP_H
