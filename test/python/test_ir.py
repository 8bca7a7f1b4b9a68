"""Context, modules, operations, types and attributes."""

import pytest

import pit

SOURCE = """
func.func @sparse_matmul(%a: memref<64x128xf32>, %b: memref<128x32xf32>,
                         %c: memref<64x32xf32>) {
  linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>}
      ins(%a, %b : memref<64x128xf32>, memref<128x32xf32>)
      outs(%c : memref<64x32xf32>)
  return
}
"""


def test_parse_and_print_round_trip(ctx):
    module = pit.Module.parse(ctx, SOURCE)
    text = str(module)
    assert "#pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>" in text
    assert str(pit.Module.parse(ctx, text)) == text


def test_walk_operations_and_values(ctx):
    module = pit.Module.parse(ctx, SOURCE)
    (function,) = module.body.operations
    assert function.name == "func.func"
    assert function.attributes["sym_name"].value == "sparse_matmul"
    entry = function.regions[0].blocks[0]
    assert [str(a.type) for a in entry.arguments] == [
        "memref<64x128xf32>", "memref<128x32xf32>", "memref<64x32xf32>"]
    matmul = entry.operations[0]
    assert matmul.name == "linalg.matmul"
    assert [str(v.type) for v in matmul.operands] == [
        str(a.type) for a in entry.arguments]


def test_types(ctx):
    f16 = pit.Type.parse(ctx, "f16")
    memref = pit.Type.memref([4, 8], f16)
    assert str(memref) == "memref<4x8xf16>"
    assert memref.is_memref and memref.shape == (4, 8)
    assert memref.element_type == f16 and f16.is_float
    assert pit.Type.parse(ctx, "memref<4x8xf16>") == memref
    function = pit.Type.function(ctx, [memref], [f16])
    assert function.inputs == [memref] and function.results == [f16]
    assert str(pit.Type.tensor([2], pit.Type.parse(ctx, "i32"))) == "tensor<2xi32>"
    with pytest.raises(TypeError, match="ranked shaped type"):
        f16.shape


def test_attributes(ctx):
    i64 = pit.Type.parse(ctx, "i64")
    assert pit.Attribute.integer(i64, 7).value == 7
    assert pit.Attribute.string(ctx, "x").value == "x"
    assert pit.Attribute.dense_i64_array(ctx, [1, 2]).value == [1, 2]
    assert pit.Attribute.parse(ctx, "[1 : i32, 2.5 : f32]").value == [1, 2.5]
    assert pit.Attribute.type(i64).value == i64
    with pytest.raises(TypeError, match="no plain Python value"):
        pit.Attribute.parse(ctx, "affine_map<(d0) -> (d0)>").value


def test_pit_attributes(ctx):
    module = pit.Module.parse(ctx, SOURCE)
    matmul = module.body.operations[0].regions[0].blocks[0].operations[0]
    mark = pit.SparseAttr(matmul.get_attribute("pit.sparse"))
    assert mark.operand == 0
    assert mark.micro_tiles == [(32, 1), (1, 64)]
    built = pit.SparseAttr.get(ctx, 1, [(16, 16)])
    assert str(built) == "#pit.sparse<operand = 1, micro_tiles = [16x16]>"
    combiner = pit.CombinerAttr.get(ctx, "maximumf")
    assert combiner.kind == "maximumf"
    assert str(combiner) == "#pit.combiner<maximumf>"
    with pytest.raises(TypeError, match="#pit.sparse"):
        pit.SparseAttr(combiner.attribute)


def test_bad_micro_tiles_raise_with_diagnostics(ctx):
    with pytest.raises(pit.MLIRError) as error:
        pit.SparseAttr.get(ctx, 0, [(32, 0)])
    assert "expects positive micro-tile extents" in "\n".join(error.value.diagnostics)
    with pytest.raises(pit.MLIRError, match="at least one candidate"):
        pit.SparseAttr.get(ctx, 0, [])
    with pytest.raises(ValueError, match="same rank"):
        pit.SparseAttr.get(ctx, 0, [(32, 1), (4,)])
    with pytest.raises(pit.MLIRError, match="unknown pit combiner 'sub'"):
        pit.CombinerAttr.get(ctx, "sub")


def test_parse_errors_carry_diagnostics(ctx):
    with pytest.raises(pit.MLIRError) as error:
        pit.Module.parse(ctx, "func.func @f() {\n  foo.bar\n  return\n}")
    assert error.value.message == "cannot parse the module"
    assert "Dialect `foo' not found for custom op 'foo.bar'" in str(error.value)
    with pytest.raises(pit.MLIRError, match="custom op 'linalg.nope' is unknown"):
        pit.Module.parse(ctx, "func.func @f() {\n  linalg.nope\n  return\n}")
    with pytest.raises(pit.MLIRError, match="cannot parse type"):
        pit.Type.parse(ctx, "memref<4xwhat>")
    with pytest.raises(pit.MLIRError, match="cannot parse attribute"):
        pit.Attribute.parse(ctx, "#pit.sparse<operand = -1>")


def test_verify_failure_carries_diagnostics(ctx):
    # Parsing verifies; a module made invalid afterwards fails verify().
    module = pit.Module.parse(ctx, SOURCE)
    matmul = module.body.operations[0].regions[0].blocks[0].operations[0]
    matmul.set_attribute("pit.sparse", pit.SparseAttr.get(ctx, 5, [(32, 1)]).attribute)
    with pytest.raises(pit.MLIRError) as error:
        module.verify()
    assert error.value.message == "'builtin.module' failed to verify"
    assert "marks operand 5" in error.value.diagnostics[0]
    assert ":" in error.value.diagnostics[0].split("error:")[0]  # a location


def test_handles_from_before_a_pass_run_are_refused(ctx):
    module = pit.Module.parse(ctx, SOURCE)
    function = module.body.operations[0]
    pit.PassManager(ctx, "pit-sparsify").run(module)
    with pytest.raises(ValueError, match="before a pass ran"):
        function.name
    assert module.body.operations[0].name == "func.func"


def test_detached_operation_is_inserted_once(ctx):
    module = pit.Module.create(ctx)
    operation = pit.Operation.create(ctx, "func.func", attributes={
        "sym_name": pit.Attribute.string(ctx, "empty"),
        "sym_visibility": pit.Attribute.string(ctx, "private"),
        "function_type": pit.Attribute.type(pit.Type.function(ctx, [], []))},
        num_regions=1)
    module.body.append(operation)
    with pytest.raises(ValueError, match="already in a block"):
        module.body.append(operation)
    assert "func.func private @empty()" in str(module)


def test_objects_of_another_context_are_refused():
    # A function of one context holding a type of another would read freed
    # memory once that context is gone.
    first, second = pit.Context(), pit.Context()
    module = pit.Module.create(first)
    foreign = pit.memref(second, (4, 4), "f32")
    with pytest.raises(ValueError, match="belongs to another pit.Context"):
        pit.Function(module, "f", [foreign])
    with pytest.raises(ValueError, match="belongs to another pit.Context"):
        pit.Attribute.array(first, [pit.Attribute.string(second, "x")])
    del second, foreign
    assert "func.func" not in str(module)
