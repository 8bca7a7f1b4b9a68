//===- DeviceSelection.cpp - Run-time selection on the device -------------===//

#include "DeviceSelection.h"

#include "PIT/Conversion/PITToGPU.h"

#include "KernelBuilder.h"

#include "PIT-runtime/CudaRuntime.h"
#include "PIT/Conversion/Selection.h"
#include "PIT/Dialect/PIT/IR/PITDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Threads of the choosing kernel: its loads of the counts are spread over
/// them, since one thread would wait for each load in turn.
constexpr int64_t kChoiceThreads = 256;

/// The choice buffer holds the variant chosen plus this. It is cleared at
/// the call's start, so that a guarded kernel reading it before it waits
/// for the kernels before it tells a choice from none yet (guardLaunch).
constexpr int64_t kChoiceBias = 1;

/// What a guarded kernel that is not chosen still costs: it launches, its
/// blocks read the choice and exit, wave after wave. On an H100
/// (timelines of selecting calls and bench/probes/conditional_nodes.cu,
/// 2026-11-24): 0.9-1.0 us for the dense fallback's 132 blocks, 2.2-3.0 us
/// for a detection's or an STile's 2048; the 7 kernels that a 1x64 call
/// choosing dense leaves, 7.8 us. A grid whose size is known only at run
/// time (the persistent blocks, one a multiprocessor) counts as
/// kRunTimeGridBlocks.
constexpr double kUnchosenKernelMicroseconds = 0.7;
constexpr double kUnchosenBlockMicroseconds = 0.0011;
constexpr int64_t kRunTimeGridBlocks = 132;

/// The cost of `launch` not chosen (see kUnchosenKernelMicroseconds).
double unchosenCost(gpu::LaunchOp launch) {
  std::optional<int64_t> blocks = getConstantIntValue(launch.getGridSizeX());
  return kUnchosenKernelMicroseconds +
         kUnchosenBlockMicroseconds * blocks.value_or(kRunTimeGridBlocks);
}

/// Whether a memset of `buffer` may run whatever the choice: the function
/// allocates it, and only the guarded regions use it (besides its memsets
/// and its free), so no work that runs sees what it holds when their
/// variant is not chosen.
bool isPrivateToGuarded(Value buffer, ArrayRef<Region *> guarded) {
  if (!buffer.getDefiningOp<gpu::AllocOp>())
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return isa<gpu::MemsetOp, gpu::DeallocOp>(user) ||
           llvm::any_of(guarded, [&](Region *region) {
             return region->isAncestor(user->getParentRegion());
           });
  });
}

/// Why `region` cannot run under a choice made on the device, or null: its
/// kernels can be guarded, its allocations and the memsets of buffers only
/// the guarded regions use run anyway, but any other host op with effects
/// would run whatever the choice.
Operation *findUnguardableOp(Region &region, ArrayRef<Region *> guarded) {
  for (Operation &op : region.front().without_terminator()) {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      if (!launch.getBody().hasOneBlock())
        return &op;
      continue;
    }
    if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
      if (!isPrivateToGuarded(memset.getDst(), guarded))
        return &op;
      continue;
    }
    if (!isa<gpu::AllocOp, gpu::DeallocOp>(op) && !isMemoryEffectFree(&op))
      return &op;
  }
  return nullptr;
}

/// Moves `memset` (of a buffer only the guarded regions use, which it
/// clears whatever the choice) to right after its buffer's allocation in
/// `block`: the call's memsets then come first, together, instead of one
/// between two kernels, where it would stop the second from being launched
/// as a dependent of the first (a memset waits for all work before it, and
/// the next kernel for the memset). Left in place where the allocation is
/// elsewhere, the value is not a constant, or the buffer has other memsets
/// (whose order against the guarded kernels would matter).
void hoistPrivateMemset(RewriterBase &rewriter, gpu::MemsetOp memset,
                        Block *block) {
  auto alloc = memset.getDst().getDefiningOp<gpu::AllocOp>();
  Operation *value = memset.getValue().getDefiningOp();
  bool onlyMemset =
      llvm::count_if(memset.getDst().getUsers(), [](Operation *user) {
        return isa<gpu::MemsetOp>(user);
      }) == 1;
  if (!alloc || alloc->getBlock() != block || !value ||
      !value->hasTrait<OpTrait::ConstantLike>() || !onlyMemset)
    return;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfter(alloc);
  Operation *hoistedValue = rewriter.clone(*value);
  gpu::MemsetOp::create(rewriter, memset.getLoc(), /*asyncToken=*/Type(),
                        ValueRange{}, memset.getDst(),
                        hoistedValue->getResult(0));
  rewriter.eraseOp(memset);
}

/// A kernel of one block that writes `op`'s choice into `choice`
/// (memref<1xi32>), and into slot `slot` of the runtime's record of choices
/// at device address `record` (an i64; none where it is null, or 0: the
/// runtime had no record): its threads add up the counts of each distinct
/// index, each its share, then by halves in shared memory (the same address
/// added to by every thread, atomically, serialized them: 10 us a call);
/// one thread evaluates the cost model.
void buildChoiceKernel(OpBuilder &b, Location loc, SelectOp op, Value choice,
                       Value record, int64_t slot,
                       ArrayRef<double> overheads) {
  KernelBuilder k{b, loc};
  llvm::SetVector<Value> distinct(op.getCounts().begin(),
                                  op.getCounts().end());
  Type i64 = b.getI64Type();
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto partialsType = MemRefType::get(
      {static_cast<int64_t>(distinct.size()), kChoiceThreads}, i64,
      MemRefLayoutAttrInterface(), workgroup);
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch =
      createLaunch(b, loc, /*numBlocks=*/1, kChoiceThreads, partialsType);
  Value partials = launch.getWorkgroupAttributions()[0];
  Value tid = launch.getThreadIds().x;
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);

  for (auto [slot, counts] : llvm::enumerate(distinct)) {
    int64_t segments = cast<MemRefType>(counts.getType()).getDimSize(0);
    auto loop = scf::ForOp::create(
        b, loc, tid, k.index(segments), k.index(kChoiceThreads),
        ValueRange{zero},
        [&](OpBuilder &b, Location loc, Value segment, ValueRange partial) {
          Value count = memref::LoadOp::create(b, loc, counts, segment);
          Value wide = arith::ExtUIOp::create(b, loc, i64, count);
          scf::YieldOp::create(
              b, loc, ValueRange{arith::AddIOp::create(b, loc, partial[0], wide)});
        });
    memref::StoreOp::create(b, loc, loop.getResult(0), partials,
                            ValueRange{k.index(slot), tid});
  }
  for (int64_t half = kChoiceThreads / 2; half > 0; half /= 2) {
    gpu::BarrierOp::create(b, loc);
    k.buildIf(k.ult(tid, k.index(half)), [&] {
      for (int64_t slot = 0; slot < static_cast<int64_t>(distinct.size());
           ++slot) {
        Value mine = memref::LoadOp::create(b, loc, partials,
                                            ValueRange{k.index(slot), tid});
        Value other = memref::LoadOp::create(
            b, loc, partials,
            ValueRange{k.index(slot), k.add(tid, k.index(half))});
        memref::StoreOp::create(b, loc,
                                arith::AddIOp::create(b, loc, mine, other),
                                partials, ValueRange{k.index(slot), tid});
      }
    });
  }
  // One thread evaluates the cost model (thread 0 wrote the last sums).
  auto firstThread = scf::IfOp::create(b, loc, k.ult(tid, k.index(1)),
                                       /*withElse=*/false);
  b.setInsertionPoint(firstThread.thenBlock()->getTerminator());
  SmallVector<Value> totals;
  for (Value counts : op.getCounts()) {
    int64_t slot = llvm::find(distinct, counts) - distinct.begin();
    Value sum = memref::LoadOp::create(b, loc, partials,
                                       ValueRange{k.index(slot), k.index(0)});
    totals.push_back(
        arith::UIToFPOp::create(b, loc, b.getF64Type(), sum).getResult());
  }
  Value chosen = buildVariantChoice(b, loc, op, totals, overheads);
  Value narrow =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), chosen);
  // Volatile: the guarded kernels may read it while it is written.
  k.inlinePtx(/*result=*/Type(),
              ValueRange{k.elementAddress(choice, {k.index(0)}),
                         arith::AddIOp::create(b, loc, narrow,
                                               k.i32(kChoiceBias))},
              "st.volatile.b32 [$0], $1;", "l,r,~{memory}");
  if (!record)
    return;
  Value none = arith::ConstantIntOp::create(b, loc, 0, 64);
  k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, record,
                                  none),
            [&] {
    Value offset = arith::ConstantIntOp::create(
        b, loc, slot * static_cast<int64_t>(sizeof(int32_t)), 64);
    Value pointer = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()),
        arith::AddIOp::create(b, loc, record, offset).getResult());
    LLVM::StoreOp::create(b, loc, narrow, pointer);
  });
}

/// The device address (i64) of the runtime's record of choices, asked at
/// the entry of `op`'s function, or null where the record has no slot
/// `slot`.
Value buildChoiceRecord(OpBuilder &b, SelectOp op, int64_t slot) {
  if (slot >= PIT_CUDA_CHOICE_SLOTS)
    return nullptr;
  Block *entry = &op->getParentOfType<func::FuncOp>().getBody().front();
  return buildRuntimeQueryAtEntry(b, op.getLoc(), entry, "pitCudaChoiceRecord");
}

/// Makes `launch` do its work only when `isChosen(choice)` holds: its body
/// moves into an scf.if on the choice (the same for all threads, so
/// barriers inside stay uniform).
///
/// With `endsEarly`, its threads first read the choice, volatile, before
/// the kernel waits for the kernels before it: where the choosing kernel has
/// written it and it leaves this kernel out, the kernel ends there, without
/// waiting (one of a call's chain of dependent launches, it would otherwise
/// wait for the one before it to end, and the next one for it: about a
/// microsecond a kernel). Otherwise it waits (at the `pit.dependent_wait`
/// mark, which pit-dependent-launch makes its wait) and reads the choice
/// again where it had not been written. Kernels right after the choosing
/// one rarely find it written, and would then read it twice: they read it
/// once, after the wait.
void guardLaunch(RewriterBase &rewriter, gpu::LaunchOp launch, Value choice,
                 function_ref<Value(OpBuilder &, Value)> isChosen,
                 bool endsEarly) {
  Location loc = launch.getLoc();
  Block &body = launch.getBody().front();
  Operation *terminator = body.getTerminator();
  rewriter.setInsertionPointToStart(&body);
  KernelBuilder k{rewriter, loc};
  Value bias = k.i32(kChoiceBias);
  auto loadChoice = [&](OpBuilder &b, Location loc) -> Value {
    Value loaded = memref::LoadOp::create(
        b, loc, choice, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
    return arith::SubIOp::create(b, loc, loaded, bias);
  };
  // The guard's outermost op, and the block the kernel's body moves into.
  Operation *guard;
  Block *then;
  if (!endsEarly) {
    auto chosen = scf::IfOp::create(
        rewriter, loc, isChosen(rewriter, loadChoice(rewriter, loc)),
        /*withElse=*/false);
    guard = chosen;
    then = chosen.thenBlock();
  } else {
    Value address = k.elementAddress(choice, {k.index(0)});
    Value early = k.inlinePtx(rewriter.getI32Type(), ValueRange{address},
                              "ld.volatile.b32 $0, [$1];", "=r,l")
                      .getResult(0);
    Value notYet = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, early, bias);
    Value earlyChoice = arith::SubIOp::create(rewriter, loc, early, bias);
    // It runs on (and waits) unless the choice is made and leaves it out.
    auto runs = scf::IfOp::create(
        rewriter, loc,
        arith::OrIOp::create(rewriter, loc, notYet,
                             isChosen(rewriter, earlyChoice)),
        /*withElse=*/false);
    guard = runs;
    rewriter.setInsertionPoint(runs.thenBlock()->getTerminator());
    k.inlinePtx(/*result=*/Type(), ValueRange{}, "", "~{memory}")
        ->setAttr(PITDialect::getDependentWaitAttrName(),
                  rewriter.getUnitAttr());
    auto read = scf::IfOp::create(
        rewriter, loc, notYet,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, loadChoice(b, loc));
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, earlyChoice);
        });
    auto chosen = scf::IfOp::create(rewriter, loc,
                                    isChosen(rewriter, read.getResult(0)),
                                    /*withElse=*/false);
    then = chosen.thenBlock();
  }
  then->getOperations().splice(then->getTerminator()->getIterator(),
                               body.getOperations(),
                               std::next(guard->getIterator()),
                               terminator->getIterator());
}

/// Replaces `region`'s parent op by the region's block, each kernel of it
/// guarded by `isChosen`.
void inlineGuarded(RewriterBase &rewriter, Region &region, Value choice,
                   function_ref<Value(OpBuilder &, Value)> isChosen,
                   bool endsEarly) {
  Block &block = region.front();
  for (auto launch : llvm::to_vector(block.getOps<gpu::LaunchOp>()))
    guardLaunch(rewriter, launch, choice, isChosen, endsEarly);
  rewriter.eraseOp(block.getTerminator());
  rewriter.inlineBlockBefore(&block, region.getParentOp());
}

/// Replaces `op` by its then-region, whose kernels run where `condition`
/// (a function of `selected`, the select's result, through `predicate`'s
/// pure ops) holds for the device's choice: each kernel computes it again
/// from the value it reads.
void predicateIf(RewriterBase &rewriter, scf::IfOp op, Value selected,
                 ArrayRef<Operation *> predicate, Value choice) {
  inlineGuarded(rewriter, op.getThenRegion(), choice,
                [&](OpBuilder &b, Value chosen) -> Value {
    IRMapping mapping;
    mapping.map(selected, arith::IndexCastOp::create(
                              b, op.getLoc(), b.getIndexType(), chosen));
    for (Operation *predicateOp : predicate)
      b.clone(*predicateOp, mapping);
    return mapping.lookup(op.getCondition());
  }, /*endsEarly=*/false);
  rewriter.eraseOp(op);
}

/// Replaces `op` by all its regions in order, the kernels of each guarded
/// by whether `choice` names that region (a case's value, or none of them
/// for the default). The kernels of every region but the first end early
/// where the choice leaves them out (guardLaunch): they come after another
/// variant's kernels, by when the choice is made. (The first region's, and
/// those of the ifs, the detections the variants share, come right after
/// the choosing kernel: on an H100, 1x64 at 50%, early ends in every kernel
/// cost 1.5 us a call, the first kernels reading the choice twice.)
void predicateSwitch(RewriterBase &rewriter, scf::IndexSwitchOp op,
                     Value choice) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> cases = op.getCases();
  auto compare = [&](OpBuilder &b, arith::CmpIPredicate predicate,
                     Value chosen, int64_t value) -> Value {
    Value constant = arith::ConstantIntOp::create(b, loc, value, 32);
    return arith::CmpIOp::create(b, loc, predicate, chosen, constant);
  };
  for (auto [number, value, region] :
       llvm::enumerate(cases, op.getCaseRegions()))
    inlineGuarded(rewriter, region, choice,
                  [&, value = value](OpBuilder &b, Value chosen) {
      return compare(b, arith::CmpIPredicate::eq, chosen, value);
    }, /*endsEarly=*/number > 0);
  inlineGuarded(rewriter, op.getDefaultRegion(), choice,
                [&](OpBuilder &b, Value chosen) {
    Value none = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (int64_t value : cases)
      none = arith::AndIOp::create(
          b, loc, none, compare(b, arith::CmpIPredicate::ne, chosen, value));
    return none;
  }, /*endsEarly=*/!cases.empty());
  rewriter.eraseOp(op);
}

/// What a pit.select decides on the host: switches over its result, and
/// ifs whose condition pure ops compute from it (and constants) alone.
struct ChoiceUsers {
  SmallVector<scf::IndexSwitchOp> switches;
  SmallVector<scf::IfOp> ifs;
  /// The pure ops between the result and the ifs' conditions.
  llvm::SetVector<Operation *> predicate;
  /// The regions whose kernels the choice will guard.
  SmallVector<Region *> guarded;
};

/// The users of `op`'s result, or failure with a diagnostic where one is
/// neither a switch nor an if without results in `op`'s block, nor a pure
/// op on the way to such an if's condition.
FailureOr<ChoiceUsers> findChoiceUsers(SelectOp op) {
  ChoiceUsers users;
  auto unsupported = [&](Operation *user) {
    return op.emitOpError(
               "can only choose on the device for scf.index_switch and scf.if "
               "ops without results that follow it in its block, and pure ops "
               "computing their conditions; used by ")
           << user->getName();
  };
  SmallVector<Value> worklist{op.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != op->getBlock())
        return unsupported(user);
      if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(user)) {
        if (switchOp.getArg() != op.getResult() || switchOp.getNumResults())
          return unsupported(user);
        users.switches.push_back(switchOp);
      } else if (auto ifOp = dyn_cast<scf::IfOp>(user)) {
        if (ifOp.getNumResults() || !ifOp.getElseRegion().empty())
          return unsupported(user);
        users.ifs.push_back(ifOp);
      } else if (isMemoryEffectFree(user) && user->getNumRegions() == 0 &&
                 !user->hasTrait<OpTrait::IsTerminator>()) {
        if (users.predicate.insert(user))
          llvm::append_range(worklist, user->getResults());
      } else {
        return unsupported(user);
      }
    }
  }
  // Each kernel computes the conditions again from the choice it reads.
  for (Operation *predicateOp : users.predicate)
    for (Value operand : predicateOp->getOperands())
      if (operand != op.getResult() &&
          !users.predicate.contains(operand.getDefiningOp()) &&
          !matchPattern(operand, m_Constant()))
        return predicateOp->emitOpError(
            "computes a condition on the choice from other values: it cannot "
            "be evaluated on the device");
  for (scf::IndexSwitchOp switchOp : users.switches)
    for (Region &region : switchOp->getRegions())
      users.guarded.push_back(&region);
  for (scf::IfOp ifOp : users.ifs)
    users.guarded.push_back(&ifOp.getThenRegion());
  for (Region *region : users.guarded)
    if (Operation *hostOp = findUnguardableOp(*region, users.guarded))
      return op.emitOpError("cannot choose on the device: a variant runs '")
             << hostOp->getName()
             << "' on the host, which would run whatever the choice";
  return users;
}

/// Whether `condition` holds where `selected` (the select's result) is
/// `variant`: its pure ops folded from constants; none where one does not
/// fold. An op is folded only once all its operands are known (a fold
/// with some unknown may rewrite the op in place, such as a comparison
/// moving its constant to the right), and each value is evaluated once.
std::optional<bool> holdsFor(Value condition, Value selected,
                             int64_t variant) {
  // Null where the value does not fold.
  DenseMap<Value, Attribute> known;
  known[selected] = IntegerAttr::get(IndexType::get(selected.getContext()),
                                     variant);
  std::function<Attribute(Value)> valueOf = [&](Value value) -> Attribute {
    if (auto it = known.find(value); it != known.end())
      return it->second;
    Attribute attr;
    Operation *def = value.getDefiningOp();
    if (!matchPattern(value, m_Constant(&attr)) && def &&
        def->getNumResults() == 1 && def->getNumOperands() &&
        !def->getNumRegions() && isMemoryEffectFree(def)) {
      SmallVector<Attribute> operands =
          llvm::map_to_vector(def->getOperands(), valueOf);
      SmallVector<OpFoldResult> folded;
      if (llvm::all_of(operands, [](Attribute a) { return bool(a); }) &&
          succeeded(def->fold(operands, folded)) && folded.size() == 1)
        attr = isa<Value>(folded.front())
                   ? valueOf(cast<Value>(folded.front()))
                   : cast<Attribute>(folded.front());
    }
    return known[value] = attr;
  };
  auto holds = dyn_cast_if_present<IntegerAttr>(valueOf(condition));
  if (!holds)
    return std::nullopt;
  return holds.getValue().getBoolValue();
}

/// What choosing each variant (and dense, last) costs besides its own
/// latency, which the table measured with its own kernels only: the
/// guarded kernels that do not run with it (unchosenCost; none counted
/// where a condition does not fold). Choosing dense leaves every sparse
/// variant's kernels; a sparse variant leaves the dense fallback and the
/// other variants'.
SmallVector<double> unchosenKernelCosts(SelectOp op, const ChoiceUsers &users) {
  int64_t choices = op.getNumVariants() + 1;
  SmallVector<double> costs(choices, 0.0);
  auto addKernelsOf = [&](Region &region,
                          function_ref<std::optional<bool>(int64_t)> runs) {
    double cost = 0.0;
    for (gpu::LaunchOp launch : region.front().getOps<gpu::LaunchOp>())
      cost += unchosenCost(launch);
    for (int64_t variant = 0; variant < choices; ++variant)
      if (runs(variant) == false)
        costs[variant] += cost;
  };
  for (scf::IndexSwitchOp switchOp : users.switches) {
    ArrayRef<int64_t> cases = switchOp.getCases();
    for (auto [value, region] : llvm::zip(cases, switchOp.getCaseRegions()))
      addKernelsOf(region, [value = value](int64_t variant) {
        return std::optional<bool>(variant == value);
      });
    addKernelsOf(switchOp.getDefaultRegion(), [&](int64_t variant) {
      return std::optional<bool>(!llvm::is_contained(cases, variant));
    });
  }
  for (scf::IfOp ifOp : users.ifs)
    addKernelsOf(ifOp.getThenRegion(), [&](int64_t variant) {
      return holdsFor(ifOp.getCondition(), op.getResult(), variant);
    });
  return costs;
}

/// `condition`'s computation from the choice: the constants it depends on
/// (from any block), then its predicate ops in block order (all in the
/// select's block).
SmallVector<Operation *> sliceOf(Value condition, const ChoiceUsers &users) {
  llvm::SetVector<Operation *> constants, predicate;
  SmallVector<Value> worklist{condition};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def)
      continue;
    if (def->hasTrait<OpTrait::ConstantLike>())
      constants.insert(def);
    else if (users.predicate.contains(def) && predicate.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered = predicate.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  ordered.insert(ordered.begin(), constants.begin(), constants.end());
  return ordered;
}

} // namespace

LogicalResult mlir::pit::lowerSelectOnDevice(RewriterBase &rewriter,
                                             SelectOp op, int64_t slot) {
  FailureOr<ChoiceUsers> users = findChoiceUsers(op);
  if (failed(users))
    return failure();

  SmallVector<gpu::MemsetOp> memsets;
  for (Region *region : users->guarded)
    llvm::append_range(memsets, region->front().getOps<gpu::MemsetOp>());

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // None chosen yet (zero) until the choosing kernel writes it.
  Value choice = buildZeroedCounter(rewriter, loc);
  Value record = buildChoiceRecord(rewriter, op, slot);
  buildChoiceKernel(rewriter, loc, op, choice, record, slot,
                    unchosenKernelCosts(op, *users));
  Operation *last = op;
  for (Region *region : users->guarded)
    if (last->isBeforeInBlock(region->getParentOp()))
      last = region->getParentOp();
  rewriter.setInsertionPointAfter(last);
  gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                         choice);
  for (scf::IfOp ifOp : users->ifs)
    predicateIf(rewriter, ifOp, op.getResult(),
                sliceOf(ifOp.getCondition(), *users), choice);
  for (scf::IndexSwitchOp switchOp : users->switches)
    predicateSwitch(rewriter, switchOp, choice);
  // Users before their operands.
  SmallVector<Operation *> predicate = users->predicate.takeVector();
  llvm::sort(predicate,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *predicateOp : predicate)
    rewriter.eraseOp(predicateOp);
  for (gpu::MemsetOp memset : memsets)
    hoistPrivateMemset(rewriter, memset, op->getBlock());
  rewriter.eraseOp(op);
  return success();
}

namespace {

/// Choices are recorded in slots numbered in the order the pattern meets
/// them.
struct SelectOnDevice : OpRewritePattern<SelectOp> {
  SelectOnDevice(MLIRContext *context, PITToGPUState &state)
      : OpRewritePattern<SelectOp>(context), state(state) {}

  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    return lowerSelectOnDevice(rewriter, op, state.nextChoiceSlot++);
  }

  PITToGPUState &state;
};

} // namespace

void mlir::pit::populateDeviceSelectionPatterns(RewritePatternSet &patterns,
                                                PITToGPUState &state) {
  patterns.add<SelectOnDevice>(patterns.getContext(), state);
}
