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

def PITSparsify : Pass<"pit-sparsify"> {
  let summary = "Rewrites linalg ops with a dynamically sparse operand into PIT form";
  let description = [{
    For every linalg operation with a `pit.sparse` mark, runs the PIT rule
    analysis and rewrites the operation into:

    * `pit.detect`, which builds the unordered index of the non-zero
      micro-tiles of the sparse operand each time the code runs;
    * a `pit.stile` over the operation's iteration domain, compacted along
      the chosen PIT loop, whose body gathers each operand's tile with
      `pit.sread`, computes it with a `linalg.generic` that has the original
      body, and writes it back with `pit.swrite` (scattered through the index
      when the PIT loop is parallel, combined with the reduction's combiner
      when the operation reduces).

    Without a `latency-table`, the micro-tile is candidate `candidate` of
    the mark (the first by default), and the PIT loop the analysis ranks
    first unless `pit-loop` names one.

    With `latency-table` (an STile database: JSON latency tables measured on
    a GPU, see `bench/run_benchmark.py --tables`), the choice is made at run
    time (the PIT paper's Algorithm 1). Every variant the database has for
    the operation whose micro-tile is a candidate of the mark, and whose PIT
    loop is legal for it, is built: `pit.select`, which estimates each
    variant's latency from the coverage of its micro-tiles, and an
    `scf.index_switch` over the variants' STiles, with the original
    operation (unmarked) as the dense fallback. With `sample-every` N > 0
    (the default), the coverage is estimated from a sample: one `pit.count`
    per distinct index over every N-th segment (fewer, down to 1, where the
    sample would have fewer than 8 segments), and each index's `pit.detect`
    runs in an `scf.if`, only when a variant that reads it is chosen: the
    dense fallback then costs no detection. With 0, one `pit.detect` per
    distinct index runs before the choice, which counts every segment. A
    fill of the output right before the operation moves into every case, so
    that each variant can fold it into its own writes.
    A variant may name the dense tile it was measured with (`dense_tile`,
    one extent per loop): several tiles of one micro-tile share its
    detection, and their STiles get `keep_tile`. A variant whose output is
    scattered along its PIT loop may name a `panel` of that loop for a
    block to own (pit.stile `panel`). A variant that is never
    more than 5% and 3 us cheaper, at any coverage point, than the dense
    fallback and the other variants of its index is left out with a remark
    (its kernels launch on every call, and take a few microseconds of the
    calls where another variant is chosen; measured differences of a few
    percent are noise), the least useful first (of two as useless, the
    one dearer over the table: near-twins each make the other so); so is
    one whose tile does
    not fit the operation. An operation the database has no entry for is
    sparsified as without it, with a remark. `variant` N >= 0 replaces the
    choice by variant N (the number of variants means dense; variants that
    fit count in the table's order, none left out as not worth it): that
    variant's detection and STile alone, with no switch. That is how the
    latency tables and the oracle of the benchmark are measured.

    Matches: linalg operations on buffers with a `pit.sparse` mark.
    Leaves alone, with a remark: operations on tensors (bufferize first),
    and operations for which the analysis finds no rule (the remark gives
    its reason).
    Fails, with an error naming the operation: a mark whose micro-tile does
    not divide the sparse operand, or has no legal PIT loop, and a
    `pit-loop` or `candidate` that does not exist for it. Fails, with an
    error, when the latency table cannot be read.
  }];
  let options = [
    Option<"candidate", "candidate", "unsigned", /*default=*/"0",
           "Which micro-tile of the mark to use (without a latency table)">,
    Option<"latencyTable", "latency-table", "std::string", /*default=*/"\"\"",
           "An STile database (JSON): choose among the variants at run time">,
    Option<"variant", "variant", "int64_t", /*default=*/"-1",
           "With a latency table: always run this variant (-1: choose at "
           "run time; the number of variants: dense)">,
    Option<"pitLoop", "pit-loop", "int64_t", /*default=*/"-1",
           "The loop to gather along (-1: the analysis' first choice)">,
    Option<"sampleEvery", "sample-every", "int64_t", /*default=*/"16",
           "With a latency table: choose from the counts of every N-th "
           "segment, and detect only for the chosen variant (0: detect every "
           "index, then choose)">
  ];
  let dependentDialects = [
    "::mlir::pit::PITDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PITFreeTemporaries : Pass<"pit-free-temporaries", "ModuleOp"> {
  let summary = "Frees the buffers a bufferized function allocates and does "
                "not return";
  let description = [{
    One-shot bufferization allocates a buffer for every tensor that no
    argument holds (an intermediate result), and frees none of them: a
    compiled function would leak them at every call. This pass runs
    upstream's ownership-based buffer deallocation on each such function,
    so that every buffer it allocates is freed once its last use is done;
    `pit-bufferize` then simplifies and lowers the deallocations to
    `memref.dealloc`.

    ```
    %t = memref.alloc() : memref<256x256xf32>
    linalg.matmul ins(%a, %b : ...) outs(%t : memref<256x256xf32>)
    linalg.add ins(%t, %c : ...) outs(%c : memref<256x256xf32>)
    // added: memref.dealloc %t (after lowering)
    ```

    Matches: function bodies that allocate memrefs (`memref.alloc`).
    Leaves alone, with a remark: functions that free memory themselves
    (`memref.dealloc`): they manage their buffers, and the deallocation
    analysis does not take a program's own frees.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PITWriteResultsIntoArguments
    : Pass<"pit-write-results-into-arguments", "ModuleOp"> {
  let summary = "Drops function results that are one of the function's "
                "memref arguments";
  let description = [{
    After bufferization, a function on tensors that returns what its linalg
    ops updated in place returns its own argument buffers:

    ```
    func.func @f(%a: memref<4x4xf32>, %c: memref<4x4xf32>) -> memref<4x4xf32> {
      linalg.matmul ins(...) outs(%c : memref<4x4xf32>)
      return %c : memref<4x4xf32>
    }
    ```

    Such a result is already written into the argument; this pass drops it,
    so that the function has the signature that PIT's C entry points and
    callers use (every buffer an argument, no results), and updates the
    calls in the module. Unlike upstream's `drop-equivalent-buffer-results`,
    it also changes public functions: their signature is PIT's calling
    convention.

    Matches: results of `func.func` bodies that are a block argument of the
    function (through `memref.cast`s).
    Leaves alone: other results (a new buffer stays a result, and the C
    entry point generator refuses it with a message), external functions,
    functions with several returns.
  }];
}

def PITDependentLaunch : Pass<"pit-dependent-launch", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lets each kernel start while the kernel before it in the "
                "stream finishes (programmatic dependent launch, sm_90+)";
  let description = [{
    A PIT call is a chain of kernels on one stream (detection, the choice,
    the variants' kernels, each guarded by the choice). Between two kernels
    the GPU idles for about a microsecond while it launches the second, and
    a variant that the choice switches off still takes its launch and its
    blocks' exits. On sm_90 and newer a kernel launched with programmatic
    stream serialization may be scheduled while the kernel before it is
    finishing, once every block of that kernel has said so.

    This pass makes every kernel of the `gpu.module` safe and willing to be
    launched that way:

    * it first lets its own dependents launch
      (`griddepcontrol.launch_dependents`): they are scheduled once all of
      its blocks are running, and only take resources its blocks leave
      free;
    * then it waits for its prerequisite grids to complete and their writes
      to be visible (`griddepcontrol.wait`), before anything else; or, in a
      kernel that marks where it starts to depend on them (an op with the
      discardable `pit.dependent_wait` attribute: a guarded kernel that
      reads the run-time choice first and ends without waiting where it is
      not chosen), there, in place of each mark. A kernel that ends without
      waiting completes only after the kernels before it all the same
      (measured on an H100: `bench/probes/dependent_completion.cu`), so its
      dependents' wait covers them.

    Both are inline PTX that clobbers memory (`llvm.inline_asm`): the NVVM
    intrinsics are declared not to touch memory, which would let LLVM move
    the kernel's loads above the wait.

    It also defines the global `pit_dependent_launch` in the module, by
    which PIT's CUDA runtime (libpit_cuda_runtime) knows that the module's
    kernels wait: it launches only those with the attribute, and any other
    kernel as usual.

    Matches: `gpu.func` kernels of a `gpu.module`.
    Produces: the two instructions at the start of each kernel (the wait
    at its marks instead, where it has any), and the `llvm.mlir.global`
    marker.
    Leaves alone: functions that are not kernels, kernels that already
    start so (the pass runs once), and modules without kernels (no
    marker). The `griddepcontrol` instructions need sm_90: the `pit-to-ptx`
    pipeline runs this pass only for such chips.

    ```
    pit-opt --pass-pipeline="builtin.module(gpu.module(pit-dependent-launch))"
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PITDecomposeAggregatedOps : Pass<"pit-decompose-aggregated-ops"> {
  let summary = "Decomposes aggregated linalg ops (linalg.softmax) into "
                "linalg generics";
  let description = [{
    Some linalg ops stand for several loop nests (`linalg.softmax`: a
    maximum, an exponential, a sum and a division along one dimension) and
    no loop lowering takes them. This pass replaces each op on tensors that
    implements `AggregatedOpInterface` by the ops of its decomposition, which
    the PIT pipelines then bufferize and lower like any other.

    Matches: ops with pure tensor semantics that implement
    `AggregatedOpInterface`, and `linalg.softmax` on buffers.
    Produces: the ops their `decomposeOperation` builds; for a softmax on
    buffers, the same steps as generics on buffers (the maximum and the sum
    along its dimension in temporaries of the reduced shape, which the
    pipelines' pit-free-temporaries frees).
    Leaves alone, with a remark: other such ops on buffers (upstream
    decomposes them only on tensors) and ops whose decomposition fails. The
    pipelines then refuse them by name (`pit-check-lowered`).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PITCheckElementTypes : Pass<"pit-check-element-types", "ModuleOp"> {
  let summary = "Fails, naming them, on element types that the LLVM dialect "
                "cannot hold";
  let description = [{
    The first pass of `pit-cpu-pipeline` and `pit-to-ptx`. Upstream's
    conversions to the LLVM dialect assume that every element type they
    meet has an LLVM type, and some of them crash on one that has none
    (`tf32` in a function with `llvm.emit_c_interface`, or in a GPU tile
    buffer). This pass finds such types before any conversion does.

    Matches: the types of every value and function signature in the
    module, and the element types of the shaped types among them.
    Fails on an element type that LLVM's type converter does not convert,
    with an error at the first op that uses it.
    Leaves alone: everything else (it changes nothing).
  }];
}

def PITTransposeMatmulB : Pass<"pit-transpose-matmul-b"> {
  let summary = "Gives a matmul whose B is stored n by k (y = x W^T) a "
                "k-by-n copy of B";
  let description = [{
    `y = x W^T` with W in `nn.Linear`'s layout (N x K) is a matmul whose B
    operand has the map `(m, n, k) -> (n, k)`. The tensor-core kernels of
    pit-sparsify's tiles read B k by n (`(m, n, k) -> (k, n)`), and
    anything else runs as SIMT kernels, three orders of magnitude slower
    than cuBLAS on an H200. This pass copies such a B into a new K x N
    buffer with `linalg.transpose` right before the op, points the op at
    the copy with the usual map, and frees the copy right after: one read
    and one write of W a call, which the sparse kernels then make up for.

    Matches: linalg matmuls (a `linalg.matmul` with indexing maps, or a
    generic) on buffers, three loops, maps `(m, k)`, `(n, k)`, `(m, n)`,
    and a contraction body, that carry a `pit.sparse` mark or have a
    dynamic extent. An unmarked one with static extents stays as it is:
    the dense matmul kernel of convert-pit-to-gpu copies B's chunks as B
    is stored (by TMA, where wgmma reads them so), or makes the copy
    itself. Leaves alone, with a remark, such an op whose `pit.sparse`
    mark is on B (a copy would move the pattern away from the buffer the
    program fills), and every other op.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def PITVerifyDynamicExtents : Pass<"pit-verify-dynamic-extents"> {
  let summary = "Checks at run time that the extents a linalg op ties "
                "together agree, where one is dynamic";
  let description = [{
    A function of dynamic extents (`memref<?x4096xf16>`) takes any extent
    at each call, but its linalg ops assume that the extents they tie
    together (A's rows and C's rows of a matmul) agree: with extents that
    do not, the loops would read and write out of bounds. Before each linalg
    op with a dynamic extent in its operands, this pass inserts upstream's
    run-time verification of that op (`RuntimeVerifiableOpInterface`): a
    few `memref.dim`s and `cf.assert`s on the host, once per call, which
    abort the call with a message naming the op if they fail.

    Matches: linalg ops with an operand of dynamic shape.
    Leaves alone: statically shaped ops (their extents were checked when
    the IR was verified), so that a static program is unchanged.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::index::IndexDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PITCheckLowered : Pass<"pit-check-lowered", "ModuleOp"> {
  let summary = "Fails, naming them, on ops left above the LLVM dialect";
  let description = [{
    The last pass of `pit-cpu-pipeline` and `pit-to-ptx`. A pipeline whose
    passes each leave alone what they do not know would otherwise exit 0
    with such an op still in its output, and the program would be
    translated without it, or not at all, with no word of why.

    Matches: every op of the module.
    Accepts: `builtin.module`, LLVM dialect ops, and `gpu.binary` and
    `gpu.launch_func` (the compiled kernels and their launches, which the
    GPU dialect's LLVM IR translation takes).
    Fails on anything else, with an error at the first op of each name
    that says it was left unlowered, and how many such ops there are
    (`builtin.unrealized_conversion_cast` included: a conversion that did
    not complete).

    ```
    pit-opt --pass-pipeline="builtin.module(pit-cpu-pipeline)" softmax-on-memrefs.mlir
    error: 'linalg.softmax' was left unlowered (1 op): no pass of the pipeline lowers it to the LLVM dialect
    ```
  }];
}

#endif // PIT_TRANSFORMS_PASSES_TD
