"""The exceptions of the pit package.

Pure Python, so that the runtime (which must load and call compiled libraries
on machines without the compiler extension) raises the same ones.
"""


class MLIRError(Exception):
    """MLIR refused something: a pipeline, a module, an operation, an
    attribute. `diagnostics` holds what MLIR reported, one string each
    ("location: severity: message", notes indented below)."""

    def __init__(self, message, diagnostics=()):
        self.message = message
        self.diagnostics = list(diagnostics)
        lines = [message] + ["  " + d.replace("\n", "\n  ") for d in self.diagnostics]
        super().__init__("\n".join(lines))


class ArgumentError(ValueError):
    """A compiled function was called with an argument that does not match
    its signature: count, shape, element type, device or layout."""


class CallError(RuntimeError):
    """A compiled function refused a call or failed while running; the
    message is the library's (pitLastError)."""


class CompileWarning(UserWarning):
    """PIT's compiler left an op alone or lowered it a slower way than the
    one asked for; the message is its remark, located in the program."""
