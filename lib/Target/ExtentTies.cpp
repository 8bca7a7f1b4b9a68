//===- ExtentTies.cpp - Which argument extents must agree -----------------===//

#include "PIT/Target/ExtentTies.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// A node of the tie graph: an argument's extent (argument >= 0), or a loop
/// of the `op`-th linalg op (argument = -1 - op).
using ExtentNode = std::pair<int64_t, int64_t>;

/// The function argument `value` is, looking through memref.cast (which
/// keeps the extents), or -1.
int64_t getArgumentNumber(Value value, func::FuncOp func) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &func.getBody().front())
    return -1;
  return argument.getArgNumber();
}

/// Everything needed to read the classes back: the union of the nodes and
/// the static extents known of each.
struct TieGraph {
  llvm::EquivalenceClasses<ExtentNode> classes;
  DenseMap<ExtentNode, int64_t> staticExtents;

  void add(func::FuncOp func, linalg::LinalgOp op, int64_t opNumber) {
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<ShapedType>(operand.get().getType());
      if (!type || !type.hasRank())
        continue;
      int64_t argument = getArgumentNumber(operand.get(), func);
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [dim, result] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(result);
        if (!loop)
          continue; // (i + j) ties no extent to one loop
        ExtentNode loopNode{-1 - opNumber, loop.getPosition()};
        classes.insert(loopNode);
        if (!type.isDynamicDim(dim))
          staticExtents.try_emplace(loopNode, type.getDimSize(dim));
        if (argument >= 0)
          classes.unionSets(loopNode, ExtentNode{argument, int64_t(dim)});
      }
    }
  }
};

} // namespace

SmallVector<ExtentTie> mlir::pit::getExtentTies(func::FuncOp func) {
  TieGraph graph;
  int64_t opNumber = 0;
  func.walk([&](linalg::LinalgOp op) { graph.add(func, op, opNumber++); });
  // Arguments' static extents join their classes' known extents.
  for (auto [argument, type] : llvm::enumerate(func.getArgumentTypes()))
    if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
      for (int64_t dim = 0; dim < shaped.getRank(); ++dim)
        if (!shaped.isDynamicDim(dim) &&
            graph.classes.contains({int64_t(argument), dim}))
          graph.staticExtents.try_emplace({int64_t(argument), dim},
                                          shaped.getDimSize(dim));

  SmallVector<ExtentTie> ties;
  for (auto it = graph.classes.begin(); it != graph.classes.end(); ++it) {
    if (!(*it)->isLeader())
      continue;
    std::optional<int64_t> extent;
    SmallVector<ExtentNode> dynamicArguments;
    for (auto member = graph.classes.member_begin(**it);
         member != graph.classes.member_end(); ++member) {
      if (auto known = graph.staticExtents.find(*member);
          known != graph.staticExtents.end() && !extent)
        extent = known->second;
      auto [argument, dim] = *member;
      if (argument >= 0 && !graph.staticExtents.contains(*member))
        dynamicArguments.push_back(*member);
    }
    llvm::sort(dynamicArguments);
    for (auto [number, node] : llvm::enumerate(dynamicArguments)) {
      if (extent)
        ties.push_back({node.first, node.second, -1, -1, *extent});
      else if (number > 0)
        ties.push_back({node.first, node.second, dynamicArguments[0].first,
                        dynamicArguments[0].second, -1});
    }
  }
  llvm::sort(ties, [](const ExtentTie &a, const ExtentTie &b) {
    return std::tie(a.argument, a.dim) < std::tie(b.argument, b.dim);
  });
  return ties;
}
