//===- PITAttrs.cpp - pit dialect attributes ------------------------------===//

#include "PIT/Dialect/PIT/IR/PITAttrs.h"

#include "PIT/Dialect/PIT/IR/PITDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pit;

/// Parses `32x1, 1x64`: micro-tile shapes written like the static part of a
/// tensor type, so that they read the same way as the shapes they tile.
static ParseResult
parseMicroTileShapes(AsmParser &parser,
                     SmallVector<DenseI64ArrayAttr> &microTiles) {
  return parser.parseCommaSeparatedList([&]() -> ParseResult {
    SmallVector<int64_t> extents;
    if (parser.parseDimensionList(extents, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return failure();
    microTiles.push_back(DenseI64ArrayAttr::get(parser.getContext(), extents));
    return success();
  });
}

static void printMicroTileShapes(AsmPrinter &printer,
                                 ArrayRef<DenseI64ArrayAttr> microTiles) {
  llvm::interleaveComma(microTiles, printer, [&](DenseI64ArrayAttr tile) {
    llvm::interleave(tile.asArrayRef(), printer, "x");
  });
}

#include "PIT/Dialect/PIT/IR/PITEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "PIT/Dialect/PIT/IR/PITAttrs.cpp.inc"

void PITDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "PIT/Dialect/PIT/IR/PITAttrs.cpp.inc"
      >();
}

LogicalResult
SparseAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   unsigned operand, ArrayRef<DenseI64ArrayAttr> microTiles) {
  if (microTiles.empty())
    return emitError() << "expects at least one candidate micro-tile";
  int64_t rank = microTiles.front().size();
  for (DenseI64ArrayAttr tile : microTiles) {
    if (tile.empty())
      return emitError() << "expects micro-tiles of rank at least 1";
    if (tile.size() != rank)
      return emitError() << "expects all micro-tiles to have the same rank, "
                            "got ranks "
                         << rank << " and " << tile.size();
    if (llvm::any_of(tile.asArrayRef(), [](int64_t e) { return e <= 0; })) {
      InFlightDiagnostic diag = emitError();
      diag << "expects positive micro-tile extents, got ";
      llvm::interleave(
          tile.asArrayRef(), [&](int64_t e) { diag << e; },
          [&] { diag << "x"; });
      return diag;
    }
  }
  return success();
}

LogicalResult
MmaConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> block, int64_t stages, bool specialize,
                      bool tensorCopies, int64_t clusterBlocks,
                      int64_t kSplits) {
  // Whole mma steps: 16 rows, 8 columns, 16 of k (m16n8k16).
  if (block.size() != 3 || block[0] <= 0 || block[0] % 16 != 0 ||
      block[1] <= 0 || block[1] % 8 != 0 || block[2] <= 0 ||
      block[2] % 16 != 0)
    return emitError() << "expects a block of [rows, columns, k] in whole "
                          "mma steps (multiples of 16, 8 and 16)";
  if (stages < 1 || stages > 4)
    return emitError() << "expects 1 to 4 stages, got " << stages;
  // The blocks of a cluster share B's chunks in halves (or not at all).
  if (clusterBlocks != 1 && clusterBlocks != 2)
    return emitError() << "expects clusters of 1 or 2 blocks, got "
                       << clusterBlocks;
  if (kSplits < 1 || kSplits > kMaxKSplits)
    return emitError() << "expects 1 to " << kMaxKSplits
                       << " splits of k, got " << kSplits;
  return success();
}

unsigned SparseAttr::getMicroTileRank() const {
  return getMicroTiles().front().size();
}
