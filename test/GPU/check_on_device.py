"""Run step of the GPU check, on the GPU machine: calls every library that
compile_kernels.py built, through its checked C entry point (ctypes, on torch
device pointers), on fresh random data with a new sparsity pattern at every
call, and compares with torch in float64. Then checks that bad calls are
refused. Prints one line per case and sparsity, and a summary.

    python3 check_on_device.py DIR [--only-prefix small_] [--calls N]
                               [--stream-ordered] [--skip PART ...]

By default each call waits for its work before it returns. With
--stream-ordered the calls run on a torch stream of their own that is lent to
the runtime (pitCudaSetStream): they return once queued, and the check reads
C after them on that stream with no synchronisation in between, so a call
that let its caller run ahead of its kernels fails.
"""

import argparse
import ctypes
import pathlib
import re
import sys
import time

import torch

import kernels
from compile_kernels import CHIP
from compiled_library import (TOLERANCE, Kernel, load_runtime, relative_error,
                              sparsify)

TORCH_DTYPE = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
SPARSITIES = [0.0, 0.5, 0.9, 0.99, 1.0]



def sample_counts(a, micro, axis, every):
    """pit.count's result, by torch: the non-zero micro-tiles of every
    `every`-th segment (segments are bands of micro-tile rows gathered along
    the columns, axis 1, micro-tile columns along the rows, axis 0), as
    float64 so that relative_error compares them (one miscount in a sample
    is above f32's tolerance)."""
    rows, columns = micro
    tiles = a.reshape(a.shape[0] // rows, rows, a.shape[1] // columns, columns)
    nonzero = (tiles != 0).any(dim=3).any(dim=1)
    per_segment = nonzero.sum(dim=1 if axis == 1 else 0)
    return per_segment[::every].double()


def run_case(name, template, params, pit_loop, directory, calls, sparsities,
             ordered, last_choice, clear_choices):
    """Calls the case's library `calls` times at each sparsity; returns
    whether every result was within tolerance and, for a case with
    "choices", every call chose the expected variant (`last_choice()`: the
    runtime's record of the call's choice, cleared by `clear_choices()`
    before the call)."""
    kernel = Kernel(directory / f"{name}.so")
    t = TORCH_DTYPE[params["t"]]
    micro = [int(e) for e in params.get("pattern", params["mt"]).split("x")]
    rand = lambda *shape, dtype=t: (torch.rand(*shape, device="cuda") * 2 - 1).to(dtype)
    tolerance = TOLERANCE[TORCH_DTYPE[params["ct"]]]
    worst = 0.0
    wrong_choices = 0
    for sparsity in sparsities:
        chose = ""
        for call in range(calls * len(params.get("call_rows", [0]))):
            if template in (kernels.MATMUL, kernels.MATMUL_CONFIGURED,
                            kernels.MATMUL_CLEARED,
                            kernels.MATMUL_SPLIT_K,
                            kernels.MATMUL_SPLIT_K_CLEARED,
                            kernels.MATMUL_UNFREED_TEMPORARY,
                            kernels.MATMUL_TENSOR_TEMPORARY):
                m = params["m"]
                if m == "?":
                    m = params["call_rows"][call % len(params["call_rows"])]
                # Whole micro-tiles zeroed, then cut to m rows.
                padded = -(-m // micro[0]) * micro[0]
                a = sparsify(rand(padded, params["k"]), micro, sparsity)[:m].contiguous()
                b = rand(params["k"], params["n"])
                c = rand(m, params["n"], dtype=TORCH_DTYPE[params["ct"]])
                # C = A x B overwrites C, whose random values are the poison.
                ref = a.double() @ b.double()
                if template not in (kernels.MATMUL_CLEARED,
                                    kernels.MATMUL_SPLIT_K_CLEARED):
                    ref += c.double()
                args = (a, b, c)
            elif template in (kernels.LINEAR, kernels.LINEAR_DENSE):
                a = sparsify(rand(params["m"], params["k"]), micro, sparsity)
                w = rand(params["n"], params["k"])
                c = rand(params["m"], params["n"], dtype=TORCH_DTYPE[params["ct"]])
                ref = a.double() @ w.double().t()
                args = (a, w, c)
            elif template in (kernels.LINEAR_BIAS, kernels.LINEAR_BIAS_DENSE):
                a = sparsify(rand(params["m"], params["k"]), micro, sparsity)
                w = rand(params["n"], params["k"])
                ct = TORCH_DTYPE[params["ct"]]
                bias = rand(params["bias_extent"], dtype=ct)
                # C's random values are the poison: the bias replaces them.
                c = rand(params["m"], params["n"], dtype=ct)
                along = bias[:, None] if params["added_dimension"] == 1 else bias[None, :]
                ref = a.double() @ w.double().t() + along.double()
                args = (a, w, bias, c)
            elif template is kernels.COUNT:
                a = sparsify(rand(params["m"], params["k"]), micro, sparsity)
                # Poison: every count is written, none is added to.
                counts = torch.randint(-99, 99, (params["s"],), device="cuda",
                                       dtype=torch.int32)
                mark = [int(e) for e in params["mt"].split("x")]
                ref = sample_counts(a, mark, params["axis"], params["every"])
                args = (a, counts)
            elif template is kernels.BATCH_MATMUL:
                a = sparsify(rand(params["b"], params["m"], params["k"]), micro, sparsity)
                b = rand(params["b"], params["k"], params["n"])
                c = rand(params["b"], params["m"], params["n"], dtype=torch.float32)
                ref = c.double() + torch.bmm(a.double(), b.double())
                args = (a, b, c)
            else:
                a, b = rand(params["m"], params["k"]), rand(params["k"], params["n"])
                mask = sparsify(rand(params["m"], params["n"]), micro, sparsity)
                c = rand(params["m"], params["n"], dtype=TORCH_DTYPE[params["ct"]])
                ref = c.double() + mask.double() * (a.double() @ b.double())
                args = (a, b, mask, c)
            if not ordered:
                torch.cuda.synchronize()
            expected = params.get("choices", {}).get(sparsity)
            if expected is not None:
                # So that a call that records nothing reads -1.
                clear_choices()
            start = time.perf_counter()
            kernel(*args)
            if not ordered:
                torch.cuda.synchronize()
            ms = (time.perf_counter() - start) * 1e3
            out = args[-1]
            error = relative_error(out.double() if template is kernels.COUNT
                                   else out, ref)
            worst = max(worst, error)
            if expected is not None:
                choice = last_choice()
                chose = f", chose {choice}"
                if choice != expected:
                    chose += f" (expected {expected}) FAIL"
                    wrong_choices += 1
        timing = "queued in" if ordered else "last call"
        print(f"{name:36s} sparsity {sparsity:4.2f}: rel err {error:.2e} "
              f"{'PASS' if error < tolerance else 'FAIL'} ({ms:.1f} ms, {timing})"
              f"{chose}", flush=True)
    return worst < tolerance and not wrong_choices


def check_refusals(directory):
    """Bad calls are refused with a message, and nothing runs."""
    kernel = Kernel(directory / "small_matmul_256_32x1_2.so")
    a = torch.zeros(256, 256, dtype=torch.float16, device="cuda")
    b = torch.zeros(256, 128, dtype=torch.float16, device="cuda")
    c = torch.zeros(256, 128, dtype=torch.float32, device="cuda")
    bad_calls = {
        "wrong shape": lambda: kernel(a, b[:128], c),
        "wrong dtype": lambda: kernel(a, b, c.half()),
        "wrong rank": lambda: kernel(a, b, c.reshape(-1)),
        "null pointer": lambda: kernel(a, b, c, data=[None, 0, None]),
        "misaligned": lambda: kernel(a, b, c, data=[a.data_ptr() + 2, None, None]),
        "wrong count": lambda: kernel(a, b),
    }
    # A's rows and C's rows are one loop of the dynamic-rows library: a
    # call where they differ would write past C.
    dynamic = Kernel(directory / "small_matmul_dynamic_rows_512_32x1.so")
    a_64 = torch.zeros(64, 512, dtype=torch.float16, device="cuda")
    b_512 = torch.zeros(512, 256, dtype=torch.float16, device="cuda")
    c_32 = torch.zeros(32, 256, dtype=torch.float32, device="cuda")
    bad_calls["untied extents"] = lambda: dynamic(a_64, b_512, c_32)
    ok = True
    # M = 0 is a call that does nothing: its empty tensors have no storage
    # (torch's data_ptr is 0), and are not refused as null.
    a_0 = torch.zeros(0, 512, dtype=torch.float16, device="cuda")
    c_0 = torch.zeros(0, 256, dtype=torch.float32, device="cuda")
    try:
        dynamic(a_0, b_512, c_0)
        torch.cuda.synchronize()
        print("accepted empty rows   : PASS")
    except RuntimeError as error:
        print(f"accepted empty rows   : FAIL {error}")
        ok = False
    for what, call in bad_calls.items():
        try:
            call()
            print(f"refusal {what:14s}: NOT refused FAIL")
            ok = False
        except RuntimeError as error:
            print(f"refusal {what:14s}: PASS  {error}")
    return ok


def check_choice_slots(runtime):
    """A slot of the record of choices out of range is refused with a
    message, not read."""
    ok = True
    for slot in [-1, 16]:
        choice = runtime.pitCudaLastChoice(slot)
        error = runtime.pitCudaTakeError()
        refused = choice == -1 and error is not None
        print(f"refusal choice slot {slot:3d}: "
              f"{'PASS' if refused else 'NOT refused FAIL'}  {error}")
        ok &= refused
    return ok


def check_call_graphs(runtime, directory):
    """Calls on a lent stream with the same tensors run as a CUDA graph
    from the second on (pitCudaRunCall; the second records it): every result
    and choice stays right while new data and patterns go through the same
    buffers, a graph's launch counts its kernels as dependent launches, as
    many as launch by launch, and with graphs off the calls run launch by
    launch again. A call inside a capture of the caller's (torch.cuda.graph)
    joins that capture, which then replays it."""
    name = "small_select_256_32x1_pattern"
    params = next(p for n, _, p, _, _ in kernels.cases() if n == name)
    kernel = Kernel(directory / f"{name}.so")
    c_type = TORCH_DTYPE[params["ct"]]

    def fresh(dtype):
        # 8 elements into an allocation (torch's start 512-byte aligned): an
        # address no earlier call of the check used, so a key of its own.
        return torch.empty(256 * 256 + 8, dtype=dtype,
                           device="cuda")[8:].view(256, 256)
    a, b, c = fresh(torch.float16), fresh(torch.float16), fresh(c_type)
    lent = torch.cuda.current_stream()
    runtime.pitCudaSetStream(ctypes.c_void_p(lent.cuda_stream))
    ok = True

    def fill(sparsity):
        a.copy_(sparsify((torch.rand(256, 256, device="cuda") * 2 - 1).half(),
                         [32, 1], sparsity))
        b.copy_((torch.rand(256, 256, device="cuda") * 2 - 1).half())
        c.copy_(torch.rand(256, 256, device="cuda") * 2 - 1)
        return a.double() @ b.double()

    def right(what, ref, expected=None):
        nonlocal ok
        error = relative_error(c, ref)
        choice = runtime.pitCudaLastChoice(0) if expected is not None else None
        if error >= TOLERANCE[c_type] or choice != expected:
            print(f"call graphs {what}: rel err {error:.2e}, chose {choice} "
                  f"(expected {expected}) FAIL")
            ok = False

    def calls(graphs):
        """Two calls at each sparsity; returns the dependent launches."""
        nonlocal ok
        graph_launches = runtime.pitCudaCallGraphLaunchCount()
        dependent = runtime.pitCudaDependentLaunchCount()
        count = 0
        for sparsity, expected in params["choices"].items():
            for _ in range(2):
                ref = fill(sparsity)
                runtime.pitCudaClearChoices()
                kernel(a, b, c)
                count += 1
                right(f"{name} sparsity {sparsity}", ref, expected)
        launched = runtime.pitCudaCallGraphLaunchCount() - graph_launches
        # Graphs on: the first call runs launch by launch, the second is
        # recorded into a graph and launches it, the rest launch it again.
        expected_launches = count - 1 if graphs else 0
        counted = launched == expected_launches
        print(f"call graphs {'on ' if graphs else 'off'}: {count} calls, "
              f"{launched} graph launches (expected {expected_launches}) "
              f"{'PASS' if counted else 'FAIL'}")
        ok &= counted
        return runtime.pitCudaDependentLaunchCount() - dependent

    runtime.pitCudaSetCallGraphs(0)
    launch_by_launch = calls(False)
    runtime.pitCudaSetCallGraphs(1)
    with_graphs = calls(True)
    counted = with_graphs == launch_by_launch > 0
    print(f"call graphs: {with_graphs} dependent launches with graphs, "
          f"{launch_by_launch} without {'PASS' if counted else 'FAIL'}")
    ok &= counted

    # More keys than the runtime keeps (64): the least recently used are
    # dropped, their graphs destroyed after their last launch, while calls
    # of the others go on; a dropped key's calls then record a graph again.
    pool = torch.empty(70 * 8 + 256 * 256, dtype=torch.float16, device="cuda")
    views = [pool[8 * i:8 * i + 256 * 256].view(256, 256) for i in range(70)]
    graph_launches = runtime.pitCudaCallGraphLaunchCount()
    for view in views + views[:2]:
        for _ in range(3):
            view.copy_(sparsify((torch.rand(256, 256, device="cuda") * 2 - 1)
                                .half(), [32, 1], 0.9))
            ref = view.double() @ b.double()
            c.copy_(torch.rand(256, 256, device="cuda") * 2 - 1)
            kernel(view, b, c)
            right("past the cache's 64 keys", ref)
    launched = runtime.pitCudaCallGraphLaunchCount() - graph_launches
    # Three calls a key: the second and third launch its graph, the first
    # two keys', dropped and called again, included.
    evicted = launched == 144
    print(f"call graphs: 72 keys, {launched} graph launches (expected 144) "
          f"{'PASS' if evicted else 'FAIL'}")
    ok &= evicted

    # Graphs of one function on different tensors share its workspace (the
    # index, the counts, the choice): calls going round three sets of
    # tensors whose patterns make the device choose three different
    # variants, queued without waiting (the first round launch by launch,
    # the second recording, the third launching the graphs), each result
    # right; then each set's graph once more, alone, its choice checked.
    by_choice = {}
    for sparsity, expected in params["choices"].items():
        by_choice.setdefault(expected, sparsity)
    sets = [(fresh(torch.float16), fresh(torch.float16), fresh(c_type))
            for _ in by_choice]
    refs = []
    for (a_i, b_i, _), sparsity in zip(sets, by_choice.values()):
        a_i.copy_(sparsify((torch.rand(256, 256, device="cuda") * 2 - 1)
                           .half(), [32, 1], sparsity))
        b_i.copy_((torch.rand(256, 256, device="cuda") * 2 - 1).half())
        refs.append(a_i.double() @ b_i.double())
    graph_launches = runtime.pitCudaCallGraphLaunchCount()
    shared = len(sets) == 3
    for _ in range(3):
        for _, _, c_i in sets:
            c_i.fill_(float("nan"))
        for a_i, b_i, c_i in sets:
            kernel(a_i, b_i, c_i)
        torch.cuda.synchronize()
        shared &= all(relative_error(c_i, ref) < TOLERANCE[c_type]
                      for (_, _, c_i), ref in zip(sets, refs))
    for (a_i, b_i, c_i), expected in zip(sets, by_choice):
        runtime.pitCudaClearChoices()
        kernel(a_i, b_i, c_i)
        torch.cuda.synchronize()
        shared &= runtime.pitCudaLastChoice(0) == expected
    launched = runtime.pitCudaCallGraphLaunchCount() - graph_launches
    shared &= launched == 9
    print(f"call graphs: {len(sets)} sets of tensors in turn, choices "
          f"{sorted(by_choice)}, {launched} graph launches (expected 9), "
          f"results {'PASS' if shared else 'FAIL'}")
    ok &= shared

    c32 = fresh(torch.float32)

    def accumulating_calls(library, what):
        """Four calls of `library` (C += A x B through a temporary) with the
        same tensors, new data each time, every result checked; returns how
        many of them launched a graph."""
        nonlocal ok
        accumulate = Kernel(directory / f"{library}.so")
        graph_launches = runtime.pitCudaCallGraphLaunchCount()
        for _ in range(4):
            ref = fill(0.9)
            c32.copy_(torch.rand(256, 256, device="cuda") * 2 - 1)
            ref += c32.double()
            accumulate(a, b, c32)
            error = relative_error(c32, ref)
            if error >= TOLERANCE[torch.float32]:
                print(f"call graphs, {what}: rel err {error:.2e} FAIL")
                ok = False
        return runtime.pitCudaCallGraphLaunchCount() - graph_launches

    # A program whose host code leaves an allocation unfreed cannot be a
    # graph (its next call would reuse the workspace the first one kept):
    # its calls with the same tensors run launch by launch, right.
    none = accumulating_calls("small_matmul_unfreed_256_32x1_2",
                              "unfreed temporary") == 0
    print(f"call graphs: a call that leaves an allocation unfreed runs launch "
          f"by launch {'PASS' if none else 'FAIL'}")
    ok &= none
    # On tensors, pit-bufferize frees the same temporary: the calls become
    # graphs (the second records, the rest launch it).
    launched = accumulating_calls("small_matmul_tensor_temporary_256_32x1_2",
                                  "freed temporary")
    print(f"call graphs: a temporary pit-bufferize frees, {launched} graph "
          f"launches of 4 calls (expected 3) {'PASS' if launched == 3 else 'FAIL'}")
    ok &= launched == 3

    # Inside the caller's capture (torch lends its capture stream, as
    # pit's Python runtime does): the calls' work joins the capture, even
    # the second call with these tensors, which would otherwise be
    # recorded; then the caller's graph replays it on new data.
    captured = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    graph_launches = runtime.pitCudaCallGraphLaunchCount()
    with torch.cuda.graph(captured):
        runtime.pitCudaSetStream(
            ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        kernel(a, b, c)
        kernel(a, b, c)
    runtime.pitCudaSetStream(ctypes.c_void_p(lent.cuda_stream))
    joined = runtime.pitCudaCallGraphLaunchCount() == graph_launches
    ref = fill(0.9)
    captured.replay()
    right("in torch.cuda.graph, replayed", ref)
    print(f"call graphs: a call inside torch.cuda.graph joins the capture "
          f"{'PASS' if joined else 'FAIL'}")
    ok &= joined
    torch.cuda.synchronize()
    runtime.pitCudaClearStream()
    return ok


def check_dependent_launches(name, params, launches):
    """Kernels compiled for sm_90 and newer launch as dependents (they start
    while the kernel before them finishes, pit-dependent-launch); those of
    older chips, whose modules have no marker, as plain launches."""
    chip = params.get("chip", CHIP)
    expected = int(re.match(r"sm_(\d+)", chip).group(1)) >= 90
    ok = (launches > 0) == expected
    if not ok:
        print(f"{name:36s} FAIL: {launches} dependent launches for {chip}")
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--only-prefix", default="")
    # Cases whose names hold one of these are left out (racecheck: the
    # panel kernels' reused named-barrier turns, which it reports though
    # they are ordered; bench/probes/barrier_handover.cu).
    parser.add_argument("--skip", nargs="*", default=[])
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--sparsities", type=float, nargs="+", default=SPARSITIES)
    parser.add_argument("--stream-ordered", action="store_true")
    options = parser.parse_args()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    passed = failed = 0
    # The libraries share this copy of the runtime.
    runtime = load_runtime(options.directory)
    if options.stream_ordered:
        torch.cuda.set_stream(torch.cuda.Stream())
        runtime.pitCudaSetStream(
            ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    for name, template, params, pit_loop, refused in kernels.cases():
        if not name.startswith(options.only_prefix) or any(
                part in name for part in options.skip):
            continue
        if refused:
            message = (options.directory / f"{name}.refused").read_text().strip()
            print(f"{name:36s} refused at compile time: {message.splitlines()[0]}")
            passed += 1
            continue
        launches = runtime.pitCudaDependentLaunchCount()
        ok = run_case(name, template, params, pit_loop, options.directory,
                      options.calls, options.sparsities, options.stream_ordered,
                      lambda: runtime.pitCudaLastChoice(0),
                      runtime.pitCudaClearChoices)
        ok &= check_dependent_launches(
            name, params, runtime.pitCudaDependentLaunchCount() - launches)
        passed, failed = passed + ok, failed + (not ok)
    for ok in [check_refusals(options.directory), check_choice_slots(runtime),
               check_call_graphs(runtime, options.directory)]:
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
