//===- BlockMma.h - Pieces of the tensor-core STile kernels -----*- C++ -*-===//
//
// The tensor-core kernels of convert-pit-to-gpu (matmul, batch matmul,
// SDDMM) are built from the same pieces: a launch of 4 warps with the A and
// B tiles in shared memory, 16-byte cp.async copies spread over the block and
// zero-filled past the index count, mma.sync m16n8k16 over the shared tiles
// with an accumulator per thread and 16x8 subtile, and the walk over the
// accumulators that the write-back (SWrite) takes.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMA_H
#define PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMA_H

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// Threads of a tensor-core block: 4 warps.
constexpr int64_t kMmaWarps = 4, kMmaLanes = 32,
                  kMmaThreads = kMmaWarps * kMmaLanes;
/// Elements of a 16-byte copy of f16/bf16.
constexpr int64_t kVector = 8;

/// Index arithmetic at one insertion point.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, int64_t y);
  Value rem(Value x, int64_t y);
  Value ult(Value x, Value y);
};

/// The block tile of a tensor-core kernel: C (m x n, f32) += A (m x k) x
/// B (k x n), A and B of `inputType` (f16 or bf16).
struct MmaTileShape {
  int64_t m, n, k;
  Type inputType;

  /// Whether the shape is made of whole mma shapes: 16 rows, 8 columns a
  /// warp, 16 deep.
  bool isWhole() const {
    return m % 16 == 0 && n % (8 * kMmaWarps) == 0 && k % 16 == 0;
  }
};

/// A launch of `numBlocks` blocks of 4 warps, with the shared tiles sA
/// (m x k) and sB (k x n), and the builders of the kernel's phases. Fragment
/// layouts of m16n8k16: lane = 4 * group + inGroup; A holds rows group and
/// group + 8, columns 2 * inGroup (+1) and + 8; B holds k rows 2 * inGroup
/// (+1) and + 8 of column group; the accumulator rows group (+8), columns
/// 2 * inGroup (+1). Warp w owns the columns [w n/4, (w+1) n/4).
class BlockMma {
public:
  BlockMma(OpBuilder &b, Location loc, const MmaTileShape &shape,
           int64_t numBlocks);

  /// A 16-byte cp.async of `src[srcIndices]` to `dst[dstIndices]`, zeros
  /// instead when `valid` is false (no condition when it is null).
  Value copy(Value dst, ValueRange dstIndices, Value src, ValueRange srcIndices,
             Value valid);

  /// Spreads `count` 16-byte copies over the block: whole rounds first, then
  /// a last, partial round under a guard, whose threads commit their own
  /// copy group (a token cannot leave the guard).
  void spreadCopies(int64_t count, function_ref<Value(Value)> copyOne);

  /// Spreads `count` element copies through registers over the block, for
  /// pieces narrower than 16 bytes: `copyOne(linear)` loads and stores one.
  void spreadElementCopies(int64_t count, function_ref<void(Value)> copyOne);

  /// Waits for this thread's copies, then for the whole block's.
  void waitForCopies();

  SmallVector<Value> zeroAccumulators();

  /// acc += the shared A tile x the shared B tile, over the whole k.
  void multiply(SmallVector<Value> &acc);

  /// Loops over `numChunks` chunks of k: `fillChunk(k0)` fills the shared
  /// tiles with the chunk starting at compacted k0, then the warps multiply
  /// them. Returns the accumulators.
  SmallVector<Value> accumulateChunks(Value numChunks,
                                      function_ref<void(Value)> fillChunk);

  /// Calls `write(row, column, value)` for every accumulator element of this
  /// thread, with its row and column in the block's output tile.
  void forEachAccumulator(ValueRange acc,
                          function_ref<void(Value, Value, Value)> write);

  gpu::LaunchOp launch;
  Value sA, sB, blockId, tid;

private:
  int64_t mSubtiles() const { return shape.m / 16; }
  int64_t nSubtiles() const { return shape.n / (8 * kMmaWarps); }
  Value fragmentA(int64_t ms, int64_t k16);
  Value fragmentB(int64_t ns, int64_t k16);

  OpBuilder &b;
  Location loc;
  KernelBuilder k;
  MmaTileShape shape;
  Value group, inGroup, warpColumn;
  SmallVector<Value> tokens;
};

/// Where compacted coordinate `c` of `segment` lives along the gathered
/// dimension: through the index, with the slot clamped so that padding never
/// reads past the index row. Returns the coordinate and whether the element
/// is real (its slot is below `count`).
std::pair<Value, Value> gatheredCoordinate(KernelBuilder &k, Value positions,
                                           Value segment, Value count, Value c,
                                           int64_t micro, int64_t capacity);

/// The number of micro-tiles that `op`'s detection found in `segment`.
Value loadCount(KernelBuilder &k, STileOp op, Value segment);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMA_H
