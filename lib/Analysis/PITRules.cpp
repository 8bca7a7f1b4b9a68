//===- PITRules.cpp - Permutation invariant rules of linalg ops -----------===//

#include "PIT/Analysis/PITRules.h"
#include "PIT/Dialect/PIT/IR/PITCombiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::pit;

/// Prints an IR object (an affine map or expression) for a message.
template <typename T>
static std::string printToString(T object) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << object;
  return text;
}

//===----------------------------------------------------------------------===//
// The reduction combiner
//===----------------------------------------------------------------------===//

/// The combiner an arith operation stands for, if it is associative and
/// commutative.
static std::optional<CombinerKind> getCombinerKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<CombinerKind>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return CombinerKind::Add; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return CombinerKind::Mul; })
      .Case([](arith::MaxSIOp) { return CombinerKind::MaxSI; })
      .Case([](arith::MinSIOp) { return CombinerKind::MinSI; })
      .Case([](arith::MaxUIOp) { return CombinerKind::MaxUI; })
      .Case([](arith::MinUIOp) { return CombinerKind::MinUI; })
      .Case([](arith::MaximumFOp) { return CombinerKind::MaximumF; })
      .Case([](arith::MinimumFOp) { return CombinerKind::MinimumF; })
      .Case([](arith::AndIOp) { return CombinerKind::AndI; })
      .Case([](arith::OrIOp) { return CombinerKind::OrI; })
      .Case([](arith::XOrIOp) { return CombinerKind::XOrI; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `value` is computed, inside the body, from `arg`.
static bool dependsOn(Value value, BlockArgument arg) {
  if (value == arg)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != arg.getOwner())
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value operand) { return dependsOn(operand, arg); });
}

/// Finds `acc = combine(acc, contribution)` at the yield of a reducing body,
/// where the contribution does not read the accumulator. Returns the reason
/// on failure.
static FailureOr<CombinerKind> matchCombiner(Block &body, BlockArgument acc,
                                             std::string &why) {
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *combine = yielded.getDefiningOp();
  if (!combine || combine->getBlock() != &body ||
      combine->getNumOperands() != 2 || !llvm::is_contained(combine->getOperands(), acc)) {
    why = "the body does not yield a combination of the accumulator with "
          "the loop's contribution";
    return failure();
  }
  std::optional<CombinerKind> kind = getCombinerKind(combine);
  if (!kind) {
    why = ("the body combines the accumulator with " +
           combine->getName().getStringRef() +
           ", which is not associative and commutative")
              .str();
    return failure();
  }
  Value contribution = combine->getOperand(0) == acc ? combine->getOperand(1)
                                                     : combine->getOperand(0);
  if (dependsOn(contribution, acc) ||
      llvm::any_of(acc.getUsers(), [&](Operation *user) { return user != combine; })) {
    why = "the accumulator is read outside its combiner";
    return failure();
  }
  return *kind;
}

/// Whether combining a value twice is the same as once (max, min, and, or):
/// then a skipped zero could be compensated by combining it once.
static bool isIdempotent(CombinerKind kind) {
  switch (kind) {
  case CombinerKind::MaxSI:
  case CombinerKind::MinSI:
  case CombinerKind::MaxUI:
  case CombinerKind::MinUI:
  case CombinerKind::MaximumF:
  case CombinerKind::MinimumF:
  case CombinerKind::AndI:
  case CombinerKind::OrI:
    return true;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// What a skipped iteration does
//===----------------------------------------------------------------------===//

namespace {
/// The abstract value of a body value when the sparse element is zero.
enum class Abstract { Zero, Accumulator, Unknown };

/// Evaluates the body with the sparse block argument set to zero, tracking
/// only "zero", "the unchanged accumulator" and "anything else". This is
/// what decides whether an iteration over a zero micro-tile can be skipped.
class ZeroEvaluator {
public:
  ZeroEvaluator(BlockArgument sparseArg, BlockArgument accumulator)
      : sparseArg(sparseArg), accumulator(accumulator) {}

  Abstract evaluate(Value value) {
    if (value == sparseArg)
      return Abstract::Zero;
    if (value == accumulator)
      return Abstract::Accumulator;
    if (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()))
      return Abstract::Zero;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != sparseArg.getOwner())
      return Abstract::Unknown;
    return evaluate(def);
  }

private:
  Abstract evaluate(Operation *op) {
    auto operand = [&](unsigned i) { return evaluate(op->getOperand(i)); };
    // x * 0 = 0, x & 0 = 0, 0 / x = 0 (for x not zero).
    if (isa<arith::MulFOp, arith::MulIOp, arith::AndIOp>(op))
      return operand(0) == Abstract::Zero || operand(1) == Abstract::Zero
                 ? Abstract::Zero
                 : Abstract::Unknown;
    if (isa<arith::DivFOp>(op))
      return operand(0) == Abstract::Zero && operand(1) == Abstract::Unknown
                 ? Abstract::Zero
                 : Abstract::Unknown;
    // x + 0 = x, x - 0 = x, x | 0 = x, x ^ 0 = x.
    if (isa<arith::AddFOp, arith::AddIOp, arith::OrIOp, arith::XOrIOp>(op)) {
      Abstract lhs = operand(0), rhs = operand(1);
      if (lhs == Abstract::Zero)
        return rhs;
      return rhs == Abstract::Zero ? lhs : Abstract::Unknown;
    }
    if (isa<arith::SubFOp, arith::SubIOp>(op))
      return operand(1) == Abstract::Zero ? operand(0) : Abstract::Unknown;
    // Sign changes and conversions keep zero zero.
    if (isa<arith::NegFOp, arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp,
            arith::FPToSIOp, arith::FPToUIOp>(op))
      return operand(0) == Abstract::Zero ? Abstract::Zero : Abstract::Unknown;
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      Abstract whenTrue = operand(1), whenFalse = operand(2);
      return whenTrue == whenFalse ? whenTrue : Abstract::Unknown;
    }
    return Abstract::Unknown;
  }

  BlockArgument sparseArg;
  BlockArgument accumulator;
};
} // namespace

//===----------------------------------------------------------------------===//
// PITRules
//===----------------------------------------------------------------------===//

PITRules::PITRules(linalg::LinalgOp op, unsigned sparseOperand)
    : sparseOperand(sparseOperand) {
  OpOperand &sparse = op->getOpOperand(sparseOperand);
  sparseMap = op.getMatchingIndexingMap(&sparse);
  if (auto type = dyn_cast<ShapedType>(sparse.get().getType()))
    sparseShape = llvm::to_vector(type.getShape());
  loopExtents = op.getStaticLoopRanges();

  auto refuse = [&](const Twine &reason) {
    noRuleReason = ("no rule, because " + reason).str();
  };
  if (op.getNumDpsInits() != 1)
    refuse("the operation has " + Twine(op.getNumDpsInits()) +
           " outputs and a rule scatters back into one");
  else if (llvm::any_of(loopExtents, ShapedType::isDynamic))
    refuse("its loop ranges are not static");
  else if (Type element = getElementTypeOrSelf(sparse.get().getType());
           !element.isSignlessInteger() && !isa<FloatType>(element))
    refuse("the sparse operand's elements are " + printToString(element) +
           ", and detection scans signless integers and floats");
  else if (llvm::is_contained(loopExtents, 0))
    refuse("its iteration space is empty (a loop of extent 0)");
  else if (!sparseMap.isProjectedPermutation())
    refuse("the sparse operand is indexed through " +
           printToString(sparseMap) +
           ", which is not a projected permutation of the loops");
  if (!hasRules())
    return;

  analyseBody(op);
  analyseLoops(op);
  if (getPITLoops().empty()) {
    refuse("no loop indexing the sparse operand is permutation invariant");
    return;
  }
  if (skipped == SkippedIteration::Other) {
    std::string note;
    if (combiner && isIdempotent(*combiner))
      note = (" (combining the " + stringifyCombinerKind(*combiner) +
              " of a zero is not neutral; the compensation this idempotent "
              "combiner would allow is not implemented)")
                 .str();
    refuse("skipping a zero micro-tile would change the result: with the "
           "sparse element zero, the body does not leave the output "
           "unchanged" +
           note);
  }
}

void PITRules::analyseBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  BlockArgument sparseArg = body->getArgument(sparseOperand);
  BlockArgument accumulator = op.getRegionOutputArgs().front();

  if (op.getNumReductionLoops() > 0) {
    FailureOr<CombinerKind> kind = matchCombiner(*body, accumulator, combinerProblem);
    // A partial tile starts from the combiner's identity: without one for
    // the output's type, nothing can start it.
    if (succeeded(kind) && !getCombinerIdentity(*kind, accumulator.getType()))
      combinerProblem = ("the combiner " + stringifyCombinerKind(*kind) +
                         " has no identity element of type " +
                         printToString(accumulator.getType()))
                            .str();
    else if (succeeded(kind))
      combiner = *kind;
  }

  // With the sparse element zero, what does the body yield?
  Abstract yielded = ZeroEvaluator(sparseArg, accumulator)
                         .evaluate(body->getTerminator()->getOperand(0));
  if (yielded == Abstract::Accumulator)
    skipped = SkippedIteration::Unchanged;
  else if (yielded == Abstract::Zero && op.getNumReductionLoops() == 0)
    skipped = SkippedIteration::Zero;
  else
    skipped = SkippedIteration::Other;
}

void PITRules::analyseLoops(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outputMap = maps.back();

  // Loops read through linalg.index see the permutation.
  llvm::SmallDenseSet<unsigned> indexedLoops;
  op.getBlock()->walk(
      [&](linalg::IndexOp index) { indexedLoops.insert(index.getDim()); });

  for (unsigned loop = 0; loop < loopExtents.size(); ++loop) {
    LoopRule rule{loop, iterators[loop], std::nullopt, ""};
    AffineExpr dim = getAffineDimExpr(loop, op.getContext());
    rule.sparseDim = sparseMap.getResultPosition(dim);

    auto refuse = [&](const Twine &reason) {
      if (rule.notInvariantBecause.empty())
        rule.notInvariantBecause = reason.str();
    };
    if (indexedLoops.contains(loop))
      refuse("the body reads linalg.index " + Twine(loop));
    for (auto [number, map] : llvm::enumerate(maps))
      for (AffineExpr result : map.getResults())
        if (result.isFunctionOfDim(loop) && result != dim)
          refuse("operand " + Twine(number) + " indexes it through " +
                 printToString(result) +
                 ", which a permutation of the loop does not permute");
    if (rule.iteratorType == utils::IteratorType::reduction && !combiner)
      refuse(combinerProblem);
    if (rule.iteratorType == utils::IteratorType::parallel &&
        !outputMap.getResultPosition(dim))
      refuse("the output does not use it, so results cannot be scattered back");
    loopRules.push_back(std::move(rule));
  }
}

SmallVector<unsigned> PITRules::getPITLoops() const {
  SmallVector<unsigned> loops;
  for (const LoopRule &rule : loopRules)
    if (rule.isPermutationInvariant() && rule.sparseDim)
      loops.push_back(rule.loop);
  return loops;
}

STileRule PITRules::makeSTileRule(ArrayRef<int64_t> microTile,
                                  unsigned pitLoop) const {
  // Dense tiles of about 32 along the gathered loop and up to 64 along the
  // free ones; the run-time selection among variants refines this.
  constexpr int64_t kGatheredTarget = 32, kFreeTarget = 64;
  STileRule rule;
  rule.microTile = llvm::to_vector(microTile);
  rule.pitLoop = pitLoop;
  rule.sparseDim = *loopRules[pitLoop].sparseDim;
  for (const LoopRule &loop : loopRules) {
    int64_t extent = loopExtents[loop.loop];
    if (loop.loop == pitLoop) {
      int64_t micro = microTile[rule.sparseDim];
      int64_t perTile = std::max<int64_t>(1, kGatheredTarget / micro);
      rule.denseTile.push_back(std::min(extent, micro * perTile));
    } else if (loop.sparseDim) {
      // A tile lies in one segment of the micro-tile grid.
      rule.denseTile.push_back(microTile[*loop.sparseDim]);
    } else {
      rule.denseTile.push_back(std::gcd(extent, kFreeTarget));
    }
  }
  rule.scattersOutput =
      loopRules[pitLoop].iteratorType == utils::IteratorType::parallel;
  rule.combiner = combiner;
  return rule;
}

LogicalResult PITRules::setDenseTile(STileRule &rule, ArrayRef<int64_t> tile,
                                    std::string &why) const {
  if (tile.size() != loopRules.size()) {
    why = "a dense tile needs " + std::to_string(loopRules.size()) +
          " extents, one per loop, not " + std::to_string(tile.size());
    return failure();
  }
  for (const LoopRule &loop : loopRules) {
    int64_t extent = loopExtents[loop.loop], size = tile[loop.loop];
    std::string at = " of loop " + std::to_string(loop.loop);
    if (size <= 0 || extent % size != 0) {
      why = "tile extent " + std::to_string(size) + at +
            " does not divide its extent " + std::to_string(extent);
      return failure();
    }
    if (!loop.sparseDim)
      continue;
    int64_t micro = rule.microTile[*loop.sparseDim];
    if (loop.loop == rule.pitLoop ? size % micro != 0 : size != micro) {
      why = "tile extent " + std::to_string(size) + at +
            (loop.loop == rule.pitLoop ? " is not whole micro-tiles of "
                                       : " is not its micro-tile extent ") +
            std::to_string(micro);
      return failure();
    }
  }
  rule.denseTile = llvm::to_vector(tile);
  rule.keepTile = true;
  return success();
}

LogicalResult PITRules::setPanel(STileRule &rule, int64_t rows,
                                 std::string &why) const {
  int64_t extent = loopExtents[rule.pitLoop];
  int64_t micro = rule.microTile[rule.sparseDim];
  if (!rule.scattersOutput || !rule.combiner) {
    why = "a panel needs an output that the segments add into along loop " +
          std::to_string(rule.pitLoop);
    return failure();
  }
  if (rows <= 0 || rows % micro != 0 || extent % rows != 0) {
    why = "panel " + std::to_string(rows) + " is not whole micro-tiles of " +
          std::to_string(micro) + " that divide the extent " +
          std::to_string(extent) + " of loop " + std::to_string(rule.pitLoop);
    return failure();
  }
  rule.panel = rows;
  return success();
}

FailureOr<SmallVector<STileRule>>
PITRules::getSTileRules(ArrayRef<int64_t> microTile, std::string &why) const {
  auto shapeText = [](ArrayRef<int64_t> shape) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(shape, os, "x");
    return text;
  };
  if (!hasRules()) {
    why = noRuleReason;
    return failure();
  }
  if (microTile.size() != sparseShape.size()) {
    why = "micro-tile " + shapeText(microTile) + " has rank " +
          std::to_string(microTile.size()) + ", the sparse operand rank " +
          std::to_string(sparseShape.size());
    return failure();
  }
  for (auto [dim, extent] : llvm::enumerate(sparseShape))
    if (microTile[dim] <= 0 || extent % microTile[dim] != 0) {
      why = "micro-tile " + shapeText(microTile) + " does not divide the " +
            "sparse operand's shape " + shapeText(sparseShape) +
            " along dimension " + std::to_string(dim);
      return failure();
    }

  SmallVector<STileRule> rules;
  for (unsigned loop : getPITLoops())
    rules.push_back(makeSTileRule(microTile, loop));
  // Best first: gather along a loop whose micro-tile extent is 1 (the finest
  // compaction), then along a reduction (no scatter), then the innermost.
  llvm::stable_sort(rules, [&](const STileRule &a, const STileRule &b) {
    auto key = [&](const STileRule &rule) {
      bool fine = rule.microTile[rule.sparseDim] == 1;
      return std::make_tuple(!fine, rule.scattersOutput,
                             -static_cast<int64_t>(rule.pitLoop));
    };
    return key(a) < key(b);
  });
  return rules;
}

void PITRules::print(raw_ostream &os) const {
  for (const LoopRule &rule : loopRules) {
    os << "loop " << rule.loop << " ("
       << utils::stringifyIteratorType(rule.iteratorType);
    if (rule.iteratorType == utils::IteratorType::reduction && combiner)
      os << ", " << stringifyCombinerKind(*combiner);
    os << "): ";
    if (!rule.isPermutationInvariant())
      os << "not permutation invariant: " << rule.notInvariantBecause;
    else if (!rule.sparseDim)
      os << "permutation invariant, does not index the sparse operand";
    else if (rule.iteratorType == utils::IteratorType::reduction)
      os << "permutation invariant along sparse dim " << *rule.sparseDim
         << ", partial results combined";
    else
      os << "permutation invariant along sparse dim " << *rule.sparseDim
         << ", results scattered back";
    os << "\n";
  }
}
