"""Building PIT programs: functions, linalg ops with a sparse operand, and
the pit ops; wrong arguments raise MLIRError and leave the module as it was."""

import pytest

import pit
from conftest import add_sddmm, build_matmul


def test_matmul_with_sparse_operand(ctx):
    module = build_matmul(ctx)
    text = str(module)
    assert "func.func @sparse_matmul(%arg0: memref<64x128xf32>" in text
    assert ("linalg.matmul {pit.sparse = #pit.sparse<operand = 0, "
            "micro_tiles = [32x1, 1x64]>}") in text
    module.verify()


def test_mixed_precision_body_widens_inputs(ctx):
    module = build_matmul(ctx, dtype="f16", out_dtype="f32")
    matmul = module.body.operations[0].regions[0].blocks[0].operations[0]
    body = [op.name for op in matmul.regions[0].blocks[0].operations]
    assert body == ["arith.extf", "arith.extf", "arith.mulf", "arith.addf", "linalg.yield"]


def test_batch_matmul_and_generic(ctx):
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (2, 32, 64), "f32"), pit.memref(ctx, (2, 64, 16), "f32"),
             pit.memref(ctx, (2, 32, 16), "f32")]
    with pit.Function(module, "bmm", types) as f:
        pit.batch_matmul(f.builder, *f.arguments, sparse=(0, [(1, 32, 1)]))

    # SDDMM: C = mask * (A x B), the mask sparse in 1x16 micro-tiles.
    add_sddmm(module, ctx)
    module.verify()
    text = str(module)
    assert "linalg.batch_matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [1x32x1]>}" in text
    assert "pit.sparse = #pit.sparse<operand = 2, micro_tiles = [1x16]>" in text
    # The marks are what pit-sparsify consumes.
    pit.PassManager(ctx, "pit-sparsify").run(module)
    assert str(module).count("pit.stile") == 2


def test_pit_ops(ctx):
    """The sparsified form of C += A x B (A in 32x1 micro-tiles, gathered
    along k), written with the pit op builders."""
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (64, 128), "f32"), pit.memref(ctx, (128, 32), "f32"),
             pit.memref(ctx, (64, 32), "f32"), pit.memref(ctx, (2,), "i32"),
             pit.memref(ctx, (2, 128), "i32"), pit.memref(ctx, (32, 32), "f32"),
             pit.memref(ctx, (32, 32), "f32"), pit.memref(ctx, (32, 32), "f32")]
    with pit.Function(module, "sparse_matmul", types) as f:
        a, b, c, counts, positions, tile_a, tile_b, tile_c = f.arguments
        pit.detect(f.builder, a, counts, positions, micro_tile=[32, 1], axis=1)

        def tile(body, origins, segment):
            m, n, k = origins
            index = pit.Type.parse(ctx, "index")
            count_i32 = body.build("memref.load", [counts, segment],
                                   [pit.Type.parse(ctx, "i32")]).results[0]
            count = body.build("arith.index_cast", [count_i32], [index]).results[0]
            pit.sread(body, a, [m, k], tile_a, gather=(positions, segment, count, 1, 1))
            pit.sread(body, b, [k, n], tile_b, gather=(positions, segment, count, 0, 1))
            pit.matmul(body, tile_a, tile_b, tile_c)
            pit.swrite(body, tile_c, c, [m, n], combine="add")

        pit.stile(f.builder, counts, domain=[64, 32, 128], tile=[32, 32, 32],
                  micro_tile=[32, 1], pit_axis=2,
                  sparse_map="(d0, d1, d2) -> (d0, d2)", body=tile)
    text = str(module)
    assert "pit.detect %arg0 micro_tile [32, 1] axis 1 into %arg3, %arg4" in text
    assert ("pit.stile (%arg8, %arg9, %arg10) segment(%arg11) counts(%arg3 : memref<2xi32>) "
            "domain [64, 32, 128] tile [32, 32, 32] micro_tile [32, 1] pit_axis 2") in text
    assert "gather %arg4[%arg11] count %1 axis 1 micro 1" in text
    assert "pit.swrite %arg7 into %arg2[%arg8, %arg9] combine <add>" in text
    module.verify()


def test_stile_keep_tile_and_panel(ctx):
    """An STile gathered along m (rows of A, 1x64) whose block owns a panel
    of 128 rows of C; a panel that does not split the rows is refused."""
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (4,), "i32")]
    with pit.Function(module, "rows", types) as f:
        (counts,) = f.arguments
        pit.stile(f.builder, counts, domain=[256, 128, 256], tile=[64, 64, 64],
                  micro_tile=[1, 64], pit_axis=0,
                  sparse_map="(d0, d1, d2) -> (d0, d2)",
                  body=lambda body, origins, segment: None,
                  keep_tile=True, panel=128)
        with pytest.raises(pit.MLIRError, match="panel 96 must be whole micro-tiles"):
            pit.stile(f.builder, counts, domain=[256, 128, 256], tile=[64, 64, 64],
                      micro_tile=[1, 64], pit_axis=0,
                      sparse_map="(d0, d1, d2) -> (d0, d2)",
                      body=lambda body, origins, segment: None, panel=96)
    assert "attributes {keep_tile, panel = 128 : i64}" in str(module)
    module.verify()


def test_wrong_pit_op_arguments_raise(ctx):
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (64, 128), "f32"), pit.memref(ctx, (2,), "i32"),
             pit.memref(ctx, (2, 128), "i32")]
    with pit.Function(module, "f", types) as f:
        a, counts, positions = f.arguments
        with pytest.raises(pit.MLIRError, match="expects axis in"):
            pit.detect(f.builder, a, counts, positions, micro_tile=[32, 1], axis=2)
        with pytest.raises(pit.MLIRError, match="'pit.stile' op"):
            pit.stile(f.builder, counts, domain=[64, 32], tile=[32, 32, 32],
                      micro_tile=[32, 1], pit_axis=2,
                      sparse_map="(d0, d1, d2) -> (d0, d2)",
                      body=lambda body, origins, segment: None)
        with pytest.raises(pit.MLIRError, match="unknown pit combiner"):
            pit.swrite(f.builder, a, a, [], combine="sub")
    assert "pit." not in str(module)


def test_wrong_builder_arguments_raise_and_leave_module_unchanged(ctx):
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (64, 128), "f32"), pit.memref(ctx, (128, 32), "f32"),
             pit.memref(ctx, (64, 32), "f32")]
    with pit.Function(module, "f", types) as f:
        a, b, c = f.arguments
        with pytest.raises(pit.MLIRError, match="expects positive micro-tile extents"):
            pit.matmul(f.builder, a, b, c, sparse=(0, [(32, 0)]))
        with pytest.raises(pit.MLIRError) as error:
            pit.matmul(f.builder, a, b, c, sparse=(3, [(32, 1)]))
        assert "marks operand 3" in str(error.value)
        # The diagnostic points at this file, the line that called matmul.
        assert __file__ in error.value.diagnostics[0]
        with pytest.raises(pit.MLIRError, match="micro-tile"):
            pit.matmul(f.builder, a, b, c, sparse=(0, [(32, 1, 1)]))
        with pytest.raises(pit.MLIRError, match="failed to verify"):
            pit.matmul(f.builder, a, c, b)  # shapes do not match
        with pytest.raises(pit.MLIRError, match="unknown dialect 'foo'"):
            f.builder.build("foo.bar")
        with pytest.raises(pit.MLIRError, match="has no operation 'linalg.nope'"):
            f.builder.build("linalg.nope")
    assert str(module).count("linalg") == 0
    module.verify()


def test_function_arguments_are_checked(ctx):
    module = pit.Module.create(ctx)
    wanted = "ranked tensors or memrefs of positive or dynamic"
    with pytest.raises(ValueError, match=wanted):
        pit.Function(module, "f", [pit.Type.parse(ctx, "f32")])
    with pytest.raises(ValueError, match=wanted):
        pit.Function(module, "f", [pit.Type.parse(ctx, "memref<0x4xf32>")])
    # Dynamic extents are taken: the call gives them.
    with pit.Function(module, "g", [pit.memref(ctx, (None, 4), "f32")]):
        pass
    assert "memref<?x4xf32>" in str(module)


def test_tensor_function_returns_the_updated_output(ctx):
    module = build_matmul(ctx, micro_tiles=[(32, 1)], on_tensors=True)
    text = str(module)
    assert "-> tensor<64x32xf32>" in text
    assert "outs(%arg2 : tensor<64x32xf32>) -> tensor<64x32xf32>" in text
    assert "return %0 : tensor<64x32xf32>" in text
    module.verify()


def test_linalg_operands_are_all_tensors_or_all_memrefs(ctx):
    module = pit.Module.create(ctx)
    types = [pit.tensor(ctx, (4, 4), "f32"), pit.memref(ctx, (4, 4), "f32"),
             pit.memref(ctx, (4, 4), "f32")]
    with pit.Function(module, "f", types) as f:
        with pytest.raises(TypeError, match="all tensors or all memrefs"):
            pit.matmul(f.builder, *f.arguments)


def test_a_function_that_fails_to_verify_is_not_added(ctx):
    module = pit.Module.create(ctx)
    f = pit.Function(module, "f", [pit.memref(ctx, (4,), "f32")])
    f.builder.build("func.return", verify=False)  # a second terminator follows
    with pytest.raises(pit.MLIRError, match="must be the last operation"):
        f.finish()
    assert "func.func" not in str(module)
