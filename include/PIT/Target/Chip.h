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

#include "llvm/ADT/STLExtras.h"

#include <cstdint>
#include <string>

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

/// Why PIT cannot compile for `chip`, or an empty string if it can:
/// "sm_" and one of the compute capabilities from sm_80 on (cp.async and
/// the bf16 mma.sync that PIT's kernels use), with an "a" (the
/// architecture-specific features: wgmma on sm_90a) from sm_90 on.
inline std::string getUnsupportedChipReason(llvm::StringRef chip) {
  static constexpr int64_t kKnownVersions[] = {80,  86,  87,  89,  90, 100,
                                               101, 103, 110, 120, 121};
  llvm::StringRef rest = chip;
  int64_t version = getChipVersion(chip);
  rest.consume_front("sm_");
  rest = rest.drop_while(llvm::isDigit);
  if (!llvm::is_contained(kKnownVersions, version))
    return ("'" + chip + "' is not a chip PIT compiles for: sm_80, sm_86, "
            "sm_87, sm_89, sm_90, sm_100, sm_101, sm_103, sm_110, sm_120 or "
            "sm_121, with an 'a' from sm_90 on")
        .str();
  if (!rest.empty() && !(rest == "a" && version >= 90))
    return ("'" + chip + "' has a suffix that only 'a' from sm_90 on may be")
        .str();
  return "";
}

} // namespace mlir::pit

#endif // PIT_TARGET_CHIP_H
