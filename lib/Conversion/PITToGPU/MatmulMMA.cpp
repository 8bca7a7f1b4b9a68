//===- MatmulMMA.cpp - Tensor-core kernels for matmul STiles --------------===//
//
// The STile of `C += A x B` gathered along k, for f16 or bf16 A and B and f32 C,
// as one block per output tile that loops over the segment's compacted k:
//
//   for each chunk of Tk gathered columns of A (rows of B):
//     SRead: gather A[m0 : m0+Tm, chunk] and B[chunk, n0 : n0+Tn] into
//            shared memory (cp.async 16-byte copies, zero-filled past the
//            count)
//     4 warps: nvgpu.mma.sync m16n8k16 on fragments read from shared memory,
//            accumulating in registers
//   SWrite: C[m0 :, n0 :] += the accumulators
//
// Because one block owns its output tile, no atomics are needed.
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
  Value a, b, c;
  Value positions;
  Type inputType;
  int64_t tileM, tileN, tileK, microK;
};

bool isGatheredRead(SReadOp read, int64_t axis, int64_t micro) {
  return read && read.getPositions() && read.getAxis() == axis &&
         read.getMicro() == micro;
}

/// Recognises the body pit-sparsify writes for a matmul gathered along k.
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
  // One batch per segment: the batch extent of the micro-tile is 1.
  if (op.getSparseMap() != map(0, 2) || op.getPitAxis() != 2 + lead ||
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
  if (!isGatheredRead(sreadA, 1 + lead, microK) ||
      !isGatheredRead(sreadB, lead, microK) ||
      write.getPositions() || write.getCombiner() != CombinerKind::Add ||
      write.getSource() != generic.getDpsInits()[0])
    return failure();

  MatmulTile tile;
  tile.batched = lead;
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
  // Whole mma shapes: 16 rows, 8 columns a warp, 16 deep.
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

} // namespace

LogicalResult mlir::pit::lowerMatmulSTileToMMA(RewriterBase &rewriter,
                                               STileOp op) {
  FailureOr<MatmulTile> matched = matchMatmulTile(op);
  if (failed(matched))
    return failure();
  const MatmulTile &t = *matched;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  KernelBuilder k{b, loc};

  unsigned lead = t.batched;
  int64_t m = op.getDomain()[lead], n = op.getDomain()[lead + 1];
  int64_t capacity = op.getDomain()[lead + 2] / t.microK;
  int64_t nTiles = n / t.tileN;
  int64_t mSubtiles = t.tileM / 16, nSubtiles = t.tileN / (8 * kWarps);

  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto sharedA = MemRefType::get({t.tileM, t.tileK}, t.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  auto sharedB = MemRefType::get({t.tileK, t.tileN}, t.inputType,
                                 MemRefLayoutAttrInterface(), workgroup);
  Value one = k.index(1);
  auto launch = gpu::LaunchOp::create(
      b, loc, k.index(op.getNumSegments() * nTiles), one, one,
      k.index(kThreads), one, one, nullptr, nullptr, {},
      TypeRange{sharedA, sharedB});
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  Value sA = launch.getWorkgroupAttributions()[0];
  Value sB = launch.getWorkgroupAttributions()[1];

  Value blockId = launch.getBlockIds().x, tid = launch.getThreadIds().x;
  Value segment = k.div(blockId, nTiles);
  // Segments are numbered (batch, row block), row-major, as pit.detect does.
  Value m0 = k.mul(k.rem(segment, m / t.tileM), k.index(t.tileM));
  Value batch = k.div(segment, m / t.tileM);
  auto at = [&](Value row, Value column) {
    return t.batched ? SmallVector<Value>{batch, row, column}
                     : SmallVector<Value>{row, column};
  };
  Value n0 = k.mul(k.rem(blockId, nTiles), k.index(t.tileN));
  Value warp = k.div(tid, kLanes), lane = k.rem(tid, kLanes);
  Value group = k.div(lane, 4), inGroup = k.rem(lane, 4);
  Value warpColumn = k.mul(warp, k.index(t.tileN / kWarps));
  Value count = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, op.getCounts(), segment));
  Value compacted = k.mul(count, k.index(t.microK));
  Value numChunks =
      k.div(k.add(compacted, k.index(t.tileK - 1)), t.tileK);

  // Where compacted column `c` of this segment lives in A (and row in B).
  // The slot is clamped so that padding never reads past the index row;
  // `valid` says whether the element is real.
  auto gathered = [&](Value c) {
    Value slot = k.div(c, t.microK);
    Value within = k.rem(c, t.microK);
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        slot, count);
    Value clamped = arith::MinUIOp::create(b, loc, slot, k.index(capacity - 1));
    Value position = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        memref::LoadOp::create(b, loc, t.positions,
                               ValueRange{segment, clamped}));
    return std::make_pair(
        k.add(k.mul(position, k.index(t.microK)), within), valid);
  };

  Type vectorType = VectorType::get({2, 2}, b.getF32Type());
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(cast<ShapedType>(vectorType), 0.0f));
  SmallVector<Value> initial(mSubtiles * nSubtiles, zeroAcc);

  auto chunks = scf::ForOp::create(b, loc, k.index(0), numChunks, one, initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value kk = k.mul(chunks.getInductionVar(), k.index(t.tileK));
    SmallVector<Value> tokens;
    Value zeroInput =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(t.inputType));

    // Spreads `count` 16-byte copies over the block: whole rounds first,
    // then a last, partial round under a guard, whose threads commit their
    // own copy group (a token cannot leave the guard).
    auto spreadCopies = [&](int64_t count,
                            function_ref<Value(Value)> copy) {
      for (int64_t round = 0; round < count / kThreads; ++round)
        tokens.push_back(copy(k.add(tid, k.index(round * kThreads))));
      if (int64_t rest = count % kThreads) {
        Value first = k.index(count - rest);
        Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             tid, k.index(rest));
        auto guard = scf::IfOp::create(b, loc, active, false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(guard.thenBlock()->getTerminator());
        Value token = copy(k.add(first, tid));
        nvgpu::DeviceAsyncCreateGroupOp::create(
            b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
            ValueRange{token});
      }
    };

    // B: rows of the chunk (whole rows of B, contiguous along n).
    spreadCopies(t.tileK * t.tileN / kVector, [&](Value v) -> Value {
      Value row = k.div(v, t.tileN / kVector);
      Value column = k.mul(k.rem(v, t.tileN / kVector), k.index(kVector));
      auto [source, valid] = gathered(k.add(kk, row));
      Value elements = arith::SelectOp::create(b, loc, valid, k.index(kVector),
                                               k.index(0));
      return nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), sB,
          ValueRange{row, column}, t.b, at(source, k.add(n0, column)),
          b.getIndexAttr(kVector), elements, /*bypassL1=*/nullptr);
    });
    // A: 16-byte copies when a micro-tile row holds whole vectors; else
    // element by element through registers (a copy would straddle two
    // gathered micro-tiles).
    if (t.microK % kVector == 0) {
      spreadCopies(t.tileM * t.tileK / kVector, [&](Value v) -> Value {
        Value row = k.div(v, t.tileK / kVector);
        Value column = k.mul(k.rem(v, t.tileK / kVector), k.index(kVector));
        auto [source, valid] = gathered(k.add(kk, column));
        Value elements = arith::SelectOp::create(b, loc, valid,
                                                 k.index(kVector), k.index(0));
        return nvgpu::DeviceAsyncCopyOp::create(
            b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), sA,
            ValueRange{row, column}, t.a, at(k.add(m0, row), source),
            b.getIndexAttr(kVector), elements, nullptr);
      });
    } else {
      scf::ForOp::create(
          b, loc, tid, k.index(t.tileM * t.tileK), k.index(kThreads),
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
            memref::StoreOp::create(b, loc, value, sA, ValueRange{row, column});
            scf::YieldOp::create(b, loc);
          });
    }
    if (!tokens.empty()) {
      Value groupToken = nvgpu::DeviceAsyncCreateGroupOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
      nvgpu::DeviceAsyncWaitOp::create(b, loc, groupToken,
                                       b.getI32IntegerAttr(0));
    }
    gpu::BarrierOp::create(b, loc);

    // The warps' mma over the chunk. Fragment layouts of m16n8k16: lane =
    // 4 * group + inGroup; A holds rows group and group + 8, columns
    // 2 * inGroup (+1) and + 8; B holds k rows 2 * inGroup (+1) and + 8 of
    // column group; the accumulator rows group (+8), columns 2 * inGroup (+1).
    auto fragmentA = [&](int64_t ms, int64_t k16) {
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
    };
    auto fragmentB = [&](int64_t ns, int64_t k16) {
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
    };
    SmallVector<Value> acc(chunks.getRegionIterArgs().begin(),
                           chunks.getRegionIterArgs().end());
    for (int64_t k16 = 0; k16 < t.tileK / 16; ++k16) {
      SmallVector<Value> fragmentsB;
      for (int64_t ns = 0; ns < nSubtiles; ++ns)
        fragmentsB.push_back(fragmentB(ns, k16));
      for (int64_t ms = 0; ms < mSubtiles; ++ms) {
        Value a = fragmentA(ms, k16);
        for (int64_t ns = 0; ns < nSubtiles; ++ns) {
          Value &c = acc[ms * nSubtiles + ns];
          c = buildMma(b, loc, a, fragmentsB[ns], c);
        }
      }
    }
    // The next chunk overwrites the shared tiles.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, acc);
  }

  // SWrite: each accumulator element belongs to one thread; add it into C.
  b.setInsertionPointAfter(chunks);
  for (int64_t ms = 0; ms < mSubtiles; ++ms)
    for (int64_t ns = 0; ns < nSubtiles; ++ns)
      for (int64_t i0 = 0; i0 < 2; ++i0)
        for (int64_t i1 = 0; i1 < 2; ++i1) {
          Value value = vector::ExtractOp::create(
              b, loc, chunks.getResult(ms * nSubtiles + ns),
              ArrayRef<int64_t>{i0, i1});
          Value row = k.add(m0, k.add(group, k.index(ms * 16 + i0 * 8)));
          Value column = k.add(
              n0, k.add(warpColumn,
                        k.add(k.mul(inGroup, k.index(2)),
                              k.index(ns * 8 + i1))));
          Value old = memref::LoadOp::create(b, loc, t.c, at(row, column));
          memref::StoreOp::create(b, loc,
                                  arith::AddFOp::create(b, loc, old, value),
                                  t.c, at(row, column));
        }
  rewriter.eraseOp(op);
  return success();
}
