"""Window functions (Paddle's paddle.audio.functional.window).

`get_window` builds a window by name; `hann_window`, `hamming_window`,
`blackman_window`, `bartlett_window` and `kaiser_window` are the torch-style
constructors Paddle 3.3 also has here (float32 by default, `periodic` for fftbins).
Both go through the same table of windows. The windows and their parameters are
scipy.signal's (which Paddle follows): computed in float64 with numpy from their
formulas, then converted to the requested dtype. A periodic window (fftbins=True,
periodic=True: the defaults) is the symmetric window of M + 1 points without its last,
as spectral analysis wants.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ...framework.out import finish
from ...framework.typing import DTypeLike, PlaceLike, Tensor
from ...tensor.creation import to_tensor
from ...framework.dtype import convert_dtype
from ...framework.dtype import get_default_dtype

__all__ = [
    "get_window",
    "hann_window",
    "hamming_window",
    "blackman_window",
    "bartlett_window",
    "kaiser_window",
]


def _general_cosine(m, a):
    fac = np.linspace(-math.pi, math.pi, m)
    w = np.zeros(m)
    for k, ak in enumerate(a):
        w += ak * np.cos(k * fac)
    return w


def _hamming(m):
    return _general_cosine(m, [0.54, 0.46])


def _hann(m):
    return _general_cosine(m, [0.5, 0.5])


def _blackman(m):
    return _general_cosine(m, [0.42, 0.50, 0.08])


def _nuttall(m):
    return _general_cosine(m, [0.3635819, 0.4891775, 0.1365995, 0.0106411])


def _bartlett(m):
    n = np.arange(m)
    return np.where(n <= (m - 1) / 2.0, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))


def _triang(m):
    n = np.arange(1, (m + 1) // 2 + 1)
    if m % 2 == 0:
        w = (2 * n - 1.0) / m
        return np.concatenate([w, w[::-1]])
    w = 2 * n / (m + 1.0)
    return np.concatenate([w, w[-2::-1]])


def _bohman(m):
    fac = np.abs(np.linspace(-1, 1, m)[1:-1])
    w = (1 - fac) * np.cos(math.pi * fac) + 1.0 / math.pi * np.sin(math.pi * fac)
    return np.concatenate([[0.0], w, [0.0]])


def _cosine(m):
    return np.sin(math.pi / m * (np.arange(m) + 0.5))


def _tukey(m, alpha=0.5):
    if alpha <= 0:
        return np.ones(m)
    if alpha >= 1.0:
        return _hann(m)
    n = np.arange(m)
    width = int(math.floor(alpha * (m - 1) / 2.0))
    n1, n2, n3 = n[: width + 1], n[width + 1 : m - width - 1], n[m - width - 1 :]
    w1 = 0.5 * (1 + np.cos(math.pi * (-1 + 2.0 * n1 / alpha / (m - 1))))
    w3 = 0.5 * (1 + np.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (m - 1))))
    return np.concatenate([w1, np.ones(n2.shape), w3])


def _gaussian(m, std):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-(n**2) / (2 * std * std))


def _general_gaussian(m, p, sig):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _kaiser(m, beta):
    n = np.arange(m)
    alpha = (m - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(float(beta))


def _taylor(m, nbar=4, sll=30, norm=True):
    # Taylor's window: the first nbar - 1 sidelobes held at -sll dB.
    b = 10 ** (sll / 20)
    a = math.acosh(b) / math.pi
    s2 = nbar**2 / (a**2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar)
    m2 = ma**2.0
    fm = np.empty(nbar - 1)
    signs = np.where(ma % 2 == 1, 1.0, -1.0)
    for i in range(nbar - 1):
        numer = signs[i] * np.prod(1 - m2[i] / s2 / (a**2 + (ma - 0.5) ** 2))
        denom = 2 * np.prod(1 - m2[i] / m2[:i]) * np.prod(1 - m2[i] / m2[i + 1 :])
        fm[i] = numer / denom

    def shape(n):
        return 1 + 2 * np.dot(fm, np.cos(2 * math.pi * ma[:, None] * (n - m / 2.0 + 0.5) / m))

    w = shape(np.arange(m))
    if norm:
        w = w / shape((m - 1) / 2)
    return w


def _taylor_nbar(api, nbar, win_length):
    # The coefficients cost O(nbar ** 2) and the window O(nbar * win_length), so an nbar
    # beyond the length would only burn time; the default 4 (scipy's) stays allowed for
    # the shortest windows too, and windows of 0 or 1 samples (all ones, nothing computed)
    # take any nbar, as in scipy.
    if isinstance(nbar, bool) or not isinstance(nbar, numbers.Integral) or nbar < 1:
        raise ValueError(
            f"{api}(): argument 'nbar' of the 'taylor' window must be an int >= 1, but got {nbar!r}"
        )
    bound = max(win_length, 4)
    if win_length > 1 and nbar > bound:
        raise ValueError(
            f"{api}(): argument 'nbar' of the 'taylor' window must be at most "
            f"{bound} (the window length, or 4 for shorter windows), but got "
            f"{nbar}"
        )


def _exponential(m, center=None, tau=1.0, sym=True):
    if sym and center is not None:
        raise ValueError(
            "get_window(): the exponential window takes a center only when "
            "fftbins=True (a symmetric window is centred)"
        )
    if center is None:
        center = (m - 1) / 2
    return np.exp(-np.abs(np.arange(m) - center) / tau)


# name -> (function, how many parameters it needs at least, at most)
_WINDOWS = {
    "hamming": (_hamming, 0, 0),
    "hann": (_hann, 0, 0),
    "blackman": (_blackman, 0, 0),
    "nuttall": (_nuttall, 0, 0),
    "bartlett": (_bartlett, 0, 0),
    "triang": (_triang, 0, 0),
    "bohman": (_bohman, 0, 0),
    "cosine": (_cosine, 0, 0),
    "tukey": (_tukey, 0, 1),
    "gaussian": (_gaussian, 1, 1),
    "general_gaussian": (_general_gaussian, 2, 2),
    "kaiser": (_kaiser, 1, 1),
    "taylor": (_taylor, 0, 3),
    "exponential": (_exponential, 0, 2),
}


def get_window(
    window: str | tuple[str | float | None, ...],
    win_length: int,
    fftbins: bool = True,
    dtype: DTypeLike = "float64",
) -> Tensor:
    """A window of win_length samples by name, with its parameters in a tuple.

    Names: hamming, hann, blackman, nuttall, bartlett, triang, bohman, cosine,
    tukey (alpha=0.5), gaussian (std), general_gaussian (p, sig), kaiser (beta),
    taylor (nbar=4, sll=30, norm=True), exponential (center=None, tau=1.0): e.g.
    ``"hann"`` or ``("gaussian", 7.0)``.

    Args:
        window (str|tuple): the name, or (name, parameters...).
        win_length (int): the number of samples.
        fftbins (bool, optional): periodic (True, the default: for FFTs) or symmetric.
        dtype (str, optional): float64 (default) or float32.

    Returns:
        Tensor: [win_length].

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.get_window("hann", 4).numpy())
        [0.  0.5 1.  0.5]
    """
    api = "get_window"
    if isinstance(window, tuple):
        if not window:
            raise ValueError(f"{api}(): argument 'window' is an empty tuple")
        name, params = window[0], tuple(window[1:])
    elif isinstance(window, str):
        name, params = window, ()
    else:
        raise ValueError(
            f"{api}(): argument 'window' must be a str or a tuple (name, "
            f"parameters...), but got {type(window).__name__}"
        )
    if name not in _WINDOWS:
        raise ValueError(f"{api}(): unknown window {name!r}; known: {', '.join(sorted(_WINDOWS))}")
    _, least, most = _WINDOWS[name]
    if not least <= len(params) <= most:
        raise ValueError(
            f"{api}(): the {name!r} window takes {least} to {most} parameters "
            f"(pass a tuple such as ({name!r}, ...)), but got {len(params)}"
        )
    for p in params:
        if p is not None and (
            isinstance(p, bool) and name != "taylor" or not isinstance(p, numbers.Real)
        ):
            raise ValueError(
                f"{api}(): the parameters of the {name!r} window must be numbers, but got {p!r}"
            )
    if (
        isinstance(win_length, bool)
        or not isinstance(win_length, numbers.Integral)
        or win_length < 0
    ):
        raise ValueError(
            f"{api}(): argument 'win_length' must be a non-negative int, but got {win_length!r}"
        )
    if name == "taylor" and params:
        _taylor_nbar(api, params[0], int(win_length))
    dt = convert_dtype(dtype)
    if dt not in ("float32", "float64"):
        raise TypeError(f"{api}(): argument 'dtype' must be float32 or float64, but got {dt}")
    w = _values(name, params, int(win_length), fftbins)
    return to_tensor(np.ascontiguousarray(w, dtype=np.float64), dtype=dt)


def _values(name, params, m, fftbins):
    # The float64 samples of window `name` (checked by the caller), m >= 0 of them.
    if m <= 1:
        return np.ones(m)
    fn = _WINDOWS[name][0]
    sym = not fftbins
    n = m if sym else m + 1
    w = fn(n, *params, sym=sym) if name == "exponential" else fn(n, *params)
    return w if sym else w[:-1]


def _constructor(
    api,
    name,
    params,
    window_length,
    periodic,
    dtype,
    layout,
    device,
    pin_memory,
    requires_grad,
    affine=None,
):
    """The checks and tensor of the torch-style constructors below.

    `affine` (a, b) maps the window w to a + b * w before the dtype conversion (the
    generalized Hamming window). The other keyword arguments are Paddle's: `layout` is
    only accepted (with Paddle's warning when given), `device`, `pin_memory` and
    `requires_grad` act as in oar's creation functions.
    """
    if isinstance(window_length, (bool, np.bool_)) or not isinstance(
        window_length, numbers.Integral
    ):
        raise TypeError(
            f"{api}(): argument 'window_length' must be an int, but got "
            f"{type(window_length).__name__}"
        )
    if window_length < 0:
        raise ValueError(
            f"{api}(): argument 'window_length' must be >= 0, but got {int(window_length)}"
        )
    if not isinstance(periodic, (bool, np.bool_)):
        raise TypeError(
            f"{api}(): argument 'periodic' must be a bool, but got {type(periodic).__name__}"
        )
    try:
        dt = get_default_dtype() if dtype is None else convert_dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(
            f"{api}(): argument 'dtype' must be float32 or float64, but got {dtype!r}"
        ) from None
    if dt not in ("float32", "float64"):
        raise TypeError(
            f"{api}(): argument 'dtype' must be float32 or float64, but got "
            f"{getattr(dt, 'name', dt)}"
        )
    if layout is not None:
        # Paddle warns in the same way: its tensors have one (strided) layout, as oar's.
        warnings.warn(f"{api}(): layout only supports 'strided' in oar; ignored", stacklevel=3)
    w = _values(name, params, int(window_length), bool(periodic))
    if affine is not None:
        w = affine[0] + affine[1] * w
    t = to_tensor(np.ascontiguousarray(w, dtype=np.float64), dtype=dt)
    return finish(t, api, None, device, requires_grad, pin_memory)


def _real(api, arg, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{api}(): argument '{arg}' must be a float, but got {type(value).__name__}"
        )
    return float(value)


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike | None = "float32",
    layout: str | None = None,
    device: PlaceLike | None = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window, 0.5 - 0.5 cos(2 pi n / N): Paddle's
    paddle.audio.functional.window.hann_window (as torch.hann_window).

    Args:
        window_length (int): the number of samples, >= 0.
        periodic (bool, optional): periodic (True, the default: for FFTs, N =
            window_length) or symmetric (N = window_length - 1).
        dtype (str, optional): float32 (default) or float64; None is the default dtype.
        layout (str, optional): accepted for PyTorch's signature and ignored (a warning).
        device (str|Place, optional): the CPU (oar's only device). Default: None.
        pin_memory (bool, optional): False only (pinned memory is for GPU copies).
        requires_grad (bool, optional): whether the result records gradients.
            Default: False.

    Returns:
        Tensor: [window_length].

    Examples:
        >>> import oar
        >>> from oar.audio.functional.window import hann_window
        >>> print(hann_window(4).numpy())
        [0.  0.5 1.  0.5]
    """
    return _constructor(
        "hann_window",
        "hann",
        (),
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
    )


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: DTypeLike | None = "float32",
    layout: str | None = None,
    device: PlaceLike | None = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The generalized Hamming window, alpha - beta cos(2 pi n / N): Paddle's
    paddle.audio.functional.window.hamming_window (as torch.hamming_window).

    It is computed, as in Paddle, as the affine image A + B w of the standard Hamming
    window w (0.54 - 0.46 cos), with B = beta / 0.46 and A = alpha - 0.54 B: equal to the
    formula for two samples and more, and alpha + beta for a single sample.

    Args:
        window_length (int): the number of samples, >= 0.
        periodic (bool, optional): periodic (True, the default: N = window_length) or
            symmetric (N = window_length - 1).
        alpha (float, optional): the constant term. Default: 0.54.
        beta (float, optional): the cosine's weight. Default: 0.46.
        dtype (str, optional): float32 (default) or float64; None is the default dtype.
        layout (str, optional): accepted for PyTorch's signature and ignored (a warning).
        device (str|Place, optional): the CPU (oar's only device). Default: None.
        pin_memory (bool, optional): False only (pinned memory is for GPU copies).
        requires_grad (bool, optional): whether the result records gradients.
            Default: False.

    Returns:
        Tensor: [window_length].

    Examples:
        >>> import oar
        >>> from oar.audio.functional.window import hamming_window
        >>> print(hamming_window(4, dtype="float64").numpy())
        [0.08 0.54 1.   0.54]
    """
    api = "hamming_window"
    alpha, beta = _real(api, "alpha", alpha), _real(api, "beta", beta)
    scale = beta / 0.46
    return _constructor(
        api,
        "hamming",
        (),
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        affine=(alpha - scale * 0.54, scale),
    )


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike | None = "float32",
    layout: str | None = None,
    device: PlaceLike | None = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window, 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N): Paddle's
    paddle.audio.functional.window.blackman_window (as torch.blackman_window).

    Args:
        window_length (int): the number of samples, >= 0.
        periodic (bool, optional): periodic (True, the default: N = window_length) or
            symmetric (N = window_length - 1).
        dtype (str, optional): float32 (default) or float64; None is the default dtype.
        layout (str, optional): accepted for PyTorch's signature and ignored (a warning).
        device (str|Place, optional): the CPU (oar's only device). Default: None.
        pin_memory (bool, optional): False only (pinned memory is for GPU copies).
        requires_grad (bool, optional): whether the result records gradients.
            Default: False.

    Returns:
        Tensor: [window_length].

    Examples:
        >>> import oar
        >>> from oar.audio.functional.window import blackman_window
        >>> print(blackman_window(3, periodic=False, dtype="float64").numpy().round(6))
        [-0.  1. -0.]
    """
    return _constructor(
        "blackman_window",
        "blackman",
        (),
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
    )


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike | None = "float32",
    layout: str | None = None,
    device: PlaceLike | None = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Bartlett (triangular, zero at both ends) window, 1 - |2n / N - 1|: Paddle's
    paddle.audio.functional.window.bartlett_window (as torch.bartlett_window).

    Args:
        window_length (int): the number of samples, >= 0.
        periodic (bool, optional): periodic (True, the default: N = window_length) or
            symmetric (N = window_length - 1).
        dtype (str, optional): float32 (default) or float64; None is the default dtype.
        layout (str, optional): accepted for PyTorch's signature and ignored (a warning).
        device (str|Place, optional): the CPU (oar's only device). Default: None.
        pin_memory (bool, optional): False only (pinned memory is for GPU copies).
        requires_grad (bool, optional): whether the result records gradients.
            Default: False.

    Returns:
        Tensor: [window_length].

    Examples:
        >>> import oar
        >>> from oar.audio.functional.window import bartlett_window
        >>> print(bartlett_window(4).numpy())
        [0.  0.5 1.  0.5]
    """
    return _constructor(
        "bartlett_window",
        "bartlett",
        (),
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
    )


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: DTypeLike | None = "float32",
    layout: str | None = None,
    device: PlaceLike | None = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window, I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta): Paddle's
    paddle.audio.functional.window.kaiser_window (as torch.kaiser_window).

    Args:
        window_length (int): the number of samples, >= 0.
        periodic (bool, optional): periodic (True, the default: N = window_length) or
            symmetric (N = window_length - 1).
        beta (float, optional): the shape parameter. Default: 12.0.
        dtype (str, optional): float32 (default) or float64; None is the default dtype.
        layout (str, optional): accepted for PyTorch's signature and ignored (a warning).
        device (str|Place, optional): the CPU (oar's only device). Default: None.
        pin_memory (bool, optional): False only (pinned memory is for GPU copies).
        requires_grad (bool, optional): whether the result records gradients.
            Default: False.

    Returns:
        Tensor: [window_length].

    Examples:
        >>> import oar
        >>> from oar.audio.functional.window import kaiser_window
        >>> print(kaiser_window(3, periodic=False, beta=0.0).numpy())
        [1. 1. 1.]
    """
    api = "kaiser_window"
    beta = _real(api, "beta", beta)
    return _constructor(
        api,
        "kaiser",
        (beta,),
        window_length,
        periodic,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
    )
