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

#endif // PIT_DIALECT_PIT_IR_PITATTRS_TD
