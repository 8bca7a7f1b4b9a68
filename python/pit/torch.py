"""PIT's kernels as PyTorch operators, with autograd.

    import pit.torch
    y = pit.torch.sparse_linear(x, weight, bias, sparse="weight",
                                micro_tiles=[(32, 64)])
    c = pit.torch.sparse_matmul(a, b, sparse="a", micro_tiles=[(32, 1)])

The sparse operand is an ordinary dense tensor whose zeros are skipped: the
kernel finds its non-zero micro-tiles at every call, so a pattern may change
from call to call. CUDA tensors run on the GPU lowering (sm_80 and later;
sm_90a kernels on Hopper; f16 and bf16 on the tensor cores, f32 and f64 on
CUDA cores), CPU tensors of f16, f32 or f64 on the CPU lowering. Every call's program is compiled once per shape, element type and
target, and cached on disk (pit.kernel_cache).

The ops are torch.library custom ops (namespace `pit`) with fake kernels,
so torch.compile traces them without a graph break, and with backwards that
run on PIT kernels too:
- dA, the gradient of the sparse operand, is restricted to its non-zero
  elements (the convention of torch.sparse): an SDDMM, the sampled product
  dC B^T, over the sparse operand's pattern. An element that is exactly
  zero is pruned: it gets no gradient (a zero-initialized weight never
  learns; mask a weight with pit.nn.SparseLinear.set_mask instead).
- dB = A^T dC, with A sparse: a sparse matmul over A^T, whose micro-tiles
  are A's transposed.

Every product is one of four programs, each with its sparse operand first:
C = A B, y = x W^T, y = x W^T + bias[:, None] (the bias C's start, which the
kernels fold into their stores), and C = M * (A B) (the SDDMM); the public
functions map the other layouts onto them by transposing (B sparse: C^T =
B^T A^T). The masked_* ops multiply the weight by a mask inside the op.
"""

import contextlib
import functools
import math
import os

import torch

from . import kernel_cache
from .errors import ArgumentError
# torch's current stream: a call is ordered on it, as a torch op is.
from .runtime import _current_torch_stream

_ELEMENT_TYPES = {torch.float16: "f16", torch.bfloat16: "bf16",
                  torch.float32: "f32", torch.float64: "f64"}
# numpy has no bfloat16: the CPU runtime takes numpy arrays.
_CPU_DTYPES = (torch.float16, torch.float32, torch.float64)

_FILL = """  %zero = arith.constant 0.0 : {ct}
  linalg.fill ins(%zero : {ct}) outs(%c : memref<{m}x{n}x{ct}>)
"""


def _mark(operand):
    """The #pit.sparse mark of `operand`, in the programs' format syntax."""
    return "{{pit.sparse = #pit.sparse<operand = %d, micro_tiles = [{mt}]>}}" % operand



# C = A x B, A sparse.
_MATMUL = ("func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, "
           "%c: memref<{m}x{n}x{ct}>) {{\n" + _FILL +
           "  linalg.matmul " + _mark(0) + "\n"
           "      ins(%a, %b : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) "
           "outs(%c : memref<{m}x{n}x{ct}>)\n  return\n}}\n")
# y = x W^T (W in nn.Linear's layout, n x k), x sparse.
_LINEAR = ("func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{n}x{k}x{t}>, "
           "%c: memref<{m}x{n}x{ct}>) {{\n" + _FILL +
           "  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
           "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]\n"
           "      " + _mark(0) + "\n"
           "      ins(%a, %b : memref<{m}x{k}x{t}>, memref<{n}x{k}x{t}>) "
           "outs(%c : memref<{m}x{n}x{ct}>)\n  return\n}}\n")


def _linear_with_bias(loop, added_dimension):
    """y = x W^T + bias, C starting as the bias (indexed by `loop`)
    broadcast along its other dimension, which the tensor-core kernels fold
    into their stores (no pass over y for the bias)."""
    bias = "%bias: memref<{" + loop + "}x{ct}>"
    return _LINEAR.replace("%c: memref", bias + ", %c: memref", 1).replace(
        _FILL, "  linalg.broadcast ins(" + bias.replace("%bias:", "%bias :")
        + ") outs(%c : memref<{m}x{n}x{ct}>) dimensions = [" + str(added_dimension) + "]\n")


# bias[:, None] (y^T = W x^T + b, with W as this x), and bias[None, :].
_LINEAR_ROW_BIAS = _linear_with_bias("m", 1)
_LINEAR_COLUMN_BIAS = _linear_with_bias("n", 0)
# C = M * (A x B), the mask M sparse.
_SDDMM = ("func.func @kernel(%a: memref<{m}x{k}x{t}>, %b: memref<{k}x{n}x{t}>, "
          "%mask: memref<{m}x{n}x{t}>, %c: memref<{m}x{n}x{ct}>) {{\n" + _FILL +
          "  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
          "affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>, "
          "affine_map<(m, n, k) -> (m, n)>], iterator_types = "
          "[\"parallel\", \"parallel\", \"reduction\"]}}\n"
          "      ins(%a, %b, %mask : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>, "
          "memref<{m}x{n}x{t}>) outs(%c : memref<{m}x{n}x{ct}>)\n"
          "      attrs = " + _mark(2) + " {{\n"
          "  ^bb0(%x: {t}, %y: {t}, %w: {t}, %acc: {ct}):\n"
          "{body}"
          "    linalg.yield %s : {ct}\n  }}\n  return\n}}\n")
# A row-major copy of a transposed tensor: torch's copy of a transpose moves
# 0.1-0.6 TB/s on an H200, PIT's tiled transpose 2-2.8.
_TRANSPOSE = ("func.func @kernel(%a: memref<{k}x{m}x{t}>, %c: memref<{m}x{k}x{t}>) {{\n"
              "  linalg.transpose ins(%a : memref<{k}x{m}x{t}>) outs(%c : memref<{m}x{k}x{t}>) "
              "permutation = [1, 0]\n  return\n}}\n")
_PROGRAMS = {"matmul": _MATMUL, "linear": _LINEAR, "linear_row_bias": _LINEAR_ROW_BIAS,
             "linear_column_bias": _LINEAR_COLUMN_BIAS, "sddmm": _SDDMM,
             "transpose": _TRANSPOSE}

# Functions by (program, shapes, element types, micro-tiles, target), loaded
# once from the disk cache (pit.kernel_cache) for the plans below.
_functions = {}
# The transpose kernels' bound calls by (rows, columns, dtype, device).
_transposes = {}
_targets = {}
_ahead_target = None


def _target(device):
    """The compile target of tensors on `device`."""
    if device.type == "cpu":
        return "cpu"
    if device.type != "cuda":
        raise ArgumentError(f"PIT runs on CPU and CUDA tensors, not {device.type}")
    index = device.index if device.index is not None else torch.cuda.current_device()
    target = _targets.get(index)
    if target is None:
        major, _ = torch.cuda.get_device_capability(index)
        if major < 8:
            raise ArgumentError(f"cuda:{index} has compute capability {major}.x; "
                                "PIT's GPU kernels need 8.0 or later")
        # sm_90a kernels (wgmma, TMA) run on Hopper only; later GPUs take
        # the PTX of sm_90 by the driver's JIT.
        target = {8: "sm_80", 9: "sm_90a"}.get(major, "sm_90")
        _targets[index] = target
    return target


def _micro_tile_text(flat):
    return ", ".join(f"{flat[i]}x{flat[i + 1]}" for i in range(0, len(flat), 2))


def _compile_options(target):
    """Cubins for the targets whose GPUs run them as they are (sm_80 code on
    any 8.x, sm_90a on Hopper): a first call then loads in milliseconds,
    where the driver's compile of PTX takes hundreds. sm_90's PTX is for the
    GPUs after Hopper."""
    return {"embed": "cubin"} if target in ("sm_80", "sm_90a") else {}


def _source(program, loops, dtype, out_dtype, micro_tiles):
    (m, k), n = loops
    t, ct = _ELEMENT_TYPES[dtype], _ELEMENT_TYPES[out_dtype]
    return _PROGRAMS[program].format(m=m, k=k, n=n, t=t, ct=ct,
                                     mt=_micro_tile_text(micro_tiles),
                                     body=_sddmm_body(t, ct) if program == "sddmm" else "")


def _sddmm_body(t, ct):
    """mask * a * b added to C (an SDDMM's C has its inputs' type: its
    blocks own their elements, and accumulate in f32 on the GPU)."""
    assert t == ct, "SDDMMs accumulate in their inputs' type"
    return ("    %p = arith.mulf %x, %y : {t}\n"
            "    %q = arith.mulf %p, %w : {t}\n"
            "    %s = arith.addf %acc, %q : {t}\n").format(t=t)


def _function(program, loops, dtype, out_dtype, micro_tiles, target):
    key = (program, loops, dtype, out_dtype, tuple(micro_tiles), target)
    function = _functions.get(key)
    if function is None:
        source = _source(program, loops, dtype, out_dtype, micro_tiles)
        function = _functions[key] = kernel_cache.library(
            source, target, _compile_options(target)).kernel
    return function


# Each program's operands as loops (m, n, k) and which operand is sparse.
_LAYOUTS = {"matmul": (("mk", "kn"), 0), "linear": (("mk", "nk"), 0),
            "linear_row_bias": (("mk", "nk", "m"), 0),
            "linear_column_bias": (("mk", "nk", "n"), 0), "sddmm": (("mk", "kn", "mn"), 2)}


# The operand and dimension that give each program's result its columns.
_RESULT_COLUMNS = {"matmul": (1, 1), "linear": (1, 0), "linear_row_bias": (1, 0),
                   "linear_column_bias": (1, 0), "sddmm": (1, 1)}

# Plans by (program, operand shapes, dtype, micro-tiles, device): the
# per-call path is one lookup, not the padding arithmetic and the disk cache.
_plans = {}


class _Plan:
    """What a call of one program on operands of some shapes, dtype and
    device runs: the compiled function, the padding of each operand, the
    result's padded shape and dtype, and the crop back to the real one."""

    def __init__(self, program, operands, micro_tiles):
        first = operands[0]
        layouts, _ = _LAYOUTS[program]
        extents = _loop_extents(program, operands)
        padded = _padded_extents(program, extents, micro_tiles,
                                 _on_tensor_cores(first.device.type, first.dtype))
        self.pads = [_padding(layout, tensor.shape, padded)
                     for tensor, layout in zip(operands, layouts)]
        self.out_shape = (padded["m"], padded["n"])
        self.crop = None if padded == extents else (extents["m"], extents["n"])
        self.out_dtype = _accumulated_dtype(program, first.dtype, micro_tiles)
        self.on_cpu = first.device.type == "cpu"
        self.loops = ((padded["m"], padded["k"]), padded["n"])
        self.function = _function(program, self.loops, first.dtype, self.out_dtype,
                                  micro_tiles, _target(first.device))
        if not self.on_cpu:
            _check_runtime_device(first.device)
            # Shapes and dtypes checked once; a call passes addresses only.
            shapes = [_padded_shape(layout, padded) for layout in layouts]
            self.device_index = first.device.index
            self.function = self.function.bind(
                [_ELEMENT_TYPES[first.dtype]] * len(operands) + [_ELEMENT_TYPES[self.out_dtype]],
                shapes + [self.out_shape])


def _check_runtime_device(device):
    """PIT's CUDA runtime runs on one GPU, PIT_CUDA_DEVICE (default 0)."""
    runtime_device = int(os.environ.get("PIT_CUDA_DEVICE", "0"))
    if device.index != runtime_device:
        raise ArgumentError(
            f"the tensors are on {device}, but PIT's CUDA runtime runs on "
            f"cuda:{runtime_device}; set PIT_CUDA_DEVICE={device.index} before the "
            "first call to run on that GPU")


def _kernel(program, operands, micro_tiles):
    """Runs `program` on `operands` into a new tensor of their dtype."""
    first = operands[0]
    if any(tensor.numel() == 0 for tensor in operands):
        # PIT's functions take no empty arrays; a sum of no products is 0,
        # as torch.matmul's result on operands with an empty k.
        extents = _loop_extents(program, operands)
        return first.new_zeros((extents["m"], extents["n"]))
    key = (program, tuple(tensor.shape for tensor in operands), first.dtype,
           tuple(micro_tiles), first.device)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _Plan(program, operands, micro_tiles)
    operands = [_prepare(tensor, pad) for tensor, pad in zip(operands, plan.pads)]
    out = torch.empty(plan.out_shape, dtype=plan.out_dtype, device=first.device)
    if plan.on_cpu:
        plan.function(*[tensor.detach().numpy() for tensor in operands], out.numpy())
    else:
        plan.function([tensor.data_ptr() for tensor in operands] + [out.data_ptr()],
                      _current_torch_stream(plan.device_index))
    if plan.crop is not None:
        # An op's result is a tensor of its own, not a view: the fake
        # kernel's strides are the result's, and in-place ops take it.
        out = out[:plan.crop[0], :plan.crop[1]].clone()
    return out if plan.out_dtype == first.dtype else out.to(first.dtype)


def _loop_extents(program, operands):
    """{loop: extent} of the loops m, n and k of `program` on `operands`."""
    layouts, _ = _LAYOUTS[program]
    operand, dim = _RESULT_COLUMNS[program]
    extents = {"n": operands[operand].shape[dim]}
    for tensor, layout in zip(operands, layouts):
        extents.update(zip(layout, tensor.shape))
    return extents


# The loops whose extents the tensor-core kernels take in whole blocks of
# 64 (others go to the SIMT lowering, with a remark): n of every program,
# k of the SDDMM.
_TENSOR_CORE_LOOPS = {"matmul": "n", "linear": "n", "linear_row_bias": "n",
                      "linear_column_bias": "n", "sddmm": "nk"}


def _padded_extents(program, extents, micro_tiles, tensor_cores):
    """The loop extents rounded up to whole micro-tiles of the sparse
    operand (of every candidate), and, for the tensor cores, to whole
    blocks: the compiled code takes whole micro-tiles and blocks, and the
    zeros padded in are skipped like any others or multiply zeros."""
    layouts, sparse = _LAYOUTS[program]
    multiples = dict.fromkeys("mnk", 1)
    for dim, loop in enumerate(layouts[sparse]):
        multiples[loop] = math.lcm(*micro_tiles[dim::2])
    if tensor_cores:
        for loop in _TENSOR_CORE_LOOPS[program]:
            multiples[loop] = math.lcm(multiples[loop], 64)
    return {loop: -(-extent // multiples[loop]) * multiples[loop]
            for loop, extent in extents.items()}


def _on_tensor_cores(where, dtype):
    """Whether a program on `dtype` for `where` (a device type or a
    target) runs on the GPU's tensor cores."""
    return where != "cpu" and dtype in (torch.float16, torch.bfloat16)


def _padded_shape(layout, padded):
    return tuple(padded[loop] for loop in layout)


def _padding(layout, shape, padded):
    """torch.nn.functional.pad's argument that pads `shape` to the padded
    extents of its loops, or None."""
    pads = [padded[loop] - extent for loop, extent in zip(layout, shape)]
    return tuple(side for pad in reversed(pads) for side in (0, pad)) if any(pads) else None


def _prepare(tensor, pad):
    """A row-major, 16-byte aligned tensor of the padded extents, as the
    compiled code reads it."""
    if pad is not None:
        return torch.nn.functional.pad(tensor.detach(), pad)
    if not tensor.is_contiguous():
        if tensor.is_cuda and tensor.t().is_contiguous() and tensor.data_ptr() % 16 == 0:
            return _transposed_copy(tensor)
        tensor = tensor.contiguous()
    if tensor.data_ptr() % 16:
        tensor = tensor.clone()
    return tensor


def _transposed_copy(tensor):
    """`tensor`, the transpose of a row-major CUDA tensor, copied row-major
    by PIT's transpose kernel."""
    rows, columns = tensor.shape
    device = tensor.device
    key = (rows, columns, tensor.dtype, device)
    call = _transposes.get(key)
    if call is None:
        element_type = _ELEMENT_TYPES[tensor.dtype]
        function = _function("transpose", ((rows, columns), 0), tensor.dtype, tensor.dtype,
                             (), _target(device))
        call = _transposes[key] = function.bind([element_type] * 2,
                                                [(columns, rows), (rows, columns)])
    out = torch.empty((rows, columns), dtype=tensor.dtype, device=device)
    call([tensor.data_ptr(), out.data_ptr()], _current_torch_stream(device.index))
    return out


def _accumulated_dtype(program, dtype, micro_tiles):
    """The kernels gather a matmul's micro-tiles of one row along m and add
    the rows into C with atomics, which round at every add in f16 or bf16:
    such products run into f32 and are rounded once after. (An SDDMM's
    blocks own their elements: no atomics.)"""
    if (program != "sddmm" and dtype in (torch.float16, torch.bfloat16)
            and micro_tiles[0] == 1):
        return torch.float32
    return dtype


def _fake(program, operands, micro_tiles):
    """The result's shape and dtype; within ahead_of_time, also compiles the
    programs that the call would run."""
    if program.startswith(_MASKED):
        # The masked weight's program: the mask is an operand of the op only.
        program, operands = program[len(_MASKED):], [operands[0], *operands[2:]]
    if program in _BIASED and not _bias_is_start(operands[0].dtype, micro_tiles):
        program, operands = "linear", operands[:2]
    first = operands[0]
    extents = _loop_extents(program, operands)
    if _ahead_target is not None and all(
            isinstance(extent, int) for extent in extents.values()):
        if (program == "sddmm" and _ahead_target != "cpu"
                and _gathers_single_columns(micro_tiles)):
            operands, micro_tiles = _transposed_sddmm(operands, micro_tiles)
            _compile_ahead(program, operands, _loop_extents(program, operands), micro_tiles)
        else:
            _compile_ahead(program, operands, extents, micro_tiles)
    return first.new_empty((extents["m"], extents["n"]))


def _compile_ahead(program, operands, extents, micro_tiles):
    """Compiles the program of a call into the disk cache and, on a GPU,
    the transposes of its operands: a tensor's layout on meta tensors need
    not be the one a real call meets."""
    dtype = operands[0].dtype
    padded = _padded_extents(program, extents, micro_tiles,
                             _on_tensor_cores(_ahead_target, dtype))
    options = _compile_options(_ahead_target)
    kernel_cache.compiled_path(
        _source(program, ((padded["m"], padded["k"]), padded["n"]), dtype,
                _accumulated_dtype(program, dtype, micro_tiles), micro_tiles),
        _ahead_target, options)
    if _ahead_target != "cpu":
        for rows, columns in {tuple(tensor.shape) for tensor in operands if tensor.dim() == 2}:
            kernel_cache.compiled_path(
                _source("transpose", ((rows, columns), 0), dtype, dtype, ()), _ahead_target,
                options)


def _matmul_kernel(a: torch.Tensor, b: torch.Tensor, micro_tiles: list[int]) -> torch.Tensor:
    """C = A B, A sparse."""
    return _kernel("matmul", [a, b], micro_tiles)


def _linear_kernel(x: torch.Tensor, weight: torch.Tensor,
                   micro_tiles: list[int]) -> torch.Tensor:
    """y = x W^T, x sparse."""
    return _kernel("linear", [x, weight], micro_tiles)


def _linear_row_bias_kernel(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                            micro_tiles: list[int]) -> torch.Tensor:
    """y = x W^T + bias[:, None], x sparse."""
    return _biased_linear("linear_row_bias", x, weight, bias, micro_tiles)


def _linear_column_bias_kernel(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                               micro_tiles: list[int]) -> torch.Tensor:
    """y = x W^T + bias[None, :], x sparse (nn.Linear's own bias)."""
    return _biased_linear("linear_column_bias", x, weight, bias, micro_tiles)


# The biased programs, and the dimension of y their bias is broadcast along.
_BIASED = {"linear_row_bias": 1, "linear_column_bias": 0}


def _biased_linear(program, x, weight, bias, micro_tiles):
    """The bias is C's start, which the kernel folds into its stores, where
    the product sums in x's dtype; added after the f32 sums of f16 or bf16
    (no such start: its type is the sums')."""
    if _bias_is_start(x.dtype, micro_tiles):
        return _kernel(program, [x, weight, bias], micro_tiles)
    return _kernel("linear", [x, weight], micro_tiles) + bias.unsqueeze(_BIASED[program])


def _bias_is_start(dtype, micro_tiles):
    return _accumulated_dtype("linear", dtype, micro_tiles) == dtype


def _masked_linear_kernel(weight: torch.Tensor, mask: torch.Tensor, x: torch.Tensor,
                          micro_tiles: list[int]) -> torch.Tensor:
    """y^T = (W * M) x^T, the masked weight sparse: y = x W^T with the
    masked weight as its x."""
    return _linear_kernel(weight * mask, x, micro_tiles)


def _masked_linear_row_bias_kernel(weight: torch.Tensor, mask: torch.Tensor, x: torch.Tensor,
                                   bias: torch.Tensor, micro_tiles: list[int]) -> torch.Tensor:
    """y^T = (W * M) x^T + bias[:, None]."""
    return _linear_row_bias_kernel(weight * mask, x, bias, micro_tiles)


def _sddmm_kernel(a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor,
                  micro_tiles: list[int]) -> torch.Tensor:
    """C = M * (A B), the mask M sparse."""
    if a.is_cuda and _gathers_single_columns(micro_tiles):
        operands, transposed = _transposed_sddmm([a, b, mask], micro_tiles)
        return _transposed_copy(_kernel("sddmm", operands, transposed).t())
    return _kernel("sddmm", [a, b, mask], micro_tiles)


def _gathers_single_columns(micro_tiles):
    """Whether an SDDMM's mask micro-tiles are one column wide (and taller):
    gathered along n, the GPU kernel then reads B's columns element by
    element, 2 bytes of every 32-byte sector (an H200: 5x the dense product
    at 90% sparsity, K = 4096)."""
    return all(micro_tiles[i + 1] == 1 < micro_tiles[i] for i in range(0, len(micro_tiles), 2))


def _transposed_sddmm(operands, micro_tiles):
    """C^T = M^T * (B^T A^T): the SDDMM gathered along m instead, whose
    gathered rows of B^T lie in order."""
    a, b, mask = operands
    return [b.t(), a.t(), mask.t()], _transposed(micro_tiles)


_KERNELS = {"matmul": _matmul_kernel, "linear": _linear_kernel, "sddmm": _sddmm_kernel,
            "masked_linear": _masked_linear_kernel, "linear_row_bias": _linear_row_bias_kernel,
            "masked_linear_row_bias": _masked_linear_row_bias_kernel,
            "linear_column_bias": _linear_column_bias_kernel}
# A masked program's operands: the weight, the mask, then the unmasked
# program's others.
_MASKED = "masked_"
_OPS = {program: torch.library.custom_op(f"pit::{program}", kernel, mutates_args=())
        for program, kernel in _KERNELS.items()}
for _program, _op in _OPS.items():
    _op.register_fake(lambda *inputs, program=_program: _fake(program, inputs[:-1], inputs[-1]))


def _transposed(micro_tiles):
    return [extent for i in range(0, len(micro_tiles), 2)
            for extent in (micro_tiles[i + 1], micro_tiles[i])]


def _pattern(tensor):
    """1 where `tensor` is non-zero: the support its gradient keeps. Two
    vectorized passes in place of a comparison and a bool cast: 119 us
    against 198 for a 14336x4096 f16 weight on an H200
    (bench/probes/torch_passes.py)."""
    return tensor.sign().abs_()


def _matmul_backward(saved, micro_tiles, grad, needs):
    a, b = saved
    grad_a = grad_b = None
    if needs[0]:
        grad_a = _run("sddmm", grad, b.t(), _pattern(a), micro_tiles=micro_tiles)
    if needs[1]:
        grad_b = _run("matmul", a.t(), grad, micro_tiles=_transposed(micro_tiles))
    return grad_a, grad_b


def _linear_backward(saved, micro_tiles, grad, needs):
    x, weight = saved
    grad_x = grad_weight = None
    if needs[0]:
        grad_x = _run("sddmm", grad, weight, _pattern(x), micro_tiles=micro_tiles)
    if needs[1]:
        # dW = dy^T x, computed as its transpose x^T dy, with x^T sparse:
        # as y = x W^T with W = dy^T where dy comes transposed (the result
        # was returned as a transpose), so that it is read as it lies.
        # Ahead of time, both are compiled: the layout of a gradient on meta
        # tensors need not be the one a real call meets.
        transposed = _transposed(micro_tiles)
        by_rows = grad.t().is_contiguous()
        if by_rows or _ahead_target is not None:
            grad_weight = _run("linear", x.t(), grad.t(), micro_tiles=transposed).t()
        if not by_rows or _ahead_target is not None:
            grad_weight = _run("matmul", x.t(), grad, micro_tiles=transposed).t()
    return grad_x, grad_weight


def _masked_linear_backward(saved, micro_tiles, grad, needs):
    """The gradients of y^T = (W * M) x^T for W and x: the weight's is the
    SDDMM M * (dy^T x), sampled by the mask itself (the masked dense
    layer's gradient, with no pass for the pattern and none multiplying by
    the mask after); x's is the linear program's. The masked weight is the
    forward's where it kept it (eager autograd), else recomputed."""
    weight, mask, x, *kept = saved
    masked = kept[0] if kept else weight * mask
    grad_weight = _run("sddmm", grad, x, mask, micro_tiles=micro_tiles) if needs[0] else None
    _, grad_x = _linear_backward((masked, x), micro_tiles, grad, (False, needs[2]))
    # The mask selects; it gets no gradient.
    return grad_weight, None, grad_x


def _biased_linear_backward(program, saved, micro_tiles, grad, needs):
    """The product's gradients, and the bias's: the sum of the gradient
    along the dimension the bias is broadcast along."""
    *product, _ = saved
    return (*_linear_backward(product, micro_tiles, grad, needs[:2]),
            grad.sum(_BIASED[program]) if needs[2] else None)


def _masked_linear_row_bias_backward(saved, micro_tiles, grad, needs):
    weight, mask, x, _, *kept = saved
    grads = _masked_linear_backward((weight, mask, x, *kept), micro_tiles, grad, needs[:3])
    return (*grads, grad.sum(1) if needs[3] else None)


def _sddmm_backward(saved, micro_tiles, grad, needs):
    a, b, mask = saved
    sampled = grad * mask  # as sparse as the mask
    grad_a = grad_b = None
    if needs[0]:
        grad_a = _run("matmul", sampled, b.t(), micro_tiles=micro_tiles)
    if needs[1]:
        # dB = A^T (M * dC), computed as its transpose with M * dC sparse.
        grad_b = _run("matmul", sampled.t(), a, micro_tiles=_transposed(micro_tiles)).t()
    # The mask selects; it gets no gradient.
    return grad_a, grad_b, None


_BACKWARDS = {"matmul": _matmul_backward, "linear": _linear_backward,
              "sddmm": _sddmm_backward, "masked_linear": _masked_linear_backward,
              "masked_linear_row_bias": _masked_linear_row_bias_backward,
              **{program: functools.partial(_biased_linear_backward, program)
                 for program in _BIASED}}


def _save_for_op(ctx, inputs, output):
    *operands, micro_tiles = inputs
    ctx.save_for_backward(*operands)
    ctx.micro_tiles = micro_tiles


for _program, _op in _OPS.items():
    _op.register_autograd(
        lambda ctx, grad, program=_program: (*_BACKWARDS[program](
            ctx.saved_tensors, ctx.micro_tiles, grad, ctx.needs_input_grad[:-1]), None),
        setup_context=_save_for_op)


class _EagerProduct(torch.autograd.Function):
    """The ops' autograd outside torch.compile: the same kernels and
    backwards, without the custom-op dispatcher's host time (tens of
    microseconds a call, which a fast sparse kernel does not hide). Its
    forward takes ctx itself: with a separate setup_context, torch binds
    the arguments to forward's signature through inspect at every call
    (about 40 us on an H200's host)."""

    @staticmethod
    def forward(ctx, program, micro_tiles, *operands):
        ctx.program, ctx.micro_tiles = program, micro_tiles
        if program.startswith(_MASKED):
            # The masked weight is kept for x's gradient, not recomputed.
            weight, mask, *others = operands
            masked = weight * mask
            ctx.save_for_backward(*operands, masked)
            return _KERNELS[program[len(_MASKED):]](masked, *others, micro_tiles)
        ctx.save_for_backward(*operands)
        return _KERNELS[program](*operands, micro_tiles)

    @staticmethod
    def backward(ctx, grad):
        return (None, None, *_BACKWARDS[ctx.program](
            ctx.saved_tensors, ctx.micro_tiles, grad, ctx.needs_input_grad[2:]))


_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


class _EagerWeightSparseLinear(torch.autograd.Function):
    """sparse_linear with the weight sparse, outside torch.compile, as one
    autograd node: y^T = (W * mask) x^T + bias[:, None], the bias C's
    start, which the kernel folds into its stores. One node instead of the
    product's and the mask's saves the host time that a small layer's step
    waits for (an H200's host: docs/benchmarks). The caller takes y as its
    transpose, a view outside the node, which in-place ops may then change.
    The kernels are the composed ops' (the custom ops under torch.compile)."""

    @staticmethod
    def forward(ctx, micro_tiles, rows, weight, mask, bias):
        masked = weight if mask is None else weight * mask
        transposed_y = (_linear_kernel(masked, rows, micro_tiles) if bias is None
                        else _linear_row_bias_kernel(masked, rows, bias, micro_tiles))
        ctx.save_for_backward(rows, masked, mask)
        ctx.micro_tiles = micro_tiles
        return transposed_y

    @staticmethod
    def backward(ctx, grad):
        rows, masked, mask = ctx.saved_tensors
        tiles = ctx.micro_tiles
        _, needs_rows, needs_weight, _, needs_bias = ctx.needs_input_grad
        if not (grad.is_cuda and _gathers_single_columns(tiles)):
            # dy^T row-major, copied once for the SDDMM's A and dx^T's B
            # (each would copy it: 80 us a copy of a 14336x4096 f16 dy on
            # an H200). A GPU SDDMM of one-column micro-tiles reads dy as
            # it lies instead.
            grad = _prepare(grad, None)
        grad_rows = grad_weight = None
        if needs_weight:
            pattern = _pattern(masked) if mask is None else mask
            grad_weight = _sddmm_kernel(grad, rows, pattern, tiles)
        if needs_rows:
            # dx^T = (W * mask)^T dy^T, the masked weight's transpose sparse.
            grad_rows = _matmul_kernel(masked.t(), grad, _transposed(tiles)).t()
        grad_bias = grad.sum(1) if needs_bias else None
        return None, grad_rows, grad_weight, None, grad_bias


def _traced(operands):
    """Whether a call goes through the custom ops: torch.compile traces, or
    tensors have no data (meta, fake)."""
    return torch.compiler.is_compiling() or not all(
        type(tensor) in _PLAIN_TENSORS and not tensor.is_meta
        for tensor in operands if tensor is not None)


def _run(program, *operands, micro_tiles):
    """One of the programs on `operands`: through the custom op where
    torch.compile traces or tensors have no data (meta, fake), else
    directly, with autograd where an operand requires a gradient."""
    if _traced(operands):
        return _OPS[program](*operands, micro_tiles)
    if torch.is_grad_enabled() and any(tensor.requires_grad for tensor in operands):
        return _EagerProduct.apply(program, micro_tiles, *operands)
    return _KERNELS[program](*operands, micro_tiles)


# ---------------------------------------------------------------------------
# The public functions: argument checks, then one of the programs above.
# ---------------------------------------------------------------------------


# Flat micro-tile lists by the micro_tiles argument, where it is hashable
# (the defaults, tuples): a call's path then takes one lookup.
_flat_tiles = {}


def _flat_micro_tiles(micro_tiles):
    try:
        return _flat_tiles[micro_tiles]
    except (KeyError, TypeError):
        flat = _checked_flat_micro_tiles(micro_tiles)
    try:
        _flat_tiles[micro_tiles] = flat
    except TypeError:  # a list: checked at every call
        pass
    return flat


def _checked_flat_micro_tiles(micro_tiles):
    tiles = [tuple(tile) for tile in micro_tiles]
    if not tiles or any(len(tile) != 2 or not all(
            isinstance(extent, int) and extent > 0 for extent in tile) for tile in tiles):
        raise ArgumentError(f"micro_tiles: expects a list of (rows, columns) of "
                            f"positive integers, got {micro_tiles!r}")
    return [extent for tile in tiles for extent in tile]


def _check_operands(function, names, tensors, contracted):
    """Two-dimensional floating tensors of one dtype on one device whose
    `contracted` extents, (operand, dim) pairs, agree."""
    first = tensors[0]
    dtype = getattr(first, "dtype", None)
    device = getattr(first, "device", None)
    for name, tensor in zip(names, tensors):
        if not isinstance(tensor, torch.Tensor):
            raise ArgumentError(f"{function}: {name} is a {type(tensor).__name__}, not a tensor")
        if tensor.dim() != 2:
            raise ArgumentError(f"{function}: {name} has {tensor.dim()} dimensions; expects 2")
        if tensor.dtype not in _ELEMENT_TYPES:
            raise ArgumentError(f"{function}: {name} is {tensor.dtype}; expects one of "
                                + ", ".join(str(d) for d in _ELEMENT_TYPES))
        # dtypes are singletons; the first tensor's device needs no check.
        if tensor.dtype is not dtype or tensor is not first and tensor.device != device:
            raise ArgumentError(f"{function}: {name} is {tensor.dtype} on {tensor.device}, "
                                f"{names[0]} {first.dtype} on {first.device}; "
                                "expects one dtype and one device")
    if device.type == "cpu" and dtype not in _CPU_DTYPES:
        raise ArgumentError(f"{function}: CPU tensors of {first.dtype} are not "
                            "supported (numpy has no bfloat16); use float32")
    (left, left_dim), (right, right_dim) = contracted
    if tensors[left].shape[left_dim] != tensors[right].shape[right_dim]:
        raise ArgumentError(
            f"{function}: {names[left]} is {list(tensors[left].shape)} and "
            f"{names[right]} {list(tensors[right].shape)}; {names[left]}'s extent "
            f"{left_dim} and {names[right]}'s extent {right_dim} are the contracted "
            "dimension and must agree")


def sparse_matmul(a, b, *, sparse="a", micro_tiles=((32, 1),)):
    """A @ B (2-D), skipping the zero micro-tiles of the operand `sparse`
    ("a" or "b"). `micro_tiles` are the candidate micro-tiles of that
    operand, (rows, columns); the first is the one compiled."""
    if sparse not in ("a", "b"):
        raise ArgumentError(f"sparse_matmul: sparse is 'a' or 'b', got {sparse!r}")
    _check_operands("sparse_matmul", ["a", "b"], [a, b], ((0, 1), (1, 0)))
    tiles = _flat_micro_tiles(micro_tiles)
    if sparse == "a":
        return _run("matmul", a, b, micro_tiles=tiles)
    # C^T = B^T A^T: B^T is the sparse x of y = x W^T, with W = A.
    return _run("linear", b.t(), a, micro_tiles=_transposed(tiles)).t()


def sparse_linear(x, weight, bias=None, *, sparse="weight", micro_tiles=((32, 64),),
                  mask=None):
    """torch.nn.functional.linear (x W^T + bias, W in nn.Linear's layout,
    out_features x in_features), skipping the zero micro-tiles of `weight`
    (sparse="weight") or of the input x (sparse="input"), whose leading
    dimensions are flattened into rows. Micro-tiles are (rows, columns) of
    that operand as stored; the first is the one compiled.

    `mask`, of the weight's shape, dtype and device, zeroes the weight:
    x (W * mask)^T + bias, as a pruned layer computes it, with the weight's
    gradient mask * (dy^T x) (the gradient of W * mask, computed by one
    SDDMM over the mask's micro-tiles)."""
    if sparse not in ("weight", "input"):
        raise ArgumentError(f"sparse_linear: sparse is 'weight' or 'input', got {sparse!r}")
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise ArgumentError("sparse_linear: x is a tensor of at least one dimension")
    rows = x.reshape(-1, x.shape[-1])
    _check_operands("sparse_linear", ["x", "weight"], [rows, weight], ((0, 1), (1, 1)))
    if bias is not None and (tuple(bias.shape) != (weight.shape[0],) or bias.dtype != weight.dtype
                             or bias.device != weight.device):
        raise ArgumentError(f"sparse_linear: bias is {bias.dtype}{list(bias.shape)} on "
                            f"{bias.device}; expects {weight.dtype}[{weight.shape[0]}] on "
                            f"{weight.device}, as the weight")
    _check_mask("sparse_linear", mask, weight)
    tiles = _flat_micro_tiles(micro_tiles)
    if sparse == "input":
        if mask is not None:
            weight = weight * mask
        y = (_run("linear", rows, weight, micro_tiles=tiles) if bias is None else
             _run("linear_column_bias", rows, weight, bias, micro_tiles=tiles))
    elif not _traced((rows, weight, mask, bias)):
        y = _EagerWeightSparseLinear.apply(tiles, rows, weight, mask, bias).t()
    else:
        # y^T = W x^T: W is the sparse x of y = x W^T, with x as its W; the
        # bias along y^T's rows.
        program = (_MASKED if mask is not None else "") + (
            "linear" if bias is None else "linear_row_bias")
        operands = [tensor for tensor in (weight, mask, rows, bias) if tensor is not None]
        y = _run(program, *operands, micro_tiles=tiles).t()
    return y if x.dim() == 2 else y.reshape(*x.shape[:-1], weight.shape[0])


def _check_mask(function, mask, weight):
    """A mask of the weight's shape, dtype and device, without a gradient:
    it selects."""
    if mask is None:
        return
    if not isinstance(mask, torch.Tensor) or (
            tuple(mask.shape), mask.dtype, mask.device) != (
            tuple(weight.shape), weight.dtype, weight.device):
        got = (f"{mask.dtype}{list(mask.shape)} on {mask.device}"
               if isinstance(mask, torch.Tensor) else type(mask).__name__)
        raise ArgumentError(f"{function}: mask is {got}; expects {weight.dtype}"
                            f"{list(weight.shape)} on {weight.device}, as the weight")
    _refuse_mask_gradient(function, mask)


def _refuse_mask_gradient(function, mask):
    if mask.requires_grad and torch.is_grad_enabled():
        raise ArgumentError(f"{function}: the mask selects and gets no gradient; pass "
                            "mask.detach()")


def sddmm(a, b, mask, *, micro_tiles=((32, 1),)):
    """mask * (A @ B), computing only the products where the mask's
    micro-tiles are non-zero (the sampled dense-dense matmul)."""
    _check_operands("sddmm", ["a", "b", "mask"], [a, b, mask], ((0, 1), (1, 0)))
    if tuple(mask.shape) != (a.shape[0], b.shape[1]):
        raise ArgumentError(f"sddmm: mask is {list(mask.shape)}; expects "
                            f"{[a.shape[0], b.shape[1]]}, the product's shape")
    _refuse_mask_gradient("sddmm", mask)
    return _run("sddmm", a, b, mask, micro_tiles=_flat_micro_tiles(micro_tiles))


@contextlib.contextmanager
def ahead_of_time(target):
    """Within it, running ops on meta tensors compiles their programs for
    `target` ("sm_90a", "sm_80", "sm_90" or "cpu") into the disk cache, as a
    model's first call on that target would: for a machine without the
    compiler, such as a GPU machine with only PIT's runtime.

        with pit.torch.ahead_of_time("sm_90a"):
            model(torch.empty(4096, 4096, device="meta")).sum().backward()
    """
    global _ahead_target
    previous, _ahead_target = _ahead_target, target
    try:
        yield
    finally:
        _ahead_target = previous
