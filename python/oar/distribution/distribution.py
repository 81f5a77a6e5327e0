"""The base classes of oar.distribution and the argument handling they share."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .. import _C
from ..framework.dtype import float32, float64
from ..autograd import grad
from ..framework.grad_mode import no_grad
from ..tensor.creation import to_tensor
from ..tensor.manipulation import broadcast_tensors


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def _as_param(value, cls, name, dtype=None):
    """A distribution parameter as a float tensor: Python numbers become float32 0-d
    tensors, lists and arrays float32 (float64 arrays keep float64), tensors keep their
    float dtype (integer tensors become float32)."""
    if _is_tensor(value):
        t = value
        if not t.dtype.is_floating_point:
            t = t.astype("float32")
    elif isinstance(value, bool):
        raise TypeError(
            f"{cls}: argument '{name}' must be a float, a list, a numpy array or a Tensor, got bool"
        )
    elif isinstance(value, (int, float, np.floating, np.integer)):
        t = to_tensor(float(value), dtype="float32")
    elif isinstance(value, (list, tuple, np.ndarray)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "fiub":
            raise TypeError(
                f"{cls}: argument '{name}' must hold real numbers, got dtype {arr.dtype}"
            )
        t = to_tensor(
            arr.astype(
                "float64"
                if arr.dtype == np.float64 and isinstance(value, np.ndarray)
                else "float32"
            )
        )
    else:
        raise TypeError(
            f"{cls}: argument '{name}' must be a float, a list, a numpy array or a "
            f"Tensor, got {type(value).__name__}"
        )
    if dtype is not None and t.dtype != dtype:
        t = t.astype(dtype)
    return t


def _params(cls, **named):
    """The parameters as tensors of one float dtype (float64 if any is), broadcast together."""
    ts = {k: _as_param(v, cls, k) for k, v in named.items()}
    dtype = float64 if any(t.dtype == float64 for t in ts.values()) else float32
    ts = {k: (t if t.dtype == dtype else t.astype(dtype)) for k, t in ts.items()}
    if len(ts) > 1:
        try:
            out = broadcast_tensors(list(ts.values()))
        except Exception:
            shapes = ", ".join(f"{k}: {list(t.shape)}" for k, t in ts.items())
            raise ValueError(f"{cls}: the parameters' shapes do not broadcast ({shapes})") from None
        ts = dict(zip(ts, out))
    return ts


def _init_loc_scale(dist, cls, loc, scale):
    """The set-up of a location-scale family (Normal, Laplace, Cauchy, Gumbel): loc and
    scale as broadcast tensors of one float dtype, scale > 0, the batch shape."""
    p = _params(cls, loc=loc, scale=scale)
    dist.loc, dist.scale = p["loc"], p["scale"]
    _check(dist.scale > 0, cls, "scale", "> 0")
    dist.dtype = dist.loc.dtype
    Distribution.__init__(dist, dist.loc.shape)


def _check(cond, cls, name, what):
    """Raises ValueError unless every element of the boolean tensor cond holds."""
    if cond.numel() and not bool(cond.all()):
        raise ValueError(f"{cls}: argument '{name}' must be {what}")


def _sample_shape(shape, cls, method):
    if _is_tensor(shape):
        shape = shape.tolist()
    if not isinstance(shape, Iterable) or isinstance(shape, str):
        raise TypeError(
            f"{cls}.{method}: argument 'shape' must be a list or tuple of ints, got "
            f"{type(shape).__name__}"
        )
    shape = tuple(shape)
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0:
            raise ValueError(
                f"{cls}.{method}: argument 'shape' must hold ints >= 0, got {list(shape)}"
            )
    return tuple(int(d) for d in shape)


# oar.distribution.kl's kl_divergence (it imports every distribution, this module among
# them, and puts itself here at its import)
_KL_DIVERGENCE: list = [None]


class Distribution:
    """The base class of the distributions: batch_shape (independent, differently
    parameterised distributions) and event_shape (the shape of one draw)."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} has no closed-form mean")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} has no closed-form variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, shape=()):
        """Draws samples of shape `shape + batch_shape + event_shape`, without gradient."""
        if not type(self).rsample.__qualname__.startswith("Distribution."):
            shape = _sample_shape(shape, type(self).__name__, "sample")
            with no_grad():
                return self.rsample(shape).detach()
        raise NotImplementedError(f"{type(self).__name__} cannot be sampled")

    def rsample(self, shape=()):
        raise NotImplementedError(
            f"{type(self).__name__} has no reparameterised sampler (rsample); use sample()"
        )

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} has no closed-form entropy")

    def kl_divergence(self, other):
        return _KL_DIVERGENCE[0](self, other)

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no log_prob")

    def prob(self, value):
        """The density (or mass) at value: exp(log_prob(value))."""
        return self.log_prob(value).exp()

    def probs(self, value):
        return self.prob(value)

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _value(self, value, like, method="log_prob"):
        """value as a tensor of like's float dtype."""
        if not _is_tensor(value):
            if isinstance(value, (int, float, list, tuple, np.ndarray, np.number)):
                value = to_tensor(np.asarray(value, dtype=like.dtype.name))
            else:
                raise TypeError(
                    f"{type(self).__name__}.{method}: argument 'value' must be a "
                    f"Tensor, got {type(value).__name__}"
                )
        if value.dtype != like.dtype:
            value = value.astype(like.dtype)
        return value

    def __repr__(self):
        return (
            f"{type(self).__name__}(batch_shape={list(self._batch_shape)}, "
            f"event_shape={list(self._event_shape)})"
        )


class ExponentialFamily(Distribution):
    """Distributions of the exponential family p(x) = h(x) exp(<t(x), theta> - A(theta)).
    Subclasses give _natural_parameters, _log_normalizer and _mean_carrier_measure; the
    entropy and the KL divergence between two members of one family follow from them
    (through autograd of the log-normaliser A)."""

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        # H = A(theta) - <theta, grad A(theta)> - E[log h(x)]
        nat = [p.detach() for p in self._natural_parameters]
        for p in nat:
            p.stop_gradient = False
        log_norm = self._log_normalizer(*nat)
        grads = grad(log_norm.sum(), nat, create_graph=True)
        ent = -self._mean_carrier_measure + log_norm
        for p, g in zip(nat, grads):
            term = p * g
            extra = term.ndim - log_norm.ndim
            if extra > 0:
                term = term.sum(list(range(-extra, 0)))
            ent = ent - term
        return ent
