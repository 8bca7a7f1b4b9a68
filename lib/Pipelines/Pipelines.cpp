//===- Pipelines.cpp - Register PIT's named pipelines ---------------------===//

#include "PIT/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::pit::addLowerToLLVMPasses(OpPassManager &pm) {
  // Strided metadata expands into affine.apply, so affine goes after it.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::pit::registerPITPipelines() {
  PassPipelineRegistration<PTXPipelineOptions>(
      "pit-to-ptx",
      "Sparsify the pit.sparse-marked linalg ops, lower them to GPU kernels "
      "compiled for the chip (PTX or cubin), and the host code to the LLVM "
      "dialect calling the mgpu* runtime",
      buildPTXPipeline);
  PassPipelineRegistration<CPUPipelineOptions>(
      "pit-cpu-pipeline",
      "Sparsify the pit.sparse-marked linalg ops and lower everything to the "
      "LLVM dialect for the CPU",
      buildCPUPipeline);
}
