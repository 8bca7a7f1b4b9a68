//===- TestPITRules.cpp - Print the PIT rules of marked ops ---------------===//
//
// `--test-pit-rules` prints, as remarks on every op with a `pit.sparse` mark,
// what the PIT rule analysis decided: the verdict on each loop, and for each
// candidate micro-tile the legal STiles or the reason there is none.
//
//===----------------------------------------------------------------------===//

#include "PIT/Analysis/PITRules.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

std::string formatShape(ArrayRef<int64_t> shape, StringRef separator) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, separator);
  return text;
}

struct TestPITRulesPass
    : public PassWrapper<TestPITRulesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPITRulesPass)

  StringRef getArgument() const final { return "test-pit-rules"; }
  StringRef getDescription() const final {
    return "Print the PIT rules of every op with a pit.sparse mark";
  }

  void runOnOperation() override {
    getOperation()->walk([](linalg::LinalgOp op) {
      auto mark = op->getAttrOfType<SparseAttr>(PITDialect::getSparseAttrName());
      if (!mark)
        return;
      PITRules rules(op, mark.getOperand());
      std::string loops;
      llvm::raw_string_ostream os(loops);
      rules.print(os);
      for (StringRef line : llvm::split(StringRef(loops).trim(), '\n'))
        if (!line.empty())
          op->emitRemark() << line;
      if (!rules.hasRules()) {
        op->emitRemark() << rules.getNoRuleReason();
        return;
      }
      for (DenseI64ArrayAttr microTile : mark.getMicroTiles()) {
        std::string why;
        FailureOr<SmallVector<STileRule>> stiles =
            rules.getSTileRules(microTile.asArrayRef(), why);
        std::string name = formatShape(microTile.asArrayRef(), "x");
        if (failed(stiles)) {
          op->emitRemark() << "micro-tile " << name << ": " << why;
          continue;
        }
        for (const STileRule &stile : *stiles) {
          InFlightDiagnostic remark = op->emitRemark();
          remark << "micro-tile " << name << ": along loop " << stile.pitLoop
                 << " into dense tile [" << formatShape(stile.denseTile, ", ")
                 << "]";
          if (stile.scattersOutput)
            remark << ", scattered";
          if (stile.combiner)
            remark << ", combined by " << stringifyCombinerKind(*stile.combiner);
        }
      }
    });
  }
};

} // namespace

namespace mlir::pit::test {
void registerTestPITRulesPass() { PassRegistration<TestPITRulesPass>(); }
} // namespace mlir::pit::test
