"""The README's sparse matmul, built and compiled from Python, then run on an
H100/H200 on torch CUDA tensors, in two steps:

    # here (LLVM/MLIR, the built package): build, compile for sm_90, and put
    # the library, libpit_cuda_runtime.so and the pure-Python runtime in DIR
    PYTHONPATH=build/python_packages .venv/bin/python \\
        examples/python/sparse_matmul_gpu.py compile build/python-gpu-example

    # on the GPU machine (torch, no LLVM/MLIR, any Python 3)
    python3 build/python-gpu-example/sparse_matmul_gpu.py run build/python-gpu-example

The run step calls the library with a fresh random pattern at every call, at
several sparsities, compares with torch in float64, and shows a refused call.
It needs only the runtime (pit/runtime.py, pit/errors.py), not the compiler
extension.
"""

import pathlib
import shutil
import sys
import time

M, K, N = 4096, 4096, 1024
MICRO_TILE = (32, 1)
SPARSITIES = [0.0, 0.5, 0.9, 0.99]
CALLS = 3
TOLERANCE = 1e-4  # f16 products are exact in f32; the sums are in f32


def compile_step(directory):
    import pit

    ctx = pit.Context()
    module = pit.Module.create(ctx)
    types = [pit.memref(ctx, (M, K), "f16"), pit.memref(ctx, (K, N), "f16"),
             pit.memref(ctx, (M, N), "f32")]
    with pit.Function(module, "sparse_matmul", types) as f:
        pit.matmul(f.builder, *f.arguments, sparse=(0, [MICRO_TILE]))
    print(module)
    directory.mkdir(parents=True, exist_ok=True)
    library = pit.compile(module, target="sm_90",
                          path=directory / "libsparse_matmul.so")
    # The library finds the runtime next to itself ($ORIGIN); the run step
    # imports the pure-Python part of the package from the same directory.
    shutil.copy(pathlib.Path(pit._config.LIBRARY_DIR) / "libpit_cuda_runtime.so", directory)
    package = directory / "pit"
    package.mkdir(exist_ok=True)
    # Without the compiler extension, `import pit` gives just the runtime.
    for name in ["__init__.py", "runtime.py", "errors.py"]:
        shutil.copy(pathlib.Path(pit.__file__).parent / name, package)
    shutil.copy(__file__, directory)
    print(f"compiled {library}; run step: "
          f"python3 {directory}/sparse_matmul_gpu.py run {directory}")


def sparsify(torch, x, micro_tile, sparsity):
    """Zeroes exactly round(sparsity * count) random micro-tiles of x."""
    grid = [extent // tile for extent, tile in zip(x.shape, micro_tile)]
    count = grid[0] * grid[1]
    keep = torch.ones(count, device=x.device)
    keep[torch.randperm(count, device=x.device)[:round(sparsity * count)]] = 0
    mask = keep.reshape(grid)
    for axis, tile in enumerate(micro_tile):
        mask = mask.repeat_interleave(tile, dim=axis)
    return x * mask.to(x.dtype)


def run_step(directory):
    import torch

    sys.path.insert(0, str(directory))
    import pit

    library = pit.load(directory / "libsparse_matmul.so")
    sparse_matmul = library.sparse_matmul
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(sparse_matmul)
    failures = 0
    for sparsity in SPARSITIES:
        worst, times = 0.0, []
        for _ in range(CALLS):
            a = sparsify(torch, (torch.rand(M, K, device="cuda") * 2 - 1).half(),
                         MICRO_TILE, sparsity)
            b = (torch.rand(K, N, device="cuda") * 2 - 1).half()
            c = torch.rand(M, N, device="cuda") * 2 - 1
            expected = c.double() + a.double() @ b.double()
            torch.cuda.synchronize()  # time the call, not the reference
            start = time.perf_counter()
            sparse_matmul(a, b, c)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - start) * 1e3)
            error = ((c.double() - expected).norm() / expected.norm()).item()
            worst = max(worst, error)
        status = "PASS" if worst < TOLERANCE else "FAIL"
        failures += status == "FAIL"
        print(f"sparsity {sparsity:4.2f}: worst relative error {worst:.2e} {status} "
              f"(last call {times[-1]:.2f} ms, fresh pattern per call)")

    # Raw device pointers (from any allocator), with their shapes and dtypes.
    a = sparsify(torch, (torch.rand(M, K, device="cuda") * 2 - 1).half(),
                 MICRO_TILE, 0.9)
    b = (torch.rand(K, N, device="cuda") * 2 - 1).half()
    c = torch.rand(M, N, device="cuda") * 2 - 1
    expected = c.double() + a.double() @ b.double()
    torch.cuda.synchronize()  # the pointers' data must be there: no stream links them
    sparse_matmul(pit.DevicePointer(a.data_ptr(), (M, K), "f16"),
                  pit.DevicePointer(b.data_ptr(), (K, N), "f16"),
                  pit.DevicePointer(c.data_ptr(), (M, N), "f32"))
    error = ((c.double() - expected).norm() / expected.norm()).item()
    status = "PASS" if error < TOLERANCE else "FAIL"
    failures += status == "FAIL"
    print(f"raw device pointers, sparsity 0.90: relative error {error:.2e} {status}")

    a = torch.zeros(M, K, device="cuda", dtype=torch.float16)
    b = torch.zeros(K, N, device="cuda", dtype=torch.float16)
    c = torch.zeros(M, N, device="cuda")
    refused = {
        "wrong dtype": lambda: sparse_matmul(a, b, c.half()),
        "wrong shape": lambda: sparse_matmul(a, b[:128], c),
        "host tensor": lambda: sparse_matmul(a.cpu(), b, c),
        "not contiguous": lambda: sparse_matmul(a, b, c.t().contiguous().t()),
    }
    for what, call in refused.items():
        try:
            call()
            print(f"{what}: NOT refused FAIL")
            failures += 1
        except pit.ArgumentError as error:
            print(f"{what}: refused: {error}")
    print("all passed" if not failures else f"{failures} failed")
    return 1 if failures else 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("compile", "run"):
        print(__doc__)
        return 2
    directory = pathlib.Path(sys.argv[2]).absolute()
    if sys.argv[1] == "compile":
        compile_step(directory)
        return 0
    return run_step(directory)


if __name__ == "__main__":
    sys.exit(main())
