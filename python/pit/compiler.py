"""One call from a module with pit.sparse marks to what runs it: PTX, a
cubin, or a shared library for the CPU or an NVIDIA GPU.

The MLIR part (the pipeline, the translation to LLVM IR and to the checked C
entry points) runs in process, so its failures are MLIRErrors with MLIR's
diagnostics, and so does the code generation of the host code (LLVM's
TargetMachine, as pit-compile's). Then the C compiler links it.
"""

import atexit
import itertools
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import warnings

from . import _config, _pit
from .errors import CompileWarning

CPU = "cpu"
GPU_TARGETS = ("sm_80", "sm_90", "sm_90a")
OUTPUTS = ("shared_library", "ptx", "cubin")

_scratch = None
_library_numbers = itertools.count()


def _scratch_dir():
    """A directory for libraries compiled without a path, removed at exit
    (a loaded library stays usable after its file is gone)."""
    global _scratch
    if _scratch is None:
        _scratch = tempfile.mkdtemp(prefix="pit-")
        atexit.register(shutil.rmtree, _scratch, ignore_errors=True)
    return _scratch


def _run_tool(command):
    result = subprocess.run([str(part) for part in command],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{os.path.basename(str(command[0]))} failed:\n"
                           f"{result.stderr.strip()}")


def signatures(module):
    """[{"name", "args": [{"dtype", "shape"}]}] of the module's public
    functions with a body: what a compiled library's manifest lists."""
    functions = []
    for operation in module.body.operations:
        if operation.name != "func.func" or not operation.regions[0].blocks:
            continue
        attributes = operation.attributes
        if "sym_visibility" in attributes and attributes["sym_visibility"].value != "public":
            continue
        name = attributes["sym_name"].value
        function_type = attributes["function_type"].value
        inputs = function_type.inputs
        for number, type in enumerate(inputs):
            if not type.is_memref:
                raise ValueError(f"argument {number} of '{name}' has type {type}; "
                                 "compiled functions take memrefs")
        if function_type.results:
            raise ValueError(
                f"'{name}' returns a value that is not written into one of its "
                "arguments; a compiled function returns only what updates an "
                "argument in place (a linalg op's destination)")
        functions.append({
            "name": name,
            "args": [{"dtype": str(t.element_type), "shape": list(t.shape)}
                     for t in inputs]})
    return functions


def _lower(module, pipeline, remarks=None):
    """`module` through `pipeline`, on a clone. Its remarks go to the list
    `remarks`, or, those that tell of an op left alone or on the SIMT
    lowering, become CompileWarnings."""
    lowered = module.clone()
    _pit.PassManager(module.context, pipeline).run(lowered)
    if remarks is None:
        _warn_remarks(module.context)
    else:
        remarks += [diagnostic for diagnostic in module.context.take_diagnostics()
                    if ": remark: " in diagnostic]
    return lowered


# Remarks that tell a user the program did not compile as marked.
_WARNED_REMARKS = ("left alone", "left to the SIMT lowering", "runs on the SIMT lowering")


def _warn_remarks(context):
    """The pipeline's remarks that an op was left alone or took the SIMT
    lowering, as CompileWarnings (the rest of its remarks are dropped)."""
    for diagnostic in context.take_diagnostics():
        if ": remark: " in diagnostic and any(text in diagnostic for text in _WARNED_REMARKS):
            warnings.warn(diagnostic, CompileWarning, stacklevel=4)


def _choice(pit_loop, candidate, latency_table, variant):
    """The pipelines' options that choose the PIT loop and micro-tile."""
    choice = f"pit-loop={pit_loop} candidate={candidate}"
    if latency_table is not None:
        table = pathlib.Path(latency_table).absolute()
        if not table.is_file():
            raise ValueError(f"latency_table: no such file: {table}")
        choice += f" latency-table={table} variant={int(variant)}"
    return choice


def compile(module, target=CPU, output="shared_library", path=None,
            pit_loop=-1, candidate=0, latency_table=None, variant=-1,
            embed="ptx"):
    """Compiles `module` for `target` ("cpu", "sm_80", "sm_90" or "sm_90a": wgmma).

    output="shared_library" writes a library to `path` (a fresh temporary
    file if None) and returns its path; load it with pit.load. For a GPU it
    exports the checked entry points pit_NAME and links
    libpit_cuda_runtime.so. output="ptx" or "cubin" (GPU targets) returns
    {gpu.binary name: PTX text or cubin bytes}. `pit_loop` and `candidate`
    choose the PIT loop and the candidate micro-tile (defaults: the
    analysis' first and the first). A GPU library embeds its kernels as
    PTX (embed="ptx": the driver compiles them when the library loads, for
    the GPU it finds) or as a cubin for exactly `target` (embed="cubin":
    ptxas runs here, and loading takes milliseconds instead of the driver's
    hundreds). `latency_table`, the path of an STile
    database (bench/tables/DEVICE.json), makes the choice among the mark's
    candidates and dense at run time instead; `variant` >= 0 then always
    runs that variant (the number of variants: dense).
    """
    if target != CPU and target not in GPU_TARGETS:
        raise ValueError(f"unknown target '{target}'; expects 'cpu' or one of "
                         f"{', '.join(GPU_TARGETS)}")
    if output not in OUTPUTS:
        raise ValueError(f"unknown output '{output}'; expects one of {', '.join(OUTPUTS)}")
    if target == CPU and output != "shared_library":
        raise ValueError("the CPU target compiles to a shared library only")
    if embed not in ("ptx", "cubin"):
        raise ValueError(f"unknown embed '{embed}'; expects 'ptx' or 'cubin'")
    if not isinstance(pit_loop, int) or not isinstance(candidate, int) or candidate < 0:
        raise ValueError("pit_loop and candidate are integers (candidate >= 0)")
    module.verify()
    # A program on tensors becomes the memref program that is compiled and
    # called: results that update an argument are written into it.
    module = _lower(module, "pit-bufferize")
    signatures(module)  # refuses what a C call cannot take
    choice = _choice(pit_loop, candidate, latency_table, variant)

    if target == CPU:
        lowered = _lower(module, f"pit-cpu-pipeline{{{choice}}}")
        return _link(lowered, module, target, path, entry_source="",
                     libraries=[])

    if not _config.CUDA_ENABLED and output != "ptx":
        raise RuntimeError("PIT was built without the CUDA toolkit: only "
                           "output='ptx' is available for GPU targets")
    # gpu-module-to-binary runs ptxas from the toolkit for cubins.
    os.environ.setdefault("CUDA_HOME", _config.CUDA_HOME or "/usr/local/cuda")
    kernel_format = "bin" if output == "cubin" or (
        output == "shared_library" and embed == "cubin") else "isa"
    lowered = _lower(module, f"pit-to-ptx{{chip={target} format={kernel_format} {choice}}}")
    if output != "shared_library":
        binaries = _pit.gpu_binaries(lowered)
        return {name: (data.decode() if output == "ptx" else data)
                for name, data in binaries}
    entry_source = _pit.translate_to_c_entry(module)
    return _link(lowered, module, target, path, entry_source,
                 libraries=["-L" + _config.LIBRARY_DIR, "-lpit_cuda_runtime",
                            "-Wl,-rpath,$ORIGIN",
                            "-Wl,-rpath," + _config.LIBRARY_DIR])


def explain(module, target=CPU, pit_loop=-1, candidate=0, latency_table=None):
    """What pit.compile makes of each op marked sparse, by the op's location:
    {location: {"op", "stiles", "runs_on", "remarks"}}. "stiles" lists the
    STiles pit-sparsify made of it (micro-tile, the loop gathered along,
    the tile, the iteration domain; several with a latency table's
    variants); "runs_on" is "tensor cores" or "SIMT" (a GPU target), "CPU",
    or "dense" (no STile: the remarks say why); "remarks" are the
    compiler's remarks on the op."""
    module.verify()
    remarks = []
    module = _lower(module, "pit-bufferize", remarks)
    choice = _choice(pit_loop, candidate, latency_table, variant=-1)
    sparsified = _lower(module, f"pit-sparsify{{{choice}}}", remarks)
    if target != CPU:
        _lower(module, f"pit-to-ptx{{chip={target} format=isa {choice}}}", remarks)
    marked = [operation for operation in _walk(module) if "pit.sparse" in operation.attributes]
    explained = {operation.location: {"op": operation.name, "stiles": [],
                                      "runs_on": "dense", "remarks": []}
                 for operation in marked}
    # The tensor cores take f16 and bf16 products; others run on CUDA cores.
    half = {operation.location: all(str(operand.type.element_type) in ("f16", "bf16")
                                    for operand in operation.operands[:-1])
            for operation in marked}
    for operation in _walk(sparsified):
        if operation.name == "pit.stile" and operation.location in explained:
            explained[operation.location]["stiles"].append(_stile_summary(operation))
    for location, entry in explained.items():
        entry["remarks"] = sorted({remark.split(": remark: ", 1)[1].split("\n")[0]
                                   for remark in remarks if remark.startswith(location + ":")})
        if entry["stiles"]:
            simt = not half[location] or any("SIMT lowering" in remark
                                             for remark in entry["remarks"])
            entry["runs_on"] = ("CPU" if target == CPU else
                                "SIMT" if simt else "tensor cores")
    return explained


def _walk(module):
    """Every operation of `module`, outer before inner."""
    pending = list(module.body.operations)
    while pending:
        operation = pending.pop(0)
        yield operation
        for region in operation.regions:
            for block in region.blocks:
                pending.extend(block.operations)


def _stile_summary(stile):
    """micro-tile, pit_axis, tile and domain of a pit.stile, as it prints them."""
    header = str(stile).split("{", 1)[0]
    summary = {}
    for name in ("micro_tile", "tile", "domain"):
        found = re.search(rf"(?<![a-z_]){name} \[([0-9, ]+)\]", header)
        if found:
            summary[name] = [int(extent) for extent in found.group(1).split(",")]
    found = re.search(r"pit_axis (\d+)", header)
    if found:
        summary["pit_axis"] = int(found.group(1))
    return summary


def _link(lowered, module, target, path, entry_source, libraries):
    """Host code of `lowered` + C entry points + manifest -> a library."""
    # The object file comes from LLVM's code generator in process, the one
    # pit-compile uses too (pit-translate --pit-to-object).
    host_object = _pit.translate_to_object(lowered)
    if path is None:
        path = os.path.join(_scratch_dir(), f"libpit{next(_library_numbers)}.so")
    path = pathlib.Path(path).absolute()
    with tempfile.TemporaryDirectory(prefix="pit-build-") as work:
        work = pathlib.Path(work)
        (work / "host.o").write_bytes(host_object)
        # pit_manifest(), which pit.load reads: the same as pit-compile's.
        (work / "entry.c").write_text(
            entry_source + _pit.translate_to_c_manifest(module, target))
        _run_tool([_config.C_COMPILER, "-O2", "-fPIC", "-fvisibility=hidden",
                   "-I" + _config.INCLUDE_DIR, "-c", work / "entry.c",
                   "-o", work / "entry.o"])
        _run_tool([_config.CXX_COMPILER, "-shared", "-o", path,
                   work / "host.o", work / "entry.o"] + libraries)
    return path
