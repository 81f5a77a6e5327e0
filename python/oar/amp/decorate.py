"""oar.amp.decorate: Paddle's paddle.amp.decorate -- prepare models and optimizers
for pure low-precision training (level "O2").

O2 casts the floating parameters and buffers of every layer to float16/bfloat16,
except normalization layers (their statistics and affine parameters stay float32:
a variance or a running mean loses too much in 8 bits of mantissa) and the
excluded layers. Because oar's Layer.to makes new Parameter objects (a tensor's
dtype cannot change in place), the optimizers' parameter lists are pointed at the
new parameters.

master_weight (on by default at O2) turns on the optimizers' multi_precision:
each low-precision parameter gets a float32 master copy, seeded from the float32
value before the cast, that the update runs on; the parameter receives the
master cast down after every step (oar/optimizer/optimizer.py). Without it the
update starts again from the rounded low-precision value at every step, so an
update below half a unit in the last place of the parameter is lost.
"""

from __future__ import annotations

from typing import Union

from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.grad_mode import no_grad
from ..nn.layer import norm
from ..nn import Layer
from ..framework.param import Parameter
from ..framework.typing import DTypeLike
from ..optimizer.optimizer import _float32_stand_in
from ..optimizer import Optimizer

__all__ = ["decorate"]

_Models = Union[Layer, list[Layer]]
_Optimizers = Union[Optimizer, list[Optimizer]]

_LOW = ("float16", "bfloat16")
_FLOATING = ("float16", "bfloat16", "float32", "float64")


def _norm_types():
    return (norm._BatchNormBase, norm.LayerNorm, norm.GroupNorm, norm._InstanceNorm)


def _dtype_name(who, name, v, allowed):
    """The dtype name of v (a name or an oar dtype) if it is one of allowed."""
    if isinstance(v, str):
        n = v
    else:
        try:
            n = convert_dtype(v).name
        except (TypeError, ValueError, KeyError):
            raise TypeError(
                f"{who}: argument '{name}' must be a dtype name, got {type(v).__name__}"
            ) from None
    if n not in allowed:
        raise ValueError(f"{who}: argument '{name}' must be one of {list(allowed)}, got {v!r}")
    return n


def _as_list(who, name, v, kind, kind_name):
    if isinstance(v, kind):
        return [v], False
    if isinstance(v, list) and v and all(isinstance(x, kind) for x in v):
        return list(v), True
    raise TypeError(
        f"{who}: argument '{name}' must be {kind_name} or a non-empty list of "
        f"them, got {type(v).__name__}"
    )


def _excluded(who, models, excluded_layers):
    """ids of the layers excluded_layers names (instances with their sub-layers,
    and every layer of the listed types)."""
    if excluded_layers is None:
        return set()
    items = excluded_layers if isinstance(excluded_layers, list) else [excluded_layers]
    out, types = set(), []
    for item in items:
        if isinstance(item, Layer):
            out.update(id(l) for l in item.sublayers(include_self=True))
        elif isinstance(item, type) and issubclass(item, Layer):
            types.append(item)
        else:
            raise TypeError(
                f"{who}: argument 'excluded_layers' must be a Layer instance or "
                f"type, or a list of them; got {item!r}"
            )
    if types:
        for m in models:
            out.update(id(l) for l in m.sublayers(include_self=True) if isinstance(l, tuple(types)))
    return out


@no_grad()
def _cast_layer(layer, dtype, replaced):
    """Cast the layer's own floating parameters and buffers (not its sub-layers') to
    dtype; replaced maps id(old parameter) -> (old, new) so a parameter shared by
    two layers becomes one new parameter."""
    for reg in (layer._parameters, layer._buffers):
        for name, t in reg.items():
            if t is None or t.dtype.name not in _FLOATING or t.dtype.name == dtype:
                continue
            if id(t) in replaced:
                reg[name] = replaced[id(t)][1]
                continue
            if isinstance(t, Parameter):
                new = Parameter(
                    _C.cast(t, dtype),
                    name=t.name,
                    trainable=t.trainable,
                    learning_rate=t.optimize_attr["learning_rate"],
                    regularizer=t.regularizer,
                    need_clip=t.need_clip,
                )
                for k, v in t.__dict__.items():  # any other attribute set on it
                    new.__dict__.setdefault(k, v)
                replaced[id(t)] = (t, new)
            else:
                new = _C.cast(t, dtype)
                new.persistable = t.persistable
            reg[name] = new
    layer._dtype = convert_dtype(dtype)


def _retarget(opt, replaced, master_weight):
    """Point opt's parameter groups at the cast parameters; with master weights,
    seed each master from the parameter's value before the cast."""
    for g in opt._groups:
        for i, p in enumerate(g.params):
            if id(p) not in replaced:
                continue
            old, new = replaced[id(p)]
            g.params[i] = new
            g.masters[i] = (
                _float32_stand_in(old, new.name + "_fp32_master_0") if master_weight else None
            )
        g.refresh()
    opt._multi_precision = master_weight


class _SaveDtypeHook:
    """Layer state-dict hook: floating entries cast to save_dtype (the layer's own
    tensors are untouched)."""

    def __init__(self, save_dtype):
        self._save_dtype = save_dtype

    def __call__(self, state_dict):
        for key, t in list(state_dict.items()):
            if (
                isinstance(t, _C.Tensor)
                and t.dtype.name in _FLOATING
                and t.dtype.name != self._save_dtype
            ):
                c = _C.cast(t.detach(), self._save_dtype)
                c.name = t.name
                state_dict[key] = c


def decorate(
    models: _Models,
    optimizers: _Optimizers | None = None,
    level: str = "O2",
    dtype: DTypeLike = "bfloat16",
    master_weight: bool | None = None,
    save_dtype: DTypeLike | None = None,
    master_grad: bool = False,
    excluded_layers: Layer | type[Layer] | list[Layer | type[Layer]] | None = None,
) -> _Models | tuple[_Models, _Optimizers]:
    """Prepare models (and their optimizers) for mixed-precision training.

    Args:
        models: a Layer or a list of Layers.
        optimizers: an oar.optimizer.Optimizer, a list of them, or None.
        level: "O2" (default here; Paddle's default is "O1") casts the models' floating parameters and buffers to dtype, except
            BatchNorm*/LayerNorm/GroupNorm/InstanceNorm* layers and excluded_layers;
            "O1" returns everything unchanged (auto_cast decides per op).
        dtype: "bfloat16" (default here) or "float16" (Paddle's default, made for
            GPUs; on a CPU bfloat16 is the fast one, see is_bfloat16_supported).
        master_weight: O2 only: whether the optimizers keep float32 master weights
            of the low-precision parameters (None means True). Their state_dict()
            then has a "master_weights" entry {parameter name: float32 Tensor}.
        save_dtype: "float16", "bfloat16", "float32", "float64" or None: the models'
            state_dict() returns floating tensors cast to it (for checkpoints); the
            parameters themselves keep their dtype.
        master_grad: accepted for Paddle compatibility (bool). The optimizers already
            clip and apply float32 copies of low-precision gradients; the gradients
            stored on the parameters keep the parameters' dtype.
        excluded_layers: a Layer instance or type, or a list of them, kept float32.

    Returns:
        models when optimizers is None, else (models, optimizers), each a single
        object or a list as passed in.
    """
    who = "decorate"
    if not isinstance(level, str):
        raise TypeError(f"{who}: argument 'level' must be a str, got {type(level).__name__}")
    if level not in ("O1", "O2"):
        raise ValueError(f"{who}: argument 'level' must be 'O1' or 'O2', got {level!r}")
    dtype = _dtype_name(who, "dtype", dtype, _LOW)
    if master_weight is not None and not isinstance(master_weight, bool):
        raise TypeError(
            f"{who}: argument 'master_weight' must be a bool or None, got "
            f"{type(master_weight).__name__}"
        )
    if not isinstance(master_grad, bool):
        raise TypeError(
            f"{who}: argument 'master_grad' must be a bool, got {type(master_grad).__name__}"
        )
    if save_dtype is not None:
        save_dtype = _dtype_name(who, "save_dtype", save_dtype, _FLOATING)

    model_list, models_is_list = _as_list(who, "models", models, Layer, "a Layer")
    opt_list, opts_is_list = (
        ([], False)
        if optimizers is None
        else _as_list(who, "optimizers", optimizers, Optimizer, "an oar.optimizer.Optimizer")
    )
    if level == "O1":
        return models if optimizers is None else (models, optimizers)

    skip = _excluded(who, model_list, excluded_layers)
    norms = _norm_types()
    replaced = {}
    for m in model_list:
        for layer in m.sublayers(include_self=True):
            if id(layer) in skip or isinstance(layer, norms):
                continue
            _cast_layer(layer, dtype, replaced)
    use_master = master_weight is not False
    for opt in opt_list:
        _retarget(opt, replaced, use_master)
    if save_dtype is not None:
        for m in model_list:
            for layer in m.sublayers(include_self=True):
                layer.register_state_dict_hook(_SaveDtypeHook(save_dtype))

    out_models = model_list if models_is_list else model_list[0]
    if optimizers is None:
        return out_models
    return out_models, (opt_list if opts_is_list else opt_list[0])
