"""Builders for PIT programs: functions over tensor or memref arguments,
linalg ops with an operand marked dynamically sparse, and the pit ops
themselves.

Every operation is created outside the IR, verified, and only then inserted,
so that a wrong argument raises MLIRError (with MLIR's diagnostics, located
at the Python line that called the builder) and leaves the module as it was.
"""

import os
import sys

from . import _pit
from .attributes import CombinerAttr, SparseAttr

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_location():
    """(file, line, column) of the first frame outside this package, so that
    diagnostics point at the user's code."""
    frame = sys._getframe(1)
    while frame and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        frame = frame.f_back
    if frame is None:
        return None
    return (frame.f_code.co_filename, frame.f_lineno, 0)


def _element_type(context, element_type):
    if isinstance(element_type, str):
        return _pit.Type.parse(context, element_type)
    return element_type


# How MLIR's C API spells a dynamic extent ("?").
_DYNAMIC = -(2**63)


def _extents(shape):
    """`shape` with None (a dynamic extent, "?") spelled as MLIR spells it."""
    return [_DYNAMIC if extent is None else extent for extent in shape]


def memref(context, shape, element_type):
    """A row-major memref type; `element_type` is a Type or its name ("f32");
    an extent None is dynamic ("?"), given by the arrays at each call."""
    return _pit.Type.memref(_extents(shape), _element_type(context, element_type))


def tensor(context, shape, element_type):
    """A ranked tensor type; `element_type` is a Type or its name ("f32");
    an extent None is dynamic ("?")."""
    return _pit.Type.tensor(_extents(shape), _element_type(context, element_type))


class Builder:
    """Creates operations and inserts them at the end of a block, or before
    the operation `before` in it (a terminator built first)."""

    def __init__(self, context, block, before=None):
        self.context = context
        self.block = block
        self.before = before

    def create(self, name, operands=(), result_types=(), attributes=None,
               num_regions=0):
        """A new operation, not inserted yet (see insert)."""
        return _pit.Operation.create(
            self.context, name, list(operands), list(result_types),
            dict(attributes or {}), num_regions, _caller_location())

    def insert(self, operation, verify=True):
        """Inserts `operation`, after verifying it unless `verify` is False
        (for an op whose verifier needs its parent, such as a terminator;
        the enclosing op's verification covers it)."""
        if verify:
            operation.verify()
        if self.before is None:
            self.block.append(operation)
        else:
            self.block.insert_before(operation, self.before)
        return operation

    def build(self, name, operands=(), result_types=(), attributes=None,
              verify=True):
        """create + insert for an operation without regions."""
        return self.insert(self.create(name, operands, result_types, attributes),
                           verify=verify)

    def constant_index(self, value):
        index = _pit.Type.parse(self.context, "index")
        return self.build("arith.constant", result_types=[index],
                          attributes={"value": _pit.Attribute.integer(index, value)}
                          ).results[0]

    def arith(self, name, *operands):
        """An arith op whose result has its first operand's type, such as
        arith("mulf", x, y)."""
        return self.build(f"arith.{name}", operands, [operands[0].type]).results[0]

    def convert(self, value, target_type):
        """`value` as a scalar of `target_type`: widening float and integer
        extensions, and integer to float."""
        source = value.type
        if source == target_type:
            return value
        if source.is_float and target_type.is_float:
            name = "arith.extf"
        elif source.is_integer and target_type.is_integer:
            name = "arith.extsi"
        elif source.is_integer and target_type.is_float:
            name = "arith.sitofp"
        else:
            raise TypeError(f"cannot convert {source} to {target_type} in a body")
        return self.build(name, [value], [target_type]).results[0]


class Function:
    """A func.func with statically shaped tensor or memref arguments, built
    in place:

        with Function(module, "f", [tensor(ctx, (4, 4), "f32")] * 3) as f:
            product = matmul(f.builder, *f.arguments, ...)
            f.returns(product.results[0])

    On tensors, linalg ops return their results and the function returns
    them; compiling writes each returned result into the argument it
    updates (the linalg op's destination). On memrefs the ops write into
    their arguments and the function returns nothing. On leaving the block
    (or finish()), the function gets its return, is verified and is added
    to the module; a failure raises MLIRError and leaves the module without
    the function."""

    def __init__(self, module, name, argument_types):
        self.module = module
        self.context = module.context
        for number, type in enumerate(argument_types):
            if not ((type.is_memref or type.is_tensor) and
                    all(extent > 0 or extent == _DYNAMIC for extent in type.shape)):
                raise ValueError(
                    f"argument {number} of '{name}' has type {type}; PIT "
                    "functions take ranked tensors or memrefs of positive or "
                    "dynamic (?) extents")
        self.argument_types = list(argument_types)
        function_type = _pit.Type.function(self.context, self.argument_types, [])
        self.operation = _pit.Operation.create(
            self.context, "func.func",
            attributes={"sym_name": _pit.Attribute.string(self.context, name),
                        "function_type": _pit.Attribute.type(function_type)},
            num_regions=1, location=_caller_location())
        entry = self.operation.regions[0].append_block(self.argument_types)
        self.builder = Builder(self.context, entry)
        self.arguments = entry.arguments
        self._results = []
        self._finished = False

    def returns(self, *values):
        """What the function returns (tensor functions: the results of the
        ops that update its arguments)."""
        self._results = list(values)

    def finish(self):
        if self._finished:
            return self.operation
        function_type = _pit.Type.function(
            self.context, self.argument_types, [v.type for v in self._results])
        self.operation.set_attribute("function_type",
                                     _pit.Attribute.type(function_type))
        self.builder.build("func.return", self._results, verify=False)
        self.operation.verify()
        self.module.body.append(self.operation)
        self._finished = True
        return self.operation

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is None:
            self.finish()
        return False


def mark_sparse(operation, operand, micro_tiles):
    """Marks `operand` of the linalg op `operation` as dynamically sparse
    with these candidate micro-tiles, and verifies it: a bad micro-tile, an
    operand out of range or a tile of the wrong rank raises MLIRError."""
    mark = SparseAttr.get(operation.context, operand, micro_tiles)
    operation.set_attribute(SparseAttr.NAME, mark.attribute)
    operation.verify()
    return operation


def _insert_linalg(builder, operation, sparse):
    if sparse is not None:
        operand, micro_tiles = sparse
        mark_sparse(operation, operand, micro_tiles)
    return builder.insert(operation)


def _linalg_operation(builder, name, inputs, outputs, attributes, body):
    """linalg op `name` with a body region built by body(body_builder,
    *scalar arguments) -> yielded values."""
    context = builder.context
    attributes = dict(attributes)
    attributes["operandSegmentSizes"] = _pit.Attribute.dense_i32_array(
        context, [len(inputs), len(outputs)])
    operands = list(inputs) + list(outputs)
    on_tensors = all(value.type.is_tensor for value in operands)
    if not on_tensors and not all(value.type.is_memref for value in operands):
        raise TypeError("linalg operands must be all tensors or all memrefs, got "
                        + ", ".join(str(value.type) for value in operands))
    # On tensors, the op returns its updated outputs.
    result_types = [value.type for value in outputs] if on_tensors else []
    operation = builder.create(name, operands, result_types=result_types,
                               attributes=attributes, num_regions=1)
    element_types = [value.type.element_type for value in operands]
    block = operation.regions[0].append_block(element_types)
    body_builder = Builder(context, block)
    yielded = body(body_builder, *block.arguments)
    body_builder.build("linalg.yield", yielded, verify=False)
    return operation


def _multiply_accumulate(builder, a, b, c):
    """c + a * b in c's type: the body of matmul and batch_matmul."""
    a = builder.convert(a, c.type)
    b = builder.convert(b, c.type)
    kind = "f" if c.type.is_float else "i"
    return [builder.arith(f"add{kind}", c, builder.arith(f"mul{kind}", a, b))]


def matmul(builder, a, b, c, sparse=None):
    """C += A x B (linalg.matmul). `sparse` = (operand, micro_tiles) marks
    one operand dynamically sparse, e.g. (0, [(32, 1), (1, 64)])."""
    operation = _linalg_operation(builder, "linalg.matmul", [a, b], [c], {},
                                  _multiply_accumulate)
    return _insert_linalg(builder, operation, sparse)


def batch_matmul(builder, a, b, c, sparse=None):
    """C[i] += A[i] x B[i] (linalg.batch_matmul)."""
    operation = _linalg_operation(builder, "linalg.batch_matmul", [a, b], [c],
                                  {}, _multiply_accumulate)
    return _insert_linalg(builder, operation, sparse)


def generic(builder, inputs, outputs, indexing_maps, iterator_types, body,
            sparse=None):
    """linalg.generic. `indexing_maps` are affine maps as text
    ("(d0, d1, d2) -> (d0, d2)"), `iterator_types` "parallel" or
    "reduction", body(body_builder, *scalars) returns the yielded values."""
    context = builder.context
    attributes = {
        "indexing_maps": _pit.Attribute.array(context, [
            _pit.Attribute.parse(context, f"affine_map<{text}>")
            for text in indexing_maps]),
        "iterator_types": _pit.Attribute.array(context, [
            _pit.Attribute.parse(context, f"#linalg.iterator_type<{kind}>")
            for kind in iterator_types]),
    }
    operation = _linalg_operation(builder, "linalg.generic", inputs, outputs,
                                  attributes, body)
    return _insert_linalg(builder, operation, sparse)


#===------------------------------------------------------------------------===#
# pit ops
#===------------------------------------------------------------------------===#


def _i64(context, value):
    return _pit.Attribute.integer(_pit.Type.parse(context, "i64"), value)


def detect(builder, source, counts, positions, micro_tile, axis):
    """pit.detect: the index of `source`'s non-zero micro-tiles."""
    context = builder.context
    return builder.build("pit.detect", [source, counts, positions], attributes={
        "micro_tile": _pit.Attribute.dense_i64_array(context, list(micro_tile)),
        "axis": _i64(context, axis)})


def _gather_clause(context, clause, operands, attributes):
    """Adds the optional (positions, segment, count, axis, micro) clause of
    sread/swrite; returns the operand segment sizes of its three operands."""
    if clause is None:
        return [0, 0, 0]
    positions, segment, count, axis, micro = clause
    operands += [positions, segment, count]
    attributes["axis"] = _i64(context, axis)
    attributes["micro"] = _i64(context, micro)
    return [1, 1, 1]


def sread(builder, source, offsets, dest, gather=None):
    """pit.sread: fills the tile `dest` from `source` at `offsets`;
    gather = (positions, segment, count, axis, micro) reads along `axis`
    through the index."""
    context = builder.context
    operands = [source] + list(offsets) + [dest]
    attributes = {}
    gathered = _gather_clause(context, gather, operands, attributes)
    attributes["operandSegmentSizes"] = _pit.Attribute.dense_i32_array(
        context, [1, len(offsets), 1] + gathered)
    return builder.build("pit.sread", operands, attributes=attributes)


def swrite(builder, source, dest, offsets, scatter=None, combine=None):
    """pit.swrite: writes the tile `source` into `dest` at `offsets`;
    scatter as sread's gather; combine = "add", "maximumf", ..."""
    context = builder.context
    operands = [source, dest] + list(offsets)
    attributes = {}
    scattered = _gather_clause(context, scatter, operands, attributes)
    attributes["operandSegmentSizes"] = _pit.Attribute.dense_i32_array(
        context, [1, 1, len(offsets)] + scattered)
    if combine is not None:
        attributes["combiner"] = CombinerAttr.get(context, combine).attribute
    return builder.build("pit.swrite", operands, attributes=attributes)


def stile(builder, counts, domain, tile, micro_tile, pit_axis, sparse_map,
          body, keep_tile=False, panel=None, group_rows=False):
    """pit.stile over `domain` in tiles of `tile`; `sparse_map` is the
    affine map text from the loops to the sparse operand's dimensions.
    body(body_builder, origins, segment) builds one tile's work. With
    `keep_tile`, lowerings run exactly `tile` rather than blocks of their
    own shape; with `panel`, a block of the lowering owns that many
    coordinates of a scattered output along `pit_axis`, and with
    `group_rows` as well the lowering may first group the coordinates that
    share segments into panels."""
    context = builder.context
    index = _pit.Type.parse(context, "index")
    attributes = {
        "domain": _pit.Attribute.dense_i64_array(context, list(domain)),
        "tile": _pit.Attribute.dense_i64_array(context, list(tile)),
        "micro_tile": _pit.Attribute.dense_i64_array(context, list(micro_tile)),
        "pit_axis": _i64(context, pit_axis),
        "sparse_map": _pit.Attribute.parse(context, f"affine_map<{sparse_map}>"),
    }
    if keep_tile:
        attributes["keep_tile"] = _pit.Attribute.parse(context, "unit")
    if panel is not None:
        attributes["panel"] = _i64(context, panel)
    if group_rows:
        attributes["group_rows"] = _pit.Attribute.parse(context, "unit")
    operation = builder.create("pit.stile", [counts], attributes=attributes,
                               num_regions=1)
    block = operation.regions[0].append_block([index] * (len(domain) + 1))
    terminator = Builder(context, block).build("pit.yield", verify=False)
    # Verified with an empty body, then inserted: the body uses values from
    # around the stile, which only dominate it once it is in place. Each
    # body op is then verified as it is built.
    builder.insert(operation)
    arguments = block.arguments
    body(Builder(context, block, before=terminator), arguments[:-1], arguments[-1])
    return operation


__all__ = ["Builder", "Function", "memref", "mark_sparse", "matmul",
           "batch_matmul", "generic", "detect", "sread", "swrite", "stile"]
