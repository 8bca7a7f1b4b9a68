"""One forward + backward step of pit.nn.SparseLinear on Llama-3-8B's up/gate
(x 4096x4096, W 14336x4096 at 90%, f16), in an NVTX range per micro-tile,
for ncu to break the step into its kernels (issues 39 and 41). The ranges
are start/end ranges, which span threads: autograd runs the backward on a
thread of its own.

    scripts/torch-gpu.sh prepare                                   # here
    ncu --clock-control none --nvtx --nvtx-include "step_32x64" ... \\
        python3 bench/probes/linear_step_profile.py build/torch-gpu  # on the GPU

It runs the benchmark's own step (bench/torch_ops.py's layer_step, from the
prepared directory, whose cache holds its kernels): three steps to warm
up, then one inside the range.
"""

import pathlib
import sys

M, K, N = 4096, 4096, 14336
MICRO_TILES = [(32, 64), (32, 1)]


def main(directory):
    sys.path.insert(0, str(directory))
    import os

    os.environ.setdefault("PIT_CACHE_DIR", str(directory / "cache"))
    import torch
    import pit.nn
    import torch_ops

    for micro_tile in MICRO_TILES:
        _, _, _, step = torch_ops.layer_step(torch, pit.nn, M, K, N, micro_tile, "cuda")
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        name = f"step_{micro_tile[0]}x{micro_tile[1]}"
        range_id = torch.cuda.nvtx.range_start(name)
        step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_end(range_id)
        print(f"{name}: ran")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(pathlib.Path(sys.argv[1]).resolve())
