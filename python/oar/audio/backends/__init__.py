"""oar.audio.backends: the audio I/O backend (Paddle's paddle.audio.backends).

oar has one backend, "wave_backend": PCM WAV through Python's `wave` module. Paddle also
offers "soundfile" when the paddleaudio package is installed; oar does not use it.
"""

from __future__ import annotations

from .wave_backend import AudioInfo, info, load, save

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]

_BACKENDS = ("wave_backend",)


def list_available_backends() -> list[str]:
    """The audio backends this installation can use.

    Returns:
        list[str]: ["wave_backend"].

    Examples:
        >>> import oar
        >>> print(oar.audio.backends.list_available_backends())
        ['wave_backend']
    """
    return list(_BACKENDS)


def get_current_backend() -> str:
    """The backend oar.audio.load, save and info use.

    Returns:
        str: "wave_backend".

    Examples:
        >>> import oar
        >>> print(oar.audio.backends.get_current_backend())
        wave_backend
    """
    return _BACKENDS[0]


def set_backend(backend_name: str) -> None:
    """Chooses the audio backend; only "wave_backend" exists in oar.

    Args:
        backend_name (str): the backend's name.

    Examples:
        >>> import oar
        >>> oar.audio.backends.set_backend("wave_backend")
    """
    if backend_name not in _BACKENDS:
        raise NotImplementedError(
            f"set_backend(): backend {backend_name!r} is not available; oar has {list(_BACKENDS)}"
        )
