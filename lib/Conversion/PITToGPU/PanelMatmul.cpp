//===- PanelMatmul.cpp - Matmul STiles gathered along m with a panel ------===//
//
// The kernels of an STile gathered along m (rows of A) whose blocks own a
// panel of C's rows (pit.stile `panel`): one block per panel and n tile
// walks every k segment, adds the segment's rows that fall in its panel up
// in shared memory and stores the panel once, with no atomics. A small
// kernel first sorts the STile's index by panel.
//
//===----------------------------------------------------------------------===//

#include "MatmulTile.h"

#include "BlockMma.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Gathered along m with a panel: the rows of a block's unit of gathered
/// rows (one multiplication, then added into the panel), the stages of its
/// copies, and the shared memory the block takes.
constexpr int64_t kPanelUnitRows = 64, kPanelStages = 4;
/// Warpgroups a panel block multiplies with: with fewer columns than that
/// many warpgroups cover, replicas of them take the units in turn, so that
/// one's multiplication runs while another adds into the panel.
constexpr int64_t kPanelMmaWarpgroups = 2;
/// How many units ahead a copying warp brings B's rows into L2.
constexpr int64_t kPanelPrefetchUnits = 8;

/// Where column `column` (even) of C's rows, and the next, sit in row `row`
/// of the panel. A thread's accumulators hold columns 2c and 2c + 1 of
/// each 8-column block: the panel interleaves the blocks in pairs, column
/// 16 h + 8 s + 2 c + e of C at 16 h + 4 c + 2 s + e, so that the thread
/// adds the four of blocks 2h and 2h + 1 in one 16-byte access. Odd rows
/// swap the halves of each 32 columns (the column XOR 16): the two rows a
/// 16-byte access reaches at a time then fall into different banks half of
/// the time (random rows, no padding; with pairs of 8 bytes and rows padded
/// to 32-byte offsets, 4 rows at a time in 4 bank classes conflicted more).
Value panelColumn(KernelBuilder &k, Value row, Value column) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto bits = [&](Value value, int64_t shift, int64_t mask) {
    return arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, value, k.index(shift)).getResult(),
        k.index(mask));
  };
  Value group = arith::AndIOp::create(b, loc, column, k.index(~int64_t(15)));
  Value interleaved = k.add(
      group, k.add(k.mul(bits(column, 1, 3), k.index(4)),
                   k.mul(bits(column, 3, 1), k.index(2))));
  Value swap = k.mul(bits(row, 0, 1), k.index(16));
  return arith::XOrIOp::create(b, loc, interleaved, swap);
}

/// The shared buffers of a panel block after its tiles, with `stages`
/// stages of `shape`: the panel of `panelRows` rows (f32 sums), the units
/// of each of `numSegments` segments, the rows of each segment, the rows of
/// the unit in each stage, the count of units, two mbarriers a stage, and,
/// where the panels group rows, the row of A of each of the panel's
/// `panelRows / microM` micro-tiles.
SmallVector<MemRefType> panelWorkspace(MLIRContext *context,
                                       const MmaTileShape &shape,
                                       int64_t panelRows, int64_t microM,
                                       bool groupRows, int64_t stages,
                                       int64_t numSegments) {
  Type f32 = Float32Type::get(context);
  Type i32 = IntegerType::get(context, 32);
  int64_t unitsPerSegment = llvm::divideCeil(panelRows, shape.m);
  SmallVector<MemRefType> buffers = {
      MemRefType::get({panelRows, shape.n}, f32),
      MemRefType::get({numSegments * unitsPerSegment}, i32),
      MemRefType::get({numSegments}, i32),
      MemRefType::get({stages, shape.m}, i32),
      MemRefType::get({1}, i32),
      StageBarriers::type(context, stages)};
  if (groupRows)
    buffers.push_back(MemRefType::get({panelRows / microM}, i32));
  return buffers;
}

/// Shared memory of a panel block with `stages` stages.
int64_t panelSharedBytes(MLIRContext *context, const MmaTileShape &shape,
                         int64_t panelRows, int64_t microM, bool groupRows,
                         int64_t stages, int64_t numSegments) {
  return BlockMma::dynamicSharedBytes(
      shape, stages, /*warpgroup=*/true,
      panelWorkspace(context, shape, panelRows, microM, groupRows, stages,
                     numSegments));
}

/// The index of an STile gathered along m, sorted by panel: for each
/// segment and panel, the count of the segment's micro-tiles in the panel
/// (memref<segments x panels x i32>) and, in no order, each one's position
/// in A and slot in the panel, as position * (micro-tiles a panel) + slot
/// (memref<segments x panels x micro-tiles a panel x i32>). With an
/// `order`, the panels hold the micro-tiles of A's rows in that order
/// (memref<micro-tiles x i32>: the position in A of each slot of the
/// panels, one after the other); without one, in A's order.
struct PanelIndex {
  Value counts, positions, order;
};

/// The order of the micro-tiles of A's rows in the panels: `order` (the
/// position in A of each slot) and `slots` (the slot of each position),
/// both memref<micro-tiles x i32>.
struct RowOrder {
  Value order, slots;
};

/// Blocks of the kernel that sorts an index by panel; past that, threads
/// take several slots.
constexpr int64_t kSortBlocks = 512, kSortThreads = 256;
/// Threads of the one block that orders the micro-tiles of A's rows.
constexpr int64_t kOrderThreads = 1024;
/// The most rows a thread of that block orders (its keys stay in
/// registers).
constexpr int64_t kMaxOrderedRowsPerThread = 16;

/// Runs `body(segment, position)` for every micro-tile of the STile's index,
/// a thread for each slot of the index (kSortBlocks x kSortThreads threads
/// at most, which then take several slots).
void forEachIndexEntry(OpBuilder &b, Location loc, const MatmulTile &t,
                       function_ref<void(Value, Value)> body) {
  KernelBuilder k{b, loc};
  int64_t capacity = t.extentM / t.microM;
  OpBuilder::InsertionGuard guard(b);
  int64_t slots = t.numSegments * capacity;
  int64_t numBlocks =
      std::min<int64_t>(llvm::divideCeil(slots, kSortThreads), kSortBlocks);
  gpu::LaunchOp launch = createLaunch(b, loc, numBlocks, kSortThreads);
  Value first = k.add(k.mul(launch.getBlockIds().x, k.index(kSortThreads)),
                      launch.getThreadIds().x);
  auto loop = scf::ForOp::create(b, loc, first, k.index(slots),
                                 k.index(numBlocks * kSortThreads));
  b.setInsertionPointToStart(loop.getBody());
  Value slot = loop.getInductionVar();
  Value segment = k.div(slot, capacity);
  Value within = k.rem(slot, capacity);
  k.buildIf(k.ult(within, loadCount(k, t.counts, segment)), [&] {
    body(segment, k.toIndex(memref::LoadOp::create(
                      b, loc, t.positions, ValueRange{segment, within})));
  });
}

/// Orders the micro-tiles of A's rows so that a panel holds rows that share
/// a segment: the rows with several segments first (their panels take the
/// longest: buildPanelAlongM starts them first), then the rows with one
/// segment, by segment, then the empty ones. A panel's units are its rows
/// of each segment, so at high sparsity a panel of consecutive rows has a
/// unit of a few rows in every segment (1x64 at 99%: about 5 rows of 64 in
/// each of 64 segments), while the rows of one segment together fill a unit
/// (about 41 rows). Permuting C's rows is free (PIT): a panel is stored
/// into its rows wherever they are. Rows with several segments keep no
/// particular order (in a panel of them, every segment has rows anyway).
///
/// A kernel for each slot of the index counts each row's segments and
/// records one of them; then one block claims each row a slot after the
/// rows of smaller keys (in no order within a key), its threads holding
/// their rows' keys in registers (whyNoRowOrder checks that they fit).
RowOrder buildRowOrder(OpBuilder &b, Location loc, const MatmulTile &t) {
  assert(whyNoRowOrder(t).empty() && "matchMatmulTile checks the order fits");
  int64_t capacity = t.extentM / t.microM;
  int64_t numKeys = t.numSegments + 2;
  int64_t rowsPerThread = llvm::divideCeil(capacity, kOrderThreads);
  KernelBuilder k{b, loc};
  Type i32 = b.getI32Type();
  auto rowsType = MemRefType::get({capacity}, i32);
  Value segmentsOf = memref::AllocOp::create(b, loc, rowsType);
  Value segmentOf = memref::AllocOp::create(b, loc, rowsType);
  linalg::FillOp::create(b, loc, k.i32(0), segmentsOf);
  forEachIndexEntry(b, loc, t, [&](Value segment, Value row) {
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, k.i32(1),
                                segmentsOf, ValueRange{row});
    // Only a row with one segment reads it back: one writer.
    memref::StoreOp::create(b, loc, k.toI32(segment), segmentOf, row);
  });

  RowOrder rowOrder{memref::AllocOp::create(b, loc, rowsType),
                    memref::AllocOp::create(b, loc, rowsType)};
  {
    OpBuilder::InsertionGuard guard(b);
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    gpu::LaunchOp launch = createLaunch(
        b, loc, /*numBlocks=*/1, kOrderThreads,
        MemRefType::get({numKeys}, i32, MemRefLayoutAttrInterface(),
                        workgroup));
    Value keyCounts = launch.getWorkgroupAttributions()[0];
    Value tid = launch.getThreadIds().x;
    auto claim = [&](Value key) {
      return memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                         k.i32(1), keyCounts, ValueRange{key})
          .getResult();
    };
    // Row tid + i kOrderThreads for each i: its key, loaded once (the
    // loads of all of them in flight together): 0 if it has several
    // segments, 1 + its segment if it has one, numSegments + 1 if none.
    SmallVector<std::pair<Value, Value>> rowsAndKeys;
    for (int64_t i = 0; i < rowsPerThread; ++i) {
      Value row = k.add(tid, k.index(i * kOrderThreads));
      Value clamped = arith::MinUIOp::create(b, loc, row, k.index(capacity - 1));
      Value count = memref::LoadOp::create(b, loc, segmentsOf, clamped);
      Value segment = memref::LoadOp::create(b, loc, segmentOf, clamped);
      Value key = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                k.i32(0)),
          k.i32(t.numSegments + 1), k.i32(0));
      key = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                k.i32(1)),
          arith::AddIOp::create(b, loc, segment, k.i32(1)), key);
      rowsAndKeys.push_back({row, k.toIndex(key)});
    }
    auto forEachRow = [&](function_ref<void(Value, Value)> body) {
      for (auto [row, key] : rowsAndKeys) {
        if (capacity % kOrderThreads == 0)
          body(row, key);
        else
          k.buildIf(k.ult(row, k.index(capacity)), [&] { body(row, key); });
      }
    };
    auto forEachKey = [&](function_ref<void(Value)> body) {
      auto loop = scf::ForOp::create(b, loc, tid, k.index(numKeys),
                                     k.index(kOrderThreads));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      body(loop.getInductionVar());
    };
    forEachKey([&](Value key) {
      memref::StoreOp::create(b, loc, k.i32(0), keyCounts, key);
    });
    gpu::BarrierOp::create(b, loc);
    forEachRow([&](Value, Value key) { claim(key); });
    gpu::BarrierOp::create(b, loc);
    // The first warp turns the counts into each key's first slot, 32 keys
    // a round.
    k.buildIf(k.ult(tid, k.index(kWarpSize)), [&] {
      int64_t rounds = llvm::divideCeil(numKeys, kWarpSize);
      auto scan = scf::ForOp::create(b, loc, k.index(0), k.index(rounds),
                                     k.index(1), ValueRange{k.i32(0)});
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(scan.getBody());
      Value key = k.add(k.mul(scan.getInductionVar(), k.index(kWarpSize)),
                        tid);
      Value inRange = k.ult(key, k.index(numKeys));
      Value clamped =
          arith::MinUIOp::create(b, loc, key, k.index(numKeys - 1));
      Value count = arith::SelectOp::create(
          b, loc, inRange,
          memref::LoadOp::create(b, loc, keyCounts, clamped), k.i32(0));
      Value inclusive = k.inclusiveWarpSum(count);
      Value base = scan.getRegionIterArgs()[0];
      k.buildIf(inRange, [&] {
        memref::StoreOp::create(
            b, loc,
            arith::SubIOp::create(
                b, loc, arith::AddIOp::create(b, loc, base, inclusive), count),
            keyCounts, key);
      });
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::AddIOp::create(b, loc, base,
                                           k.warpTotal(inclusive))});
    });
    gpu::BarrierOp::create(b, loc);
    forEachRow([&](Value row, Value key) {
      Value slot = claim(key);
      memref::StoreOp::create(b, loc, k.toI32(row), rowOrder.order,
                              k.toIndex(slot));
      memref::StoreOp::create(b, loc, slot, rowOrder.slots, row);
    });
  }
  memref::DeallocOp::create(b, loc, segmentsOf);
  memref::DeallocOp::create(b, loc, segmentOf);
  return rowOrder;
}

/// Sorts the STile's index by panel of `t.panelRows` rows: the micro-tiles
/// of A's rows are ordered (buildRowOrder), the counts are cleared (a fill,
/// which becomes a memset, or a kernel inside a variant of run-time
/// selection), then a thread for each slot of the index claims a slot in
/// its panel with an atomic add.
PanelIndex buildPanelIndex(OpBuilder &b, Location loc, const MatmulTile &t,
                           const RowOrder &rowOrder) {
  KernelBuilder k{b, loc};
  int64_t numPanels = t.extentM / t.panelRows;
  int64_t panelCapacity = t.panelRows / t.microM;
  Type i32 = b.getI32Type();
  PanelIndex index;
  index.order = rowOrder.order;
  index.counts = memref::AllocOp::create(
      b, loc, MemRefType::get({t.numSegments, numPanels}, i32));
  index.positions = memref::AllocOp::create(
      b, loc, MemRefType::get({t.numSegments, numPanels, panelCapacity}, i32));
  linalg::FillOp::create(b, loc, k.i32(0), index.counts);
  forEachIndexEntry(b, loc, t, [&](Value segment, Value position) {
    Value ordered =
        rowOrder.slots
            ? k.toIndex(memref::LoadOp::create(b, loc, rowOrder.slots,
                                               ValueRange{position}))
            : position;
    Value panel = k.div(ordered, panelCapacity);
    Value claimed = memref::AtomicRMWOp::create(
        b, loc, arith::AtomicRMWKind::addi, k.i32(1), index.counts,
        ValueRange{segment, panel});
    Value entry = k.add(k.mul(position, k.index(panelCapacity)),
                        k.rem(ordered, panelCapacity));
    memref::StoreOp::create(b, loc, k.toI32(entry), index.positions,
                            ValueRange{segment, panel, k.toIndex(claimed)});
  });
  return index;
}

/// How the panel kernel runs a tile: the strategy, chosen from the tile and
/// the chip apart from the kernel that carries it out.
struct PanelPlan {
  int64_t panelRows, numPanels, panelCapacity, unitsPerSegment;
  /// Shared-memory stages (as many of kPanelStages as fit) and the block's
  /// buffers.
  int64_t stages;
  SmallVector<MemRefType> workspace;
  /// The warpgroups that multiply (one for each 64 columns, in replicas
  /// that take units in turn), then one that copies the units in.
  int64_t columnWarpgroups, replicas;
  /// Whether B is a static row-major matrix (its rows' addresses are
  /// computed: L2 prefetches), and whether its chunks come by TMA.
  bool rowMajorB, tensorCopiesB;
};

PanelPlan planPanel(MLIRContext *context, const MatmulTile &t) {
  const MmaTileShape &s = t.shape;
  PanelPlan plan;
  plan.panelRows = t.panelRows;
  plan.numPanels = t.extentM / plan.panelRows;
  plan.panelCapacity = plan.panelRows / t.microM;
  plan.unitsPerSegment = llvm::divideCeil(plan.panelRows, s.m);
  plan.stages = kPanelStages;
  while (plan.stages > 2 &&
         panelSharedBytes(context, s, plan.panelRows, t.microM, t.groupRows,
                          plan.stages,
                          t.numSegments) > t.chip.sharedBytesPerBlock)
    --plan.stages;
  plan.workspace = panelWorkspace(context, s, plan.panelRows, t.microM,
                                  t.groupRows, plan.stages, t.numSegments);
  plan.columnWarpgroups = s.n / 64;
  plan.replicas =
      std::max<int64_t>(1, kPanelMmaWarpgroups / plan.columnWarpgroups);
  // B's chunk of a unit comes in with the TMA where B is a row-major
  // argument of the function (its tensor map is asked for at the entry):
  // one instruction of one lane instead of 16 rounds of the copying warp's
  // cp.async, each with its address arithmetic (1x64 at 90% on an H100,
  // p512: 164.0 -> 155.3 us a call; 64x128x64p256: 259.8 -> 218.0).
  auto typeB = cast<MemRefType>(t.b.getType());
  plan.rowMajorB = typeB.getLayout().isIdentity() && typeB.getRank() == 2 &&
                   typeB.hasStaticShape();
  plan.tensorCopiesB =
      plan.rowMajorB && isEntryArgument(t.b) && s.k == kSwizzleRowElements;
  return plan;
}

/// Gathered along m with a panel: a block per (panel of t.panelRows rows of
/// C, n tile) keeps its panel in shared memory (f32) and walks every k
/// segment. A segment's micro-tiles in the panel (from the sorted index)
/// make units of up to m gathered rows; a unit's rows of A and the
/// segment's rows of B are copied in (`stages` deep), multiplied, and added
/// into the panel rows they came from. The panel is stored into C once:
/// no atomics, and C is neither cleared nor read where it was only zeroed.
///
/// The block is warp-specialised (wgmma only): one warpgroup copies the
/// units in, the others multiply them and add them into the panel (with 64
/// columns, two replicas take the units in turn, so one multiplies while
/// the other adds); the two sides meet through each stage's mbarriers.
/// With a block barrier a unit instead, the 4 warps of an SM waited on
/// each other's copies, multiplications and adds in turn (1x64 at 90% on
/// an H100: 215 us for the kernel; 164 us split, with two replicas). A
/// copying warp loads its next unit's row positions while it issues the
/// current one, so that their latency overlaps that work, and brings the
/// rows of B of a unit further ahead into L2.
///
/// What bounds it (H100, 1x64, p512): not the copies. With every unit's B
/// from one segment (in cache) and no copies of A a call at 99% still took
/// 98.5 us of 119: what a unit costs whatever it holds (its stage's
/// mbarriers, a wgmma and its wait), 32768 units at 4096^3 at any
/// sparsity. At 90% the adds into the panel (shared-memory bound, in turn)
/// are a quarter of the kernel more.
class PanelKernel {
public:
  PanelKernel(OpBuilder &b, Location loc, const MatmulTile &t,
              const PanelIndex &index, const PanelPlan &plan)
      : b(b), loc(loc), k{b, loc}, t(t), s(t.shape), index(index),
        plan(plan) {}

  void build();

private:
  void buildLaunch();
  void locatePanel();
  void startPanel();
  void listUnits();
  void setUpStages();
  void assignRoles();
  void buildProducers();
  void buildConsumers();
  void storePanel();

  Value rowOfC(Value row);
  void forEachPanelPiece(function_ref<void(Value, Value)> body);
  void storePiece(Value value, Value row, Value column);
  Value loadPiece(Value row, Value column);
  std::tuple<Value, Value, Value> unitOf(Value unit);
  std::pair<Value, Value> pieceOf(int64_t round);
  Value gatheredRow(Value j, int64_t round);
  SmallVector<Value> prepare(Value unit);
  void issue(Value stage, Value unit, ValueRange slots);
  void issueB(Value stage, Value k0);
  void prefetchB(Value unit);
  SmallVector<Value> loadUnitRows(Value slot);
  void addIntoPanel(ValueRange acc, ValueRange rows);
  Value turnOf(Value replicaIndex);
  void takeTurn();
  void handOverTurn();
  void addInTurn(ValueRange acc, ValueRange rows);

  OpBuilder &b;
  Location loc;
  KernelBuilder k;
  const MatmulTile &t;
  const MmaTileShape &s;
  const PanelIndex &index;
  const PanelPlan &plan;
  Value mapB;
  std::optional<BlockMma> mma;
  std::optional<StageBarriers> stageBarriers;
  // units: unit u is number `j` of segment `seg`, as seg * unitsPerSegment
  // + j; segmentRows: the segment's gathered rows in the panel; unitRows:
  // each row of a stage's unit as a row of the panel (-1: padding);
  // barriers: each stage's `full` mbarrier, then each stage's `empty` one.
  Value panel, units, segmentRows, unitRows, numUnitsBuffer, barriers,
      panelOrder;
  int64_t threads = 0, consumers = 0, producerWarps = 0, producingWarps = 0;
  Value panelIndex, r0, n0, isFirstThread, numUnits;
  Value producerLane, producerWarp, accumulatorRow, replica, columnGroup,
      turnThreads;
  /// A unit's copies of A: 16-byte pieces of its rows, whole rounds of a
  /// warp (as are B's).
  int64_t piecesPerRow = 0, rounds = 0, roundsB = 0;
};

void PanelKernel::buildLaunch() {
  if (plan.tensorCopiesB)
    mapB = buildTensorMapAtEntry(b, loc, t.b, s.k, kSwizzleRowElements);
  mma.emplace(b, loc, s, plan.numPanels * (t.extentN / s.n), plan.stages,
              /*aStoredByK=*/false, /*warpgroupMma=*/true, plan.workspace,
              plan.columnWarpgroups, /*otherWarpgroups=*/1, plan.replicas);
  assert(mma->usesWarpgroupMma() && "whyNoPanel checks for wgmma");
  panel = mma->workspace[0];
  units = mma->workspace[1];
  segmentRows = mma->workspace[2];
  unitRows = mma->workspace[3];
  numUnitsBuffer = mma->workspace[4];
  barriers = mma->workspace[5];
  panelOrder = t.groupRows ? mma->workspace[6] : Value();
  threads = mma->numThreads;
  consumers = mma->mmaThreads;
  producerWarps = (threads - consumers) / kWarpSize;
  stageBarriers.emplace(k, barriers, plan.stages);
}

/// Without an order, the panels hold the same work: they vary fastest, so
/// that the blocks at work share a few column slabs of B. With one, the
/// panels of rows with several segments come first and take the longest (a
/// unit in every segment), the empty ones last: panel by panel, the longest
/// blocks start first and the shortest fill the last wave.
void PanelKernel::locatePanel() {
  int64_t numColumnTiles = t.extentN / s.n;
  Value columnTile;
  if (t.groupRows) {
    panelIndex = k.div(mma->blockId, numColumnTiles);
    columnTile = k.rem(mma->blockId, numColumnTiles);
  } else {
    panelIndex = k.rem(mma->blockId, plan.numPanels);
    columnTile = k.div(mma->blockId, plan.numPanels);
  }
  r0 = k.mul(panelIndex, k.index(plan.panelRows));
  n0 = k.mul(columnTile, k.index(s.n));
  // The row of C that row `row` of the panel holds: with an order, from
  // the panel's part of it, which the block copies into shared memory first
  // (read from global memory, the loads made each of a thread's pieces of
  // the panel's store wait: 1x64 at 90% on an H100, 5% of the kernel).
  if (!index.order)
    return;
  auto loop = scf::ForOp::create(b, loc, mma->tid,
                                 k.index(plan.panelCapacity),
                                 k.index(mma->numThreads));
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(loop.getBody());
  Value slot = loop.getInductionVar();
  memref::StoreOp::create(
      b, loc,
      memref::LoadOp::create(
          b, loc, index.order,
          ValueRange{
              k.add(k.mul(panelIndex, k.index(plan.panelCapacity)), slot)}),
      panelOrder, slot);
  // The panel's start from C reads it.
  if (!t.cStart) {
    b.setInsertionPointAfter(loop);
    gpu::BarrierOp::create(b, loc);
  }
}

Value PanelKernel::rowOfC(Value row) {
  if (!index.order)
    return k.add(r0, row);
  Value position = memref::LoadOp::create(b, loc, panelOrder,
                                          ValueRange{k.div(row, t.microM)});
  return k.add(k.mul(k.toIndex(position), k.index(t.microM)),
               k.rem(row, t.microM));
}

/// Each row of the panel in pieces of 4 columns, spread over the block.
void PanelKernel::forEachPanelPiece(function_ref<void(Value, Value)> body) {
  int64_t pieces = plan.panelRows * s.n / 4;
  auto loop = scf::ForOp::create(b, loc, mma->tid, k.index(pieces),
                                 k.index(threads));
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(loop.getBody());
  Value piece = loop.getInductionVar();
  body(k.div(piece, s.n / 4), k.mul(k.rem(piece, s.n / 4), k.index(4)));
}

/// A piece of 4 of C's columns is two pairs in the panel (panelColumn).
void PanelKernel::storePiece(Value value, Value row, Value column) {
  for (int64_t half = 0; half < 2; ++half) {
    Value pair = vector::ShuffleOp::create(
        b, loc, value, value, ArrayRef<int64_t>{2 * half, 2 * half + 1});
    vector::StoreOp::create(
        b, loc, pair, panel,
        ValueRange{row,
                   panelColumn(k, row, k.add(column, k.index(2 * half)))});
  }
}

Value PanelKernel::loadPiece(Value row, Value column) {
  auto pairType = VectorType::get({2}, b.getF32Type());
  SmallVector<Value> pairs;
  for (int64_t half = 0; half < 2; ++half)
    pairs.push_back(vector::LoadOp::create(
        b, loc, pairType, panel,
        ValueRange{row,
                   panelColumn(k, row, k.add(column, k.index(2 * half)))}));
  return vector::ShuffleOp::create(b, loc, pairs[0], pairs[1],
                                   ArrayRef<int64_t>{0, 1, 2, 3});
}

/// C's pieces of 4 are aligned (the entry points take 16-byte aligned
/// tensors, and C's rows are whole pieces): one access each, not four.
llvm::MaybeAlign getPieceAlignment(Type outputType) {
  return llvm::MaybeAlign(4 * outputType.getIntOrFloatBitWidth() / 8);
}

/// The panel starts at C's values, or at zeros where C was only cleared
/// (in the panel's own order: zeros need no interleaving, and 16 bytes a
/// thread meet no bank conflicts). It holds f32 sums whatever C's type: an
/// f16 C is rounded once, when the panel is stored.
void PanelKernel::startPanel() {
  auto pieceType = VectorType::get({4}, b.getF32Type());
  auto cPieceType = VectorType::get({4}, t.outputType);
  forEachPanelPiece([&](Value row, Value column) {
    if (t.cStart) {
      vector::StoreOp::create(
          b, loc,
          arith::ConstantOp::create(b, loc,
                                    DenseElementsAttr::get(pieceType, 0.0f)),
          panel, ValueRange{row, column});
      return;
    }
    storePiece(k.widenToF32(vector::LoadOp::create(
                   b, loc, cPieceType, t.c,
                   ValueRange{rowOfC(row), k.add(n0, column)},
                   /*nontemporal=*/false, getPieceAlignment(t.outputType))),
               row, column);
  });
}

/// The first warp lists the units: a lane per segment, 32 segments a
/// round, each lane's units after those of the lanes before it.
void PanelKernel::listUnits() {
  Value lane = k.rem(mma->tid, kWarpSize);
  k.buildIf(k.ult(mma->tid, k.index(kWarpSize)), [&] {
    int64_t rounds = llvm::divideCeil(t.numSegments, kWarpSize);
    auto loop = scf::ForOp::create(b, loc, k.index(0), k.index(rounds),
                                   k.index(1), ValueRange{k.i32(0)});
    {
      OpBuilder::InsertionGuard body(b);
      b.setInsertionPointToStart(loop.getBody());
      Value base = loop.getRegionIterArgs()[0];
      Value segment = k.add(k.mul(loop.getInductionVar(), k.index(kWarpSize)),
                            lane);
      Value inRange = k.ult(segment, k.index(t.numSegments));
      Value clamped = arith::MinUIOp::create(b, loc, segment,
                                             k.index(t.numSegments - 1));
      Value count = memref::LoadOp::create(b, loc, index.counts,
                                           ValueRange{clamped, panelIndex});
      count = arith::SelectOp::create(b, loc, inRange, count, k.i32(0));
      Value rows = arith::MulIOp::create(b, loc, count, k.i32(t.microM));
      Value unitsHere = arith::DivUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, rows, k.i32(s.m - 1)),
          k.i32(s.m));
      k.buildIf(inRange, [&] {
        memref::StoreOp::create(b, loc, rows, segmentRows, segment);
      });
      Value inclusive = k.inclusiveWarpSum(unitsHere);
      Value start = k.toIndex(arith::SubIOp::create(
          b, loc, arith::AddIOp::create(b, loc, base, inclusive), unitsHere));
      auto listUnits = scf::ForOp::create(b, loc, k.index(0),
                                          k.toIndex(unitsHere), k.index(1));
      {
        OpBuilder::InsertionGuard list(b);
        b.setInsertionPointToStart(listUnits.getBody());
        Value j = listUnits.getInductionVar();
        Value entry =
            k.toI32(k.add(k.mul(segment, k.index(plan.unitsPerSegment)), j));
        memref::StoreOp::create(b, loc, entry, units, k.add(start, j));
      }
      Value total = k.warpTotal(inclusive);
      scf::YieldOp::create(b, loc,
                           ValueRange{arith::AddIOp::create(b, loc, base, total)});
    }
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                    k.index(0)),
              [&] {
                memref::StoreOp::create(b, loc, loop.getResult(0),
                                        numUnitsBuffer, k.index(0));
              });
  });
}

/// Thread 0 sets up each stage's mbarriers before the block's barrier.
void PanelKernel::setUpStages() {
  isFirstThread = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        mma->tid, k.index(0));
  k.buildIf(isFirstThread, [&] {
    stageBarriers->init(2 * kWarpSize, mma->replicaThreads);
  });
  gpu::BarrierOp::create(b, loc);
  numUnits = k.toIndex(
      memref::LoadOp::create(b, loc, numUnitsBuffer, ValueRange{k.index(0)}));
}

/// Each copying warp copies every producingWarps-th unit in, so that the
/// warps' units are in flight together. The warps that copy divide the
/// stages: a stage then always takes the units of one warp, in order, as
/// its mbarriers' phases need. A multiplying thread's accumulator rows and
/// its turn of adding into the panel are set here too.
void PanelKernel::assignRoles() {
  piecesPerRow = s.k / kVector;
  rounds = s.m * piecesPerRow / kWarpSize;
  roundsB = s.k * s.n / kVector / kWarpSize;
  assert(s.m * piecesPerRow % kWarpSize == 0 &&
         s.k * s.n / kVector % kWarpSize == 0 &&
         "wgmma tiles are whole rounds of a warp's copies");
  Value producer =
      arith::SubIOp::create(b, loc, mma->tid, k.index(consumers));
  producerLane = k.rem(producer, kWarpSize);
  producerWarp = k.div(producer, kWarpSize);
  producingWarps = producerWarps;
  while (plan.stages % producingWarps != 0)
    --producingWarps;
  // The two rows of a unit this thread's accumulators hold, as rows of the
  // panel (-1: padding): loaded when the unit has landed, used when its
  // product is added into the panel.
  accumulatorRow = mma->warpgroupAccumulatorRow();
  replica = k.div(mma->tid, mma->replicaThreads);
  columnGroup = k.rem(k.div(mma->tid, kMmaThreads), plan.columnWarpgroups);
  turnThreads = k.i32(2 * kMmaThreads);
}

/// The segment, its number j among the segment's units, and the segment's
/// rows in the panel, of a unit below numUnits.
std::tuple<Value, Value, Value> PanelKernel::unitOf(Value unit) {
  Value entry = k.toIndex(memref::LoadOp::create(b, loc, units, unit));
  Value segment =
      arith::MinUIOp::create(b, loc, k.div(entry, plan.unitsPerSegment),
                             k.index(t.numSegments - 1));
  Value rows = k.toIndex(memref::LoadOp::create(b, loc, segmentRows, segment));
  return std::tuple{segment, k.rem(entry, plan.unitsPerSegment), rows};
}

std::pair<Value, Value> PanelKernel::pieceOf(int64_t round) {
  Value piece = k.add(producerLane, k.index(round * kWarpSize));
  return std::pair{k.div(piece, piecesPerRow),
                   k.mul(k.rem(piece, piecesPerRow), k.index(kVector))};
}

Value PanelKernel::gatheredRow(Value j, int64_t round) {
  return k.add(k.mul(j, k.index(s.m)), pieceOf(round).first);
}

/// Loads the index slot of each of this lane's pieces of `unit` (whatever
/// the slot holds: padding past the segment's rows is sorted out where the
/// slots are used, so that nothing waits for the loads before).
SmallVector<Value> PanelKernel::prepare(Value unit) {
  // Past the last unit the last one's slots are loaded, and not used.
  Value last = arith::SubIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, numUnits, k.index(1)),
      k.index(1));
  auto fields = unitOf(arith::MinUIOp::create(b, loc, unit, last));
  Value segment = std::get<0>(fields), j = std::get<1>(fields);
  SmallVector<Value> slots;
  for (int64_t round = 0; round < rounds; ++round) {
    Value slot = arith::MinUIOp::create(
        b, loc, k.div(gatheredRow(j, round), t.microM),
        k.index(plan.panelCapacity - 1));
    slots.push_back(memref::LoadOp::create(
        b, loc, index.positions, ValueRange{segment, panelIndex, slot}));
  }
  return slots;
}

/// Copies the rows of `unit` into `stage`, from the slots `prepare` loaded.
void PanelKernel::issue(Value stage, Value unit, ValueRange slots) {
  auto [segment, j, rows] = unitOf(unit);
  Value k0 = k.mul(segment, k.index(s.k));
  for (int64_t round = 0; round < rounds; ++round) {
    auto [row, column] = pieceOf(round);
    Value gathered = gatheredRow(j, round);
    Value valid = k.ult(gathered, rows);
    // The slot past the segment's rows holds anything: padding reads row 0
    // of A (not copied) and is recorded as -1, no row of the panel.
    Value entry = k.toIndex(
        arith::SelectOp::create(b, loc, valid, slots[round], k.i32(0)));
    Value withinMicroTile = k.rem(gathered, t.microM);
    Value local = arith::SelectOp::create(
        b, loc, valid,
        k.toI32(k.add(
            k.mul(k.rem(entry, plan.panelCapacity), k.index(t.microM)),
            withinMicroTile)),
        k.i32(-1));
    Value source =
        k.add(k.mul(k.div(entry, plan.panelCapacity), k.index(t.microM)),
              withinMicroTile);
    // A round past the unit's last row copies nothing: the warp skips it
    // (at 99% sparsity most of a unit is padding). Its rows of the stage
    // keep an older unit's values, which only make products of padding
    // rows, and those are never added.
    Value firstOfRound = k.add(k.mul(j, k.index(s.m)),
                               k.index(round * kWarpSize / piecesPerRow));
    k.buildIf(k.ult(firstOfRound, rows), [&] {
      mma->copy(mma->sA, stage, row, column, t.a,
                ValueRange{source, k.add(k0, column)}, valid);
    });
    // The thread that copies a row's first piece records the row.
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, column,
                                    k.index(0)),
              [&] {
                memref::StoreOp::create(b, loc, local, unitRows,
                                        ValueRange{stage, row});
              });
  }
  issueB(stage, k0);
}

/// The segment's rows of B (from k0) into `stage`: by TMA where B allows,
/// else in rounds of the warp's copies.
void PanelKernel::issueB(Value stage, Value k0) {
  if (mapB) {
    // Counted on the stage's `full` before this lane arrives on it.
    k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    producerLane, k.index(0)),
              [&] {
                mma->copyBWithTensorMap(mapB, stage, n0, k0,
                                        stageBarriers->full(stage));
              });
    return;
  }
  for (int64_t round = 0; round < roundsB; ++round) {
    Value piece = k.add(producerLane, k.index(round * kWarpSize));
    Value row = k.div(piece, s.n / kVector);
    Value column = k.mul(k.rem(piece, s.n / kVector), k.index(kVector));
    mma->copy(mma->sB, stage, row, column, t.b,
              ValueRange{k.add(k0, row), k.add(n0, column)}, Value());
  }
}

/// Brings the segment's rows of B of unit `unit` (if there is one) into
/// L2, two rows a lane. The blocks of one n tile walk the segments
/// together, and without it their copies of a unit waited for DRAM (1x64
/// at 95-99% on an H100: 10% of the kernel). Only for a B laid out row
/// after row, whose addresses the kernel can compute; it is a hint.
void PanelKernel::prefetchB(Value unit) {
  if (!plan.rowMajorB)
    return;
  k.buildIf(k.ult(unit, numUnits), [&] {
    Value k0 = k.mul(std::get<0>(unitOf(unit)), k.index(s.k));
    auto global = LLVM::LLVMPointerType::get(b.getContext(), 1);
    for (int64_t row = 0; row < s.k; row += kWarpSize) {
      Value address = k.elementAddress(
          t.b, {k.add(k0, k.add(producerLane, k.index(row))), n0});
      NVVM::PrefetchOp::create(
          b, loc,
          NVVM::PrefetchCacheLevelAttr::get(b.getContext(),
                                            NVVM::PrefetchCacheLevel::L2),
          /*evictPriority=*/nullptr,
          LLVM::IntToPtrOp::create(b, loc, global, address),
          /*predicate=*/Value(), /*tensormap=*/nullptr, /*uniform=*/nullptr,
          /*in_param_space=*/nullptr);
    }
  });
}

SmallVector<Value> PanelKernel::loadUnitRows(Value slot) {
  SmallVector<Value> rows;
  for (int64_t below : {0, 8})
    rows.push_back(memref::LoadOp::create(
        b, loc, unitRows,
        ValueRange{slot, k.add(accumulatorRow, k.index(below))}));
  return rows;
}

/// Adds a unit's product into the panel rows its rows came from. A unit's
/// real rows come first and its padding after them, so a thread skips the
/// adds of a padding row, and a warp whose rows are all padding skips them
/// altogether: the adds are most of the shared memory traffic of a unit,
/// and a unit of a sparse panel is mostly padding. A unit's rows are
/// distinct, so all of a row's loads may go before its stores.
void PanelKernel::addIntoPanel(ValueRange acc, ValueRange rows) {
  auto pieceType = VectorType::get({4}, b.getF32Type());
  // The thread's accumulators of each of its rows by fours: (C's column of
  // the first, values), blocks 2h and 2h + 1 together (panelColumn).
  SmallVector<SmallVector<std::pair<Value, SmallVector<Value>>>> foursOfRow(
      2);
  mma->forEachAccumulatorBlock(acc, [&](Value, Value column,
                                        ArrayRef<Value> values) {
    for (int64_t half = 0; half < 2; ++half) {
      auto &fours = foursOfRow[half];
      if (fours.empty() || fours.back().second.size() == 4)
        fours.push_back({column, {}});
      fours.back().second.append({values[2 * half], values[2 * half + 1]});
    }
  });
  for (auto [local, fours] : llvm::zip(rows, foursOfRow)) {
    Value real = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       local, k.i32(0));
    k.buildIf(real, [&] {
      // Not negative here: zero-extended.
      Value panelRow =
          arith::IndexCastUIOp::create(b, loc, b.getIndexType(), local);
      SmallVector<Value> columns, sums;
      for (auto &[column, values] : fours) {
        columns.push_back(panelColumn(k, panelRow, column));
        Value old = vector::LoadOp::create(
            b, loc, pieceType, panel, ValueRange{panelRow, columns.back()});
        sums.push_back(arith::AddFOp::create(
            b, loc, old,
            vector::FromElementsOp::create(b, loc, pieceType, values)));
      }
      for (auto [sum, column] : llvm::zip(sums, columns))
        vector::StoreOp::create(b, loc, sum, panel,
                                ValueRange{panelRow, column});
    });
  }
}

/// Units of different segments may hold the same panel row, in the rows of
/// different warps: the units are added in order, a turn each. Replica r of
/// a column warpgroup takes its turn at named barrier 1 + c R + r (c: the
/// columns, R replicas; 0 is the block's barrier) when the warpgroup of the
/// unit before, r - 1 (mod R), hands it over: one side syncs, the other
/// arrives. That also keeps the warps of a warpgroup together (with one
/// replica, it hands the turn to itself).
Value PanelKernel::turnOf(Value replicaIndex) {
  return k.toI32(k.add(k.mul(columnGroup, k.index(plan.replicas)),
                       k.add(replicaIndex, k.index(1))));
}

void PanelKernel::takeTurn() {
  NVVM::BarrierOp::create(b, loc, Type(), turnOf(replica), turnThreads,
                          /*reductionOp=*/nullptr,
                          /*reductionPredicate=*/Value());
}

void PanelKernel::handOverTurn() {
  NVVM::BarrierArriveOp::create(
      b, loc, turnOf(k.rem(k.add(replica, k.index(1)), plan.replicas)),
      turnThreads);
}

void PanelKernel::addInTurn(ValueRange acc, ValueRange rows) {
  takeTurn();
  addIntoPanel(acc, rows);
  handOverTurn();
}

/// The producers: a warp loads the index slots of its next unit while it
/// issues this one; the copies of unit u wait for the consumers to be done
/// with unit u - stages. Unit u is a use of stage u % stages: it waits for
/// the phase of its full mbarrier that its copies complete, and of its
/// empty mbarrier the phase before (the unit stages before it done with).
void PanelKernel::buildProducers() {
  auto ifProducing = scf::IfOp::create(
      b, loc, k.ult(producerWarp, k.index(producingWarps)), false);
  b.setInsertionPoint(ifProducing.thenBlock()->getTerminator());
  auto loop = scf::ForOp::create(b, loc, producerWarp, numUnits,
                                 k.index(producingWarps),
                                 prepare(producerWarp));
  b.setInsertionPointToStart(loop.getBody());
  Value unit = loop.getInductionVar();
  SmallVector<Value> nextSlots = prepare(k.add(unit, k.index(producingWarps)));
  prefetchB(k.add(unit, k.index(kPanelPrefetchUnits)));
  Value stage = stageBarriers->stageOf(unit);
  k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, unit,
                                  k.index(plan.stages)),
            [&] { stageBarriers->waitUntilFree(unit); });
  issue(stage, unit, loop.getRegionIterArgs());
  // The stage is full once the warp's copies have landed (an arrival of
  // each lane's own, counted in the mbarrier's 2 x 32) and its rows are
  // recorded (this arrival, a release).
  NVVM::CpAsyncMBarrierArriveOp::create(b, loc, stageBarriers->full(stage),
                                        /*noinc=*/true);
  NVVM::MBarrierArriveOp::create(b, loc, Type(), stageBarriers->full(stage),
                                 Value());
  scf::YieldOp::create(b, loc, nextSlots);
}

/// The consumers: replica r multiplies units r, r + R, ..., and adds each
/// product into the panel in turn. With several replicas a unit's stage is
/// freed as soon as its product is in registers, and the add follows while
/// the other replicas multiply: holding the stage through the add kept the
/// copies of the next units waiting (1x64 at 95-99% on an H100, 5-10% of
/// the kernel). A lone replica (128 columns) instead adds its unit before
/// while the current one multiplies, then frees the stage: without that
/// overlap its kernel took twice as long.
void PanelKernel::buildConsumers() {
  int64_t replicas = plan.replicas;
  bool overlapAdd = replicas == 1;
  // The last replica hands the first its first turn.
  k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                  k.index(replicas - 1)),
            [&] { handOverTurn(); });
  // With the overlap, the loop carries the product of the unit before and
  // its rows.
  SmallVector<Value> carried;
  int64_t numAccumulators = 0;
  if (overlapAdd) {
    carried = mma->zeroAccumulators();
    numAccumulators = carried.size();
    carried.append({k.i32(-1), k.i32(-1)});
  }
  auto loop = scf::ForOp::create(b, loc, replica, numUnits,
                                 k.index(replicas), carried);
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(loop.getBody());
    Value unit = loop.getInductionVar();
    stageBarriers->waitUntilLanded(unit);
    SmallVector<Value> rows = loadUnitRows(stageBarriers->stageOf(unit));
    SmallVector<Value> acc = mma->startProduct(stageBarriers->stageOf(unit));
    ValueRange previous = loop.getRegionIterArgs();
    if (overlapAdd)
      k.buildIf(k.ult(k.index(replicas - 1), unit), [&] {
        addInTurn(previous.take_front(numAccumulators),
                  previous.drop_front(numAccumulators));
      });
    mma->finishMultiply();
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), stageBarriers->empty(stageBarriers->stageOf(unit)),
        Value());
    if (overlapAdd) {
      acc.append(rows);
      scf::YieldOp::create(b, loc, acc);
    } else {
      addInTurn(acc, rows);
    }
  }
  if (overlapAdd)
    k.buildIf(k.ult(replica, numUnits), [&] {
      ValueRange last = loop.getResults();
      addInTurn(last.take_front(numAccumulators),
                last.drop_front(numAccumulators));
    });
  // The turn handed over after the last unit: its replica takes it, so that
  // every handover is taken.
  k.buildIf(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, replica,
                                  k.rem(numUnits, replicas)),
            [&] { takeTurn(); });
}

/// Once every unit is added, the panel goes into C, rounded to C's type.
void PanelKernel::storePanel() {
  gpu::BarrierOp::create(b, loc);
  // The stages' mbarriers are done with: the block's next tile sets them
  // up again.
  k.buildIf(isFirstThread, [&] { stageBarriers->invalidate(); });
  forEachPanelPiece([&](Value row, Value column) {
    Value value = loadPiece(row, column);
    vector::StoreOp::create(b, loc, k.roundTo(t.outputType, value), t.c,
                            ValueRange{rowOfC(row), k.add(n0, column)},
                            /*nontemporal=*/false,
                            getPieceAlignment(t.outputType));
  });
}

void PanelKernel::build() {
  buildLaunch();
  locatePanel();
  startPanel();
  listUnits();
  setUpStages();
  assignRoles();
  auto ifProducer = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, mma->tid,
                            k.index(consumers)),
      /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifProducer.thenBlock()->getTerminator());
    buildProducers();
  }
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(ifProducer.elseBlock()->getTerminator());
    buildConsumers();
  }
  storePanel();
}

void buildPanelAlongM(OpBuilder &b, Location loc, const MatmulTile &t,
                      const PanelIndex &index) {
  PanelPlan plan = planPanel(b.getContext(), t);
  PanelKernel(b, loc, t, index, plan).build();
}

} // namespace

/// The block that orders the rows counts the rows of each key in shared
/// memory and keeps its rows' keys in registers.
std::string mlir::pit::whyNoRowOrder(const MatmulTile &tile) {
  int64_t numKeys = tile.numSegments + 2;
  if (numKeys * 4 > kStaticSharedBytesPerBlock)
    return std::to_string(numKeys) + " keys of segments do not fit in " +
           std::to_string(kStaticSharedBytesPerBlock) + " bytes of shared memory";
  int64_t rowsPerThread =
      llvm::divideCeil(tile.extentM / tile.microM, kOrderThreads);
  if (rowsPerThread > kMaxOrderedRowsPerThread)
    return "ordering takes " + std::to_string(rowsPerThread) +
           " rows a thread, more than " +
           std::to_string(kMaxOrderedRowsPerThread);
  return "";
}

/// The block keeps panel x n f32 in shared memory and stores it in pieces
/// of four elements; it multiplies with wgmma, a warpgroup for each 64
/// columns.
std::string mlir::pit::whyNoPanel(STileOp op, const MatmulTile &tile) {
  if (!tile.cRowsInPieces)
    return "C is not static and contiguous in rows of 16-byte pieces";
  if (tile.shape.m != kPanelUnitRows)
    return "the tile's m is not " + std::to_string(kPanelUnitRows);
  // The sorted index holds a position and a slot in one i32.
  if ((tile.extentM / tile.microM) * (*op.getPanel() / tile.microM) >
      std::numeric_limits<int32_t>::max())
    return "the panel's index of positions and slots needs more than 32 bits";
  if (!tile.chip.warpgroupMma ||
      !BlockMma::supportsWarpgroupMma(tile.shape, /*aStoredByK=*/false))
    return "it needs wgmma (sm_90a) on a tile of whole 64-column blocks";
  int64_t bytes =
      panelSharedBytes(op.getContext(), tile.shape, *op.getPanel(),
                       tile.microM, op.getGroupRows(), 2, op.getNumSegments());
  if (bytes > tile.chip.sharedBytesPerBlock)
    return "it needs " + std::to_string(bytes) +
           " bytes of shared memory, the chip allows " +
           std::to_string(tile.chip.sharedBytesPerBlock);
  return "";
}

void mlir::pit::buildPanelMatmul(RewriterBase &rewriter, STileOp op,
                                 const MatmulTile &tile) {
  rewriter.setInsertionPoint(op);
  RowOrder rowOrder;
  if (tile.groupRows)
    rowOrder = buildRowOrder(rewriter, op.getLoc(), tile);
  PanelIndex index = buildPanelIndex(rewriter, op.getLoc(), tile, rowOrder);
  buildPanelAlongM(rewriter, op.getLoc(), tile, index);
  rewriter.setInsertionPointAfter(op);
  for (Value buffer : {index.counts, index.positions, rowOrder.order,
                       rowOrder.slots})
    if (buffer)
      memref::DeallocOp::create(rewriter, op.getLoc(), buffer);
}
