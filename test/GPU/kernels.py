"""The kernels the GPU check compiles: one .mlir per case, written from the
templates below. Shared by the compile step (here) and the run step (on the
GPU machine), so that both agree on every case's shapes and pattern."""

MATMUL = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, %c: memref<{m}x{n}x{ct}>) {{
  linalg.matmul {{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}}
      ins(%a, %b : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) outs(%c : memref<{m}x{n}x{ct}>)
  return
}}
"""

# C += A x B through a temporary that the program never frees: it frees
# another buffer itself, so pit-free-temporaries leaves its buffers alone,
# and its host code allocates without a matching free, which a call graph
# cannot repeat (the runtime runs such calls launch by launch).
MATMUL_UNFREED_TEMPORARY = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, %c: memref<{m}x{n}x{ct}>) {{
  %zero = arith.constant 0.0 : {ct}
  %product = memref.alloc() : memref<{m}x{n}x{ct}>
  %sum = memref.alloc() : memref<{m}x{n}x{ct}>
  linalg.fill ins(%zero : {ct}) outs(%product : memref<{m}x{n}x{ct}>)
  linalg.matmul {{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}}
      ins(%a, %b : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) outs(%product : memref<{m}x{n}x{ct}>)
  linalg.add ins(%product, %c : memref<{m}x{n}x{ct}>, memref<{m}x{n}x{ct}>) outs(%sum : memref<{m}x{n}x{ct}>)
  linalg.copy ins(%sum : memref<{m}x{n}x{ct}>) outs(%c : memref<{m}x{n}x{ct}>)
  memref.dealloc %sum : memref<{m}x{n}x{ct}>
  return
}}
"""

# The same on tensors: pit-bufferize frees the product's buffer
# (pit-free-temporaries), so its calls run as graphs.
MATMUL_TENSOR_TEMPORARY = """func.func @kernel(%a: tensor<{m}x{k}x{t}>, %b: tensor<{k}x{n}x{t}>, %c: tensor<{m}x{n}x{ct}>) -> tensor<{m}x{n}x{ct}> {{
  %zero = arith.constant 0.0 : {ct}
  %empty = tensor.empty() : tensor<{m}x{n}x{ct}>
  %cleared = linalg.fill ins(%zero : {ct}) outs(%empty : tensor<{m}x{n}x{ct}>) -> tensor<{m}x{n}x{ct}>
  %product = linalg.matmul {{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}}
      ins(%a, %b : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>) outs(%cleared : tensor<{m}x{n}x{ct}>) -> tensor<{m}x{n}x{ct}>
  %sum = linalg.add ins(%product, %c : tensor<{m}x{n}x{ct}>, tensor<{m}x{n}x{ct}>) outs(%c : tensor<{m}x{n}x{ct}>) -> tensor<{m}x{n}x{ct}>
  return %sum : tensor<{m}x{n}x{ct}>
}}
"""

# A dense C += A x B whose tensor-core kernel an explicit #pit.mma_config
# shapes (64 x 128 blocks, chunks of 32), not the default strategy.
MATMUL_CONFIGURED = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, %c: memref<{m}x{n}x{ct}>) {{
  linalg.matmul {{pit.mma_config = #pit.mma_config<block = [64, 128, 32], stages = 2, specialize = false, tensor_copies = false, cluster_blocks = 1>}}
      ins(%a, %b : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) outs(%c : memref<{m}x{n}x{ct}>)
  return
}}
"""

# Dense, split along k into {splits} parts (split-k), 128 x 256 TMA blocks:
# C = A x B (C cleared first), or C += A x B.
SPLIT_K_CONFIG = ("{{pit.mma_config = #pit.mma_config<block = [128, 256, 64], stages = 3, "
                  "specialize = true, tensor_copies = true, cluster_blocks = 2, k_splits = {splits}>}}")
MATMUL_SPLIT_K = MATMUL_CONFIGURED.replace(
    MATMUL_CONFIGURED[MATMUL_CONFIGURED.index("{{pit.mma_config"):MATMUL_CONFIGURED.index("}}\n") + 2],
    SPLIT_K_CONFIG)
MATMUL_SPLIT_K_CLEARED = MATMUL_SPLIT_K.replace(
    "  linalg.matmul", "  %zero = arith.constant 0.0 : {ct}\n"
    "  linalg.fill ins(%zero : {ct}) outs(%c : memref<{m}x{n}x{ct}>)\n  linalg.matmul", 1)
# C = A x B: C cleared first, so the STile's write overwrites it.
MATMUL_CLEARED = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, %c: memref<{m}x{n}x{ct}>) {{
  %zero = arith.constant 0.0 : {ct}
  linalg.fill ins(%zero : {ct}) outs(%c : memref<{m}x{n}x{ct}>)
  linalg.matmul {{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}}
      ins(%a, %b : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) outs(%c : memref<{m}x{n}x{ct}>)
  return
}}
"""

# y = x W^T with W in nn.Linear's layout (N x K), y cleared first:
# pit-transpose-matmul-b gives the matmul a k-by-n copy of W.
LINEAR_MARK = "{{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}} "
LINEAR = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %w: memref<{n}x{k}x{t}>, %c: memref<{m}x{n}x{ct}>) {{
  %zero = arith.constant 0.0 : {ct}
  linalg.fill ins(%zero : {ct}) outs(%c : memref<{m}x{n}x{ct}>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      """ + LINEAR_MARK + """ins(%a, %w : memref<{m}x{k}x{t}>, memref<{n}x{k}x{t}>) outs(%c : memref<{m}x{n}x{ct}>)
  return
}}
"""
LINEAR_DENSE = LINEAR.replace(LINEAR_MARK, "")

# y = x W^T + bias: C starts as the bias broadcast along its rows (bias[i]
# in row i, as y^T = W x^T + b) or columns (bias[j] in column j), which the
# tensor-core kernels fold into their stores.
LINEAR_BIAS = LINEAR.replace(
    ", %c: memref", ", %bias: memref<{bias_extent}x{ct}>, %c: memref", 1).replace(
    """  %zero = arith.constant 0.0 : {ct}
  linalg.fill ins(%zero : {ct}) outs(%c : memref<{m}x{n}x{ct}>)
""", """  linalg.broadcast ins(%bias : memref<{bias_extent}x{ct}>) outs(%c : memref<{m}x{n}x{ct}>)
      dimensions = [{added_dimension}]
""")
LINEAR_BIAS_DENSE = LINEAR_BIAS.replace(LINEAR_MARK, "")

BATCH_MATMUL = """func.func @kernel(%a: memref<{b}x{m}x{k}x{t}>, %b: memref<{b}x{k}x{n}x{t}>, %c: memref<{b}x{m}x{n}xf32>) {{
  linalg.batch_matmul {{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}}
      ins(%a, %b : memref<{b}x{m}x{k}x{t}>, memref<{b}x{k}x{n}x{t}>) outs(%c : memref<{b}x{m}x{n}xf32>)
  return
}}
"""

# C[m, n] += M[m, n] * sum_k A[m, k] B[k, n], the mask M sparse.
SDDMM = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, %mask: memref<{m}x{n}x{t}>, %c: memref<{m}x{n}xf32>) {{
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b, %mask : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>, memref<{m}x{n}x{t}>)
      outs(%c : memref<{m}x{n}xf32>)
      attrs = {{pit.sparse = #pit.sparse<operand = 2, micro_tiles = [{mt}]>}} {{
  ^bb0(%x: {t}, %y: {t}, %w: {t}, %acc: f32):
    %x32 = arith.extf %x : {t} to f32
    %y32 = arith.extf %y : {t} to f32
    %w32 = arith.extf %w : {t} to f32
    %p = arith.mulf %x32, %y32 : f32
    %q = arith.mulf %p, %w32 : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }}
  return
}}
"""

# The same with C of the inputs' type: the body adds in that type as
# written (the kernel sums in f32 and rounds once, where C is stored).
SDDMM_HALF_C = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, %mask: memref<{m}x{n}x{t}>, %c: memref<{m}x{n}x{t}>) {{
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b, %mask : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>, memref<{m}x{n}x{t}>)
      outs(%c : memref<{m}x{n}x{t}>)
      attrs = {{pit.sparse = #pit.sparse<operand = 2, micro_tiles = [{mt}]>}} {{
  ^bb0(%x: {t}, %y: {t}, %w: {t}, %acc: {t}):
    %p = arith.mulf %x, %y : {t}
    %q = arith.mulf %p, %w : {t}
    %s = arith.addf %acc, %q : {t}
    linalg.yield %s : {t}
  }}
  return
}}
"""

# The same two without their mark: the dense SDDMM kernel (the fallback of
# run-time selection), which reads C only where the mask is not zero.
SPARSE_MASK_MARK = "attrs = {{pit.sparse = #pit.sparse<operand = 2, micro_tiles = [{mt}]>}} "
SDDMM_DENSE = SDDMM.replace(SPARSE_MASK_MARK, "")
SDDMM_HALF_C_DENSE = SDDMM_HALF_C.replace(SPARSE_MASK_MARK, "")
assert SDDMM_DENSE != SDDMM and SDDMM_HALF_C_DENSE != SDDMM_HALF_C

# The counts of every {every}-th segment of A's micro-tiles (pit.count:
# what run-time selection chooses from). {micro} is the micro-tile as the
# op spells it ("32, 1"); C is the counts.
COUNT = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %counts: memref<{s}xi32>) {{
  pit.count %a micro_tile [{micro}] axis {axis} every {every} into %counts
      : memref<{m}x{k}x{t}>, memref<{s}xi32>
  return
}}
"""


# The STile database of the lit tests (made-up latencies), relative to the
# repository root.
SELECTION_TABLE = "test/Inputs/latency-table.json"


def cases():
    """(name, template, parameters, pit_loop, expect_refusal). Names that
    start with "small_" are the ones run under compute-sanitizer. Parameters
    beyond the template's: "pattern", the micro-tile of the random pattern
    when it is not the mark's ("mt"), "table", a latency table to compile
    with, "choices", the variant its run-time selection must choose at each
    sparsity, "variant", the variant to run always (numbered as pit-sparsify's
    `variant`: those that fit, in the table's order), "chip", the chip to
    compile for when it is not the machines' (sm_90a), "cluster", the
    blocks of a cluster of the dense blocks' TMA copies
    (--mma-cluster-blocks), "chunk", the k the STile blocks multiply
    at a time (--mma-chunk), and "call_rows", the extents a dynamic m
    ("?") takes, one call each. "ct", C's element type, is f32 unless a case
    names it."""
    out = []
    for mt, loop in [("32x1", 2), ("1x64", 0), ("16x16", 2), ("32x64", 0)]:
        out.append((f"small_matmul_256_{mt}_{loop}", MATMUL,
                    dict(m=256, n=128, k=256, t="f16", mt=mt), loop, False))
    out.append(("small_matmul_bf16_256_16x16_2", MATMUL,
                dict(m=256, n=128, k=256, t="bf16", mt="16x16"), 2, False))
    # More tiles than a tensor-core kernel launches blocks (256 segments x
    # 16 tiles of 256 columns): the blocks take them in turn from a counter.
    out.append(("matmul_tile_counter_4096x4096x256_16x16_2", MATMUL,
                dict(m=4096, n=4096, k=256, t="f16", mt="16x16"), 2, False))
    # Blocks of 64 rows and chunks of 64: wgmma on sm_90a.
    for t in ["f16", "bf16"]:
        out.append((f"small_matmul_{t}_256_64x64_2", MATMUL,
                    dict(m=256, n=256, k=256, t=t, mt="64x64"), 2, False))
    # Single-column micro-tiles taller than 32 rows: the detection writes
    # their compacted copy (8 or 16 lanes a band column), which the STile
    # reads stored k by k: 64 rows with mma.sync (chunks of 32), or with
    # wgmma, A m-major (chunks of 64); 128 rows with mma.sync, chunks of 64
    # too (wgmma takes that tile only at 64 rows).
    for t in ["f16", "bf16"]:
        out.append((f"small_matmul_{t}_256_64x1_2_wgmma", MATMUL,
                    dict(m=256, n=256, k=256, t=t, mt="64x1", chunk=64), 2,
                    False))
    out.append(("small_matmul_256_64x1_2", MATMUL,
                dict(m=256, n=256, k=256, t="f16", mt="64x1"), 2, False))
    out.append(("small_matmul_256_128x1_2", MATMUL,
                dict(m=256, n=256, k=256, t="f16", mt="128x1", chunk=64), 2,
                False))
    # One library for A of ?x512 rows (issue 39): each call takes its own M,
    # a multiple of no micro-tile or block (100), then larger ones.
    out.append(("small_matmul_dynamic_rows_512_32x1", MATMUL,
                dict(m="?", n=256, k=512, t="f16", mt="32x1",
                     call_rows=[100, 1000, 4096]), -1, False))
    # Split-k: 4 tiles in 3 parts (5, 5 and 6 chunks); 128 tiles in 3 parts,
    # more units than multiprocessors (the blocks take several); C += A x B
    # whole (C's rows prefetched into L2) and in 2 parts.
    out.append(("small_dense_split3_256x512x1024", MATMUL_SPLIT_K_CLEARED,
                dict(m=256, n=512, k=1024, t="f16", ct="f16", mt="32x1", splits=3), -1, False))
    out.append(("small_dense_split3_2048x2048x1024", MATMUL_SPLIT_K_CLEARED,
                dict(m=2048, n=2048, k=1024, t="bf16", ct="bf16", mt="32x1", splits=3), -1, False))
    out.append(("small_dense_accumulate_256x512x1024", MATMUL_SPLIT_K,
                dict(m=256, n=512, k=1024, t="f16", ct="f16", mt="32x1", splits=1), -1, False))
    out.append(("small_dense_split2_accumulate_f32c_256x512x1024", MATMUL_SPLIT_K,
                dict(m=256, n=512, k=1024, t="bf16", ct="f32", mt="32x1", splits=2), -1, False))
    out.append(("small_matmul_configured_256x512_64x128x32",
                MATMUL_CONFIGURED,
                dict(m=256, n=512, k=256, t="f16", mt="32x1"), -1, False))
    out.append(("small_matmul_unfreed_256_32x1_2", MATMUL_UNFREED_TEMPORARY,
                dict(m=256, n=256, k=256, t="f16", mt="32x1"), 2, False))
    out.append(("small_matmul_tensor_temporary_256_32x1_2",
                MATMUL_TENSOR_TEMPORARY,
                dict(m=256, n=256, k=256, t="f16", mt="32x1"), 2, False))
    # y = x W^T: the dense tensor-core kernel, and a 32x1 STile, on W's copy.
    out.append(("small_linear_dense_256x512", LINEAR_DENSE,
                dict(m=256, n=512, k=256, t="f16", ct="f16", mt="32x1"), -1, False))
    # y = x W^T dense: on sm_90a the kernel copies W's chunks n by k with
    # the TMA (wgmma's k-major B); on sm_80 it reads a k-by-n copy it makes.
    out.append(("small_linear_dense_bf16_192x384x320", LINEAR_DENSE,
                dict(m=192, n=384, k=320, t="bf16", ct="f32", mt="32x1"), -1, False))
    # ... + bias, folded into the stores: along rows or columns, through
    # the TMA (sm_90a's warp-specialised blocks, f16 C), through B's stages
    # (sm_80, f16 C) or the threads' own stores (f32 C).
    for name, template, chip, t, ct, mt, rows in [
            ("small_linear_row_bias_32x64", LINEAR_BIAS, "sm_90a", "f16", "f16", "32x64", True),
            ("small_linear_column_bias_32x1", LINEAR_BIAS, "sm_90a", "f16", "f16", "32x1", False),
            ("small_linear_row_bias_sm80_32x64", LINEAR_BIAS, "sm_80", "f16", "f16", "32x64", True),
            ("small_linear_column_bias_bf16_f32c_16x16", LINEAR_BIAS, "sm_90a", "bf16", "f32",
             "16x16", False),
            ("small_linear_dense_row_bias_256x512", LINEAR_BIAS_DENSE, "sm_90a", "f16", "f16",
             "32x1", True),
            ("small_linear_dense_column_bias_sm80_256x512", LINEAR_BIAS_DENSE, "sm_80", "f16",
             "f32", "32x1", False)]:
        out.append((name, template,
                    dict(m=256, n=512, k=256, t=t, ct=ct, mt=mt, chip=chip,
                         bias_extent=256 if rows else 512,
                         added_dimension=1 if rows else 0), -1, False))
    out.append(("small_linear_dense_sm80_256x512", LINEAR_DENSE,
                dict(m=256, n=512, k=256, t="f16", ct="f16", mt="32x1",
                     chip="sm_80"), -1, False))
    out.append(("small_linear_256x512_32x1_2", LINEAR,
                dict(m=256, n=512, k=256, t="f16", ct="f16", mt="32x1"), 2, False))
    out.append(("small_matmul_cleared_256_32x1_2", MATMUL_CLEARED,
                dict(m=256, n=512, k=256, t="f16", mt="32x1"), 2, False))
    # Compiled for sm_80: no dependent launches (griddepcontrol needs sm_90),
    # so the runtime launches its kernels as before, beside the marked ones.
    out.append(("small_matmul_sm80_256_32x1_2", MATMUL_CLEARED,
                dict(m=256, n=512, k=256, t="f16", mt="32x1", chip="sm_80"),
                2, False))
    # Run-time selection among 32x1 (variant 0), 32x64 (1) and dense (2),
    # with the made-up latency tables of the lit tests: patterns of 32x1
    # micro-tiles pick dense at 0 and 50%, 32x1 at 90 and 99%, 32x64 at
    # 100%; patterns of 32x64 pick 32x64 from 50% on (600 us against dense's
    # 1000 there). Every branch runs. "choices" are the variants the device
    # must choose at each sparsity (pitCudaLastChoice; pit-sparsify's remark
    # gives the numbering): the patterns zero exact fractions of the
    # micro-tiles, and these small shapes count every segment, so the
    # coverage and the choice are exact.
    for pattern, choices in [
            ("32x1", {0.0: 2, 0.5: 2, 0.9: 0, 0.99: 0, 1.0: 1}),
            ("32x64", {0.0: 2, 0.5: 1, 0.9: 1, 0.99: 1, 1.0: 1})]:
        out.append((f"small_select_256_{pattern}_pattern", MATMUL_CLEARED,
                    dict(m=256, n=256, k=256, t="f16", mt="32x1, 32x64",
                         pattern=pattern, table=SELECTION_TABLE,
                         choices=choices), -1, False))
    # Two dense tiles of 32x1 that share one detection and its compacted
    # copy, with the lit tests' made-up table: by its latencies, 32x128x64
    # (0) runs at 99-100% sparsity, 32x64x32 (1) at 50-90% (at 90%, 196
    # against 200 us), dense (2) at 0%.
    tiles_choices = {0.0: 2, 0.5: 1, 0.9: 1, 0.99: 0, 1.0: 0}
    out.append(("small_select_256x512_32x1_tiles", MATMUL_CLEARED,
                dict(m=256, n=512, k=256, t="f16", mt="32x1",
                     table=SELECTION_TABLE, choices=tiles_choices), -1, False))
    # The same with its dense blocks outside clusters (by default, pairs of
    # blocks share B's chunks by TMA multicast).
    out.append(("small_select_256x512_32x1_unclustered", MATMUL_CLEARED,
                dict(m=256, n=512, k=256, t="f16", mt="32x1",
                     table=SELECTION_TABLE, cluster=1, choices=tiles_choices),
                -1, False))
    # 1x64 gathered along m, with atomics (32x64x64, variant 0) or a block
    # owning a panel of 256 rows of C (64x128x64, two warpgroups of 64
    # columns, 1): by the table, atomics at 99-100% sparsity, the panel at
    # 50-90%, dense (2) at 0%. Cleared, the panel starts at zeros;
    # accumulating, at C.
    for suffix, template in [("", MATMUL_CLEARED), ("_accumulate", MATMUL)]:
        out.append((f"small_select_512x128_1x64_panel{suffix}", template,
                    dict(m=512, n=128, k=256, t="f16", mt="1x64",
                         table=SELECTION_TABLE,
                         choices={0.0: 2, 0.5: 1, 0.9: 1, 0.99: 0, 1.0: 0}),
                    -1, False))
    # The same with the panel's 64x64x64 tile forced: two warpgroups of 64
    # columns take the units in turn (variant 3: the table's fourth, since
    # its third, a panel of 96 rows, does not fit).
    for suffix, template in [("", MATMUL_CLEARED), ("_accumulate", MATMUL)]:
        out.append((f"small_variant_512x128_1x64_panel64{suffix}", template,
                    dict(m=512, n=128, k=256, t="f16", mt="1x64",
                         table=SELECTION_TABLE, variant=3), -1, False))
    # The same with panels of 128 rows that group the rows sharing segments
    # (group_rows, variant 4): C's rows are stored through the order.
    for suffix, template in [("", MATMUL_CLEARED), ("_accumulate", MATMUL)]:
        out.append((f"small_variant_512x128_1x64_grouped{suffix}", template,
                    dict(m=512, n=128, k=256, t="f16", mt="1x64",
                         table=SELECTION_TABLE, variant=4), -1, False))
    # C of the inputs' type: the f32 sums rounded once where C is stored,
    # gathered along k (mma.sync and wgmma), in the panel (the lit tests'
    # table: variant 0 of its f16-C entry is the 64-column panel, 2 dense),
    # cleared and accumulating.
    for suffix, template in [("", MATMUL_CLEARED), ("_accumulate", MATMUL)]:
        out.append((f"small_matmul_f16c_256_32x1_2{suffix}", template,
                    dict(m=256, n=512, k=256, t="f16", ct="f16", mt="32x1"),
                    2, False))
        for number, kind in [(0, "panel64"), (2, "dense")]:
            out.append((f"small_variant_512x128_1x64_{kind}_f16c{suffix}",
                        template, dict(m=512, n=128, k=256, t="f16", ct="f16",
                                       mt="1x64", table=SELECTION_TABLE,
                                       variant=number), -1, False))
    # The dense fallback's 128 x 256 blocks with an f16 C (variant 1 of the
    # table's f16-C entry): cleared, written back through the TMA from
    # shared memory, four 64-column pieces a warpgroup and tile, the 256
    # tiles walked by fewer persistent blocks (the staging buffers reused
    # from tile to tile); accumulating, with the warps' own loads and stores.
    for suffix, template in [("", MATMUL_CLEARED), ("_accumulate", MATMUL)]:
        out.append((f"variant_2048x4096_32x1_dense_f16c{suffix}",
                    template, dict(m=2048, n=4096, k=256, t="f16", ct="f16",
                                   mt="32x1", table=SELECTION_TABLE,
                                   variant=1), -1, False))
    out.append(("small_matmul_bf16c_256_64x64_2", MATMUL,
                dict(m=256, n=256, k=256, t="bf16", ct="bf16", mt="64x64"),
                2, False))
    out.append(("small_batch_matmul_2x128_1x32x1", BATCH_MATMUL,
                dict(b=2, m=128, n=64, k=128, t="f16", mt="1x32x1"), -1, False))
    for mt in ["32x1", "1x64"]:
        out.append((f"small_sddmm_f16c_256_k64_{mt}", SDDMM_HALF_C,
                    dict(m=256, n=256, k=64, t="f16", ct="f16", mt=mt), -1,
                    False))
    out.append(("small_sddmm_256_k64_32x1", SDDMM,
                dict(m=256, n=256, k=64, t="f16", mt="32x1"), -1, False))
    # Dense SDDMMs: blocks walking the tiles with the whole of k (128 with an
    # f16 C, 64 with an f32 C), and k = 256 in chunks, a tile a block; the
    # masks zero 1x64 and 32x1 micro-tiles.
    out.append(("small_sddmm_dense_f16c_256_k128_1x64", SDDMM_HALF_C_DENSE,
                dict(m=256, n=256, k=128, t="f16", ct="f16", mt="1x64"), -1,
                False))
    out.append(("small_sddmm_dense_256_k64_32x1", SDDMM_DENSE,
                dict(m=256, n=256, k=64, t="f16", mt="32x1"), -1, False))
    out.append(("small_sddmm_dense_f16c_256_k256_32x1", SDDMM_HALF_C_DENSE,
                dict(m=256, n=256, k=256, t="f16", ct="f16", mt="32x1"), -1,
                False))
    for mt in ["32x1", "1x64", "16x16", "32x64"]:
        for loop, axis in [(2, "k"), (0, "m")]:
            out.append((f"matmul_4096_{mt}_{axis}", MATMUL,
                        dict(m=4096, n=4096, k=4096, t="f16", mt=mt), loop, False))
    out.append(("matmul_4096_64x64_k", MATMUL,
                dict(m=4096, n=4096, k=4096, t="f16", mt="64x64"), 2, False))
    out.append(("matmul_cleared_4096_32x64_k", MATMUL_CLEARED,
                dict(m=4096, n=4096, k=4096, t="f16", mt="32x64"), 2, False))
    out.append(("matmul_cleared_4096_32x64_k_f16c", MATMUL_CLEARED,
                dict(m=4096, n=4096, k=4096, t="f16", ct="f16", mt="32x64"),
                2, False))
    out.append(("matmul_bf16_4096_32x1_k", MATMUL,
                dict(m=4096, n=4096, k=4096, t="bf16", mt="32x1"), 2, False))
    out.append(("matmul_bf16_4096_32x64_k", MATMUL,
                dict(m=4096, n=4096, k=4096, t="bf16", mt="32x64"), 2, False))
    out.append(("batch_matmul_4x1024_1x32x1", BATCH_MATMUL,
                dict(b=4, m=1024, n=1024, k=1024, t="f16", mt="1x32x1"), -1, False))
    for mt in ["32x1", "1x64"]:
        out.append((f"sddmm_4096_k64_{mt}", SDDMM,
                    dict(m=4096, n=4096, k=64, t="f16", mt=mt), -1, False))
    out.append(("sddmm_dense_f16c_4096_k64_32x1", SDDMM_HALF_C_DENSE,
                dict(m=4096, n=4096, k=64, t="f16", ct="f16", mt="32x1"), -1,
                False))
    out.append(("matmul_1000_8x1", MATMUL,
                dict(m=1000, n=1000, k=1000, t="f16", mt="8x1"), 2, False))
    out.append(("matmul_1000_32x1", MATMUL,
                dict(m=1000, n=1000, k=1000, t="f16", mt="32x1"), 2, True))
    # Samples as run-time selection takes them: every 4th band of 32x1
    # (rows split among 4 lanes a band column) and of 64x1 (8 lanes), every
    # 8th of 16x16 and every
    # 4th of 32x64 (a micro-tile's vectors on lanes rowSharers apart), every
    # 4th micro-tile column of 1x64 (gathered along the rows). The patterns
    # are finer than the micro-tiles, so that a micro-tile whose non-zeros
    # lie in one of its vectors or rows only is counted too.
    for mt, pattern, axis, every, m, k in [("32x1", "8x1", 1, 4, 1024, 512),
                                           ("64x1", "8x1", 1, 4, 1024, 512),
                                           ("16x16", "16x8", 1, 8, 1024, 512),
                                           ("32x64", "8x8", 1, 4, 1024, 512),
                                           ("1x64", "1x8", 0, 4, 256, 1024)]:
        rows, columns = map(int, mt.split("x"))
        segments = m // rows if axis == 1 else k // columns
        out.append((f"small_count_{m}x{k}_{mt}_every{every}", COUNT,
                    dict(m=m, k=k, t="f16", mt=mt, pattern=pattern,
                         micro=f"{rows}, {columns}", axis=axis, every=every,
                         s=-(-segments // every)),
                    -1, False))
    for _, _, params, _, _ in out:
        params.setdefault("ct", "f32")
    return out
