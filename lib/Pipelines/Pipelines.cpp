//===- Pipelines.cpp - Register PIT's named pipelines ---------------------===//

#include "PIT/Pipelines/Pipelines.h"
#include "PIT/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

void mlir::pit::addBufferizationPasses(OpPassManager &pm) {
  // Function arguments become plain row-major memrefs, as the C entry points
  // and callers pass them; a result that is an argument's buffer (a linalg
  // op's destination, updated in place) is dropped, so that the function
  // writes into its argument, as a memref program does. Upstream's
  // drop-equivalent-buffer-results leaves public functions alone.
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  pm.addPass(createPITWriteResultsIntoArguments());
  // The buffers of intermediate results, freed after their last use.
  pm.addPass(createPITFreeTemporaries());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::pit::addLowerToLLVMPasses(OpPassManager &pm) {
  // Strided metadata expands into affine.apply, so affine goes after it.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // Math with an LLVM intrinsic becomes the intrinsic, the rest calls libm.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {

/// Fails on whatever it runs on with `message`: what a pipeline that
/// cannot be built (nested under another op, or given an invalid option)
/// gets in place of its passes, so that the run fails naming the cause
/// where adding the passes would abort or defer the error to upstream.
struct PipelineErrorPass
    : public PassWrapper<PipelineErrorPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelineErrorPass)

  PipelineErrorPass(std::string message) : message(std::move(message)) {}
  StringRef getArgument() const override { return "pit-pipeline-error"; }

  void runOnOperation() override {
    getOperation()->emitError() << message;
    signalPassFailure();
  }

  std::string message;
};

} // namespace

void mlir::pit::addPipelineError(OpPassManager &pm, const Twine &message) {
  pm.addPass(std::make_unique<PipelineErrorPass>(message.str()));
}

bool mlir::pit::addedOnModule(OpPassManager &pm, StringRef pipeline) {
  if (pm.getOpName() == ModuleOp::getOperationName())
    return true;
  // A ModuleOp pass added to a pass manager on another op would abort it.
  addPipelineError(pm, llvm::formatv("{0} runs on a builtin.module, not "
                                     "nested under '{1}': name it at the top "
                                     "of the pipeline (builtin.module({0}))",
                                     pipeline, pm.getOpAnchorName())
                           .str());
  return false;
}

void mlir::pit::registerPITPipelines() {
  PassPipelineRegistration<>(
      "pit-bufferize",
      "Bufferize a program on tensors into the memref form PIT's passes take: "
      "identity-layout memref arguments, and results written into the "
      "arguments they alias",
      [](OpPassManager &pm) {
        if (addedOnModule(pm, "pit-bufferize"))
          addBufferizationPasses(pm);
      });
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
