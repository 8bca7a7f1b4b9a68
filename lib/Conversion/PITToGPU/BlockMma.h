//===- BlockMma.h - Pieces of the tensor-core STile kernels -----*- C++ -*-===//
//
// The tensor-core kernels of convert-pit-to-gpu (matmul, batch matmul,
// SDDMM) are built from the same pieces: a launch of 4 warps with the A and
// B tiles in shared memory, 16-byte cp.async copies spread over the block and
// zero-filled past the index count, mma.sync m16n8k16 over the shared tiles
// with an accumulator per thread and 16x8 subtile, and the walk over the
// accumulators that the write-back (SWrite) takes. The class's methods are
// defined by mechanism: BlockMma.cpp (tiles, cp.async, chunks,
// accumulators), MmaSync.cpp, WarpgroupMma.cpp, WarpSpecialization.cpp,
// TensorMemoryAccelerator.cpp, StageBarriers.cpp, GatheredIndex.cpp,
// SplitK.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMA_H
#define PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMA_H

#include "KernelBuilder.h"

#include "PIT/Dialect/PIT/IR/PITOps.h"
#include "PIT/Target/Chip.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::pit {

/// Threads of a tensor-core block: 4 warps (a warpgroup); with wgmma, a
/// warpgroup for each 64 rows of the tile, up to kMaxWarpgroups.
constexpr int64_t kMmaWarps = 4, kMmaLanes = 32,
                  kMmaThreads = kMmaWarps * kMmaLanes, kMaxWarpgroups = 2;
/// Elements of a 16-byte copy of f16/bf16, and of a 128-byte row of wgmma's
/// swizzled tiles (a tensor map's box row).
constexpr int64_t kVector = 8, kSwizzleRowElements = 64;
/// Shared memory a block may ask for (dynamically) on every chip from sm_80
/// on (sm_86 and sm_89 allow 99 KiB a block, sm_80 163 KiB, sm_90 227 KiB).
constexpr int64_t kMaxSharedBytes = 96 * 1024;
/// Shared memory a warpgroup-mma block asks for at most: wgmma exists on
/// sm_90a only, which allows 227 KiB a block.
constexpr int64_t kMaxWarpgroupSharedBytes = 160 * 1024;
/// Blocks a tensor-core kernel launches at most; past that, each block takes
/// several tiles in turn. A kernel whose variant the device did not choose
/// (run-time selection) still launches its blocks, and they only exit: a
/// few thousand cost microseconds, a hundred thousand tens of them.
constexpr int64_t kMaxMmaBlocks = 2048;

/// How long a thread waiting on an mbarrier may be suspended at a time.
constexpr int64_t kMbarrierSuspendHintNs = 1000000;

/// The two mbarriers of each shared-memory stage of a warp-specialised
/// block, in a shared buffer of type(stages): a stage's `full` mbarrier
/// completes a phase when the copies into it have landed, its `empty` one
/// when the warps that read it are done. The u-th use of the stages (a
/// chunk, a unit) takes stage u % stages as its (u / stages)-th phase.
class StageBarriers {
public:
  StageBarriers(KernelBuilder &k, Value buffer, int64_t stages);

  /// The shared buffer of `stages` stages' mbarriers (before the block puts
  /// it into shared memory).
  static MemRefType type(MLIRContext *context, int64_t stages);

  /// The mbarriers of `stage`, as the pointers the NVVM ops take.
  Value full(Value stage);
  Value empty(Value stage);

  /// Sets up every stage's mbarriers, each phase of `full` completing after
  /// `fullArrivals` arrivals and of `empty` after `emptyArrivals` (one
  /// thread calls it, before a block barrier); invalidate() ends them
  /// (after one), so that a next tile may set them up again.
  void init(int64_t fullArrivals, int64_t emptyArrivals);
  void invalidate();

  /// The stage of use `use`, and the parity of the phase of its mbarriers
  /// that completes `plus` phases after the one of that use.
  Value stageOf(Value use);
  Value parity(Value use, int64_t plus);

  /// Waits until the phase of `barrier` with `parity` has completed.
  void wait(Value barrier, Value parity);
  /// Waits until the phase of use `use`'s `full` mbarrier has completed
  /// (its chunk is in), or until the use `stages` before it is done with
  /// the stage (its `empty` phase before).
  void waitUntilFull(Value use);
  void waitUntilFree(Value use);
  /// waitUntilFull, then orders the landed copies (the generic proxy's
  /// cp.async) before wgmma's reads of the stage.
  void waitUntilLanded(Value use);

private:
  Value at(Value index);

  KernelBuilder &k;
  Value address;
  int64_t stages;
};

/// Where a warp-specialised block copies a tile's chunks from with the
/// Tensor Memory Accelerator (TMA) instead of cp.async, for a dense walk
/// over k: the device addresses (i64) of tensor maps of A, in boxes of the
/// tile's m rows x 64, and of B, in boxes of 64 x 64 (pitCudaTensorMap2D),
/// and the tile's first row of A and column of B. The blocks of a cluster
/// share B's chunks: each copies its share of the 64-column blocks into all
/// of them (multicast).
struct TensorCopies {
  Value mapA, mapB;
  Value m0, n0;
};

/// Where a warp-specialised wgmma block writes its tiles back with the TMA
/// instead of stores of its own (a 16-bit C that the block only writes):
/// the device address (i64) of C's tensor map in boxes of 64 rows x
/// kStagedColumns (pitCudaTensorMap2D), and the shared buffer
/// (BlockMma::stagingType) its multiplying warpgroups write them through.
struct TensorStores {
  Value mapC;
  Value staging;
};

/// What a tile's store adds to a thread's two neighbouring sums at
/// elements (row, column) and (row, column + 1) of C, an even column: C's
/// start that the kernel folded (a bias), as a vector<2xf32>, or null.
using PairStart = function_ref<Value(Value row, Value column)>;

/// The chunks of k of a unit of a TileWalk: [first, first + count).
struct ChunkRange {
  Value first, count;
};

/// The units a warp-specialised block takes, in turn: first, first + step,
/// ... below end. A unit is a tile, all `numChunks` chunks of its k; with
/// `chunksOf(unit)`, the part of a tile's chunks it says (split-k).
/// `copiesOf(unit)`: where TMA copies a unit's chunks from (null: the
/// block's ChunkFill copies them, and the block takes one tile).
/// `finish(unit, acc)`: the multiplying warps' write-back of a unit's
/// accumulators; `afterLastTile` (optional): theirs once every unit is
/// written back (waiting for stores still in flight).
struct TileWalk {
  Value first, end, step;
  Value numChunks;
  function_ref<ChunkRange(Value)> chunksOf = nullptr;
  function_ref<TensorCopies(Value)> copiesOf = nullptr;
  function_ref<void(Value, ValueRange)> finish;
  function_ref<void()> afterLastTile = nullptr;
};

/// Where the parts of a split tile (split-k) meet: the parts but the last
/// write their partial sums into `partials` (f32, a slot of the tile's m x
/// n for each part but the last, for each tile), and count themselves done
/// on the tile's `arrivals` (i32, one for each multiplying warp of each
/// tile, zero when the kernel starts); the last part waits until every
/// other has arrived and adds their sums to its own.
struct PartialSums {
  Value partials, arrivals;
  int64_t numTiles, kSplits;
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

  /// Shared memory of one stage of the A and B tiles.
  int64_t sharedBytes() const { return (m * k + k * n) * 2; }
};

/// A launch of blocks of 4 warps (with wgmma, 4 for each 64 rows) over
/// `numTiles` tiles (`blockId` is the
/// tile; at most kMaxMmaBlocks blocks, which take several tiles each past
/// that), with `stages` copies of the shared tiles sA (m x k, or k x m when
/// `aStoredByK`: for an A whose columns are contiguous) and sB (k x n) so that
/// the copies of one chunk of k overlap the multiplication of the one
/// before, and the builders of the kernel's phases. Stages beyond 48 KiB go
/// to dynamic shared memory.
///
/// The shared tiles are stored swizzled: the 16-byte pieces of a row are
/// permuted by an XOR with the row, so that the 8 rows that one ldmatrix
/// phase reads fall into different banks. Every access goes through
/// `sharedIndices`, which applies the permutation.
///
/// The block multiplies in one of two ways:
/// * mma.sync m16n8k16, each warp on its own: fragments come from ldmatrix
///   (x4 for A, x4 transposed for two n8 pieces of B); lane = 4 * group +
///   inGroup; the accumulator holds rows group (+8), columns 2 * inGroup
///   (+1). Warp w owns the columns [w n/4, (w+1) n/4).
/// * wgmma (sm_90a), a warpgroup of 4 warps for each 64 rows (128 rows:
///   8 warps): m64nNk16 instructions read A and B straight from shared
///   memory through matrix descriptors, asynchronously, and accumulate into
///   registers (N/2 f32 a thread). Warp w of warpgroup g owns rows
///   [64 g + 16 w, 64 g + 16 w + 16), with the same group / inGroup pattern
///   as mma.sync. The shared tiles are then
///   in the 128-byte swizzled layouts wgmma reads: A k-major with rows of 64
///   (exactly the swizzle above), or, stored k by k (`aStoredByK`, 64 rows
///   only), m-major as one block k x 64, B n-major as blocks of 64 columns,
///   each k x 64, and both start at multiples of 1024 bytes.
class BlockMma {
public:
  /// `warpgroupMma` asks for wgmma; the block uses it where the shape
  /// allows (supportsWarpgroupMma), mma.sync elsewhere.
  /// `workspace`: further shared buffers of the kernel (shapes and element
  /// types; the block puts them in shared memory), after the tiles. With
  /// wgmma, `columnWarpgroups` warpgroups share each 64 rows, each
  /// multiplying its part of n (whole blocks of 64 columns): more warps for
  /// an SM without more rows. `otherWarpgroups`: warpgroups after those
  /// that multiply (threads from mmaThreads on), for the kernel's own work.
  /// `replicas`: sets of the multiplying warps, each multiplying the whole
  /// tile on its own (replica r is threads [r, r + 1) x replicaThreads).
  /// `clusterBlocks`: blocks launched together in a cluster (along x).
  /// `gridBlocks`: a launch of that many blocks (a host value) instead,
  /// whose tiles the kernel walks itself (TileWalk); or, with
  /// `tileCounter` (a memref<1xi32> in global memory, zero when the kernel
  /// starts), that each take the next tile not yet taken when done with
  /// one (`blockId`, in a loop the constructor builds around the tile).
  BlockMma(OpBuilder &b, Location loc, const MmaTileShape &shape,
           int64_t numTiles, int64_t stages = 1, bool aStoredByK = false,
           bool warpgroupMma = false, ArrayRef<MemRefType> workspace = {},
           int64_t columnWarpgroups = 1, int64_t otherWarpgroups = 0,
           int64_t replicas = 1, int64_t clusterBlocks = 1,
           Value gridBlocks = Value(), Value tileCounter = Value());

  /// The bytes of dynamic shared memory a block with these tiles and
  /// `workspace` asks for (`warpgroup`: it multiplies with wgmma, whose
  /// tiles start at multiples of 1024 bytes). Kernels that choose their
  /// stages by what fits ask it before building the block.
  static int64_t dynamicSharedBytes(const MmaTileShape &shape, int64_t stages,
                                    bool warpgroup,
                                    ArrayRef<MemRefType> workspace);

  /// Whether wgmma can multiply tiles of `shape`: rows in whole m64
  /// instructions, k of 64, n in blocks of 64, at most 128 accumulators a
  /// thread; an A stored k by k (`aStoredByK`) only in tiles of 64 rows
  /// (sA's rows hold all of m: one 128-byte swizzle row only at 64).
  static bool supportsWarpgroupMma(const MmaTileShape &shape, bool aStoredByK);

  /// The indices of element (row, column) of stage `stage` of a shared tile
  /// (sA or sB), swizzled.
  SmallVector<Value> sharedIndices(Value tile, Value stage, Value row,
                                   Value column);

  /// Issues a 16-byte cp.async of `src[srcIndices]` to element (row, column)
  /// of `stage` of the shared tile `tile`; zeros instead when `valid` is
  /// false (no condition when it is null). Copies land once committed
  /// (commitCopies) and waited for (waitForCopies).
  void copy(Value tile, Value stage, Value row, Value column, Value src,
            ValueRange srcIndices, Value valid);

  /// Takes B's chunks as n rows of k (B stored n by k, as nn.Linear's W):
  /// wgmma's own layout for B (k-major, rows of 128 bytes swizzled like
  /// A's), which the TMA copies of a B stored so land in. Warp-specialised
  /// wgmma blocks that copy with TMA only: sB keeps its k x n type (the
  /// same bytes), which the other paths would index wrongly.
  void takeBStoredByN() {
    assert(warpgroup && "B stored n by k is read by wgmma only");
    bStoredByN = true;
  }

  /// Copies rows [k0, k0 + k) of B's columns [n0, n0 + n) into `stage` of
  /// sB with the TMA (one thread; `mapB`: the device address, i64, of B's
  /// tensor map in boxes of k x 64), in the layout wgmma reads. The
  /// mbarrier `full` is first asked to expect their k x n x 2 bytes
  /// (expect_tx, not an arrival: the caller arrives on it), which the
  /// copies then complete (sm_90a).
  void copyBWithTensorMap(Value mapB, Value stage, Value n0, Value k0,
                          Value full);

  /// Spreads `count` calls of `copyOne(linear)` over the block (in a
  /// warp-specialised block, over its copying warpgroup): whole rounds
  /// first, then a last, partial round under a guard.
  /// With `guarded` false, the last round is not guarded: a thread past
  /// the rest gets a piece number of `count` or more, which `copyOne` must
  /// keep in bounds. What it builds is then in reach after the spread.
  void spread(int64_t count, function_ref<void(Value)> copyOne,
              bool guarded = true);
  /// spread() over the 16-byte pieces of a rows x columns tile, row after
  /// row: `copyOne(row, column)` with the piece's first element.
  void spreadPieces(int64_t rows, int64_t columns,
                    function_ref<void(Value, Value)> copyOne,
                    bool guarded = true);

  /// Whether a rows x columns tile splits into 16-byte pieces evenly over
  /// a warpgroup (and so over the warpgroups of a wgmma block, one for each
  /// 64 rows), as loadPieces needs.
  static bool splitsIntoPieces(int64_t rows, int64_t columns) {
    return columns % kVector == 0 && rows * columns / kVector % kMmaThreads == 0;
  }
  /// For pieces narrower than a copy: this thread's 16-byte pieces of a
  /// rows x columns tile, each built from `loadElement(row, column)`.
  SmallVector<Value> loadPieces(int64_t rows, int64_t columns,
                                function_ref<Value(Value, Value)> loadElement);
  /// Stores the pieces of loadPieces into stage `stage` of `tile`.
  void storePieces(Value tile, Value stage, ValueRange pieces);

  /// Closes the group of the copies this thread issued since the last one.
  void commitCopies();
  /// Waits until at most `pending` of this thread's groups are in flight,
  /// then for the whole block (and, for wgmma, makes the copies visible to
  /// its asynchronous reads).
  void waitForCopies(int64_t pending);

  SmallVector<Value> zeroAccumulators();

  /// acc += stage `stage` of the shared A tile x that of the shared B tile,
  /// over the whole k.
  void multiply(SmallVector<Value> &acc, Value stage);
  /// Starts the product of stage `stage` of the shared A and B tiles into
  /// new accumulators, left running where it can be (wgmma): they must not
  /// be read before finishMultiply. Other registers, shared memory and the
  /// copies may be worked on meanwhile.
  SmallVector<Value> startProduct(Value stage);
  void finishMultiply();

  /// How the chunks of k reach shared memory: `issue(stage, k0)` issues the
  /// asynchronous copies of the chunk that starts at compacted k0; pieces
  /// narrower than a copy go through registers, loaded by `load(k0)` before
  /// the previous chunk is multiplied and stored by `store(stage, values)`
  /// after.
  /// Where issuing a chunk first waits for global loads of its own (the
  /// gathered coordinates of its rows), `prefetch(k0)` makes them and
  /// `issuePrefetched(stage, k0, values)` issues the chunk with what they
  /// returned: accumulateChunks then makes them a chunk earlier, before the
  /// chunk in between is multiplied. `issue` must do the same as both.
  struct ChunkFill {
    function_ref<void(Value, Value)> issue;
    function_ref<SmallVector<Value>(Value)> load = nullptr;
    function_ref<void(Value, ValueRange)> store = nullptr;
    function_ref<SmallVector<Value>(Value)> prefetch = nullptr;
    function_ref<void(Value, Value, ValueRange)> issuePrefetched = nullptr;
  };

  /// Loops over `numChunks` chunks of k, multiplying each as it arrives;
  /// with S stages, chunks c + 1 ... c + S - 1 are on their way while chunk
  /// c is multiplied.
  /// Returns the accumulators.
  SmallVector<Value> accumulateChunks(Value numChunks, const ChunkFill &fill);

  /// accumulateChunks in a warp-specialised block (built with
  /// `otherWarpgroups` = 1 and `barriers` in its workspace; wgmma, chunks
  /// copied whole) over the tiles of `walk`: the last warpgroup copies
  /// chunk after chunk into the stages as they are freed, tile after tile,
  /// while the multiplying warpgroups multiply each chunk as it lands and
  /// free its stage, without a block barrier a chunk, and write each tile
  /// back (`walk.finish`) while the next one's first chunks come in.
  /// Registers move from the copying warpgroup to the multiplying ones
  /// (setmaxnreg): the block launches with what a thread of 3 warpgroups
  /// may have. With `walk.copiesOf`, one thread of the copying warpgroup
  /// copies each chunk with TMA instead of `fill` (its bytes complete the
  /// stage's `full` mbarrier), and a stage is free once every multiplying
  /// warp of the cluster is done with it.
  void accumulateSpecialized(const ChunkFill &fill, StageBarriers &barriers,
                             const TileWalk &walk);

  /// Split-k, in a wgmma block: writes this warp's partial sums `acc` of
  /// part `split` (not the last) of `tile` into `sums.partials`, then counts
  /// the warp done on the tile's arrivals.
  void publishPartialSums(Value acc, const PartialSums &sums, Value tile,
                          Value split);
  /// Split-k, in a wgmma block, in the last part of `tile`: waits until
  /// every other part's warp in this warp's place has published its sums,
  /// and returns `acc` plus them.
  Value addPartialSums(Value acc, const PartialSums &sums, Value tile);

  /// Calls `write(row, column, value)` for every accumulator element of this
  /// thread, with its row and column in the block's output tile.
  void forEachAccumulator(ValueRange acc,
                          function_ref<void(Value, Value, Value)> write);
  /// The same by pairs of neighbours in a row: `write(row, column, first,
  /// second)` for columns `column` (even) and `column + 1`.
  void forEachAccumulatorPair(
      ValueRange acc, function_ref<void(Value, Value, Value, Value)> write);
  /// The same by runs of four neighbours in a row: `write(row, column,
  /// values)` for columns `column` (a multiple of 4) to `column + 3`. The
  /// two lanes that hold a run between them swap halves with a shuffle, so
  /// every lane of the warp must get here.
  void forEachAccumulatorQuad(ValueRange acc,
                              function_ref<void(Value, Value, ValueRange)> write);
  /// The same by runs of eight neighbours in a row of a 16-bit C: `pack`
  /// turns each pair of this thread's (row, column, first, second) into
  /// one 32-bit register (two 16-bit elements of C), and `write(row,
  /// column, packed)` gets four of them, columns `column` (a multiple of 8)
  /// to `column + 7`. The 4 lanes of a group transpose the packed pairs of
  /// two neighbouring 8-column blocks among them (two stages of two
  /// shuffles), so that lanes 0 and 1 write row r and lanes 2 and 3 row r
  /// + 8: a group's writes fill whole 32-byte sectors with 16-byte accesses
  /// (a pair a lane fills half of each, and made stores of f16 slower per
  /// byte than of f32). Every lane of the warp must get here.
  void forEachAccumulatorOctet(
      ValueRange acc, function_ref<Value(Value, Value, Value, Value)> pack,
      function_ref<void(Value, Value, ValueRange)> write);

  /// Columns of C one staged write-back (storeTileWithTensorMap) takes:
  /// rows of 128 bytes of a 16-bit C, as C's tensor map boxes them (the
  /// 128-byte swizzle, like A's and B's; pieces of 32 columns, twice
  /// as many, took 1 us longer on 4096^3).
  static constexpr int64_t kStagedColumns = 64;
  /// The shared buffer of storeTileWithTensorMap for `warpgroups`
  /// multiplying warpgroups: two 64 x kStagedColumns pieces of C (of
  /// `outputType`) each, a whole number of swizzle patterns.
  static MemRefType stagingType(Type outputType, int64_t warpgroups);
  /// Writes this warpgroup's accumulators (64 rows of the tile at (m0, n0),
  /// rounded to C's 16-bit type) back through `stores`: kStagedColumns
  /// columns at a time into one of its two pieces of the staging buffer,
  /// in the 128-byte swizzled layout of C's tensor map, which one thread
  /// then stores with the TMA, asynchronously. The warpgroup writes the
  /// next piece into the other buffer meanwhile, and goes on to the next
  /// tile while the last stores of this one drain: the tensor cores wait
  /// for its writes into shared memory only, not for C's. The walk's
  /// `afterLastTile` waits for the last ones (drainTensorStores).
  void storeTileWithTensorMap(Value acc, const TensorStores &stores, Value m0,
                              Value n0, Type outputType,
                              PairStart startOfPair = nullptr);
  /// Waits until the stores of storeTileWithTensorMap are done: the
  /// staging buffer must outlive the TMA's reads of it, and C's last pieces
  /// land before the kernel is done.
  void drainTensorStores();

  /// Whether storeTileThroughSharedTiles can stage this block's tile: an
  /// mma.sync block's 16-bit C tile of whole 64-column boxes that fits in
  /// B's stages from their first multiple of 1024 bytes on.
  bool canStageTileInSharedTiles() const;
  /// Writes the block's tile (rounded to C's 16-bit type) back through the
  /// TMA, once its last chunk is multiplied and every copy has landed (as
  /// accumulateChunks leaves them): the threads write it into B's stages,
  /// no longer needed, in the 128-byte swizzled layout of C's tensor map
  /// `mapC` (boxes of the tile's m rows x 64 columns), and one thread stores
  /// it box by box, then waits until the TMA has read it (the block's next
  /// tile copies into those stages, or the block ends). The warps then do
  /// not wait for stores of their own, 16 bytes a lane into 8 rows each.
  void storeTileThroughSharedTiles(ValueRange acc, Value mapC, Value m0,
                                   Value n0, Type outputType,
                                   PairStart startOfPair = nullptr);

  /// Calls `write(row, column, values)` for each 16 x 8 piece of this
  /// thread's accumulators: values (row, column), (row, column + 1),
  /// (row + 8, column), (row + 8, column + 1). Pieces of the same rows get
  /// the same `row` value.
  void forEachAccumulatorBlock(
      ValueRange acc, function_ref<void(Value, Value, ArrayRef<Value>)> write);

  /// With wgmma: the first of the two rows of the block's tile that this
  /// thread's accumulators hold (the other is 8 rows below).
  Value warpgroupAccumulatorRow();

  /// Whether the block multiplies with wgmma.
  bool usesWarpgroupMma() const { return warpgroup; }
  /// Whether a thread's 8-column accumulator blocks come in neighbouring
  /// pairs, as forEachAccumulatorOctet needs.
  bool pairsAccumulatorBlocks() const {
    return warpgroup ? warpgroupN() % 16 == 0 : nSubtiles() % 2 == 0;
  }

  gpu::LaunchOp launch;
  /// The shared tiles, this block's tile and thread.
  Value sA, sB, blockId, tid;
  /// The buffers of `workspace`, in shared memory.
  SmallVector<Value> workspace;
  /// Threads of the block, those of them that multiply (the first), and
  /// those of one replica.
  int64_t numThreads, mmaThreads, replicaThreads;

private:
  int64_t mSubtiles() const { return shape.m / 16; }
  int64_t nSubtiles() const { return shape.n / (8 * kMmaWarps); }
  /// Elements of a row of the tile as the kernel sees it (before the
  /// swizzle and the wgmma blocking of B).
  int64_t rowElements(Value tile) const;
  Value fragmentA(Value stage, int64_t ms, int64_t k16);
  /// The B fragments of n8 pieces `ns` and `ns + 1`.
  std::pair<Value, Value> fragmentsB(Value stage, int64_t ns, int64_t k16);
  /// Builds the loop of a block over the tiles it takes in turn from
  /// `tileCounter` (first its own, then the counter's next plus the grid),
  /// handed to its threads through `slots` (memref<2xi32> in shared memory),
  /// and leaves the builder in the tile's body, `blockId` its tile.
  void walkTilesInTurn(int64_t numTiles, Value tileCounter, Value slots);
  /// The shared tiles as views of dynamic shared memory, sB right after sA,
  /// sA at a multiple of `alignment` bytes (the launch asks for alignment -
  /// 16 bytes beyond the tiles, dynamic shared memory being 16-byte aligned).
  void viewDynamicSharedMemory(MemRefType sharedA, MemRefType sharedB,
                               int64_t bytesA, int64_t alignment,
                               ArrayRef<MemRefType> workspaceTypes);
  /// wgmma's descriptor of this warpgroup's 64 rows of stage `stage` of
  /// A, at k16 step `k16`, and of all n of B there.
  Value descriptorA(Value stage, int64_t k16);
  Value descriptorB(Value stage, int64_t k16);
  /// The address (i64) `stageBytes` (an index) plus `offsetBytes` past
  /// `tileAddress` (i64), where a descriptor points.
  Value descriptorAddress(Value tileAddress, Value stageBytes,
                          int64_t offsetBytes);
  /// wgmma's descriptor of an m- or n-major tile `stageBytes` (an index)
  /// past `tileAddress` (i64), at k16 step `k16`: blocks of 64 columns, each
  /// k x 128 bytes, lie k * 128 bytes apart, groups of 8 k rows 1024 bytes
  /// apart, and a k16 step is two groups.
  Value mnMajorDescriptor(Value tileAddress, Value stageBytes, int64_t k16);
  /// wgmma's descriptor of a k-major tile (rows of 64 of k, 128 bytes)
  /// `stageBytes` (an index) past `tileAddress` (i64), at k16 step `k16`.
  Value kMajorDescriptor(Value tileAddress, Value stageBytes, int64_t k16);
  /// The compacted k at which chunk `chunk` starts.
  Value chunkStart(Value chunk);
  /// Where `present`: issues the copies of the chunk at k0 into `stage`
  /// and stores its register-staged pieces (`staged`, or loaded now).
  void fillChunkIf(const ChunkFill &fill, Value present, Value stage,
                   Value k0, ValueRange staged = {});
  /// Fills stages 0 .. count - 1 with the first chunks, a copy group each.
  void fillFirstChunks(const ChunkFill &fill, Value numChunks, int64_t count);
  /// The register-staged pieces of the chunk at k0 where `present` (zeros
  /// elsewhere); none without `fill.load`.
  SmallVector<Value> loadChunkIf(const ChunkFill &fill, Value present,
                                 Value k0);
  /// Issues the wgmma of stage `stage` into `acc` and waits until at most
  /// `pending` groups of them (this one included) are in flight.
  /// With `fresh`, the first instruction ignores `acc` (scale-d 0):
  /// nothing needs to clear it.
  void multiplyWarpgroup(SmallVector<Value> &acc, Value stage,
                         int64_t pending, bool fresh = false);
  /// accumulateChunks with wgmma and stages >= 2: the multiplication of
  /// chunk c runs while chunk c + stages - 1 is copied in.
  SmallVector<Value> accumulateChunksWarpgroup(Value numChunks,
                                               const ChunkFill &fill);

  OpBuilder &b;
  Location loc;
  KernelBuilder k;
  MmaTileShape shape;
  int64_t stages;
  bool aStoredByK;
  bool bStoredByN = false;
  bool warpgroup;
  int64_t columnWarpgroups;
  int64_t clusterBlocks;
  /// The two sides of accumulateSpecialized: the copying warpgroup and the
  /// multiplying ones, each walking `walk`'s tiles; a stage's uses are
  /// counted across the tiles (chunk c of a tile whose first chunk is use u
  /// is use u + c), as `walkTiles` passes each tile's first use.
  void copyTiles(const ChunkFill &fill, StageBarriers &barriers,
                 const TileWalk &walk);
  void multiplyTiles(StageBarriers &barriers, const TileWalk &walk);
  /// The generic pointer to the tensor map at device address `map` (i64),
  /// as the TMA's instructions take it.
  Value tensorMapPointer(Value map);
  /// Stores the box at shared address `source` with the tensor map
  /// `map` (tensorMapPointer) at element (row, column) of its tensor, into
  /// this thread's open bulk group.
  void storeBoxWithTensorMap(Value map, Value source, Value column,
                             Value row);
  /// Whether this thread is the first of its warpgroup (the one that
  /// issues and waits for the warpgroup's stores).
  Value isWarpgroupLeader();
  /// Column `column` of `row` of a shared tile with rows of `elements`
  /// 16-bit elements, swizzled (see sharedIndices).
  Value swizzledColumn(Value row, Value column, int64_t elements);
  void walkTiles(const TileWalk &walk,
                 function_ref<void(Value unit, Value firstUse,
                                   ChunkRange chunks)>
                     body);
  /// The f32 element of `sums.partials` where this thread keeps its 4
  /// accumulators from `first` on of part `split` of `tile` (each warp's
  /// in a run of its own: every access of the warp is 512 bytes in a row).
  SmallVector<Value> partialSumsAt(const PartialSums &sums, Value split,
                                   Value tile, int64_t first);
  /// The address of this warp's count of arrivals on `tile`.
  Value arrivalsAt(const PartialSums &sums, Value tile);
  /// A barrier of the block, or of its cluster.
  void syncBlockOrCluster();
  /// Copies chunk `chunk` of the tile of `copies` into stage `stage` with
  /// TMA (one thread), its bytes counted on the stage's `full` mbarrier.
  void copyChunkWithTensorMaps(const TensorCopies &copies, Value chunk,
                               Value stage, Value full);
  /// One TMA copy of the box of `map` (a device address, i64) at
  /// `coordinates` into `stage` of the tile at shared `address` (stages of
  /// `stageBytes`), `offset` bytes in, multicast to the blocks of the
  /// cluster in `multicastMask` (null: this block alone); the copy
  /// completes its bytes on `full`.
  void copyBoxIntoStage(Value address, int64_t stageBytes, Value stage,
                        Value offset, Value map, ValueRange coordinates,
                        Value full, Value multicastMask);
  /// The TMA copies of B's 64-column blocks [firstBlock, firstBlock +
  /// numBlocks) of rows [k0, k0 + k) from column n0 (`mapB`: boxes of k x
  /// 64, or of 64 x k with B stored n by k) into `stage` of sB, as
  /// copyBoxIntoStage.
  void copyBlocksOfB(Value mapB, Value stage, Value n0, Value k0,
                     Value firstBlock, int64_t numBlocks, Value full,
                     Value multicastMask);
  /// Frees `stage` for the copying warps of every block of the cluster:
  /// lane 0 of each multiplying warp arrives on each block's `empty`.
  void releaseStageInCluster(StageBarriers &barriers, Value stage);
  /// Columns a warpgroup multiplies.
  int64_t warpgroupN() const { return shape.n / columnWarpgroups; }
  /// warp: the warp within its warpgroup.
  /// warpgroupRows, warpgroupColumns: the 64-row block and the part of n
  /// of this thread's warpgroup.
  Value lane, group, inGroup, warp, warpColumn, warpgroupRows,
      warpgroupColumns;
  /// With wgmma: the shared-memory addresses (i64) of sA and sB.
  Value addressA, addressB;
  /// The threads that spread() spreads copies over: the block's, or while
  /// a warp-specialised block's copying warpgroup issues, that warpgroup's
  /// (its own thread index).
  Value copyingTid;
  int64_t copyingThreads;
};

/// The index's entry for compacted coordinate `c` of `segment` (an i32),
/// with the slot clamped so that padding never reads past the index row:
/// what it holds past `count` is whatever the buffer held.
Value loadGatheredPosition(KernelBuilder &k, Value positions, Value segment,
                           Value c, int64_t micro, int64_t capacity);
/// Where compacted coordinate `c` lives along the gathered dimension, from
/// its entry `position` (loadGatheredPosition), position 0 for padding.
/// Returns the coordinate and whether the element is real (its slot is
/// below `count`).
std::pair<Value, Value> gatheredFromPosition(KernelBuilder &k, Value position,
                                             Value count, Value c,
                                             int64_t micro);
/// Where compacted coordinate `c` of `segment` lives along the gathered
/// dimension: both of the above.
std::pair<Value, Value> gatheredCoordinate(KernelBuilder &k, Value positions,
                                           Value segment, Value count, Value c,
                                           int64_t micro, int64_t capacity);

/// Lets only the blocks whose first gathered coordinate `origin` lies
/// within the segment's `count` micro-tiles of extent `micro` go on (the
/// others have nothing to do): moves the insertion point into that guard.
void enterIfLive(KernelBuilder &k, Value origin, Value count, int64_t micro);

/// The number of micro-tiles the detection found in `segment` (`counts`
/// of an STile).
Value loadCount(KernelBuilder &k, Value counts, Value segment);

} // namespace mlir::pit

#endif // PIT_LIB_CONVERSION_PITTOGPU_BLOCKMMA_H
