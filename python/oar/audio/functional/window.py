"""Window functions by name (Paddle's paddle.audio.functional.get_window).

The windows and their parameters are scipy.signal's (which Paddle follows): computed in
float64 with numpy from their formulas, then converted to the requested dtype. With
fftbins=True (the default) a window is periodic: the symmetric window of M + 1 points
without its last, as spectral analysis wants.
"""
import math
import numbers

import numpy as np

import oar

__all__ = ["get_window"]


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
    n1, n2, n3 = n[:width + 1], n[width + 1:m - width - 1], n[m - width - 1:]
    w1 = 0.5 * (1 + np.cos(math.pi * (-1 + 2.0 * n1 / alpha / (m - 1))))
    w3 = 0.5 * (1 + np.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (m - 1))))
    return np.concatenate([w1, np.ones(n2.shape), w3])


def _gaussian(m, std):
    n = np.arange(m) - (m - 1.0) / 2.0
    return np.exp(-n ** 2 / (2 * std * std))


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
    s2 = nbar ** 2 / (a ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar)
    m2 = ma ** 2.0
    fm = np.empty(nbar - 1)
    signs = np.where(ma % 2 == 1, 1.0, -1.0)
    for i in range(nbar - 1):
        numer = signs[i] * np.prod(1 - m2[i] / s2 / (a ** 2 + (ma - 0.5) ** 2))
        denom = 2 * np.prod(1 - m2[i] / m2[:i]) * np.prod(1 - m2[i] / m2[i + 1:])
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
        raise ValueError(f"{api}(): argument 'nbar' of the 'taylor' window must be an int >= 1, "
                         f"but got {nbar!r}")
    bound = max(win_length, 4)
    if win_length > 1 and nbar > bound:
        raise ValueError(f"{api}(): argument 'nbar' of the 'taylor' window must be at most "
                         f"{bound} (the window length, or 4 for shorter windows), but got "
                         f"{nbar}")


def _exponential(m, center=None, tau=1.0, sym=True):
    if sym and center is not None:
        raise ValueError("get_window(): the exponential window takes a center only when "
                         "fftbins=True (a symmetric window is centred)")
    if center is None:
        center = (m - 1) / 2
    return np.exp(-np.abs(np.arange(m) - center) / tau)


# name -> (function, how many parameters it needs at least, at most)
_WINDOWS = {
    "hamming": (_hamming, 0, 0), "hann": (_hann, 0, 0), "blackman": (_blackman, 0, 0),
    "nuttall": (_nuttall, 0, 0), "bartlett": (_bartlett, 0, 0), "triang": (_triang, 0, 0),
    "bohman": (_bohman, 0, 0), "cosine": (_cosine, 0, 0), "tukey": (_tukey, 0, 1),
    "gaussian": (_gaussian, 1, 1), "general_gaussian": (_general_gaussian, 2, 2),
    "kaiser": (_kaiser, 1, 1), "taylor": (_taylor, 0, 3), "exponential": (_exponential, 0, 2),
}


def get_window(window, win_length, fftbins=True, dtype="float64"):
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
        raise ValueError(f"{api}(): argument 'window' must be a str or a tuple (name, "
                         f"parameters...), but got {type(window).__name__}")
    if name not in _WINDOWS:
        raise ValueError(f"{api}(): unknown window {name!r}; known: {', '.join(sorted(_WINDOWS))}")
    fn, least, most = _WINDOWS[name]
    if not least <= len(params) <= most:
        raise ValueError(f"{api}(): the {name!r} window takes {least} to {most} parameters "
                         f"(pass a tuple such as ({name!r}, ...)), but got {len(params)}")
    for p in params:
        if p is not None and (isinstance(p, bool) and name != "taylor"
                              or not isinstance(p, numbers.Real)):
            raise ValueError(f"{api}(): the parameters of the {name!r} window must be numbers, "
                             f"but got {p!r}")
    if isinstance(win_length, bool) or not isinstance(win_length, numbers.Integral) \
            or win_length < 0:
        raise ValueError(f"{api}(): argument 'win_length' must be a non-negative int, but got "
                         f"{win_length!r}")
    if name == "taylor" and params:
        _taylor_nbar(api, params[0], int(win_length))
    dt = oar.convert_dtype(dtype)
    if dt not in ("float32", "float64"):
        raise TypeError(f"{api}(): argument 'dtype' must be float32 or float64, but got {dt}")
    m = int(win_length)
    if m <= 1:
        w = np.ones(m)
    else:
        sym = not fftbins
        n = m if sym else m + 1
        w = fn(n, *params, sym=sym) if name == "exponential" else fn(n, *params)
        if not sym:
            w = w[:-1]
    return oar.to_tensor(np.ascontiguousarray(w, dtype=np.float64), dtype=dt)
