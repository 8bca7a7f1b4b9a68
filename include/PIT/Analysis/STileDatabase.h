//===- STileDatabase.h - Measured latencies of STile variants ----*- C++ -*-===//
//
// The STile database of run-time selection: for each operation it has been
// measured on (a linalg op of given loop extents and element types), the
// latency of each STile variant (micro-tile and PIT loop) as a function of
// the coverage the detection finds, and the latency of the dense fallback.
// It is a JSON file measured on one GPU (bench/run_benchmark.py --tables
// writes it) and read by pit-sparsify:
//
//   {"device": "NVIDIA H100 80GB HBM3", "date": "...", "command": "...",
//    "coverage": [0.0, 0.01, ..., 1.0],
//    "ops": [{"op": "linalg.matmul 4096x4096x4096 f16,f16,f32",
//             "dense_us": 180.0,
//             "variants": [{"micro_tile": [32, 1], "pit_loop": 2,
//                           "dense_tile": [32, 128, 32],
//                           "latency_us": [...one per coverage point...],
//                           "dense_latency_us": [...]}]}]}
//
// `dense_latency_us` (optional) is the dense fallback's latency on the
// variant's patterns, where dense work depends on the pattern (an SDDMM's
// C is read and written only where the mask is not zero); `dense_us` is
// one figure for all.
//
// A variant is a micro-tile, the loop it is gathered along, and optionally
// the dense tile (one extent per loop) its STile runs and, for an output
// scattered along the PIT loop, the `panel` of it a block owns (pit.stile
// `panel`): variants of one micro-tile with different tiles share the
// detection.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_ANALYSIS_STILEDATABASE_H
#define PIT_ANALYSIS_STILEDATABASE_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::pit {

/// One STile variant's latency table.
struct STileVariantLatencies {
  SmallVector<int64_t> microTile;
  unsigned pitLoop;
  /// The dense tile it was measured with (one extent per loop), kept as is
  /// by the lowering; empty: the analysis's default tile.
  SmallVector<int64_t> denseTile;
  /// The panel its STile runs with (pit.stile `panel`), or 0.
  int64_t panel = 0;
  /// Whether its panels group rows that share segments (pit.stile
  /// `group_rows`).
  bool groupRows = false;
  /// Microseconds, one per coverage point of the database.
  SmallVector<double> latencies;
  /// The dense fallback's on the variant's patterns, the same way; empty:
  /// the op's one dense figure.
  SmallVector<double> denseLatencies;
};

/// Everything measured for one operation.
struct OpLatencies {
  double dense;
  SmallVector<STileVariantLatencies, 2> variants;
};

class STileDatabase {
public:
  /// Reads the database at `path`; fails with the reason in `error`.
  static FailureOr<STileDatabase> load(StringRef path, std::string &error);

  /// The key an operation is measured under: its name, loop extents and
  /// operand element types ("linalg.matmul 4096x4096x4096 f16,f16,f32").
  static std::string getKey(linalg::LinalgOp op);

  /// What was measured for `op`, or null.
  const OpLatencies *lookup(linalg::LinalgOp op) const;

  ArrayRef<double> getCoverage() const { return coverage; }
  StringRef getDevice() const { return device; }

private:
  std::string device;
  SmallVector<double> coverage;
  llvm::StringMap<OpLatencies> ops;
};

} // namespace mlir::pit

#endif // PIT_ANALYSIS_STILEDATABASE_H
