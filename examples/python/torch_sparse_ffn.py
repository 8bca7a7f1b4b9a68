"""An FFN whose hidden activations are block-sparse: each token keeps the
10% of its 1x64 blocks of hidden units with the largest norm, and the down
projection (pit.nn.SparseLinear, sparse="input") skips the others. Checks
the output against the dense F.linear on the same activations and, on a
GPU, times both.

    PYTHONPATH=build/python_packages .venv/bin/python examples/python/torch_sparse_ffn.py

Runs on the GPU when there is one (f16), else on the CPU (f32);
`--ahead-of-time sm_90a` compiles the GPU's kernels into the disk cache.
"""

import sys

import torch

import pit.nn
import pit.torch

BLOCK = 64
KEEP = 0.1


def sparse_ffn(tokens, width, hidden, device, dtype):
    up = torch.nn.Linear(width, hidden, device=device, dtype=dtype)
    down = pit.nn.SparseLinear(hidden, width, sparse="input", micro_tiles=[(1, BLOCK)],
                               device=device, dtype=dtype)

    def forward(x):
        h = torch.relu(up(x))
        blocks = h.reshape(tokens, hidden // BLOCK, BLOCK).float().norm(dim=2)
        kept = blocks.topk(int(KEEP * hidden / BLOCK), dim=1).indices
        keep = torch.zeros_like(blocks, dtype=h.dtype).scatter_(1, kept, 1)
        h = h * keep.repeat_interleave(BLOCK, 1)
        return down(h), h

    return forward, down


def main():
    tokens, width, hidden = (4096, 4096, 16384) if torch.cuda.is_available() else (256, 256, 1024)
    if len(sys.argv) == 3 and sys.argv[1] == "--ahead-of-time":
        tokens, width, hidden = 4096, 4096, 16384
        forward, _ = sparse_ffn(tokens, width, hidden, "meta", torch.float16)
        with pit.torch.ahead_of_time(sys.argv[2]):
            forward(torch.empty(tokens, width, device="meta", dtype=torch.float16))
        print(f"compiled the FFN's kernels for {sys.argv[2]}")
        return
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.float16 if device == "cuda" else torch.float32
    torch.manual_seed(0)
    forward, down = sparse_ffn(tokens, width, hidden, device, dtype)
    x = torch.randn(tokens, width, device=device, dtype=dtype)
    with torch.no_grad():
        y, h = forward(x)
        expected = torch.nn.functional.linear(h.double(), down.weight.double(), down.bias.double())
        error = ((y.double() - expected).norm() / expected.norm()).item()
        print(f"FFN {tokens}x{width}->{hidden}->{width} on {device}, {KEEP:.0%} of the "
              f"activation blocks kept: relative error {error:.1e}")
        assert error < (5e-3 if dtype == torch.float16 else 1e-5)
        if device == "cuda":
            for name, call in [("pit", lambda: down(h)),
                               ("dense", lambda: torch.nn.functional.linear(h, down.weight, down.bias))]:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                call()
                start.record()
                for _ in range(20):
                    call()
                end.record()
                end.synchronize()
                print(f"down projection, {name}: {start.elapsed_time(end) / 20:.3f} ms")


if __name__ == "__main__":
    main()
