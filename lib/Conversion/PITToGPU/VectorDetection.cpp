//===- VectorDetection.cpp - Detection with 16-byte loads -----------------===//
//
// Thread t of the scan owns the vector column j = t % (C / v) of R bands
// from R (t / (C / v)), where a band is one micro-tile row of the source (mh
// rows), C the number of columns and v the elements of a 16-byte vector (R
// is 1 gathered along the columns; along the rows, as many bands as make
// up to 32 rows). It
// loads its vectors, ORs their non-zero lanes band by band, and turns them
// into flags:
//   * micro-tiles of width mw <= v: v / mw flags, one per lane group;
//   * mw > v: the g = mw / v threads of a micro-tile OR their flags with
//     shuffles, and the first of them holds the micro-tile's flag.
// Consecutive threads read consecutive vectors of a row, so every load of a
// warp is coalesced, unlike a thread per micro-tile walking its rows. Where
// the scan writes the compacted copy, the mh rows of a band's vector column
// are split among mh / v neighbouring lanes, v rows each: they write the
// pieces of a micro-tile column side by side, in one instruction.
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

/// An i32 constant.
Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
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
  int64_t bands = rows / microRows;
  // Gathered along rows, every band holds one micro-tile of each segment (a
  // micro-tile column): a thread scans several bands of its vector column
  // and claims each segment's slots once for all of them. One claim a band
  // would make thousands of atomic adds to each counter, which serialize.
  int64_t bandsPerThread = 1;
  if (op.getAxis() == 0)
    while (2 * bandsPerThread * microRows <= kUnrolledRows &&
           bands % (2 * bandsPerThread) == 0)
      bandsPerThread *= 2;
  // Writing the compacted copy, the rows of a band's vector column are
  // split among neighbouring lanes, a vector's worth each: storing one
  // micro-tile column, they then write its consecutive 16-byte pieces in
  // one instruction (whole sectors), and each holds a quarter of the
  // registers (occupancy).
  int64_t rowSharers = compactedCopy ? microRows / lanes : 1;
  int64_t rowsPerThread = microRows / rowSharers;
  int64_t numThreads = bands / bandsPerThread * vectorsPerRow * rowSharers;
  // Gathered along columns, a warp lies in one band (one segment) when the
  // rows are whole warps of vectors: it claims its lanes' slots at once.
  bool warpClaims = op.getAxis() == 1 &&
                    vectorsPerRow * rowSharers % kWarpSize == 0 &&
                    blockSize % kWarpSize == 0;
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch =
      createLaunch(b, loc, llvm::divideCeil(numThreads, blockSize), blockSize);

  Value one = k.index(1);
  Value thread = k.add(k.mul(launch.getBlockIds().x, k.index(blockSize)),
                       launch.getThreadIds().x);
  Value rowPart = k.rem(thread, rowSharers);
  Value vectorColumn = k.div(thread, rowSharers);
  Value firstBand =
      k.mul(k.div(vectorColumn, vectorsPerRow), k.index(bandsPerThread));
  Value column = k.mul(k.rem(vectorColumn, vectorsPerRow), k.index(lanes));
  Value inRange = k.ult(thread, k.index(numThreads));

  // The non-zero lanes of the thread's vectors, OR-ed down each of its
  // bands; none for threads past the source (they still take part in the
  // shuffles).
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  auto vectorType = VectorType::get({lanes}, elementType);
  Value none = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(maskType, false));
  // Kept for the compacted copy: the thread's loaded vectors.
  int64_t keptRows = compactedCopy ? rowsPerThread : 0;
  auto scan = scf::IfOp::create(
      b, loc, inRange,
      [&](OpBuilder &b, Location loc) {
        auto loadRow = [&](Value row) {
          return vector::LoadOp::create(b, loc, vectorType, op.getSource(),
                                        ValueRange{row, column},
                                        /*nontemporal=*/false,
                                        llvm::MaybeAlign(kVectorBytes))
              .getResult();
        };
        Value row0 = k.add(k.mul(firstBand, k.index(microRows)),
                           k.mul(rowPart, k.index(rowsPerThread)));
        SmallVector<Value> results, kept;
        if (rowsPerThread * bandsPerThread <= kUnrolledRows) {
          // All loads first, so that they are in flight together.
          SmallVector<Value> loaded;
          for (int64_t r = 0; r < rowsPerThread * bandsPerThread; ++r)
            loaded.push_back(loadRow(k.add(row0, k.index(r))));
          for (int64_t band = 0; band < bandsPerThread; ++band) {
            Value any = none;
            for (int64_t r = 0; r < rowsPerThread; ++r)
              any = arith::OrIOp::create(
                  b, loc, any,
                  nonZeroLanes(b, loc, loaded[band * rowsPerThread + r]));
            results.push_back(any);
          }
          kept.assign(loaded.begin(), loaded.begin() + keptRows);
        } else {
          auto loop = scf::ForOp::create(
              b, loc, k.index(0), k.index(microRows), one, ValueRange{none},
              [&](OpBuilder &b, Location loc, Value r, ValueRange acc) {
                Value mask = nonZeroLanes(b, loc, loadRow(k.add(row0, r)));
                scf::YieldOp::create(
                    b, loc, ValueRange{arith::OrIOp::create(b, loc, acc[0], mask)});
              });
          results.push_back(loop.getResult(0));
        }
        results.append(kept);
        scf::YieldOp::create(b, loc, results);
      },
      [&](OpBuilder &b, Location loc) {
        SmallVector<Value> results(bandsPerThread, none);
        Value zeros = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vectorType,
                                           b.getZeroAttr(elementType)));
        results.append(keptRows, zeros);
        scf::YieldOp::create(b, loc, results);
      });
  ValueRange scannedMasks = scan.getResults().take_front(bandsPerThread);
  SmallVector<Value> bandMasks(scannedMasks.begin(), scannedMasks.end());
  ValueRange keptRowsValues = scan.getResults().drop_front(bandsPerThread);
  Value width = i32(b, loc, kWarpSize);
  if (rowSharers > 1) {
    // The lanes of one band column OR their masks, as bits, with shuffles.
    Value bits = i32(b, loc, 0);
    for (int64_t lane = 0; lane < lanes; ++lane) {
      Value bit = arith::ExtUIOp::create(
          b, loc, b.getI32Type(),
          vector::ExtractOp::create(b, loc, bandMasks.front(), lane));
      bits = arith::OrIOp::create(
          b, loc, bits,
          arith::ShLIOp::create(b, loc, bit, i32(b, loc, lane)));
    }
    for (int64_t offset = 1; offset < rowSharers; offset *= 2)
      bits = arith::OrIOp::create(
          b, loc, bits,
          gpu::ShuffleOp::create(b, loc, bits, i32(b, loc, offset), width,
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult());
    SmallVector<Value> laneFlags;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, bits, i32(b, loc, lane)),
          i32(b, loc, 1));
      laneFlags.push_back(arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, bit, i32(b, loc, 0)));
    }
    bandMasks.front() =
        vector::FromElementsOp::create(b, loc, maskType, laneFlags);
  }

  // The micro-tile columns the thread stands for (the same in every band),
  // and a band's flag for each: whether that micro-tile holds a non-zero.
  SmallVector<Value> tileColumns;
  if (narrow) {
    for (int64_t first = 0; first < lanes; first += microColumns)
      tileColumns.push_back(k.add(k.div(column, microColumns),
                                  k.index(first / microColumns)));
  } else {
    tileColumns.push_back(k.div(column, microColumns));
  }
  Value leader;
  if (!narrow)
    leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   k.rem(k.div(column, lanes), sharers),
                                   k.index(0));
  auto flagsOf = [&](Value any) {
    SmallVector<Value> flags;
    if (narrow) {
      for (int64_t first = 0; first < lanes; first += microColumns) {
        Value flag = vector::ExtractOp::create(b, loc, any, first);
        for (int64_t lane = first + 1; lane < first + microColumns; ++lane)
          flag = arith::OrIOp::create(
              b, loc, flag, vector::ExtractOp::create(b, loc, any, lane));
        flags.push_back(flag);
      }
      return flags;
    }
    // The g threads of a micro-tile OR their flags with shuffles; the first
    // of them holds the micro-tile's flag.
    Value flag = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                             any);
    Value bits = arith::ExtUIOp::create(b, loc, b.getI32Type(), flag);
    for (int64_t offset = sharers / 2; offset >= 1; offset /= 2) {
      Value other = gpu::ShuffleOp::create(b, loc, bits, i32(b, loc, offset),
                                           i32(b, loc, kWarpSize),
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      bits = arith::OrIOp::create(b, loc, bits, other);
    }
    Value nonZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          bits, i32(b, loc, 0));
    flags.push_back(arith::AndIOp::create(b, loc, leader, nonZero));
    return flags;
  };
  SmallVector<SmallVector<Value>> bandFlags;
  for (Value any : bandMasks)
    bandFlags.push_back(flagsOf(any));

  auto toI32 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  };
  auto countOf = [&](ValueRange flags) {
    Value count = i32(b, loc, 0);
    for (Value flag : flags)
      count = arith::AddIOp::create(
          b, loc, count, arith::ExtUIOp::create(b, loc, b.getI32Type(), flag));
    return count;
  };
  auto claim = [&](Value segment, Value count) {
    return memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                       count, op.getCounts(),
                                       ValueRange{segment})
        .getResult();
  };
  // Records `position` at the claimed `slot` of `segment` where `flag`
  // holds (where `writer` holds too, when given), and runs `also` there;
  // returns the next slot.
  auto record = [&](Value flag, Value position, Value segment, Value slot,
                    function_ref<void()> also = nullptr,
                    Value writer = nullptr) {
    auto ifFlag = scf::IfOp::create(
        b, loc, flag,
        [&](OpBuilder &, Location) {
          auto store = [&] {
            memref::StoreOp::create(b, loc, toI32(position), op.getPositions(),
                                    ValueRange{segment, slot});
          };
          if (writer) {
            auto ifWriter = scf::IfOp::create(b, loc, writer, false);
            OpBuilder::InsertionGuard inner(b);
            b.setInsertionPoint(ifWriter.thenBlock()->getTerminator());
            store();
          } else {
            store();
          }
          if (also)
            also();
          scf::YieldOp::create(b, loc, ValueRange{k.add(slot, one)});
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{slot});
        });
    return ifFlag.getResult(0);
  };
  auto inside = [&](Value condition) {
    auto ifOp = scf::IfOp::create(b, loc, condition, false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  };
  auto nonZeroCount = [&](Value count) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, count,
                                 i32(b, loc, 0));
  };

  if (op.getAxis() == 0) {
    // Each micro-tile column is a segment: one claim for the thread's bands.
    for (auto [number, tileColumn] : llvm::enumerate(tileColumns)) {
      SmallVector<Value> flags;
      for (ArrayRef<Value> band : bandFlags)
        flags.push_back(band[number]);
      Value count = countOf(flags);
      OpBuilder::InsertionGuard inner(b);
      inside(nonZeroCount(count));
      Value slot = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                              claim(tileColumn, count));
      for (auto [band, flag] : llvm::enumerate(flags))
        slot = record(flag, k.add(firstBand, k.index(band)), tileColumn, slot);
    }
    return success();
  }

  // Gathered along columns, the band is the segment: the thread's flags
  // take consecutive slots. Lanes that share a band column have the same
  // flags: the first of them claims, and the others take its slots.
  ArrayRef<Value> flags = bandFlags.front();
  Value band = firstBand;
  Value count = countOf(flags);
  Value lane = k.rem(launch.getThreadIds().x, kWarpSize);
  Value claimer = k.ult(rowPart, one);
  Value claimed = arith::SelectOp::create(b, loc, claimer, count,
                                          i32(b, loc, 0));
  // This lane's value of `value` at the lane that claims for it.
  auto fromClaimer = [&](Value value) -> Value {
    if (rowSharers == 1)
      return value;
    return gpu::ShuffleOp::create(
               b, loc, value,
               toI32(arith::SubIOp::create(b, loc, lane, rowPart)), width,
               gpu::ShuffleMode::IDX)
        .getShuffleResult();
  };
  Value first;
  if (warpClaims) {
    // An inclusive prefix sum of the claimed counts over the warp; its
    // last lane has the warp's total, which lane 0 claims. Each lane starts
    // where the lanes before it end.
    Value inclusive = claimed;
    for (int64_t offset = 1; offset < kWarpSize; offset *= 2) {
      auto up = gpu::ShuffleOp::create(b, loc, inclusive, i32(b, loc, offset),
                                       width, gpu::ShuffleMode::UP);
      Value added = arith::SelectOp::create(b, loc, up.getValid(),
                                            up.getShuffleResult(),
                                            i32(b, loc, 0));
      inclusive = arith::AddIOp::create(b, loc, inclusive, added);
    }
    Value total = gpu::ShuffleOp::create(b, loc, inclusive,
                                         i32(b, loc, kWarpSize - 1), width,
                                         gpu::ShuffleMode::IDX)
                      .getShuffleResult();
    Value claims = arith::AndIOp::create(
        b, loc, k.ult(lane, one), nonZeroCount(total));
    auto warpClaim = scf::IfOp::create(
        b, loc, claims,
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{claim(band, total)});
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{i32(b, loc, 0)});
        });
    Value base = gpu::ShuffleOp::create(b, loc, warpClaim.getResult(0),
                                        i32(b, loc, 0), width,
                                        gpu::ShuffleMode::IDX)
                     .getShuffleResult();
    Value before = fromClaimer(arith::SubIOp::create(b, loc, inclusive, claimed));
    first = arith::AddIOp::create(b, loc, base, before);
    inside(nonZeroCount(count));
  } else if (rowSharers > 1) {
    // The claim leaves the branch so that the shuffle sees every lane.
    auto ownClaim = scf::IfOp::create(
        b, loc, nonZeroCount(claimed),
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{claim(band, claimed)});
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc, ValueRange{i32(b, loc, 0)});
        });
    first = fromClaimer(ownClaim.getResult(0));
    inside(nonZeroCount(count));
  } else {
    inside(nonZeroCount(count));
    first = claim(band, count);
  }
  Value slot = arith::IndexCastOp::create(b, loc, b.getIndexType(), first);
  for (auto [lane, flag] : llvm::enumerate(flags)) {
    // The micro-tile's column, contiguous in the compacted copy: this
    // lane's rows of it, next to those of the lanes that share the column.
    auto copyColumn = [&, lane = lane] {
      Value rowBase = k.mul(rowPart, k.index(rowsPerThread));
      for (int64_t r0 = 0; r0 < keptRows; r0 += lanes) {
        SmallVector<Value> elements;
        for (int64_t r = r0; r < r0 + lanes; ++r)
          elements.push_back(vector::ExtractOp::create(
              b, loc, keptRowsValues[r], static_cast<int64_t>(lane)));
        vector::StoreOp::create(
            b, loc, vector::FromElementsOp::create(b, loc, vectorType, elements),
            compactedCopy, ValueRange{band, slot, k.add(rowBase, k.index(r0))},
            /*nontemporal=*/false, llvm::MaybeAlign(kVectorBytes));
      }
    };
    slot = record(flag, tileColumns[lane], band, slot, copyColumn,
                  rowSharers > 1 ? claimer : Value());
  }
  return success();
}
