//===- Passes.td - Conversions out of the pit dialect -------*- tablegen -*-===//

#ifndef PIT_CONVERSION_PASSES_TD
#define PIT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPITToSCF : Pass<"convert-pit-to-scf"> {
  let summary = "Lowers the pit ops to scf loops over memrefs, for the CPU";
  let description = [{
    Makes PIT programs executable on the CPU (under mlir-runner), which is
    how the test suite proves the transformation exact.

    * `pit.detect` becomes a scan over the micro-tile grid that appends the
      non-zero micro-tiles to their segment. It walks each segment's
      candidates in *descending* order, so that everything downstream is
      exercised on an index that is not sorted, as the GPU builds it.
    * `pit.stile` becomes a loop over segments and, inside, a loop nest over
      the tiles of the compacted domain; each tile's body runs in a
      `memref.alloca_scope`, so tile buffers do not pile up on the stack.
    * `pit.sread` and `pit.swrite` become element loops that go through the
      index along the gathered dimension, pad with zero on read, skip the
      padding on write, and apply the combiner.

    Matches: every pit op. Leaves alone: everything else, notably the
    `linalg` ops of the tile bodies (`convert-linalg-to-loops` lowers them).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // PIT_CONVERSION_PASSES_TD
