//===- MatmulMMA.cpp - Tensor-core kernels for matmul STiles --------------===//
//
// Tensor-core kernels for the STiles of `C += A x B` (f16 or bf16 A and B,
// f32 C), built from one set of pieces (BlockMma): 16-byte cp.async copies
// into shared memory, spread over the block and zero-filled past the count;
// 4 warps of mma.sync m16n8k16 on fragments read from shared memory; and an
// accumulator per thread and 16x8 subtile.
//
// * Gathered along k (matmul, batch matmul): one block per output tile loops
//   over the segment's compacted k, chunk by chunk, and adds its tile into C
//   at the end. It owns the tile, so no atomics.
// * Gathered along m (rows of A): one block per tile of gathered rows, one
//   k segment and one n tile; it scatters its rows back into C with atomic
//   adds, since other k segments add into the same rows.
//
//===----------------------------------------------------------------------===//

#include "MatmulMMA.h"

#include "PIT/Conversion/TileTransfer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

constexpr int64_t kWarps = 4, kLanes = 32, kThreads = kWarps * kLanes;
/// Elements of a 16-byte copy of f16/bf16.
constexpr int64_t kVector = 8;

/// What the matmul tile reads and writes, found in the STile body.
struct MatmulTile {
  /// Whether a batch loop leads every operand (batch_matmul).
  bool batched;
  /// Whether A's rows are gathered (and C's scattered) rather than k.
  bool alongM;
  Value a, b, c;
  Value positions;
  Type inputType;
  int64_t tileM, tileN, tileK, microK, microM;
};

bool isGatheredRead(SReadOp read, int64_t axis, int64_t micro) {
  return read && read.getPositions() && read.getAxis() == axis &&
         read.getMicro() == micro;
}

/// Recognises the body pit-sparsify writes for a matmul gathered along k
/// (A's columns with B's rows) or along m (A's rows, scattered into C).
FailureOr<MatmulTile> matchMatmulTile(STileOp op) {
  // Loops (m, n, k), or (batch, m, n, k) with the batch leading every map.
  unsigned numLoops = op.getNumLoops();
  if (numLoops != 3 && numLoops != 4)
    return failure();
  unsigned lead = numLoops - 3;
  MLIRContext *context = op.getContext();
  auto map = [&](unsigned r0, unsigned r1) {
    SmallVector<AffineExpr> results;
    if (lead)
      results.push_back(getAffineDimExpr(0, context));
    results.push_back(getAffineDimExpr(r0 + lead, context));
    results.push_back(getAffineDimExpr(r1 + lead, context));
    return AffineMap::get(numLoops, 0, results, context);
  };
  // One batch per segment: the batch extent of the micro-tile is 1. Rows are
  // only gathered without a batch loop.
  bool alongK = op.getPitAxis() == 2 + lead;
  bool alongM = !lead && op.getPitAxis() == 0;
  if (op.getSparseMap() != map(0, 2) || !(alongK || alongM) ||
      (lead && op.getMicroTile()[0] != 1))
    return failure();
  linalg::GenericOp generic;
  SWriteOp write;
  for (Operation &bodyOp : op.getBody().front()) {
    if (auto g = dyn_cast<linalg::GenericOp>(bodyOp))
      generic = g;
    if (auto w = dyn_cast<SWriteOp>(bodyOp))
      write = w;
  }
  if (!generic || !write || generic.getNumDpsInputs() != 2 ||
      !linalg::isaContractionOpInterface(generic))
    return failure();
  if (generic.getIndexingMapsArray() !=
      SmallVector<AffineMap>{map(0, 2), map(2, 1), map(0, 1)})
    return failure();
  // The inputs come from gathered reads, the output goes out added.
  int64_t microK = op.getMicroTile()[1 + lead];
  int64_t microM = op.getMicroTile()[lead];
  auto readA = generic.getDpsInputs()[0].getDefiningOp<memref::AllocaOp>();
  auto readB = generic.getDpsInputs()[1].getDefiningOp<memref::AllocaOp>();
  if (!readA || !readB)
    return failure();
  SReadOp sreadA, sreadB;
  for (Operation *user : readA->getUsers())
    if (auto read = dyn_cast<SReadOp>(user))
      sreadA = read;
  for (Operation *user : readB->getUsers())
    if (auto read = dyn_cast<SReadOp>(user))
      sreadB = read;
  bool readsMatch =
      alongK ? isGatheredRead(sreadA, 1 + lead, microK) &&
                   isGatheredRead(sreadB, lead, microK) && !write.getPositions()
             : isGatheredRead(sreadA, 0, microM) && sreadB &&
                   !sreadB.getPositions() && write.getPositions() &&
                   write.getAxis() == 0 && write.getMicro() == microM;
  if (!readsMatch || write.getCombiner() != CombinerKind::Add ||
      write.getSource() != generic.getDpsInits()[0])
    return failure();

  MatmulTile tile;
  tile.batched = lead;
  tile.alongM = alongM;
  tile.a = sreadA.getSource();
  tile.b = sreadB.getSource();
  tile.c = write.getDest();
  tile.positions = sreadA.getPositions();
  tile.inputType = sreadA.getSource().getType().getElementType();
  Type outputType = write.getDest().getType().getElementType();
  if (!(tile.inputType.isF16() || tile.inputType.isBF16()) ||
      sreadB.getSource().getType().getElementType() != tile.inputType ||
      !outputType.isF32())
    return failure();
  ArrayRef<int64_t> shape = op.getTile();
  tile.tileM = shape[lead];
  tile.tileN = shape[lead + 1];
  tile.tileK = shape[lead + 2];
  tile.microK = microK;
  tile.microM = microM;
  // Whole mma shapes: 16 rows, 8 columns a warp, 16 deep; along m, the k
  // tile is one micro-tile row, copied in whole 16-byte vectors.
  if (tile.tileM % 16 || tile.tileN % (8 * kWarps) || tile.tileK % 16 ||
      !cast<MemRefType>(tile.a.getType()).hasStaticShape() ||
      !cast<MemRefType>(tile.b.getType()).hasStaticShape())
    return failure();
  return tile;
}

struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value) { return constantIndex(b, loc, value); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, index(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, index(y));
  }
};

/// `c + a x b` on the tensor cores, m16n8k16, with the fragments as
/// nvgpu.mma.sync takes them. nvgpu lowers f16 only, so bf16 goes straight
/// to nvvm.mma.sync, whose bf16 operands are packed pairs in 32-bit
/// registers.
Value buildMma(OpBuilder &b, Location loc, Value a, Value bFragment, Value c) {
  Type elementType = cast<VectorType>(a.getType()).getElementType();
  if (elementType.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFragment, c,
                                    ArrayRef<int64_t>{16, 8, 16});
  auto packedRegisters = [&](Value fragment, int64_t count) {
    SmallVector<Value> registers;
    for (int64_t reg = 0; reg < count; ++reg) {
      Value pair = vector::ExtractOp::create(b, loc, fragment,
                                             ArrayRef<int64_t>{reg});
      Value packed = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      registers.push_back(
          vector::ExtractOp::create(b, loc, packed, ArrayRef<int64_t>{0}));
    }
    return registers;
  };
  SmallVector<Value> accumulators;
  for (int64_t i0 = 0; i0 < 2; ++i0)
    for (int64_t i1 = 0; i1 < 2; ++i1)
      accumulators.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{i0, i1}));
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, packedRegisters(a, 4), packedRegisters(bFragment, 2),
      accumulators, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  Value flat = vector::FromElementsOp::create(
      b, loc, VectorType::get({4}, f32), elements);
  return vector::ShapeCastOp::create(b, loc, c.getType(), flat);
}

/// The pieces of a tensor-core STile kernel: a launch of 4 warps with the
/// shared tiles of A (tileM x tileK) and B (tileK x tileN), the copies that
/// fill them, and the warps' mma over them. Fragment layouts of m16n8k16:
/// lane = 4 * group + inGroup; A holds rows group and group + 8, columns
/// 2 * inGroup (+1) and + 8; B holds k rows 2 * inGroup (+1) and + 8 of
/// column group; the accumulator rows group (+8), columns 2 * inGroup (+1).
class BlockMma {
public:
  BlockMma(OpBuilder &b, Location loc, const MatmulTile &t, int64_t numBlocks)
      : b(b), loc(loc), k{b, loc}, t(t) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto sharedA = MemRefType::get({t.tileM, t.tileK}, t.inputType,
                                   MemRefLayoutAttrInterface(), workgroup);
    auto sharedB = MemRefType::get({t.tileK, t.tileN}, t.inputType,
                                   MemRefLayoutAttrInterface(), workgroup);
    Value one = k.index(1);
    launch = gpu::LaunchOp::create(b, loc, k.index(numBlocks), one, one,
                                   k.index(kThreads), one, one, nullptr,
                                   nullptr, {}, TypeRange{sharedA, sharedB});
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    sA = launch.getWorkgroupAttributions()[0];
    sB = launch.getWorkgroupAttributions()[1];
    blockId = launch.getBlockIds().x;
    tid = launch.getThreadIds().x;
    Value warp = k.div(tid, kLanes), lane = k.rem(tid, kLanes);
    group = k.div(lane, 4);
    inGroup = k.rem(lane, 4);
    warpColumn = k.mul(warp, k.index(t.tileN / kWarps));
  }

  /// A 16-byte cp.async of `src[srcIndices]` to `dst[dstIndices]`, zeros
  /// instead when `valid` is false.
  Value copy(Value dst, ValueRange dstIndices, Value src, ValueRange srcIndices,
             Value valid) {
    Value elements = valid ? Value(arith::SelectOp::create(
                                 b, loc, valid, k.index(kVector), k.index(0)))
                           : k.index(kVector);
    return nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
        dstIndices, src, srcIndices, b.getIndexAttr(kVector), elements,
        /*bypassL1=*/nullptr);
  }

  /// Spreads `count` copies over the block: whole rounds first, then a last,
  /// partial round under a guard, whose threads commit their own copy group
  /// (a token cannot leave the guard).
  void spreadCopies(int64_t count, function_ref<Value(Value)> copyOne) {
    for (int64_t round = 0; round < count / kThreads; ++round)
      tokens.push_back(copyOne(k.add(tid, k.index(round * kThreads))));
    if (int64_t rest = count % kThreads) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           tid, k.index(rest));
      auto guard = scf::IfOp::create(b, loc, active, false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
      Value token = copyOne(k.add(k.index(count - rest), tid));
      nvgpu::DeviceAsyncCreateGroupOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
          ValueRange{token});
    }
  }

  /// Waits for this thread's copies, then for the whole block's.
  void waitForCopies() {
    if (!tokens.empty()) {
      Value group = nvgpu::DeviceAsyncCreateGroupOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
      nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
      tokens.clear();
    }
    gpu::BarrierOp::create(b, loc);
  }

  SmallVector<Value> zeroAccumulators() {
    auto type = VectorType::get({2, 2}, b.getF32Type());
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(cast<ShapedType>(type), 0.0f));
    return SmallVector<Value>(mSubtiles() * nSubtiles(), zero);
  }

  /// acc += the shared A tile x the shared B tile, over the whole tileK.
  void multiply(SmallVector<Value> &acc) {
    for (int64_t k16 = 0; k16 < t.tileK / 16; ++k16) {
      SmallVector<Value> fragmentsB;
      for (int64_t ns = 0; ns < nSubtiles(); ++ns)
        fragmentsB.push_back(fragmentB(ns, k16));
      for (int64_t ms = 0; ms < mSubtiles(); ++ms) {
        Value a = fragmentA(ms, k16);
        for (int64_t ns = 0; ns < nSubtiles(); ++ns) {
          Value &c = acc[ms * nSubtiles() + ns];
          c = buildMma(b, loc, a, fragmentsB[ns], c);
        }
      }
    }
  }

  /// Calls `write(row, column, value)` for every accumulator element of this
  /// thread, with its row and column in the block's output tile.
  void forEachAccumulator(ValueRange acc,
                          function_ref<void(Value, Value, Value)> write) {
    for (int64_t ms = 0; ms < mSubtiles(); ++ms)
      for (int64_t ns = 0; ns < nSubtiles(); ++ns)
        for (int64_t i0 = 0; i0 < 2; ++i0)
          for (int64_t i1 = 0; i1 < 2; ++i1) {
            Value value = vector::ExtractOp::create(
                b, loc, acc[ms * nSubtiles() + ns], ArrayRef<int64_t>{i0, i1});
            Value row = k.add(group, k.index(ms * 16 + i0 * 8));
            Value column = k.add(warpColumn, k.add(k.mul(inGroup, k.index(2)),
                                                   k.index(ns * 8 + i1)));
            write(row, column, value);
          }
  }

  gpu::LaunchOp launch;
  Value sA, sB, blockId, tid;

private:
  int64_t mSubtiles() const { return t.tileM / 16; }
  int64_t nSubtiles() const { return t.tileN / (8 * kWarps); }

  Value fragmentA(int64_t ms, int64_t k16) {
    SmallVector<Value> elements;
    for (int64_t reg = 0; reg < 4; ++reg)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = k.add(group, k.index(ms * 16 + (reg % 2) * 8));
        Value column = k.add(k.mul(inGroup, k.index(2)),
                             k.index(k16 * 16 + (reg / 2) * 8 + half));
        elements.push_back(
            memref::LoadOp::create(b, loc, sA, ValueRange{row, column}));
      }
    Value flat = vector::FromElementsOp::create(
        b, loc, VectorType::get({8}, t.inputType), elements);
    return vector::ShapeCastOp::create(
        b, loc, VectorType::get({4, 2}, t.inputType), flat);
  }

  Value fragmentB(int64_t ns, int64_t k16) {
    SmallVector<Value> elements;
    for (int64_t reg = 0; reg < 2; ++reg)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = k.add(k.mul(inGroup, k.index(2)),
                          k.index(k16 * 16 + reg * 8 + half));
        Value column = k.add(warpColumn, k.add(group, k.index(ns * 8)));
        elements.push_back(
            memref::LoadOp::create(b, loc, sB, ValueRange{row, column}));
      }
    Value flat = vector::FromElementsOp::create(
        b, loc, VectorType::get({4}, t.inputType), elements);
    return vector::ShapeCastOp::create(
        b, loc, VectorType::get({2, 2}, t.inputType), flat);
  }

  OpBuilder &b;
  Location loc;
  KernelBuilder k;
  const MatmulTile &t;
  Value group, inGroup, warpColumn;
  SmallVector<Value> tokens;
};

/// Where compacted coordinate `c` of `segment` lives along the gathered
/// dimension: through the index, with the slot clamped so that padding never
/// reads past the index row; `valid` says whether the element is real.
std::pair<Value, Value> gatheredCoordinate(KernelBuilder &k, Value positions,
                                           Value segment, Value count, Value c,
                                           int64_t micro, int64_t capacity) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value slot = k.div(c, micro);
  Value within = k.rem(c, micro);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slot, count);
  Value clamped = arith::MinUIOp::create(b, loc, slot, k.index(capacity - 1));
  Value position = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, positions, ValueRange{segment, clamped}));
  return {k.add(k.mul(position, k.index(micro)), within), valid};
}

Value loadCount(KernelBuilder &k, STileOp op, Value segment) {
  return arith::IndexCastOp::create(
      k.b, k.loc, k.b.getIndexType(),
      memref::LoadOp::create(k.b, k.loc, op.getCounts(), segment));
}

/// Gathered along k: a block per (segment, n tile) loops over the chunks of
/// the segment's compacted k and adds its output tile into C.
void buildGatherAlongK(OpBuilder &b, Location loc, STileOp op,
                       const MatmulTile &t) {
  KernelBuilder k{b, loc};
  unsigned lead = t.batched;
  int64_t m = op.getDomain()[lead], n = op.getDomain()[lead + 1];
  int64_t capacity = op.getDomain()[lead + 2] / t.microK;
  int64_t nTiles = n / t.tileN;
  BlockMma mma(b, loc, t, op.getNumSegments() * nTiles);

  Value segment = k.div(mma.blockId, nTiles);
  // Segments are numbered (batch, row block), row-major, as pit.detect does.
  Value m0 = k.mul(k.rem(segment, m / t.tileM), k.index(t.tileM));
  Value batch = k.div(segment, m / t.tileM);
  auto at = [&](Value row, Value column) {
    return t.batched ? SmallVector<Value>{batch, row, column}
                     : SmallVector<Value>{row, column};
  };
  Value n0 = k.mul(k.rem(mma.blockId, nTiles), k.index(t.tileN));
  Value count = loadCount(k, op, segment);
  Value numChunks = k.div(
      k.add(k.mul(count, k.index(t.microK)), k.index(t.tileK - 1)), t.tileK);
  auto gathered = [&](Value c) {
    return gatheredCoordinate(k, t.positions, segment, count, c, t.microK,
                              capacity);
  };

  auto chunks = scf::ForOp::create(b, loc, k.index(0), numChunks, k.index(1),
                                   mma.zeroAccumulators());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value kk = k.mul(chunks.getInductionVar(), k.index(t.tileK));
    // B: rows of the chunk (whole rows of B, contiguous along n).
    mma.spreadCopies(t.tileK * t.tileN / kVector, [&](Value v) {
      Value row = k.div(v, t.tileN / kVector);
      Value column = k.mul(k.rem(v, t.tileN / kVector), k.index(kVector));
      auto [source, valid] = gathered(k.add(kk, row));
      return mma.copy(mma.sB, {row, column}, t.b, at(source, k.add(n0, column)),
                      valid);
    });
    // A: 16-byte copies when a micro-tile row holds whole vectors; else
    // element by element through registers (a copy would straddle two
    // gathered micro-tiles).
    if (t.microK % kVector == 0) {
      mma.spreadCopies(t.tileM * t.tileK / kVector, [&](Value v) {
        Value row = k.div(v, t.tileK / kVector);
        Value column = k.mul(k.rem(v, t.tileK / kVector), k.index(kVector));
        auto [source, valid] = gathered(k.add(kk, column));
        return mma.copy(mma.sA, {row, column}, t.a,
                        at(k.add(m0, row), source), valid);
      });
    } else {
      Value zeroInput =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(t.inputType));
      scf::ForOp::create(
          b, loc, mma.tid, k.index(t.tileM * t.tileK), k.index(kThreads),
          ValueRange{}, [&](OpBuilder &nested, Location loc, Value linear,
                            ValueRange) {
            OpBuilder::InsertionGuard inner(b);
            b.setInsertionPoint(nested.getInsertionBlock(),
                                nested.getInsertionPoint());
            Value row = k.div(linear, t.tileK);
            Value column = k.rem(linear, t.tileK);
            auto [source, valid] = gathered(k.add(kk, column));
            Value value = memref::LoadOp::create(
                b, loc, t.a, at(k.add(m0, row), source));
            value = arith::SelectOp::create(b, loc, valid, value, zeroInput);
            memref::StoreOp::create(b, loc, value, mma.sA,
                                    ValueRange{row, column});
            scf::YieldOp::create(b, loc);
          });
    }
    mma.waitForCopies();
    SmallVector<Value> acc(chunks.getRegionIterArgs().begin(),
                           chunks.getRegionIterArgs().end());
    mma.multiply(acc);
    // The next chunk overwrites the shared tiles.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, acc);
  }

  // SWrite: the block owns its output tile; add it into C.
  b.setInsertionPointAfter(chunks);
  mma.forEachAccumulator(chunks.getResults(), [&](Value row, Value column,
                                                  Value value) {
    SmallVector<Value> indices = at(k.add(m0, row), k.add(n0, column));
    Value old = memref::LoadOp::create(b, loc, t.c, indices);
    memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, old, value),
                            t.c, indices);
  });
}

/// Gathered along m: a block per (k segment, n tile, tile of gathered rows)
/// multiplies its rows of A by the segment's rows of B and scatters the
/// partial sums back into C's rows, atomically.
void buildGatherAlongM(OpBuilder &b, Location loc, STileOp op,
                       const MatmulTile &t) {
  KernelBuilder k{b, loc};
  int64_t n = op.getDomain()[1];
  int64_t capacity = op.getDomain()[0] / t.microM;
  int64_t nTiles = n / t.tileN;
  int64_t rowTiles = llvm::divideCeil(op.getDomain()[0], t.tileM);
  BlockMma mma(b, loc, t, op.getNumSegments() * nTiles * rowTiles);

  Value rowTile = k.rem(mma.blockId, rowTiles);
  Value rest = k.div(mma.blockId, rowTiles);
  Value n0 = k.mul(k.rem(rest, nTiles), k.index(t.tileN));
  Value segment = k.div(rest, nTiles);
  Value k0 = k.mul(segment, k.index(t.tileK));
  Value row0 = k.mul(rowTile, k.index(t.tileM));
  Value count = loadCount(k, op, segment);
  auto gathered = [&](Value row) {
    return gatheredCoordinate(k, t.positions, segment, count,
                              k.add(row0, row), t.microM, capacity);
  };

  // Blocks past the segment's gathered rows have nothing to do.
  Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row0,
                                     k.mul(count, k.index(t.microM)));
  auto ifLive = scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
  b.setInsertionPoint(ifLive.thenBlock()->getTerminator());

  mma.spreadCopies(t.tileM * t.tileK / kVector, [&](Value v) {
    Value row = k.div(v, t.tileK / kVector);
    Value column = k.mul(k.rem(v, t.tileK / kVector), k.index(kVector));
    auto [source, valid] = gathered(row);
    return mma.copy(mma.sA, {row, column}, t.a,
                    {source, k.add(k0, column)}, valid);
  });
  mma.spreadCopies(t.tileK * t.tileN / kVector, [&](Value v) {
    Value row = k.div(v, t.tileN / kVector);
    Value column = k.mul(k.rem(v, t.tileN / kVector), k.index(kVector));
    return mma.copy(mma.sB, {row, column}, t.b,
                    {k.add(k0, row), k.add(n0, column)}, Value());
  });
  mma.waitForCopies();
  SmallVector<Value> acc = mma.zeroAccumulators();
  mma.multiply(acc);

  // SWrite: scatter the rows back; padding rows are not written.
  mma.forEachAccumulator(acc, [&](Value row, Value column, Value value) {
    auto [target, valid] = gathered(row);
    auto guard = scf::IfOp::create(b, loc, valid, false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, value, t.c,
                                ValueRange{target, k.add(n0, column)});
  });
}

} // namespace

LogicalResult mlir::pit::lowerMatmulSTileToMMA(RewriterBase &rewriter,
                                               STileOp op) {
  FailureOr<MatmulTile> matched = matchMatmulTile(op);
  if (failed(matched))
    return failure();
  rewriter.setInsertionPoint(op);
  if (matched->alongM)
    buildGatherAlongM(rewriter, op.getLoc(), op, *matched);
  else
    buildGatherAlongK(rewriter, op.getLoc(), op, *matched);
  rewriter.eraseOp(op);
  return success();
}
