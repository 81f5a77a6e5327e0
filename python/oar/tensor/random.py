"""Random tensors (Paddle's paddle/tensor/random.py): uniform, rand, normal, randn,
standard_normal, randint, randint_like, bernoulli, rand_like, randn_like, log_normal,
seed/manual_seed, and the in-place fills Tensor.normal_, uniform_, exponential_, ..."""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from .. import _C
from ..framework import check as C
from ..framework.check import _cpu_device
from ..framework.dtype import (
    _dtype_arg,
    bool_,
    convert_dtype,
    default_float,
    float32,
    float64,
    int64,
)
from ..framework.out import finish, write_out
from ..framework.random import DEFAULT_GENERATOR, Generator
from ..framework.typing import DTypeLike, PlaceLike, ShapeLike
from .creation import _dtype_or, _shape
from .inplace import _write

Tensor = _C.Tensor

__all__ = [
    "uniform",
    "rand",
    "normal",
    "randn",
    "standard_normal",
    "randint",
    "seed",
    "randint_like",
    "bernoulli",
    "rand_like",
    "randn_like",
    "manual_seed",
    "log_normal",
    "normal_",
    "uniform_",
    "exponential_",
    "cauchy_",
    "geometric_",
    "log_normal_",
    "random_",
    "bernoulli_",
]


def uniform(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    min: float = 0.0,
    max: float = 1.0,
    seed: int = 0,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values drawn uniformly from [min, max); Paddle 3.3's default range is [0, 1)."""
    t = _C.uniform(
        _shape(shape, "uniform"), _dtype_or(dtype, default_float(), "uniform"), min, max, seed
    )
    return finish(t, "uniform", out, device, requires_grad)


def rand(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    t = _C.uniform(_shape(shape, "rand"), _dtype_or(dtype, default_float(), "rand"), 0.0, 1.0, 0)
    return finish(t, "rand", out, device, requires_grad, pin_memory)


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    shape: ShapeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    t = _C.normal(
        _shape([1] if shape is None else shape, "normal"),
        float(C.number("normal", "mean", mean)),
        float(C.number("normal", "std", std)),
        0,
        default_float(),
    )
    return write_out(out, t, "normal")


def _standard_normal(shape, dtype, api):
    shape, dtype = _shape(shape, api), _dtype_or(dtype, default_float(), api)
    if dtype.is_complex:
        # Paddle: a complex standard normal has variance 1, half in each part.
        part = float32 if dtype.name == "complex64" else float64
        re, im = (_C.normal(shape, 0.0, math.sqrt(0.5), 0, part) for _ in range(2))
        return _C.complex(re, im)
    return _C.normal(shape, 0.0, 1.0, 0, dtype)


def randn(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    t = _standard_normal(shape, dtype, "randn")
    return finish(t, "randn", out, device, requires_grad, pin_memory)


def standard_normal(
    shape: ShapeLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    *,
    out: Tensor | None = None,
    device: PlaceLike | None = None,
    requires_grad: bool = False,
) -> Tensor:
    t = _standard_normal(shape, dtype, "standard_normal")
    return finish(t, "standard_normal", out, device, requires_grad)


def randint(
    low: int = 0,
    high: int | None = None,
    shape: ShapeLike = (1,),
    dtype: DTypeLike | None = None,
    name: str | None = None,
) -> Tensor:
    if high is None:
        low, high = 0, low
    low, high = C.integer("randint", "low", low), C.integer("randint", "high", high)
    if high <= low:
        raise ValueError(f"randint(): high ({high}) must be greater than low ({low})")
    u = _C.uniform(_shape(shape, "randint"), float64, float(low), float(high), 0)
    return _C.cast(_C.floor(u), _dtype_or(dtype, int64, "randint"))


def seed(seed: int) -> Generator:
    """Seeds the default random generator (every random op draws from it) and returns it,
    a Generator, as Paddle does.

    Examples:
        >>> import oar
        >>> g = oar.seed(102)
        >>> print(g.initial_seed())
        102
    """
    return DEFAULT_GENERATOR.manual_seed(seed)


# ---- random -----------------------------------------------------------------------------
def randint_like(
    x: Tensor,
    low: int = 0,
    high: int | None = None,
    dtype: DTypeLike | None = None,
    name: str | None = None,
) -> Tensor:
    """Uniform random integers in [low, high) (or [0, low) when high is None) shaped like x,
    in dtype (x's when None), from the default generator."""
    C.tensor("randint_like", "x", x)
    low = C.integer("randint_like", "low", low)
    if high is None:
        low, high = 0, low
    high = C.integer("randint_like", "high", high)
    d = x.dtype if dtype is None else convert_dtype(dtype)
    if d.name == "bool":  # Paddle: the integers drawn, read as bool (non-zero is True)
        return _C.cast(_C.randint_like(x, low, high, int64), d)
    return _C.randint_like(x, low, high, d)


def bernoulli(x: Tensor, p: float | str | None = None, name: str | None = None) -> Tensor:
    """1 with probability x (or p for every element when given), else 0; x's shape and
    dtype, from the default generator."""
    C.tensor("bernoulli", "x", x)
    if p is not None:
        x = _C.full_like(x, float(C.number("bernoulli", "p", p)))
    return _C.bernoulli(x)


# ---- random tensors like another ------------------------------------------------------------
def _like(api, x, dtype, device, requires_grad):
    C.tensor(api, "x", x)
    _cpu_device(api, device)
    d = x.dtype if dtype is None else _dtype_arg(api, dtype)
    if not d.is_floating_point:
        raise TypeError(f"{api}(): the result's dtype must be floating, but it is {d.name}")
    return d


def rand_like(
    input: Tensor,
    name: str | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Uniform random numbers in [0, 1) with input's shape (and dtype, unless given).

    Examples:
        >>> import oar
        >>> r = oar.rand_like(oar.zeros([2, 3], dtype='float64'))
        >>> print(r.shape, r.dtype, bool(((r >= 0) & (r < 1)).all()))
        oar.Size([2, 3]) oar.float64 True
    """
    d = _like("rand_like", input, dtype, device, requires_grad)
    out = _C.uniform(input.shape, d, 0.0, 1.0, 0)
    out.stop_gradient = not requires_grad
    return out


def randn_like(
    x: Tensor,
    dtype: Any = None,
    name: str | None = None,
    *,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Standard normal random numbers with x's shape (and dtype, unless given).

    Examples:
        >>> import oar
        >>> r = oar.randn_like(oar.zeros([2, 3]))
        >>> print(r.shape, r.dtype)
        oar.Size([2, 3]) oar.float32
    """
    d = _like("randn_like", x, dtype, device, requires_grad)
    out = _C.normal(x.shape, 0.0, 1.0, 0, d)
    out.stop_gradient = not requires_grad
    return out


manual_seed = seed


def log_normal(
    mean: float | Tensor = 1.0,
    std: float | Tensor = 2.0,
    shape: Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:  # noqa: A002
    """exp of normal samples: log-normal samples with the underlying normal's mean and std
    (numbers with shape, or tensors giving the shape, as paddle.normal)."""
    if isinstance(mean, Tensor):
        if isinstance(std, Tensor):
            std = _C.reshape(
                std if std.dtype is mean.dtype else _C.cast(std, mean.dtype), list(mean.shape)
            )
        else:
            std = builtins.float(C.number("log_normal", "std", std))
        z = standard_normal(list(mean.shape), mean.dtype) * std + mean
    elif isinstance(std, Tensor):
        m = builtins.float(C.number("log_normal", "mean", mean))
        z = standard_normal(list(std.shape), std.dtype) * std + m
    else:
        z = normal(mean, std, shape)
    return _C.exp(z)


def _float_self(api, self):
    if not self.dtype.is_floating_point:
        raise TypeError(f"Tensor.{api}(): the tensor must be floating, but it is {self.dtype.name}")


# ---- random fills in place ------------------------------------------------------------------
def _uniform01(self):
    """Uniform (0, 1) samples of self's shape in float64 (0 excluded, so logs are finite)."""
    u = _C.uniform(self.shape, float64, 0.0, 1.0, 0)
    tiny = np.finfo(np.float64).tiny
    return _C.clip(u, tiny, 1.0)


def _normal_fill(api, self, mean, std):
    """N(mean, std**2) samples of self's shape in float64."""
    _float_self(api, self)
    m = float(C.number(api, "mean", mean))
    s = float(C.number(api, "std", std))
    if s < 0:
        raise ValueError(f"Tensor.{api}(): argument 'std' must be >= 0, but got {s}")
    return _C.normal(self.shape, m, s, 0, float64)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of N(mean, std**2), in place."""
    return _write(self, _normal_fill("normal_", self, mean, std))


def uniform_(
    self: Tensor,
    min: float = 0,
    max: float = 1.0,
    seed: int = 0,  # noqa: A002
    name: str | None = None,
) -> Tensor:
    """Fills the tensor with samples of U[min, max), in place (seed 0: the default generator)."""
    _float_self("uniform_", self)
    lo = float(C.number("uniform_", "min", min))
    hi = float(C.number("uniform_", "max", max))
    if lo > hi:
        raise ValueError(f"Tensor.uniform_(): 'min' ({lo}) must be <= 'max' ({hi})")
    return _write(
        self, _C.uniform(self.shape, float64, lo, hi, C.integer("uniform_", "seed", seed))
    )


def exponential_(self: Tensor, lam: float = 1.0, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of the exponential distribution of rate lam, in place."""
    _float_self("exponential_", self)
    lam = float(C.number("exponential_", "lam", lam))
    if lam <= 0:
        raise ValueError(f"Tensor.exponential_(): argument 'lam' must be > 0, but got {lam}")
    return _write(self, _C.scale(_C.log(_uniform01(self)), -1.0 / lam))


def cauchy_(self: Tensor, loc: float = 0, scale: float = 1, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of the Cauchy distribution, in place."""
    _float_self("cauchy_", self)
    loc = float(C.number("cauchy_", "loc", loc))
    sc = float(C.number("cauchy_", "scale", scale))
    if sc <= 0:
        raise ValueError(f"Tensor.cauchy_(): argument 'scale' must be > 0, but got {sc}")
    t = _C.tan(_C.scale(_uniform01(self), math.pi, -math.pi / 2))
    return _write(self, _C.scale(t, sc, loc))


def geometric_(self: Tensor, probs: float | Tensor, name: str | None = None) -> Tensor:
    """Fills the tensor with samples of the geometric distribution (the number of Bernoulli
    trials up to the first success, 1, 2, ...), in place. Paddle fills with the continuous
    log(u) / log(1 - probs) instead; oar's values are the whole numbers of the distribution
    (that value rounded up)."""
    _float_self("geometric_", self)
    p = (
        probs
        if isinstance(probs, Tensor)
        else _C.full([], C.number("geometric_", "probs", probs), float64)
    )
    p = _C.cast(p, float64)
    pv = np.asarray(p)
    if pv.size and not ((pv > 0) & (pv <= 1)).all():
        raise ValueError("Tensor.geometric_(): argument 'probs' must be in (0, 1]")
    k = _C.ceil(_C.divide(_C.log(_uniform01(self)), _C.log1p(_C.neg(p))))
    return _write(self, _C.clip(k, 1.0, math.inf))


def log_normal_(
    self: Tensor, mean: float = 1.0, std: float = 2.0, name: str | None = None
) -> Tensor:
    """Fills the tensor with exp of N(mean, std**2) samples, in place."""
    return _write(self, _C.exp(_normal_fill("log_normal_", self, mean, std)))


def random_(
    self: Tensor, from_: int = 0, to: int | None = None, *, generator: Any = None
) -> Tensor:
    """Fills the tensor with integers uniform in [from_, to), in place; to None: up to the
    dtype's largest integer (2**mantissa bits for floats)."""
    lo = C.integer("random_", "from_", from_)
    if to is None:
        d = self.dtype
        if d.is_floating_point:
            digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[d.name]
            hi = 2**digits + 1
        elif d is bool_:
            hi = 2
        else:
            hi = int(np.iinfo(d.name).max)
    else:
        hi = C.integer("random_", "to", to)
    if hi <= lo:
        raise ValueError(f"Tensor.random_(): 'to' ({hi}) must be greater than 'from_' ({lo})")
    dt = int64 if not self.dtype.is_floating_point else self.dtype
    return _write(self, _C.randint_like(self, lo, hi, dt))


def bernoulli_(self: Tensor, p: float | Tensor = 0.5, name: str | None = None) -> Tensor:
    """Fills the tensor with 1 where a uniform [0, 1) sample falls below p (a number or a
    tensor broadcast to the tensor), else 0, in place: probability p, with p below 0
    giving 0 and above 1 giving 1 (Paddle's reading; no error)."""
    u = _C.uniform(self.shape, float64, 0.0, 1.0, 0)
    if isinstance(p, Tensor):
        probs = _C.cast(p, float64)
    else:
        probs = _C.full([], float(C.number("bernoulli_", "p", p)), float64)
    return _write(self, _C.less_than(u, probs))
