//===- VectorDetection.cpp - Detection with 16-byte loads -----------------===//
//
// Thread t of the scan owns the vector column j = u % (C / v) of R bands
// from R (u / (C / v)), with u = t / S, where a band is one micro-tile row
// of the source (mh rows), C the number of columns, v the elements of a
// 16-byte vector, S the lanes that share a band column (1 but for the
// compacted copy, below) and R 1 gathered along the columns (along the
// rows, as many bands as make up to 16 rows). It loads its vectors, ORs
// their non-zero lanes band by band, and turns them into flags:
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

constexpr int64_t kVectorBytes = 16;
/// Bands up to this many rows are loaded unrolled, all loads in flight.
constexpr int64_t kUnrolledRows = 32;
/// Rows a thread scans when gathering along the rows, claiming its
/// columns' slots once for all of them: 16 scanned 1x64 at 4096^3 in 15-18
/// us on an H100, 32 (fewer threads, more registers each) in 19-20 us.
constexpr int64_t kRowsPerClaim = 16;
/// The same for a sample (pit.count): it claims no slots, only adds to its
/// counts, and it is small (1/8 of A for 1x64 at 4096^3: 128 blocks of 16
/// rows, one a multiprocessor, took 4.9 us), so its rows go to more threads.
constexpr int64_t kRowsPerSampleClaim = 4;

/// A scan that would launch more blocks than this takes larger blocks, up to
/// kMaxScanBlockSize threads: where the choice leaves the detection out, the
/// call still waits for its blocks to be scheduled and end, and fewer
/// blocks do that sooner. The 32x1 scan of a 4096x4096 A, 2048 blocks of
/// 128 threads, took a call at 50% 1.8 us longer than as 512 blocks of 512
/// threads on an H100 (its speed the same within 0.5 us at 90-99%); 256
/// blocks of 1024 saved no more there and were 1 us slower at 90%.
constexpr int64_t kMaxScanBlocks = 512;
constexpr int64_t kMaxScanBlockSize = 512;

/// 32-bit words of a 16-byte vector: a band's rows are OR-ed word by word.
constexpr int64_t kWordsPerVector = kVectorBytes / 4;

/// Whether an element of `type` is zero exactly where its bits are zero
/// once those of its negative zero (if it has one) are cleared: integers,
/// and floats whose zero is all zero bits (not f8E8M0FNU, which has none).
bool hasBitwiseZero(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType)
    return true;
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  return APFloat::semanticsHasZero(semantics) &&
         APFloat::getZero(semantics).bitcastToAPInt().isZero();
}

/// The bits of a 16-byte vector of `elementType` elements that tell zero
/// from non-zero, as its 32-bit words (element 0 in the low bits of word 0):
/// all of an integer's; all of a float's but the sign where it has a
/// negative zero (-0 is zero; NaN and infinity are not, as for `arith.cmpf
/// une`; in the FNUZ types, whose sign bit alone is NaN, every bit counts).
DenseElementsAttr magnitudeMask(Type elementType, VectorType wordsType) {
  unsigned width = elementType.getIntOrFloatBitWidth();
  APInt element = APInt::getAllOnes(width);
  if (auto floatType = dyn_cast<FloatType>(elementType))
    element &= ~APFloat::getZero(floatType.getFloatSemantics(),
                                 /*Negative=*/true)
                    .bitcastToAPInt();
  APInt bits = APInt::getZero(kVectorBytes * 8);
  for (unsigned bit = 0; bit < kVectorBytes * 8; bit += width)
    bits.insertBits(element, bit);
  SmallVector<APInt> words;
  for (unsigned word = 0; word < kWordsPerVector; ++word)
    words.push_back(bits.extractBits(32, 32 * word));
  return DenseElementsAttr::get(wordsType, words);
}

/// `vector` (a 16-byte vector of the source's elements) as 32-bit words
/// with only their magnitude bits: OR-ed over a band's rows, a lane's bits
/// are non-zero where one of its values is. Cheaper per row than comparing
/// each lane, so that ptxas keeps more of a thread's loads in flight (the
/// 1x64 detection at 4096^3 on an H100, 16 rows a thread, under ncu: 17.2
/// us with a float comparison a lane, 15.6 with the words).
Value magnitudeWords(OpBuilder &b, Location loc, Value vector) {
  auto elementType = cast<VectorType>(vector.getType()).getElementType();
  auto wordsType = VectorType::get({kWordsPerVector}, b.getI32Type());
  Value words = vector::BitCastOp::create(b, loc, wordsType, vector);
  Value mask =
      arith::ConstantOp::create(b, loc, magnitudeMask(elementType, wordsType));
  return arith::AndIOp::create(b, loc, words, mask);
}

/// How the scan of one pit.detect is laid out over threads.
struct ScanLayout {
  /// Elements of a 16-byte vector, the micro-tile, and the source's vectors
  /// a row.
  int64_t lanes, microRows, microColumns, vectorsPerRow;
  /// Whether a micro-tile is at most a vector wide (else `sharers` threads
  /// share one).
  bool narrow;
  int64_t sharers;
  /// Bands a thread scans (gathered along the rows: several, so that it
  /// claims each segment's slots once for all of them).
  int64_t bandsPerThread;
  /// Threads that share a band's vector column, `rowsPerThread` rows each
  /// (writing the compacted copy: a vector's worth each).
  int64_t rowSharers, rowsPerThread;
  int64_t numThreads;
  /// The scan's sample (1: every segment), the bands it scans and the
  /// vectors of a row it scans in each.
  int64_t every, scannedBands, scannedVectorsPerRow;
  /// Whether a warp lies in one band and claims its lanes' slots at once.
  bool warpClaims;
};

/// Whether a band's `microRows` rows split among a power of two of lanes of
/// one warp, each loading `lanes` rows (a 16-byte vector's elements),
/// unrolled.
bool canSplitRows(int64_t microRows, int64_t lanes) {
  return microRows % lanes == 0 && microRows / lanes <= kWarpSize &&
         llvm::isPowerOf2_64(microRows / lanes);
}
bool canSplitRows(const ScanLayout &layout) {
  return canSplitRows(layout.microRows, layout.lanes);
}

/// The layout of the scan of `op`, or failure where the source is not 2-D
/// with rows of whole vectors of elements of a power-of-two width whose
/// zero is all zero bits, or a micro-tile row is not a power-of-two
/// fraction or multiple (up to a warp) of a vector.
FailureOr<ScanLayout> planScan(const MicroTileScan &scan, int64_t blockSize,
                               bool writesCopy) {
  auto sourceType = cast<MemRefType>(scan.source.getType());
  Type elementType = sourceType.getElementType();
  if (sourceType.getRank() != 2 || !sourceType.hasStaticShape() ||
      !elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() < 8 ||
      !llvm::isPowerOf2_64(elementType.getIntOrFloatBitWidth()) ||
      !hasBitwiseZero(elementType) || !sourceType.getLayout().isIdentity())
    return failure();
  ScanLayout layout;
  int64_t rows = sourceType.getDimSize(0), columns = sourceType.getDimSize(1);
  layout.lanes = kVectorBytes * 8 / elementType.getIntOrFloatBitWidth();
  layout.microRows = scan.microTile[0];
  layout.microColumns = scan.microTile[1];
  layout.narrow = layout.microColumns <= layout.lanes;
  layout.sharers = layout.narrow ? 1 : layout.microColumns / layout.lanes;
  if (columns % layout.lanes ||
      (layout.narrow ? layout.lanes % layout.microColumns
                     : layout.microColumns % layout.lanes) ||
      !llvm::isPowerOf2_64(layout.sharers) || layout.sharers > kWarpSize)
    return failure();
  layout.vectorsPerRow = columns / layout.lanes;
  int64_t bands = rows / layout.microRows;
  // A sample of the segments (pit.count): every `every`-th band gathered
  // along the columns; gathered along the rows, every `every`-th micro-tile
  // column, whole vectors of it (so none narrower than a vector).
  layout.every = scan.every;
  layout.scannedBands = bands;
  layout.scannedVectorsPerRow = layout.vectorsPerRow;
  if (scan.axis == 1) {
    layout.scannedBands = getNumSampledSegments(bands, scan.every);
  } else if (scan.every > 1) {
    if (layout.narrow)
      return failure();
    int64_t segments = columns / layout.microColumns;
    layout.scannedVectorsPerRow =
        getNumSampledSegments(segments, scan.every) * layout.sharers;
  }
  // Gathered along rows, every band holds one micro-tile of each segment (a
  // micro-tile column): one claim a band would make thousands of atomic
  // adds to each counter, which serialize.
  layout.bandsPerThread = 1;
  int64_t rowsPerClaim = scan.every > 1 ? kRowsPerSampleClaim : kRowsPerClaim;
  if (scan.axis == 0)
    while (2 * layout.bandsPerThread * layout.microRows <= rowsPerClaim &&
           bands % (2 * layout.bandsPerThread) == 0)
      layout.bandsPerThread *= 2;
  // Writing the compacted copy, the rows of a band's vector column are
  // split among neighbouring lanes, a vector's worth each: storing one
  // micro-tile column, they then write its consecutive 16-byte pieces in
  // one instruction (whole sectors), and each holds a fraction of the
  // registers (occupancy). A sample gathered along the columns splits them
  // the same way: it has few bands, and a thread a band column would leave
  // most multiprocessors idle (16 blocks for every 16th of 128 bands).
  // The threads of a wide micro-tile then lie rowSharers lanes apart, all
  // in one warp.
  bool splitsRows =
      writesCopy ||
      (scan.axis == 1 && scan.every > 1 && canSplitRows(layout) &&
       layout.sharers * (layout.microRows / layout.lanes) <= kWarpSize);
  layout.rowSharers = splitsRows ? layout.microRows / layout.lanes : 1;
  layout.rowsPerThread = layout.microRows / layout.rowSharers;
  // Lanes that share a micro-tile or a band column meet through 32-wide
  // shuffles: they need whole warps.
  if ((layout.sharers > 1 || layout.rowSharers > 1) && blockSize % kWarpSize)
    return failure();
  layout.numThreads = layout.scannedBands / layout.bandsPerThread *
                      layout.scannedVectorsPerRow * layout.rowSharers;
  // Gathered along columns, a warp lies in one band (one segment) when the
  // rows are whole warps of vectors.
  layout.warpClaims =
      scan.axis == 1 &&
      layout.vectorsPerRow * layout.rowSharers % kWarpSize == 0 &&
      blockSize % kWarpSize == 0;
  return layout;
}

/// Builds the scan kernel of one pit.detect, phase by phase.
class DetectionKernel {
public:
  DetectionKernel(OpBuilder &b, Location loc, const MicroTileScan &scan,
                  const ScanLayout &layout, int64_t blockSize,
                  Value compactedCopy);

  void build();

private:
  /// Which lanes of a band hold a non-zero value, from its rows' OR-ed
  /// magnitude words (magnitudeWords); for micro-tiles wider than a vector,
  /// whether any lane does, in every lane (only that is asked of them).
  Value laneMask(Value words);
  /// The thread's vectors, loaded: per band, its non-zero lanes OR-ed down
  /// the band (none past the source: those threads still take part in the
  /// shuffles), and the vectors themselves where the scan writes the copy.
  std::pair<SmallVector<Value>, SmallVector<Value>> scanBands();
  /// ORs `mask` over the lanes that share the thread's band column.
  Value orOverRowSharers(Value mask);
  /// A band's flags, one per micro-tile column of tileColumns: whether that
  /// micro-tile holds a non-zero.
  SmallVector<Value> flagsOf(Value mask);
  /// Gathered along rows: each micro-tile column is a segment, claimed once
  /// for the thread's bands.
  void claimAlongRows(ArrayRef<SmallVector<Value>> bandFlags);
  /// Gathered along columns: the band is the segment, and the thread's
  /// flags take consecutive slots; with `kept`, the micro-tile columns also
  /// go to the compacted copy.
  void claimAlongColumns(ArrayRef<Value> flags, ValueRange kept);

  Value shuffle(Value value, Value offset, gpu::ShuffleMode mode) {
    return gpu::ShuffleOp::create(b, loc, value, offset, k.i32(kWarpSize), mode)
        .getShuffleResult();
  }
  Value nonZero(Value count) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, count,
                                 k.i32(0));
  }
  /// The number of set flags, as i32.
  Value countOf(ValueRange flags);
  /// Claims `count` slots of `segment`; returns the first (i32).
  Value claim(Value segment, Value count);
  /// `claim` where `condition` holds, 0 elsewhere: outside any branch, so
  /// that the shuffles after it see every lane.
  Value claimIf(Value condition, Value segment, Value count);
  /// Moves the insertion point into a new `scf.if condition`.
  void enterIf(Value condition);
  /// Records `position` at the claimed `slot` of `segment` where `flag`
  /// holds (and `writesPosition`, when given), and runs `onRecorded` where
  /// `flag` holds; returns the next slot.
  Value record(Value flag, Value position, Value segment, Value slot,
               function_ref<void()> onRecorded = nullptr,
               Value writesPosition = nullptr);

  OpBuilder &b;
  Location loc;
  KernelBuilder k;
  const MicroTileScan &scan;
  const ScanLayout &layout;
  Value compactedCopy;
  VectorType maskType, vectorType;
  gpu::LaunchOp launch;
  /// The thread (across the grid), its share of its band column, its first
  /// band, its column (first element) and its lane in the warp.
  Value thread, rowPart, firstBand, column, lane;
  /// The micro-tile columns the thread stands for (the same in every band).
  SmallVector<Value> tileColumns;
};

} // namespace

DetectionKernel::DetectionKernel(OpBuilder &b, Location loc,
                                 const MicroTileScan &scan,
                                 const ScanLayout &layout, int64_t blockSize,
                                 Value compactedCopy)
    : b(b), loc(loc), k{b, loc}, scan(scan), layout(layout),
      compactedCopy(compactedCopy) {
  Type elementType =
      cast<MemRefType>(scan.source.getType()).getElementType();
  maskType = VectorType::get({layout.lanes}, b.getI1Type());
  vectorType = VectorType::get({layout.lanes}, elementType);
  launch = createLaunch(b, loc,
                        llvm::divideCeil(layout.numThreads, blockSize),
                        blockSize);
  thread = k.add(k.mul(launch.getBlockIds().x, k.index(blockSize)),
                 launch.getThreadIds().x);
  rowPart = k.rem(thread, layout.rowSharers);
  Value vectorColumn = k.div(thread, layout.rowSharers);
  Value scannedBand = k.mul(k.div(vectorColumn, layout.scannedVectorsPerRow),
                            k.index(layout.bandsPerThread));
  Value scannedVector = k.rem(vectorColumn, layout.scannedVectorsPerRow);
  // A sample takes every `every`-th band (gathered along the columns) or
  // micro-tile column (along the rows, `sharers` vectors each).
  firstBand = scan.axis == 1 ? k.mul(scannedBand, k.index(layout.every))
                             : scannedBand;
  Value vectorIndex = scannedVector;
  if (scan.axis == 0 && layout.every > 1)
    vectorIndex = k.add(k.mul(k.div(scannedVector, layout.sharers),
                         k.index(layout.every * layout.sharers)),
                   k.rem(scannedVector, layout.sharers));
  column = k.mul(vectorIndex, k.index(layout.lanes));
  lane = k.rem(launch.getThreadIds().x, kWarpSize);
  if (layout.narrow) {
    for (int64_t first = 0; first < layout.lanes; first += layout.microColumns)
      tileColumns.push_back(k.add(k.div(column, layout.microColumns),
                                  k.index(first / layout.microColumns)));
  } else {
    tileColumns.push_back(k.div(column, layout.microColumns));
  }
}

void DetectionKernel::build() {
  auto [masks, kept] = scanBands();
  if (layout.rowSharers > 1)
    masks.front() = orOverRowSharers(masks.front());
  SmallVector<SmallVector<Value>> bandFlags;
  for (Value mask : masks)
    bandFlags.push_back(flagsOf(mask));
  if (scan.axis == 0)
    claimAlongRows(bandFlags);
  else
    claimAlongColumns(bandFlags.front(), kept);
}

std::pair<SmallVector<Value>, SmallVector<Value>>
DetectionKernel::scanBands() {
  Value none = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(maskType, false));
  int64_t keptRows = compactedCopy ? layout.rowsPerThread : 0;
  int64_t bands = layout.bandsPerThread;
  Value inRange = k.ult(thread, k.index(layout.numThreads));
  auto loads = scf::IfOp::create(
      b, loc, inRange,
      [&](OpBuilder &b, Location loc) {
        // A is read once here: streaming loads keep the dirty lines that
        // the call before left in L2 (its C) from being written back first.
        // A scan after 64 MiB of dirty lines took 16.4 us instead of 18.6
        // on an H100 (bench/probes/detection_scan.cu).
        auto loadRow = [&](Value row) {
          return k.loadStreaming(vectorType, scan.source,
                                 ValueRange{row, column});
        };
        Value row0 = k.add(k.mul(firstBand, k.index(layout.microRows)),
                           k.mul(rowPart, k.index(layout.rowsPerThread)));
        SmallVector<Value> results, kept;
        if (layout.rowsPerThread * bands <= kUnrolledRows) {
          // All loads first, so that they are in flight together.
          SmallVector<Value> loaded;
          for (int64_t r = 0; r < layout.rowsPerThread * bands; ++r)
            loaded.push_back(loadRow(k.add(row0, k.index(r))));
          for (int64_t band = 0; band < bands; ++band) {
            Value words =
                magnitudeWords(b, loc, loaded[band * layout.rowsPerThread]);
            for (int64_t r = 1; r < layout.rowsPerThread; ++r)
              words = arith::OrIOp::create(
                  b, loc, words,
                  magnitudeWords(b, loc,
                                 loaded[band * layout.rowsPerThread + r]));
            results.push_back(laneMask(words));
          }
          kept.assign(loaded.begin(), loaded.begin() + keptRows);
        } else {
          // Tall bands: one thread a band column (no row sharers).
          Value noWords = arith::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(
                  VectorType::get({kWordsPerVector}, b.getI32Type()),
                  b.getI32IntegerAttr(0).getValue()));
          auto loop = scf::ForOp::create(
              b, loc, k.index(0), k.index(layout.rowsPerThread), k.index(1),
              ValueRange{noWords},
              [&](OpBuilder &b, Location loc, Value r, ValueRange acc) {
                Value words = magnitudeWords(b, loc, loadRow(k.add(row0, r)));
                scf::YieldOp::create(
                    b, loc,
                    ValueRange{arith::OrIOp::create(b, loc, acc[0], words)});
              });
          results.push_back(laneMask(loop.getResult(0)));
        }
        results.append(kept);
        scf::YieldOp::create(b, loc, results);
      },
      [&](OpBuilder &b, Location loc) {
        SmallVector<Value> results(bands, none);
        Value zeros = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(
                        vectorType, b.getZeroAttr(vectorType.getElementType())));
        results.append(keptRows, zeros);
        scf::YieldOp::create(b, loc, results);
      });
  ValueRange results = loads.getResults();
  return {SmallVector<Value>(results.begin(), results.begin() + bands),
          SmallVector<Value>(results.begin() + bands, results.end())};
}

Value DetectionKernel::laneMask(Value words) {
  if (!layout.narrow) {
    Value any =
        vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, words);
    return vector::BroadcastOp::create(
        b, loc, maskType,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, any, k.i32(0)));
  }
  auto lanesType = VectorType::get(
      {layout.lanes},
      b.getIntegerType(vectorType.getElementType().getIntOrFloatBitWidth()));
  Value lanes = vector::BitCastOp::create(b, loc, lanesType, words);
  Value zero = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(lanesType,
                             b.getZeroAttr(lanesType.getElementType())));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, lanes, zero);
}

Value DetectionKernel::orOverRowSharers(Value mask) {
  // As bits of an i32, through xor shuffles.
  Value bits = k.i32(0);
  for (int64_t l = 0; l < layout.lanes; ++l) {
    Value bit = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                       vector::ExtractOp::create(b, loc, mask, l));
    bits = arith::OrIOp::create(b, loc, bits,
                                arith::ShLIOp::create(b, loc, bit, k.i32(l)));
  }
  for (int64_t offset = 1; offset < layout.rowSharers; offset *= 2)
    bits = arith::OrIOp::create(
        b, loc, bits, shuffle(bits, k.i32(offset), gpu::ShuffleMode::XOR));
  SmallVector<Value> laneFlags;
  for (int64_t l = 0; l < layout.lanes; ++l) {
    Value bit = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, k.i32(l)), k.i32(1));
    laneFlags.push_back(nonZero(bit));
  }
  return vector::FromElementsOp::create(b, loc, maskType, laneFlags);
}

SmallVector<Value> DetectionKernel::flagsOf(Value mask) {
  SmallVector<Value> flags;
  if (layout.narrow) {
    for (int64_t first = 0; first < layout.lanes;
         first += layout.microColumns) {
      Value flag = vector::ExtractOp::create(b, loc, mask, first);
      for (int64_t l = first + 1; l < first + layout.microColumns; ++l)
        flag = arith::OrIOp::create(b, loc, flag,
                                    vector::ExtractOp::create(b, loc, mask, l));
      flags.push_back(flag);
    }
    return flags;
  }
  // The threads of a micro-tile OR their flags with shuffles; the first of
  // them holds the micro-tile's flag.
  Value flag =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, mask);
  Value bits = arith::ExtUIOp::create(b, loc, b.getI32Type(), flag);
  // Neighbouring vector columns lie rowSharers lanes apart.
  for (int64_t offset = layout.sharers / 2; offset >= 1; offset /= 2)
    bits = arith::OrIOp::create(
        b, loc, bits,
        shuffle(bits, k.i32(offset * layout.rowSharers),
                gpu::ShuffleMode::XOR));
  Value first = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      k.rem(k.div(column, layout.lanes), layout.sharers), k.index(0));
  flags.push_back(arith::AndIOp::create(b, loc, first, nonZero(bits)));
  return flags;
}

Value DetectionKernel::countOf(ValueRange flags) {
  Value count = k.i32(0);
  for (Value flag : flags)
    count = arith::AddIOp::create(
        b, loc, count, arith::ExtUIOp::create(b, loc, b.getI32Type(), flag));
  return count;
}

Value DetectionKernel::claim(Value segment, Value count) {
  Value sampled = layout.every > 1 ? k.div(segment, layout.every) : segment;
  return memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, count,
                                     scan.counts, ValueRange{sampled})
      .getResult();
}

Value DetectionKernel::claimIf(Value condition, Value segment, Value count) {
  auto ifOp = scf::IfOp::create(
      b, loc, condition,
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, ValueRange{claim(segment, count)});
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, ValueRange{k.i32(0)});
      });
  return ifOp.getResult(0);
}

void DetectionKernel::enterIf(Value condition) {
  auto ifOp = scf::IfOp::create(b, loc, condition, false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

Value DetectionKernel::record(Value flag, Value position, Value segment,
                              Value slot, function_ref<void()> onRecorded,
                              Value writesPosition) {
  auto ifFlag = scf::IfOp::create(
      b, loc, flag,
      [&](OpBuilder &, Location) {
        {
          OpBuilder::InsertionGuard inner(b);
          if (writesPosition)
            enterIf(writesPosition);
          memref::StoreOp::create(b, loc, k.toI32(position), scan.positions,
                                  ValueRange{segment, slot});
        }
        if (onRecorded)
          onRecorded();
        scf::YieldOp::create(b, loc, ValueRange{k.add(slot, k.index(1))});
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, ValueRange{slot});
      });
  return ifFlag.getResult(0);
}

void DetectionKernel::claimAlongRows(ArrayRef<SmallVector<Value>> bandFlags) {
  for (auto [number, tileColumn] : llvm::enumerate(tileColumns)) {
    SmallVector<Value> flags;
    for (ArrayRef<Value> band : bandFlags)
      flags.push_back(band[number]);
    Value count = countOf(flags);
    OpBuilder::InsertionGuard inner(b);
    enterIf(nonZero(count));
    Value first = claim(tileColumn, count);
    if (!scan.positions)
      continue;
    Value slot = k.toIndex(first);
    for (auto [band, flag] : llvm::enumerate(flags))
      slot = record(flag, k.add(firstBand, k.index(band)), tileColumn, slot);
  }
}

void DetectionKernel::claimAlongColumns(ArrayRef<Value> flags,
                                        ValueRange kept) {
  // Lanes that share a band column have the same flags: the first of them
  // claims, and the others take its slots.
  Value band = firstBand;
  Value count = countOf(flags);
  Value claimer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        rowPart, k.index(0));
  Value claimed = arith::SelectOp::create(b, loc, claimer, count, k.i32(0));
  // This lane's value of `value` at the lane that claims for it.
  auto fromClaimer = [&](Value value) -> Value {
    if (layout.rowSharers == 1)
      return value;
    return shuffle(value, k.toI32(arith::SubIOp::create(b, loc, lane, rowPart)),
                   gpu::ShuffleMode::IDX);
  };
  Value first;
  if (layout.warpClaims) {
    // An inclusive prefix sum of the claimed counts over the warp; its
    // last lane has the warp's total, which lane 0 claims. Each lane starts
    // where the lanes before it end.
    Value inclusive = k.inclusiveWarpSum(claimed);
    Value total = k.warpTotal(inclusive);
    Value firstLane = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            lane, k.index(0));
    Value claims = arith::AndIOp::create(b, loc, firstLane, nonZero(total));
    Value warpFirst = claimIf(claims, band, total);
    if (!scan.positions)
      return;
    Value base = shuffle(warpFirst, k.i32(0), gpu::ShuffleMode::IDX);
    Value before =
        fromClaimer(arith::SubIOp::create(b, loc, inclusive, claimed));
    first = arith::AddIOp::create(b, loc, base, before);
    enterIf(nonZero(count));
  } else if (layout.rowSharers > 1) {
    first = fromClaimer(claimIf(nonZero(claimed), band, claimed));
    enterIf(nonZero(count));
  } else {
    enterIf(nonZero(count));
    first = claim(band, count);
  }
  if (!scan.positions)
    return;
  Value slot = k.toIndex(first);
  for (auto [flagLane, flag] : llvm::enumerate(flags)) {
    // The micro-tile's column, contiguous in the compacted copy: this
    // lane's rows of it, next to those of the lanes that share the column.
    auto copyColumn = [&, flagLane = flagLane] {
      Value rowBase = k.mul(rowPart, k.index(layout.rowsPerThread));
      for (int64_t r0 = 0; r0 < static_cast<int64_t>(kept.size());
           r0 += layout.lanes) {
        SmallVector<Value> elements;
        for (int64_t r = r0; r < r0 + layout.lanes; ++r)
          elements.push_back(vector::ExtractOp::create(
              b, loc, kept[r], static_cast<int64_t>(flagLane)));
        vector::StoreOp::create(
            b, loc, vector::FromElementsOp::create(b, loc, vectorType, elements),
            compactedCopy, ValueRange{band, slot, k.add(rowBase, k.index(r0))},
            /*nontemporal=*/false, llvm::MaybeAlign(kVectorBytes));
      }
    };
    slot = record(flag, tileColumns[flagLane], band, slot, copyColumn,
                  layout.rowSharers > 1 ? claimer : Value());
  }
}

bool mlir::pit::canWriteCompactedCopy(DetectOp op) {
  MemRefType type = op.getSource().getType();
  ArrayRef<int64_t> micro = op.getMicroTile();
  if (type.getRank() != 2 || !type.hasStaticShape() || op.getAxis() != 1 ||
      micro[1] != 1 || !type.getElementType().isIntOrFloat())
    return false;
  int64_t lanes = kVectorBytes * 8 / type.getElementType().getIntOrFloatBitWidth();
  // The lanes that share a band column (micro[0] / lanes) meet through
  // xor shuffles: a power of two.
  return canSplitRows(micro[0], lanes) && type.getDimSize(1) % lanes == 0;
}

LogicalResult mlir::pit::buildVectorizedDetection(OpBuilder &b, Location loc,
                                                  const MicroTileScan &scan,
                                                  int64_t blockSize,
                                                  Value compactedCopy) {
  // The compacted copy is written from the loaded vectors: single columns
  // gathered along the columns, bands of whole vectors, loaded unrolled.
  auto detect = dyn_cast<DetectOp>(scan.op);
  if (compactedCopy && !(detect && canWriteCompactedCopy(detect)))
    return failure();
  FailureOr<ScanLayout> layout =
      planScan(scan, blockSize, static_cast<bool>(compactedCopy));
  if (failed(layout))
    return failure();
  while (blockSize < kMaxScanBlockSize &&
         llvm::divideCeil(layout->numThreads, blockSize) > kMaxScanBlocks)
    blockSize *= 2;
  OpBuilder::InsertionGuard guard(b);
  DetectionKernel(b, loc, scan, *layout, blockSize, compactedCopy).build();
  return success();
}
