//===- STileBody.h - Recognising the body of an STile -----------*- C++ -*-===//
//
// What the tensor-core lowerings look for in an STile body that pit-sparsify
// wrote: the dense tile's linalg.generic, the reads that fill its inputs and
// the write that takes its output back.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_STILEBODY_H
#define PIT_LIB_CONVERSION_PITTOGPU_STILEBODY_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::pit {

/// The dense tile computation of an STile body and the write of its result.
struct STileBody {
  linalg::GenericOp generic;
  SWriteOp write;
};

/// The body's generic and swrite, when it has one of each (the last of each
/// otherwise).
FailureOr<STileBody> findSTileBody(STileOp op);

/// The pit.sread that fills `tile`, a buffer of the STile body, or null.
SReadOp findRead(Value tile);

/// Whether `read` gathers along `axis` with micro-tiles `micro` long there.
bool isGatheredRead(SReadOp read, int64_t axis, int64_t micro);

/// The map (d0, d1, d2) -> (d_r0, d_r1): an operand of a 3-loop matmul or
/// SDDMM, such as A's (m, k).
AffineMap getOperandMap(MLIRContext *context, unsigned r0, unsigned r1);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_STILEBODY_H
