//===- CheckLowered.cpp - Refuse ops a pipeline left unlowered ------------===//

#include "PIT/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITCHECKLOWERED
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Whether `op` may be in a pipeline's output: what LLVM IR translation
/// takes, the GPU dialect's offloading included (the compiled kernels and
/// their launches, whose operands gpu-to-llvm made LLVM values).
bool isLowered(Operation *op) {
  return isa<ModuleOp, gpu::BinaryOp, gpu::LaunchFuncOp>(op) ||
         isa<LLVM::LLVMDialect>(op->getDialect());
}

struct PITCheckLoweredPass
    : public pit::impl::PITCheckLoweredBase<PITCheckLoweredPass> {
  void runOnOperation() override {
    // The first op of each name left, and how many there are, in the
    // order they come.
    llvm::MapVector<OperationName, std::pair<Operation *, int64_t>> left;
    getOperation()->walk([&](Operation *op) {
      if (isLowered(op))
        return;
      auto [it, inserted] = left.try_emplace(op->getName(), op, 0);
      ++it->second.second;
    });
    // Casts left by a conversion are a symptom of the ops it could not
    // convert: named only when nothing else is left.
    bool onlyCasts = llvm::all_of(left, [](auto &entry) {
      return isa<UnrealizedConversionCastOp>(entry.second.first);
    });
    for (auto &[name, firstAndCount] : left) {
      auto [first, count] = firstAndCount;
      if (!onlyCasts && isa<UnrealizedConversionCastOp>(first))
        continue;
      first->emitError() << "'" << name << "' was left unlowered (" << count
                         << (count == 1 ? " op" : " ops")
                         << "): no pass of the pipeline lowers it to the "
                            "LLVM dialect";
    }
    if (!left.empty())
      signalPassFailure();
  }
};

} // namespace
