//===- TensorCoreSTiles.h - Tensor-core kernels for STiles ------*- C++ -*-===//
//
// The STiles that convert-pit-to-gpu runs on tensor cores. Each entry point
// replaces the STile by a kernel when it recognises the body, and returns
// failure, leaving the STile to the SIMT lowering, for any other body.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_TENSORCORESTILES_H
#define PIT_LIB_CONVERSION_PITTOGPU_TENSORCORESTILES_H

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "PIT/Target/Chip.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {

/// A compacted copy of a sparse operand that the detection writes for an
/// STile kernel to read (see buildVectorizedDetection).
struct CompactedCopy {
  DetectOp detect;
  Value buffer;
};

/// What the strategy (pit-gpu-strategy's options) asks of a tensor-core
/// matmul block; a value the tile does not allow falls back to the STile's
/// own tile.
struct MmaStrategyOptions {
  /// Columns of C a block computes.
  int64_t blockColumns = 256;
  /// Compacted k multiplied at a time (0: the STile's k tile).
  int64_t chunk = 0;
  /// Shared-memory stages.
  int64_t stages = 2;
  /// Whether wgmma blocks that copy whole chunks are warp-specialised.
  bool specialize = true;
  /// Whether warp-specialised dense blocks copy with TMA, and in clusters of
  /// how many blocks, which share B's chunks.
  bool tensorCopies = true;
  int64_t clusterBlocks = 2;
};

/// The #pit.mma_config the strategy chooses for a matmul STile or a dense
/// matmul (`op`) on `chip`, or failure where the tensor-core matmul kernels
/// do not take its body.
FailureOr<MmaConfigAttr> chooseMatmulConfig(Operation *op,
                                            const MmaStrategyOptions &options,
                                            const ChipFacts &chip);

/// The tile of an f16 or bf16 matmul (or batch matmul) with f32
/// accumulation, gathered along k (A's columns with B's rows) or along m
/// (A's rows, scattered into C): gathered chunks go to shared memory
/// (cp.async, 16 bytes, where a micro-tile row holds 8 elements or more),
/// mma.sync m16n8k16 accumulates in registers, and the block adds its tile
/// into C (atomically when it is gathered along m).
///
/// A's single-column micro-tiles (32x1) would be gathered element by element,
/// a 32-byte sector each: instead the kernel reads a compacted copy of them,
/// which it asks `op`'s detection to write (appended to `copies`).
///
/// The block is `op`'s #pit.mma_config, or the default strategy's.
LogicalResult lowerMatmulSTileToMMA(RewriterBase &rewriter, STileOp op,
                                    const ChipFacts &chip,
                                    SmallVectorImpl<CompactedCopy> &copies);

/// A dense `C += A x B` (f16 or bf16 A and B, f32 C, static and contiguous)
/// outside any STile: the dense fallback of run-time selection, and any
/// plain matmul of a PIT program. The same kernel as the matmul STile
/// gathered along k, walking all of k with the blocks of `op`'s
/// #pit.mma_config, or of the default strategy (128 x 128, 128 x 256 with
/// wgmma); a zero fill of C right before it is folded into its stores.
LogicalResult lowerMatmulToMMA(RewriterBase &rewriter, linalg::LinalgOp op,
                               const ChipFacts &chip);

/// The tile of an SDDMM, `C[m, n] += M[m, n] * sum_k A[m, k] B[k, n]` with f16
/// or bf16 A and B, f32 C and the mask M sparse, gathered along m (A's and
/// M's rows) or along n (B's and M's columns): the block multiplies its
/// gathered tile over the whole of k with mma.sync, multiplies by the mask in
/// the epilogue, and adds the result into its scattered elements of C.
LogicalResult lowerSddmmSTileToMMA(RewriterBase &rewriter, STileOp op);

/// A dense SDDMM outside any STile (the fallback of run-time selection, and
/// any SDDMM of a PIT program), with the same operand types, static and
/// contiguous, and extents that divide the block tile (64 x 64; k a
/// multiple of 16 up to 128, or of 64): a kernel over C's own tiles that
/// reads the mask coalesced and touches C only where it is not zero. Its
/// blocks, as many as fit on the chip at once (by its shared memory), walk
/// the tiles with each next tile's loads in flight.
LogicalResult lowerSddmmToMMA(RewriterBase &rewriter, linalg::LinalgOp op,
                              const ChipFacts &chip);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_TENSORCORESTILES_H
