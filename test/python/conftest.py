"""Shared fixtures of the Python bindings' tests: a context, the README's
sparse matmul and an SDDMM built with the builders, and exact-count random
patterns."""

import numpy as np
import pytest

import pit

MATMUL_SHAPES = {"m": 64, "k": 128, "n": 32}
MICRO_TILES = [(32, 1), (1, 64)]


@pytest.fixture
def ctx():
    return pit.Context()


@pytest.fixture
def rng():
    """Fresh data at each run; pytest shows the seed of a failing test."""
    seed = np.random.SeedSequence().entropy % 2**32
    print(f"random seed {seed}")
    return np.random.default_rng(seed)


def build_matmul(ctx, m=MATMUL_SHAPES["m"], k=MATMUL_SHAPES["k"],
                 n=MATMUL_SHAPES["n"], dtype="f32", out_dtype=None,
                 micro_tiles=MICRO_TILES, name="sparse_matmul",
                 on_tensors=False):
    """C += A x B with A marked sparse, built with pit's builders; on
    tensors, the function returns the updated C."""
    module = pit.Module.create(ctx)
    shaped = pit.tensor if on_tensors else pit.memref
    types = [shaped(ctx, (m, k), dtype), shaped(ctx, (k, n), dtype),
             shaped(ctx, (m, n), out_dtype or dtype)]
    with pit.Function(module, name, types) as f:
        product = pit.matmul(f.builder, *f.arguments, sparse=(0, micro_tiles))
        if on_tensors:
            f.returns(product.results[0])
    return module


SDDMM_SHAPES = [(32, 8), (8, 64), (32, 64), (32, 64)]


def add_sddmm(module, ctx):
    """C += mask * (A x B) as a linalg.generic on f32 memrefs (A 32x8, B
    8x64, mask and C 32x64), the mask marked sparse in 1x16 micro-tiles."""
    def body(b, a, bb, mask, c):
        return [b.arith("addf", c, b.arith("mulf", mask, b.arith("mulf", a, bb)))]

    with pit.Function(module, "sddmm",
                      [pit.memref(ctx, s, "f32") for s in SDDMM_SHAPES]) as f:
        a, b, mask, c = f.arguments
        pit.generic(f.builder, [a, b, mask], [c],
                    ["(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)",
                     "(d0, d1, d2) -> (d0, d1)", "(d0, d1, d2) -> (d0, d1)"],
                    ["parallel", "parallel", "reduction"], body,
                    sparse=(2, [(1, 16)]))


def sparsify(rng, x, micro_tile, sparsity):
    """Zeroes exactly round(sparsity * count) random micro-tiles of x."""
    grid = [extent // tile for extent, tile in zip(x.shape, micro_tile)]
    count = int(np.prod(grid))
    keep = np.ones(count, dtype=x.dtype)
    keep[rng.permutation(count)[:round(sparsity * count)]] = 0
    mask = keep.reshape(grid)
    for axis, tile in enumerate(micro_tile):
        mask = np.repeat(mask, tile, axis=axis)
    return x * mask


def relative_error(actual, expected):
    norm = np.linalg.norm(expected)
    return np.linalg.norm(actual.astype(np.float64) - expected) / (norm if norm else 1.0)
