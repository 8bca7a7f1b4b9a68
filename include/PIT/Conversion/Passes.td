//===- Passes.td - Conversions out of the pit dialect -------*- tablegen -*-===//

#ifndef PIT_CONVERSION_PASSES_TD
#define PIT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPITToSCF : Pass<"convert-pit-to-scf"> {
  let summary = "Lowers the pit ops to scf loops over memrefs, for the CPU";
  let description = [{
    Makes PIT programs executable on the CPU (under mlir-runner), which is
    how the test suite proves the transformation exact.

    * `pit.detect` becomes a scan over the micro-tile grid that appends the
      non-zero micro-tiles to their segment. It walks each segment's
      candidates in *descending* order, so that everything downstream is
      exercised on an index that is not sorted, as the GPU builds it.
    * `pit.stile` becomes a loop over segments and, inside, a loop nest over
      the tiles of the compacted domain; each tile's body runs in a
      `memref.alloca_scope`, so tile buffers do not pile up on the stack.
    * `pit.sread` and `pit.swrite` become element loops that go through the
      index along the gathered dimension, pad with zero on read, skip the
      padding on write, and apply the combiner.
    * `pit.select` becomes the cost model on the counts: each variant's
      coverage, its latency interpolated in its table, the least of them
      and the dense latency.

    Matches: every pit op. Leaves alone: everything else, notably the
    `linalg` ops of the tile bodies (`convert-linalg-to-loops` lowers them).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PITGPUStrategy : Pass<"pit-gpu-strategy", "ModuleOp"> {
  let summary = "Chooses the tensor-core kernel of each matmul STile and "
                "dense matmul";
  let description = [{
    The strategy of the GPU lowering, apart from the code that carries it
    out (the way IREE's KernelConfig writes `lowering_config`): for each
    matmul STile (gathered along k or m) and each dense f16/bf16 matmul that
    the tensor-core kernels take, records the block, its stages and how it
    is specialised as a `#pit.mma_config` attribute under the name
    `pit.mma_config`, which `convert-pit-to-gpu` then builds.

    * A matmul STile's block has the STile's rows; it covers
      `mma-block-columns` columns where they are whole STile tiles that
      divide n (each gathered chunk of A is then reused over more of B), and
      gathered along k it multiplies `mma-chunk` of compacted k at a time
      (0: the STile's k tile); `mma-stages` stages. An STile that keeps its
      tile (`keep_tile`, a measured variant) keeps its block.
    * A dense matmul's block is 128 x 128 with chunks of 64 and 3 stages.
      Where the chip has wgmma (`chip=sm_90a`) it is the one of 128 x 256,
      128 x 128, 64 x 256 and 64 x 128 that divides m and n and takes the
      least estimated time: waves of one tile a multiprocessor, each as long
      as the block's area over its measured throughput (a matmul of few
      tiles gets smaller blocks, which keep more multiprocessors busy).
      `mma-k-splits` splits the tiles of warp-specialised TMA blocks into
      that many parts of k (`k_splits`, split-k), each a unit of the waves,
      whose partial sums the last part adds; the block is then chosen for
      those units. Without the option there is one part: split-k, as its
      partial sums are exchanged today, lost on most shapes it was
      estimated to win on.
    * `mma-specialize`, `mma-tensor-copies` and `mma-cluster-blocks` are
      recorded as they are; the kernel uses them where the block allows.

    Matches: pit.stile ops whose body is a matmul tile, and linalg matmuls
    with f16 or bf16 inputs. Leaves alone: every other op (the conversion's
    SIMT lowering takes them), and an op that has a config already.
  }];
  let options = [
    Option<"mmaBlockColumns", "mma-block-columns", "int64_t",
           /*default=*/"256",
           "Columns of C a tensor-core matmul block computes">,
    Option<"mmaChunk", "mma-chunk", "int64_t", /*default=*/"0",
           "Compacted k a tensor-core matmul block multiplies at a time "
           "(0: the STile's k tile)">,
    Option<"mmaStages", "mma-stages", "int64_t", /*default=*/"2",
           "Shared-memory stages of a tensor-core matmul block (1 to 4)">,
    Option<"mmaSpecialize", "mma-specialize", "bool", /*default=*/"true",
           "Warp-specialise wgmma matmul blocks that copy whole chunks: a "
           "copying warpgroup, up to 4 stages paced by mbarriers">,
    Option<"mmaTensorCopies", "mma-tensor-copies", "bool", /*default=*/"true",
           "Warp-specialised dense matmul blocks on function arguments copy "
           "with TMA">,
    Option<"mmaClusterBlocks", "mma-cluster-blocks", "int64_t",
           /*default=*/"2",
           "Blocks of a cluster that share B's chunks (TMA multicast) in "
           "dense matmul blocks that copy with TMA: 1 or 2">,
    Option<"mmaKSplits", "mma-k-splits", "int64_t", /*default=*/"0",
           "Parts of k each tile of a dense matmul's warp-specialised TMA "
           "blocks is split into (split-k; 0: the strategy's, which is 1 "
           "today; up to 8)">,
    Option<"multiprocessors", "multiprocessors", "int64_t", /*default=*/"0",
           "Multiprocessors of the device the kernels will run on, the "
           "estimate of a wave of dense blocks (0: the chip's data-center "
           "part's, 132 for sm_90)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The GPU the kernels are for (sm_80, sm_90, sm_90a, ...): on "
           "sm_90a, dense matmul blocks are wgmma blocks">
  ];
  let dependentDialects = ["::mlir::pit::PITDialect"];
}

def ConvertPITToGPU : Pass<"convert-pit-to-gpu", "ModuleOp"> {
  let summary = "Lowers the pit ops to gpu kernels";
  let description = [{
    Turns every function that holds pit ops or linalg ops into host code
    launching GPU kernels (`gpu.launch`, outlined later into
    `gpu.launch_func`). The function's buffers are device buffers. The
    lowering is a set of rewrite patterns, one per op and kernel kind
    (`include/PIT/Conversion/PITToGPU.h`), applied in stages: STiles, dense
    ops, scans, host code, the choice.

    * `pit.detect` (and `pit.count`, which records no positions and scans
      only its sample of segments) becomes a `gpu.memset` that clears the
      counts and a kernel that scans the tensor once and claims the slots of
      the non-zero micro-tiles of each segment with atomic adds (a 2-D
      tensor with rows of whole 16-byte vectors is read with coalesced
      16-byte streaming loads, a column of vectors per thread, in at most
      512 blocks where blocks of up to 512 threads allow; otherwise a thread
      scans each micro-tile). The index is built out of order, with no
      synchronisation between blocks.
    * `pit.stile` becomes one kernel with a block per tile (segments x tiles
      of the free loops x the most tiles the compacted loop can have); blocks
      past their segment's count exit at once. The body's tile buffers live
      in shared memory; `pit.sread`, the `linalg` ops of the body and
      `pit.swrite` are spread over the block's threads, with barriers
      between them, and combined writes are atomic.
    * `memref.alloc`/`memref.dealloc` of the host code become `gpu.alloc`/
      `gpu.dealloc` (`pit-gpu-coalesce-allocations` then makes one arena of
      those a call allocates and frees itself). A `linalg.fill` of 16- or
      32-bit elements left in it
      becomes a `gpu.memset`, an f16/bf16 matmul with f32 C or C of the
      inputs' type (the dense fallback of run-time selection) a tensor-core kernel with 128x128
      blocks (128x256 with wgmma), an SDDMM of the same types (with any float
      mask) a tensor-core kernel over C's own 64x64 tiles, which reads C
      only where the mask is not zero (a wave of blocks walks the tiles,
      each next tile's loads in flight meanwhile), other `linalg` ops
      grid-stride kernels
      (fills in a variant of run-time selection too, so that they can be
      guarded); extents that do not divide those tiles keep grid-stride
      kernels.
    * `pit.select` is evaluated on the device: a one-block kernel sums the
      counts and writes the chosen index into a device buffer (and into the
      runtime's record of choices, which `pitCudaLastChoice` reads back;
      the function asks for it at its entry, `pitCudaChoiceRecord`). Each
      `scf.index_switch` on it is replaced by all of its regions in order,
      every kernel of a region guarded by a read of that buffer, so that
      only the chosen variant's kernels do work and the host never waits;
      so is each `scf.if` whose condition pure ops compute from it (the
      detection of an index that only some variants read), each kernel
      computing the condition again from the value it reads. A region with
      other host work than launches, allocations and memsets of buffers
      only the guarded regions use is an error on the select.

    That SIMT lowering is correct for any body and element type. An STile
    whose body is the tile of an f16 or bf16 matmul or batch matmul with f32
    accumulation (gathered along k or m), or of an SDDMM, gets a tensor-core
    kernel instead (with `tensor-cores`, the default). A matmul or SDDMM whose
    C has the inputs' type (f16 or bf16) accumulates in f32 too and rounds once,
    where C is stored, as cuBLAS does; the body's own f16 additions would
    round at every step. Rows gathered along m and added into such a C with
    atomics would round at every add: those tiles are left to the SIMT
    lowering, with a remark (a `panel` keeps the sums in f32). For a gather along k,
    one block per output tile loops over the segment's compacted k in chunks
    of the config's `block` k, `stages` deep: each chunk of A and B is gathered into
    swizzled shared memory with 16-byte `cp.async` copies (zero-filled past
    the count), read with `ldmatrix`, multiplied with `mma.sync` m16n8k16
    into registers, and the block adds its tile into C without atomics. An
    STile with more tiles than 2048 launches as many blocks as the
    multiprocessors hold (by shared memory and threads), which take the
    tiles in turn from a counter that the call clears with its counts. The
    tensor-core matmul kernels are shaped by each op's `#pit.mma_config`,
    which `pit-gpu-strategy` chooses (its `mma-*` options override the
    choice); an op without one gets the default strategy's. With `chip=sm_90a`, blocks of
    64-row multiples with chunks of 64 (the dense fallback's blocks, then
    128x256, among them) multiply with `wgmma` m64nNk16 instead, a
    warpgroup for each 64 rows, straight from shared memory in its 128-byte
    swizzled layouts, one multiplication in flight while the next chunk is
    copied in. Such blocks whose chunks are copied whole (one tile a block)
    are warp-specialised (the config's `specialize`): a third warpgroup copies up to 4
    chunks ahead, each stage's `full` and `empty` mbarriers pacing it
    against the multiplying warpgroups, which it hands registers with
    `setmaxnreg`; no block barrier a chunk. A dense walk over A and B that
    the function takes as arguments copies with the Tensor Memory
    Accelerator (`tensor_copies`): the host code asks the runtime for
    their tensor maps (`pitCudaTensorMap2D`) at the function's entry, and
    one thread issues each chunk's copies, whose bytes complete the stage's
    `full` mbarrier. Its blocks are persistent: one for each multiprocessor
    (`pitCudaMultiprocessorCount`, asked at the entry too) walks the tiles,
    the next tile's first chunks coming in while the last one is written
    back; in clusters of `cluster_blocks` (2) blocks of neighbouring
    rows, which share B's chunks (multicast). A 16-bit C that such a walk
    only writes (it was only cleared before), an argument too, goes back
    through the TMA as well: each multiplying warpgroup writes its rows 64
    columns at a time into one of two staging buffers in shared memory, and
    one thread stores each piece with C's tensor map while the warpgroup
    writes the next and then multiplies the next tile. On sm_90a the
    tensor-core STiles' blocks of 32 rows or more write such a C back
    through the TMA too: once done with B's stages, they write the tile
    there, and one thread stores it (`tensor_copies = false` keeps the
    warps' own stores).

    Leaves alone: functions without pit ops.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"128",
           "Threads of the blocks that run the SIMT tiles">,
    Option<"useTensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Use the tensor-core kernels for f16/bf16 matmul and SDDMM tiles">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The GPU the kernels are for (sm_80, sm_90, sm_90a, ...): from "
           "sm_90 on, scattered partial sums are added with four-element "
           "vector atomics; on sm_90a, blocks that allow it use wgmma">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::pit::PITDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PITGPUCoalesceAllocations
    : Pass<"pit-gpu-coalesce-allocations", "func::FuncOp"> {
  let summary = "Makes the device buffers a call allocates views of one "
                "allocation";
  let description = [{
    After `convert-pit-to-gpu`: the device buffers of static shape that a
    host function allocates and frees at its top level (index, counts,
    compacted copies, the choice) become views of one `gpu.alloc` at its
    start (each 256-byte aligned), freed at its end; every allocation and
    free costs the host driver time a call, and at high sparsity a call's
    kernels take little more than the host takes to issue them. Zero
    memsets of the arena's views that nothing used before are moved up to
    the first, in order, and runs of them over neighbouring views become
    one memset (a memset between two kernels holds back the second).

    Matches: `gpu.alloc`/`gpu.dealloc` pairs of static shape at a
    function's top level. Leaves alone: buffers of dynamic shape, those
    freed elsewhere or not at all, and functions with fewer than two.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // PIT_CONVERSION_PASSES_TD
