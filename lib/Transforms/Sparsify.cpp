//===- Sparsify.cpp - Rewrite marked linalg ops into PIT form -------------===//

#include "PIT/Analysis/PITRules.h"
#include "PIT/Analysis/STileDatabase.h"
#include "PIT/Dialect/PIT/IR/PITCombiner.h"
#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "PIT/Transforms/OptionErrors.h"
#include "PIT/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir::pit {
#define GEN_PASS_DEF_PITSPARSIFY
#include "PIT/Transforms/Passes.h.inc"
} // namespace mlir::pit

using namespace mlir;
using namespace mlir::pit;

namespace {

/// The micro-tile index that pit.detect fills for one STile rule.
struct MicroTileIndex {
  Value counts;
  Value positions;
};

/// The segments and micro-tiles per segment of `sparse`'s micro-tile grid
/// for `rule`.
std::pair<int64_t, int64_t> getIndexExtents(Value sparse,
                                            const STileRule &rule) {
  return getSegmentsAndCapacity(cast<MemRefType>(sparse.getType()).getShape(),
                                rule.microTile, rule.sparseDim);
}

/// Allocates the index of `sparse` for `rule`.
MicroTileIndex allocateIndex(OpBuilder &b, Location loc, Value sparse,
                             const STileRule &rule) {
  auto [segments, capacity] = getIndexExtents(sparse, rule);
  Type i32 = b.getI32Type();
  MicroTileIndex index;
  index.counts = memref::AllocOp::create(b, loc, MemRefType::get({segments}, i32));
  index.positions = memref::AllocOp::create(
      b, loc, MemRefType::get({segments, capacity}, i32));
  return index;
}

/// Emits the detection that fills `index`.
void emitDetection(OpBuilder &b, Location loc, Value sparse,
                   const STileRule &rule, const MicroTileIndex &index) {
  DetectOp::create(b, loc, sparse, index.counts, index.positions,
                   rule.microTile, rule.sparseDim);
}

/// A sample smaller than this many segments is taken denser: it is what
/// the choice sees of the whole pattern.
constexpr int64_t kMinSampledSegments = 8;

/// Allocates counts for every `every`-th segment of `sparse` under `rule`
/// (fewer, down to every segment, where that leaves fewer than
/// kMinSampledSegments) and emits the pit.count that fills them.
Value emitSampleCount(OpBuilder &b, Location loc, Value sparse,
                      const STileRule &rule, int64_t every) {
  int64_t segments = getIndexExtents(sparse, rule).first;
  while (every > 1 &&
         getNumSampledSegments(segments, every) < kMinSampledSegments)
    every /= 2;
  auto type = MemRefType::get({getNumSampledSegments(segments, every)},
                              b.getI32Type());
  Value counts = memref::AllocOp::create(b, loc, type);
  CountOp::create(b, loc, sparse, counts, rule.microTile, rule.sparseDim,
                  every);
  return counts;
}

/// Builds the body of the STile: one dense tile of `op`, gathered through
/// the index, computed with the original body, written back.
void emitTileBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  const STileRule &rule, STileOp stile,
                  const MicroTileIndex &index) {
  Value segment = stile.getSegment();
  Value count32 = memref::LoadOp::create(b, loc, index.counts, segment);
  Value count =
      arith::IndexCastOp::create(b, loc, b.getIndexType(), count32);
  AffineExpr pitDim = b.getAffineDimExpr(rule.pitLoop);
  int64_t micro = rule.microTile[rule.sparseDim];

  // The tile buffer, its origin in the operand, and the gathered dimension
  // (if the operand is indexed by the PIT loop) of each operand.
  struct OperandTile {
    Value buffer;
    SmallVector<Value> offsets;
    std::optional<unsigned> gatheredDim;
  };
  SmallVector<OperandTile> tiles;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = cast<MemRefType>(operand.get().getType());
    OperandTile tile;
    SmallVector<int64_t> shape;
    for (unsigned result = 0; result < map.getNumResults(); ++result) {
      unsigned loop = map.getDimPosition(result);
      shape.push_back(rule.denseTile[loop]);
      tile.offsets.push_back(stile.getTileOrigin(loop));
    }
    tile.gatheredDim = map.getResultPosition(pitDim);
    tile.buffer = memref::AllocaOp::create(
        b, loc, MemRefType::get(shape, type.getElementType()));
    tiles.push_back(std::move(tile));
  }

  auto indexClause = [&](const OperandTile &tile) {
    IntegerAttr axis, microAttr;
    if (!tile.gatheredDim)
      return std::make_tuple(Value(), Value(), Value(), axis, microAttr);
    axis = b.getI64IntegerAttr(*tile.gatheredDim);
    microAttr = b.getI64IntegerAttr(micro);
    return std::make_tuple(index.positions, segment, count, axis, microAttr);
  };

  unsigned numInputs = op.getNumDpsInputs();
  for (unsigned i = 0; i < numInputs; ++i) {
    auto [positions, seg, cnt, axis, microAttr] = indexClause(tiles[i]);
    SReadOp::create(b, loc, op->getOperand(i), tiles[i].offsets,
                    tiles[i].buffer, positions, seg, cnt, axis, microAttr);
  }
  OperandTile &output = tiles.back();
  Value outputBuffer = op.getDpsInits().front();
  Type elementType = cast<MemRefType>(outputBuffer.getType()).getElementType();
  if (rule.combiner) {
    // A partial result: it starts from the combiner's identity and is
    // combined into the output, whose initial value is thereby kept.
    Value identity = arith::ConstantOp::create(
        b, loc, getCombinerIdentity(*rule.combiner, elementType));
    linalg::FillOp::create(b, loc, identity, output.buffer);
  } else {
    auto [positions, seg, cnt, axis, microAttr] = indexClause(output);
    SReadOp::create(b, loc, outputBuffer, output.offsets, output.buffer,
                    positions, seg, cnt, axis, microAttr);
  }

  SmallVector<Value> inputTiles;
  for (unsigned i = 0; i < numInputs; ++i)
    inputTiles.push_back(tiles[i].buffer);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{}, inputTiles, ValueRange{output.buffer},
      op.getIndexingMapsArray(), op.getIteratorTypesArray());
  IRMapping mapping;
  op->getRegion(0).cloneInto(&generic.getRegion(), mapping);

  auto [positions, seg, cnt, axis, microAttr] = indexClause(output);
  CombinerKindAttr combiner;
  if (rule.combiner)
    combiner = CombinerKindAttr::get(b.getContext(), *rule.combiner);
  SWriteOp::create(b, loc, output.buffer, outputBuffer, output.offsets,
                   positions, seg, cnt, axis, microAttr, combiner);
}

/// Emits the STile of `rule` for `op`, reading `index`, with the output
/// cleared first where the skipped iterations yield zero.
void emitSTile(RewriterBase &rewriter, Location loc, linalg::LinalgOp op,
               const PITRules &rules, const STileRule &rule,
               const MicroTileIndex &index) {
  if (rules.getSkippedIteration() == SkippedIteration::Zero) {
    // Outside the non-zero micro-tiles the result is zero.
    Value output = op.getDpsInits().front();
    Type elementType = cast<MemRefType>(output.getType()).getElementType();
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getZeroAttr(elementType));
    linalg::FillOp::create(rewriter, loc, zero, output);
  }
  auto stile = STileOp::create(rewriter, loc, index.counts,
                               rules.getLoopExtents(), rule.denseTile,
                               rule.microTile, rule.pitLoop,
                               rules.getSparseMap(), rule.keepTile,
                               rule.panel, rule.groupRows);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(stile.getBody().front().getTerminator());
  emitTileBody(rewriter, loc, op, rule, stile, index);
}

/// A variant of run-time selection: an STile rule and its latency table.
struct SelectableVariant {
  STileRule rule;
  ArrayRef<double> latencies;
  /// The dense fallback's latencies on the variant's patterns (the
  /// database's dense_latency_us), or empty.
  ArrayRef<double> denseLatencies;
};

/// What identifies the index a rule's STile reads: variants that gather the
/// same micro-tiles along the same dimension share one detection.
using IndexKey = std::pair<SmallVector<int64_t>, unsigned>;
IndexKey getIndexKey(const STileRule &rule) {
  return {rule.microTile, rule.sparseDim};
}

/// Names a variant in a remark: "(32x1 along loop 2, tile 32x128x32)".
void describeVariant(InFlightDiagnostic &remark, const STileRule &rule) {
  remark << "(";
  llvm::interleave(rule.microTile, remark, "x");
  remark << " along loop " << rule.pitLoop << ", "
         << (rule.keepTile ? "tile " : "default tile ");
  llvm::interleave(rule.denseTile, remark, "x");
  if (rule.panel)
    remark << ", panel " << rule.panel;
  if (rule.groupRows)
    remark << ", rows grouped";
  remark << ")";
}

/// How much cheaper than the alternatives a variant must be somewhere to
/// be worth its launch on every call (see dropUnprofitableVariants): by this
/// fraction, and by this many microseconds. A variant's kernels, guarded
/// off when another is chosen, still take 2-3 us of every such call (H100,
/// dependent launches; docs/Rationale.md): a variant that saves less than
/// that where it wins costs more than it saves.
constexpr double kWorthwhileGain = 0.05;
constexpr double kWorthwhileGainUs = 3.0;

/// The linalg.fill right before `op` that writes its output (and nothing
/// `op` reads), or null.
linalg::FillOp findOutputFill(linalg::LinalgOp op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || !fill.hasPureBufferSemantics())
    return nullptr;
  Value output = op.getDpsInits().front();
  if (fill.getOutputs()[0] != output ||
      llvm::is_contained(op.getDpsInputs(), output))
    return nullptr;
  return fill;
}

struct PITSparsifyPass : public pit::impl::PITSparsifyBase<PITSparsifyPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    auto invalid = [&](StringRef option, int64_t value, StringRef wanted) {
      return emitOptionError(context, getArgument(), option, value, wanted);
    };
    if (sampleEvery < 0)
      return invalid("sample-every", sampleEvery, "0 (no sample) or positive");
    if (pitLoop < -1)
      return invalid("pit-loop", pitLoop,
                     "-1 (the analysis' choice) or a loop number");
    if (variant < -1)
      return invalid("variant", variant,
                     "-1 (choose at run time) or a variant number");
    if (variant >= 0 && latencyTable.empty())
      return invalid("variant", variant,
                     "-1 without a latency-table (variants come from it)");
    if (latencyTable.empty())
      return success();
    std::string error;
    FailureOr<STileDatabase> loaded = STileDatabase::load(latencyTable, error);
    if (failed(loaded))
      return emitError(UnknownLoc::get(context))
             << "pit-sparsify: latency-table: " << error;
    database = std::move(*loaded);
    return success();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> marked;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(PITDialect::getSparseAttrName()))
        marked.push_back(op);
    });
    for (linalg::LinalgOp op : marked)
      if (failed(sparsify(op)))
        return signalPassFailure();
  }

  /// Chooses the STile rule the mark and the options ask for; fails with an
  /// error on the op when the mark or the options are invalid for it.
  FailureOr<STileRule> chooseRule(linalg::LinalgOp op, const PITRules &rules,
                                  SparseAttr mark) {
    auto fail = [&](const Twine &why) {
      return op->emitOpError("invalid pit.sparse mark: ") << why;
    };
    std::optional<STileRule> chosen;
    for (auto [number, microTile] : llvm::enumerate(mark.getMicroTiles())) {
      std::string why;
      FailureOr<SmallVector<STileRule>> stiles =
          rules.getSTileRules(microTile.asArrayRef(), why);
      if (failed(stiles))
        return fail(why);
      if (number != candidate)
        continue;
      if (pitLoop < 0) {
        chosen = stiles->front();
        continue;
      }
      for (const STileRule &stile : *stiles)
        if (stile.pitLoop == pitLoop)
          chosen = stile;
      if (!chosen)
        return fail("loop " + Twine(pitLoop.getValue()) +
                    " is not a PIT loop for candidate " + Twine(number));
    }
    if (!chosen)
      return fail("there is no candidate " + Twine(candidate.getValue()) +
                  "; the mark has " + Twine(mark.getMicroTiles().size()));
    return *chosen;
  }

  /// The variants of `entry` (what the database measured for `op`, or
  /// null) that the mark allows: a candidate micro-tile, gathered along a
  /// loop the analysis finds legal for it. Empty, with a remark, when there
  /// are none.
  SmallVector<SelectableVariant> findVariants(linalg::LinalgOp op,
                                              const PITRules &rules,
                                              SparseAttr mark,
                                              const OpLatencies *entry) {
    auto leaveFixed = [&](const Twine &why) {
      op->emitRemark("pit-sparsify: ")
          << why << "; candidate " << candidate.getValue()
          << " without run-time selection";
      return SmallVector<SelectableVariant>{};
    };
    if (!entry)
      return leaveFixed("the latency table has no entry for '" +
                        STileDatabase::getKey(op) + "'");
    SmallVector<SelectableVariant> variants;
    for (DenseI64ArrayAttr microTile : mark.getMicroTiles()) {
      std::string why;
      FailureOr<SmallVector<STileRule>> stiles =
          rules.getSTileRules(microTile.asArrayRef(), why);
      if (failed(stiles))
        continue;
      for (auto [number, measured] : llvm::enumerate(entry->variants)) {
        if (ArrayRef<int64_t>(measured.microTile) != microTile.asArrayRef())
          continue;
        for (STileRule stile : *stiles) {
          if (stile.pitLoop != measured.pitLoop)
            continue;
          if ((!measured.denseTile.empty() &&
               failed(rules.setDenseTile(stile, measured.denseTile, why))) ||
              (measured.panel &&
               failed(rules.setPanel(stile, measured.panel, why)))) {
            op->emitRemark("pit-sparsify: variant ")
                << number << " of the latency table left out: " << why;
            continue;
          }
          stile.groupRows = measured.groupRows;
          variants.push_back(
              {stile, measured.latencies, measured.denseLatencies});
        }
      }
    }
    if (variants.empty())
      return leaveFixed("the latency table has no variant for the mark's "
                        "micro-tiles");
    return variants;
  }

  /// Drops the variants not worth their launch: each one in the switch
  /// launches its kernel on every call (its blocks exit when another is
  /// chosen), which costs microseconds, so a variant stays only where it is
  /// more than kWorthwhileGain and kWorthwhileGainUs cheaper, at some
  /// coverage point, than the dense fallback and the other variants of its
  /// index that stay, and where what it saves at the points where it is
  /// cheaper outweighs what it costs at the others (kWorthwhileGainUs each:
  /// the table's points stand for the calls alike). Table points of the
  /// cheapest calls vary by tens of percent from run to run; measured
  /// differences between tiles of one micro-tile are often a few. The
  /// least useful variant goes first, one at a time. Variants of different
  /// indices are not compared: one pattern covers their micro-tiles to
  /// different degrees.
  void dropUnprofitableVariants(linalg::LinalgOp op,
                                SmallVector<SelectableVariant> &variants,
                                double denseLatency) {
    // How much dearer the cheapest choice gets, at worst, without `number`;
    // 0 where it saves less over the table than its launches cost.
    auto lossWithout = [&](size_t number) {
      const SelectableVariant &variant = variants[number];
      double worst = 0.0, net = 0.0;
      for (auto [point, latency] : llvm::enumerate(variant.latencies)) {
        double best = variant.denseLatencies.empty()
                          ? denseLatency
                          : variant.denseLatencies[point];
        for (auto [other, rival] : llvm::enumerate(variants))
          if (other != number &&
              getIndexKey(rival.rule) == getIndexKey(variant.rule))
            best = std::min(best, rival.latencies[point]);
        if (best - latency > kWorthwhileGainUs)
          worst = std::max(worst, best / latency - 1.0);
        net += best > latency ? best - latency : -kWorthwhileGainUs;
      }
      return net > 0.0 ? worst : 0.0;
    };
    // Of variants whose loss ties (two near-twins each make the other
    // worthless), the one dearer over the table goes first.
    auto total = [&](size_t number) {
      ArrayRef<double> latencies = variants[number].latencies;
      return std::accumulate(latencies.begin(), latencies.end(), 0.0);
    };
    while (!variants.empty()) {
      size_t least = 0;
      SmallVector<double> losses;
      for (size_t number = 0; number < variants.size(); ++number) {
        losses.push_back(lossWithout(number));
        if (losses[number] < losses[least] ||
            (losses[number] == losses[least] && total(number) > total(least)))
          least = number;
      }
      if (losses[least] > kWorthwhileGain)
        return;
      InFlightDiagnostic remark = op->emitRemark("pit-sparsify: variant ");
      describeVariant(remark, variants[least].rule);
      remark << " left out: never more than "
             << static_cast<int>(kWorthwhileGain * 100) << "% and "
             << static_cast<int>(kWorthwhileGainUs)
             << " us cheaper than dense and the variants kept, or saving "
                "less where it is cheaper than its launches cost elsewhere";
      variants.erase(variants.begin() + least);
    }
  }

  LogicalResult sparsify(linalg::LinalgOp op) {
    auto mark = op->getAttrOfType<SparseAttr>(PITDialect::getSparseAttrName());
    if (!op.hasPureBufferSemantics()) {
      op->emitRemark("pit-sparsify: left alone, it works on buffers; "
                     "bufferize first (one-shot-bufferize)");
      return success();
    }
    PITRules rules(op, mark.getOperand());
    if (!rules.hasRules()) {
      op->emitRemark("pit-sparsify: left alone, ") << rules.getNoRuleReason();
      return success();
    }
    FailureOr<STileRule> rule = chooseRule(op, rules, mark);
    if (failed(rule))
      return failure();
    if (database) {
      const OpLatencies *entry = database->lookup(op);
      SmallVector<SelectableVariant> variants =
          findVariants(op, rules, mark, entry);
      if (!variants.empty() && variant >= 0) {
        // Forced: straight-line code, as for a fixed rule, with no switch
        // for the GPU lowering to leave its buffers in (they would not
        // share the call's one allocation and first memset). The variants
        // that fit count in the table's order.
        int64_t numFitting = variants.size();
        if (variant > numFitting)
          return op->emitOpError("pit-sparsify: there is no variant ")
                 << variant.getValue() << "; the latency table gives "
                 << numFitting << " and dense (" << numFitting << ")";
        if (variant == numFitting) {
          op->removeAttr(PITDialect::getSparseAttrName());
          return success();
        }
        rule = variants[variant].rule;
      } else if (!variants.empty()) {
        dropUnprofitableVariants(op, variants, entry->dense);
        if (variants.empty()) {
          op->emitRemark("pit-sparsify: dense is never beaten by more than ")
              << static_cast<int>(kWorthwhileGain * 100) << "% and "
              << static_cast<int>(kWorthwhileGainUs)
              << " us in the latency table; the operation stays dense";
          op->removeAttr(PITDialect::getSparseAttrName());
          return success();
        }
        sparsifyWithSelection(op, rules, variants, entry->dense);
        return success();
      }
    }

    IRRewriter rewriter(op);
    Location loc = op.getLoc();
    Value sparse = op->getOperand(mark.getOperand());
    MicroTileIndex index = allocateIndex(rewriter, loc, sparse, *rule);
    emitDetection(rewriter, loc, sparse, *rule, index);
    emitSTile(rewriter, loc, op, rules, *rule, index);
    memref::DeallocOp::create(rewriter, loc, index.positions);
    memref::DeallocOp::create(rewriter, loc, index.counts);
    rewriter.eraseOp(op);
    return success();
  }

  /// What the choice's number means (pitCudaLastChoice reports it).
  static void remarkChoices(Operation *op,
                            ArrayRef<SelectableVariant> variants) {
    InFlightDiagnostic remark =
        op->emitRemark("pit-sparsify: chooses at run time among ");
    for (auto [number, variant] : llvm::enumerate(variants)) {
      remark << "variant " << number << " ";
      describeVariant(remark, variant.rule);
      remark << (number + 1 < variants.size() ? ", " : " and ");
    }
    remark << "dense (" << variants.size() << ")";
    remark.report();
  }

  /// Detection for every distinct index of `variants`, pit.select, and a
  /// switch over the variants' STiles with `op` itself as the dense
  /// fallback. With a sample, the choice reads pit.count's counts and each
  /// detection runs only where a variant that reads its index is chosen.
  void sparsifyWithSelection(linalg::LinalgOp op, const PITRules &rules,
                             ArrayRef<SelectableVariant> variants,
                             double denseLatency) {
    IRRewriter rewriter(op);
    Location loc = op.getLoc();
    linalg::FillOp fill = findOutputFill(op);
    auto mark = op->getAttrOfType<SparseAttr>(PITDialect::getSparseAttrName());
    Value sparse = op->getOperand(mark.getOperand());

    // Variants that gather the same micro-tiles along the same dimension
    // share one index.
    bool sampled = sampleEvery > 0;
    SmallVector<MicroTileIndex> indices;
    SmallVector<const STileRule *> indexRules;
    SmallVector<Value> choiceCounts;
    SmallVector<IndexKey> indexKeys;
    SmallVector<unsigned> indexOfVariant;
    for (const SelectableVariant &variant : variants) {
      IndexKey key = getIndexKey(variant.rule);
      auto *found = llvm::find(indexKeys, key);
      indexOfVariant.push_back(found - indexKeys.begin());
      if (found != indexKeys.end())
        continue;
      indexKeys.push_back(key);
      indexRules.push_back(&variant.rule);
      indices.push_back(allocateIndex(rewriter, loc, sparse, variant.rule));
    }
    // The indices are allocated first: the GPU lowering clears their counts
    // right after, before the first count's kernel, so that one memset
    // clears them all (DeviceSelection's hoistPrivateMemset, PITToGPU's
    // mergeArenaMemsets).
    for (auto [rule, index] : llvm::zip(indexRules, indices)) {
      if (!sampled)
        emitDetection(rewriter, loc, sparse, *rule, index);
      choiceCounts.push_back(sampled
                                 ? emitSampleCount(rewriter, loc, sparse,
                                                   *rule, sampleEvery)
                                 : index.counts);
    }

    SmallVector<Value> counts;
    SmallVector<int64_t> capacities;
    SmallVector<Attribute> latencies, denseLatencies;
    for (auto [variant, number] : llvm::zip(variants, indexOfVariant)) {
      counts.push_back(choiceCounts[number]);
      capacities.push_back(getIndexExtents(sparse, variant.rule).second);
      latencies.push_back(rewriter.getDenseF64ArrayAttr(variant.latencies));
      denseLatencies.push_back(
          rewriter.getDenseF64ArrayAttr(variant.denseLatencies));
    }
    // Dense's tables by pattern count where every variant has one.
    bool denseByPattern = llvm::all_of(variants, [](const auto &variant) {
      return !variant.denseLatencies.empty();
    });
    remarkChoices(op, variants);
    Value choice = SelectOp::create(
        rewriter, loc, rewriter.getIndexType(), counts,
        rewriter.getDenseI64ArrayAttr(capacities),
        rewriter.getDenseF64ArrayAttr(database->getCoverage()),
        rewriter.getArrayAttr(latencies),
        rewriter.getF64FloatAttr(denseLatency),
        denseByPattern ? rewriter.getArrayAttr(denseLatencies) : ArrayAttr());

    // Each index is detected where a variant that reads it is chosen.
    if (sampled) {
      for (auto [number, index] : llvm::enumerate(indices)) {
        Value needed;
        for (auto [variantNumber, indexNumber] :
             llvm::enumerate(indexOfVariant)) {
          if (indexNumber != number)
            continue;
          Value isVariant = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq, choice,
              arith::ConstantIndexOp::create(rewriter, loc, variantNumber));
          needed = needed ? arith::OrIOp::create(rewriter, loc, needed,
                                                 isVariant)
                          : isVariant;
        }
        auto ifOp = scf::IfOp::create(rewriter, loc, needed,
                                      /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        emitDetection(rewriter, loc, sparse, *indexRules[number], index);
      }
    }

    SmallVector<int64_t> cases =
        llvm::to_vector(llvm::seq<int64_t>(0, variants.size()));
    auto switchOp = scf::IndexSwitchOp::create(rewriter, loc, TypeRange{},
                                               choice, cases, cases.size());
    // Each case starts with the output's fill, which its lowering may fold.
    auto startCase = [&](Region &region) {
      Block &block = region.emplaceBlock();
      rewriter.setInsertionPointToStart(&block);
      scf::YieldOp::create(rewriter, loc);
      rewriter.setInsertionPointToStart(&block);
      if (fill)
        rewriter.clone(*fill);
    };
    for (auto [number, variant] : llvm::enumerate(variants)) {
      startCase(switchOp.getCaseRegions()[number]);
      emitSTile(rewriter, loc, op, rules, variant.rule,
                indices[indexOfVariant[number]]);
    }
    startCase(switchOp.getDefaultRegion());
    Operation *dense = rewriter.clone(*op);
    dense->removeAttr(PITDialect::getSparseAttrName());

    rewriter.setInsertionPointAfter(switchOp);
    for (auto [index, choiceCount] : llvm::zip(indices, choiceCounts)) {
      memref::DeallocOp::create(rewriter, loc, index.positions);
      memref::DeallocOp::create(rewriter, loc, index.counts);
      if (choiceCount != index.counts)
        memref::DeallocOp::create(rewriter, loc, choiceCount);
    }
    rewriter.eraseOp(op);
    if (fill)
      rewriter.eraseOp(fill);
  }

  std::optional<STileDatabase> database;
};

} // namespace
