//===- SimtLinalg.h - linalg ops spread over a launch's threads -*- C++ -*-===//
//
// The SIMT lowering of convert-pit-to-gpu: a linalg op on buffers becomes
// loops that the threads of a launch (a grid-stride kernel on the host, or a
// block inside an STile's kernel) share. It is exact for every linalg op on
// buffers: any affine indexing map, several outputs, `linalg.index`, and
// dynamic extents, which are read from the buffers at run time.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_SIMTLINALG_H
#define PIT_LIB_CONVERSION_PITTOGPU_SIMTLINALG_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {

/// The threads that share a loop: this thread's first index and the step.
struct Threads {
  Value first;
  Value stride;
};

/// This thread's global index and the number of threads of the launch.
Threads gridThreads(OpBuilder &b, Location loc, gpu::LaunchOp launch);

/// The threads of the launch's block, each on its own.
Threads blockThreads(gpu::LaunchOp launch);

/// `for (i = first; i < prod(extents); i += stride) body(delinearize(i))`.
void buildStridedLoops(
    OpBuilder &b, Location loc, ArrayRef<Value> extents, Threads threads,
    function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// Points of `op`'s iteration space, or nullopt where an extent is dynamic.
std::optional<int64_t> getStaticIterationPoints(linalg::LinalgOp op);

/// Replaces `op` (on buffers) by loops that `threads` share. Where each
/// output element belongs to exactly one point of the parallel loops (every
/// output indexed by a permutation of all of them), the threads split the
/// parallel points and each runs the reduction loops with the accumulators
/// in registers. Otherwise (an output indexed by a reduction loop, or not by
/// every parallel loop, or through a map that is not a permutation) two
/// threads could update one element, and the first thread alone runs the
/// whole nest in the op's loop order, as convert-linalg-to-loops does.
void lowerLinalgToThreads(RewriterBase &rewriter, linalg::LinalgOp op,
                          Threads threads);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_SIMTLINALG_H
