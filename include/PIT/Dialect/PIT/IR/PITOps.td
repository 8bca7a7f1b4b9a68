//===- PITOps.td - pit dialect operations -------------------*- tablegen -*-===//

#ifndef PIT_DIALECT_PIT_IR_PITOPS_TD
#define PIT_DIALECT_PIT_IR_PITOPS_TD

include "PIT/Dialect/PIT/IR/PITDialect.td"
include "PIT/Dialect/PIT/IR/PITAttrs.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The micro-tile index is 32-bit: GPU atomics build it, and no dimension of a
// tensor that fits in device memory has 2^31 micro-tiles.
def PIT_CountsMemRef : MemRefRankOf<[I32], [1]>;
def PIT_PositionsMemRef : MemRefRankOf<[I32], [2]>;
def PIT_DataMemRef : Non0RankedMemRefOf<[AnySignlessInteger, AnyFloat]>;

//===----------------------------------------------------------------------===//
// DetectOp
//===----------------------------------------------------------------------===//

def PIT_DetectOp : PIT_Op<"detect"> {
  let summary = "Builds the unordered index of the non-zero micro-tiles (online sparsity detection)";
  let description = [{
    Splits `source` into a grid of micro-tiles of shape `micro_tile` and finds
    the ones holding at least one non-zero element. The grid dimension `axis`
    is the one along which the micro-tiles will be gathered; every other grid
    dimension identifies a *segment*, numbered in row-major order.

    For each segment `s`, `counts[s]` receives the number of non-zero
    micro-tiles and `positions[s, 0 .. counts[s])` their grid coordinates
    along `axis`, **in no particular order**. Because the consumer is
    permutation invariant along that axis, the index can be built in one pass
    with atomics and no synchronisation (an out-of-order BCSR). Entries past
    `counts[s]` are unspecified. The index points into `source`: nothing is
    copied.

    Example: the 32x1 micro-tiles of a 4096x4096 matrix, gathered along
    columns. There are 128 segments (blocks of 32 rows) of 4096 candidates.

    ```mlir
    pit.detect %a micro_tile [32, 1] axis 1 into %counts, %positions
        : memref<4096x4096xf16>, memref<128xi32>, memref<128x4096xi32>
    ```
  }];
  let arguments = (ins
    Arg<PIT_DataMemRef, "scanned operand", [MemRead]>:$source,
    Arg<PIT_CountsMemRef, "non-zero micro-tiles per segment", [MemWrite]>:$counts,
    Arg<PIT_PositionsMemRef, "unordered positions along the axis", [MemWrite]>:$positions,
    DenseI64ArrayAttr:$micro_tile,
    ConfinedAttr<I64Attr, [IntNonNegative]>:$axis
  );
  let assemblyFormat = [{
    $source `micro_tile` $micro_tile `axis` $axis `into` $counts `,` $positions
    attr-dict `:` type($source) `,` type($counts) `,` type($positions)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// CountOp
//===----------------------------------------------------------------------===//

def PIT_CountOp : PIT_Op<"count"> {
  let summary = "Counts the non-zero micro-tiles of a sample of the segments";
  let description = [{
    Splits `source` into micro-tiles and segments as `pit.detect` does, and
    counts the micro-tiles holding a non-zero in every `every`-th segment:
    `counts[i]` receives the count of segment `i * every`. No positions are
    recorded.

    It reads `1 / every` of the source, and estimates the coverage that
    `pit.detect` would find: `pit.select` can choose a variant from it
    before any index is built, so that the dense fallback, when chosen,
    costs no detection at all (`pit-sparsify`'s `sample-every`). The
    estimate is exact where `every` is 1, and close for patterns whose
    density does not follow the segments' order with period `every`.

    ```mlir
    pit.count %a micro_tile [32, 1] axis 1 every 16 into %sample
        : memref<4096x4096xf16>, memref<8xi32>
    ```
  }];
  let arguments = (ins
    Arg<PIT_DataMemRef, "scanned operand", [MemRead]>:$source,
    Arg<PIT_CountsMemRef, "non-zero micro-tiles per sampled segment",
        [MemWrite]>:$counts,
    DenseI64ArrayAttr:$micro_tile,
    ConfinedAttr<I64Attr, [IntNonNegative]>:$axis,
    ConfinedAttr<I64Attr, [IntPositive]>:$every
  );
  let assemblyFormat = [{
    $source `micro_tile` $micro_tile `axis` $axis `every` $every `into` $counts
    attr-dict `:` type($source) `,` type($counts)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

def PIT_SelectOp : PIT_Op<"select"> {
  let summary = "Picks the STile variant of least estimated latency, at run time";
  let description = [{
    Run-time selection among the STile variants of one operation (the PIT
    paper's Algorithm 1). Variant `i` reads the index whose per-segment
    counts are `counts[i]`; its *coverage* is the fraction of its candidate
    micro-tiles that the detection found non-zero:
    `sum(counts[i]) / (size(counts[i]) * capacities[i])`.

    Each variant has a latency table: `latencies[i][j]` is its measured
    latency, in microseconds, at coverage `coverage[j]` (increasing, from 0
    to 1). The estimate at the detected coverage interpolates the table
    linearly (and holds its end values outside it). The result is the
    variant with the lowest estimate, or the number of variants (the dense
    fallback) when dense's is lower still. Ties go to the lower number.

    Dense's estimate is `dense`, or, with `dense_latencies`, the lowest of
    its tables there: `dense_latencies[i][j]` is the dense fallback's
    latency on patterns of variant `i`'s micro-tile at coverage
    `coverage[j]`, and its estimate for variant `i` interpolates it at
    variant `i`'s coverage. Dense work that depends on the pattern (an
    SDDMM's reads and writes of C where the mask is not zero) then counts:
    a pattern covers another variant's micro-tiles at least as densely as
    its own, so the estimate of the variant whose micro-tiles fit the
    pattern best is the lowest.

    Several variants may read the same counts (dense tile shapes of one
    micro-tile); the latency tables are the compiler's STile database,
    measured on the GPU (see `pit-sparsify`'s `latency-table`).

    ```mlir
    %variant = pit.select %counts32x1, %counts32x64 capacities [4096, 64]
        coverage [0.0, 0.1, 1.0]
        latencies [[20.0, 60.0, 800.0], [20.0, 40.0, 750.0]] dense 180.0
        : memref<128xi32>, memref<128xi32>
    ```
  }];
  let arguments = (ins
    Arg<Variadic<PIT_CountsMemRef>, "each variant's counts", [MemRead]>:$counts,
    DenseI64ArrayAttr:$capacities,
    DenseF64ArrayAttr:$coverage,
    TypedArrayAttrBase<DenseF64ArrayAttr, "latency tables">:$latencies,
    F64Attr:$dense,
    OptionalAttr<TypedArrayAttrBase<DenseF64ArrayAttr,
                                    "dense latency tables">>:$dense_latencies
  );
  let results = (outs Index:$variant);
  let assemblyFormat = [{
    $counts `capacities` $capacities `coverage` $coverage
    `latencies` $latencies `dense` $dense
    (`dense_latencies` $dense_latencies^)? attr-dict `:` type($counts)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of sparse variants; the result equals it for dense.
    unsigned getNumVariants() { return getCounts().size(); }
  }];
}

//===----------------------------------------------------------------------===//
// STileOp
//===----------------------------------------------------------------------===//

def PIT_STileOp : PIT_Op<"stile", [
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::pit::YieldOp">]> {
  let summary = "Runs its body on every dense tile of a PIT-compacted iteration domain";
  let description = [{
    An STile bundles a dense computation tile with the micro-tile shape of the
    sparse operand it is gathered from and the permutation invariant (PIT)
    axis along which it is gathered.

    The iteration domain has one loop per entry of `domain` (its static
    extents). `sparse_map` maps these loops to the dimensions of the sparse
    operand; it must be a projected permutation, and it must use `pit_axis`.
    The sparse operand is split into micro-tiles of shape `micro_tile`.
    Along every operand dimension other than the one `pit_axis` maps to, the
    micro-tiles define *segments* (numbered in row-major order, as
    `pit.detect` numbers them), and the tile extent equals the micro-tile
    extent. Along `pit_axis` the domain is *compacted*: segment `s` holds
    `counts[s]` gathered micro-tiles, so its compacted extent is
    `counts[s] * micro_tile[a]`, split into tiles of `tile[pit_axis]`; the
    last tile may be partial, and `pit.sread` pads it with zeros.

    A lowering may run several tiles in one block of its own shape (a GPU
    block that covers more columns, say). With `keep_tile` it runs exactly
    `tile`: pit-sparsify sets it on the STiles of the variants of the STile
    database that name their tile, which was measured as such.

    With `panel` (for a tile whose output is scattered along `pit_axis`,
    which segments add into: rows of A gathered in `C += A x B`), a
    lowering may give each block `panel` consecutive coordinates of the
    output along that axis to own: the block walks every segment, adds the
    partial tiles that land in its panel up on chip, and writes the panel
    once, where other lowerings add each tile into the output with atomics.
    pit-sparsify sets it from the STile database. The CPU lowering ignores
    it.

    With `group_rows` as well, the panels need not hold consecutive
    coordinates: the lowering may first order the micro-tiles along
    `pit_axis` by the segments they hold (those of one segment together,
    by segment, then those of several, then empty ones), so that at high
    sparsity a block's partial tiles are fuller and fewer. The output is the
    same: a panel is written wherever its coordinates are (permuting them is
    what PIT allows). pit-sparsify sets it from the STile database.

    The body runs once per tile, in no particular order and possibly in
    parallel. Its block arguments are the tile's origin in each loop of the
    domain (the compacted origin along `pit_axis`), then the segment number.
    Tiles that reach the same destination elements (for example partial
    results along a compacted reduction axis) must combine them with a
    `pit.swrite` combiner.

    Example: `C += A x B` with A sparse in 32x1 micro-tiles, gathered along k.

    ```mlir
    pit.stile (%m, %n, %k) segment(%s) counts(%counts : memref<128xi32>)
        domain [4096, 4096, 4096] tile [32, 64, 32] micro_tile [32, 1]
        pit_axis 2 sparse_map (d0, d1, d2) -> (d0, d2) {
      %count = ... // counts[%s], as index
      pit.sread %a[%m, %k] into %ta gather %positions[%s] count %count axis 1 micro 1
          : memref<4096x4096xf16> to memref<32x32xf16>, memref<128x4096xi32>
      pit.sread %b[%k, %n] into %tb gather %positions[%s] count %count axis 0 micro 1
          : memref<4096x4096xf16> to memref<32x64xf16>, memref<128x4096xi32>
      linalg.matmul ins(%ta, %tb : ...) outs(%tc : ...)
      pit.swrite %tc into %c[%m, %n] combine <add>
          : memref<32x64xf32> to memref<4096x4096xf32>
    }
    ```
  }];
  let arguments = (ins
    Arg<PIT_CountsMemRef, "gathered micro-tiles per segment", [MemRead]>:$counts,
    DenseI64ArrayAttr:$domain,
    DenseI64ArrayAttr:$tile,
    DenseI64ArrayAttr:$micro_tile,
    ConfinedAttr<I64Attr, [IntNonNegative]>:$pit_axis,
    AffineMapAttr:$sparse_map,
    UnitAttr:$keep_tile,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$panel,
    UnitAttr:$group_rows
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$counts,
                   "::llvm::ArrayRef<int64_t>":$domain,
                   "::llvm::ArrayRef<int64_t>":$tile,
                   "::llvm::ArrayRef<int64_t>":$microTile,
                   "int64_t":$pitAxis,
                   "::mlir::AffineMap":$sparseMap,
                   CArg<"bool", "false">:$keepTile,
                   CArg<"int64_t", "0">:$panel,
                   CArg<"bool", "false">:$groupRows)>
  ];
  let extraClassDeclaration = [{
    /// Number of loops of the iteration domain.
    unsigned getNumLoops() { return getDomain().size(); }
    /// The tile's origin along loop `loop` (a block argument of the body).
    ::mlir::BlockArgument getTileOrigin(unsigned loop) {
      return getBody().getArgument(loop);
    }
    /// The segment this tile belongs to (the last block argument).
    ::mlir::BlockArgument getSegment() {
      return getBody().getArgument(getNumLoops());
    }
    /// The dimension of the sparse operand that the PIT axis indexes.
    unsigned getSparseAxis();
    /// Number of segments: the product of the micro-tile grid extents over
    /// the sparse operand's dimensions other than getSparseAxis().
    int64_t getNumSegments();
  }];
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

def PIT_YieldOp : PIT_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"::mlir::pit::STileOp">]> {
  let summary = "Ends the body of a pit.stile";
  let description = [{
    The body of `pit.stile` communicates through `pit.swrite`, so the
    terminator carries no values. It is implicit in the custom form.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// SReadOp
//===----------------------------------------------------------------------===//

def PIT_SReadOp : PIT_Op<"sread", [AttrSizedOperandSegments]> {
  let summary = "Gathers the micro-tiles selected by an index into a dense tile";
  let description = [{
    Fills `dest`, a dense tile, from `source` starting at `offsets`.

    Without a `gather` clause this is a plain dense load of the box
    `source[offsets .. offsets + shape(dest))`.

    With `gather %positions[%segment] count %count axis A micro E`, dimension
    `A` of the tile is read in compacted coordinates: its offset `o` and
    tile coordinate `i` give the compacted coordinate `c = o + i`, which is
    micro-tile `j = c floordiv E` of the segment, element `c mod E` inside it.
    If `j < count`, the element comes from source coordinate
    `positions[segment, j] * E + c mod E`; otherwise it is zero, so a partial
    last tile is padded with the neutral element of a sum. Every other
    dimension is read densely. E must divide the tile's extent along A, so a
    micro-tile is never split between two tiles.

    ```mlir
    pit.sread %a[%m, %k] into %tile gather %positions[%s] count %count axis 1 micro 1
        : memref<4096x4096xf16> to memref<32x32xf16>, memref<128x4096xi32>
    ```
  }];
  let arguments = (ins
    Arg<PIT_DataMemRef, "gathered operand", [MemRead]>:$source,
    Variadic<Index>:$offsets,
    Arg<PIT_DataMemRef, "dense tile", [MemWrite]>:$dest,
    Arg<Optional<PIT_PositionsMemRef>, "micro-tile positions", [MemRead]>:$positions,
    Optional<Index>:$segment,
    Optional<Index>:$count,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$axis,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$micro
  );
  let assemblyFormat = [{
    $source `[` $offsets `]` `into` $dest
    (`gather` $positions^ `[` $segment `]` `count` $count `axis` $axis `micro` $micro)?
    attr-dict `:` type($source) `to` type($dest) (`,` type($positions)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// SWriteOp
//===----------------------------------------------------------------------===//

def PIT_SWriteOp : PIT_Op<"swrite", [AttrSizedOperandSegments]> {
  let summary = "Scatters a dense tile back to its original positions";
  let description = [{
    The inverse of `pit.sread`: writes the dense tile `source` into `dest`
    starting at `offsets`. Without a `scatter` clause it writes the box
    `dest[offsets .. offsets + shape(source))`. With
    `scatter %positions[%segment] count %count axis A micro E`, dimension `A`
    is in compacted coordinates and is mapped back through the index exactly
    as `pit.sread` maps it; the tile elements whose micro-tile lies past
    `count` are padding and are not written.

    With `combine <kind>`, the element is combined with the value already in
    `dest` (`dest = kind(dest, tile)`) instead of overwriting it. Tiles of a
    `pit.stile` may run concurrently, so a combined write is atomic per
    element.

    ```mlir
    pit.swrite %tile into %c[%m, %n] scatter %positions[%s] count %count axis 0 micro 1
        combine <add> : memref<32x64xf32> to memref<4096x4096xf32>, memref<64x4096xi32>
    ```
  }];
  let arguments = (ins
    Arg<PIT_DataMemRef, "dense tile", [MemRead]>:$source,
    Arg<PIT_DataMemRef, "scattered operand", [MemRead, MemWrite]>:$dest,
    Variadic<Index>:$offsets,
    Arg<Optional<PIT_PositionsMemRef>, "micro-tile positions", [MemRead]>:$positions,
    Optional<Index>:$segment,
    Optional<Index>:$count,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$axis,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$micro,
    OptionalAttr<PIT_CombinerAttr>:$combiner
  );
  let assemblyFormat = [{
    $source `into` $dest `[` $offsets `]`
    (`scatter` $positions^ `[` $segment `]` `count` $count `axis` $axis `micro` $micro)?
    (`combine` $combiner^)?
    attr-dict `:` type($source) `to` type($dest) (`,` type($positions)^)?
  }];
  let hasVerifier = 1;
}

#endif // PIT_DIALECT_PIT_IR_PITOPS_TD
