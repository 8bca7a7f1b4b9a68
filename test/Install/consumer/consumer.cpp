//===- consumer.cpp - Embeds PIT through its installed package ------------===//

#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "PIT/InitAllPIT.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

static const char *const kProgram = R"mlir(
func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>,
             %counts: memref<2xi32>, %positions: memref<2x64xi32>) {
  pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions
      : memref<64x64xf32>, memref<2xi32>, memref<2x64xi32>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>)
                outs(%c : memref<64x64xf32>)
  return
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::memref::MemRefDialect>();
  mlir::pit::registerAllPITDialects(registry);
  mlir::pit::registerAllPITPasses();
  mlir::MLIRContext context(registry);
  if (context.getOrLoadDialect<mlir::pit::PITDialect>())
    llvm::outs() << "consumer: pit dialect loaded\n";

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kProgram, &context);
  if (!module)
    return 1;
  auto pm = mlir::PassManager::on<mlir::ModuleOp>(&context);
  if (mlir::failed(
          mlir::parsePassPipeline("pit-mark-sparse{micro-tiles=32x1}", pm)) ||
      mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  if (mlir::failed(mlir::verify(*module)))
    return 1;
  llvm::outs() << "consumer: verified\n";
  return 0;
}
