//===- TiledTranspose.cpp - linalg.transpose through shared memory -------===//
//
// A 2-D linalg.transpose of the host code (pit-transpose-matmul-b's copy of
// W, say) as a kernel of 32 x 32 tiles: a block reads its tile row by row
// into shared memory and writes it column by column, so that both the reads
// and the writes are whole runs of 32 elements. The grid-stride kernel that
// takes every other linalg op reads one of the two operands with a stride
// of a row: it moved W at about 0.46 TB/s on an H200.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "SimtLinalg.h"

#include "PIT/Conversion/PITToGPU.h"
#include "PIT/Conversion/TileTransfer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The tile's side, and the rows of it a pass of the block's threads takes.
constexpr int64_t kTileSide = 32, kRowsAPass = 8;

/// Whether `op` is a transpose this kernel takes: 2-D, static, identity
/// layouts, of whole tiles, outside any kernel.
bool isTiledTranspose(linalg::TransposeOp op) {
  auto source = dyn_cast<MemRefType>(op.getInput().getType());
  auto target = dyn_cast<MemRefType>(op.getInit().getType());
  return source && target && source.getRank() == 2 &&
         source.hasStaticShape() && target.hasStaticShape() &&
         source.getLayout().isIdentity() && target.getLayout().isIdentity() &&
         op.getPermutation() == ArrayRef<int64_t>{1, 0} &&
         source.getDimSize(0) % kTileSide == 0 &&
         source.getDimSize(1) % kTileSide == 0 &&
         !op->getParentOfType<gpu::LaunchOp>();
}

struct TransposeAsTiledKernel : OpRewritePattern<linalg::TransposeOp> {
  TransposeAsTiledKernel(MLIRContext *context)
      : OpRewritePattern<linalg::TransposeOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isTiledTranspose(op))
      return failure();
    Location loc = op.getLoc();
    auto source = cast<MemRefType>(op.getInput().getType());
    int64_t tileColumns = source.getDimSize(1) / kTileSide;
    int64_t numTiles = source.getDimSize(0) / kTileSide * tileColumns;
    // A padding column: the column-wise reads of shared memory then fall in
    // different banks.
    auto tileType = MemRefType::get(
        {kTileSide, kTileSide + 1}, source.getElementType(),
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(getContext(),
                                   gpu::AddressSpace::Workgroup));
    OpBuilder &b = rewriter;
    gpu::LaunchOp launch = createLaunch(b, loc, numTiles,
                                        kTileSide * kRowsAPass, {tileType});
    Value tile = launch.getWorkgroupAttributions()[0];
    auto index = [&](int64_t value) { return constantIndex(b, loc, value); };
    Value block = launch.getBlockIds().x, thread = launch.getThreadIds().x;
    Value tileRow = arith::DivUIOp::create(b, loc, block, index(tileColumns));
    Value tileColumn = arith::RemUIOp::create(b, loc, block, index(tileColumns));
    Value lane = arith::RemUIOp::create(b, loc, thread, index(kTileSide));
    Value row = arith::DivUIOp::create(b, loc, thread, index(kTileSide));
    Value rowOrigin = arith::MulIOp::create(b, loc, tileRow, index(kTileSide));
    Value columnOrigin =
        arith::MulIOp::create(b, loc, tileColumn, index(kTileSide));
    // Source rows in, lane by lane along a row; then target rows out, each
    // a column of the tile.
    auto forEachPass = [&](function_ref<void(Value)> body) {
      for (int64_t pass = 0; pass < kTileSide; pass += kRowsAPass)
        body(arith::AddIOp::create(b, loc, row, index(pass)));
    };
    forEachPass([&](Value tileRowOfThread) {
      Value value = memref::LoadOp::create(
          b, loc, op.getInput(),
          ValueRange{arith::AddIOp::create(b, loc, rowOrigin, tileRowOfThread),
                     arith::AddIOp::create(b, loc, columnOrigin, lane)});
      memref::StoreOp::create(b, loc, value, tile,
                              ValueRange{tileRowOfThread, lane});
    });
    gpu::BarrierOp::create(b, loc);
    forEachPass([&](Value tileColumnOfThread) {
      Value value = memref::LoadOp::create(
          b, loc, tile, ValueRange{lane, tileColumnOfThread});
      memref::StoreOp::create(
          b, loc, value, op.getInit(),
          ValueRange{
              arith::AddIOp::create(b, loc, columnOrigin, tileColumnOfThread),
              arith::AddIOp::create(b, loc, rowOrigin, lane)});
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::pit::populateTiledTransposePatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeAsTiledKernel>(patterns.getContext());
}
