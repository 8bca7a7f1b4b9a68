//===- GPUPipeline.cpp - From marked linalg to PTX and host code ----------===//

#include "PIT/Conversion/Passes.h"
#include "PIT/Pipelines/Pipelines.h"
#include "PIT/Target/Chip.h"
#include "PIT/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::pit::addLowerToNVVMPasses(OpPassManager &pm,
                                     const PTXPipelineOptions &options) {
  pm.addPass(createPITCheckElementTypes());
  pm.addPass(createPITDecomposeAggregatedOps());
  addBufferizationPasses(pm);
  // B read k by k, as the tensor-core kernels read it.
  pm.addPass(createPITTransposeMatmulB());
  pm.addPass(createPITVerifyDynamicExtents());
  pm.addPass(createPITSparsify(options.getSparsifyOptions()));
  // The strategy, then the kernels it chose.
  pm.addPass(createPITGPUStrategy(options.getStrategyOptions()));
  ConvertPITToGPUOptions gpu;
  gpu.chip = options.chip;
  pm.addPass(createConvertPITToGPU(gpu));
  pm.addNestedPass<func::FuncOp>(createPITGPUCoalesceAllocations());
  pm.addPass(createCanonicalizerPass());
  // The canonicalizer hoists constants out of the launches; sunk back, they
  // stay constants in the kernels instead of becoming kernel arguments (a
  // division by an argument is a real division, by a constant a shift).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // From sm_90 on, each kernel may start while the one before it finishes.
  if (pit::getChipFacts(options.chip).dependentLaunch)
    pm.addNestedPass<gpu::GPUModuleOp>(createPITDependentLaunch());
  // Host-side gpu ops become a chain on one stream, joined by gpu.wait;
  // gpu-to-llvm only lowers the asynchronous forms of alloc and dealloc.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  // PTX ISA 8.1 (CUDA 12.1 and newer) has the vector atomics (red .v4.f32)
  // that the scattered writes use on sm_90.
  target.features = "+ptx81";
  pm.addPass(createGpuNVVMAttachTarget(target));
  // The kernels, then the host code around them.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVGPUToNVVMPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  // Vector ops that convert-gpu-to-nvvm leaves. Run before it, this pass
  // meets memrefs in workgroup memory, whose address space only the gpu
  // conversion knows, and reports a (harmless) failure to convert them.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertVectorToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  addLowerToLLVMPasses(pm);
}

/// Whether gpu-module-to-binary knows `format`; if not, adds a pass that
/// fails naming the option (upstream's error comes after the whole
/// pipeline has run, and names no option).
static bool hasKnownFormat(OpPassManager &pm, StringRef format) {
  if (llvm::is_contained({"isa", "bin", "fatbin"}, format))
    return true;
  pit::addPipelineError(pm,
                        "pit-to-ptx: format must be isa, bin or fatbin, not '" +
                            format + "'");
  return false;
}

void mlir::pit::buildPTXPipeline(OpPassManager &pm,
                                 const PTXPipelineOptions &options) {
  if (!addedOnModule(pm, "pit-to-ptx") || !hasKnownFormat(pm, options.format))
    return;
  addLowerToNVVMPasses(pm, options);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createPITCheckLowered());
}
