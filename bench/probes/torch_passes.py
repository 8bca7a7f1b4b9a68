"""The elementwise passes around SparseLinear's products (issue 39), each
spelled several ways in torch, timed on the GPU: what the ncu breakdown of
a step found slow (docs/benchmarks/2026-11-29-H200-torch-ops.md).

- W's pattern, the support the weight's gradient keeps: (W != 0) as W's
  dtype; 188 us as pit.torch spells it, for W of 14336 x 4096 f16.
- y^T + bias, the bias broadcast along y^T's rows: 139 us.

Each variant is checked against the first (to f16 rounding), then timed with CUDA events
(median of ROUNDS rounds of CALLS calls, in turn).

    python3 bench/probes/torch_passes.py     # on the GPU machine
"""

import pathlib
import statistics
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from torch_ops import events_ms  # noqa: E402

ROWS, COLUMNS = 14336, 4096
ROUNDS, CALLS = 7, 20


def compare(title, variants):
    reference = next(iter(variants.values()))()
    for name, call in variants.items():
        assert torch.allclose(call().float(), reference.float(), rtol=1e-3, atol=1e-3), name
    times = {name: [] for name in variants}
    for _ in range(ROUNDS):
        for name, call in variants.items():
            times[name].append(events_ms(torch, call, CALLS))
    print(title)
    for name, samples in times.items():
        print(f"  {name:48} {statistics.median(samples) * 1e3:7.1f} us")


def main():
    generator = torch.Generator(device="cuda").manual_seed(torch.seed())
    weight = torch.randn(ROWS, COLUMNS, device="cuda", dtype=torch.float16,
                         generator=generator)
    weight[torch.rand(ROWS, COLUMNS, device="cuda", generator=generator) < 0.9] = 0
    one = torch.ones((), device="cuda", dtype=torch.float16)
    zero = torch.zeros((), device="cuda", dtype=torch.float16)
    compare(f"pattern of W {ROWS}x{COLUMNS} f16", {
        "(W != 0).to(W.dtype)": lambda: (weight != 0).to(weight.dtype),
        "torch.where(W != 0, one, zero)": lambda: torch.where(weight != 0, one, zero),
        "W.sign().abs_()": lambda: weight.sign().abs_(),
        "(W != 0).view(torch.uint8).to(W.dtype)":
            lambda: (weight != 0).view(torch.uint8).to(weight.dtype),
    })
    transposed_y = torch.randn(ROWS, COLUMNS, device="cuda", dtype=torch.float16,
                               generator=generator)
    bias = torch.randn(ROWS, device="cuda", dtype=torch.float16, generator=generator)
    ones = torch.ones(1, COLUMNS, device="cuda", dtype=torch.float16)
    compare(f"y^T + bias[:, None], y^T {ROWS}x{COLUMNS} f16", {
        "y^T + bias[:, None]": lambda: transposed_y + bias[:, None],
        "(y^T.t() + bias).t()": lambda: (transposed_y.t() + bias).t(),
        "torch.addmm(y^T, bias[:, None], ones)":
            lambda: torch.addmm(transposed_y, bias[:, None], ones),
        "y^T.clone().add_(bias[:, None])": lambda: transposed_y.clone().add_(bias[:, None]),
    })


if __name__ == "__main__":
    main()
