"""Shared fixtures of the Python bindings' tests: a context, the README's
sparse matmul built with the builders, and exact-count random patterns."""

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
                 micro_tiles=MICRO_TILES, name="sparse_matmul"):
    """C += A x B with A marked sparse, built with pit's builders."""
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (m, k), dtype), pit.memref(ctx, (k, n), dtype),
             pit.memref(ctx, (m, n), out_dtype or dtype)]
    with pit.Function(module, name, types) as f:
        pit.matmul(f.builder, *f.arguments, sparse=(0, micro_tiles))
    return module


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
