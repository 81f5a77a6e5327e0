"""Bijections (and the one non-injective Abs) for TransformedDistribution: each maps x
to y = forward(x), inverts it, and gives log |det J| of the forward map, summed over
the dimensions its domain treats as one event."""

from __future__ import annotations

import numpy as np

import math
from collections.abc import Sequence
from .distribution import Distribution
from .. import _C
from .. import nn as _nn
from ..tensor.creation import arange
from ..tensor.creation import ones
from ..tensor.creation import zeros
from ..tensor.manipulation import broadcast_to
from ..tensor.manipulation import stack
from ..tensor.manipulation import unstack

# TransformedDistribution (oar.distribution.transformed_distribution, which builds on this
# module, puts it here at its import): a transform called on a distribution makes one
_TRANSFORMED_DISTRIBUTION: list = [None]

__all__ = [
    "Transform",
    "AbsTransform",
    "AffineTransform",
    "ChainTransform",
    "ExpTransform",
    "IndependentTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
]


def _tensor(x, cls, name):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{cls}: argument '{name}' must be a Tensor, got {type(x).__name__}")
    return x


def _broadcast_shape(*shapes):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise ValueError(f"shapes {[list(s) for s in shapes]} do not broadcast") from None


def _non_injective_part(t):
    """The innermost transform that makes t non-injective (t itself for a plain one)."""
    parts = getattr(t, "transforms", None) or ([t._base] if hasattr(t, "_base") else [])
    for part in parts:
        if isinstance(part, Transform) and not part._is_injective():
            return _non_injective_part(part)
    return t


class Transform:
    """The base class: subclasses give _forward, _inverse, _forward_log_det_jacobian (or
    _inverse_log_det_jacobian) and, when they change shapes, _forward_shape/_inverse_shape.
    Calling a transform on a Distribution gives the TransformedDistribution; on another
    Transform, their ChainTransform; on a Tensor, forward."""

    _injective = True
    _not_injective_because = "it maps several inputs to the same output"
    # how many trailing dimensions form one event in the domain and in the codomain
    _domain_event_rank = 0
    _codomain_event_rank = 0

    def __call__(self, input):
        if isinstance(input, Distribution):
            return _TRANSFORMED_DISTRIBUTION[0](input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _is_injective(self):
        return self._injective

    def forward(self, x):
        return self._forward(_tensor(x, type(self).__name__ + ".forward", "x"))

    def inverse(self, y):
        return self._inverse(_tensor(y, type(self).__name__ + ".inverse", "y"))

    def forward_log_det_jacobian(self, x):
        x = _tensor(x, type(self).__name__ + ".forward_log_det_jacobian", "x")
        if not self._is_injective():
            # Paddle raises NotImplementedError here for every non-injective transform
            # (a chain holding one included); without the check AbsTransform negated the
            # pair its inverse_log_det_jacobian returns, an untyped TypeError
            leaf = _non_injective_part(self)
            raise NotImplementedError(
                f"{type(self).__name__}.forward_log_det_jacobian: {type(leaf).__name__} is not "
                f"injective ({leaf._not_injective_because}), and as in Paddle a non-injective "
                f"transform has no forward log-det-Jacobian; inverse_log_det_jacobian gives "
                f"one per preimage where the transform defines it"
            )
        if type(self)._forward_log_det_jacobian is not Transform._forward_log_det_jacobian:
            return self._forward_log_det_jacobian(x)
        return -self._inverse_log_det_jacobian(self.forward(x))

    def inverse_log_det_jacobian(self, y):
        y = _tensor(y, type(self).__name__ + ".inverse_log_det_jacobian", "y")
        if type(self)._inverse_log_det_jacobian is not Transform._inverse_log_det_jacobian:
            return self._inverse_log_det_jacobian(y)
        return -self._forward_log_det_jacobian(self.inverse(y))

    def forward_shape(self, shape):
        if not isinstance(shape, Sequence):
            raise TypeError(
                f"{type(self).__name__}.forward_shape: argument 'shape' must be a "
                f"sequence of ints, got {type(shape).__name__}"
            )
        return self._forward_shape(tuple(shape))

    def inverse_shape(self, shape):
        if not isinstance(shape, Sequence):
            raise TypeError(
                f"{type(self).__name__}.inverse_shape: argument 'shape' must be a "
                f"sequence of ints, got {type(shape).__name__}"
            )
        return self._inverse_shape(tuple(shape))

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no forward map")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def _forward_log_det_jacobian(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no log-det-Jacobian")

    def _inverse_log_det_jacobian(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no log-det-Jacobian")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|. Not injective: inverse(y) is the pair (-y, y)."""

    _injective = False
    _not_injective_because = "abs maps x and -x to the same y"

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = zeros([], dtype=y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """y = loc + scale * x.

    Args:
        loc: The shift (Tensor).
        scale: The factor (Tensor), nonzero.
    """

    def __init__(self, loc, scale):
        self._loc = _tensor(loc, "AffineTransform", "loc")
        self._scale = _tensor(scale, "AffineTransform", "scale")

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return self._scale.abs().log()  # not broadcast to x, as Paddle's (see _ldj)

    def _forward_shape(self, shape):
        return _broadcast_shape(shape, self._loc.shape, self._scale.shape)

    def _inverse_shape(self, shape):
        return _broadcast_shape(shape, self._loc.shape, self._scale.shape)


class ExpTransform(Transform):
    """y = exp(x)."""

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """y = x ** power on x > 0.

    Args:
        power: The exponent (Tensor).
    """

    def __init__(self, power):
        self._power = _tensor(power, "PowerTransform", "power")

    @property
    def power(self):
        return self._power

    def _forward(self, x):
        return (x.log() * self._power).exp()

    def _inverse(self, y):
        return (y.log() / self._power).exp()

    def _forward_log_det_jacobian(self, x):
        return (self._power * ((self._power - 1) * x.log()).exp()).abs().log()

    def _forward_shape(self, shape):
        return _broadcast_shape(shape, self._power.shape)

    def _inverse_shape(self, shape):
        return _broadcast_shape(shape, self._power.shape)


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""

    def _forward(self, x):
        return x.sigmoid()

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        softplus = _nn.functional.softplus
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """y = tanh(x)."""

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - _nn.functional.softplus(-2.0 * x))


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis. Not a bijection (adding a constant to x leaves y
    unchanged): inverse gives log(y), and there is no log-det-Jacobian."""

    _injective = False
    _not_injective_because = "adding a constant to x leaves softmax(x) unchanged"
    _domain_event_rank = 1
    _codomain_event_rank = 1

    def _forward(self, x):
        return _nn.functional.softmax(x, axis=-1)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(
                "SoftmaxTransform.forward_shape: argument 'shape' must have at least 1 dimension"
            )
        return shape

    def _inverse_shape(self, shape):
        return self._forward_shape(shape)


class StickBreakingTransform(Transform):
    """Maps R^(K-1) onto the K-simplex by stick breaking: a bijection."""

    _domain_event_rank = 1
    _codomain_event_rank = 1

    def _offset(self, k, dtype):
        return arange(k, 0, -1, dtype=dtype).log()

    def _forward(self, x):
        z = (x - self._offset(x.shape[-1], x.dtype)).sigmoid()
        cum = (-z).log1p().cumsum(-1).exp()
        pad_z = _C.concat([z, ones(list(z.shape[:-1]) + [1], dtype=x.dtype)], axis=-1)
        pad_c = _C.concat([ones(list(z.shape[:-1]) + [1], dtype=x.dtype), cum], axis=-1)
        return pad_z * pad_c

    def _inverse(self, y):
        y_crop = y[..., :-1]
        # the stick left after each break; x = logit(y_i / stick before) + offset
        rest = (1 - y_crop.cumsum(-1)).clip(min=float(np.finfo(y.dtype.name).tiny))
        return y_crop.log() - rest.log() + self._offset(y_crop.shape[-1], y.dtype)

    def _forward_log_det_jacobian(self, x):
        # triangular Jacobian: dy_i / dx_i = y_i (1 - z_i), log(1 - z_i) = -softplus(x_i - offset)
        xo = x - self._offset(x.shape[-1], x.dtype)
        y = self._forward(x)
        return (y[..., :-1].log() - _nn.functional.softplus(xo)).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(
                "StickBreakingTransform.forward_shape: argument 'shape' must not be empty"
            )
        return shape[:-1] + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(
                "StickBreakingTransform.inverse_shape: argument 'shape' must not be empty"
            )
        return shape[:-1] + (shape[-1] - 1,)


class ChainTransform(Transform):
    """The composition: forward applies transforms in order, inverse in reverse.

    Args:
        transforms: A sequence of Transform.
    """

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence) or not all(
            isinstance(t, Transform) for t in transforms
        ):
            raise TypeError("ChainTransform: argument 'transforms' must be a sequence of Transform")
        self.transforms = list(transforms)
        # the event ranks of the chain's input and output: a part's event widens what
        # the parts before (after) it must treat as one event
        rank = self.transforms[-1]._codomain_event_rank if self.transforms else 0
        for t in reversed(self.transforms):
            rank = max(rank + t._domain_event_rank - t._codomain_event_rank, t._domain_event_rank)
        self._domain_event_rank = rank
        rank = self.transforms[0]._domain_event_rank if self.transforms else 0
        for t in self.transforms:
            rank = max(rank + t._codomain_event_rank - t._domain_event_rank, t._codomain_event_rank)
        self._codomain_event_rank = rank

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total = 0.0
        rank = self._domain_event_rank
        for t in self.transforms:
            total = total + _sum_rightmost(_ldj(t, x), rank - t._domain_event_rank)
            x = t.forward(x)
            rank += t._codomain_event_rank - t._domain_event_rank
        return total

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


def _ldj(t, x):
    """t's forward log-det-Jacobian at x over x's whole batch shape: the public method
    may return less (AffineTransform gives log|scale| alone, as Paddle's does), and the
    sums over event dimensions here need every element."""
    ldj = t.forward_log_det_jacobian(x)
    batch = tuple(x.shape)[: len(x.shape) - t._domain_event_rank]
    shape = _broadcast_shape(tuple(ldj.shape), batch)
    if tuple(ldj.shape) == shape:
        return ldj
    return broadcast_to(ldj, list(shape))


class IndependentTransform(Transform):
    """base applied elementwise, with its rightmost reinterpreted_batch_rank dimensions
    treated as one event (their log-det-Jacobians summed).

    Args:
        base: The Transform.
        reinterpreted_batch_rank: How many rightmost batch dimensions join the event (>= 1).
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(
                "IndependentTransform: argument 'base' must be a Transform, got "
                f"{type(base).__name__}"
            )
        if (
            isinstance(reinterpreted_batch_rank, bool)
            or not isinstance(reinterpreted_batch_rank, int)
            or reinterpreted_batch_rank < 1
        ):
            raise ValueError(
                "IndependentTransform: argument 'reinterpreted_batch_rank' must be "
                f"an int >= 1, got {reinterpreted_batch_rank!r}"
            )
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        self._domain_event_rank = base._domain_event_rank + reinterpreted_batch_rank
        self._codomain_event_rank = base._codomain_event_rank + reinterpreted_batch_rank

    def _is_injective(self):
        return self._base._is_injective()

    def _check_rank(self, v, rank):
        if v.ndim < rank:
            raise ValueError(
                f"IndependentTransform: the input has {v.ndim} dimensions, fewer "
                f"than the event's {rank}"
            )

    def _forward(self, x):
        self._check_rank(x, self._domain_event_rank)
        return self._base.forward(x)

    def _inverse(self, y):
        self._check_rank(y, self._codomain_event_rank)
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return _sum_rightmost(_ldj(self._base, x), self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the event from in_event_shape to out_event_shape (same number of elements).

    Args:
        in_event_shape: The event shape of the input.
        out_event_shape: The event shape of the output.
    """

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, Sequence) or not isinstance(out_event_shape, Sequence):
            raise TypeError(
                "ReshapeTransform: arguments 'in_event_shape' and 'out_event_shape' "
                "must be sequences of ints"
            )
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        if math.prod(self._in_event_shape) != math.prod(self._out_event_shape):
            raise ValueError(
                f"ReshapeTransform: in_event_shape {list(in_event_shape)} and "
                f"out_event_shape {list(out_event_shape)} hold different numbers "
                "of elements"
            )
        self._domain_event_rank = len(self._in_event_shape)
        self._codomain_event_rank = len(self._out_event_shape)

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    def _batch(self, shape, event, arg):
        n = len(event)
        if len(shape) < n or tuple(shape[len(shape) - n :]) != event:
            raise ValueError(
                f"ReshapeTransform: {arg} shape {list(shape)} does not end with "
                f"the event shape {list(event)}"
            )
        return tuple(shape[: len(shape) - n])

    def _forward(self, x):
        b = self._batch(x.shape, self._in_event_shape, "the input's")
        return x.reshape(list(b + self._out_event_shape))

    def _inverse(self, y):
        b = self._batch(y.shape, self._out_event_shape, "the input's")
        return y.reshape(list(b + self._in_event_shape))

    def _forward_shape(self, shape):
        return self._batch(shape, self._in_event_shape, "the") + self._out_event_shape

    def _inverse_shape(self, shape):
        return self._batch(shape, self._out_event_shape, "the") + self._in_event_shape

    def _forward_log_det_jacobian(self, x):
        b = self._batch(x.shape, self._in_event_shape, "the input's")
        return zeros(list(b), dtype=x.dtype)


class StackTransform(Transform):
    """Applies transforms[i] to the i-th slice of the input along axis.

    Args:
        transforms: A sequence of Transform, one per slice.
        axis: The axis to split along.
    """

    def __init__(self, transforms, axis=0):
        if (
            not isinstance(transforms, Sequence)
            or not transforms
            or not all(isinstance(t, Transform) for t in transforms)
        ):
            raise TypeError(
                "StackTransform: argument 'transforms' must be a non-empty sequence of Transform"
            )
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"StackTransform: argument 'axis' must be an int, got {axis!r}")
        self._transforms = list(transforms)
        self._axis = axis

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    def _check_size(self, v):
        if not -v.ndim <= self._axis < v.ndim:
            raise ValueError(
                f"StackTransform: axis {self._axis} is out of range for a {v.ndim}-D input"
            )
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(
                f"StackTransform: the input has {v.shape[self._axis]} slices along "
                f"axis {self._axis}, the transform {len(self._transforms)}"
            )

    def _map(self, v, fn):
        self._check_size(v)
        parts = unstack(v, axis=self._axis)
        return stack([fn(t, p) for t, p in zip(self._transforms, parts)], axis=self._axis)

    def _forward(self, x):
        return self._map(x, lambda t, p: t.forward(p))

    def _inverse(self, y):
        return self._map(y, lambda t, p: t.inverse(p))

    def _forward_log_det_jacobian(self, x):
        return self._map(x, _ldj)
