"""Compiled programs called on numpy arrays through the CPU lowering, on
fresh random data with a fresh exact-count pattern at every call, against
numpy in float64."""

import pathlib

import numpy as np
import pytest

import pit
from conftest import add_sddmm, build_matmul, relative_error, sparsify

SPARSITIES = [0.0, 0.5, 0.9, 0.99, 1.0]


@pytest.fixture(scope="module")
def matmul_libraries():
    """The README's matmul compiled for both candidates: 32x1 (gathered along
    k) and 1x64 (gathered along m)."""
    ctx = pit.Context()
    return {tile: pit.load(pit.compile(build_matmul(ctx), candidate=candidate))
            for candidate, tile in enumerate([(32, 1), (1, 64)])}


def uniform(rng, *shape, dtype=np.float32):
    return rng.uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize("micro_tile", [(32, 1), (1, 64)])
def test_matmul_against_numpy(matmul_libraries, rng, micro_tile):
    library = matmul_libraries[micro_tile]
    for sparsity in SPARSITIES:
        for _ in range(2):
            a = sparsify(rng, uniform(rng, 64, 128), micro_tile, sparsity)
            b, c = uniform(rng, 128, 32), uniform(rng, 64, 32)
            expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
            library.sparse_matmul(a, b, c)
            assert relative_error(c, expected) < 1e-5, (micro_tile, sparsity)


def test_half_precision_matmul(ctx, rng):
    # f16 A, B and C. The CPU lowering runs the body as written, adding in
    # f16 (the tensor-core kernels accumulate in f32 and round once: the
    # GPU check's *_f16c cases): about 1e-3 of error over 128 terms, where
    # a wrong result is off by tens of percent.
    for candidate, micro_tile in enumerate([(32, 1), (1, 64)]):
        library = pit.load(pit.compile(build_matmul(ctx, dtype="f16"),
                                       candidate=candidate))
        for sparsity in SPARSITIES:
            a = sparsify(rng, uniform(rng, 64, 128, dtype=np.float16),
                         micro_tile, sparsity)
            b = uniform(rng, 128, 32, dtype=np.float16)
            c = uniform(rng, 64, 32, dtype=np.float16)
            expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
            library.sparse_matmul(a, b, c)
            assert relative_error(c, expected) < 5e-3, (micro_tile, sparsity)


def test_tensor_function_writes_its_result_into_the_output(ctx, rng):
    # On tensors the function returns the updated C; compiled, it writes it
    # into the argument C, as the memref form does.
    library = pit.load(pit.compile(
        build_matmul(ctx, micro_tiles=[(32, 1)], on_tensors=True)))
    for sparsity in SPARSITIES:
        a = sparsify(rng, uniform(rng, 64, 128), (32, 1), sparsity)
        b, c = uniform(rng, 128, 32), uniform(rng, 64, 32)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        library.sparse_matmul(a, b, c)
        assert relative_error(c, expected) < 1e-5, sparsity


def test_integer_matmul_is_exact(ctx, rng):
    library = pit.load(pit.compile(build_matmul(ctx, dtype="i32", micro_tiles=[(32, 1)])))
    for sparsity in SPARSITIES:
        a = sparsify(rng, rng.integers(-50, 50, (64, 128), dtype=np.int32), (32, 1), sparsity)
        b = rng.integers(-50, 50, (128, 32), dtype=np.int32)
        c = rng.integers(-50, 50, (64, 32), dtype=np.int32)
        expected = c.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)
        library.sparse_matmul(a, b, c)
        assert np.array_equal(c, expected), sparsity


def test_batch_matmul_and_sddmm(ctx, rng):
    module = pit.Module.create(ctx)
    with pit.Function(module, "bmm", [pit.memref(ctx, s, "f32") for s in
                                      [(3, 32, 64), (3, 64, 16), (3, 32, 16)]]) as f:
        pit.batch_matmul(f.builder, *f.arguments, sparse=(0, [(1, 32, 1)]))

    add_sddmm(module, ctx)
    library = pit.load(pit.compile(module))
    for sparsity in SPARSITIES:
        a = sparsify(rng, uniform(rng, 3, 32, 64), (1, 32, 1), sparsity)
        b, c = uniform(rng, 3, 64, 16), uniform(rng, 3, 32, 16)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        library.bmm(a, b, c)
        assert relative_error(c, expected) < 1e-5, ("bmm", sparsity)

        a, b = uniform(rng, 32, 8), uniform(rng, 8, 64)
        mask = sparsify(rng, uniform(rng, 32, 64), (1, 16), sparsity)
        c = uniform(rng, 32, 64)
        expected = c.astype(np.float64) + mask.astype(np.float64) * (
            a.astype(np.float64) @ b.astype(np.float64))
        library.sddmm(a, b, mask, c)
        assert relative_error(c, expected) < 1e-5, ("sddmm", sparsity)


def test_run_time_selection_is_exact_on_every_pattern(ctx, rng):
    # The lit tests' made-up STile database has the 64x64x64 f32 matmul:
    # 8x1 and 8x16 candidates and dense. Coarse, fine and dense patterns
    # take different cases of the switch; each must match numpy.
    table = pathlib.Path(__file__).resolve().parent.parent / "Inputs" / "latency-table.json"
    module = build_matmul(ctx, m=64, k=64, n=64, micro_tiles=[(8, 1), (8, 16)])
    library = pit.load(pit.compile(module, latency_table=table))
    for micro_tile, sparsity in [((8, 16), 0.9), ((8, 1), 0.9), ((8, 1), 0.1)]:
        a = sparsify(rng, uniform(rng, 64, 64), micro_tile, sparsity)
        b, c = uniform(rng, 64, 64), uniform(rng, 64, 64)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        library.sparse_matmul(a, b, c)
        assert relative_error(c, expected) < 1e-5, (micro_tile, sparsity)


def test_missing_latency_table_is_refused(ctx):
    with pytest.raises(ValueError, match="latency_table: no such file"):
        pit.compile(build_matmul(ctx), latency_table="/no/such/table.json")


def test_dynamic_rows(ctx, rng):
    # One library for A of ?x512 (C += A x B, A marked sparse): every call
    # takes its own M. The analysis has no rule for dynamic loop ranges, so
    # the op stays dense, says so, and must still be right at every M.
    with pytest.warns(pit.CompileWarning, match="loop ranges are not static"):
        library = pit.load(pit.compile(build_matmul(ctx, m=None, k=512, n=16)))
    assert "f32[?, 512]" in repr(library.sparse_matmul)
    for m in [100, 1000, 4096]:
        rows = -(-m // 32) * 32  # whole 32x1 micro-tiles, then cut to m
        a = np.ascontiguousarray(
            sparsify(rng, uniform(rng, rows, 512), (32, 1), 0.9)[:m])
        b, c = uniform(rng, 512, 16), uniform(rng, m, 16)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        library.sparse_matmul(a, b, c)
        assert relative_error(c, expected) < 1e-5, m
    # A's rows and C's rows are one loop: a call where they differ is
    # refused before it runs (the loops would write past C).
    with pytest.raises(pit.ArgumentError, match=r"extent 0 of argument 2 is 32, "
                       r"but extent 0 of argument 0 is 64"):
        library.sparse_matmul(uniform(rng, 64, 512), uniform(rng, 512, 16),
                              uniform(rng, 32, 16))
    # The static extents are still checked.
    with pytest.raises(pit.ArgumentError, match=r"expects shape \[\?, 512\]"):
        library.sparse_matmul(uniform(rng, 64, 256), uniform(rng, 512, 16),
                              uniform(rng, 64, 16))
