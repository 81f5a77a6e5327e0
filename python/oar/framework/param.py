"""Parameters: Paddle's ParamAttr and the Parameter tensor type (Paddle's EagerParamBase).

A Parameter is an oar.Tensor (a Python subclass sharing the C++ tensor, so every
op takes it unchanged) that needs a gradient, is persistable, and carries the
attributes the optimizers read: trainable, optimize_attr (learning-rate factor),
regularizer and need_clip.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import _C
from .check import is_int
from .dtype import convert_dtype
from .typing import DTypeLike
from .grad_mode import no_grad
from .unique_name import generate

__all__ = ["ParamAttr", "Parameter", "create_parameter"]

Tensor = _C.Tensor


class _Decay:
    """The base of oar.regularizer's L1Decay and L2Decay (here, below them, so that ParamAttr
    can tell a regularizer from an initializer)."""

    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)) or coeff < 0:
            raise ValueError(
                f"{type(self).__name__}: argument 'coeff' must be a number >= 0, got {coeff!r}"
            )
        self._coeff = float(coeff)

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self._coeff})"


# create_parameter's initializers when none is given: factories for "weight" (XavierUniform)
# and "bias" (Constant(0.0)). oar.nn.initializer, a higher layer, fills this at its import.
DEFAULT_INITIALIZERS: dict = {}
# nn.initializer.set_global_initializer's weight and bias initializers (None: unset); they
# override a default_initializer, as in Paddle, but not an attr's initializer.
GLOBAL_INITIALIZERS: dict = {"weight": None, "bias": None}


class ParamAttr:
    """How a layer creates one parameter (Paddle's paddle.ParamAttr).

    Args:
        name: the parameter's name (default: generated from the layer's name).
        initializer: an oar.nn.initializer instance (default: the layer's).
        learning_rate: a factor on the optimizer's learning rate for this parameter.
        regularizer: L1Decay/L2Decay for this parameter (overrides the optimizer's).
        trainable: False keeps the parameter out of training (stop_gradient=True).
        do_model_average: accepted for Paddle compatibility.
        need_clip: False exempts the parameter from gradient clipping.
    """

    def __init__(
        self,
        name=None,
        initializer=None,
        learning_rate=1.0,
        regularizer=None,
        trainable=True,
        do_model_average=True,
        need_clip=True,
    ):
        if name is not None and not isinstance(name, str):
            raise TypeError(
                f"ParamAttr: argument 'name' must be a str or None, got {type(name).__name__}"
            )
        if not isinstance(learning_rate, (int, float)):
            raise TypeError(
                f"ParamAttr: argument 'learning_rate' must be a number, got "
                f"{type(learning_rate).__name__}"
            )
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = bool(need_clip)

    @staticmethod
    def _to_attr(arg):
        """Paddle's accepted forms: None or True (defaults), False (no parameter), a
        ParamAttr, a name string, an initializer, or a regularizer (L1Decay/L2Decay)."""
        if arg is None or arg is True:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, _Decay):
            return ParamAttr(regularizer=arg)
        if callable(arg):  # an initializer
            return ParamAttr(initializer=arg)
        raise TypeError(
            f"ParamAttr: expected None, a bool, a str, an initializer, a "
            f"regularizer or a ParamAttr, got {type(arg).__name__}"
        )

    def __repr__(self):
        return (
            f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
            f"learning_rate={self.learning_rate}, trainable={self.trainable})"
        )


class Parameter(Tensor):
    """A trainable tensor owned by a layer (what Layer.create_parameter returns)."""

    def __new__(
        cls, value, name=None, trainable=True, learning_rate=1.0, regularizer=None, need_clip=True
    ):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"Parameter: argument 'value' must be a Tensor, got {type(value).__name__}"
            )
        p = _C._make_subclass(cls, value.detach())
        p.stop_gradient = not trainable
        p.persistable = True
        p.name = name if name is not None else _unique("param")
        p.optimize_attr = {"learning_rate": float(learning_rate)}
        p.regularizer = regularizer
        p.need_clip = need_clip
        return p

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        self.stop_gradient = not value

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def set_value(self, value):
        _set_value(self, value)

    def initialize(self):
        """Paddle's explicit initialisation of a parameter made under LazyGuard. oar
        initialises every parameter when it is created, so there is nothing left to do:
        returns the parameter unchanged."""
        return self

    def __deepcopy__(self, memo):
        p = Parameter(
            _C.assign(self.detach()),
            name=self.name,
            trainable=self.trainable,
            learning_rate=self.optimize_attr["learning_rate"],
            regularizer=self.regularizer,
            need_clip=self.need_clip,
        )
        memo[id(self)] = p
        return p


class LazyGuard:
    """Paddle's context manager for lazily initialised layers (parameters without
    memory until `param.initialize()`). oar initialises parameters when a layer is
    built, so under this guard they are initialised at once, with the same values,
    and `Parameter.initialize()` does nothing: a deliberate difference in memory
    timing only (docs/paddle_api.md).

    Examples:
        >>> import oar
        >>> with oar.LazyGuard():
        ...     net = oar.nn.Linear(10, 10)
        >>> for param in net.parameters():
        ...     _ = param.initialize()
        >>> print(net.weight.shape)
        oar.Size([10, 10])
    """

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _set_value(t, value):
    """Copy value (a Tensor or array-like of t's shape) into t, in place, without
    recording a gradient (Paddle's Tensor.set_value)."""
    if not isinstance(value, Tensor):
        value = Tensor(np.asarray(value))  # oar.to_tensor, through _C's tensor factory
    if list(value.shape) != list(t.shape):
        raise ValueError(
            f"set_value: argument 'value' has shape {list(value.shape)}, "
            f"expected the tensor's shape {list(t.shape)}"
        )
    if value.dtype != t.dtype:
        value = _C.cast(value, t.dtype)
    with no_grad():
        t[...] = value


def _unique(prefix):
    """prefix_0, prefix_1, ...: Paddle's unique_name.generate (so unique_name.guard()
    restarts the names of the layers and parameters made inside it, as in Paddle)."""
    return generate(prefix)


def create_parameter(
    shape: Sequence[int],
    dtype: DTypeLike,
    name: str | None = None,
    attr: Any = None,
    is_bias: bool = False,
    default_initializer: Any = None,
) -> Parameter:
    """A new Parameter (Paddle's paddle.create_parameter).

    Args:
        shape: the parameter's shape (a list of ints).
        dtype: its dtype ("float32", oar.float32, ...).
        name: its name (default: generated).
        attr: a ParamAttr (or its accepted short forms).
        is_bias: use the bias initializer (zeros) when none is given.
        default_initializer: the initializer when attr gives none and
            nn.initializer.set_global_initializer set none (default: XavierUniform for
            weights, Constant(0.0) for biases).

    Returns:
        Parameter: the initialised parameter.
    """
    if not isinstance(shape, (list, tuple)) or not all(is_int(d) and d >= 0 for d in shape):
        raise ValueError(
            f"create_parameter: argument 'shape' must be a list of non-negative ints, got {shape!r}"
        )
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        raise ValueError("create_parameter: argument 'attr' is False (no parameter)")
    kind = "bias" if is_bias else "weight"
    init = (
        attr.initializer
        or GLOBAL_INITIALIZERS[kind]
        or default_initializer
        or DEFAULT_INITIALIZERS[kind]()
    )
    dtype = convert_dtype(dtype)
    value = init._generate([int(d) for d in shape], dtype)
    return Parameter(
        value,
        name=attr.name or name or _unique("create_parameter"),
        trainable=attr.trainable,
        learning_rate=attr.learning_rate,
        regularizer=attr.regularizer,
        need_clip=attr.need_clip,
    )
