//===- MatmulTile.h - A matmul STile, as its kernels see it -----*- C++ -*-===//
//
// What convert-pit-to-gpu's matmul lowering (MatmulMMA.cpp) finds in a
// matmul STile's body, and the kernels it calls: the gather along k
// (GatherAlongK.cpp) and the STiles gathered along m that keep a panel of C
// in shared memory (PanelMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_MATMULTILE_H
#define PIT_LIB_CONVERSION_PITTOGPU_MATMULTILE_H

#include "BlockMma.h"
#include "TensorCoreSTiles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir::pit {

/// What the matmul tile reads and writes, found in the STile body.
struct MatmulTile {
  /// Whether a batch loop leads every operand (batch_matmul).
  bool batched;
  /// Whether A's rows are gathered (and C's scattered) rather than k.
  bool alongM;
  Value a, b, c;
  /// Whether B is stored n by k (y = x W^T, W in nn.Linear's layout): a
  /// dense walk then copies B's chunks by TMA in that layout, which is
  /// wgmma's own (k-major), instead of reading a k-by-n copy of W.
  bool bByN = false;
  /// C's element type: f32, or the inputs' f16 or bf16. The kernels
  /// accumulate in f32 either way and round once, where C is stored (as
  /// cuBLAS does for half-precision GEMMs); the body's own f16 additions
  /// would round at every step.
  Type outputType;
  /// The index of the gathered dimension; null for a dense matmul, whose
  /// block walks all of k.
  Value positions;
  /// The matmul's extents (without the batch) and the number of row blocks
  /// (times the batch): a block computes one n tile of one of them.
  int64_t extentM, extentN, extentK, numSegments;
  /// The counts of the STile's index (when there is one).
  Value counts;
  MmaTileShape shape;
  int64_t microK, microM;
  /// Shared-memory stages of the gather along k asked for (the block gets
  /// as many as fit).
  int64_t stages;
  /// The op that wrote C's start just before the matmul, or null: a fill
  /// of zeros, or a broadcast of `bias` (gathers along k only). With one,
  /// the kernel stores its tile (plus the bias) instead of adding it into
  /// C (where a block owns its tile), and the op goes away.
  Operation *cStart = nullptr;
  /// A broadcast start's vector: bias[i] in each row i of C
  /// (`biasPerRow`, y^T = W x^T + b), or bias[j] in each column j.
  Value bias;
  bool biasPerRow = false;
  /// A compacted copy of A's non-zero micro-tiles (memref<segments x
  /// capacity x microM>), which the detection writes, or null.
  Value compactedA;
  /// Whether C is static and contiguous in rows of whole pieces of four
  /// elements (16 bytes of f32, 8 of f16; aligned, since the entry points
  /// take 16-byte aligned tensors).
  bool cRowsInPieces = false;
  /// Whether scattered partial sums may use four-element vector atomics.
  bool vectorAtomics = false;
  /// The chip's facts: with wgmma, the kernel uses it where the block's
  /// shape and A's layout allow.
  ChipFacts chip;
  /// Gathered along m: the rows of C a block owns (pit.stile `panel`), or
  /// 0 for atomic adds.
  int64_t panelRows = 0;
  /// With a panel: whether the panels group the rows that share segments
  /// (pit.stile `group_rows`) rather than hold consecutive rows.
  bool groupRows = false;
  /// Whether a wgmma block that copies whole chunks is warp-specialised.
  bool specialize = false;
  /// Whether a warp-specialised dense block copies with TMA, and the blocks
  /// of a cluster that share B's chunks then.
  bool tensorCopies = false;
  int64_t clusterBlocks = 1;
  /// Parts of k each tile's chunks are split into (#pit.mma_config's
  /// k_splits; persistent blocks that copy with TMA only).
  int64_t kSplits = 1;
};

/// How the kernel of a gather along k runs a tile (GatherAlongK.cpp): the
/// strategy planGatherAlongK chooses from the tile and the chip, apart from
/// the kernel that carries it out.
struct GatherAlongKPlan {
  /// A read from the compacted copy, stored k by k.
  bool aStoredByK = false;
  /// Multiplies with wgmma (else mma.sync).
  bool warpgroupMma = false;
  /// A's pieces go through registers (a copy would straddle micro-tiles).
  bool stagedA = false;
  /// A copying warpgroup fills the stages for the multiplying ones.
  bool specialized = false;
  /// A's and B's chunks come by TMA, in clusters of `clusterBlocks` blocks
  /// that share B's.
  bool tensorCopies = false;
  int64_t clusterBlocks = 1;
  /// C goes back through the TMA: from a staging buffer of its own
  /// (`tensorStores`, warp-specialised blocks), or through the stages
  /// (`writesThroughTensorMap` alone).
  bool writesThroughTensorMap = false;
  bool tensorStores = false;
  /// A block for each multiprocessor walks the tiles.
  bool persistent = false;
  /// Parts of k each tile is split into, each a unit of the walk; the last
  /// part adds the others' partial sums (split-k).
  int64_t kSplits = 1;
  /// The blocks take their tiles in turn from a counter, `residentBlocks` a
  /// multiprocessor.
  bool tileCounter = false;
  int64_t residentBlocks = 1;
  /// Shared-memory stages, and the block's buffers beside them.
  int64_t stages = 1;
  SmallVector<MemRefType> workspace;
  /// Tiles of the whole kernel.
  int64_t numTiles = 0;
};

/// The plan of `tile`'s kernel, gathered along k (or dense).
GatherAlongKPlan planGatherAlongK(MLIRContext *context,
                                  const MatmulTile &tile);

/// Builds, at the builder's point, the kernel of a matmul gathered along k
/// or dense, as planGatherAlongK plans it: a block per (segment, n tile)
/// loops over the chunks of the segment's compacted k and adds its output
/// tile into C.
void buildGatherAlongK(OpBuilder &b, Location loc, const MatmulTile &tile);

/// Why an STile gathered along m cannot run its `panel` (empty if it can).
std::string whyNoPanel(STileOp op, const MatmulTile &tile);

/// Why a panel STile cannot group its rows (empty if it can).
std::string whyNoRowOrder(const MatmulTile &tile);

/// Replaces nothing: builds, before `op`, the kernels of an STile gathered
/// along m whose blocks own a panel of C's rows (`tile.panelRows`): the
/// index sorted by panel, then the panel kernel; the sorted index is freed
/// after `op`.
void buildPanelMatmul(RewriterBase &rewriter, STileOp op,
                      const MatmulTile &tile);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_MATMULTILE_H
