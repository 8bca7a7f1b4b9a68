//===- Pipelines.h - PIT's named pass pipelines -----------------*- C++ -*-===//
//
// The end-to-end pipelines, from linalg with pit.sparse marks to code that
// runs. Each is registered under a name (pit-opt --NAME) and can be built
// into a pass manager directly.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_PIPELINES_PIPELINES_H
#define PIT_PIPELINES_PIPELINES_H

#include "PIT/Conversion/Passes.h"
#include "PIT/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::pit {

/// The options every PIT pipeline passes on to pit-sparsify.
template <typename Derived>
struct SparsifyPipelineOptions : public PassPipelineOptions<Derived> {
  detail::PassOptions::Option<unsigned> candidate{
      *this, "candidate",
      llvm::cl::desc("Which micro-tile of each pit.sparse mark to use"),
      llvm::cl::init(0)};
  detail::PassOptions::Option<int64_t> pitLoop{
      *this, "pit-loop",
      llvm::cl::desc("The loop to gather along (-1: the analysis' choice)"),
      llvm::cl::init(-1)};
  detail::PassOptions::Option<std::string> latencyTable{
      *this, "latency-table",
      llvm::cl::desc("An STile database (JSON): choose among the variants "
                     "at run time")};
  detail::PassOptions::Option<int64_t> variant{
      *this, "variant",
      llvm::cl::desc("With a latency table: always run this variant (-1: "
                     "choose at run time; the number of variants: dense)"),
      llvm::cl::init(-1)};
  detail::PassOptions::Option<int64_t> sampleEvery{
      *this, "sample-every",
      llvm::cl::desc("With a latency table: choose from the counts of every "
                     "N-th segment, and detect only for the chosen variant "
                     "(0: detect every index, then choose)"),
      llvm::cl::init(16)};

  PITSparsifyOptions getSparsifyOptions() const {
    PITSparsifyOptions options;
    options.candidate = this->candidate;
    options.pitLoop = this->pitLoop;
    options.latencyTable = this->latencyTable;
    options.variant = this->variant;
    options.sampleEvery = this->sampleEvery;
    return options;
  }
};

struct CPUPipelineOptions : public SparsifyPipelineOptions<CPUPipelineOptions> {};

struct PTXPipelineOptions : public SparsifyPipelineOptions<PTXPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The GPU to compile for (sm_80, sm_90)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the kernels are embedded as: isa (PTX, compiled by "
                     "the driver when loaded), bin (cubin, needs ptxas) or "
                     "fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> mmaBlockColumns{
      *this, "mma-block-columns",
      llvm::cl::desc("Columns of C a tensor-core matmul block computes"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> mmaChunk{
      *this, "mma-chunk",
      llvm::cl::desc("Compacted k a tensor-core matmul block multiplies at a "
                     "time (0: the STile's k tile)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> mmaStages{
      *this, "mma-stages",
      llvm::cl::desc("Shared-memory stages of a tensor-core matmul block"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> mmaSpecialize{
      *this, "mma-specialize",
      llvm::cl::desc("Warp-specialise wgmma matmul blocks that copy whole "
                     "chunks (a copying warpgroup, mbarriers a stage)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> mmaTensorCopies{
      *this, "mma-tensor-copies",
      llvm::cl::desc("Warp-specialised dense matmul blocks on function "
                     "arguments copy with TMA"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> mmaClusterBlocks{
      *this, "mma-cluster-blocks",
      llvm::cl::desc("Blocks of a cluster that share B's chunks (TMA "
                     "multicast) in dense matmul blocks that copy with TMA: 1 "
                     "or 2"),
      llvm::cl::init(2)};
  PassOptions::Option<int64_t> multiprocessors{
      *this, "multiprocessors",
      llvm::cl::desc("Multiprocessors of the device the kernels will run on, "
                     "the strategy's estimate of a wave (0: the chip's "
                     "data-center part's)"),
      llvm::cl::init(0)};

  /// The options pit-to-ptx passes on to pit-gpu-strategy.
  PITGPUStrategyOptions getStrategyOptions() const {
    PITGPUStrategyOptions options;
    options.mmaBlockColumns = this->mmaBlockColumns;
    options.mmaChunk = this->mmaChunk;
    options.mmaStages = this->mmaStages;
    options.mmaSpecialize = this->mmaSpecialize;
    options.mmaTensorCopies = this->mmaTensorCopies;
    options.mmaClusterBlocks = this->mmaClusterBlocks;
    options.multiprocessors = this->multiprocessors;
    options.chip = this->chip;
    return options;
  }
};

/// pit-to-ptx: sparsify the marked ops, lower pit to gpu kernels, compile
/// the kernels for `chip` (PTX, or a cubin through ptxas) and the host code
/// to the LLVM dialect, calling the mgpu* runtime.
void buildPTXPipeline(OpPassManager &pm, const PTXPipelineOptions &options);

/// pit-to-ptx up to its last step: kernels in the NVVM dialect inside
/// gpu.module, host code in the LLVM dialect; neither compiled by NVPTX.
/// What pit-fuzz runs, where the backend's time would buy no PIT coverage.
void addLowerToNVVMPasses(OpPassManager &pm, const PTXPipelineOptions &options);

/// pit-cpu-pipeline: sparsify the marked ops, lower pit to loops, and
/// everything to the LLVM dialect, ready for mlir-runner or mlir-translate.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// pit-bufferize: tensors to memrefs (one-shot bufferization across function
/// boundaries, identity layouts), then results that are one of the
/// function's arguments dropped. Both pipelines start with it; on a program
/// already on memrefs it changes nothing.
void addBufferizationPasses(OpPassManager &pm);

/// The lowering to the LLVM dialect that the pipelines share, once their own
/// dialects are gone: memrefs, arith, index, control flow and functions.
void addLowerToLLVMPasses(OpPassManager &pm);

/// Whether `pm` runs on builtin.module, where a PIT pipeline's passes may
/// be added; if not, adds a pass that fails naming `pipeline` (adding them
/// would abort).
bool addedOnModule(OpPassManager &pm, StringRef pipeline);

/// Adds a pass that fails with `message`, in place of a pipeline that
/// cannot be built as asked (an invalid option).
void addPipelineError(OpPassManager &pm, const Twine &message);

/// Registers the named pipelines above.
void registerPITPipelines();

} // namespace mlir::pit

#endif // PIT_PIPELINES_PIPELINES_H
