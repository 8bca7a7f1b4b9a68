//===- PITOps.cpp - pit dialect operations --------------------------------===//

#include "PIT/Dialect/PIT/IR/PITOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::pit;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Prints `[a, b, c]`, the way shapes appear in the custom forms.
static std::string formatList(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return text;
}

static LogicalResult verifyPositiveExtents(Operation *op, StringRef what,
                                           ArrayRef<int64_t> extents) {
  if (llvm::any_of(extents, [](int64_t e) { return e <= 0; }))
    return op->emitOpError("expects positive ")
           << what << " extents, got " << formatList(extents);
  return success();
}

/// Checks that the micro-tile grid of `shape` is well formed: one extent per
/// dimension, each dividing the (static) dimension it tiles, and `axis` names
/// a dimension. `shapeName` says whose shape it is in the messages.
static LogicalResult verifyMicroTileGrid(Operation *op, StringRef shapeName,
                                         ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> microTile,
                                         int64_t axis) {
  if (microTile.size() != shape.size())
    return op->emitOpError("expects a micro-tile of rank ")
           << shape.size() << " to match the " << shapeName << ", got rank "
           << microTile.size();
  if (failed(verifyPositiveExtents(op, "micro-tile", microTile)))
    return failure();
  if (axis >= static_cast<int64_t>(shape.size()))
    return op->emitOpError("expects axis in [0, ")
           << shape.size() << "), got " << axis;
  for (auto [dim, extent] : llvm::enumerate(shape))
    if (!ShapedType::isDynamic(extent) && extent % microTile[dim] != 0)
      return op->emitOpError("micro-tile extent ")
             << microTile[dim] << " does not divide " << shapeName
             << " dimension " << dim << " of size " << extent;
  return success();
}

/// Checks the static size of a 1-D or 2-D index buffer dimension.
static LogicalResult verifyIndexExtent(Operation *op, StringRef bufferName,
                                       MemRefType type, unsigned dim,
                                       int64_t expected, StringRef unit) {
  int64_t actual = type.getDimSize(dim);
  if (ShapedType::isDynamic(actual) || ShapedType::isDynamic(expected) ||
      actual == expected)
    return success();
  return op->emitOpError("expects ")
         << bufferName << " to hold " << expected << " " << unit << ", got "
         << actual;
}

std::pair<int64_t, int64_t>
mlir::pit::getSegmentsAndCapacity(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> microTile, int64_t axis) {
  int64_t segments = 1;
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    if (static_cast<int64_t>(dim) == axis)
      continue;
    if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(segments))
      segments = ShapedType::kDynamic;
    else
      segments *= extent / microTile[dim];
  }
  int64_t capacity = ShapedType::isDynamic(shape[axis])
                         ? ShapedType::kDynamic
                         : shape[axis] / microTile[axis];
  return {segments, capacity};
}

int64_t mlir::pit::getNumSampledSegments(int64_t segments, int64_t every) {
  return ShapedType::isDynamic(segments) ? ShapedType::kDynamic
                                         : llvm::divideCeil(segments, every);
}

/// Checks a dense-tile transfer between a buffer and a tile, shared by
/// pit.sread (buffer -> tile) and pit.swrite (tile -> buffer). `indexed` says
/// whether the gather/scatter clause is there; `clause` is its keyword.
static LogicalResult
verifyTileTransfer(Operation *op, StringRef bufferName, MemRefType bufferType,
                   MemRefType tileType, ValueRange offsets, Value positions,
                   Value segment, Value count, std::optional<int64_t> axis,
                   std::optional<int64_t> micro, StringRef clause) {
  if (bufferType.getElementType() != tileType.getElementType())
    return op->emitOpError("expects the tile and the ")
           << bufferName << " to have the same element type, got "
           << tileType.getElementType() << " and "
           << bufferType.getElementType();
  int64_t rank = bufferType.getRank();
  if (tileType.getRank() != rank)
    return op->emitOpError("expects a tile of rank ")
           << rank << " to match the " << bufferName << ", got rank "
           << tileType.getRank();
  if (static_cast<int64_t>(offsets.size()) != rank)
    return op->emitOpError("expects ")
           << rank << " offsets, one per dimension of the " << bufferName
           << ", got " << offsets.size();

  bool anyIndex = positions || segment || count || axis || micro;
  bool allIndex = positions && segment && count && axis && micro;
  if (anyIndex && !allIndex)
    return op->emitOpError("expects the '")
           << clause
           << "' clause to give positions, segment, count, axis and micro "
              "together";

  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t tileExtent = tileType.getDimSize(dim);
    int64_t bufferExtent = bufferType.getDimSize(dim);
    if (allIndex && dim == *axis)
      continue;
    if (!ShapedType::isDynamic(tileExtent) &&
        !ShapedType::isDynamic(bufferExtent) && tileExtent > bufferExtent)
      return op->emitOpError("tile extent ")
             << tileExtent << " exceeds the " << bufferName << " extent "
             << bufferExtent << " along dimension " << dim;
  }
  if (!allIndex)
    return success();

  if (*axis >= rank)
    return op->emitOpError("expects axis in [0, ")
           << rank << "), got " << *axis;
  int64_t tileExtent = tileType.getDimSize(*axis);
  if (!ShapedType::isDynamic(tileExtent) && tileExtent % *micro != 0)
    return op->emitOpError("micro extent ")
           << *micro << " does not divide the tile extent " << tileExtent
           << " along axis " << *axis;
  int64_t bufferExtent = bufferType.getDimSize(*axis);
  if (!ShapedType::isDynamic(bufferExtent) && bufferExtent % *micro != 0)
    return op->emitOpError("micro extent ")
           << *micro << " does not divide the " << bufferName << " extent "
           << bufferExtent << " along axis " << *axis;
  return success();
}

//===----------------------------------------------------------------------===//
// DetectOp
//===----------------------------------------------------------------------===//

LogicalResult DetectOp::verify() {
  MemRefType sourceType = getSource().getType();
  ArrayRef<int64_t> shape = sourceType.getShape();
  if (failed(verifyMicroTileGrid(*this, "source", shape, getMicroTile(),
                                 getAxis())))
    return failure();
  auto [segments, capacity] =
      getSegmentsAndCapacity(shape, getMicroTile(), getAxis());
  if (failed(verifyIndexExtent(*this, "counts", getCounts().getType(), 0,
                               segments, "segments")) ||
      failed(verifyIndexExtent(*this, "positions", getPositions().getType(), 0,
                               segments, "segments")) ||
      failed(verifyIndexExtent(*this, "positions", getPositions().getType(), 1,
                               capacity, "micro-tiles per segment")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// CountOp
//===----------------------------------------------------------------------===//

LogicalResult CountOp::verify() {
  ArrayRef<int64_t> shape = getSource().getType().getShape();
  if (failed(verifyMicroTileGrid(*this, "source", shape, getMicroTile(),
                                 getAxis())))
    return failure();
  int64_t segments =
      getSegmentsAndCapacity(shape, getMicroTile(), getAxis()).first;
  return verifyIndexExtent(*this, "counts", getCounts().getType(), 0,
                           getNumSampledSegments(segments, getEvery()),
                           "sampled segments");
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::verify() {
  unsigned variants = getNumVariants();
  if (variants == 0)
    return emitOpError("needs at least one variant");
  if (getCapacities().size() != variants)
    return emitOpError("has ") << variants << " variants but "
                               << getCapacities().size() << " capacities";
  if (getLatencies().size() != variants)
    return emitOpError("has ") << variants << " variants but "
                               << getLatencies().size() << " latency tables";
  for (int64_t capacity : getCapacities())
    if (capacity <= 0)
      return emitOpError("capacities must be positive, got ") << capacity;
  ArrayRef<double> coverage = getCoverage();
  if (coverage.empty())
    return emitOpError("needs at least one coverage point");
  for (auto [i, point] : llvm::enumerate(coverage)) {
    if (point < 0.0 || point > 1.0)
      return emitOpError("coverage points must lie in [0, 1], got ") << point;
    if (i > 0 && point <= coverage[i - 1])
      return emitOpError("coverage points must increase");
  }
  auto verifyTables = [&](ArrayAttr tables, StringRef what) -> LogicalResult {
    for (auto [variant, table] : llvm::enumerate(tables)) {
      ArrayRef<double> latencies = cast<DenseF64ArrayAttr>(table).asArrayRef();
      if (latencies.size() != coverage.size())
        return emitOpError() << what << " " << variant << " has "
                             << latencies.size() << " entries for "
                             << coverage.size() << " coverage points";
      for (double latency : latencies)
        if (!(latency >= 0.0))
          return emitOpError("latencies must be non-negative, got ")
                 << latency;
    }
    return success();
  };
  if (failed(verifyTables(getLatencies(), "latency table")))
    return failure();
  if (ArrayAttr denseTables = getDenseLatenciesAttr()) {
    if (denseTables.size() != variants)
      return emitOpError("has ") << variants << " variants but "
                                 << denseTables.size()
                                 << " dense latency tables";
    if (failed(verifyTables(denseTables, "dense latency table")))
      return failure();
  }
  if (!(getDense().convertToDouble() >= 0.0))
    return emitOpError("the dense latency must be non-negative");
  return success();
}

//===----------------------------------------------------------------------===//
// STileOp
//===----------------------------------------------------------------------===//

void STileOp::build(OpBuilder &builder, OperationState &state, Value counts,
                    ArrayRef<int64_t> domain, ArrayRef<int64_t> tile,
                    ArrayRef<int64_t> microTile, int64_t pitAxis,
                    AffineMap sparseMap, bool keepTile, int64_t panel,
                    bool groupRows) {
  state.addOperands(counts);
  state.addAttribute(getDomainAttrName(state.name),
                     builder.getDenseI64ArrayAttr(domain));
  state.addAttribute(getTileAttrName(state.name),
                     builder.getDenseI64ArrayAttr(tile));
  state.addAttribute(getMicroTileAttrName(state.name),
                     builder.getDenseI64ArrayAttr(microTile));
  state.addAttribute(getPitAxisAttrName(state.name),
                     builder.getI64IntegerAttr(pitAxis));
  state.addAttribute(getSparseMapAttrName(state.name),
                     AffineMapAttr::get(sparseMap));
  if (keepTile)
    state.addAttribute(getKeepTileAttrName(state.name), builder.getUnitAttr());
  if (panel)
    state.addAttribute(getPanelAttrName(state.name),
                       builder.getI64IntegerAttr(panel));
  if (groupRows)
    state.addAttribute(getGroupRowsAttrName(state.name),
                       builder.getUnitAttr());
  Region *body = state.addRegion();
  SmallVector<Type> argTypes(domain.size() + 1, builder.getIndexType());
  SmallVector<Location> argLocs(argTypes.size(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(body, body->end(), argTypes, argLocs);
  STileOp::ensureTerminator(*body, builder, state.location);
}

unsigned STileOp::getSparseAxis() {
  return *getSparseMap().getResultPosition(
      getAffineDimExpr(getPitAxis(), getContext()));
}

int64_t STileOp::getNumSegments() {
  AffineMap map = getSparseMap();
  ArrayRef<int64_t> domain = getDomain();
  ArrayRef<int64_t> microTile = getMicroTile();
  unsigned sparseAxis = getSparseAxis();
  int64_t segments = 1;
  for (unsigned result = 0; result < map.getNumResults(); ++result)
    if (result != sparseAxis)
      segments *= domain[map.getDimPosition(result)] / microTile[result];
  return segments;
}

LogicalResult STileOp::verify() {
  ArrayRef<int64_t> domain = getDomain();
  ArrayRef<int64_t> tile = getTile();
  ArrayRef<int64_t> microTile = getMicroTile();
  AffineMap map = getSparseMap();
  unsigned numLoops = domain.size();

  if (tile.size() != numLoops)
    return emitOpError("expects one tile extent per loop of the domain (")
           << numLoops << "), got " << tile.size();
  if (map.getNumDims() != numLoops || map.getNumSymbols() != 0)
    return emitOpError("expects sparse_map to map the ")
           << numLoops << " loops of the domain with no symbols, got " << getSparseMapAttr();
  if (!map.isProjectedPermutation())
    return emitOpError("expects sparse_map to be a projected permutation, got ")
           << getSparseMapAttr();
  if (microTile.size() != map.getNumResults())
    return emitOpError("expects a micro-tile of rank ")
           << map.getNumResults() << " to match sparse_map, got rank "
           << microTile.size();
  if (failed(verifyPositiveExtents(*this, "domain", domain)) ||
      failed(verifyPositiveExtents(*this, "tile", tile)) ||
      failed(verifyPositiveExtents(*this, "micro-tile", microTile)))
    return failure();
  int64_t pitAxis = getPitAxis();
  if (pitAxis >= static_cast<int64_t>(numLoops))
    return emitOpError("expects pit_axis in [0, ")
           << numLoops << "), got " << pitAxis;
  if (!map.getResultPosition(getAffineDimExpr(pitAxis, getContext())))
    return emitOpError("pit_axis ")
           << pitAxis << " does not index the sparse operand (sparse_map is "
           << getSparseMapAttr() << ")";

  // Loops outside the compacted axis are tiled evenly.
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (loop != pitAxis && domain[loop] % tile[loop] != 0)
      return emitOpError("tile extent ")
             << tile[loop] << " does not divide the domain extent "
             << domain[loop] << " of loop " << loop;

  for (unsigned result = 0; result < map.getNumResults(); ++result) {
    unsigned loop = map.getDimPosition(result);
    if (domain[loop] % microTile[result] != 0)
      return emitOpError("micro-tile extent ")
             << microTile[result] << " does not divide the domain extent "
             << domain[loop] << " of loop " << loop;
    // A micro-tile is gathered whole, so the compacted axis holds a whole
    // number of them per tile ...
    if (loop == pitAxis && tile[loop] % microTile[result] != 0)
      return emitOpError("micro-tile extent ")
             << microTile[result]
             << " along the PIT axis does not divide its tile extent "
             << tile[loop];
    // ... and a tile lies in one segment, whose index it shares.
    if (loop != pitAxis && tile[loop] != microTile[result])
      return emitOpError("tile extent ")
             << tile[loop] << " of loop " << loop
             << " must equal its micro-tile extent " << microTile[result]
             << ", since a tile lies in one segment";
  }

  // Rows are grouped only into panels.
  if (getGroupRows() && !getPanel())
    return emitOpError("group_rows needs a panel");
  // A panel is whole micro-tiles of the PIT axis and splits its extent.
  if (std::optional<int64_t> panel = getPanel()) {
    int64_t micro = microTile[*map.getResultPosition(
        getAffineDimExpr(pitAxis, getContext()))];
    if (*panel % micro != 0 || domain[pitAxis] % *panel != 0)
      return emitOpError("panel ")
             << *panel << " must be whole micro-tiles (" << micro
             << ") and divide the extent " << domain[pitAxis]
             << " of the PIT axis";
  }

  if (failed(verifyIndexExtent(*this, "counts", getCounts().getType(), 0,
                               getNumSegments(), "segments")))
    return failure();

  Block &body = getBody().front();
  if (body.getNumArguments() != numLoops + 1 ||
      llvm::any_of(body.getArgumentTypes(),
                   [](Type type) { return !type.isIndex(); }))
    return emitOpError("expects the body to take ")
           << numLoops + 1
           << " index arguments (one origin per loop, then the segment), got "
           << body.getNumArguments();
  return success();
}

/// Parses `[e0, e1, ...]` into a dense i64 array attribute named `name`.
static ParseResult parseExtents(OpAsmParser &parser, OperationState &result,
                                StringRef keyword, StringAttr name) {
  SmallVector<int64_t> extents;
  if (parser.parseKeyword(keyword) ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            return parser.parseInteger(extents.emplace_back());
          }))
    return failure();
  result.addAttribute(name, parser.getBuilder().getDenseI64ArrayAttr(extents));
  return success();
}

// pit.stile (%o0, ...) segment(%s) counts(%c : type) domain [..] tile [..]
//     micro_tile [..] pit_axis N sparse_map affine_map<..> attrs? { body }
ParseResult STileOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> args;
  OpAsmParser::UnresolvedOperand counts;
  Type countsType;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("segment") || parser.parseLParen() ||
      parser.parseArgument(args.emplace_back()) || parser.parseRParen() ||
      parser.parseKeyword("counts") || parser.parseLParen() ||
      parser.parseOperand(counts) || parser.parseColonType(countsType) ||
      parser.parseRParen() ||
      parser.resolveOperand(counts, countsType, result.operands))
    return failure();

  OperationName name = result.name;
  int64_t pitAxis;
  AffineMapAttr sparseMap;
  if (parseExtents(parser, result, "domain", getDomainAttrName(name)) ||
      parseExtents(parser, result, "tile", getTileAttrName(name)) ||
      parseExtents(parser, result, "micro_tile", getMicroTileAttrName(name)) ||
      parser.parseKeyword("pit_axis") || parser.parseInteger(pitAxis) ||
      parser.parseKeyword("sparse_map") ||
      parser.parseAttribute(sparseMap, getSparseMapAttrName(name),
                            result.attributes) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  result.addAttribute(getPitAxisAttrName(name),
                      parser.getBuilder().getI64IntegerAttr(pitAxis));

  Type indexType = parser.getBuilder().getIndexType();
  for (OpAsmParser::Argument &arg : args)
    arg.type = indexType;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  STileOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void STileOp::print(OpAsmPrinter &p) {
  Block &body = getBody().front();
  p << " (";
  llvm::interleaveComma(body.getArguments().drop_back(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") segment(";
  p.printOperand(body.getArguments().back());
  p << ") counts(" << getCounts() << " : " << getCounts().getType() << ")";
  p << " domain " << formatList(getDomain());
  p << " tile " << formatList(getTile());
  p << " micro_tile " << formatList(getMicroTile());
  p << " pit_axis " << getPitAxis();
  p << " sparse_map ";
  p.printAttribute(getSparseMapAttr());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getDomainAttrName(), getTileAttrName(), getMicroTileAttrName(),
       getPitAxisAttrName(), getSparseMapAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

//===----------------------------------------------------------------------===//
// SReadOp / SWriteOp
//===----------------------------------------------------------------------===//

LogicalResult SReadOp::verify() {
  return verifyTileTransfer(*this, "source", getSource().getType(),
                            getDest().getType(), getOffsets(), getPositions(),
                            getSegment(), getCount(), getAxis(), getMicro(),
                            "gather");
}

/// Whether `kind` is defined on elements of type `elementType`.
static bool combinerAppliesTo(CombinerKind kind, Type elementType) {
  switch (kind) {
  case CombinerKind::Add:
  case CombinerKind::Mul:
    return true;
  case CombinerKind::MaximumF:
  case CombinerKind::MinimumF:
    return isa<FloatType>(elementType);
  case CombinerKind::MaxSI:
  case CombinerKind::MinSI:
  case CombinerKind::MaxUI:
  case CombinerKind::MinUI:
  case CombinerKind::AndI:
  case CombinerKind::OrI:
  case CombinerKind::XOrI:
    return isa<IntegerType>(elementType);
  }
  llvm_unreachable("unknown combiner kind");
}

LogicalResult SWriteOp::verify() {
  if (failed(verifyTileTransfer(*this, "destination", getDest().getType(),
                                getSource().getType(), getOffsets(),
                                getPositions(), getSegment(), getCount(),
                                getAxis(), getMicro(), "scatter")))
    return failure();
  Type elementType = getDest().getType().getElementType();
  if (std::optional<CombinerKind> kind = getCombiner();
      kind && !combinerAppliesTo(*kind, elementType))
    return emitOpError("combiner '")
           << stringifyCombinerKind(*kind) << "' does not apply to elements of "
           << "type " << elementType;
  return success();
}

#define GET_OP_CLASSES
#include "PIT/Dialect/PIT/IR/PITOps.cpp.inc"
