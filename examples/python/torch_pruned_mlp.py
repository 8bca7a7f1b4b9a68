"""Trains an MLP block whose weights are pruned anew at every step: each
step keeps, in each layer, the 25% of 32x64 weight blocks of largest norm,
and pit.nn.SparseLinear skips the rest, forward and backward.

    PYTHONPATH=build/python_packages .venv/bin/python examples/python/torch_pruned_mlp.py

Runs on the GPU when there is one (f16; sm_80 or later), else on the CPU
(f32). `--ahead-of-time sm_90a` instead compiles what the GPU run needs into
the disk cache (pit.kernel_cache), for a GPU machine without the compiler.
"""

import sys

import torch

import pit.nn
import pit.torch

BLOCK = (32, 64)
KEEP = 0.25


# (tokens, width, hidden) on a GPU and, smaller, on the CPU.
SIZES = {"cuda": (2048, 1024, 4096), "cpu": (256, 256, 1024)}


class PrunedMLP(torch.nn.Module):
    def __init__(self, width, hidden, **factory):
        super().__init__()
        self.up = pit.nn.SparseLinear(width, hidden, micro_tiles=[BLOCK], **factory)
        self.down = pit.nn.SparseLinear(hidden, width, micro_tiles=[BLOCK], **factory)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))

    @torch.no_grad()
    def prune(self):
        """Masks each layer's weight to its KEEP largest blocks by norm."""
        for layer in (self.up, self.down):
            rows, columns = layer.weight.shape
            blocks = layer.weight.float().reshape(rows // BLOCK[0], BLOCK[0], columns // BLOCK[1],
                                                  BLOCK[1]).norm(dim=(1, 3))
            threshold = blocks.flatten().kthvalue(int((1 - KEEP) * blocks.numel())).values
            mask = (blocks > threshold).repeat_interleave(BLOCK[0], 0)
            layer.set_mask(mask.repeat_interleave(BLOCK[1], 1))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--ahead-of-time":
        tokens, width, hidden = SIZES["cuda"]
        model = PrunedMLP(width, hidden, device="meta", dtype=torch.float16)
        with pit.torch.ahead_of_time(sys.argv[2]):
            model.prune()
            model(torch.empty(tokens, width, device="meta", dtype=torch.float16)).sum().backward()
        print(f"compiled the model's kernels for {sys.argv[2]}")
        return
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.float16 if device == "cuda" else torch.float32
    tokens, width, hidden = SIZES[device]
    torch.manual_seed(0)
    model = PrunedMLP(width, hidden, device=device, dtype=dtype)
    teacher = torch.nn.Linear(width, width, device=device, dtype=dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, eps=1e-4)
    losses = []
    for step in range(30):
        x = torch.randn(tokens, width, device=device, dtype=dtype)
        model.prune()
        loss = (model(x) - teacher(x).detach()).float().square().mean()
        optimizer.zero_grad()
        loss.backward()
        outside = model.up.weight.grad[model.up.mask == 0]
        assert torch.all(outside == 0), "a pruned weight got a gradient"
        optimizer.step()
        losses.append(loss.item())
        if step % 5 == 0 or step == 29:
            print(f"step {step:2d}: loss {loss.item():.4f}, {KEEP:.0%} of the weight blocks kept")
    assert losses[-1] < 0.8 * losses[0], "the loss fell by less than a fifth"
    print(f"trained on {device}: loss {losses[0]:.4f} -> {losses[-1]:.4f}; the pruned "
          "weights got no gradient at any step")


if __name__ == "__main__":
    main()
