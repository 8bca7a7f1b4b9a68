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
/// kernels and scf.if ops on conditions pure ops compute from it (the host
/// code of their regions already lowered to gpu ops):
///
/// * a one-block kernel sums each distinct counts buffer and writes the
///   chosen index (buildVariantChoice) into a device buffer, and into slot
///   `slot` of the runtime's record of choices (pitCudaChoiceRecord, asked
///   at the function's entry) when there is such a slot;
/// * each switch is replaced by all of its regions in order, each if by its
///   then-region, and each kernel of a region is guarded by a read of that
///   buffer: it does its work only when its region runs for that choice.
///   The kernels of a switch's later regions read it before they wait for
///   the kernels before them, and end at once where it leaves them out.
///   Allocations, deallocations and the memsets of buffers only those
///   regions use run whatever the choice (the memsets at the start).
///
/// The host then never waits for the device: the call stays stream-ordered.
/// Fails, with a diagnostic and nothing changed, when a region holds host
/// work other than launches, allocations, such memsets and pure ops (a host
/// op cannot be told what the device chose).
LogicalResult lowerSelectOnDevice(RewriterBase &rewriter, SelectOp op,
                                  int64_t slot);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_DEVICESELECTION_H
