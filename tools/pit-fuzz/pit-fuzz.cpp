//===- pit-fuzz.cpp - Coverage-guided fuzzing of PIT's lowerings ----------===//
//
// libFuzzer's entry point. Each input is MLIR text. It is parsed and
// verified; a module that verifies goes through the CPU pipeline and, in a
// copy, through the GPU pipeline down to NVVM (pit-to-ptx without the NVPTX
// backend, whose time buys no coverage of PIT's code). Diagnostics are the
// expected answer to bad input and are dropped; a crash, a sanitizer report
// or an LLVM fatal error is what the fuzzer looks for.
//
// Built with -DLLVM_USE_SANITIZE_COVERAGE=ON it links libFuzzer
// (scripts/fuzz.sh); otherwise DummyPITFuzz.cpp gives it a main that runs
// the inputs named on the command line, which is how lit replays the crashes
// the fuzzer found (test/Fuzz).
//
//===----------------------------------------------------------------------===//

#include "PIT/InitAllPIT.h"
#include "PIT/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Regex.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

namespace {

/// Every dialect pit-opt knows, registered once: making a context per input
/// copies it, where registering would redo the work every time.
const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry();
    registerAllDialects(*registry);
    registerAllExtensions(*registry);
    pit::registerAllPITDialects(*registry);
    return registry;
  }();
  return *registry;
}

/// Runs `module` through a pipeline built by `build`; a failure (a
/// diagnostic) is a good answer to bad input, so only the run matters.
template <typename BuildPipeline>
void runPipeline(ModuleOp module, BuildPipeline build) {
  PassManager pm(module->getName());
  build(pm);
  (void)pm.run(module);
}

/// Whether `text` reaches a crash known to be inside upstream MLIR 22's
/// parser, which PIT cannot fix and the fuzzer would otherwise find again
/// and again instead of PIT's own (docs/Fuzzing.md lists them with their
/// upstream bugs):
/// - a linalg op's `permutation =` or `dimensions =` not followed by a
///   well-formed integer list: LinalgOps.cpp's parseDenseI64ArrayAttr sets
///   the null attribute a failed parse returns (llvm/llvm-project#132747);
/// - `array<index: ...>`: the dense array parser asks index for a bit width
///   (llvm/llvm-project#179045).
bool reachesUpstreamParserCrash(llvm::StringRef text) {
  static const llvm::Regex integerList(
      "^[[:space:]]*=[[:space:]]*\\[[[:space:]]*(-?[0-9]+[[:space:]]*"
      "(,[[:space:]]*-?[0-9]+[[:space:]]*)*)?\\]");
  for (llvm::StringRef keyword : {"permutation", "dimensions"}) {
    for (size_t at = text.find(keyword); at != llvm::StringRef::npos;
         at = text.find(keyword, at + 1)) {
      llvm::StringRef rest = text.drop_front(at + keyword.size());
      if (rest.ltrim().starts_with("=") && !integerList.match(rest))
        return true;
    }
  }
  return text.contains("array<index");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler dropDiagnostics(
      &context, [](Diagnostic &) { return success(); });

  // MLIR's lexer and the C functions it calls read the byte past the end,
  // which must be a NUL, as it is in the files and strings the tools parse;
  // libFuzzer's bytes have none after them.
  std::string text(reinterpret_cast<const char *>(data), size);
  if (reachesUpstreamParserCrash(text))
    return -1; // Rejected: libFuzzer keeps it out of the corpus.
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || failed(verify(*module)))
    return 0;

  OwningOpRef<ModuleOp> copy = module->clone();
  runPipeline(*copy, [](OpPassManager &pm) {
    pit::buildCPUPipeline(pm, pit::CPUPipelineOptions());
  });
  // Both chips' kernels (mma.sync, and wgmma with TMA), chosen by a bit of
  // the input so that each input always takes the same path.
  pit::PTXPipelineOptions gpu;
  gpu.chip = size % 2 ? "sm_80" : "sm_90a";
  runPipeline(*module,
              [&](OpPassManager &pm) { pit::addLowerToNVVMPasses(pm, gpu); });
  return 0;
}
