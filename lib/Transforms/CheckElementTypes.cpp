//===- CheckElementTypes.cpp - Refuse types LLVM cannot hold --------------===//

#include "PIT/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::pit {
#define GEN_PASS_DEF_PITCHECKELEMENTTYPES
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

struct PITCheckElementTypesPass
    : public pit::impl::PITCheckElementTypesBase<PITCheckElementTypesPass> {
  void runOnOperation() override {
    LLVMTypeConverter converter(&getContext());
    llvm::DenseSet<Type> reported;
    bool failed = false;
    // Reports `type` at `op` once if neither it nor its elements convert.
    auto check = [&](Operation *op, Type type) {
      if (auto shaped = dyn_cast<ShapedType>(type))
        type = shaped.getElementType();
      if (!type.isIntOrIndexOrFloat() || converter.convertType(type) ||
          !reported.insert(type).second)
        return;
      op->emitError() << "element type " << type
                      << " has no LLVM type: PIT cannot lower it";
      failed = true;
    };
    // Outer ops first: a function's signature is reported at the function,
    // not at an op of its body (a named op's body has no location).
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto function = dyn_cast<FunctionOpInterface>(op)) {
        for (Type type : function.getArgumentTypes())
          check(op, type);
        for (Type type : function.getResultTypes())
          check(op, type);
      }
      for (Type type : op->getResultTypes())
        check(op, type);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            check(op, argument.getType());
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
