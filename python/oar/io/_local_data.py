"""Argument checks shared by the dataset readers (oar.text.datasets, oar.vision.datasets):
a mode among a dataset's choices, and a local file where Paddle would download one (oar
downloads nothing)."""

from __future__ import annotations

import os


def check_mode(name, mode, allowed=("train", "test")):
    """mode lower-cased (Paddle accepts 'TRAIN'), or ValueError naming the choices.

    Args:
        name: the dataset's name, for the message.
        mode: what the caller passed.
        allowed: the lower-case choices.

    Returns:
        str: the lower-cased mode.
    """
    if not isinstance(mode, str) or mode.lower() not in allowed:
        choices = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{name}: argument 'mode' must be {choices}, but got {mode!r}")
    return mode.lower()


def local_file(name, path, paddle_url, arg="data_file"):
    """The path of an existing local file, where Paddle would download paddle_url.

    Args:
        name: the dataset's name, for the message.
        path: what the caller passed (None or '' where Paddle downloads).
        paddle_url: where Paddle downloads the file from.
        arg: the argument's name, for the message.

    Returns:
        str: the path.
    """
    if path is None or (isinstance(path, str) and not path):
        raise ValueError(
            f"{name}: give {arg}, the local copy of {paddle_url} (what Paddle "
            f"downloads); oar downloads nothing"
        )
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: argument '{arg}' must be a path, but got {type(path).__name__}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{name}: no file {os.fspath(path)!r} (argument '{arg}')")
    return os.fspath(path)
