"""Helpers shared by the readers of oar.text.datasets: local files only, argument checks, archive members and word dictionaries."""
from __future__ import annotations

import numbers
import os


def _local_file(name, data_file, paddle_url, arg="data_file"):
    if data_file is None:
        raise ValueError(f"{name}: give {arg}, the local copy of {paddle_url} (what Paddle "
                         f"downloads); oar downloads nothing")
    if not isinstance(data_file, (str, os.PathLike)):
        raise TypeError(f"{name}: argument '{arg}' must be a path, but got "
                        f"{type(data_file).__name__}")
    if not os.path.isfile(data_file):
        raise FileNotFoundError(f"{name}: no file {os.fspath(data_file)!r}")
    return os.fspath(data_file)


def _mode(name, mode, allowed=("train", "test")):
    if not isinstance(mode, str) or mode.lower() not in allowed:
        choices = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{name}: argument 'mode' must be {choices}, but got {mode!r}")
    return mode.lower()


def _dict_size(name, arg, value):
    # Paddle's default of -1 only means "you must choose": its constructors assert > 0.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: argument '{arg}' must be an int, but got "
                        f"{type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name}: argument '{arg}' must be a positive number of words, but "
                         f"got {value}")
    return int(value)


def _tar_member(name, tar, path, member):
    try:
        f = tar.extractfile(member)
    except KeyError:
        f = None
    if f is None:
        raise ValueError(f"{name}: {path!r} has no file {member}")
    return f


def _dictionary(freq, cutoff):
    """Words seen more than cutoff times, most frequent first (ties alphabetical), numbered
    from 0; '<unk>' comes last."""
    kept = sorted(((w, c) for w, c in freq.items() if c > cutoff), key=lambda x: (-x[1], x[0]))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


def _first_seen(items):
    """Distinct items numbered from 0 in order of first appearance."""
    ids = {}
    for x in items:
        ids.setdefault(x, len(ids))
    return ids


def _mark_id(name, vocab, mark, what):
    if mark not in vocab:
        raise ValueError(f"{name}: the {what} dictionary has no {mark}")
    return vocab[mark]


_START, _END, _UNK = "<s>", "<e>", "<unk>"
