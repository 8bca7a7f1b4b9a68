"""pit.torch and pit.nn on CPU tensors, through the CPU lowering: results
against float64 references on fresh random data, gradients (gradcheck and
the sparse operand's restricted gradient), torch.compile without graph
breaks, the disk cache across processes, ahead-of-time compiles for a GPU,
and the errors a wrong call gets."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
import torch

import pit
import pit.kernel_cache
import pit.nn
import pit.torch as pt

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "GPU"))
from check_torch import tile_mask as gpu_tile_mask  # noqa: E402

F64 = torch.float64


@pytest.fixture(autouse=True, scope="module")
def cache_dir(tmp_path_factory):
    """A disk cache of the tests' own: they compile what they call."""
    directory = tmp_path_factory.mktemp("pit-cache")
    previous = os.environ.get(pit.kernel_cache.CACHE_DIR_VARIABLE)
    os.environ[pit.kernel_cache.CACHE_DIR_VARIABLE] = str(directory)
    yield directory
    if previous is None:
        del os.environ[pit.kernel_cache.CACHE_DIR_VARIABLE]
    else:
        os.environ[pit.kernel_cache.CACHE_DIR_VARIABLE] = previous


@pytest.fixture
def generator():
    seed = torch.seed()
    print(f"torch seed {seed}")
    return torch.Generator().manual_seed(seed)


def tile_mask(generator, shape, micro_tile, sparsity):
    """0/1 of `shape` (whole micro-tiles or not) with round(sparsity * count)
    of its micro-tiles zero: the GPU check's, in float64."""
    return gpu_tile_mask(torch, generator, shape, micro_tile, sparsity).to(F64)


def randn(generator, *shape, dtype=F64, requires_grad=False):
    return torch.randn(*shape, generator=generator, dtype=dtype).requires_grad_(requires_grad)


def relative_error(actual, expected):
    return ((actual.double() - expected).norm() / expected.norm()).item()


@pytest.mark.parametrize("sparse,micro_tile", [("a", (32, 1)), ("b", (1, 32)), ("a", (16, 16))])
@pytest.mark.parametrize("sparsity", [0.5, 0.9])
def test_sparse_matmul_against_float64(generator, sparse, micro_tile, sparsity):
    a = randn(generator, 64, 128, dtype=torch.float32)
    b = randn(generator, 128, 48, dtype=torch.float32)
    if sparse == "a":
        a = a * tile_mask(generator, a.shape, micro_tile, sparsity).float()
    else:
        b = b * tile_mask(generator, b.shape, micro_tile, sparsity).float()
    c = pt.sparse_matmul(a, b, sparse=sparse, micro_tiles=[micro_tile])
    assert c.shape == (64, 48) and c.dtype == torch.float32
    assert relative_error(c, a.double() @ b.double()) < 1e-6


@pytest.mark.parametrize("shape_a,shape_b", [((0, 64), (64, 32)), ((32, 0), (0, 16)),
                                             ((32, 64), (64, 0))])
def test_empty_operands_give_torch_results(shape_a, shape_b):
    """As torch.matmul: empty rows or columns give an empty result, an empty
    k a zero one, with gradients of the operands' shapes; no call is made
    (PIT's functions refuse empty arrays)."""
    a = torch.ones(shape_a, requires_grad=True)
    b = torch.ones(shape_b, requires_grad=True)
    c = pt.sparse_matmul(a, b, micro_tiles=[(32, 1)])
    expected = a.detach() @ b.detach()
    assert c.shape == expected.shape and torch.equal(c, expected)
    c.sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


@pytest.mark.parametrize("sparse", ["weight", "input"])
def test_sparse_linear_on_shapes_not_whole_micro_tiles(generator, sparse):
    """Rows, in and out features none of them multiples of the micro-tile:
    the operands are padded with zeros, which the kernel skips."""
    x = randn(generator, 3, 20, 100)
    weight = randn(generator, 72, 100)
    bias = randn(generator, 72)
    if sparse == "weight":
        weight = weight * tile_mask(generator, weight.shape, (32, 64), 0.5)
    else:
        x = torch.relu(x)
    y = pt.sparse_linear(x, weight, bias, sparse=sparse, micro_tiles=[(32, 64)])
    assert y.shape == (3, 20, 72)
    assert relative_error(y, torch.nn.functional.linear(x, weight, bias)) < 1e-12


def test_sddmm_against_float64(generator):
    a, b = randn(generator, 64, 32), randn(generator, 32, 96)
    mask = tile_mask(generator, (64, 96), (1, 16), 0.7)
    c = pt.sddmm(a, b, mask, micro_tiles=[(1, 16)])
    assert relative_error(c, mask * (a @ b)) < 1e-12


def test_gradcheck(generator):
    """Each op's backward (SDDMMs and sparse matmuls of PIT) against finite
    differences, with the sparse operand a masked parameter: the masked
    gradient is then the exact one."""
    mask_a = tile_mask(generator, (64, 32), (32, 1), 0.5)
    a, b = randn(generator, 64, 32, requires_grad=True), randn(generator, 32, 16, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda a, b: pt.sparse_matmul(a * mask_a, b, micro_tiles=[(32, 1)]), (a, b),
        fast_mode=True)
    mask_b = tile_mask(generator, (32, 16), (1, 16), 0.5)
    assert torch.autograd.gradcheck(
        lambda a, b: pt.sparse_matmul(a, b * mask_b, sparse="b", micro_tiles=[(1, 16)]),
        (a, b), fast_mode=True)
    x = randn(generator, 2, 16, 64, requires_grad=True)
    weight, bias = randn(generator, 48, 64, requires_grad=True), randn(generator, 48, requires_grad=True)
    mask_w = tile_mask(generator, (48, 64), (16, 16), 0.5)
    assert torch.autograd.gradcheck(
        lambda x, w, bias: pt.sparse_linear(x, w * mask_w, bias, micro_tiles=[(16, 16)]),
        (x, weight, bias), fast_mode=True)
    # A mask of any values: the weight's gradient is mask * (dy^T x).
    scaled_mask = mask_w * randn(generator, 48, 64)
    assert torch.autograd.gradcheck(
        lambda x, w, bias: pt.sparse_linear(x, w, bias, micro_tiles=[(16, 16)],
                                            mask=scaled_mask),
        (x, weight, bias), fast_mode=True)
    assert torch.autograd.gradcheck(
        lambda x, w, bias: pt.sparse_linear(torch.relu(x), w, bias, sparse="input",
                                            micro_tiles=[(1, 32)]),
        (x, weight, bias), fast_mode=True)
    mask_c = tile_mask(generator, (64, 16), (1, 16), 0.5)
    assert torch.autograd.gradcheck(
        lambda a, b: pt.sddmm(a, b, mask_c, micro_tiles=[(1, 16)]), (a, b), fast_mode=True)


def test_sparse_operand_gradient_is_restricted_to_its_non_zeros(generator):
    """As torch.sparse does: dA is dC B^T where A is non-zero, 0 elsewhere."""
    a = (randn(generator, 64, 32) * tile_mask(generator, (64, 32), (32, 1), 0.5)).requires_grad_()
    b = randn(generator, 32, 16, requires_grad=True)
    grad = randn(generator, 64, 16)
    pt.sparse_matmul(a, b, micro_tiles=[(32, 1)]).backward(grad)
    dense = grad @ b.detach().t()
    assert torch.equal(a.grad == 0, a.detach() == 0)
    assert relative_error(a.grad, dense * (a.detach() != 0)) < 1e-12
    assert relative_error(b.grad, a.detach().t() @ grad) < 1e-12


def test_torch_compile_traces_without_graph_break(generator):
    weight = (randn(generator, 48, 64) * tile_mask(generator, (48, 64), (16, 16), 0.5))
    weight.requires_grad_()
    x = randn(generator, 32, 64, requires_grad=True)

    def block(x, weight):
        return pt.sparse_linear(x, weight, micro_tiles=[(16, 16)]).relu().square().sum()

    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    loss = compiled(x, weight)
    loss.backward()
    compiled_grads = x.grad.clone(), weight.grad.clone()
    x.grad = weight.grad = None
    expected = block(x, weight)
    expected.backward()
    assert relative_error(loss, expected.detach()) < 1e-12
    assert relative_error(compiled_grads[0], x.grad) < 1e-12
    assert relative_error(compiled_grads[1], weight.grad) < 1e-12


@pytest.mark.parametrize("compiled", [False, True])
def test_masked_weight_gets_the_masked_layers_gradient(generator, compiled):
    """With a mask, a weight element that is exactly zero inside the mask
    still learns, as in the dense layer on W * mask; eager and traced."""
    mask = tile_mask(generator, (48, 64), (16, 16), 0.5)
    weight = randn(generator, 48, 64)
    rows, columns = (mask != 0).nonzero()[::3].t()
    weight[rows, columns] = 0
    weight.requires_grad_()
    bias = randn(generator, 48, requires_grad=True)
    x = randn(generator, 2, 16, 64, requires_grad=True)
    grad = randn(generator, 2, 16, 48)

    def layer(x, weight, bias):
        return pt.sparse_linear(x, weight, bias, micro_tiles=[(16, 16)], mask=mask)
    if compiled:
        layer = torch.compile(layer, fullgraph=True, backend="aot_eager")
    got = torch.autograd.grad(layer(x, weight, bias), [x, weight, bias], grad)
    y = torch.nn.functional.linear(x, weight * mask, bias)
    expected = torch.autograd.grad(y, [x, weight, bias], grad)
    for actual, want in zip(got, expected):
        assert relative_error(actual, want) < 1e-12
    assert torch.all(got[1][mask == 0] == 0) and torch.all(got[1][rows, columns] != 0)


RUN_FROM_CACHE = textwrap.dedent("""
    import sys, torch, pit.kernel_cache, pit.torch
    if sys.argv[1] == "cached":
        def refuse(*args):
            raise AssertionError("compiled, but the disk cache had the library")
        pit.kernel_cache._compile_into = refuse
    a = torch.arange(64 * 32, dtype=torch.float64).reshape(64, 32) % 7
    b = torch.ones(32, 8, dtype=torch.float64)
    print(float(pit.torch.sparse_matmul(a, b, micro_tiles=[(32, 1)]).sum()))
""")


def test_disk_cache_serves_later_processes(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
               **{pit.kernel_cache.CACHE_DIR_VARIABLE: str(tmp_path)})

    def run(mode):
        return subprocess.run([sys.executable, "-c", RUN_FROM_CACHE, mode], env=env,
                              capture_output=True, text=True, check=True).stdout

    first = run("compile")
    entries = tmp_path / pit.kernel_cache.compiler_version()
    assert len(list(entries.glob("*.so"))) == 1 and len(list(entries.glob("*.mlir"))) == 1
    assert run("cached") == first == f"{float((torch.arange(64 * 32) % 7).sum() * 8)}\n"


def test_runtime_only_package_runs_cached_kernels(tmp_path, cache_dir):
    """A copy of the package without the compiler extension (a GPU machine
    without LLVM) runs what the cache holds, and names what it lacks."""
    pit.kernel_cache.copy_runtime_package(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(tmp_path),
               **{pit.kernel_cache.CACHE_DIR_VARIABLE: str(cache_dir)})
    a = torch.arange(64 * 32, dtype=F64).reshape(64, 32) % 7
    expected = pt.sparse_matmul(a, torch.ones(32, 8, dtype=F64), micro_tiles=[(32, 1)])
    ran = subprocess.run([sys.executable, "-c", RUN_FROM_CACHE, "runtime only"], env=env,
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert float(ran.stdout) == float(expected.sum())
    env[pit.kernel_cache.CACHE_DIR_VARIABLE] = str(tmp_path / "empty")
    ran = subprocess.run([sys.executable, "-c", RUN_FROM_CACHE, "runtime only"], env=env,
                         capture_output=True, text=True)
    assert ran.returncode != 0
    assert "cannot compile it" in ran.stderr and "target cpu" in ran.stderr


def test_cache_key_covers_target_and_compiler_version(monkeypatch):
    source = "func.func @kernel() { return }"
    key = pit.kernel_cache.entry_key(source, "cpu", {})
    assert pit.kernel_cache.entry_key(source, "sm_90a", {}) != key
    assert pit.kernel_cache.entry_key(source + " ", "cpu", {}) != key
    monkeypatch.setattr(pit.kernel_cache, "compiler_version", lambda: "another")
    assert pit.kernel_cache.entry_key(source, "cpu", {}) != key


def test_ahead_of_time_compiles_a_gpu_models_kernels(cache_dir):
    """Forward and backward on meta tensors compile what an H100 would run:
    the forward, the SDDMM of the weight's gradient, the input's gradient
    (for either layout of the incoming gradient) and the transposes of the
    operands, and put the CUDA runtime beside them."""
    entries = cache_dir / pit.kernel_cache.compiler_version()
    before = set(entries.glob("*.so"))
    layer = pit.nn.SparseLinear(128, 64, micro_tiles=[(32, 64)], device="meta",
                                dtype=torch.float16)
    x = torch.empty(256, 128, device="meta", dtype=torch.float16, requires_grad=True)
    with pt.ahead_of_time("sm_90a"):
        layer(x).sum().backward()
    written = set(entries.glob("*.so")) - before
    kernels = [path for path in written if path.name != "libpit_cuda_runtime.so"]
    assert (entries / "libpit_cuda_runtime.so").exists()
    sources = [path.with_suffix(".mlir").read_text() for path in kernels]
    assert sum("linalg.generic" in source for source in sources) == 1
    assert sum("linalg.matmul" in source for source in sources) == 3
    assert sum("linalg.transpose" in source for source in sources) == len(sources) - 4 == 5


def test_sparse_linear_module_trains_with_a_mask_changed_every_step(generator):
    layer = pit.nn.SparseLinear(64, 32, micro_tiles=[(16, 16)], dtype=F64)
    target = randn(generator, 32, 64)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.05)
    x = randn(generator, 48, 64)
    losses = []
    for step in range(8):
        mask = tile_mask(generator, (32, 64), (16, 16), 0.5)
        layer.set_mask(mask)
        loss = (layer(x) - x @ target.t()).square().mean()
        optimizer.zero_grad()
        loss.backward()
        assert torch.all(layer.weight.grad[mask == 0] == 0)
        optimizer.step()
        losses.append(loss.item())
    layer.set_mask(None)
    full = (layer(x) - x @ target.t()).square().mean().item()
    assert losses[-1] < losses[0] and full < losses[0]


@pytest.mark.parametrize("call,message", [
    (lambda a, b: pt.sparse_matmul(a, b, sparse="c"), "sparse is 'a' or 'b'"),
    (lambda a, b: pt.sparse_matmul(a, b.t()), "must agree"),
    (lambda a, b: pt.sparse_matmul(a, b.float()), "one dtype and one device"),
    (lambda a, b: pt.sparse_matmul(a.bfloat16(), b.bfloat16()), "numpy has no bfloat16"),
    (lambda a, b: pt.sparse_matmul(a, b, micro_tiles=[(32, 0)]), "positive integers"),
    (lambda a, b: pt.sparse_matmul(a[0], b), "has 1 dimensions"),
    (lambda a, b: pt.sparse_matmul(a.int(), b.int()), "expects one of"),
    (lambda a, b: pt.sparse_linear(a, b, sparse="both"), "'weight' or 'input'"),
    (lambda a, b: pt.sddmm(a, b, a), "the product's shape"),
])
def test_wrong_calls_get_clear_errors(call, message):
    a, b = torch.ones(32, 16, dtype=F64), torch.ones(16, 8, dtype=F64)
    with pytest.raises(pit.ArgumentError, match=message):
        call(a, b)


def test_module_mask_of_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="expects the weight's"):
        pit.nn.SparseLinear(16, 8).set_mask(torch.ones(16, 8))


def test_gpu_programs_take_whole_tensor_core_blocks(cache_dir):
    """On a GPU, n (and an SDDMM's k) are padded to whole blocks of 64,
    which the tensor-core kernels take (others run on CUDA cores)."""
    entries = cache_dir / pit.kernel_cache.compiler_version()
    before = set(entries.glob("*.mlir"))
    a = torch.empty(64, 100, device="meta", dtype=torch.float16)
    b = torch.empty(100, 72, device="meta", dtype=torch.float16)
    with pt.ahead_of_time("sm_90a"):
        pt.sparse_matmul(a, b, micro_tiles=[(32, 1)])
    [source] = [path.read_text() for path in set(entries.glob("*.mlir")) - before
                if "linalg.matmul" in path.read_text()]
    assert "%b: memref<100x128xf16>" in source and "%c: memref<64x128xf16>" in source
    # One-row micro-tiles gather rows along m and add them into f32.
    before = set(entries.glob("*.mlir"))
    with pt.ahead_of_time("sm_90a"):
        pt.sparse_matmul(a, b, micro_tiles=[(1, 32)])
    [source] = [path.read_text() for path in set(entries.glob("*.mlir")) - before
                if "linalg.matmul" in path.read_text()]
    assert "%c: memref<64x128xf32>" in source


def test_results_take_in_place_ops(generator):
    """The ops' results are tensors of their own (a crop of a padded result
    is copied out), so that they and their views take in-place ops, as
    nn.Linear's do (nn.ReLU(inplace=True) after a layer)."""
    x = randn(generator, 2, 10, 100, requires_grad=True)
    for sparse in ("input", "weight"):
        layer = pit.nn.SparseLinear(100, 72, bias=False, sparse=sparse,
                                    micro_tiles=[(32, 64)], dtype=F64)
        y = layer(torch.relu(x))
        y.relu_()
        y.sum().backward()
    c = pt.sparse_matmul(randn(generator, 40, 100, requires_grad=True), randn(generator, 100, 8),
                         micro_tiles=[(32, 1)])
    c.mul_(2).sum().backward()


def test_module_with_a_mask_round_trips_through_its_state_dict(generator):
    layer = pit.nn.SparseLinear(64, 32, micro_tiles=[(16, 16)], dtype=F64)
    layer.set_mask(tile_mask(generator, (32, 64), (16, 16), 0.5))
    fresh = pit.nn.SparseLinear(64, 32, micro_tiles=[(16, 16)], dtype=F64)
    fresh.load_state_dict(layer.state_dict())
    assert torch.equal(fresh.mask, layer.mask) and torch.equal(fresh.weight, layer.weight)


def test_wrong_bias_and_a_mask_requiring_grad_are_refused():
    x, w = torch.ones(8, 16, dtype=F64), torch.ones(4, 16, dtype=F64)
    with pytest.raises(pit.ArgumentError, match="bias is torch.float32"):
        pt.sparse_linear(x, w, torch.ones(4))
    mask = torch.ones(8, 4, dtype=F64, requires_grad=True)
    with pytest.raises(pit.ArgumentError, match="mask.detach"):
        pt.sddmm(x, w.t(), mask)
    with pytest.raises(pit.ArgumentError, match="mask.detach"):
        pt.sparse_linear(x, w, mask=torch.ones_like(w).requires_grad_())
    with pytest.raises(pit.ArgumentError, match=r"mask is torch.float32\[4, 16\]"):
        pt.sparse_linear(x, w, mask=torch.ones(4, 16))
