//===- DependentLaunch.cpp - Kernels that overlap the one before them -----===//

#include "PIT/Transforms/Passes.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITDEPENDENTLAUNCH
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The global by which a module tells libpit_cuda_runtime that its kernels
/// wait for their prerequisites (CudaRuntime.cpp reads it by this name).
constexpr llvm::StringLiteral kMarkerName = "pit_dependent_launch";

struct PITDependentLaunchPass
    : public pit::impl::PITDependentLaunchBase<PITDependentLaunchPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    bool anyKernel = false;
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel() || func.isExternal())
        continue;
      anyKernel = true;
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      // Dependents first: they only take what this kernel's blocks leave
      // free, and are scheduled once all of its blocks are running.
      NVVM::GriddepcontrolOp::create(b, loc,
                                     NVVM::GridDepActionKind::launch_dependents);
      NVVM::GriddepcontrolOp::create(b, loc, NVVM::GridDepActionKind::wait);
    }
    if (!anyKernel || module.lookupSymbol(kMarkerName))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Type i32 = b.getI32Type();
    LLVM::GlobalOp::create(b, module.getLoc(), i32, /*isConstant=*/true,
                           LLVM::Linkage::External, kMarkerName,
                           b.getI32IntegerAttr(1));
  }
};

} // namespace
