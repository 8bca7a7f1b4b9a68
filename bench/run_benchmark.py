"""Run step of the benchmark, on the GPU machine: times every compiled PIT
kernel of cases.py against its peers in the same run, and writes a table.

    python3 bench/run_benchmark.py KERNEL_DIR OUT_DIR [--reps N] [--only S]
                                   [--sweep | --tables]

Every time is the median over --reps calls, measured with CUDA events on
torch's stream (PIT runs on it through pitCudaSetStream). Each call gets a
different sparsity pattern: the inputs rotate among PATTERNS fresh random
tensors, so no call sees the pattern of the call before. Each peer's time
counts its conversion from the dense masked tensor, because the pattern is
dynamic; PIT's counts detection and compute. Before timing, every PIT case
is checked against torch in float64.

PIT is the library that selects its variant at run time (NAME__select.so)
when the compile step had a latency table; each case also times every
variant forced: the STile of the case's micro-tile with each dense tile of
cases.DENSE_TILES, and the dense fallback, detection included. The best of
them is the oracle that selection is held to. --tables times those variants
at the coverage points of cases.TABLE_COVERAGE instead, and writes the
STile database OUT_DIR/tables.json (bench/tables/DEVICE.json once
committed).
"""

import argparse
import json
import pathlib
import statistics
import sys
import time

import torch

import cases
from compiled_library import TOLERANCE, Kernel as PITKernel, relative_error, sparsify
from profiling import (busy_us, calls_busy_us, device_work_per_call,
                       lend_torch_stream, previous_call_ends)

PATTERNS = 6
TORCH_DTYPE = {"f16": torch.float16, "bf16": torch.bfloat16}


def medians_ms(fns, inputs, reps):
    """The median time of each fn(inputs[i]) of `fns` over `reps` rounds,
    rotating the inputs; in a round the functions are called in turn, each
    between its own events, so that they all see the same state of the
    machine. (Timed one after the other, the ratio of two libraries moved
    by 10-40% between runs at 95-99% sparsity, where a call is short and
    partly host-bound, and the oracle, the least of several such medians,
    came out low.) The round's first call meets its new input in DRAM and
    the others in L2 (an SDDMM's 32 MiB mask), so each round starts one
    function later than the round before."""
    # Each input twice: PIT's second call with the same tensors records
    # the graph that the later ones launch (pitCudaRunCall).
    for i in range(2 * len(inputs)):
        for fn in fns:
            fn(inputs[i % len(inputs)])
    torch.cuda.synchronize()
    events = [[(torch.cuda.Event(enable_timing=True),
                torch.cuda.Event(enable_timing=True)) for _ in fns]
              for _ in range(reps)]
    for r, round_events in enumerate(events):
        x = inputs[r % len(inputs)]
        for i in range(len(fns)):
            turn = (r + i) % len(fns)
            start, end = round_events[turn]
            start.record()
            fns[turn](x)
            end.record()
    torch.cuda.synchronize()
    return [statistics.median(start.elapsed_time(end)
                              for start, end in (r[i] for r in events))
            for i in range(len(fns))]


def median_ms(fn, inputs, reps):
    """Median time of fn(inputs[i]) over `reps` calls, rotating the inputs."""
    return medians_ms([fn], inputs, reps)[0]


def device_busy_us(fn, inputs, calls):
    """Median over `calls` calls of fn(inputs[i]) (rotating the inputs) of
    the time the call keeps the GPU busy: the union of its kernels' and
    memsets' spans (profiler; a kernel launched as a dependent starts while
    the one before it finishes, so spans overlap and are not summed). The
    host time of a call, and the gaps it leaves between kernels, do not
    count: at high sparsity calls are partly host-bound, and their
    end-to-end times moved by 20-40% from run to run (three medians of them
    still kept tiles that were no faster), while the device time of a tile
    is what tells it from another."""
    turn = iter(range(calls + 1))
    per_call = device_work_per_call(
        lambda: fn(inputs[next(turn) % len(inputs)]), calls)
    return statistics.median(calls_busy_us(per_call))


def try_ms(fn, inputs, reps):
    """median_ms, or the peer's error in a few words when it cannot run."""
    try:
        return median_ms(fn, inputs, reps)
    except Exception as error:  # a peer that refuses a case is reported
        return f"n/a ({type(error).__name__}: {str(error).splitlines()[0][:60]})"


def kernel_times(fn, x, calls=5):
    """Mean device time (ms) of each piece of device work fn(x) does, in
    launch order: what it adds to the call's busy time (busy_us), so that a
    dependent launch does not count the time it waited for the piece before
    it, in this call or the one before."""
    per_call = device_work_per_call(lambda: fn(x), calls)
    ends = previous_call_ends(per_call)

    def own_us(events, since, i):
        return busy_us(events[:i + 1], since) - busy_us(events[:i], since)

    return [sum(own_us(events, since, i) for events, since in zip(per_call, ends))
            / calls / 1e3 for i in range(len(per_call[0]))]


def random(*shape, dtype):
    return (torch.rand(*shape, device="cuda") * 2 - 1).to(dtype)


def copy_bandwidth():
    """Device-to-device copy bandwidth in bytes/ms, read + write counted."""
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(lambda _: dst.copy_(src), [None], 20)
    return 2 * src.numel() / ms


def chosen_variants(directory, name, call, inputs, runtime):
    """The variant the selecting library chose for each of `inputs` (called
    as call(x)), by name (NAME__select.json), from the runtime's record."""
    names = json.loads((directory / f"{name}__select.json").read_text())
    if names == ["dense"]:
        return names * len(inputs)  # the library stayed dense: no choice
    chosen = []
    for x in inputs:
        runtime.pitCudaClearChoices()
        call(x)
        choice = runtime.pitCudaLastChoice(0)
        if choice < 0:
            raise RuntimeError(f"{name}: no choice recorded: "
                               f"{runtime.pitCudaTakeError()}")
        chosen.append(names[choice])
    return chosen


def set_oracle(row):
    """PIT's STile, the fastest of its dense tiles forced (row["variants"]):
    "stile_tile", its time "fixed"; and the oracle, the fastest of it and
    dense forced: "oracle", "oracle_variant"."""
    row["stile_tile"] = min(row["variants"], key=row["variants"].get)
    row["fixed"] = row["variants"][row["stile_tile"]]
    row["oracle"] = min(row["fixed"], row["dense"])
    row["oracle_variant"] = ("dense" if row["dense"] <= row["fixed"]
                             else row["stile_tile"])


def set_chosen(row, chosen):
    """What selection chose for each pattern ("chosen_all"), the most
    frequent choice ("chosen"; the patterns of a case rarely differ), and
    that variant's time forced ("chosen_forced")."""
    row["chosen_all"] = chosen
    row["chosen"] = max(set(chosen), key=chosen.count)
    # A variant the benchmark did not also force has no forced time.
    row["chosen_forced"] = (row["dense"] if row["chosen"] == "dense"
                            else row["variants"].get(row["chosen"]))


def bench_matmul(directory, name, dtype_name, micro_text, block, sparsity,
                 reps, bandwidth, cublas_cache, runtime):
    dtype = TORCH_DTYPE[dtype_name]
    n = cases.SIZE
    micro = [int(e) for e in micro_text.split("x")]
    b = random(n, n, dtype=dtype)
    inputs = [sparsify(random(n, n, dtype=dtype), micro, sparsity)
              for _ in range(PATTERNS)]
    # C has the inputs' type, as torch.matmul's output does.
    c = random(n, n, dtype=dtype)
    ref = inputs[0].double() @ b.double()
    row = {"case": name, "dtype": dtype_name, "micro": micro_text,
           "sparsity": sparsity}
    # Every library is checked first: C = A B against float64; C's random
    # values are poison. Then timed.
    errors = []
    row["variants"], kernels = {}, {}
    for key, library in cases.case_libraries(name).items():
        path = directory / library
        if not path.exists():
            continue
        kernel = PITKernel(path)
        kernels[key] = kernel
        c.copy_(random(n, n, dtype=dtype))
        kernel(inputs[0], b, c)
        torch.cuda.synchronize()
        errors.append(relative_error(c, ref))
    row["error"] = max(errors)
    # The choosing library, as a user calls it, is timed alone in three
    # windows of a third of the calls, apart in time, and its time is the
    # median of the three: a slow spell of the machine (a 110 us call
    # timed at 0.21 ms, 30 calls in a row) then moves one window, not the
    # figure.
    select_windows = []

    def time_select_window():
        if "select" in kernels:
            select_windows.append(median_ms(
                lambda a: kernels["select"](a, b, c), inputs,
                max(reps // 3, 1)))

    time_select_window()
    # The forced libraries (each tile and dense), of which the fastest is
    # the oracle, are timed in turn: timed one after the other, a library
    # whose 30 calls met a slow spell of the machine came out up to 1.8x
    # slower than in the next run, and the choice compared with the oracle
    # through it moved with it.
    forced = [key for key in kernels if key != "select"]
    times = medians_ms([lambda a, kernel=kernels[key]: kernel(a, b, c)
                        for key in forced], inputs, reps)
    for key, time_ms in zip(forced, times):
        if key == "dense":
            row[key] = time_ms
        else:
            row["variants"][key] = time_ms
    time_select_window()
    set_oracle(row)
    if "select" in kernels:
        chosen = chosen_variants(directory, name,
                                 lambda a: kernels["select"](a, b, c), inputs,
                                 runtime)
        set_chosen(row, chosen)
    # Selection against the oracle's library and cuBLAS, timed in turn on
    # the case's own inputs: cuBLAS is faster on a masked A than on a dense
    # one (158-165 us at 90-99% against 180 dense on an H100: zeros draw less
    # power and the clocks stay higher), so it is timed per case, not once.
    if "select" in kernels:
        chosen, best_forced = kernels["select"], kernels[row["oracle_variant"]]
        row["paired_select"], row["paired_oracle"], row["paired_cublas"] = \
            medians_ms([lambda a: chosen(a, b, c),
                        lambda a: best_forced(a, b, c),
                        lambda a: torch.matmul(a, b)], inputs, reps)
        time_select_window()
        row["select"] = statistics.median(select_windows)
        # The same on the device alone: at 95-99% a call takes about as
        # long on the host (launches, ctypes, events) as on the GPU, and the
        # host's speed on the GPU machine swings by 2x from one minute to
        # the next; the device time does not.
        # What call graphs save: the same library launch by launch, timed
        # apart (in turn, the other's calls would keep the GPU busy while
        # this one's host issues its launches, hiding the host's time),
        # between two timings with graphs.
        runtime.pitCudaSetCallGraphs(0)
        row["select_launches"] = median_ms(lambda a: chosen(a, b, c), inputs,
                                           reps)
        runtime.pitCudaSetCallGraphs(1)
        row["select_graphs"] = statistics.mean(
            [row["select"], median_ms(lambda a: chosen(a, b, c), inputs, reps)])
        row["select_device_us"] = device_busy_us(
            lambda a: chosen(a, b, c), inputs, reps)
        row["oracle_device_us"] = device_busy_us(
            lambda a: best_forced(a, b, c), inputs, reps)
    row["pit"] = row.get("select", row["fixed"])
    # Device work of that STile in launch order: clear the counts (memset),
    # detect, (gathered along m) a memset clearing C, the STile.
    best = kernels[row["stile_tile"]]
    row["pit_kernels"] = kernel_times(lambda a: best(a, b, c), inputs[1])
    if dtype_name not in cublas_cache:
        cublas_cache[dtype_name] = median_ms(lambda a: torch.matmul(a, b),
                                             inputs, reps)
    # cuBLAS timed alone once per dtype, on the first case's inputs: what
    # runs before 2026-11-24 reported; kept to compare.
    row["cublas_alone"] = cublas_cache[dtype_name]
    row["cublas"] = row.get("paired_cublas") or median_ms(
        lambda a: torch.matmul(a, b), inputs, reps)
    row["cusparse"] = try_ms(lambda a: a.to_sparse_csr() @ b, inputs, reps)
    from torch.sparse._triton_ops import bsr_dense_addmm
    out16 = torch.zeros(n, n, dtype=dtype, device="cuda")
    row["triton"] = try_ms(
        lambda a: bsr_dense_addmm(out16, a.to_sparse_bsr(block), b, beta=0),
        inputs, reps)
    row["ideal"] = row["cublas"] * (1 - sparsity) + \
        inputs[0].numel() * inputs[0].element_size() / bandwidth
    row["to_sparse_bsr"] = try_ms(lambda a: a.to_sparse_bsr(block), inputs, reps)
    return row


def warm_up(seconds=1.0):
    """Keeps the GPU busy for a while first: the first points measured on an
    idle GPU (clocks still rising) came out up to a third slower, which
    made a tile look best at a point where it is not."""
    a = random(cases.SIZE, cases.SIZE, dtype=torch.float16)
    end = time.time() + seconds
    while time.time() < end:
        torch.matmul(a, a)
        torch.cuda.synchronize()


def table_case(entry, dtype):
    """What the STile database entry `entry` measures: a function from a
    variant's micro-tile text to its case's name, and one from the sparse
    operand (n x n: A of the matmul, the mask of the SDDMM) to the
    arguments of a call."""
    n = cases.SIZE
    c = random(n, n, dtype=dtype)
    if entry["op"].startswith("linalg.matmul"):
        b = random(n, n, dtype=dtype)
        return (lambda micro: f"matmul_{entry['op'].split()[-1].split(',')[0]}_{micro}",
                lambda a: (a, b, c))
    k = int(entry["op"].split()[1].split("x")[2])
    a, b = random(n, k, dtype=dtype), random(k, n, dtype=dtype)
    return lambda micro: f"sddmm_k{k}_{micro}", lambda mask: (a, b, mask, c)


def measure_tables(directory, reps, only="", kept=None):
    """The STile database: each case's variants (its STile with each dense
    tile, and the dense fallback, forced, detection included) timed on
    patterns of its micro-tile at every coverage point of
    cases.TABLE_COVERAGE: the device time of a call (device_busy_us). Dense
    is timed on each micro-tile's patterns too: every variant gets its
    dense_latency_us, and the entry the median as dense_us. With `only`,
    just the variants of cases whose name has it are measured; the others,
    and dense where none of its entry's are, keep their latencies from the
    table `kept`."""
    table = cases.skeleton_table()
    kept_ops = {entry["op"]: entry for entry in (kept or {}).get("ops", [])}
    n = cases.SIZE
    warm_up()
    for entry in table["ops"]:
        dtype = TORCH_DTYPE[entry["op"].split()[-1].split(",")[0]]
        case_name, arguments = table_case(entry, dtype)
        # Dense on each micro-tile's patterns, one per coverage point.
        dense_by_micro = {}
        measured = ("latency_us", "dense_latency_us")
        for variant in entry["variants"]:
            micro = variant["micro_tile"]
            name = case_name(f"{micro[0]}x{micro[1]}")
            number = cases.variant_number(name, variant)
            if only not in name:
                same = [old for old in kept_ops[entry["op"]]["variants"]
                        if {k: v for k, v in old.items() if k not in measured}
                        == {k: v for k, v in variant.items() if k not in measured}]
                variant.update({k: v for k, v in same[0].items() if k in measured})
                continue
            fixed = PITKernel(directory / cases.variant_library(name, number))
            dense = PITKernel(directory / cases.variant_library(
                name, len(cases.case_tiles(name))))
            latencies = []
            for coverage in cases.TABLE_COVERAGE:
                inputs = [sparsify(random(n, n, dtype=dtype), micro, 1 - coverage)
                          for _ in range(PATTERNS)]
                latencies.append(device_busy_us(
                    lambda x: fixed(*arguments(x)), inputs, reps))
                if number == 0:
                    dense_by_micro.setdefault(tuple(micro), []).append(
                        round(device_busy_us(
                            lambda x: dense(*arguments(x)), inputs, reps), 1))
            variant["latency_us"] = [round(t, 1) for t in latencies]
            print(f"{entry['op']} {micro} {variant['dense_tile']} "
                  f"panel {variant.get('panel', 0)}"
                  f"{' grouped' if variant.get('group_rows') else ''}: "
                  + " ".join(f"{t:.0f}" for t in variant["latency_us"]),
                  flush=True)
        for variant in entry["variants"]:
            micro = tuple(variant["micro_tile"])
            if micro in dense_by_micro:
                variant["dense_latency_us"] = dense_by_micro[micro]
        for micro, times in dense_by_micro.items():
            print(f"{entry['op']} dense on {list(micro)} patterns: "
                  + " ".join(f"{t:.0f}" for t in times), flush=True)
        dense_times = [t for times in dense_by_micro.values() for t in times]
        entry["dense_us"] = (round(statistics.median(dense_times), 1) if dense_times
                             else kept_ops[entry["op"]]["dense_us"])
        print(f"{entry['op']} dense: {entry['dense_us']:.0f}", flush=True)
    return table


def sweep_variants(directory, name, micro_text, sparsity, reps):
    """PIT's time with each block shape of cases.VARIANTS on one case."""
    n = cases.SIZE
    micro = [int(e) for e in micro_text.split("x")]
    b = random(n, n, dtype=torch.float16)
    inputs = [sparsify(random(n, n, dtype=torch.float16), micro, sparsity)
              for _ in range(PATTERNS)]
    ref = inputs[0].double() @ b.double()
    times, errors = {}, {}
    for variant in cases.VARIANTS:
        kernel = PITKernel(directory / "variants" /
                           f"{cases.variant_name(name, variant)}.so")
        c = random(n, n, dtype=torch.float16)  # poison: C = A B overwrites it
        kernel(inputs[0], b, c)
        torch.cuda.synchronize()
        key = "n{}_k{}_s{}".format(*variant)
        errors[key] = relative_error(c, ref)
        times[key] = median_ms(lambda a: kernel(a, b, c), inputs, reps)
    return {"case": name, "sparsity": sparsity, "error": max(errors.values()),
            "errors": errors, "times": times}


def bench_sddmm(directory, name, k, micro_text, sparsity, reps, runtime):
    n = cases.SIZE
    micro = [int(e) for e in micro_text.split("x")]
    a, b = random(n, k, dtype=torch.float16), random(k, n, dtype=torch.float16)
    masks = [sparsify(random(n, n, dtype=torch.float16), micro, sparsity)
             for _ in range(PATTERNS)]
    c = random(n, n, dtype=torch.float16)
    row = {"case": name, "micro": micro_text, "k": k, "sparsity": sparsity}
    # The forced variants (the STile, the dense SDDMM kernel) and the
    # selecting library, each checked against float64 first.
    kernels, errors = {}, []
    ref = c.double() + masks[0].double() * (a.double() @ b.double())
    for key, library in cases.case_libraries(name).items():
        if not (directory / library).exists():
            continue
        kernels[key] = PITKernel(directory / library)
        out = c.clone()
        kernels[key](a, b, masks[0], out)
        torch.cuda.synchronize()
        errors.append(relative_error(out, ref))
    row["error"] = max(errors)
    # All in turn, with dense-then-mask.
    keys = list(kernels)
    times = medians_ms([lambda m, kernel=kernels[key]: kernel(a, b, m, c)
                        for key in keys] + [lambda m: (a @ b) * m], masks, reps)
    row["variants"] = {key: time_ms for key, time_ms in zip(keys, times)
                       if key not in ("dense", "select")}
    row["dense"] = times[keys.index("dense")]
    row["dense_then_mask"] = times[-1]
    set_oracle(row)
    if "select" in kernels:
        row["select"] = times[keys.index("select")]
        chosen = chosen_variants(
            directory, name, lambda m: kernels["select"](a, b, m, c), masks,
            runtime)
        set_chosen(row, chosen)
        row["select_device_us"] = device_busy_us(
            lambda m: kernels["select"](a, b, m, c), masks, reps)
        row["oracle_device_us"] = device_busy_us(
            lambda m: kernels[row["oracle_variant"]](a, b, m, c), masks, reps)
    row["pit"] = row.get("select", row["fixed"])
    best = kernels[row["stile_tile"]]
    row["pit_kernels"] = kernel_times(lambda m: best(a, b, m, c), masks[1])
    a32, b32 = a.float(), b.float()
    row["sampled_addmm"] = try_ms(
        lambda m: torch.sparse.sampled_addmm(m.float().to_sparse_csr(), a32, b32),
        masks, reps)
    return row


def fmt(value):
    return f"{value:8.3f}" if isinstance(value, float) else "     n/a"


def ratio(numerator, denominator):
    if isinstance(numerator, float) and isinstance(denominator, float):
        return f"{numerator / denominator:6.2f}"
    return "   n/a"


def kernels_text(row):
    return "/".join(f"{ms:.3f}" for ms in row["pit_kernels"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--only", default="", help="run cases whose name has this")
    parser.add_argument("--sweep", action="store_true",
                        help="time the block shapes of cases.VARIANTS instead")
    parser.add_argument("--tables", action="store_true",
                        help="measure the STile database instead")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    runtime = lend_torch_stream(options.directory)
    torch.manual_seed(0)
    device = torch.cuda.get_device_name()
    bandwidth = copy_bandwidth()
    print(f"device: {device}, torch {torch.__version__}; "
          f"device-to-device copy {bandwidth / 1e9:.2f} TB/s (read + write)")
    results = {"device": device, "torch": torch.__version__,
               "copy_bandwidth_TBps": bandwidth / 1e9, "matmul": [], "sddmm": []}
    cublas_cache = {}
    failed = 0
    if options.tables:
        kept = None
        if options.only:
            kept = json.loads(cases.table_path(device).read_text())
        table = measure_tables(options.directory, options.reps, options.only, kept)
        command = "scripts/bench.sh run OUT --tables"
        if options.only:
            command += (f" --only {options.only} (the rest kept from the table "
                        f"of {kept.get('date', '?')})")
        table.update(device=device, date=time.strftime("%Y-%m-%d"), command=command)
        (options.out / "tables.json").write_text(json.dumps(table, indent=1))
        return
    if options.sweep:
        results["sweep"] = []
        for name, dtype, micro, _, _ in cases.matmul_cases():
            if dtype != "f16" or options.only not in name:
                continue
            for sparsity in cases.SPARSITIES:
                row = sweep_variants(options.directory, name, micro, sparsity,
                                     options.reps)
                results["sweep"].append(row)
                failed += not row["error"] < TOLERANCE[torch.float16]
                ranked = sorted(row["times"].items(), key=lambda item: item[1])
                print(f"{name:18s} {sparsity:5.2f} err {row['error']:.1e} best "
                      + "  ".join(f"{v} {ms:.3f}" for v, ms in ranked[:3])
                      + f"  worst {ranked[-1][0]} {ranked[-1][1]:.3f}",
                      flush=True)
                wrong = [v for v, e in row["errors"].items() if not e < TOLERANCE[torch.float16]]
                if wrong:
                    print(f"  wrong: {' '.join(wrong)}", flush=True)
        (options.out / "sweep.json").write_text(json.dumps(results, indent=1))
        print(f"{failed} case(s) failed the correctness check")
        sys.exit(1 if failed else 0)
    print(f"{'case':18s} {'spars':>5s} {'err':>8s} {'PIT':>8s} {'fixed':>8s} "
          f"{'dense':>8s} {'PIT/orcl':>8s} {'paired':>8s} {'cuBLAS':>8s} "
          f"{'cuSPARSE':>8s} {'Triton':>8s} {'ideal':>8s} {'cuBLAS/PIT':>10s} "
          f"{'PIT/ideal':>9s} {'toBSR':>8s} fixed = best tile, its kernels (ms); "
          f"the variant chosen, its time forced / oracle; device time a call, "
          f"PIT / oracle",
          flush=True)
    for name, dtype, micro, _, block in cases.matmul_cases():
        if options.only not in name:
            continue
        for sparsity in cases.SPARSITIES:
            row = bench_matmul(options.directory, name, dtype, micro, block,
                               sparsity, options.reps, bandwidth, cublas_cache,
                               runtime)
            results["matmul"].append(row)
            failed += not row["error"] < TOLERANCE[TORCH_DTYPE[dtype]]
            print(f"{name:18s} {sparsity:5.2f} {row['error']:8.1e} {fmt(row['pit'])} "
                  f"{fmt(row['fixed'])} {fmt(row['dense'])} "
                  f"{ratio(row['pit'], row['oracle']):>8s} "
                  f"{ratio(row.get('paired_select'), row.get('paired_oracle')):>8s} "
                  f"{fmt(row['cublas'])} {fmt(row['cusparse'])} {fmt(row['triton'])} "
                  f"{fmt(row['ideal'])} {ratio(row['cublas'], row['pit']):>10s} "
                  f"{ratio(row['pit'], row['ideal']):>9s} {fmt(row['to_sparse_bsr'])} "
                  f"{row['stile_tile']} {kernels_text(row)} "
                  f"chose {row.get('chosen', 'n/a')} "
                  f"{ratio(row.get('chosen_forced'), row['oracle'])} device "
                  f"{ratio(row.get('select_device_us'), row.get('oracle_device_us'))}",
                  flush=True)
    print(f"{'case':18s} {'spars':>5s} {'err':>8s} {'PIT':>8s} {'STile':>8s} "
          f"{'dense':>8s} {'dense*M':>8s} {'sampled':>8s} {'dense*M/PIT':>11s} "
          f"chosen (forced / oracle); the STile's kernels (ms)", flush=True)
    for name, k, micro, _ in cases.sddmm_cases():
        if options.only not in name:
            continue
        for sparsity in cases.SPARSITIES:
            row = bench_sddmm(options.directory, name, k, micro, sparsity,
                              options.reps, runtime)
            results["sddmm"].append(row)
            failed += not row["error"] < TOLERANCE[torch.float16]
            print(f"{name:18s} {sparsity:5.2f} {row['error']:8.1e} {fmt(row['pit'])} "
                  f"{fmt(row['fixed'])} {fmt(row['dense'])} "
                  f"{fmt(row['dense_then_mask'])} {fmt(row['sampled_addmm'])} "
                  f"{ratio(row['dense_then_mask'], row['pit']):>11s} "
                  f"{row.get('chosen', 'n/a')} "
                  f"({ratio(row.get('chosen_forced'), row['oracle'])}) "
                  f"{kernels_text(row)}", flush=True)
    (options.out / "results.json").write_text(json.dumps(results, indent=1))
    print(f"{failed} case(s) failed the correctness check")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
