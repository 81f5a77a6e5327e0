"""oar.signal: Paddle's paddle.signal (stft, istft, and the framing they are made of).

Everything here is composed of differentiable ops (the FFT ops of oar.fft, unfold, pad,
reshape, multiply), so gradients of every order flow through stft and istft (docs/fft.md).
"""

from __future__ import annotations

from . import _C
from .framework import check as C
from .tensor.methods import bind_methods

Tensor = _C.Tensor

__all__ = ["stft", "istft"]

_COMPLEX = ("complex64", "complex128")


def _is_complex(x):
    return x.dtype.name in _COMPLEX


def _positive(api, name, v):
    v = C.integer(api, name, v)
    if v <= 0:
        raise ValueError(f"{api}(): argument '{name}' must be positive, but got {v}")
    return v


def _last_two_swapped(x):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _C.transpose(x, perm)


def frame(
    x: Tensor, frame_length: int, hop_length: int, axis: int = -1, name: str | None = None
) -> Tensor:
    """Slices x into overlapping frames of frame_length samples, hop_length apart.

    Args:
        x (Tensor): the signal; its first (axis=0) or last (axis=-1) axis is time.
        frame_length (int): samples per frame (at most x's length along ``axis``).
        hop_length (int): samples between the starts of adjacent frames.
        axis (int, optional): 0 or -1 (the default).
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: [..., frame_length, num_frames] for axis=-1, [num_frames, frame_length, ...]
        for axis=0, with num_frames = 1 + (length - frame_length) // hop_length.

    Examples:
        >>> import oar
        >>> print(oar.signal.frame(oar.arange(6.0), 4, 2))
        Tensor(shape=[4, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0., 2.],
                [1., 3.],
                [2., 4.],
                [3., 5.]])
    """
    api = "frame"
    x = C.tensor(api, "x", x)
    frame_length = _positive(api, "frame_length", frame_length)
    hop_length = _positive(api, "hop_length", hop_length)
    if axis not in (0, -1):
        raise ValueError(f"{api}(): argument 'axis' must be 0 or -1, but got {axis!r}")
    if x.ndim == 0:
        raise ValueError(f"{api}(): argument 'x' must have at least 1 dim")
    ax = 0 if axis == 0 else x.ndim - 1
    if frame_length > x.shape[ax]:
        raise ValueError(
            f"{api}(): argument 'frame_length' ({frame_length}) must not exceed "
            f"the signal's length {x.shape[ax]}"
        )
    # unfold appends the window axis: [..., frames, frame_length] along the last axis.
    w = _C.tensor_unfold(x, ax, frame_length, hop_length)
    if axis == -1:
        return _last_two_swapped(w)
    # [frames, ..., frame_length] -> [frames, frame_length, ...]
    perm = [0, w.ndim - 1] + list(range(1, w.ndim - 1))
    return _C.transpose(w, perm)


def overlap_add(x: Tensor, hop_length: int, axis: int = -1, name: str | None = None) -> Tensor:
    """Sums overlapping frames back into a signal (the reverse of frame, without division).

    Args:
        x (Tensor): frames: [..., frame_length, num_frames] (axis=-1) or
            [num_frames, frame_length, ...] (axis=0).
        hop_length (int): samples between the starts of adjacent frames.
        axis (int, optional): 0 or -1 (the default).
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: the signal of (num_frames - 1) * hop_length + frame_length samples along
        the time axis.

    Examples:
        >>> import oar
        >>> print(oar.signal.overlap_add(oar.ones([4, 2]), 2))
        Tensor(shape=[6], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 1., 2., 2., 1., 1.])
    """
    api = "overlap_add"
    x = C.tensor(api, "x", x)
    hop = _positive(api, "hop_length", hop_length)
    if axis not in (0, -1):
        raise ValueError(f"{api}(): argument 'axis' must be 0 or -1, but got {axis!r}")
    if x.ndim < 2:
        raise ValueError(
            f"{api}(): argument 'x' must have at least 2 dims (frame_length, "
            f"num_frames), but has shape {x.shape}"
        )
    if axis == 0:
        # [frames, frame_length, ...] -> [..., frame_length, frames], then back at the end.
        perm = list(range(2, x.ndim)) + [1, 0]
        out = overlap_add(_C.transpose(x, perm), hop, -1)
        return _C.transpose(out, [out.ndim - 1] + list(range(out.ndim - 1)))
    lead = list(x.shape[:-2])
    flen, frames = x.shape[-2], x.shape[-1]
    total = (frames - 1) * hop + flen
    # The sum of overlapping windows is the backward of unfold (a declared op whose own
    # backward is unfold again); the signal-shaped first argument gives only the shape.
    like = _C.full(lead + [total], 0, x.dtype.name)
    return _C.tensor_unfold_grad(like, _last_two_swapped(x), len(lead), flen, hop)


def _lengths(api, n_fft, hop_length, win_length):
    """n_fft, hop_length (default n_fft // 4) and win_length (default n_fft, at most n_fft)."""
    n_fft = _positive(api, "n_fft", n_fft)
    hop = _positive(api, "hop_length", n_fft // 4 if hop_length is None else hop_length)
    win_length = n_fft if win_length is None else C.integer(api, "win_length", win_length)
    if not 0 < win_length <= n_fft:
        raise ValueError(
            f"{api}(): argument 'win_length' must be in (0, n_fft ({n_fft})], but got {win_length}"
        )
    return n_fft, hop, win_length


def _window(api, window, win_length, n_fft, dtype):
    if window is None:
        window = _C.full([win_length], 1.0, dtype)
    else:
        C.tensor(api, "window", window)
        if window.ndim != 1 or window.shape[0] != win_length:
            raise ValueError(
                f"{api}(): argument 'window' must be a 1-D tensor of win_length "
                f"({win_length}) samples, but has shape {window.shape}"
            )
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _C.pad(window, [left, n_fft - win_length - left], 0, 0)
    return window


def stft(
    x: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """The short-time Fourier transform: the spectra of windowed frames of x.

    ``X[..., f, t] = sum_j window[j] x[t * hop_length + j] exp(-2 pi i f j / n_fft)``.

    Args:
        x (Tensor): the signal, [seq_length] or [batch, seq_length], real or complex.
        n_fft (int): the frame (and transform) length.
        hop_length (int, optional): samples between frames. Default: n_fft // 4.
        win_length (int, optional): the window's length (<= n_fft; the window is
            zero-padded to n_fft, centred). Default: n_fft.
        window (Tensor, optional): 1-D, win_length samples. Default: ones.
        center (bool, optional): pad x by n_fft // 2 on both sides first, so frame t is
            centred on sample t * hop_length. Default: True.
        pad_mode (str, optional): "reflect" (default) or "constant" (zeros), for center.
        normalized (bool, optional): scale the spectra by 1/sqrt(n_fft). Default: False.
        onesided (bool, optional): keep the n_fft // 2 + 1 non-negative frequencies (real
            x and window only). Default: True for real input, False for complex.
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: complex, [batch?, freqs, num_frames], with freqs n_fft // 2 + 1 (onesided)
        or n_fft, num_frames = 1 + (padded length - n_fft) // hop_length.

    Examples:
        >>> import oar
        >>> print(oar.signal.stft(oar.ones([2, 64]), n_fft=16).shape)
        oar.Size([2, 9, 17])
    """
    api = "stft"
    x = C.tensor(api, "x", x)
    if x.ndim not in (1, 2):
        raise ValueError(
            f"{api}(): argument 'x' must be 1-D or 2-D (batch, seq_length), but has shape {x.shape}"
        )
    n_fft, hop, win_length = _lengths(api, n_fft, hop_length, win_length)
    squeeze = x.ndim == 1
    if squeeze:
        x = _C.unsqueeze(x, [0])
    if x.dtype.name not in _COMPLEX and x.dtype.name not in ("float32", "float64"):
        x = _C.cast(x, "float32")
    p = n_fft // 2 if center else 0
    if center:
        if pad_mode not in ("reflect", "constant"):
            raise ValueError(
                f"{api}(): argument 'pad_mode' must be 'reflect' or 'constant', "
                f"but got {pad_mode!r}"
            )
        if pad_mode == "reflect" and p >= x.shape[-1]:
            raise ValueError(
                f"{api}(): reflect padding by n_fft // 2 = {p} needs more than {p} "
                f"samples, but x has {x.shape[-1]}"
            )
    # before the window and the padding, which are n_fft long: an n_fft past the signal
    # would otherwise fail (or exhaust memory) building them
    if not 0 < n_fft <= x.shape[-1] + 2 * p:
        raise ValueError(
            f"{api}(): argument 'n_fft' must be in (0, {x.shape[-1] + 2 * p}] (the "
            f"signal's length), but got {n_fft}"
        )
    window = _window(
        api,
        window,
        win_length,
        n_fft,
        x.dtype.name
        if not _is_complex(x)
        else ("float64" if x.dtype.name == "complex128" else "float32"),
    )
    if center:
        x = _C.pad(x, [0, 0, p, p], 1 if pad_mode == "reflect" else 0, 0)
    frames = _C.multiply(_C.tensor_unfold(x, 1, n_fft, hop), window)  # [batch, frames, n_fft]
    complex_frames = _is_complex(frames)
    if onesided is None:
        onesided = not complex_frames
    if complex_frames and onesided:
        raise ValueError(f"{api}(): onesided must be False for a complex x or window")
    norm = 1 if normalized else 0
    if complex_frames:
        out = _C.fft_c2c(frames, [2], norm, True)
    else:
        out = _C.fft_r2c(frames, [2], norm, True, bool(onesided))
    out = _last_two_swapped(out)  # [batch, freqs, frames]
    return _C.squeeze(out, [0]) if squeeze else out


def istft(
    x: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool = True,
    length: int | None = None,
    return_complex: bool = False,
    name: str | None = None,
) -> Tensor:
    """The inverse short-time Fourier transform (least-squares overlap-add of the frames).

    Args:
        x (Tensor): complex spectra, [freqs, num_frames] or [batch, freqs, num_frames]
            (freqs = n_fft // 2 + 1 when onesided, else n_fft).
        n_fft (int): the frame (and transform) length.
        hop_length (int, optional): samples between frames (<= win_length). Default: n_fft // 4.
        win_length (int, optional): the window's length (<= n_fft). Default: n_fft.
        window (Tensor, optional): 1-D, win_length samples. Default: ones.
        center (bool, optional): x came from a centred stft: drop n_fft // 2 samples at
            both ends. Default: True.
        normalized (bool, optional): x was scaled by 1/sqrt(n_fft). Default: False.
        onesided (bool, optional): x holds the non-negative frequencies only. Default: True.
        length (int, optional): the length of the output (>= 0; zero-padded past the
            frames' samples). Default: all the samples.
        return_complex (bool, optional): return a complex signal (needs onesided=False).
            Default: False.
        name (str, optional): unused (Paddle's name).

    Returns:
        Tensor: the signal, [seq_length] or [batch, seq_length].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]])
        >>> y = oar.signal.stft(x, n_fft=4, window=oar.audio.functional.get_window("hann", 4))
        >>> print(oar.signal.istft(y, n_fft=4, window=oar.audio.functional.get_window("hann", 4)).shape)
        oar.Size([1, 8])
    """
    api = "istft"
    x = C.tensor(api, "x", x)
    if not _is_complex(x):
        raise TypeError(
            f"{api}(): argument 'x' must be a complex64 or complex128 tensor, but "
            f"got {x.dtype.name}"
        )
    if x.ndim not in (2, 3):
        raise ValueError(
            f"{api}(): argument 'x' must be 2-D or 3-D (batch, freqs, frames), "
            f"but has shape {x.shape}"
        )
    if x.size == 0:
        raise ValueError(f"{api}(): argument 'x' must not be empty")
    n_fft, hop, win_length = _lengths(api, n_fft, hop_length, win_length)
    if hop > win_length:
        raise ValueError(
            f"{api}(): argument 'hop_length' must be in (0, win_length "
            f"({win_length})], but got {hop}"
        )
    squeeze = x.ndim == 2
    if squeeze:
        x = _C.unsqueeze(x, [0])
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    want = n_fft // 2 + 1 if onesided else n_fft
    if fft_size != want:
        raise ValueError(
            f"{api}(): x has {fft_size} frequencies, but n_fft={n_fft} with "
            f"onesided={onesided} needs {want}"
        )
    real_dtype = "float64" if x.dtype.name == "complex128" else "float32"
    window = _window(api, window, win_length, n_fft, real_dtype)
    frames = _last_two_swapped(x)  # [batch, frames, freqs]
    norm = 1 if normalized else 2
    if return_complex:
        if onesided:
            raise ValueError(f"{api}(): return_complex=True needs onesided=False")
        out = _C.fft_c2c(frames, [2], norm, False)
    else:
        if _is_complex(window):
            raise TypeError(f"{api}(): the window must be real when return_complex is False")
        if not onesided:
            frames = _C.slice(frames, [2], [0], [n_fft // 2 + 1])
        out = _C.fft_c2r(frames, [2], norm, False, n_fft)
    out = _last_two_swapped(_C.multiply(out, window))  # [batch, n_fft, frames]
    out = overlap_add(out, hop, -1)  # [batch, seq_length]
    sq = _C.multiply(window, window)
    envelope = overlap_add(_C.expand(_C.unsqueeze(sq, [1]), [n_fft, n_frames]), hop, -1)
    start = n_fft // 2 if center else 0
    total = out.shape[-1]
    if length is None:
        end = total - (n_fft // 2 if center else 0)
    else:
        length = C.integer(api, "length", length)
        if length < 0:
            raise ValueError(f"{api}(): argument 'length' must be non-negative, but got {length}")
        end = start + length
    # a length past the frames is zero-padded below (torch.istft's rule)
    avail = min(end, total)
    out = _C.slice(out, [1], [start], [avail])
    envelope = _C.slice(envelope, [0], [start], [avail])
    # Nonzero overlap-add (NOLA): every output sample must be covered by the window.
    if envelope.size and float(_C.abs(envelope).min().item()) < 1e-11:
        raise ValueError(
            f"{api}(): the window fails the nonzero overlap-add (NOLA) condition "
            "for this hop_length: some samples get no weight and cannot be "
            "recovered"
        )
    out = _C.divide(out, envelope)
    if end > avail:
        out = _C.pad(out, [0, 0, 0, end - avail], 0, 0)
    return _C.squeeze(out, [0]) if squeeze else out


# Paddle's Tensor.stft and Tensor.istft
bind_methods({"stft": stft, "istft": istft})
