//===- VectorDetection.cpp - Detection with 16-byte loads -----------------===//
//
// Thread t of the scan owns the vector column j = t % (C / v) of band
// t / (C / v), where a band is one micro-tile row of the source (mh rows),
// C the number of columns and v the elements of a 16-byte vector. It loads
// its mh vectors, ORs their non-zero lanes, and turns them into flags:
//   * micro-tiles of width mw <= v: v / mw flags, one per lane group;
//   * mw > v: the g = mw / v threads of a micro-tile OR their flags with
//     shuffles, and the first of them holds the micro-tile's flag.
// Consecutive threads read consecutive vectors of a row, so every load of a
// warp is coalesced, unlike a thread per micro-tile walking its rows.
//
//===----------------------------------------------------------------------===//

#include "VectorDetection.h"

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

constexpr int64_t kVectorBytes = 16, kWarpSize = 32;
/// Bands up to this many rows are loaded unrolled, all loads in flight.
constexpr int64_t kUnrolledRows = 32;

/// Whether `value` (a vector of the source's elements) has non-zero lanes,
/// lane by lane.
Value nonZeroLanes(OpBuilder &b, Location loc, Value value) {
  auto type = cast<VectorType>(value.getType());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  if (isa<FloatType>(type.getElementType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                 zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value, zero);
}

} // namespace

bool mlir::pit::canWriteCompactedCopy(DetectOp op) {
  MemRefType type = op.getSource().getType();
  ArrayRef<int64_t> micro = op.getMicroTile();
  if (type.getRank() != 2 || !type.hasStaticShape() || op.getAxis() != 1 ||
      micro[1] != 1 || !type.getElementType().isIntOrFloat())
    return false;
  int64_t lanes = kVectorBytes * 8 / type.getElementType().getIntOrFloatBitWidth();
  return micro[0] % lanes == 0 && micro[0] <= kUnrolledRows &&
         type.getDimSize(1) % lanes == 0;
}

LogicalResult mlir::pit::buildVectorizedDetection(OpBuilder &b, Location loc,
                                                  DetectOp op,
                                                  int64_t blockSize,
                                                  Value compactedCopy) {
  MemRefType sourceType = op.getSource().getType();
  Type elementType = sourceType.getElementType();
  if (sourceType.getRank() != 2 || !sourceType.hasStaticShape() ||
      !elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() < 8 ||
      !sourceType.getLayout().isIdentity())
    return failure();
  int64_t rows = sourceType.getDimSize(0), columns = sourceType.getDimSize(1);
  int64_t lanes = kVectorBytes * 8 / elementType.getIntOrFloatBitWidth();
  int64_t microRows = op.getMicroTile()[0], microColumns = op.getMicroTile()[1];
  bool narrow = microColumns <= lanes;
  // Threads that share one micro-tile (wide micro-tiles only).
  int64_t sharers = narrow ? 1 : microColumns / lanes;
  if (columns % lanes ||
      (narrow ? lanes % microColumns : microColumns % lanes) ||
      !llvm::isPowerOf2_64(sharers) || sharers > kWarpSize)
    return failure();
  // The compacted copy is written from the loaded vectors: single columns
  // gathered along the columns, bands of whole vectors, loaded unrolled.
  if (compactedCopy && !canWriteCompactedCopy(op))
    return failure();

  KernelBuilder k{b, loc};
  int64_t vectorsPerRow = columns / lanes;
  int64_t numThreads = rows / microRows * vectorsPerRow;
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch =
      createLaunch(b, loc, llvm::divideCeil(numThreads, blockSize), blockSize);

  Value one = k.index(1);
  Value thread = k.add(k.mul(launch.getBlockIds().x, k.index(blockSize)),
                       launch.getThreadIds().x);
  Value band = k.div(thread, vectorsPerRow);
  Value column = k.mul(k.rem(thread, vectorsPerRow), k.index(lanes));
  Value inRange = k.ult(thread, k.index(numThreads));

  // The non-zero lanes of the thread's vectors, OR-ed down the band; none
  // for threads past the source (they still take part in the shuffles).
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  auto vectorType = VectorType::get({lanes}, elementType);
  Value none = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(maskType, false));
  // Kept for the compacted copy: the band's loaded vectors.
  int64_t keptRows = compactedCopy ? microRows : 0;
  auto scan = scf::IfOp::create(
      b, loc, inRange,
      [&](OpBuilder &b, Location loc) {
        Value row0 = k.mul(band, k.index(microRows));
        auto loadRow = [&](Value row) {
          return nonZeroLanes(
              b, loc,
              vector::LoadOp::create(b, loc, vectorType, op.getSource(),
                                     ValueRange{row, column},
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(kVectorBytes)));
        };
        Value any = none;
        SmallVector<Value> kept;
        if (microRows <= kUnrolledRows) {
          SmallVector<Value> loaded;
          for (int64_t r = 0; r < microRows; ++r)
            loaded.push_back(vector::LoadOp::create(
                b, loc, vectorType, op.getSource(),
                ValueRange{k.add(row0, k.index(r)), column},
                /*nontemporal=*/false, llvm::MaybeAlign(kVectorBytes)));
          for (Value vector : loaded)
            any = arith::OrIOp::create(b, loc, any,
                                       nonZeroLanes(b, loc, vector));
          kept.assign(loaded.begin(), loaded.begin() + keptRows);
        } else {
          auto loop = scf::ForOp::create(
              b, loc, k.index(0), k.index(microRows), one, ValueRange{none},
              [&](OpBuilder &b, Location loc, Value r, ValueRange acc) {
                Value mask = loadRow(k.add(row0, r));
                scf::YieldOp::create(
                    b, loc, ValueRange{arith::OrIOp::create(b, loc, acc[0], mask)});
              });
          any = loop.getResult(0);
        }
        SmallVector<Value> results{any};
        results.append(kept);
        scf::YieldOp::create(b, loc, results);
      },
      [&](OpBuilder &b, Location loc) {
        SmallVector<Value> results{none};
        Value zeros = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vectorType,
                                           b.getZeroAttr(elementType)));
        results.append(keptRows, zeros);
        scf::YieldOp::create(b, loc, results);
      });
  Value any = scan.getResult(0);
  ValueRange keptRowsValues = scan.getResults().drop_front();

  // Flags, and the micro-tile column each one stands for.
  SmallVector<std::pair<Value, Value>> flags;
  if (narrow) {
    for (int64_t first = 0; first < lanes; first += microColumns) {
      Value flag = vector::ExtractOp::create(b, loc, any, first);
      for (int64_t lane = first + 1; lane < first + microColumns; ++lane)
        flag = arith::OrIOp::create(b, loc, flag,
                                    vector::ExtractOp::create(b, loc, any, lane));
      flags.push_back({flag, k.add(k.div(column, microColumns),
                                   k.index(first / microColumns))});
    }
  } else {
    Value flag = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                             any);
    Value bits = arith::ExtUIOp::create(b, loc, b.getI32Type(), flag);
    Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
    for (int64_t offset = sharers / 2; offset >= 1; offset /= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, bits,
                                 arith::ConstantIntOp::create(b, loc, offset, 32),
                                 width, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      bits = arith::OrIOp::create(b, loc, bits, other);
    }
    Value leader = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, k.rem(k.div(column, lanes), sharers),
        k.index(0));
    Value nonZero = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, bits,
        arith::ConstantIntOp::create(b, loc, 0, 32));
    flags.push_back({arith::AndIOp::create(b, loc, leader, nonZero),
                     k.div(column, microColumns)});
  }

  // Claim slots and record positions. Gathered along columns, all the
  // thread's flags lie in one segment (its band): one atomic add claims them
  // all. Along rows, each micro-tile column is its own segment.
  auto toI32 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  };
  auto store = [&](Value position, Value segment, Value slot) {
    memref::StoreOp::create(b, loc, toI32(position), op.getPositions(),
                            ValueRange{segment, slot});
  };
  auto claim = [&](Value segment, Value count) {
    Value first = memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                              count, op.getCounts(),
                                              ValueRange{segment});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), first);
  };
  if (op.getAxis() == 1) {
    Value count = arith::ConstantIntOp::create(b, loc, 0, 32);
    for (auto [flag, microColumn] : flags)
      count = arith::AddIOp::create(
          b, loc, count, arith::ExtUIOp::create(b, loc, b.getI32Type(), flag));
    Value anyFlag = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, count,
        arith::ConstantIntOp::create(b, loc, 0, 32));
    auto ifAny = scf::IfOp::create(b, loc, anyFlag, false);
    b.setInsertionPoint(ifAny.thenBlock()->getTerminator());
    Value slot = claim(band, count);
    for (auto [lane, flagAndColumn] : llvm::enumerate(flags)) {
      auto [flag, microColumn] = flagAndColumn;
      auto ifFlag = scf::IfOp::create(
          b, loc, flag,
          [&](OpBuilder &, Location) {
            store(microColumn, band, slot);
            // The micro-tile's column, contiguous in the compacted copy.
            for (int64_t r0 = 0; r0 < keptRows; r0 += lanes) {
              SmallVector<Value> elements;
              for (int64_t r = r0; r < r0 + lanes; ++r)
                elements.push_back(vector::ExtractOp::create(
                    b, loc, keptRowsValues[r], static_cast<int64_t>(lane)));
              vector::StoreOp::create(
                  b, loc,
                  vector::FromElementsOp::create(b, loc, vectorType, elements),
                  compactedCopy, ValueRange{band, slot, k.index(r0)},
                  /*nontemporal=*/false, llvm::MaybeAlign(kVectorBytes));
            }
            scf::YieldOp::create(b, loc, ValueRange{k.add(slot, one)});
          },
          [&](OpBuilder &, Location) {
            scf::YieldOp::create(b, loc, ValueRange{slot});
          });
      slot = ifFlag.getResult(0);
    }
  } else {
    Value oneI32 = arith::ConstantIntOp::create(b, loc, 1, 32);
    for (auto [flag, microColumn] : flags) {
      auto ifFlag = scf::IfOp::create(b, loc, flag, false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifFlag.thenBlock()->getTerminator());
      store(band, microColumn, claim(microColumn, oneI32));
    }
  }
  return success();
}
