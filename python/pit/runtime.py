"""Calling compiled PIT libraries: numpy arrays on the CPU, torch CUDA
tensors or raw device pointers on a GPU.

Pure Python over ctypes, with no import of the compiler extension: a machine
that only runs libraries (a GPU box without LLVM/MLIR, or another Python
version) needs only this file, errors.py and the library. The library's
manifest (`pit_manifest()`, JSON written by pit.compile) gives the target and
each function's signature, so every argument is checked here, with a clear
message, before anything runs; GPU entry points check again in C.
"""

import ctypes
import json

from .errors import ArgumentError, CallError

# Element types as the manifest names them: PITDType (PIT-runtime/Entry.h),
# numpy's name, torch's name.
_DTYPES = {
    "f16": (0, "float16", "torch.float16"),
    "bf16": (1, None, "torch.bfloat16"),
    "f32": (2, "float32", "torch.float32"),
    "f64": (3, "float64", "torch.float64"),
    "i8": (4, "int8", "torch.int8"),
    "i32": (5, "int32", "torch.int32"),
    "i64": (6, "int64", "torch.int64"),
}
ARG_ALIGNMENT = 16  # PIT_ARG_ALIGNMENT
CHOICE_SLOTS = 16  # PIT_CUDA_CHOICE_SLOTS (PIT-runtime/CudaRuntime.h)


class PITTensor(ctypes.Structure):
    """PITTensor of PIT-runtime/Entry.h."""
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class DevicePointer:
    """A dense, row-major tensor in device memory given by its address, for
    callers that manage memory themselves (CuPy, CUDA driver, ...)."""

    def __init__(self, address, shape, dtype):
        if dtype not in _DTYPES:
            raise ArgumentError(f"unknown dtype '{dtype}'; expects one of {', '.join(_DTYPES)}")
        self.address = int(address)
        self.shape = tuple(int(extent) for extent in shape)
        self.dtype = dtype


def _describe(value):
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"


def _is_torch_tensor(value):
    return type(value).__module__.startswith("torch") and hasattr(value, "data_ptr")


def _format_shape(shape):
    """[4, 8] or, with a dynamic extent, [?, 8]."""
    return "[" + ", ".join("?" if extent < 0 else str(extent) for extent in shape) + "]"


class Function:
    """One compiled function; call it with one array or tensor per argument."""

    def __init__(self, library, target, spec):
        self.name = spec["name"]
        self.target = target
        self.args = [(arg["dtype"], tuple(arg["shape"])) for arg in spec["args"]]
        self._ties = [tuple(tie) for tie in spec.get("ties", [])]
        if target == "cpu":
            self._entry = getattr(library, self.name)
            argtypes = []
            for _, shape in self.args:
                # A memref as func-to-llvm passes it: allocated and aligned
                # pointers, offset, sizes, strides.
                argtypes += [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
                argtypes += [ctypes.c_int64] * (2 * len(shape))
            self._entry.argtypes = argtypes
            self._entry.restype = None
        else:
            self._entry = getattr(library, "pit_" + self.name)
            self._entry.argtypes = [ctypes.POINTER(PITTensor), ctypes.c_int64]
            self._entry.restype = ctypes.c_int
            self._last_error = library.pitLastError
            self._last_error.restype = ctypes.c_char_p
            # From libpit_cuda_runtime, which the library links.
            self._set_stream = library.pitCudaSetStream
            self._set_stream.argtypes = [ctypes.c_void_p]
            self._set_stream.restype = None
            self._clear_stream = library.pitCudaClearStream
            self._clear_stream.argtypes = []
            self._clear_stream.restype = None
            # A fresh PITTensor[n] a call (calls may come from several
            # threads); shape arrays shared.
            self._tensor_array_type = PITTensor * len(self.args)
            self._shape_arrays = {}

    def __repr__(self):
        args = ", ".join(f"{dtype}{_format_shape(shape)}" for dtype, shape in self.args)
        return f"<pit function {self.name}({args}) for {self.target}>"

    def _where(self, number):
        return f"{self.name}: argument {number}"

    def _check_count(self, values):
        if len(values) != len(self.args):
            raise ArgumentError(f"{self.name}: expects {len(self.args)} arguments, "
                                f"got {len(values)}")

    def _check(self, number, dtype, shape, expected):
        expected_dtype, expected_shape = expected
        if dtype != expected_dtype:
            raise ArgumentError(f"{self._where(number)}: expects element type "
                                f"{expected_dtype}, got {dtype}")
        # A dynamic extent (negative in the manifest) takes any extent; the
        # compiled code checks that the extents it ties together agree.
        if len(shape) != len(expected_shape) or any(
                want >= 0 and got != want for got, want in zip(shape, expected_shape)):
            raise ArgumentError(f"{self._where(number)}: expects shape "
                                f"{_format_shape(expected_shape)}, got {list(shape)}")
        # An empty array's data pointer need not point anywhere (torch's is
        # null); a PIT function has nothing to do then, and refuses it.
        if 0 in shape:
            raise ArgumentError(f"{self._where(number)}: has no elements (shape "
                                f"{list(shape)}); PIT functions take non-empty arrays")

    def __call__(self, *values):
        self._check_count(values)
        if self.target == "cpu":
            self._call_cpu(values)
        else:
            self._call_gpu(values)

    def _call_cpu(self, values):
        import numpy

        flat = []
        for number, (value, expected) in enumerate(zip(values, self.args)):
            if _is_torch_tensor(value) or isinstance(value, DevicePointer):
                raise ArgumentError(f"{self._where(number)}: a CPU function takes "
                                    f"numpy arrays, got {_describe(value)}")
            if not isinstance(value, numpy.ndarray):
                raise ArgumentError(f"{self._where(number)}: expects a numpy "
                                    f"array, got {_describe(value)}")
            dtype = {numpy.dtype(name): key for key, (_, name, _) in _DTYPES.items()
                     if name}.get(value.dtype, str(value.dtype))
            self._check(number, dtype, value.shape, expected)
            if not value.flags.c_contiguous:
                raise ArgumentError(f"{self._where(number)}: expects a C-contiguous "
                                    "(row-major) array; pass numpy.ascontiguousarray(x)")
            if not value.flags.aligned or not value.flags.writeable:
                raise ArgumentError(f"{self._where(number)}: expects an aligned, "
                                    "writeable array")
            strides, stride = [], 1
            for extent in reversed(value.shape):
                strides.insert(0, stride)
                stride *= extent
            pointer = value.ctypes.data
            flat += [pointer, pointer, 0] + list(value.shape) + strides
        self._check_ties([value.shape for value in values])
        self._entry(*flat)

    def _check_ties(self, shapes):
        """The extents the function's loops tie together must agree, or the
        loops would run past the smaller array."""
        for argument, dim, other_argument, other_dim, extent in self._ties:
            got = shapes[argument][dim]
            if other_argument >= 0:
                want = shapes[other_argument][other_dim]
                against = f"extent {other_dim} of argument {other_argument} is {want}"
            else:
                want, against = extent, f"the function's loops over it run {extent}"
            if got != want:
                raise ArgumentError(
                    f"{self.name}: extent {dim} of argument {argument} is {got}, "
                    f"but {against}; the two are one loop of the function and must agree")

    def _call_gpu(self, values):
        # At high sparsity a call keeps the GPU busy for only tens of
        # microseconds, and the host must issue the next call meanwhile, or
        # the GPU waits for it: the per-call work is kept to lookups (no
        # dictionaries built, one stream query a call, shape arrays reused).
        tensors = self._tensor_array_type()
        torch_device = None
        for number, (value, expected) in enumerate(zip(values, self.args)):
            contiguous = True
            if isinstance(value, DevicePointer):
                address, shape, dtype = value.address, value.shape, value.dtype
            elif _is_torch_tensor(value):
                if not value.is_cuda:
                    raise ArgumentError(f"{self._where(number)}: the tensor is on "
                                        f"{value.device}; a GPU function takes CUDA tensors")
                device = value.get_device()
                if torch_device is None:
                    torch_device = device
                elif device != torch_device:
                    raise ArgumentError(f"{self._where(number)}: the tensor is on "
                                        f"cuda:{device}, an earlier one on "
                                        f"cuda:{torch_device}; a call runs on one GPU")
                dtype = _torch_dtype_key(value.dtype)
                address, shape = value.data_ptr(), tuple(value.shape)
                contiguous = value.is_contiguous()
            else:
                raise ArgumentError(f"{self._where(number)}: a GPU function takes "
                                    "torch CUDA tensors or pit.DevicePointer, got "
                                    f"{_describe(value)}")
            self._check(number, dtype, shape, expected)
            if not contiguous:
                raise ArgumentError(f"{self._where(number)}: expects a contiguous "
                                    "(row-major) tensor; pass x.contiguous()")
            # A tensor of no elements may have no storage (torch gives 0).
            if (address == 0 and 0 not in shape) or address % ARG_ALIGNMENT:
                raise ArgumentError(f"{self._where(number)}: the device pointer "
                                    f"0x{address:x} is null or not {ARG_ALIGNMENT}-byte aligned")
            tensor = tensors[number]
            tensor.data = address
            tensor.dtype = _DTYPES[dtype][0]
            tensor.rank = len(shape)
            tensor.shape = self._shape_array(shape)
        # With torch tensors the call is stream-ordered on torch's current
        # stream, as a torch op is: after torch's pending work on the inputs,
        # before torch's next, returning once queued (handle 0, torch's
        # default stream, is the legacy default stream). Raw pointers have no
        # stream to follow: the call runs on the legacy stream and waits.
        if torch_device is None:
            self._clear_stream()
        else:
            self._set_stream(_current_torch_stream(torch_device))
        if self._entry(tensors, len(values)):
            raise CallError(self._last_error().decode())

    def bind(self, dtypes, shapes):
        """This GPU function on tensors of `dtypes` and `shapes`, checked
        once here: the call then takes only their device addresses and the
        stream (a handle), for callers that guarantee device, row-major
        layout and 16-byte alignment themselves, such as pit.torch."""
        if self.target == "cpu":
            raise ArgumentError(f"{self.name}: only GPU functions bind")
        self._check_count(shapes)
        self._check_count(dtypes)
        for number, (dtype, shape, expected) in enumerate(zip(dtypes, shapes, self.args)):
            self._check(number, dtype, tuple(shape), expected)
        self._check_ties(shapes)
        return BoundCall(self, dtypes, [tuple(shape) for shape in shapes])

    def _shape_array(self, shape):
        """The int64[rank] of a checked shape, made once per shape: the entry
        point only reads it."""
        array = self._shape_arrays.get(shape)
        if array is None:
            array = self._shape_arrays[shape] = (ctypes.c_int64 * len(shape))(*shape)
        return array


class BoundCall:
    """Function.bind's call: `call(addresses, stream)`."""

    def __init__(self, function, dtypes, shapes):
        self._function = function
        template = function._tensor_array_type()
        for tensor, dtype, shape in zip(template, dtypes, shapes):
            tensor.dtype = _DTYPES[dtype][0]
            tensor.rank = len(shape)
            tensor.shape = function._shape_array(shape)
        self._template = template
        self._count = len(shapes)

    def __call__(self, addresses, stream):
        # A fresh array a call (calls may come from several threads), copied
        # from the template: only the addresses change.
        tensors = type(self._template).from_buffer_copy(self._template)
        for tensor, address in zip(tensors, addresses):
            tensor.data = address
        function = self._function
        function._set_stream(stream)
        if function._entry(tensors, self._count):
            raise CallError(function._last_error().decode())


# torch's dtype objects to the manifest's names, filled as they are met (the
# runtime does not import torch until a torch tensor comes).
_torch_dtype_keys = {}


def _torch_dtype_key(torch_dtype):
    key = _torch_dtype_keys.get(torch_dtype)
    if key is None:
        name = str(torch_dtype)
        key = next((key for key, (_, _, torch_name) in _DTYPES.items()
                    if torch_name == name), name)
        _torch_dtype_keys[torch_dtype] = key
    return key


def _current_torch_stream(device):
    """The handle of torch's current stream on GPU `device`."""
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:  # an int, without making a torch.cuda.Stream
        return raw(device)
    return torch.cuda.current_stream(device).cuda_stream


class Library:
    """A shared library compiled by pit.compile, with its functions as
    attributes: `load(path).sparse_matmul(a, b, c)`."""

    def __init__(self, path):
        self.path = str(path)
        self._library = ctypes.CDLL(self.path)
        try:
            manifest_function = self._library.pit_manifest
        except AttributeError:
            raise ArgumentError(f"{self.path} is not a library compiled by "
                                "pit.compile (no pit_manifest)") from None
        manifest_function.restype = ctypes.c_char_p
        manifest = json.loads(manifest_function().decode())
        self.target = manifest["target"]
        self.functions = {spec["name"]: Function(self._library, self.target, spec)
                          for spec in manifest["functions"]}

    def last_choice(self, slot=0):
        """The variant that the latest call to run a `slot`-th run-time
        selection of a function (in the order the function runs them) chose
        on the device, in the numbering of pit-sparsify's remark ("chooses
        at run time among variant 0 (...) and dense (1)"), or -1 when none
        has yet. It waits for the device's work first. GPU libraries only:
        a CPU library chooses on the host and records nothing."""
        if self.target == "cpu":
            raise ArgumentError(f"{self.path}: a CPU library chooses on the "
                                "host; only GPU libraries record their choices")
        if not 0 <= slot < CHOICE_SLOTS:
            raise ArgumentError(f"slot {slot} is not in [0, {CHOICE_SLOTS}): the "
                                f"first {CHOICE_SLOTS} selections of a function "
                                "record their choice")
        # From libpit_cuda_runtime, which the library links.
        read = self._library.pitCudaLastChoice
        read.argtypes = [ctypes.c_int64]
        read.restype = ctypes.c_int32
        choice = read(slot)
        if choice < 0:
            take_error = self._library.pitCudaTakeError
            take_error.restype = ctypes.c_char_p
            error = take_error()
            if error:
                raise CallError(error.decode())
        return choice

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"{self.path} has no function '{name}'; it has "
                             f"{', '.join(functions) or 'none'}")

    def __getitem__(self, name):
        return getattr(self, name)

    def __repr__(self):
        return f"<pit library {self.path} for {self.target}: {', '.join(self.functions)}>"


def load(path):
    """Loads a library that pit.compile wrote."""
    return Library(path)
