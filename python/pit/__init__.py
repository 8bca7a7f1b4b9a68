"""PIT from Python: build sparse programs, compile them, call them.

    ctx = pit.Context()
    module = pit.Module.create(ctx)
    with pit.Function(module, "f", [...tensor or memref types...]) as f:
        pit.matmul(f.builder, *f.arguments, sparse=(0, [(32, 1)]))
    library = pit.load(pit.compile(module, target="cpu"))
    library.f(a, b, c)

The runtime (pit.load and what it returns) is pure Python. The rest needs
the compiler extension pit._pit, built for one Python version; where it
cannot be imported, `import pit` still gives the runtime, and the compiler
names raise an ImportError that says why.
"""

from .errors import ArgumentError, CallError, CompileWarning, MLIRError
from .runtime import DevicePointer, Library, load

_COMPILER_NAMES = ("Attribute", "Block", "Context", "Module", "Operation",
                   "PassManager", "Region", "Type", "Value", "CombinerAttr",
                   "SparseAttr", "Builder", "Function", "batch_matmul", "detect",
                   "generic", "mark_sparse", "matmul", "memref", "sread", "stile",
                   "swrite", "tensor", "compile", "explain", "signatures")

try:
    from ._pit import (Attribute, Block, Context, Module, Operation,
                       PassManager, Region, Type, Value)
    from .attributes import CombinerAttr, SparseAttr
    from .builders import (Builder, Function, batch_matmul, detect, generic,
                           mark_sparse, matmul, memref, sread, stile, swrite,
                           tensor)
    from .compiler import compile, explain, signatures
except ImportError as error:
    _compiler_import_error = error

    def __getattr__(name):
        # Other names fall through, so that the runtime's submodules
        # (pit.torch, pit.nn, pit.kernel_cache) still import.
        if name not in _COMPILER_NAMES:
            raise AttributeError(f"module 'pit' has no attribute '{name}'")
        raise ImportError(
            f"pit.{name} needs the compiler extension pit._pit, which cannot "
            f"be imported here ({_compiler_import_error}); this Python has "
            "only the runtime (pit.load)") from _compiler_import_error
