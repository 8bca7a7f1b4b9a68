"""Pass managers from pipeline strings, and their errors."""

import pytest

import pit
from conftest import build_matmul


def test_sparsify_bare_and_anchored_pipelines(ctx):
    for pipeline in ["pit-sparsify", "builtin.module(pit-sparsify)"]:
        module = build_matmul(ctx)
        pit.PassManager(ctx, pipeline).run(module)
        text = str(module)
        assert "pit.detect" in text and "pit.stile" in text, pipeline


def test_pipeline_with_options_prints_back(ctx):
    manager = pit.PassManager(ctx, "pit-sparsify{candidate=1},canonicalize")
    assert "pit-sparsify{candidate=1" in str(manager)
    module = build_matmul(ctx)
    manager.run(module)
    assert "micro_tile [1, 64]" in str(module)


def test_cpu_pipeline_reaches_the_llvm_dialect(ctx):
    module = build_matmul(ctx)
    pit.PassManager(ctx, "pit-cpu-pipeline").run(module)
    assert "llvm.func @sparse_matmul" in str(module)


@pytest.mark.parametrize("pipeline, diagnostic", [
    ("no-such-pass", "'no-such-pass' does not refer to a registered pass"),
    ("pit-sparsify{no-such-option=1}", "no-such-option"),
    ("builtin.module(pit-sparsify", "wrapped with the anchor operation type"),
])
def test_bad_pipelines_raise(ctx, pipeline, diagnostic):
    with pytest.raises(pit.MLIRError) as error:
        pit.PassManager(ctx, pipeline)
    assert error.value.message == f"invalid pass pipeline '{pipeline}'"
    assert diagnostic in str(error.value)


def test_failing_pass_raises_with_diagnostics(ctx):
    module = build_matmul(ctx)
    with pytest.raises(pit.MLIRError) as error:
        pit.PassManager(ctx, "pit-sparsify{candidate=7}").run(module)
    assert error.value.message == "the pass pipeline failed"
    assert "candidate" in str(error.value)


def test_module_of_another_context_is_refused(ctx):
    manager = pit.PassManager(ctx, "canonicalize")
    with pytest.raises(ValueError, match="another context"):
        manager.run(build_matmul(pit.Context()))
