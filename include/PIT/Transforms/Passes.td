//===- Passes.td - pit-level passes -------------------------*- tablegen -*-===//

#ifndef PIT_TRANSFORMS_PASSES_TD
#define PIT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PITMarkSparse : Pass<"pit-mark-sparse"> {
  let summary = "Marks an operand of the named operations as dynamically sparse";
  let description = [{
    Attaches `pit.sparse = #pit.sparse<operand = N, micro_tiles = [...]>` to
    every operation named `op-name`, so that a program from a front end that
    knows nothing of PIT can be given to the PIT passes without editing it.

    Matches: every operation whose name is `op-name`.
    Produces: the `pit.sparse` mark with `operand` and `micro-tiles`.
    Leaves alone, with a remark saying why: operations that are already
    marked (the existing mark wins), and operations whose operand `operand`
    does not exist or is not ranked with the micro-tiles' rank.
    Fails if the options do not parse.

    ```
    pit-opt --pit-mark-sparse="op-name=linalg.matmul operand=0 micro-tiles=32x1,1x64"
    ```
  }];
  let options = [
    Option<"opName", "op-name", "std::string", /*default=*/"\"linalg.matmul\"",
           "Name of the operations to mark">,
    Option<"operand", "operand", "unsigned", /*default=*/"0",
           "Number of the sparse operand (inputs, then outputs)">,
    ListOption<"microTiles", "micro-tiles", "std::string",
               "Candidate micro-tile shapes, such as 32x1">
  ];
  let dependentDialects = ["::mlir::pit::PITDialect"];
}

def PITStripSparseMarks : Pass<"pit-strip-sparse-marks"> {
  let summary = "Removes every pit.sparse mark";
  let description = [{
    Drops the `pit.sparse` attribute from every operation, which turns a
    marked program back into its dense form. Tests use it to compute, in the
    same run, the dense reference that a sparsified program must match.

    Matches: every operation that carries `pit.sparse`.
    Produces: the same operation without the mark.
    Leaves alone: everything else.
  }];
}

#endif // PIT_TRANSFORMS_PASSES_TD
