"""oar.summary: the table of a network's layers, shapes and parameter counts, in the
layout of Paddle's paddle.summary (so a Paddle program prints the same table)."""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from .. import _C
from ..framework.grad_mode import no_grad
from ..static import InputSpec
from ..tensor.random import rand
from ..nn import Layer, LayerList, Sequential

Tensor = _C.Tensor

# Minimum column widths of Paddle's table (layer, input shape, output shape, params, all).
_WIDTHS = (15, 20, 20, 15, 75)


def summary(
    net: Layer, input_size: Any = None, dtypes: str | Sequence[str] | None = None, input: Any = None
) -> dict[str, int]:
    """Prints each layer that runs (its input and output shapes and its parameter count),
    the totals and estimated sizes, and returns the parameter counts.

    Args:
        net (Layer): The network.
        input_size (tuple|InputSpec|list|None): The input shape (None or -1 for the batch,
            run as 1), or a list of shapes for several inputs. Random inputs of these
            shapes run through the network. Default: None (use `input`).
        dtypes (str|list|None): The inputs' dtype(s). Default: float32.
        input (Tensor|list|tuple|dict|None): Real inputs; passed to the network as one
            argument (a list stays one list argument, as in Paddle). Default: None.

    Returns:
        dict: {'total_params': ..., 'trainable_params': ...}.
    """
    if input_size is None and input is None:
        raise ValueError("summary: give input_size or input")
    if input_size is None:
        input_size = _sizes_of(input)
    sizes = _check_sizes(_normalise_sizes(input_size))
    was_training = net.training
    if was_training:
        net.eval()
    try:
        text, info = _summary_string(net, sizes, dtypes, input)
    finally:
        if was_training:
            net.train()
    print(text)
    return info


def _sizes_of(input):
    if isinstance(input, Tensor):
        return tuple(input.shape)
    if isinstance(input, (list, tuple)):
        return [tuple(x.shape) for x in input]
    if isinstance(input, dict):
        return [tuple(v.shape) for v in input.values()]
    raise ValueError(
        "summary: argument 'input' must be a Tensor, a list, tuple or dict of "
        "Tensors; otherwise give input_size"
    )


def _normalise_sizes(input_size):
    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, int):
        return (input_size,)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if isinstance(item, InputSpec):
                item = tuple(item.shape)
            if not isinstance(item, (tuple, list)):
                raise TypeError(
                    f"summary: argument 'input_size' as a list holds tuples or "
                    f"InputSpecs, got {type(item).__name__}"
                )
            out.append(item)
        return out
    return input_size


def _is_shape(s):
    return isinstance(s, (list, tuple)) and all(not isinstance(d, (list, tuple)) for d in s)


def _check_sizes(s):
    if not _is_shape(s):
        return [_check_sizes(i) for i in s]
    unknown, shape = 0, []
    for d in s:
        if d is None or d == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError(
                    "summary: only the batch dimension of input_size can be None or -1"
                )
            d = 1
        elif isinstance(d, numbers.Number) and d <= 0:
            raise ValueError(f"summary: the sizes in input_size must be > 0, got {d}")
        shape.append(d)
    return tuple(shape)


def _all_numbers(s):
    return isinstance(s, (list, tuple)) and all(isinstance(d, numbers.Number) for d in s)


def _dtypes_like(sizes, dtype):
    if _all_numbers(sizes):
        return [dtype or "float32"]
    return [_dtypes_like(s, dtype) for s in sizes]


def _random_inputs(sizes, dtypes):
    if _all_numbers(sizes):
        dt = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return _C.cast(rand(list(sizes)), dt)
    return [_random_inputs(s, d) for s, d in zip(sizes, dtypes)]


def _shapes(x):
    """The shape of a tensor, or the nested list of shapes of a list/tuple of them."""
    if isinstance(x, Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shapes(v) for v in x]
    return None


def _output_shape(out):
    if isinstance(out, (list, tuple)):
        return [_output_shape(o) for o in out]
    return list(out.shape) if hasattr(out, "shape") else []


@no_grad()
def _summary_string(net, sizes, dtypes, input):
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _dtypes_like(sizes, dtypes)
    rows = {}  # "Conv2D-1" -> row; a layer run twice keeps its first place
    has_sublayers = bool(net.sublayers())

    def hook(layer, inputs, outputs):
        suffix = layer._full_name.rsplit("_", 1)[-1]
        idx = int(suffix) if suffix.isdigit() else len(rows)
        row = {"input_shape": _shapes(inputs), "output_shape": _output_shape(outputs)}
        params = trainable = 0
        row_trainable = None
        for p in layer._parameters.values():
            if p is None:
                continue
            n = np.prod(p.shape)
            params += n
            if not p.stop_gradient:
                trainable += n
                row_trainable = True
            elif row_trainable is None:
                row_trainable = False
        row["nb_params"], row["trainable_params"], row["trainable"] = (
            params,
            trainable,
            row_trainable,
        )
        rows[f"{type(layer).__name__}-{idx + 1}"] = row

    handles = []
    for layer in net.sublayers(include_self=True):
        if isinstance(layer, (Sequential, LayerList)):
            continue
        if layer is net and has_sublayers:
            continue
        handles.append(layer.register_forward_post_hook(hook))
    try:
        if input is not None:
            net(input)
        else:
            x = _random_inputs([sizes] if isinstance(sizes, tuple) else sizes, dtypes)
            net(*x)
    finally:
        for h in handles:
            h.remove()
    return _table(rows, sizes)


def _table(rows, sizes):
    w_layer, w_in, w_out, w_params, w_table = _WIDTHS
    for key, r in rows.items():
        w_out = max(w_out, len(str(r["output_shape"])))
        w_in = max(w_in, len(str(r["input_shape"])))
        w_layer = max(w_layer, len(key))
        w_params = max(w_params, len(str(r["nb_params"])))
    w_table = max(w_table, w_layer + w_in + w_out + w_params + 5)
    fmt = f"{{:^{w_layer}}} {{:^{w_in}}} {{:^{w_out}}} {{:^{w_params}}}"
    lines = [
        "-" * w_table,
        fmt.format("Layer (type)", "Input Shape", "Output Shape", "Param #"),
        "=" * w_table,
    ]
    total = trainable = 0
    outputs = 0
    for key, r in rows.items():
        lines.append(
            fmt.format(key, str(r["input_shape"]), str(r["output_shape"]), f"{r['nb_params']:,}")
        )
        total += r["nb_params"]
        outputs += _elements(r["output_shape"])
        if r["trainable"]:
            trainable += r["trainable_params"]
    mb = 1024.0**2
    input_mb = _input_mb(sizes)
    output_mb = abs(2.0 * outputs * 4.0 / mb)  # x2: the gradients
    params_mb = abs(total * 4.0 / mb)
    lines += [
        "=" * w_table,
        f"Total params: {total:,}",
        f"Trainable params: {trainable:,}",
        f"Non-trainable params: {total - trainable:,}",
        "-" * w_table,
        f"Input size (MB): {input_mb:0.2f}",
        f"Forward/backward pass size (MB): {output_mb:0.2f}",
        f"Params size (MB): {params_mb:0.2f}",
        f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:0.2f}",
        "-" * w_table,
    ]
    return "\n".join(lines) + "\n", {"total_params": total, "trainable_params": trainable}


def _elements(shape):
    """Paddle's count of a layer's output elements: the product over the last axis of the
    shape array (of each shape, when the outputs' shapes have different ranks)."""
    try:
        return np.sum(np.prod(shape, axis=-1))
    except ValueError:
        return sum(np.sum(np.prod(s, axis=-1)) for s in shape)


def _input_mb(sizes):
    if _all_numbers(sizes):
        return abs(np.prod(sizes) * 4.0 / 1024.0**2)
    return sum(_input_mb(s) for s in sizes)
