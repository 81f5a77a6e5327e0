"""Helpers shared by the readers of oar.text.datasets: archive members and word
dictionaries (the argument checks are oar.io._local_data's)."""

from __future__ import annotations

import numbers

from ...io._local_data import check_mode as _mode, local_file as _local_file  # noqa: F401


def _dict_size(name, arg, value):
    # Paddle's default of -1 only means "you must choose": its constructors assert > 0.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: argument '{arg}' must be an int, but got {type(value).__name__}")
    if value <= 0:
        raise ValueError(
            f"{name}: argument '{arg}' must be a positive number of words, but got {value}"
        )
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
