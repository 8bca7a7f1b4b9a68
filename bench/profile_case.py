"""One call of a compiled benchmark kernel, for a profiler to look at:

    ncu --launch-skip 2 --launch-count 1 python3 bench/profile_case.py \\
        build/bench/matmul_f16_32x64.so 32x64 0.5

(launches of one call: clear the counts, detect, the STile)."""

import sys

import torch

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import cases  # noqa: E402,F401  (puts the shared helpers on the path)
from compiled_library import Kernel, sparsify  # noqa: E402


def main():
    path, micro_text, sparsity = sys.argv[1], sys.argv[2], float(sys.argv[3])
    n = cases.SIZE
    micro = [int(e) for e in micro_text.split("x")]
    a = sparsify((torch.rand(n, n, device="cuda") * 2 - 1).half(), micro, sparsity)
    b = (torch.rand(n, n, device="cuda") * 2 - 1).half()
    c = torch.zeros(n, n, device="cuda")
    torch.cuda.synchronize()
    Kernel(path)(a, b, c)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
