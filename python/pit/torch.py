"""PIT's kernels as PyTorch operators, with autograd.

    import pit.torch
    y = pit.torch.sparse_linear(x, weight, bias, sparse="weight",
                                micro_tiles=[(32, 64)])
    c = pit.torch.sparse_matmul(a, b, sparse="a", micro_tiles=[(32, 1)])

The sparse operand is an ordinary dense tensor whose zeros are skipped: the
kernel finds its non-zero micro-tiles at every call, so a pattern may change
from call to call. CUDA tensors run on the GPU lowering (sm_80 and later;
sm_90a kernels on Hopper), CPU tensors of float32 or float64 on the CPU
lowering. Every call's program is compiled once per shape, element type and
target, and cached on disk (pit.kernel_cache).

The ops are torch.library custom ops (namespace `pit`) with fake kernels,
so torch.compile traces them without a graph break, and with backwards that
run on PIT kernels too:
- dA, the gradient of the sparse operand, is restricted to its non-zero
  elements (the convention of torch.sparse): an SDDMM, the sampled product
  dC B^T, over the sparse operand's pattern.
- dB = A^T dC, with A sparse: a sparse matmul over A^T, whose micro-tiles
  are A's transposed.

Every product is one of three programs, each with its sparse operand first:
C = A B, y = x W^T, and C = M * (A B) (the SDDMM); the public functions map
the other layouts onto them by transposing (B sparse: C^T = B^T A^T).
"""

import contextlib
import math

import torch

from . import kernel_cache
from .errors import ArgumentError

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
_PROGRAMS = {"matmul": _MATMUL, "linear": _LINEAR, "sddmm": _SDDMM}

# Functions by (program, shapes, element types, micro-tiles, target): the
# per-call path is this lookup, not the disk cache's hashing.
_functions = {}
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


def _source(program, loops, dtype, out_dtype, micro_tiles):
    (m, k), n = loops
    t, ct = _ELEMENT_TYPES[dtype], _ELEMENT_TYPES[out_dtype]
    return _PROGRAMS[program].format(m=m, k=k, n=n, t=t, ct=ct,
                                     mt=_micro_tile_text(micro_tiles),
                                     body=_sddmm_body(t, ct))


def _sddmm_body(t, ct):
    """mask * a * b added to C, in C's type (the inputs widened to it)."""
    lines = []
    if t != ct:
        lines = [f"    %{name}c = arith.extf %{name} : {t} to {ct}" for name in "xyw"]
    x, y, w = (f"%{name}c" if t != ct else f"%{name}" for name in "xyw")
    lines += [f"    %p = arith.mulf {x}, {y} : {ct}",
              f"    %q = arith.mulf %p, {w} : {ct}",
              f"    %s = arith.addf %acc, %q : {ct}"]
    return "".join(line + "\n" for line in lines)


def _function(program, loops, dtype, out_dtype, micro_tiles, target):
    key = (program, loops, dtype, out_dtype, tuple(micro_tiles), target)
    function = _functions.get(key)
    if function is None:
        source = _source(program, loops, dtype, out_dtype, micro_tiles)
        function = _functions[key] = kernel_cache.library(source, target).kernel
    return function


# Each program's operands as loops (m, n, k) and which operand is sparse.
_LAYOUTS = {"matmul": (("mk", "kn"), 0), "linear": (("mk", "nk"), 0),
            "sddmm": (("mk", "kn", "mn"), 2)}


def _call(program, operands, n, out_dtype, micro_tiles):
    """Runs `program` on `operands` (the first of shape m x k) into a new
    m x n tensor of `out_dtype`."""
    first = operands[0]
    target = _target(first.device)
    extents = _loop_extents(program, operands, n)
    padded = _padded_extents(program, extents, micro_tiles)
    operands = [_prepare(operand, layout, padded)
                for operand, layout in zip(operands, _LAYOUTS[program][0])]
    function = _function(program, ((padded["m"], padded["k"]), padded["n"]),
                         first.dtype, out_dtype, micro_tiles, target)
    out = torch.empty((padded["m"], padded["n"]), dtype=out_dtype, device=first.device)
    if target == "cpu":
        function(*[operand.numpy() for operand in operands], out.numpy())
    else:
        function(*operands, out)
    if padded != extents:
        out = out[:extents["m"], :extents["n"]]
    return out


def _loop_extents(program, operands, n):
    layouts, _ = _LAYOUTS[program]
    extents = {"n": n}
    for operand, layout in zip(operands, layouts):
        extents.update(zip(layout, operand.shape))
    return extents


def _padded_extents(program, extents, micro_tiles):
    """The loop extents rounded up to whole micro-tiles of the sparse
    operand (of every candidate): the compiled code takes whole micro-tiles,
    and the zeros padded in are skipped like any others."""
    layouts, sparse = _LAYOUTS[program]
    padded = dict(extents)
    for dim, loop in enumerate(layouts[sparse]):
        multiple = math.lcm(*micro_tiles[dim::2])
        padded[loop] = -(-extents[loop] // multiple) * multiple
    return padded


def _prepare(tensor, layout, padded):
    """A row-major, 16-byte aligned tensor of the padded extents, as the
    compiled code reads it."""
    tensor = tensor.detach()
    rows, columns = (padded[loop] - extent for loop, extent in zip(layout, tensor.shape))
    if rows or columns:
        return torch.nn.functional.pad(tensor, (0, columns, 0, rows))
    tensor = tensor.contiguous()
    if tensor.data_ptr() % 16:
        tensor = tensor.clone()
    return tensor


def _accumulated_dtype(dtype, micro_tiles):
    """The kernels gather micro-tiles of one row along m and add the rows
    into C with atomics, which round at every add in f16 or bf16: such
    products run into f32 and are rounded once after."""
    if dtype in (torch.float16, torch.bfloat16) and micro_tiles[0] == 1:
        return torch.float32
    return dtype


def _fake(program, operands, n, micro_tiles):
    """The result's shape and dtype; within ahead_of_time, also compiles the
    program that the call would run."""
    first = operands[0]
    if _ahead_target is not None and all(
            isinstance(extent, int) for operand in operands for extent in operand.shape):
        padded = _padded_extents(program, _loop_extents(program, operands, n), micro_tiles)
        source = _source(program, ((padded["m"], padded["k"]), padded["n"]),
                         first.dtype, _accumulated_dtype(first.dtype, micro_tiles),
                         micro_tiles)
        kernel_cache.compiled_path(source, _ahead_target)
    return first.new_empty((first.shape[0], n))


@torch.library.custom_op("pit::matmul", mutates_args=())
def _matmul(a: torch.Tensor, b: torch.Tensor, micro_tiles: list[int]) -> torch.Tensor:
    """C = A B, A sparse."""
    out_dtype = _accumulated_dtype(a.dtype, micro_tiles)
    return _call("matmul", [a, b], b.shape[1], out_dtype, micro_tiles).to(a.dtype)


@torch.library.custom_op("pit::linear", mutates_args=())
def _linear(x: torch.Tensor, weight: torch.Tensor, micro_tiles: list[int]) -> torch.Tensor:
    """y = x W^T, x sparse."""
    out_dtype = _accumulated_dtype(x.dtype, micro_tiles)
    return _call("linear", [x, weight], weight.shape[0], out_dtype, micro_tiles).to(x.dtype)


@torch.library.custom_op("pit::sddmm", mutates_args=())
def _sddmm(a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor,
           micro_tiles: list[int]) -> torch.Tensor:
    """C = M * (A B), the mask M sparse."""
    out_dtype = _accumulated_dtype(a.dtype, micro_tiles)
    return _call("sddmm", [a, b, mask], b.shape[1], out_dtype, micro_tiles).to(a.dtype)


@_matmul.register_fake
def _(a, b, micro_tiles):
    return _fake("matmul", [a, b], b.shape[1], micro_tiles)


@_linear.register_fake
def _(x, weight, micro_tiles):
    return _fake("linear", [x, weight], weight.shape[0], micro_tiles)


@_sddmm.register_fake
def _(a, b, mask, micro_tiles):
    return _fake("sddmm", [a, b, mask], b.shape[1], micro_tiles)


def _transposed(micro_tiles):
    return [extent for i in range(0, len(micro_tiles), 2)
            for extent in (micro_tiles[i + 1], micro_tiles[i])]


def _pattern(tensor):
    """1 where `tensor` is non-zero: the support its gradient keeps."""
    return (tensor != 0).to(tensor.dtype)


def _save_inputs(ctx, inputs, output):
    *tensors, micro_tiles = inputs
    ctx.save_for_backward(*tensors)
    ctx.micro_tiles = micro_tiles


def _matmul_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = _sddmm(grad, b.t(), _pattern(a), ctx.micro_tiles)
    if ctx.needs_input_grad[1]:
        grad_b = _matmul(a.t(), grad, _transposed(ctx.micro_tiles))
    return grad_a, grad_b, None


def _linear_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    grad_x = grad_weight = None
    if ctx.needs_input_grad[0]:
        grad_x = _sddmm(grad, weight, _pattern(x), ctx.micro_tiles)
    if ctx.needs_input_grad[1]:
        # dW = dy^T x, computed as its transpose x^T dy with x^T sparse.
        grad_weight = _matmul(x.t(), grad, _transposed(ctx.micro_tiles)).t()
    return grad_x, grad_weight, None


def _sddmm_backward(ctx, grad):
    a, b, mask = ctx.saved_tensors
    sampled = grad * mask  # as sparse as the mask
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = _matmul(sampled, b.t(), ctx.micro_tiles)
    if ctx.needs_input_grad[1]:
        # dB = A^T (M * dC), computed as its transpose with M * dC sparse.
        grad_b = _matmul(sampled.t(), a, _transposed(ctx.micro_tiles)).t()
    # The mask selects; it gets no gradient.
    return grad_a, grad_b, None, None


_matmul.register_autograd(_matmul_backward, setup_context=_save_inputs)
_linear.register_autograd(_linear_backward, setup_context=_save_inputs)
_sddmm.register_autograd(_sddmm_backward, setup_context=_save_inputs)

# ---------------------------------------------------------------------------
# The public functions: argument checks, then one of the programs above.
# ---------------------------------------------------------------------------


def _flat_micro_tiles(micro_tiles):
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
    for name, tensor in zip(names, tensors):
        if not isinstance(tensor, torch.Tensor):
            raise ArgumentError(f"{function}: {name} is a {type(tensor).__name__}, not a tensor")
        if tensor.dim() != 2:
            raise ArgumentError(f"{function}: {name} has {tensor.dim()} dimensions; expects 2")
        if tensor.dtype not in _ELEMENT_TYPES:
            raise ArgumentError(f"{function}: {name} is {tensor.dtype}; expects one of "
                                + ", ".join(str(d) for d in _ELEMENT_TYPES))
        if tensor.dtype != first.dtype or tensor.device != first.device:
            raise ArgumentError(f"{function}: {name} is {tensor.dtype} on {tensor.device}, "
                                f"{names[0]} {first.dtype} on {first.device}; "
                                "expects one dtype and one device")
    if first.device.type == "cpu" and first.dtype not in _CPU_DTYPES:
        raise ArgumentError(f"{function}: CPU tensors of {first.dtype} are not "
                            "supported (numpy has no bfloat16); use float32")
    (left, left_dim), (right, right_dim) = contracted
    if tensors[left].shape[left_dim] != tensors[right].shape[right_dim]:
        raise ArgumentError(
            f"{function}: {names[left]} is {list(tensors[left].shape)} and "
            f"{names[right]} {list(tensors[right].shape)}; their extents "
            f"{left_dim} and {right_dim} are the sum's and must agree")


def sparse_matmul(a, b, *, sparse="a", micro_tiles=((32, 1),)):
    """A @ B (2-D), skipping the zero micro-tiles of the operand `sparse`
    ("a" or "b"). `micro_tiles` are the candidate micro-tiles of that
    operand, (rows, columns); the first is the one compiled."""
    if sparse not in ("a", "b"):
        raise ArgumentError(f"sparse_matmul: sparse is 'a' or 'b', got {sparse!r}")
    _check_operands("sparse_matmul", ["a", "b"], [a, b], ((0, 1), (1, 0)))
    tiles = _flat_micro_tiles(micro_tiles)
    if sparse == "a":
        return _matmul(a, b, tiles)
    # C^T = B^T A^T: B^T is the sparse x of y = x W^T, with W = A.
    return _linear(b.t(), a, _transposed(tiles)).t()


def sparse_linear(x, weight, bias=None, *, sparse="weight", micro_tiles=((32, 64),)):
    """torch.nn.functional.linear (x W^T + bias, W in nn.Linear's layout,
    out_features x in_features), skipping the zero micro-tiles of `weight`
    (sparse="weight") or of the input x (sparse="input"), whose leading
    dimensions are flattened into rows. Micro-tiles are (rows, columns) of
    that operand as stored; the first is the one compiled."""
    if sparse not in ("weight", "input"):
        raise ArgumentError(f"sparse_linear: sparse is 'weight' or 'input', got {sparse!r}")
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise ArgumentError("sparse_linear: x is a tensor of at least one dimension")
    rows = x.reshape(-1, x.shape[-1])
    _check_operands("sparse_linear", ["x", "weight"], [rows, weight], ((0, 1), (1, 1)))
    tiles = _flat_micro_tiles(micro_tiles)
    if sparse == "input":
        y = _linear(rows, weight, tiles)
    else:
        # y^T = W x^T: W is the sparse x of y = x W^T, with x as its W.
        y = _linear(weight, rows, tiles).t()
    if bias is not None:
        y = y + bias
    return y.reshape(*x.shape[:-1], weight.shape[0])


def sddmm(a, b, mask, *, micro_tiles=((32, 1),)):
    """mask * (A @ B), computing only the products where the mask's
    micro-tiles are non-zero (the sampled dense-dense matmul)."""
    _check_operands("sddmm", ["a", "b", "mask"], [a, b, mask], ((0, 1), (1, 0)))
    if tuple(mask.shape) != (a.shape[0], b.shape[1]):
        raise ArgumentError(f"sddmm: mask is {list(mask.shape)}; expects "
                            f"{[a.shape[0], b.shape[1]]}, the product's shape")
    return _sddmm(a, b, mask, _flat_micro_tiles(micro_tiles))


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
