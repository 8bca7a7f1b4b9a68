"""Typed views of the pit dialect's attributes."""

from . import _pit


class SparseAttr:
    """#pit.sparse: marks operand `operand` of a linalg op as dynamically
    sparse, with the candidate micro-tile shapes the compiler may gather."""

    NAME = _pit.sparse_attr_name()

    def __init__(self, attribute):
        if not _pit.is_sparse_attr(attribute):
            raise TypeError(f"expects a #pit.sparse attribute, got {attribute}")
        self.attribute = attribute

    @classmethod
    def get(cls, context, operand, micro_tiles):
        """Raises MLIRError for invalid micro-tiles (none, mixed ranks,
        non-positive extents)."""
        return cls(_pit.sparse_attr_get(context, operand,
                                        [list(tile) for tile in micro_tiles]))

    @property
    def operand(self):
        return _pit.sparse_attr_operand(self.attribute)

    @property
    def micro_tiles(self):
        return [tuple(tile) for tile in _pit.sparse_attr_micro_tiles(self.attribute)]

    def __str__(self):
        return str(self.attribute)


class CombinerAttr:
    """#pit.combiner: how pit.swrite combines a tile with what is there."""

    def __init__(self, attribute):
        if not _pit.is_combiner_attr(attribute):
            raise TypeError(f"expects a #pit.combiner attribute, got {attribute}")
        self.attribute = attribute

    @classmethod
    def get(cls, context, kind):
        """Raises MLIRError for an unknown kind."""
        return cls(_pit.combiner_attr_get(context, kind))

    @property
    def kind(self):
        return _pit.combiner_attr_kind(self.attribute)

    def __str__(self):
        return str(self.attribute)
