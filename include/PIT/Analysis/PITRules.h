//===- PITRules.h - Permutation invariant rules of linalg ops ---*- C++ -*-===//
//
// The PIT rule analysis: given a linalg operation and one of its operands that
// is dynamically sparse, decide along which loops the non-zero micro-tiles of
// that operand may be gathered into dense tiles (and scattered back) without
// changing the result, which micro-tiles that allows, and which dense tile
// each one is gathered into. Everything it refuses carries the reason.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_ANALYSIS_PITRULES_H
#define PIT_ANALYSIS_PITRULES_H

#include "PIT/Dialect/PIT/IR/PITAttrs.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::pit {

/// What an iteration whose sparse element is zero does to the output element
/// it reaches. Skipping such iterations is exact only if it leaves the output
/// unchanged, or if every skipped output element ends up zero (then the
/// output is cleared first).
enum class SkippedIteration { Unchanged, Zero, Other };

/// The verdict on one loop of the operator.
struct LoopRule {
  unsigned loop;
  utils::IteratorType iteratorType;
  /// The dimension of the sparse operand this loop indexes, if any.
  std::optional<unsigned> sparseDim;
  /// Why a permutation of this loop would change the result; empty when the
  /// loop is permutation invariant.
  std::string notInvariantBecause;

  bool isPermutationInvariant() const { return notInvariantBecause.empty(); }
};

/// A legal way to gather one micro-tile shape: along `pitLoop`, into dense
/// tiles of shape `denseTile` (one extent per loop).
struct STileRule {
  SmallVector<int64_t> microTile;
  unsigned pitLoop;
  /// The dimension of the sparse operand that `pitLoop` indexes.
  unsigned sparseDim;
  SmallVector<int64_t> denseTile;
  /// Whether lowerings must run exactly `denseTile` (a measured variant)
  /// rather than shape their blocks from it.
  bool keepTile = false;
  /// With a scattered output: the extent of the PIT loop whose output a
  /// lowering block owns and combines on chip (pit.stile `panel`), or 0.
  int64_t panel = 0;
  /// With a panel: whether the lowering groups the rows that share segments
  /// into panels (pit.stile `group_rows`).
  bool groupRows = false;
  /// Whether the output is written back through the index (the PIT loop is
  /// parallel), rather than at its natural place.
  bool scattersOutput;
  /// How tiles that reach the same output elements are combined; set when
  /// the operator reduces.
  std::optional<CombinerKind> combiner;
};

class PITRules {
public:
  /// Analyses `op` with operand number `sparseOperand` (inputs, then
  /// outputs) taken as dynamically sparse.
  PITRules(linalg::LinalgOp op, unsigned sparseOperand);

  /// Whether any loop can carry a PIT rule for the sparse operand. When not,
  /// getNoRuleReason() says why ("no rule, because ...").
  bool hasRules() const { return noRuleReason.empty(); }
  StringRef getNoRuleReason() const { return noRuleReason; }

  ArrayRef<LoopRule> getLoopRules() const { return loopRules; }
  SkippedIteration getSkippedIteration() const { return skipped; }
  std::optional<CombinerKind> getCombiner() const { return combiner; }
  ArrayRef<int64_t> getLoopExtents() const { return loopExtents; }
  AffineMap getSparseMap() const { return sparseMap; }

  /// The loops along which the micro-tiles of the sparse operand may be
  /// gathered: permutation invariant and indexing the sparse operand.
  SmallVector<unsigned> getPITLoops() const;

  /// Every legal way to gather `microTile`, best first. Fails, with the
  /// reason in `why`, when the micro-tile does not fit the operand or no
  /// loop carries a rule for it.
  FailureOr<SmallVector<STileRule>> getSTileRules(ArrayRef<int64_t> microTile,
                                                  std::string &why) const;

  /// Gives `rule` the dense tile `tile` (one extent per loop), to be kept
  /// as is by lowerings. Fails, with the reason in `why`, when the tile does
  /// not fit: extents that do not divide their loop, a gathered extent that
  /// is not whole micro-tiles, or another loop of the sparse operand whose
  /// extent is not its micro-tile's (a tile lies in one segment).
  LogicalResult setDenseTile(STileRule &rule, ArrayRef<int64_t> tile,
                             std::string &why) const;

  /// Gives `rule` a panel of `rows` along its PIT loop. Fails, with the
  /// reason in `why`, unless the output is scattered along that loop (a
  /// parallel loop that segments add into) and the panel is whole
  /// micro-tiles that split the loop.
  LogicalResult setPanel(STileRule &rule, int64_t rows,
                         std::string &why) const;

  /// Prints the verdict on every loop, one per line.
  void print(raw_ostream &os) const;

private:
  void analyseBody(linalg::LinalgOp op);
  void analyseLoops(linalg::LinalgOp op);
  STileRule makeSTileRule(ArrayRef<int64_t> microTile, unsigned pitLoop) const;

  unsigned sparseOperand;
  SmallVector<int64_t> sparseShape;
  AffineMap sparseMap;
  SmallVector<int64_t> loopExtents;
  SmallVector<LoopRule> loopRules;
  SkippedIteration skipped = SkippedIteration::Other;
  std::optional<CombinerKind> combiner;
  /// Why the reduction has no usable combiner; empty if it has one or if the
  /// operator does not reduce.
  std::string combinerProblem;
  std::string noRuleReason;
};

} // namespace mlir::pit

#endif // PIT_ANALYSIS_PITRULES_H
