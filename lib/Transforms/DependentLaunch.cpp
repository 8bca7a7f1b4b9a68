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

constexpr llvm::StringLiteral kLaunchDependents =
    "griddepcontrol.launch_dependents;";
constexpr llvm::StringLiteral kWait = "griddepcontrol.wait;";

/// Emits `instruction` as inline PTX that clobbers memory. The NVVM
/// intrinsics of griddepcontrol are declared not to touch memory, so LLVM
/// may move loads of the kernel above them; the wait must come before any
/// read of what the kernel before it wrote.
void createMemoryOrderedAsm(OpBuilder &b, Location loc,
                            llvm::StringRef instruction) {
  LLVM::InlineAsmOp::create(
      b, loc, /*res=*/Type(), /*operands=*/ValueRange{},
      b.getStringAttr(instruction), b.getStringAttr("~{memory}"),
      /*has_side_effects=*/b.getUnitAttr(), /*is_align_stack=*/nullptr,
      LLVM::TailCallKindAttr::get(b.getContext(), LLVM::TailCallKind::None),
      /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr);
}

/// Whether `kernel` already starts as this pass makes it start.
bool startsWithLaunchDependents(gpu::GPUFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  auto first = dyn_cast<LLVM::InlineAsmOp>(entry.front());
  return first && first.getAsmString() == kLaunchDependents;
}

/// The places in `kernel` marked as where it starts to depend on the
/// kernels before it (pit.dependent_wait: a guarded kernel that the choice
/// leaves out ends before them).
SmallVector<Operation *> findDependentWaits(gpu::GPUFuncOp kernel) {
  SmallVector<Operation *> marks;
  kernel.walk([&](Operation *op) {
    if (op->hasAttr(PITDialect::getDependentWaitAttrName()))
      marks.push_back(op);
  });
  return marks;
}

struct PITDependentLaunchPass
    : public pit::impl::PITDependentLaunchBase<PITDependentLaunchPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    bool anyKernel = false;
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel() || func.isExternal())
        continue;
      anyKernel = true;
      if (startsWithLaunchDependents(func))
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      // Dependents first: they only take what this kernel's blocks leave
      // free, and are scheduled once all of its blocks are running.
      createMemoryOrderedAsm(b, loc, kLaunchDependents);
      // The wait goes where the kernel marks it, or at its start. A kernel
      // that ends without waiting completes only after the kernels before
      // it all the same (bench/probes/dependent_completion.cu on an H100: a
      // kernel waiting after ones that ended at once, 86-100 us before the
      // one before them wrote, always read that write), so its dependents'
      // wait still covers them.
      SmallVector<Operation *> marks = findDependentWaits(func);
      if (marks.empty())
        createMemoryOrderedAsm(b, loc, kWait);
      for (Operation *mark : marks) {
        b.setInsertionPoint(mark);
        createMemoryOrderedAsm(b, mark->getLoc(), kWait);
        mark->erase();
      }
    }
    if (!anyKernel || module.lookupSymbol(kMarkerName))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    LLVM::GlobalOp::create(b, module.getLoc(), b.getI32Type(),
                           /*isConstant=*/true, LLVM::Linkage::External,
                           kMarkerName, b.getI32IntegerAttr(1));
  }
};

} // namespace
