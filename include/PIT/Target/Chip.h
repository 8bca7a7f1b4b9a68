//===- Chip.h - What an NVIDIA chip name says -------------------*- C++ -*-===//
//
// The passes and the pipeline decide what to emit from the `chip` option
// ("sm_80", "sm_90a", ...): the compute capability it names, and the facts
// of that chip the lowering needs (ChipFacts).
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

/// What PIT's lowering needs to know of a chip, by the CUDA C++ Programming
/// Guide's table of compute capabilities. The one place chip facts live:
/// the passes read them here, never from a version test of their own. The
/// multiprocessor count is not a fact of the chip name (an H100 PCIe has 114,
/// an SXM 132): the kernels read the device's at run time
/// (pitCudaMultiprocessorCount), and the strategy takes the data-center
/// part's as its estimate unless told the device's (pit-gpu-strategy
/// `multiprocessors`).
/// Shared memory a block may use without asking the driver, on every chip.
constexpr int64_t kStaticSharedBytesPerBlock = 48 * 1024;

struct ChipFacts {
  /// The compute capability (90 for sm_90 and sm_90a).
  int64_t version = 0;
  /// Shared memory a block may ask for (dynamically; past
  /// kStaticSharedBytesPerBlock the driver must be asked first).
  int64_t sharedBytesPerBlock = kStaticSharedBytesPerBlock;
  /// Shared memory the driver keeps of each resident block (1 KiB from
  /// sm_80 on): a multiprocessor holds a block's maximum plus that.
  int64_t sharedBytesReservedPerBlock = 1024;
  /// Threads a multiprocessor holds at once.
  int64_t threadsPerMultiprocessor = 2048;
  /// The multiprocessors of the chip's data-center part (A100 108, H100 and
  /// H200 SXM 132, B200 148): the strategy's estimate of a wave.
  int64_t multiprocessors = 108;
  /// red.global.add.v2/v4.f32: vector atomics of f32 (sm_90 on).
  bool vectorAtomics = false;
  /// griddepcontrol: a kernel may start while the one before it finishes
  /// (sm_90 on).
  bool dependentLaunch = false;
  /// wgmma, the bulk tensor copies' multicast and setmaxnreg: sm_90a only
  /// (later chips have other instructions).
  bool warpgroupMma = false;
};

/// The facts of `chip` (one that getUnsupportedChipReason accepts).
inline ChipFacts getChipFacts(llvm::StringRef chip) {
  ChipFacts facts;
  facts.version = getChipVersion(chip);
  if (facts.version >= 90)
    facts.sharedBytesPerBlock = 227 * 1024;
  else if (facts.version == 80 || facts.version == 87)
    facts.sharedBytesPerBlock = 163 * 1024;
  else if (facts.version >= 80)
    facts.sharedBytesPerBlock = 99 * 1024;
  // sm_86, sm_87, sm_89 and sm_120/121 hold 1536 threads a multiprocessor.
  if (facts.version == 86 || facts.version == 87 || facts.version == 89 ||
      facts.version >= 120)
    facts.threadsPerMultiprocessor = 1536;
  if (facts.version >= 100)
    facts.multiprocessors = 148;
  else if (facts.version >= 90)
    facts.multiprocessors = 132;
  facts.vectorAtomics = facts.version >= 90;
  facts.dependentLaunch = facts.version >= 90;
  facts.warpgroupMma = chip == "sm_90a";
  return facts;
}

} // namespace mlir::pit

#endif // PIT_TARGET_CHIP_H
