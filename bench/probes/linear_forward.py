"""Where SparseLinear's forward time goes (issues 39 and 41): y = x W^T with
W sparse at 90% (32x64 and 32x1 micro-tiles), f16, on Llama-3-8B's up/gate
(W 14336 x 4096, x 4096 x 4096), each product alone:

- pit.torch.sparse_linear(x, W): the 'linear' program, W its sparse first
  operand (y^T = W x^T, returned as a transposed view);
- pit.torch.sparse_matmul(W, x^T): the 'matmul' program C = A B, the shape
  suite's form (x^T made contiguous outside the timing);
- torch's F.linear(x, W) (cuBLAS) on the same masked W.

Each is checked against float64 first, then timed in turn, round by round,
with CUDA events (median of ROUNDS rounds of CALLS calls). With --profile,
one call of each runs inside an NVTX range named after it, for ncu.

    python3 bench/probes/linear_forward.py prepare DIR   # here: kernels, runtime
    python3 DIR/linear_forward.py run DIR [--profile]    # on the GPU, DIR carried
"""

import argparse
import pathlib
import shutil
import statistics
import sys

N_OUT, K, TOKENS = 14336, 4096, 4096
MICRO_TILES = [(32, 64), (32, 1)]
SPARSITY = 0.9
ROUNDS, CALLS = 7, 10
TARGET = "sm_90a"
HERE = pathlib.Path(__file__).resolve().parent
# The benchmark's timing and the GPU check's masks: from the repository, or
# beside this file in a prepared directory.
sys.path.insert(0, str(HERE.parent))
from torch_ops import events_ms, tile_mask  # noqa: E402


def products(torch, pt, x, weight, transposed_x, micro_tile):
    return {
        "sparse_linear": lambda: pt.sparse_linear(x, weight, micro_tiles=[micro_tile]),
        "sparse_matmul": lambda: pt.sparse_matmul(weight, transposed_x, micro_tiles=[micro_tile]),
        "F.linear": lambda: torch.nn.functional.linear(x, weight),
    }


def prepare(directory):
    import torch
    import pit.kernel_cache
    import pit.torch as pt

    directory.mkdir(parents=True, exist_ok=True)
    with pt.ahead_of_time(TARGET):
        meta = dict(device="meta", dtype=torch.float16)
        x, weight = torch.empty(TOKENS, K, **meta), torch.empty(N_OUT, K, **meta)
        for micro_tile in MICRO_TILES:
            for product in products(torch, pt, x, weight, x.t().contiguous(), micro_tile).values():
                product()
    pit.kernel_cache.copy_runtime_package(directory)
    for script in (__file__, HERE.parent / "torch_ops.py",
                   HERE.parent.parent / "test" / "GPU" / "check_torch.py"):
        shutil.copy(script, directory)


def run(directory, profile):
    import torch
    import pit.torch as pt

    generator = torch.Generator().manual_seed(torch.seed())
    x = torch.randn(TOKENS, K, generator=generator).half().cuda()
    transposed_x = x.t().contiguous()
    print(f"device: {torch.cuda.get_device_name()}; y = x W^T, W {N_OUT}x{K} at "
          f"{SPARSITY:.0%}, x {TOKENS}x{K}, f16; ms, median of {ROUNDS} rounds of {CALLS}")
    for micro_tile in MICRO_TILES:
        weight = (torch.randn(N_OUT, K, generator=generator).half().cuda()
                  * tile_mask(torch, generator, (N_OUT, K), micro_tile, SPARSITY).cuda().half())
        reference = x.double() @ weight.double().t()
        calls = products(torch, pt, x, weight, transposed_x, micro_tile)
        for name, call in calls.items():
            result = call()
            result = result.t() if name == "sparse_matmul" else result
            error = ((result.double() - reference).norm() / reference.norm()).item()
            assert error < 1e-2, (name, error)
        times = {name: [] for name in calls}
        for _ in range(ROUNDS):
            for name, call in calls.items():
                times[name].append(events_ms(torch, call, CALLS))
        line = ", ".join(f"{name} {statistics.median(t):.3f}" for name, t in times.items())
        print(f"{micro_tile[0]}x{micro_tile[1]}: {line}")
        if profile:
            for name, call in calls.items():
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_push(f"{name}_{micro_tile[0]}x{micro_tile[1]}")
                call()
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_pop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "run"])
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    if options.step == "prepare":
        prepare(options.directory)
    else:
        sys.path.insert(0, str(options.directory))
        run(options.directory, options.profile)
