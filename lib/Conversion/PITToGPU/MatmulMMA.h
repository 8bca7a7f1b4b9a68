//===- MatmulMMA.h - Tensor-core kernels for matmul STiles ------*- C++ -*-===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_MATMULMMA_H
#define PIT_LIB_CONVERSION_PITTOGPU_MATMULMMA_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {

/// Replaces `op` by a tensor-core kernel when its body is the tile of an
/// f16 or bf16 matmul (or batch matmul) with f32 accumulation, gathered
/// along k: A's and B's gathered chunks go to shared memory (cp.async, 16
/// bytes, where a micro-tile row holds 8 elements or more), mma.sync
/// m16n8k16 accumulates in registers over the whole compacted k, and the
/// block adds its tile into C. Returns failure, leaving `op` alone, for any
/// other body.
LogicalResult lowerMatmulSTileToMMA(RewriterBase &rewriter, STileOp op);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_MATMULMMA_H
