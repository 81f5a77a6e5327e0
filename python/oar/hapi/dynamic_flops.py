"""oar.flops: Paddle's dynamic-graph FLOPs counter (paddle.flops, paddle.hapi.dynamic_flops).

One forward pass of a random input runs through the network with a hook on every leaf
layer (a layer without sub-layers); each hook adds its layer's count to the layer's
`total_ops` buffer. The counts follow Paddle 3.3's rules, so a network reports the same
number in both: a convolution counts output elements x (in_channels / groups x kernel
size + 1 if biased), Linear output elements x in_features, BatchNorm2D / BatchNorm 2 x
input elements, LeakyReLU input elements, AvgPool output elements, AdaptiveAvgPool output
elements x (input/output size ratio product + 1), ReLU / ReLU6 / Dropout nothing, and any
other type nothing (with a notice) unless custom_ops gives a function for it.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np

from .. import _C
from ..tensor.random import randn
from ..tensor.creation import zeros
from ..framework.dtype import int64
from ..framework.grad_mode import no_grad
from .. import nn

Tensor = _C.Tensor

__all__ = ["flops", "dynamic_flops"]


def _numel(t) -> int:
    return math.prod(t.shape)


# The counting rules. Each takes (layer, inputs tuple, output), as a custom_ops function
# does, and adds to layer.total_ops; the arithmetic keeps Paddle's order of operations so
# that the float rounding of large counts is the same.
def count_convNd(m, x, y):
    kernel_ops = np.prod(m.weight.shape[2:])
    bias_ops = 1 if m.bias is not None else 0
    total = _numel(y) * (x[0].shape[1] / m._groups * kernel_ops + bias_ops)
    m.total_ops += abs(int(total))


def count_leaky_relu(m, x, y):
    m.total_ops += _numel(x[0])


def count_bn(m, x, y):
    # the layer runs in eval mode here: normalise and scale-shift each element
    m.total_ops += 2 * _numel(x[0])


def count_linear(m, x, y):
    m.total_ops += abs(int(m.weight.shape[0] * _numel(y)))


def count_avgpool(m, x, y):
    m.total_ops += _numel(y)


def count_adap_avgpool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    m.total_ops += abs(int((np.prod(kernel) + 1) * _numel(y)))


def count_zero_ops(m, x, y):
    m.total_ops += 0


# Keyed by exact type, as Paddle's table: a subclass (BatchNorm1D, a user's Conv2D
# subclass) is not counted unless custom_ops names it.
register_hooks: dict[type, Callable[..., None]] = {
    nn.Conv1D: count_convNd,
    nn.Conv2D: count_convNd,
    nn.Conv3D: count_convNd,
    nn.Conv1DTranspose: count_convNd,
    nn.Conv2DTranspose: count_convNd,
    nn.Conv3DTranspose: count_convNd,
    nn.BatchNorm2D: count_bn,
    nn.BatchNorm: count_bn,
    nn.ReLU: count_zero_ops,
    nn.ReLU6: count_zero_ops,
    nn.Dropout: count_zero_ops,
    nn.LeakyReLU: count_leaky_relu,
    nn.Linear: count_linear,
    nn.AvgPool1D: count_avgpool,
    nn.AvgPool2D: count_avgpool,
    nn.AvgPool3D: count_avgpool,
    nn.AdaptiveAvgPool1D: count_adap_avgpool,
    nn.AdaptiveAvgPool2D: count_adap_avgpool,
    nn.AdaptiveAvgPool3D: count_adap_avgpool,
}


class Table:
    """Paddle's plain-text table (the layout of its flops report)."""

    def __init__(self, table_heads):
        self.table_heads = list(table_heads)
        self.table_len = [len(h) for h in self.table_heads]
        self.data = []
        self.col_num = len(self.table_heads)

    def add_row(self, row_str):
        if len(row_str) != self.col_num:
            raise ValueError(
                f"Table.add_row(): the row has {len(row_str)} cells, the table "
                f"{self.col_num} columns"
            )
        self.table_len = [max(w, len(str(c))) for w, c in zip(self.table_len, row_str)]
        self.data.append(list(row_str))

    def _row(self, row):
        return "".join("|" + str(c).center(w + 2) for c, w in zip(row, self.table_len)) + "|"

    def _shelf(self):
        return "".join("+" + "-" * (w + 2) for w in self.table_len) + "+"

    def print_table(self):
        lines = [self._shelf(), self._row(self.table_heads), self._shelf()]
        lines += [self._row(r) for r in self.data] + [self._shelf()]
        print("\n".join(lines))


def _is_leaf(m):
    return not m._sub_layers


def _first_shape(v):
    # a layer returning several tensors reports its first one, as Paddle does
    if isinstance(v, (list, tuple)):
        v = v[0] if v else None
    return list(v.shape) if isinstance(v, Tensor) else []


def flops(
    net: Any,
    input_size: Any,
    custom_ops: dict[type, Callable[..., Any]] | None = None,
    print_detail: bool = False,
) -> int:
    """The FLOPs of one forward pass of net on a random input of shape input_size.

    Every leaf layer (one without sub-layers) is counted by its type with Paddle's rules
    (Conv*, Linear, BatchNorm2D/BatchNorm, LeakyReLU, AvgPool*, AdaptiveAvgPool*; ReLU,
    ReLU6 and Dropout count zero; any other type counts zero with a notice), or by
    ``custom_ops[type(layer)](layer, inputs, output)``, which adds its count to
    ``layer.total_ops``. The input is drawn with oar.randn (so it advances the default
    generator) and runs in eval mode without gradients; the training mode is restored.

    Args:
        net (Layer): The network.
        input_size (list[int]): The input's shape, batch included (Paddle counts a batch
            of 1).
        custom_ops (dict|None, optional): layer class -> counting function
            ``fn(layer, inputs, output)``; it takes precedence over the built-in rules.
            Default: None.
        print_detail (bool, optional): Also print the per-layer table (name, input and
            output shapes, parameters, FLOPs). Default: False.

    Returns:
        int: The total FLOPs (-1, with a warning, when net is not a Layer).

    Examples:
        >>> import oar
        >>> net = oar.nn.Sequential(oar.nn.Linear(8, 4), oar.nn.ReLU())
        >>> n = oar.flops(net, [1, 8])  # doctest: +ELLIPSIS
        <class 'oar.nn.layer.common.Linear'>'s flops has been counted
        <class 'oar.nn.layer.activation.ReLU'>'s flops has been counted
        Total Flops: 32     Total Params: 36
        >>> n
        32
    """
    if not isinstance(net, nn.Layer):
        # Paddle also takes a static Program; oar has none, and like Paddle answers -1
        warnings.warn(
            "flops(): argument 'net' must be an oar.nn.Layer (oar has no static "
            f"Program to count), but got {type(net).__name__}"
        )
        return -1
    return dynamic_flops(net, randn(input_size), custom_ops=custom_ops, print_detail=print_detail)


def dynamic_flops(
    model: nn.Layer,
    inputs: Tensor,
    custom_ops: dict[type, Callable[..., Any]] | None = None,
    print_detail: bool = False,
) -> int:
    """flops() of `model` on the given input tensor (Paddle's paddle.hapi.dynamic_flops
    function): the counting, the per-type notices, the optional table and the total line."""
    custom_ops = {} if custom_ops is None else custom_ops
    if not isinstance(custom_ops, dict):
        raise TypeError(
            f"flops(): argument 'custom_ops' must be a dict of layer class -> "
            f"counting function, but got {type(custom_ops).__name__}"
        )
    handles, seen, shapes = [], set(), {}

    def count_parameters(m, x, y):
        m.total_params[0] = sum(_numel(p) for p in m.parameters())

    def record_shapes(m, x, y):
        shapes[id(m)] = (_first_shape(x), _first_shape(y))

    def add_hooks(m):
        if not _is_leaf(m):
            return
        m.register_buffer("total_ops", zeros([1], dtype=int64))
        m.register_buffer("total_params", zeros([1], dtype=int64))
        t = type(m)
        fn = custom_ops.get(t)
        if fn is not None:
            note = f"Customize Function has been applied to {t}"
        else:
            fn = register_hooks.get(t)
            note = (
                f"{t}'s flops has been counted"
                if fn is not None
                else f"Cannot find suitable count function for {t}. Treat it as zero FLOPs."
            )
        if t not in seen:
            print(note)
            seen.add(t)
        for hook in ((fn,) if fn is not None else ()) + (count_parameters, record_shapes):
            handles.append(m.register_forward_post_hook(hook))

    # Paddle leaves a leaf network itself out of its sums (it walks the sub-layers
    # only) and reports 0 for a lone Conv2D or Linear; oar counts it.
    leaves = [m for m in model.sublayers(include_self=True) if _is_leaf(m)]
    named = [(n, m) for n, m in model.named_sublayers(include_self=True) if _is_leaf(m)]
    training = model.training
    model.eval()
    total_ops = total_params = 0
    table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
    try:
        model.apply(add_hooks)
        with no_grad():
            model(inputs)
        for m in leaves:
            if id(m) in shapes:
                total_ops += int(m.total_ops)
                total_params += int(m.total_params)
        for _, m in named:
            if id(m) in shapes:
                table.add_row(
                    [m.full_name(), *shapes[id(m)], int(m.total_params), int(m.total_ops)]
                )
    finally:
        if training:
            model.train()
        for h in handles:
            h.remove()
        for m in leaves:  # also those the forward pass did not reach (Paddle keeps those)
            m._buffers.pop("total_ops", None)
            m._buffers.pop("total_params", None)
    if print_detail:
        table.print_table()
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops
