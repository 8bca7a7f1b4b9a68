//===- CPUPipeline.cpp - From marked linalg to LLVM for the CPU -----------===//

#include "PIT/Conversion/Passes.h"
#include "PIT/Pipelines/Pipelines.h"
#include "PIT/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::pit::buildCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options) {
  if (!addedOnModule(pm, "pit-cpu-pipeline"))
    return;
  pm.addPass(createPITCheckElementTypes());
  pm.addPass(createPITDecomposeAggregatedOps());
  addBufferizationPasses(pm);
  pm.addPass(createPITVerifyDynamicExtents());
  pm.addPass(createPITSparsify(options.getSparsifyOptions()));
  pm.addPass(createConvertPITToSCF());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  addLowerToLLVMPasses(pm);
  pm.addPass(createPITCheckLowered());
}
