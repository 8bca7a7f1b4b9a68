//===- TransposeMatmulB.cpp - A k-by-n copy of a matmul's B ---------------===//
//
// pit-transpose-matmul-b: y = x W^T on buffers becomes a transpose of W into
// a temporary and the matmul PIT's sparse tensor-core kernels take.
//
//===----------------------------------------------------------------------===//

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "PIT/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITTRANSPOSEMATMULB
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The maps of a matmul over loops (m, n, k) that reads B by `bLoops`:
/// A (m, k), B `bLoops`, C (m, n).
SmallVector<AffineMap> getMatmulMaps(MLIRContext *context,
                                     ArrayRef<unsigned> bLoops) {
  auto map = [&](ArrayRef<unsigned> loops) {
    return AffineMap::getMultiDimMapWithTargets(3, loops, context);
  };
  return {map({0, 2}), map(bLoops), map({0, 1})};
}

/// Whether `op` is a matmul on buffers whose B is stored n by k.
bool readsBByN(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() && op.getNumDpsInputs() == 2 &&
         op.getNumDpsInits() == 1 && op.getNumLoops() == 3 &&
         linalg::isaContractionOpInterface(op) &&
         isa<MemRefType>(op.getDpsInputs()[1].getType()) &&
         op.getIndexingMapsArray() == getMatmulMaps(op.getContext(), {1, 2});
}

/// Whether `op` stays as it is for the GPU lowering's dense matmul kernel:
/// an unmarked matmul with static extents, whose kernel copies B's chunks
/// as B is stored (by TMA, where wgmma takes them so), or copies B k by n
/// itself. pit-sparsify's tiles of a marked one, and the SIMT kernels of
/// dynamic extents, read B k by n.
bool isLeftToDenseKernels(linalg::LinalgOp op) {
  return !op->hasAttr(PITDialect::getSparseAttrName()) &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           return cast<ShapedType>(type).hasStaticShape();
         });
}

/// Copies `op`'s B into a new k-by-n buffer before it and reads that.
void transposeB(RewriterBase &rewriter, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  Value weight = op.getDpsInputs()[1];
  auto weightType = cast<MemRefType>(weight.getType());
  rewriter.setInsertionPoint(op);
  SmallVector<Value> dynamicSizes;
  for (int64_t dim : {1, 0})
    if (weightType.isDynamicDim(dim))
      dynamicSizes.push_back(memref::DimOp::create(rewriter, loc, weight, dim));
  auto copyType = MemRefType::get(
      {weightType.getDimSize(1), weightType.getDimSize(0)},
      weightType.getElementType());
  Value copy = memref::AllocOp::create(rewriter, loc, copyType, dynamicSizes);
  linalg::TransposeOp::create(rewriter, loc, weight, copy,
                              ArrayRef<int64_t>{1, 0});
  SmallVector<Attribute> maps = llvm::map_to_vector(
      getMatmulMaps(op.getContext(), {2, 1}),
      [](AffineMap map) -> Attribute { return AffineMapAttr::get(map); });
  rewriter.modifyOpInPlace(op, [&] {
    op->setOperand(1, copy);
    op->setAttr("indexing_maps", rewriter.getArrayAttr(maps));
  });
  rewriter.setInsertionPointAfter(op);
  memref::DeallocOp::create(rewriter, loc, copy);
}

struct PITTransposeMatmulBPass
    : public pit::impl::PITTransposeMatmulBBase<PITTransposeMatmulBPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (readsBByN(op) && !isLeftToDenseKernels(op))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : matmuls) {
      auto mark =
          op->getAttrOfType<SparseAttr>(PITDialect::getSparseAttrName());
      if (mark && mark.getOperand() == 1) {
        op->emitRemark("pit-transpose-matmul-b: left alone: B is stored n "
                       "by k and marked sparse; a copy would move the "
                       "pattern away from the buffer the program fills");
        continue;
      }
      transposeB(rewriter, op);
    }
  }
};

} // namespace
