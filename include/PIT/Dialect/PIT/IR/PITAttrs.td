//===- PITAttrs.td - pit dialect attributes -----------------*- tablegen -*-===//

#ifndef PIT_DIALECT_PIT_IR_PITATTRS_TD
#define PIT_DIALECT_PIT_IR_PITATTRS_TD

include "PIT/Dialect/PIT/IR/PITDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class PIT_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<PIT_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// CombinerAttr
//===----------------------------------------------------------------------===//

def PIT_CombinerKind : I32EnumAttr<"CombinerKind",
    "associative and commutative combiner of a scattered write", [
      I32EnumAttrCase<"Add", 0, "add">,
      I32EnumAttrCase<"Mul", 1, "mul">,
      I32EnumAttrCase<"MaxSI", 2, "maxsi">,
      I32EnumAttrCase<"MinSI", 3, "minsi">,
      I32EnumAttrCase<"MaxUI", 4, "maxui">,
      I32EnumAttrCase<"MinUI", 5, "minui">,
      I32EnumAttrCase<"MaximumF", 6, "maximumf">,
      I32EnumAttrCase<"MinimumF", 7, "minimumf">,
      I32EnumAttrCase<"AndI", 8, "andi">,
      I32EnumAttrCase<"OrI", 9, "ori">,
      I32EnumAttrCase<"XOrI", 10, "xori">
    ]> {
  let cppNamespace = "::mlir::pit";
  let genSpecializedAttr = 0;
}

def PIT_CombinerAttr : EnumAttr<PIT_Dialect, PIT_CombinerKind, "combiner"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "How a scattered tile is combined with the destination";
  let description = [{
    The names follow the `arith` operations they stand for. Every kind is
    associative and commutative, which is what allows tiles that reach the
    same destination element in any order (for example partial sums over a
    compacted reduction axis) to be combined without ordering them.
    `add` and `mul` apply to integers and floats, the `*si`/`*ui`/bitwise
    kinds to integers, and the `*f` kinds to floats.

    ```mlir
    #pit.combiner<add>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// SparseAttr
//===----------------------------------------------------------------------===//

def PIT_SparseAttr : PIT_Attr<"Sparse", "sparse"> {
  let summary = "Marks one operand of an operation as dynamically sparse";
  let description = [{
    Attached to a linalg operation under the name `pit.sparse`, this attribute
    says that operand number `operand` (counting inputs then outputs) is
    dynamically sparse: which of its entries are zero is known only at run
    time. `micro_tiles` lists the candidate micro-tile shapes, one extent per
    dimension of that operand, best guess first; a micro-tile is zero or not
    as a whole.

    ```mlir
    %c = linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>}
           ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>)
           outs(%c : memref<256x256xf32>)
    ```

    The dialect verifies that the operand exists and is a shaped value of the
    same rank as every micro-tile, and that every extent is positive. Whether a
    micro-tile divides the operand's shape and has a PIT rule is decided by
    the passes that use the mark.
  }];
  let parameters = (ins
    "unsigned":$operand,
    ArrayRefParameter<"::mlir::DenseI64ArrayAttr", "candidate micro-tile shapes">:$microTiles
  );
  let assemblyFormat = [{
    `<` `operand` `=` $operand `,` `micro_tiles` `=` `[` custom<MicroTileShapes>($microTiles) `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The rank shared by the candidate micro-tiles.
    unsigned getMicroTileRank() const;
  }];
}

//===----------------------------------------------------------------------===//
// MmaConfigAttr
//===----------------------------------------------------------------------===//

def PIT_MmaConfigAttr : PIT_Attr<"MmaConfig", "mma_config"> {
  let summary = "How a tensor-core matmul kernel is shaped";
  let description = [{
    The strategy `pit-gpu-strategy` chose for a matmul STile or a dense
    matmul, attached to it under the name `pit.mma_config`; the way IREE's
    `lowering_config` records a kernel configuration apart from the code
    that carries it out. `convert-pit-to-gpu` builds the kernel it
    describes:

    * `block`: the rows, columns and chunk of k of a block's tile;
    * `stages`: the shared-memory stages asked for (the kernel takes as many
      as fit in the chip's shared memory);
    * `specialize`: wgmma blocks that copy whole chunks are warp-specialised
      (a copying warpgroup paced by mbarriers);
    * `tensor_copies`: warp-specialised dense blocks on function arguments
      copy with the TMA, in clusters of `cluster_blocks` blocks that share
      B's chunks;
    * `k_splits` (1 where omitted): such blocks split each tile's chunks of
      k into that many parts, taken by different blocks, whose partial sums
      the last part adds (split-k: more blocks than tiles, for a matmul of
      fewer tiles than the chip has multiprocessors).

    ```mlir
    linalg.matmul {pit.mma_config = #pit.mma_config<block = [128, 256, 64],
        stages = 3, specialize = true, tensor_copies = true,
        cluster_blocks = 2, k_splits = 3>} ins(...) outs(...)
    ```
    The dialect verifies the ranges every kernel needs (whole mma steps,
    1 to 4 stages, clusters of 1 or 2, 1 to 8 splits); whether the tile
    allows the block is decided by the conversion, which leaves a tile it
    cannot build to the SIMT lowering.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "block rows, columns and chunk of k">:$block,
    "int64_t":$stages,
    "bool":$specialize,
    "bool":$tensorCopies,
    "int64_t":$clusterBlocks,
    DefaultValuedParameter<"int64_t", "1", "parts of k of a tile">:$kSplits
  );
  let assemblyFormat = [{
    `<` `block` `=` `[` $block `]` `,` `stages` `=` $stages `,`
    `specialize` `=` $specialize `,` `tensor_copies` `=` $tensorCopies `,`
    `cluster_blocks` `=` $clusterBlocks (`,` `k_splits` `=` $kSplits^)? `>`
  }];
  let genVerifyDecl = 1;
}

#endif // PIT_DIALECT_PIT_IR_PITATTRS_TD
