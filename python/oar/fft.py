"""oar.fft: Paddle's paddle.fft namespace (docs/fft.md).

Every transform is one of the three declared ops of src/oar/ops/fft.yaml (on pocketfft):
fft_c2c, fft_r2c and fft_c2r, whose backward is again a transform, so gradients of every
order flow through all of them. This module maps Paddle's arguments onto them: the
signal lengths `n`/`s` (the input is cut or zero-padded first, as Paddle does), the
axes, and `norm` ("backward", "ortho", "forward"), which names the direction that
is scaled; the ops take the scale itself (0: none, 1: 1/sqrt(n), 2: 1/n).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .framework.check import is_int
from . import _C
from .framework import check as C
from .framework.dtype import convert_dtype
from .framework.typing import DTypeLike

Tensor = _C.Tensor

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "hfft2",
    "ihfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")


# ---- argument handling -------------------------------------------------------------------
def _scale(api, norm, forward):
    """The ops' normalization for Paddle's norm: the scale, given the direction."""
    if norm not in _NORMS:
        raise ValueError(
            f"{api}(): argument 'norm' must be one of 'forward', 'backward' or "
            f"'ortho', but got {norm!r}"
        )
    if norm == "ortho":
        return 1
    return 0 if (norm == "backward") == forward else 2


def _input(api, x, alias):
    if x is None and alias is not None:
        x = alias
    return C.tensor(api, "x", x)


def _real_dtype_check(api, x):
    name = x.dtype.name
    if name in ("float16", "bfloat16"):
        raise TypeError(
            f"{api}(): {name} input is not supported on CPU (nor by Paddle's or "
            f"PyTorch's CPU FFT); cast x to float32 or float64"
        )


def _as_complex(api, x):
    """x as the complex tensor the complex-input ops take (Paddle's cast rules)."""
    _real_dtype_check(api, x)
    if x.dtype.name in ("complex64", "complex128"):
        return x
    return _C.cast(x, "complex128" if x.dtype.name == "float64" else "complex64")


def _as_real(api, x):
    _real_dtype_check(api, x)
    name = x.dtype.name
    if name in ("complex64", "complex128"):
        raise TypeError(f"{api}(): argument 'x' must be a real tensor, but got {name}")
    if name not in ("float32", "float64"):
        return _C.cast(x, "float32")
    return x


def _length(api, name, v):
    if not is_int(v):
        raise ValueError(f"{api}(): argument '{name}' must be an int, but got {v!r}")
    if v <= 0:
        raise ValueError(f"{api}(): argument '{name}' must be positive, but got {v}")
    return v


def _axis(api, x, axis, name="axis"):
    if not is_int(axis):
        raise ValueError(f"{api}(): argument '{name}' must be an int, but got {axis!r}")
    nd = x.ndim
    if not -nd <= axis < nd:
        raise ValueError(
            f"{api}(): argument '{name}' ({axis}) must be in [-{nd}, {nd}) for a "
            f"tensor of rank {nd}"
        )
    return axis + nd if axis < 0 else axis


def _resize(x, sizes, axes):
    """x cut or zero-padded to sizes[i] along axes[i] (differentiably)."""
    cut = [(a, s) for a, s in zip(axes, sizes) if x.shape[a] > s]
    if cut:
        x = _C.slice(x, [a for a, _ in cut], [0] * len(cut), [s for _, s in cut])
    grow = [(a, s - x.shape[a]) for a, s in zip(axes, sizes) if x.shape[a] < s]
    if grow:
        paddings = [0] * (2 * x.ndim)
        for a, p in grow:
            paddings[2 * a + 1] = p
        x = _C.pad(x, paddings, 0, 0)
    return x


def _axes_and_sizes(api, x, s, axes, sort_all):
    """Paddle's n-d rules: axes default to the last len(s) (or all); normalised, distinct;
    sorted (all of them for complex transforms, all but the last for real ones, whose
    last axis is the half-spectrum one), with s permuted alike."""
    nd = x.ndim
    if s is not None:
        if not isinstance(s, Sequence) or isinstance(s, str):
            raise ValueError(f"{api}(): argument 's' must be a sequence of ints, but got {s!r}")
        s = [_length(api, "s", v) for v in s]
        if len(s) > nd:
            raise ValueError(
                f"{api}(): argument 's' has {len(s)} entries, more than the rank {nd} of x"
            )
    if axes is None:
        axes = list(range(nd - len(s), nd)) if s is not None else list(range(nd))
    else:
        if is_int(axes):
            axes = [axes]
        if not isinstance(axes, Sequence) or isinstance(axes, str):
            raise ValueError(
                f"{api}(): argument 'axes' must be a sequence of ints, but got {axes!r}"
            )
        if len(axes) > nd:
            raise ValueError(
                f"{api}(): argument 'axes' has {len(axes)} entries, more than the rank {nd} of x"
            )
        axes = [_axis(api, x, a, "axes") for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"{api}(): argument 'axes' {axes} repeats an axis")
        if s is not None and len(s) != len(axes):
            raise ValueError(
                f"{api}(): arguments 's' ({len(s)} entries) and 'axes' "
                f"({len(axes)} entries) must have the same length"
            )
        keep = len(axes) if sort_all else len(axes) - 1
        order = sorted(range(keep), key=lambda i: axes[i]) + list(range(keep, len(axes)))
        axes = [axes[i] for i in order]
        if s is not None:
            s = [s[i] for i in order]
    return s, axes


def _need_axes(api, axes):
    if not axes:
        raise ValueError(f"{api}(): a real transform needs at least one axis")


# ---- the three kinds of transform ------------------------------------------------------------
def _c2c(api, x, s, axes, norm, forward):
    scale = _scale(api, norm, forward)
    name = x.dtype.name
    if name not in ("complex64", "complex128"):
        # A real signal's full spectrum, from its half (Paddle's fft of real input).
        x = _as_real(api, x)
        if not axes:
            return _C.cast(x, "complex128" if x.dtype.name == "float64" else "complex64")
        if s is not None:
            x = _resize(x, s, axes)
        return _C.fft_r2c(x, axes, scale, forward, False)
    if s is not None:
        x = _resize(x, s, axes)
    return _C.fft_c2c(x, axes, scale, forward)


def _r2c(api, x, s, axes, norm, forward, onesided=True):
    scale = _scale(api, norm, forward)
    x = _as_real(api, x)
    _need_axes(api, axes)
    if s is not None:
        x = _resize(x, s, axes)
    return _C.fft_r2c(x, axes, scale, forward, onesided)


def _c2r(api, x, s, axes, norm, forward):
    scale = _scale(api, norm, forward)
    x = _as_complex(api, x)
    _need_axes(api, axes)
    if s is not None:
        last = s[-1]
        x = _resize(x, list(s[:-1]) + [last // 2 + 1], axes)
    else:
        m = x.shape[axes[-1]]
        last = 2 * (m - 1)
        if last < 1:
            raise ValueError(
                f"{api}(): x has {m} entries along axis {axes[-1]}, which gives "
                f"an output of 2 * (m - 1) = {last} samples; give n (or s) >= 1"
            )
    return _C.fft_c2r(x, axes, scale, forward, last)


# ---- one dimension ----------------------------------------------------------------------------
_1D_DOC = """{summary}

    Args:
        x (Tensor): {x}. Alias: ``input``.
        n (int, optional): {n}
        axis (int, optional): the axis to transform. Default: -1. Alias: ``dim``.
        norm (str, optional): which direction is scaled: "backward" (default; {here}),
            "ortho" (1/sqrt(n) both ways) or "forward" (the other way round).
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: {returns}

    Examples:
        >>> import oar
        >>> print(oar.fft.{api}(oar.to_tensor({arg})))
{printed}"""
_N_IN = (
    "the length of the transform: x is cut or zero-padded to it along ``axis``.\n"
    "            Default: x's length there."
)
_N_OUT = (
    "the length of the output (x keeps n//2 + 1 entries along ``axis``).\n"
    "            Default: 2 * (m - 1), m x's length along ``axis``."
)


class _Transform1D(Protocol):
    """The signature of fft, ifft, rfft, irfft, hfft and ihfft."""

    def __call__(
        self,
        x: Tensor | None = None,
        n: int | None = None,
        axis: int = -1,
        norm: str = "backward",
        name: str | None = None,
        *,
        input: Tensor | None = None,
        dim: int | None = None,
    ) -> Tensor: ...


class _TransformND(Protocol):
    """The signature of fftn, ifftn, rfftn, irfftn, hfftn and ihfftn."""

    def __call__(
        self,
        x: Tensor | None = None,
        s: Sequence[int] | None = None,
        axes: int | Sequence[int] | None = None,
        norm: str = "backward",
        name: str | None = None,
        *,
        input: Tensor | None = None,
        dim: int | Sequence[int] | None = None,
    ) -> Tensor: ...


class _Transform2D(Protocol):
    """The signature of fft2, ifft2, rfft2, irfft2, hfft2 and ihfft2."""

    def __call__(
        self,
        x: Tensor | None = None,
        s: Sequence[int] | None = None,
        axes: Sequence[int] | None = (-2, -1),
        norm: str = "backward",
        name: str | None = None,
        *,
        input: Tensor | None = None,
        dim: Sequence[int] | None = None,
    ) -> Tensor: ...


def _one_d(api: str, kind: str, forward: bool, **doc: str) -> _Transform1D:
    def f(
        x: Tensor | None = None,
        n: int | None = None,
        axis: int = -1,
        norm: str = "backward",
        name: str | None = None,
        *,
        input: Tensor | None = None,
        dim: int | None = None,
    ) -> Tensor:
        x = _input(api, x, input)
        axis = _axis(api, x, axis if dim is None else dim)
        s = [_length(api, "n", n)] if n is not None else None
        return {"c2c": _c2c, "r2c": _r2c, "c2r": _c2r}[kind](api, x, s, [axis], norm, forward)

    f.__name__ = f.__qualname__ = api
    printed = "\n".join("        " + line for line in doc.pop("printed").strip("\n").split("\n"))
    f.__doc__ = _1D_DOC.format(
        api=api,
        n=_N_OUT if kind == "c2r" else _N_IN,
        here="no scale here" if forward else "1/n here",
        printed=printed,
        **doc,
    )
    return f


fft = _one_d(
    "fft",
    "c2c",
    True,
    summary="The one-dimensional discrete Fourier transform, X[k] = sum_j x[j] exp(-2 pi i j k / n).",
    x="the signal, complex or real (a real x gives its full spectrum; integers are taken as "
    "float32)",
    returns="complex64, or complex128 for float64 and complex128 inputs.",
    arg="[1.0, 2.0, 3.0, 4.0]",
    printed="""
Tensor(shape=[4], dtype=complex64, place=Place(cpu), stop_gradient=True,
       [(10.00000000+0.00000000j), (-2.00000000+2.00000000j),
        (-2.00000000+0.00000000j), (-2.00000000-2.00000000j)])""",
)
ifft = _one_d(
    "ifft",
    "c2c",
    False,
    summary="The one-dimensional inverse discrete Fourier transform, x[j] = 1/n sum_k X[k] exp(2 pi i j k / n).",
    x="the spectrum, complex or real",
    returns="complex64 or complex128.",
    arg="[4.0, 0.0, 0.0, 0.0]",
    printed="""
Tensor(shape=[4], dtype=complex64, place=Place(cpu), stop_gradient=True,
       [(1.00000000+0.00000000j) , (1.00000000+-0.00000000j),
        (1.00000000+0.00000000j) , (1.00000000+0.00000000j) ])""",
)
rfft = _one_d(
    "rfft",
    "r2c",
    True,
    summary="The discrete Fourier transform of a real signal: its n//2 + 1 non-negative frequencies.",
    x="the real signal (integers are taken as float32)",
    returns="complex, with n//2 + 1 entries along ``axis``.",
    arg="[0.0, 1.0, 0.0, 0.0]",
    printed="""
Tensor(shape=[3], dtype=complex64, place=Place(cpu), stop_gradient=True,
       [ (1.00000000+0.00000000j), (0.00000000-1.00000000j) ,
        (-1.00000000+0.00000000j)])""",
)
irfft = _one_d(
    "irfft",
    "c2r",
    False,
    summary="The inverse of rfft: the real signal of n samples whose half spectrum is x.",
    x="the half spectrum",
    returns="float32 or float64.",
    arg="[1, -1j, -1]",
    printed="""
Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
       [0., 1., 0., 0.])""",
)
hfft = _one_d(
    "hfft",
    "c2r",
    True,
    summary="The discrete Fourier transform of a Hermitian signal given by its first half: a real spectrum.",
    x="the first n//2 + 1 samples of the Hermitian signal",
    returns="float32 or float64.",
    arg="[1, -1j, -1]",
    printed="""
Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
       [0., 0., 0., 4.])""",
)
ihfft = _one_d(
    "ihfft",
    "r2c",
    False,
    summary="The inverse of hfft: the first n//2 + 1 entries of the inverse transform of a real x.",
    x="the real spectrum",
    returns="complex, with n//2 + 1 entries along ``axis``.",
    arg="[0.0, 0.0, 0.0, 4.0]",
    printed="""
Tensor(shape=[3], dtype=complex64, place=Place(cpu), stop_gradient=True,
       [ (1.00000000+0.00000000j), (0.00000000-1.00000000j) ,
        (-1.00000000+0.00000000j)])""",
)


# ---- n dimensions ---------------------------------------------------------------------------
_ND_ARGS = """
    Args:
        x (Tensor): the input. Alias: ``input``.
        s (sequence of int, optional): the lengths of the transform along ``axes`` (x is cut
            or zero-padded to them{c2r}). Default: x's lengths there.
        axes (sequence of int, optional): the axes to transform. Default: the last len(s)
            axes, or all axes. Alias: ``dim``.
        norm (str, optional): "backward" (default), "ortho" or "forward": which direction
            is scaled (by 1/n, or 1/sqrt(n) both ways for "ortho"; n the product of the lengths).
        name (str, optional): unused (Paddle's name).
"""


def _nd_doc(summary, returns, example, c2r=False):
    args = _ND_ARGS.format(
        c2r="; for the last axis, s[-1] is the output length and x keeps s[-1]//2 + 1 entries"
        if c2r
        else ""
    )
    return f"{summary}\n{args}\n    Returns:\n        Tensor: {returns}\n\n    Examples:\n{example}"


def _nd(api: str, kind: str, forward: bool) -> _TransformND:
    def f(
        x: Tensor | None = None,
        s: Sequence[int] | None = None,
        axes: int | Sequence[int] | None = None,
        norm: str = "backward",
        name: str | None = None,
        *,
        input: Tensor | None = None,
        dim: int | Sequence[int] | None = None,
    ) -> Tensor:
        x = _input(api, x, input)
        s, ax = _axes_and_sizes(api, x, s, axes if dim is None else dim, kind == "c2c")
        if kind == "c2c":
            return _c2c(api, x, s, ax, norm, forward)
        if kind == "r2c":
            return _r2c(api, x, s, ax, norm, forward)
        return _c2r(api, x, s, ax, norm, forward)

    f.__name__ = f.__qualname__ = api
    return f


def _2d(api: str, nd: _TransformND) -> _Transform2D:
    def f(
        x: Tensor | None = None,
        s: Sequence[int] | None = None,
        axes: Sequence[int] | None = (-2, -1),
        norm: str = "backward",
        name: str | None = None,
        *,
        input: Tensor | None = None,
        dim: Sequence[int] | None = None,
    ) -> Tensor:
        x = _input(api, x, input)
        if x.ndim < 2:
            raise ValueError(
                f"{api}(): argument 'x' must have at least 2 dims, but has shape {x.shape}"
            )
        axes = axes if dim is None else dim
        for arg, v in (("s", s), ("axes", axes)):
            if v is not None and (not isinstance(v, Sequence) or isinstance(v, str) or len(v) != 2):
                raise ValueError(
                    f"{api}(): argument '{arg}' must be a sequence of 2 ints, but got {v!r}"
                )
        return nd(x, s, axes, norm)

    f.__name__ = f.__qualname__ = api
    return f


_EX = "        >>> import oar\n"
fftn = _nd("fftn", "c2c", True)
fftn.__doc__ = _nd_doc(
    "The n-dimensional discrete Fourier transform over ``axes`` (a real x gives its full spectrum).",
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.fftn(oar.ones([2, 2])))\n"
    "        Tensor(shape=[2, 2], dtype=complex64, place=Place(cpu), stop_gradient=True,\n"
    "               [[(4.00000000+0.00000000j), (0.00000000+0.00000000j)],\n"
    "                [(0.00000000+0.00000000j), (0.00000000+0.00000000j)]])\n",
)
ifftn = _nd("ifftn", "c2c", False)
ifftn.__doc__ = _nd_doc(
    "The n-dimensional inverse discrete Fourier transform over ``axes``.",
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.ifftn(oar.ones([2, 2])))\n"
    "        Tensor(shape=[2, 2], dtype=complex64, place=Place(cpu), stop_gradient=True,\n"
    "               [[(1.00000000+0.00000000j), (0.00000000+0.00000000j)],\n"
    "                [(0.00000000+0.00000000j), (0.00000000+0.00000000j)]])\n",
)
rfftn = _nd("rfftn", "r2c", True)
rfftn.__doc__ = _nd_doc(
    "The n-dimensional discrete Fourier transform of a real x; the last axis keeps s[-1]//2 + 1 frequencies.",
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.rfftn(oar.ones([2, 2])).shape)\n        oar.Size([2, 2])\n",
)
irfftn = _nd("irfftn", "c2r", False)
irfftn.__doc__ = _nd_doc(
    "The inverse of rfftn: the real signal whose half spectrum over ``axes`` is x.",
    "float32 or float64.",
    _EX + "        >>> print(oar.fft.irfftn(oar.to_tensor([2+2j, 2+2j, 3+3j])))\n"
    "        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
    "               [ 2.25000000, -1.25000000,  0.25000000,  0.75000000])\n",
    c2r=True,
)
hfftn = _nd("hfftn", "c2r", True)
hfftn.__doc__ = _nd_doc(
    "The n-dimensional transform of a Hermitian signal given by its half over ``axes``: a real spectrum.",
    "float32 or float64.",
    _EX + "        >>> print(oar.fft.hfftn(oar.to_tensor([2+2j, 2+2j, 3+3j])))\n"
    "        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
    "               [ 9.,  3.,  1., -5.])\n",
    c2r=True,
)
ihfftn = _nd("ihfftn", "r2c", False)
ihfftn.__doc__ = _nd_doc(
    "The inverse of hfftn: the half of the inverse transform of a real x over ``axes``.",
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.ihfftn(oar.to_tensor([0.0, 0.0, 0.0, 4.0])).shape)\n"
    "        oar.Size([3])\n",
)

_2D_NOTE = " Over two axes (default the last two); x needs at least 2 dims."
fft2 = _2d("fft2", fftn)
fft2.__doc__ = _nd_doc(
    "The two-dimensional discrete Fourier transform." + _2D_NOTE,
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.fft2(oar.ones([2, 2])).shape)\n        oar.Size([2, 2])\n",
)
ifft2 = _2d("ifft2", ifftn)
ifft2.__doc__ = _nd_doc(
    "The two-dimensional inverse discrete Fourier transform." + _2D_NOTE,
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.ifft2(oar.ones([2, 2])).shape)\n        oar.Size([2, 2])\n",
)
rfft2 = _2d("rfft2", rfftn)
rfft2.__doc__ = _nd_doc(
    "The two-dimensional discrete Fourier transform of a real x (half spectrum on the last axis)."
    + _2D_NOTE,
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.rfft2(oar.ones([2, 4])).shape)\n        oar.Size([2, 3])\n",
)
irfft2 = _2d("irfft2", irfftn)
irfft2.__doc__ = _nd_doc(
    "The inverse of rfft2." + _2D_NOTE,
    "float32 or float64.",
    _EX + "        >>> print(oar.fft.irfft2(oar.ones([2, 3], dtype='complex64')).shape)\n"
    "        oar.Size([2, 4])\n",
    c2r=True,
)
hfft2 = _2d("hfft2", hfftn)
hfft2.__doc__ = _nd_doc(
    "The two-dimensional transform of a Hermitian signal given by its half." + _2D_NOTE,
    "float32 or float64.",
    _EX + "        >>> print(oar.fft.hfft2(oar.ones([2, 3], dtype='complex64')).shape)\n"
    "        oar.Size([2, 4])\n",
    c2r=True,
)
ihfft2 = _2d("ihfft2", ihfftn)
ihfft2.__doc__ = _nd_doc(
    "The inverse of hfft2." + _2D_NOTE,
    "complex64 or complex128.",
    _EX + "        >>> print(oar.fft.ihfft2(oar.ones([2, 4])).shape)\n        oar.Size([2, 3])\n",
)


# ---- frequencies and shifts ------------------------------------------------------------------
def _freq_dtype(api, dtype):

    d = "float32" if dtype is None else convert_dtype(dtype)
    if d not in ("float32", "float64"):
        raise TypeError(f"{api}(): argument 'dtype' must be float32 or float64, but got {d}")
    return d


def _freq_args(api, n, d, dtype):
    """fftfreq's and rfftfreq's n (an int), d (a number) and dtype, checked for api."""
    n = C.integer(api, "n", n)
    d = C.number(api, "d", d)
    # torch refuses a negative n and numpy an n of 0; an empty (or NaN) answer hides the slip
    if n <= 0:
        raise ValueError(f"{api}(): argument 'n' must be positive (nonzero), but got {n}")
    if d == 0:
        raise ValueError(f"{api}(): argument 'd' must be nonzero")
    return n, d, _freq_dtype(api, dtype)


def fftfreq(
    n: int, d: float = 1.0, dtype: DTypeLike | None = None, name: str | None = None
) -> Tensor:
    """The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., -1] / (n d).

    Args:
        n (int): the transform length.
        d (float, optional): the sample spacing. Default: 1.0.
        dtype (str|dtype, optional): float32 (default) or float64.
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: n frequencies, the non-negative ones first.

    Examples:
        >>> import oar
        >>> print(oar.fft.fftfreq(4, d=0.5))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.        ,  0.50000000, -1.        , -0.50000000])
    """
    n, d, dt = _freq_args("fftfreq", n, d, dtype)
    neg = n // 2
    k = _C.roll(_C.arange(-neg, (n + 1) // 2, 1, dt), [-neg], [])
    return _C.scale(k, 1.0 / (n * d), 0.0, True)


def rfftfreq(
    n: int, d: float = 1.0, dtype: DTypeLike | None = None, name: str | None = None
) -> Tensor:
    """The sample frequencies of rfft's n//2 + 1 outputs: [0, 1, ..., n//2] / (n d).

    Args:
        n (int): the transform length.
        d (float, optional): the sample spacing. Default: 1.0.
        dtype (str|dtype, optional): float32 (default) or float64.
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: n//2 + 1 non-negative frequencies.

    Examples:
        >>> import oar
        >>> print(oar.fft.rfftfreq(4, d=0.5))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.50000000, 1.        ])
    """
    n, d, dt = _freq_args("rfftfreq", n, d, dtype)
    return _C.scale(_C.arange(0, n // 2 + 1, 1, dt), 1.0 / (n * d), 0.0, True)


def _shift(api, x, axes, inverse):
    x = C.tensor(api, "x", x)
    if axes is None:
        axes = list(range(x.ndim))
    elif is_int(axes):
        axes = [axes]
    axes = [_axis(api, x, a, "axes") for a in axes]
    if not axes:
        return _C.assign(x)
    shifts = [(x.shape[a] + 1) // 2 if inverse else x.shape[a] // 2 for a in axes]
    return _C.roll(x, shifts, axes)


def fftshift(
    x: Tensor | None = None,
    axes: int | Sequence[int] | None = None,
    name: str | None = None,
    *,
    input: Tensor | None = None,
    dim: int | Sequence[int] | None = None,
) -> Tensor:
    """x rolled so that the zero frequency is in the middle of each of ``axes``.

    Args:
        x (Tensor): a spectrum (any dtype). Alias: ``input``.
        axes (int|sequence of int, optional): the axes to shift. Default: all. Alias: ``dim``.
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: x's dtype and shape.

    Examples:
        >>> import oar
        >>> print(oar.fft.fftshift(oar.fft.fftfreq(5)))
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.40000001, -0.20000000,  0.        ,  0.20000000,  0.40000001])
    """
    return _shift("fftshift", x if input is None else input, axes if dim is None else dim, False)


def ifftshift(
    x: Tensor | None = None,
    axes: int | Sequence[int] | None = None,
    name: str | None = None,
    *,
    input: Tensor | None = None,
    dim: int | Sequence[int] | None = None,
) -> Tensor:
    """The inverse of fftshift: the zero frequency back to index 0 of each of ``axes``.

    Args:
        x (Tensor): a shifted spectrum. Alias: ``input``.
        axes (int|sequence of int, optional): the axes to shift. Default: all. Alias: ``dim``.
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: x's dtype and shape.

    Examples:
        >>> import oar
        >>> print(oar.fft.ifftshift(oar.fft.fftshift(oar.fft.fftfreq(5))))
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.        ,  0.20000000,  0.40000001, -0.40000001, -0.20000000])
    """
    return _shift("ifftshift", x if input is None else input, axes if dim is None else dim, True)
