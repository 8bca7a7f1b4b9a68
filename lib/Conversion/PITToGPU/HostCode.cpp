//===- HostCode.cpp - The host code around the kernels --------------------===//
//
// The function's buffers are device buffers: its allocations go to the
// device, its fills of 16- or 32-bit elements become memsets on the stream,
// and the linalg ops no kernel took run as grid-stride kernels.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "SimtLinalg.h"

#include "PIT/Conversion/PITToGPU.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Whether `op` fills a whole contiguous buffer with one 16- or 32-bit
/// value, which gpu.memset does.
bool isMemsetFill(Operation *op) {
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !fill.hasPureBufferSemantics())
    return false;
  auto type = dyn_cast<MemRefType>(fill.getOutputs()[0].getType());
  Type element = type ? type.getElementType() : Type();
  return type && type.getLayout().isIdentity() && element.isIntOrFloat() &&
         (element.getIntOrFloatBitWidth() == 32 ||
          element.getIntOrFloatBitWidth() == 16);
}

/// Whether `value` is computed from a pit.select's result.
bool dependsOnChoice(Value value) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (isa<SelectOp>(def))
      return true;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// Whether `op` runs only for some choices of run-time selection (in a
/// region of a switch on a pit.select, or of an scf.if on a condition
/// computed from one), whose kernels the device's choice will guard.
bool runsInVariant(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(parent);
        switchOp && dependsOnChoice(switchOp.getArg()))
      return true;
    if (auto ifOp = dyn_cast<scf::IfOp>(parent);
        ifOp && dependsOnChoice(ifOp.getCondition()))
      return true;
  }
  return false;
}

/// Whether `fill` clears a buffer that its variant of run-time selection
/// allocates and that only that variant uses: a memset of it may then run
/// whatever the device chooses (lowerSelectOnDevice moves it next to the
/// allocation, coalesceDeviceAllocations to the call's first memset), since
/// no other work sees what the buffer holds.
bool clearsVariantPrivateBuffer(linalg::FillOp fill) {
  Value buffer = fill.getOutputs()[0];
  Operation *alloc = buffer.getDefiningOp();
  if (!isa_and_nonnull<memref::AllocOp, gpu::AllocOp>(alloc) ||
      !runsInVariant(alloc))
    return false;
  Region *variant = alloc->getParentRegion();
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return variant->isAncestor(user->getParentRegion());
  });
}

/// Blocks of a grid-stride kernel: with 256 threads each, about as many
/// threads as an H100 holds at once. More blocks only cost scheduling, which
/// a kernel of an unchosen variant (whose blocks exit at once) pays in full.
constexpr int64_t kMaxGridStrideBlocks = 1024;


/// Whether `op` is host code: not in a kernel.
bool isOnHost(Operation *op) { return !op->getParentOfType<gpu::LaunchOp>(); }

struct AllocOnDevice : OpRewritePattern<memref::AllocOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::AllocOp alloc,
                                PatternRewriter &rewriter) const override {
    if (!isOnHost(alloc))
      return failure();
    rewriter.replaceOpWithNewOp<gpu::AllocOp>(
        alloc, alloc.getType(), /*asyncToken=*/Type(),
        /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
        alloc.getSymbolOperands(), /*hostShared=*/false);
    return success();
  }
};

struct DeallocOnDevice : OpRewritePattern<memref::DeallocOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::DeallocOp dealloc,
                                PatternRewriter &rewriter) const override {
    if (!isOnHost(dealloc))
      return failure();
    gpu::DeallocOp::create(rewriter, dealloc.getLoc(), /*asyncToken=*/Type(),
                           ValueRange{}, dealloc.getMemref());
    rewriter.eraseOp(dealloc);
    return success();
  }
};

/// A fill of 16- or 32-bit elements (the clearing of an output) is a memset
/// on the stream: no kernel, at copy-engine bandwidth. In a variant of
/// run-time selection only where it clears the variant's own buffer: a
/// kernel can be told whether the device chose its variant, a memset cannot.
struct FillAsMemset : OpRewritePattern<linalg::FillOp> {
  FillAsMemset(MLIRContext *context)
      : OpRewritePattern<linalg::FillOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::FillOp fill,
                                PatternRewriter &rewriter) const override {
    if (!isOnHost(fill) || !isMemsetFill(fill) ||
        (runsInVariant(fill) && !clearsVariantPrivateBuffer(fill)))
      return failure();
    gpu::MemsetOp::create(rewriter, fill.getLoc(), /*asyncToken=*/Type(),
                          ValueRange{}, fill.getOutputs()[0],
                          fill.getInputs()[0]);
    rewriter.eraseOp(fill);
    return success();
  }
};

/// A linalg op as a grid-stride kernel. With a dynamic extent, as many
/// blocks as any extent may need: the threads stride over whatever the
/// run-time extents hold.
struct LinalgAsGridStrideKernel
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  LinalgAsGridStrideKernel(MLIRContext *context, int64_t blockSize)
      : OpInterfaceRewritePattern<linalg::LinalgOp>(context, /*benefit=*/1),
        blockSize(blockSize) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isOnHost(op))
      return failure();
    std::optional<int64_t> points = getStaticIterationPoints(op);
    gpu::LaunchOp launch = createLaunch(
        rewriter, op.getLoc(),
        points ? std::clamp<int64_t>(
                     llvm::divideCeilSigned(*points, blockSize), 1,
                     kMaxGridStrideBlocks)
               : kMaxGridStrideBlocks,
        blockSize);
    Threads threads = gridThreads(rewriter, op.getLoc(), launch);
    Operation *inner = rewriter.clone(*op);
    lowerLinalgToThreads(rewriter, cast<linalg::LinalgOp>(inner), threads);
    rewriter.eraseOp(op);
    return success();
  }

  int64_t blockSize;
};

} // namespace

void mlir::pit::populateHostCodePatterns(RewritePatternSet &patterns,
                                         int64_t threadsPerBlock) {
  MLIRContext *context = patterns.getContext();
  patterns.add<AllocOnDevice, DeallocOnDevice, FillAsMemset>(context);
  patterns.add<LinalgAsGridStrideKernel>(context, threadsPerBlock);
}
