"""pit.compile: targets, outputs, and the errors of each step."""

import subprocess
import warnings

import pytest

import pit
from pit import _config
from conftest import build_matmul

needs_cuda = pytest.mark.skipif(
    not _config.CUDA_ENABLED,
    reason="needs the CUDA toolkit at build time (ptxas, libpit_cuda_runtime)")


def test_cpu_shared_library_has_function_and_manifest(ctx, tmp_path):
    path = pit.compile(build_matmul(ctx), target="cpu", path=tmp_path / "libmm.so")
    assert path == tmp_path / "libmm.so"
    library = pit.load(path)
    assert library.target == "cpu"
    assert repr(library.sparse_matmul) == (
        "<pit function sparse_matmul(f32[64, 128], f32[128, 32], f32[64, 32]) for cpu>")


def test_compile_leaves_the_module_alone(ctx):
    module = build_matmul(ctx)
    before = str(module)
    pit.compile(module, target="cpu")
    assert str(module) == before


def test_ptx_for_each_chip(ctx):
    for chip in ["sm_80", "sm_90", "sm_90a"]:
        binaries = pit.compile(build_matmul(ctx), target=chip, output="ptx")
        assert binaries, chip
        for name, ptx in binaries.items():
            assert name.startswith("sparse_matmul_kernel")
            assert f".target {chip}" in ptx


@needs_cuda
def test_cubin(ctx):
    binaries = pit.compile(build_matmul(ctx), target="sm_90", output="cubin")
    assert all(data[:4] == b"\x7fELF" for data in binaries.values())


@needs_cuda
def test_gpu_shared_library_exports_the_checked_entry(ctx, tmp_path):
    path = pit.compile(build_matmul(ctx), target="sm_90", path=tmp_path / "libmm.so")
    # No GPU (or driver) is needed to compile; loading needs libcuda, so the
    # exports are read with nm.
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(path)],
                             capture_output=True, text=True, check=True).stdout
    assert " T pit_sparse_matmul" in symbols and " T pit_manifest" in symbols


@pytest.mark.parametrize("arguments, message", [
    ({"target": "sm_70"}, "unknown target 'sm_70'"),
    ({"output": "object"}, "unknown output 'object'"),
    ({"target": "cpu", "output": "ptx"}, "CPU target compiles to a shared library only"),
    ({"candidate": -1}, "pit_loop and candidate are integers"),
])
def test_wrong_compile_arguments(ctx, arguments, message):
    with pytest.raises(ValueError, match=message):
        pit.compile(build_matmul(ctx), **arguments)


def test_pipeline_failures_raise_mlir_errors(ctx):
    with pytest.raises(pit.MLIRError, match="there is no candidate 4"):
        pit.compile(build_matmul(ctx), candidate=4)
    with pytest.raises(pit.MLIRError, match="loop 1 is not a PIT loop"):
        pit.compile(build_matmul(ctx), target="sm_90", output="ptx", pit_loop=1)


def test_invalid_module_is_refused_before_compiling(ctx):
    module = build_matmul(ctx)
    matmul = module.body.operations[0].regions[0].blocks[0].operations[0]
    matmul.set_attribute("pit.sparse", pit.SparseAttr.get(ctx, 0, [(48, 1)]).attribute)
    with pytest.raises(pit.MLIRError, match="does not divide"):
        pit.compile(module)


def test_functions_must_take_memrefs(ctx):
    module = pit.Module.parse(ctx, "func.func @f(%x: f32) {\n  return\n}")
    with pytest.raises(ValueError, match="argument 0 of 'f' has type f32"):
        pit.compile(module)


def test_a_result_that_is_a_new_tensor_is_refused(ctx):
    # The product goes into a new tensor, not into an argument: a C call has
    # nowhere to put it.
    module = pit.Module.parse(ctx, """
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}""")
    with pytest.raises(ValueError, match="'f' returns a value that is not written "
                                         "into one of its arguments"):
        pit.compile(module)


LEFT_ALONE = """
func.func @f(%a: memref<32x16xf32>, %b: memref<16x8xf32>, %c: memref<32x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<32x16xf32>, memref<16x8xf32>) outs(%c : memref<32x8xf32>)
      attrs = {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1]>} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %e = math.exp %x : f32
    %p = arith.mulf %e, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
"""


def test_left_alone_remarks_are_warnings(ctx):
    """exp(0) = 1: skipping A's zeros would change the result, so
    pit-sparsify leaves the op dense, and pit.compile says so."""
    module = pit.Module.parse(ctx, LEFT_ALONE)
    with pytest.warns(pit.CompileWarning, match="pit-sparsify: left alone, no rule") as caught:
        pit.compile(module, target="cpu")
    assert caught[0].filename == __file__


def test_a_sparse_matmul_compiles_without_warnings(ctx):
    with warnings.catch_warnings():
        warnings.simplefilter("error", pit.CompileWarning)
        pit.compile(build_matmul(ctx), target="cpu")


def half_matmul(ctx, sparse_operand):
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (128, 256), "f16"), pit.memref(ctx, (256, 128), "f16"),
             pit.memref(ctx, (128, 128), "f16")]
    with pit.Function(module, "f", types) as f:
        pit.matmul(f.builder, *f.arguments, sparse=(sparse_operand, [(32, 64)]))
    return module


def test_explain_says_what_each_marked_op_becomes(ctx):
    [cpu] = pit.explain(build_matmul(ctx), target="cpu").values()
    assert cpu["op"] == "linalg.matmul" and cpu["runs_on"] == "CPU"
    assert cpu["stiles"] == [{"micro_tile": [32, 1], "pit_axis": 2, "tile": [32, 32, 32],
                              "domain": [64, 32, 128]}]
    [dense] = pit.explain(pit.Module.parse(ctx, LEFT_ALONE), target="cpu").values()
    assert dense["runs_on"] == "dense" and not dense["stiles"]
    assert any("no rule" in remark for remark in dense["remarks"])
    [tensor_cores] = pit.explain(half_matmul(ctx, 0), target="sm_90a").values()
    assert tensor_cores["runs_on"] == "tensor cores"
    [simt] = pit.explain(half_matmul(ctx, 1), target="sm_90a").values()
    assert simt["runs_on"] == "SIMT"
    assert any("SIMT lowering" in remark for remark in simt["remarks"])


def test_explain_says_single_precision_runs_on_cuda_cores(ctx):
    [simt] = pit.explain(build_matmul(ctx), target="sm_90a").values()
    assert simt["stiles"] and simt["runs_on"] == "SIMT"
