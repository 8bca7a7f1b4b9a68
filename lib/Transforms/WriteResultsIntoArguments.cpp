//===- WriteResultsIntoArguments.cpp - Drop results that are arguments ----===//

#include "PIT/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITWRITERESULTSINTOARGUMENTS
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The function's only return, or null when it has none or several.
func::ReturnOp getOnlyReturn(func::FuncOp func) {
  func::ReturnOp only;
  for (Block &block : func.getBody())
    if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator())) {
      if (only)
        return nullptr;
      only = ret;
    }
  return only;
}

/// The argument `value` is, through memref.casts, or null.
BlockArgument getArgumentBehindCasts(func::FuncOp func, Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &func.getBody().front())
    return nullptr;
  return argument;
}

struct PITWriteResultsIntoArgumentsPass
    : public pit::impl::PITWriteResultsIntoArgumentsBase<
          PITWriteResultsIntoArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      func::ReturnOp ret = func.isExternal() ? nullptr : getOnlyReturn(func);
      if (!ret)
        continue;
      BitVector dropped(func.getNumResults());
      // Result number -> the argument that holds it.
      DenseMap<unsigned, unsigned> argumentOf;
      SmallVector<Value> kept;
      for (auto [number, value] : llvm::enumerate(ret.getOperands())) {
        if (BlockArgument argument = getArgumentBehindCasts(func, value)) {
          dropped.set(number);
          argumentOf[number] = argument.getArgNumber();
        } else {
          kept.push_back(value);
        }
      }
      if (dropped.none())
        continue;
      if (failed(func.eraseResults(dropped)))
        return signalPassFailure();
      ret.getOperandsMutable().assign(kept);

      // Calls get the argument where they used the dropped result.
      std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
      if (!uses)
        continue;
      for (SymbolTable::SymbolUse use : *uses) {
        auto call = dyn_cast<func::CallOp>(use.getUser());
        if (!call)
          continue;
        rewriter.setInsertionPoint(call);
        auto newCall =
            func::CallOp::create(rewriter, call.getLoc(), func, call.getOperands());
        SmallVector<Value> replacements;
        unsigned next = 0;
        for (unsigned number = 0; number < call.getNumResults(); ++number) {
          if (!dropped.test(number)) {
            replacements.push_back(newCall.getResult(next++));
            continue;
          }
          Value argument = call.getOperand(argumentOf[number]);
          Type type = call.getResult(number).getType();
          if (argument.getType() != type)
            argument =
                memref::CastOp::create(rewriter, call.getLoc(), type, argument);
          replacements.push_back(argument);
        }
        rewriter.replaceOp(call, replacements);
      }
    }
  }
};

} // namespace
