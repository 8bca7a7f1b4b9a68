"""torch.nn modules on PIT's kernels."""

import math

import torch

from .torch import sparse_linear


class SparseLinear(torch.nn.Module):
    """nn.Linear whose product skips zero micro-tiles, found at every call:

    - sparse="weight": the weight's, zeroed by a mask that may change at
      every step (set_mask: pruning during training); the weight's gradient
      is the masked one;
    - sparse="input": the input's (activation sparsity, such as the output
      of a ReLU); a mask, if set, still zeroes the weight.

    micro_tiles are (rows, columns) of the sparse operand as stored. With
    a mask, the weight's gradient is the masked layer's, mask * (dy^T x),
    by one SDDMM over the mask's micro-tiles; without one, the sparse
    operand's gradient keeps its non-zero elements only (see pit.torch): a
    weight element that is exactly zero gets none.
    """

    def __init__(self, in_features, out_features, bias=True, *, sparse="weight",
                 micro_tiles=((32, 64),), device=None, dtype=None):
        super().__init__()
        if sparse not in ("weight", "input"):
            raise ValueError(f"sparse is 'weight' or 'input', got {sparse!r}")
        self.in_features, self.out_features = in_features, out_features
        self.sparse = sparse
        self.micro_tiles = tuple(tuple(tile) for tile in micro_tiles)
        factory = {"device": device, "dtype": dtype}
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features, **factory))
        self.bias = (torch.nn.Parameter(torch.empty(out_features, **factory))
                     if bias else None)
        self.register_buffer("mask", None)
        self.reset_parameters()

    def reset_parameters(self):
        """nn.Linear's initialization."""
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features)
            torch.nn.init.uniform_(self.bias, -bound, bound)

    def set_mask(self, mask):
        """Zeroes the weight where `mask` (out_features x in_features) is 0,
        from the next call on; None removes the mask."""
        if mask is not None:
            if tuple(mask.shape) != tuple(self.weight.shape):
                raise ValueError(f"mask is {list(mask.shape)}; expects the "
                                 f"weight's {list(self.weight.shape)}")
            mask = mask.to(dtype=self.weight.dtype, device=self.weight.device)
        self.mask = mask

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        # A mask saved with the module comes back with it, set or not here.
        mask = state_dict.get(prefix + "mask")
        if mask is not None and self.mask is None:
            self.set_mask(torch.zeros_like(mask))
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(self, x):
        return sparse_linear(x, self.weight, self.bias, sparse=self.sparse,
                             micro_tiles=self.micro_tiles, mask=self.mask)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}, sparse={self.sparse}, "
                f"micro_tiles={list(self.micro_tiles)}")
