"""torch spellings of a bias add over y^T (n x m, f16: the bias along the
rows, a stride-0 operand) and of the bias's gradient, on the GPU (issue
39): what the bias folded into the STile's stores replaces.

    python3 bench/probes/bias_add.py     # on the GPU
"""
import torch

SHAPES = [(14336, 4096), (1024, 4096), (4096, 4096)]  # y^T's n x m


def us(call, reps=50):
    """Microseconds a call: CUDA events over `reps` calls after one."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    call()
    torch.cuda.synchronize()
    start.record()
    for _ in range(reps):
        call()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps * 1e3


def main():
    half = {"device": "cuda", "dtype": torch.float16}
    for n, m in SHAPES:
        y, bias = torch.randn(n, m, **half), torch.randn(n, **half)
        ones_row, ones = torch.ones(1, m, **half), torch.ones(m, **half)
        out = torch.empty_like(y)
        spellings = {
            "add_": lambda: y.add_(bias[:, None]),
            "add": lambda: y + bias[:, None],
            "addmm out": lambda: torch.addmm(y, bias[:, None], ones_row, out=out),
            "addmm_": lambda: y.addmm_(bias[:, None], ones_row),
            "addr_": lambda: y.addr_(bias, ones),
            "sum(1)": lambda: y.sum(1),
            "mv ones": lambda: torch.mv(y, ones),
            "sum(0) of y^T view": lambda: y.t().sum(0),
        }
        print(n, m, " ".join(f"{name} {us(call):.1f}" for name, call in spellings.items()))
    y, bias = torch.randn(64, 128, **half), torch.randn(64, **half)
    expected = y.float() + bias.float()[:, None]
    got = y.clone().addmm_(bias[:, None], torch.ones(1, 128, **half))
    print("addmm_ error", ((got.float() - expected).norm() / expected.norm()).item())


if __name__ == "__main__":
    main()
