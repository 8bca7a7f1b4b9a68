//===- DeviceSelection.h - Run-time selection on the device -----*- C++ -*-===//
//
// pit.select on the GPU, without a round trip through the host: a kernel
// sums the counts and evaluates the cost model into a device buffer, and
// every variant's kernels are launched, each running only when the device
// chose its variant.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_DEVICESELECTION_H
#define PIT_LIB_CONVERSION_PITTOGPU_DEVICESELECTION_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::pit {

/// Lowers `op`, whose index drives scf.index_switch ops over the variants'
/// kernels (the host code of their cases already lowered to gpu ops):
///
/// * a one-block kernel sums each distinct counts buffer and writes the
///   chosen index (buildVariantChoice) into a device buffer;
/// * each switch is replaced by all of its regions in order, and each kernel
///   of a region is guarded by a read of that buffer: it does its work only
///   when its region is the chosen one. Allocations and deallocations run
///   whatever the choice.
///
/// The host then never waits for the device: the call stays stream-ordered.
/// Fails, with a diagnostic and nothing changed, when a region holds host
/// work other than launches, allocations and pure ops (a host op cannot be
/// told what the device chose).
LogicalResult lowerSelectOnDevice(RewriterBase &rewriter, SelectOp op);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_DEVICESELECTION_H
