"""pit.torch's ops and pit.nn.SparseLinear on the GPU against dense autograd
in float64, forward and backward, in two steps:

    # here (the compiler): compile every case's kernels for sm_90a into
    # DIR/cache, and put the runtime-only package in DIR/pit
    PYTHONPATH=build/python_packages .venv/bin/python test/GPU/check_torch.py prepare DIR

    # on the GPU machine (torch, no compiler): run and check
    python3 DIR/check_torch.py run DIR

The prepare step runs the same cases on meta tensors within
pit.torch.ahead_of_time, so the run step finds every kernel in the cache;
a kernel missing there is a failure that names it.
"""

import os
import pathlib
import shutil
import sys
import time

TARGET = "sm_90a"
SPARSITY = 0.9


def tile_mask(torch, generator, shape, micro_tile, sparsity):
    grid = [-(-extent // tile) for extent, tile in zip(shape, micro_tile)]
    count = grid[0] * grid[1]
    keep = torch.ones(count)
    keep[torch.randperm(count, generator=generator)[:round(sparsity * count)]] = 0
    mask = keep.reshape(grid)
    for dim, tile in enumerate(micro_tile):
        mask = mask.repeat_interleave(tile, dim)
    return mask[:shape[0], :shape[1]]


def cases(torch):
    """(name, dtype, fn(make) -> (outputs, reference outputs)); make(shape,
    mask=None) gives an input on the case's device and its float64 copy."""
    import pit.nn
    import pit.torch as pt

    def matmul_a(make, micro_tile, m, k, n):
        a, a64 = make((m, k), micro_tile)
        b, b64 = make((k, n))
        return pt.sparse_matmul(a, b, micro_tiles=[micro_tile]), a64 @ b64, [(a, a64), (b, b64)]

    def matmul_b(make, micro_tile, m, k, n):
        a, a64 = make((m, k))
        b, b64 = make((k, n), micro_tile)
        return (pt.sparse_matmul(a, b, sparse="b", micro_tiles=[micro_tile]), a64 @ b64,
                [(a, a64), (b, b64)])

    def linear(make, micro_tile, m, k, n, sparse):
        x, x64 = make((m, k), micro_tile if sparse == "input" else None)
        w, w64 = make((n, k), micro_tile if sparse == "weight" else None)
        bias, bias64 = make((n,))
        y = pt.sparse_linear(x.view(2, m // 2, k), w, bias, sparse=sparse,
                             micro_tiles=[micro_tile])
        y64 = torch.nn.functional.linear(x64.view(2, m // 2, k), w64, bias64)
        return y, y64, [(x, x64), (w, w64), (bias, bias64)]

    def module(make, micro_tile, m, k, n):
        layer = pit.nn.SparseLinear(k, n, micro_tiles=[micro_tile])
        x, x64 = make((m, k))
        weight, weight64 = make((n, k))
        bias, bias64 = make((n,))
        mask, mask64 = make((n, k), micro_tile, values=False)
        layer.weight, layer.bias = torch.nn.Parameter(weight), torch.nn.Parameter(bias)
        layer.set_mask(mask)
        reference = torch.nn.functional.linear(x64, weight64 * mask64, bias64)
        return layer(x), reference, [(x, x64), (layer.weight, weight64), (layer.bias, bias64)]

    def sddmm(make, micro_tile, m, k, n):
        a, a64 = make((m, k))
        b, b64 = make((k, n))
        mask, mask64 = make((m, n), micro_tile, values=False)
        return (pt.sddmm(a, b, mask, micro_tiles=[micro_tile]), mask64 * (a64 @ b64),
                [(a, a64), (b, b64)])

    f16, bf16 = torch.float16, torch.bfloat16
    return [
        ("matmul_a_32x1_f16", f16, lambda make: matmul_a(make, (32, 1), 512, 1024, 384)),
        ("matmul_a_32x64_bf16", bf16, lambda make: matmul_a(make, (32, 64), 256, 512, 256)),
        ("matmul_b_32x64_f16", f16, lambda make: matmul_b(make, (32, 64), 256, 512, 384)),
        ("linear_weight_32x64_f16", f16, lambda make: linear(make, (32, 64), 512, 1024, 768, "weight")),
        ("linear_weight_32x1_bf16", bf16, lambda make: linear(make, (32, 1), 256, 512, 384, "weight")),
        ("linear_input_1x64_f16", f16, lambda make: linear(make, (1, 64), 512, 1024, 256, "input")),
        ("linear_input_ragged_32x64_f16", f16, lambda make: linear(make, (32, 64), 200, 1000, 136, "input")),
        ("module_32x64_f16", f16, lambda make: module(make, (32, 64), 384, 512, 256)),
        ("sddmm_32x1_f16", f16, lambda make: sddmm(make, (32, 1), 256, 128, 512)),
    ]


def check_case(torch, name, dtype, build, device, seed):
    """Runs one case on `device`; returns the largest relative error of the
    output and of every input's gradient (None on meta)."""
    generator = torch.Generator().manual_seed(seed)

    def make(shape, micro_tile=None, values=True):
        data = torch.randn(*shape, generator=generator, dtype=torch.float64) if values \
            else torch.ones(*shape, dtype=torch.float64)
        if micro_tile is not None:
            data = data * tile_mask(torch, generator, shape, micro_tile, SPARSITY).double()
        data = data.to(dtype)
        on_device = data.to(device).requires_grad_(values)
        return on_device, data.double().requires_grad_(values)

    output, reference, inputs = build(make)
    grad = torch.randn(*output.shape, generator=generator, dtype=torch.float64).to(dtype)
    output.backward(grad.to(device))
    reference.backward(grad.double())
    if device == "meta":
        return None
    errors = [relative_error(torch, output, reference)]
    for tensor, tensor64 in inputs:
        expected = tensor64.grad
        if name.startswith("matmul_a") and tensor is inputs[0][0] or \
                name.startswith("matmul_b") and tensor is inputs[1][0] or \
                "input" in name and tensor is inputs[0][0] or \
                "weight" in name and tensor is inputs[1][0]:
            # The sparse operand's gradient keeps its non-zeros only.
            expected = expected * (tensor64.detach() != 0)
        errors.append(relative_error(torch, tensor.grad, expected))
    return max(errors)


def relative_error(torch, actual, expected):
    expected = expected.detach()
    return ((actual.detach().double().cpu() - expected).norm() / expected.norm()).item()


def check_graphed_step(torch):
    """A SparseLinear step captured in a CUDA graph (torch.cuda.graph) and
    replayed on new inputs and a new mask, copied into the captured
    tensors: the detection runs in the graph, so each replay skips the
    micro-tiles of its own mask. Against float64 autograd on the CPU."""
    import pit.nn

    generator = torch.Generator().manual_seed(2)
    # The module case's shape: its kernels are the ones prepared.
    (m, k, n), micro_tile, f16 = (384, 512, 256), (32, 64), torch.float16
    layer = pit.nn.SparseLinear(k, n, micro_tiles=[micro_tile], device="cuda", dtype=f16)
    layer.set_mask(torch.ones(n, k))
    x = torch.zeros(m, k, device="cuda", dtype=f16, requires_grad=True)
    grad = torch.zeros(m, n, device="cuda", dtype=f16)

    def step():
        y = layer(x)
        return (y, *torch.autograd.grad(y, [x, layer.weight, layer.bias], grad))
    step = graphed_step(torch, step)
    errors = []
    for _ in range(2):
        mask = tile_mask(torch, generator, (n, k), micro_tile, SPARSITY)
        values = [torch.randn(*shape, generator=generator).to(f16) for shape in ((m, k), (m, n))]
        for target, value in zip((layer.mask, x, grad), [mask.to(f16)] + values):
            target.detach().copy_(value)
        results = [tensor.detach().double().cpu() for tensor in step()]
        x64, grad64 = (value.double() for value in values)
        x64.requires_grad_()
        weight64, bias64 = (tensor.detach().double().cpu().requires_grad_()
                            for tensor in (layer.weight, layer.bias))
        y64 = torch.nn.functional.linear(x64, weight64 * mask.double(), bias64)
        expected = [y64, *torch.autograd.grad(y64, [x64, weight64, bias64], grad64)]
        errors += [relative_error(torch, got, want) for got, want in zip(results, expected)]
    passed = max(errors) < 5e-3
    print(f"SparseLinear step in a CUDA graph, replayed on 2 masks: largest relative "
          f"error {max(errors):.2e} {'PASS' if passed else 'FAIL'}")
    return passed


def graphed_step(torch, step):
    """`step` captured in a CUDA graph after a warm-up on a side stream (as
    torch.cuda.graph asks); returns a function that replays it and returns
    the captured outputs."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = step()

    def replay():
        graph.replay()
        return outputs
    return replay


def check_pit_compile_library(torch, directory):
    """pit.load calls a library that pit-compile made (the README's C +=
    A x B, f32), from its manifest, as it calls pit.compile's."""
    import pit

    library = pit.load(directory / "libsparse_matmul.so")
    generator = torch.Generator().manual_seed(1)
    (_, a_shape), (_, b_shape), (_, c_shape) = library.sparse_matmul.args
    a = torch.randn(*a_shape, generator=generator, dtype=torch.float64)
    a = a * tile_mask(torch, generator, a_shape, (32, 1), SPARSITY).double()
    b = torch.randn(*b_shape, generator=generator, dtype=torch.float64)
    c = torch.randn(*c_shape, generator=generator, dtype=torch.float64)
    expected = c + a @ b
    on_gpu = [tensor.float().cuda() for tensor in (a, b, c)]
    library.sparse_matmul(*on_gpu)
    error = ((on_gpu[2].double().cpu() - expected).norm() / expected.norm()).item()
    passed = error < 1e-5
    print(f"pit-compile's library through pit.load ({library.target}): relative error "
          f"{error:.2e} {'PASS' if passed else 'FAIL'}")
    return passed


def prepare(directory):
    import torch

    import pit.kernel_cache
    import pit.torch as pt

    directory.mkdir(parents=True, exist_ok=True)
    cache = directory / "cache"
    os.environ[pit.kernel_cache.CACHE_DIR_VARIABLE] = str(cache)
    started = time.perf_counter()
    with pt.ahead_of_time(TARGET):
        for seed, (name, dtype, build) in enumerate(cases(torch)):
            check_case(torch, name, dtype, build, "meta", seed)
    print(f"{TARGET}: the cases' kernels compiled in {time.perf_counter() - started:.1f} s; "
          f"{cache} holds {len(list(cache.rglob('*.so'))) - 1}")
    pit.kernel_cache.copy_runtime_package(directory)
    shutil.copy(__file__, directory)


def run(directory):
    import torch

    os.environ["PIT_CACHE_DIR"] = str(directory / "cache")
    failures = 0
    tolerance = {torch.float16: 5e-3, torch.bfloat16: 3e-2}
    for seed, (name, dtype, build) in enumerate(cases(torch)):
        try:
            error = check_case(torch, name, dtype, build, "cuda", seed)
            verdict = "PASS" if error < tolerance[dtype] else "FAIL"
            print(f"{name}: largest relative error {error:.2e} (output and gradients) {verdict}")
        except Exception as exception:  # noqa: BLE001 - reported, counted
            verdict = "FAIL"
            print(f"{name}: {type(exception).__name__}: {exception}")
        failures += verdict == "FAIL"
    failures += not check_pit_compile_library(torch, directory)
    failures += not check_graphed_step(torch)
    total = len(cases(torch)) + 2
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    step, where = sys.argv[1], pathlib.Path(sys.argv[2]).absolute()
    if step == "prepare":
        prepare(where)
    elif step == "run":
        sys.path.insert(0, str(where))
        sys.exit(run(where))
    else:
        sys.exit(f"unknown step {step!r}: prepare or run")
