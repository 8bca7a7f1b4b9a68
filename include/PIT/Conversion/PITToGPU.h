//===- PITToGPU.h - The patterns of convert-pit-to-gpu ----------*- C++ -*-===//
//
// convert-pit-to-gpu as rewrite patterns, one set per mechanism, for
// compilers that embed PIT and drive the lowering themselves. The pass
// applies them in five stages, each once to every op in post-order:
//
//   1. STiles: populateMatmulSTileToMmaPatterns,
//      populateSddmmSTileToMmaPatterns and populateSimtSTilePatterns (the
//      tensor-core patterns outrank the SIMT one; they build what the op's
//      #pit.mma_config says, or the default strategy's where it has none);
//   2. dense ops: populateDenseMatmulToMmaPatterns and
//      populateDenseSddmmToMmaPatterns (after the STiles, whose kernels come
//      first at the function's entry, where both put their run-time
//      queries);
//   3. scans: populateMicroTileScanPatterns (after the STiles, which may ask
//      a detection to write a compacted copy);
//   4. host code: populateHostCodePatterns and
//      populateTiledTransposePatterns (after the kernels, so that only the
//      linalg ops no kernel took become grid-stride kernels);
//   5. choice: populateDeviceSelectionPatterns (last: it guards every
//      kernel of the variants).
//
//===----------------------------------------------------------------------===//

#ifndef PIT_CONVERSION_PITTOGPU_H
#define PIT_CONVERSION_PITTOGPU_H

#include "PIT/Target/Chip.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::pit {

/// What the patterns of one lowering share across stages.
struct PITToGPUState {
  /// The compacted copy of A that a pit.detect writes for the tensor-core
  /// STiles that read it (stage 1 allocates it, stage 2 fills it), by the
  /// detect op.
  llvm::DenseMap<Operation *, Value> compactedCopies;
  /// The slot the next pit.select records its choice in
  /// (pitCudaLastChoice): choices are numbered in the order stage 4 meets
  /// them.
  int64_t nextChoiceSlot = 0;
};

/// Matmul STiles with f16/bf16 inputs on the tensor cores (mma.sync or
/// wgmma, gathered along k or m, panels).
void populateMatmulSTileToMmaPatterns(RewritePatternSet &patterns,
                                      const ChipFacts &chip,
                                      PITToGPUState &state);

/// Dense matmuls with f16/bf16 inputs on the tensor cores.
void populateDenseMatmulToMmaPatterns(RewritePatternSet &patterns,
                                      const ChipFacts &chip);

/// SDDMM STiles on the tensor cores.
void populateSddmmSTileToMmaPatterns(RewritePatternSet &patterns);

/// Dense SDDMMs on the tensor cores.
void populateDenseSddmmToMmaPatterns(RewritePatternSet &patterns,
                                     const ChipFacts &chip);

/// Every pit.stile as a SIMT kernel, a block per tile; and the erasure of
/// linalg ops whose iteration space is empty.
void populateSimtSTilePatterns(RewritePatternSet &patterns,
                               int64_t threadsPerBlock);

/// pit.detect and pit.count as a memset and a scanning kernel.
void populateMicroTileScanPatterns(RewritePatternSet &patterns,
                                   int64_t threadsPerBlock,
                                   const PITToGPUState &state);

/// The host code: allocations on the device, fills as memsets, and the
/// linalg ops left as grid-stride kernels.
void populateHostCodePatterns(RewritePatternSet &patterns,
                              int64_t threadsPerBlock);

/// 2-D linalg.transpose of whole 32 x 32 tiles as a kernel that moves each
/// tile through shared memory (outranks the grid-stride kernel).
void populateTiledTransposePatterns(RewritePatternSet &patterns);

/// pit.select as a choosing kernel whose choice guards the variants'.
void populateDeviceSelectionPatterns(RewritePatternSet &patterns,
                                     PITToGPUState &state);

} // namespace mlir::pit

#endif // PIT_CONVERSION_PITTOGPU_H
