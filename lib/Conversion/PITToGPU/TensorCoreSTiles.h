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
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {

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
  /// Parts of k a dense matmul's tiles are split into (0: the strategy's
  /// choice).
  int64_t kSplits = 0;
};

/// Whether `op` is a dense op of the function, not part of a kernel or of
/// an STile's body (lowered with its STile).
inline bool isDenseOp(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<STileOp>();
}

/// A dense op's tensor-core lowering (`lower`, which fails where its kernel
/// does not take the op) as a pattern on the ops isDenseOp accepts.
struct DenseOpToMma : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using Lowering = LogicalResult (*)(RewriterBase &, linalg::LinalgOp,
                                     const ChipFacts &);

  DenseOpToMma(MLIRContext *context, Lowering lower, const ChipFacts &chip)
      : OpInterfaceRewritePattern<linalg::LinalgOp>(context, /*benefit=*/2),
        lower(lower), chip(chip) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isDenseOp(op))
      return failure();
    return lower(rewriter, op, chip);
  }

  Lowering lower;
  ChipFacts chip;
};

/// The #pit.mma_config the strategy chooses for a matmul STile or a dense
/// matmul (`op`) on `chip`, or failure where the tensor-core matmul kernels
/// do not take its body.
FailureOr<MmaConfigAttr> chooseMatmulConfig(Operation *op,
                                            const MmaStrategyOptions &options,
                                            const ChipFacts &chip);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_TENSORCORESTILES_H
