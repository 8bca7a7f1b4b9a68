"""pit.torch's benchmark (issue 39), in three steps:

    # here (the compiler): compile the kernels for sm_90a into DIR/cache,
    # timing each compile (a model's first call), and put the runtime-only
    # package in DIR/pit
    PYTHONPATH=build/python_packages .venv/bin/python bench/torch_ops.py prepare DIR
    # on the GPU machine (torch, no compiler)
    python3 DIR/torch_ops.py run DIR > DIR/torch_ops.log     # writes DIR/torch_ops.json
    # here: the tables, markdown
    python3 bench/torch_ops.py report DIR/torch_ops.json

What it measures, f16, on the suite's model shapes (bench/suite.py):
- the op's host overhead: the host time of one pit.torch.sparse_matmul call
  against one bare call of the same compiled function on the same tensors
  (the GPU idle before each call, so that no call waits for the queue);
- the first call of a shape in a process that has run other calls, its
  kernels cached on disk as cubins (load, not compile); and (prepare step)
  each kernel's compile time, a model's first call where nothing is cached;
- forward + backward of pit.nn.SparseLinear with a weight mask of 32x64 and
  of 32x1 micro-tiles at 90% sparsity against F.linear on the masked weight
  (what a pruned model runs densely) and against nn.Linear without a mask;
  each checked first against the dense result, then timed in turn, round
  by round, with CUDA events; and each step captured in a CUDA graph, its
  replays timed the same way (the GPU's time without the host's).
"""

import json
import os
import pathlib
import shutil
import statistics
import sys
import time

# The GPU check's mask maker: from test/GPU here, beside this file where the
# prepare step copied both.
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "test" / "GPU"))
from check_torch import graphed_step, tile_mask  # noqa: E402

TARGET = "sm_90a"
SHAPES = [  # (name, tokens, in features, out features)
    ("llama3-8b q/o", 4096, 4096, 4096),
    ("llama3-8b k/v", 4096, 4096, 1024),
    ("llama3-8b up/gate", 4096, 4096, 14336),
    ("llama3-8b down", 4096, 14336, 4096),
    ("opt-6.7b fc1", 1024, 4096, 16384),
    ("opt-6.7b fc2", 16384, 16384, 4096),
    ("llama2-13b q/o (held out)", 2048, 5120, 5120),
    ("llama2-13b up/gate (held out)", 512, 5120, 13824),
]
MICRO_TILES = [(32, 64), (32, 1)]
SPARSITY = 0.9
OVERHEAD_SHAPE = (128, 128, 128)
WARM_UP_SHAPE = (256, 256, 256)


def layer_step(torch, pit_nn, m, k, n, micro_tile, device):
    """One forward + backward of SparseLinear on fresh inputs: (layer, x,
    grad of y, step function)."""
    layer = pit_nn.SparseLinear(k, n, micro_tiles=[micro_tile], device=device,
                                dtype=torch.float16)
    generator = torch.Generator().manual_seed(m * 7 + k * 3 + n + micro_tile[1])
    layer.set_mask(tile_mask(torch, generator, (n, k), micro_tile, SPARSITY).to(device))
    x = torch.randn(m, k, device=device, dtype=torch.float16, requires_grad=True)
    grad = torch.randn(m, n, device=device, dtype=torch.float16)

    def step():
        y = layer(x)
        return torch.autograd.grad(y, [x, layer.weight, layer.bias], grad)
    return layer, x, grad, step


# ---------------------------------------------------------------------------
# prepare (here)
# ---------------------------------------------------------------------------

def prepare(directory):
    import torch

    import pit.kernel_cache
    import pit.nn
    import pit.torch as pt

    os.environ[pit.kernel_cache.CACHE_DIR_VARIABLE] = str(directory / "cache")
    compile_seconds = []
    compiled_path = pit.kernel_cache.compiled_path

    def timed(source, target, options=None):
        """compiled_path, timing the compiles (not the cache's hits)."""
        key = pit.kernel_cache.entry_key(source, target, dict(options or {}))
        cached = (pit.kernel_cache.entry_dir() / f"{key}.so").exists()
        started = time.perf_counter()
        path = compiled_path(source, target, options)
        if not cached:
            compile_seconds.append(time.perf_counter() - started)
        return path

    pit.kernel_cache.compiled_path = timed
    with pt.ahead_of_time(TARGET):
        m, k, n = OVERHEAD_SHAPE
        pt.sparse_matmul(torch.empty(m, k, device="meta", dtype=torch.float16),
                         torch.empty(k, n, device="meta", dtype=torch.float16))
        layer_step(torch, pit.nn, *WARM_UP_SHAPE, MICRO_TILES[0], "meta")[3]()
        for _, m, k, n in SHAPES:
            for micro_tile in MICRO_TILES:
                layer_step(torch, pit.nn, m, k, n, micro_tile, "meta")[3]()
    pit.kernel_cache.compiled_path = compiled_path
    (directory / "compile.json").write_text(json.dumps(compile_seconds))
    print(f"compiled {len(compile_seconds)} kernels for {TARGET}: "
          f"median {statistics.median(compile_seconds):.2f} s, "
          f"max {max(compile_seconds):.2f} s each")
    pit.kernel_cache.copy_runtime_package(directory)
    shutil.copy(__file__, directory)
    shutil.copy(HERE.parent / "test" / "GPU" / "check_torch.py", directory)


# ---------------------------------------------------------------------------
# run (on the GPU)
# ---------------------------------------------------------------------------

def host_time_us(torch, call, reps=400):
    """Median host time of `call`, the GPU idle before each."""
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def measure_overhead(torch, pt):
    import pit.torch as module
    m, k, n = OVERHEAD_SHAPE
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    out = torch.empty(m, n, device="cuda", dtype=torch.float16)
    pt.sparse_matmul(a, b)
    function = module._function("matmul", ((m, k), n), torch.float16, torch.float16,
                                [32, 1], TARGET)
    rounds = {"bare": [], "op": [], "op_grad": [], "torch.matmul": []}
    a_grad = a.clone().requires_grad_()
    for _ in range(5):
        rounds["bare"].append(host_time_us(torch, lambda: function(a, b, out)))
        rounds["op"].append(host_time_us(torch, lambda: pt.sparse_matmul(a, b)))
        rounds["op_grad"].append(host_time_us(torch, lambda: pt.sparse_matmul(a_grad, b)))
        rounds["torch.matmul"].append(host_time_us(torch, lambda: torch.matmul(a, b)))
    return {name: statistics.median(values) for name, values in rounds.items()}


def events_ms(torch, step, reps):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        step()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


def measure_layer(torch, pit_nn, m, k, n, micro_tile, reps):
    layer, x, grad, step = layer_step(torch, pit_nn, m, k, n, micro_tile, "cuda")
    torch.cuda.synchronize()
    started = time.perf_counter()
    first = step()
    torch.cuda.synchronize()
    first_call_ms = (time.perf_counter() - started) * 1e3
    plain = layer.weight.detach().clone().requires_grad_()
    masked = (plain * layer.mask).detach().requires_grad_()
    bias = layer.bias.detach().clone().requires_grad_()

    # The masked peer multiplies by the mask in the graph, as a pruned model
    # does, so that its weight gradient is the masked one; nn.Linear's peer
    # takes the masked weight as it is.
    def masked_step():
        y = torch.nn.functional.linear(x, plain * layer.mask, bias)
        return torch.autograd.grad(y, [x, plain, bias], grad)

    def dense_step():
        y = torch.nn.functional.linear(x, masked, bias)
        return torch.autograd.grad(y, [x, masked, bias], grad)

    expected = masked_step()
    errors = [((got.float() - want.float()).norm() / want.float().norm()).item()
              for got, want in zip(first, expected)]
    steps = {"pit": step, "masked": masked_step, "dense": dense_step}
    # Each step captured in a CUDA graph too (torch.cuda.graph), whose
    # replay costs the host one launch: the GPU's time alone, where an
    # eager step of a small layer waits for the host.
    steps.update({f"{name} graphed": graphed_step(torch, candidate)
                  for name, candidate in list(steps.items())})
    times = {name: [] for name in steps}
    for _ in range(5):
        for name, candidate in steps.items():
            times[name].append(events_ms(torch, candidate, reps))
    return {"m": m, "k": k, "n": n, "micro_tile": list(micro_tile),
            "max_relative_error": max(errors), "first_call_ms": first_call_ms,
            "ms": {name: statistics.median(values) for name, values in times.items()}}


def run(directory, reps):
    import torch

    os.environ["PIT_CACHE_DIR"] = str(directory / "cache")
    import pit.nn
    import pit.torch as pt

    results = {"device": torch.cuda.get_device_name(),
               "date": time.strftime("%Y-%m-%d", time.gmtime()),
               "torch": torch.__version__,
               "compile_seconds": json.loads((directory / "compile.json").read_text())}
    results["overhead_us"] = measure_overhead(torch, pt)
    print("host time a call (us):", json.dumps(results["overhead_us"]))
    # The process's first forward and backward (torch's autograd threads,
    # the allocator's first blocks, PIT's runtime), so that each layer's
    # first call measures loading its kernels from the disk cache.
    measure_layer(torch, pit.nn, *WARM_UP_SHAPE, MICRO_TILES[0], reps=1)
    results["layers"] = []
    for name, m, k, n in SHAPES:
        for micro_tile in MICRO_TILES:
            row = measure_layer(torch, pit.nn, m, k, n, micro_tile, reps)
            row["name"] = name
            results["layers"].append(row)
            print(json.dumps(row), flush=True)
    (directory / "torch_ops.json").write_text(json.dumps(results, indent=1))


# ---------------------------------------------------------------------------
# report (here)
# ---------------------------------------------------------------------------

def geomean(values):
    product = 1.0
    for value in values:
        product *= value
    return product ** (1 / len(values))


def report(path):
    results = json.loads(pathlib.Path(path).read_text())
    overhead = results["overhead_us"]
    compile_seconds = results["compile_seconds"]
    lines = [f"Device: {results['device']}, {results['date']}, torch {results['torch']}.", "",
             "Host time of one call, median, us (the GPU idle before each):", "",
             "| bare library call | pit.torch.sparse_matmul | same, input requiring grad | torch.matmul |",
             "| --- | --- | --- | --- |",
             f"| {overhead['bare']:.1f} | {overhead['op']:.1f} | {overhead['op_grad']:.1f} | "
             f"{overhead['torch.matmul']:.1f} |", "",
             f"Overhead of the op over the bare call: {overhead['op'] - overhead['bare']:.1f} us "
             f"({overhead['op_grad'] - overhead['bare']:.1f} us with autograd).", "",
             f"Compile (prepare step, this machine's CPU): {len(compile_seconds)} kernels, "
             f"median {statistics.median(compile_seconds):.2f} s, max {max(compile_seconds):.2f} s.",
             "", "Forward + backward of SparseLinear (f16, weight mask at "
             f"{SPARSITY:.0%}), ms, and the peers' time / PIT's:", "",
             "| layer | M | K | N | micro-tile | PIT | F.linear, masked W | nn.Linear | "
             "masked / PIT | dense / PIT | error | first call ms |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    ratios = {}
    for row in results["layers"]:
        ms = row["ms"]
        tile = "x".join(str(extent) for extent in row["micro_tile"])
        masked, dense = ms["masked"] / ms["pit"], ms["dense"] / ms["pit"]
        ratios.setdefault(tile, []).append((masked, dense))
        lines.append(f"| {row['name']} | {row['m']} | {row['k']} | {row['n']} | {tile} | "
                     f"{ms['pit']:.3f} | {ms['masked']:.3f} | {ms['dense']:.3f} | "
                     f"{masked:.2f} | {dense:.2f} | {row['max_relative_error']:.1e} | "
                     f"{row['first_call_ms']:.0f} |")
    lines += ["", "The same steps, each captured in a CUDA graph (the GPU's time, without "
              "the host's), ms:", "",
              "| layer | micro-tile | PIT | F.linear, masked W | nn.Linear | masked / PIT | "
              "dense / PIT |", "| --- | --- | --- | --- | --- | --- | --- |"]
    graphed_ratios = {}
    for row in results["layers"]:
        ms = row["ms"]
        tile = "x".join(str(extent) for extent in row["micro_tile"])
        pit, masked, dense = ms["pit graphed"], ms["masked graphed"], ms["dense graphed"]
        graphed_ratios.setdefault(tile, []).append((masked / pit, dense / pit))
        lines.append(f"| {row['name']} | {tile} | {pit:.3f} | {masked:.3f} | {dense:.3f} | "
                     f"{masked / pit:.2f} | {dense / pit:.2f} |")
    first_calls = [row["first_call_ms"] for row in results["layers"]]
    lines += ["", f"First call of a layer (its kernels loaded from the disk cache): median "
              f"{statistics.median(first_calls):.0f} ms, max {max(first_calls):.0f} ms.", ""]
    for label, table in (("eager", ratios), ("graphed", graphed_ratios)):
        for tile, pairs in table.items():
            masked = [pair[0] for pair in pairs]
            dense = [pair[1] for pair in pairs]
            lines.append(f"- {label}, {tile}: masked F.linear / PIT worst {min(masked):.2f}, "
                         f"geomean {geomean(masked):.2f}; nn.Linear / PIT worst "
                         f"{min(dense):.2f}, geomean {geomean(dense):.2f}")
    print("\n".join(lines))


if __name__ == "__main__":
    step, where = sys.argv[1], pathlib.Path(sys.argv[2]).absolute()
    if step == "prepare":
        prepare(where)
    elif step == "run":
        sys.path.insert(0, str(where))
        run(where, reps=int(sys.argv[3]) if len(sys.argv) > 3 else 10)
    elif step == "report":
        report(where)
    else:
        sys.exit(f"unknown step {step!r}: prepare, run or report")
