"""oar.text: Paddle's paddle.text: Viterbi decoding of tag sequences (viterbi_decode,
ViterbiDecoder) and the text datasets, read from local files (oar.text.datasets)."""

from __future__ import annotations

import numpy as np

from .. import _C
from ..framework import check as C
from ..nn import Layer
from . import datasets  # noqa: F401
from .datasets import (
    WMT14,
    WMT16,
    Conll05st,
    Imdb,
    Imikolov,
    Movielens,  # noqa: F401
    UCIHousing,
)
from ..tensor.creation import to_tensor

Tensor = _C.Tensor

__all__ = [
    "viterbi_decode",
    "ViterbiDecoder",
    "Conll05st",
    "Imdb",
    "Imikolov",
    "Movielens",
    "UCIHousing",
    "WMT14",
    "WMT16",
]


def viterbi_decode(
    potentials: Tensor,
    transition_params: Tensor,
    lengths: Tensor,
    include_bos_eos_tag: bool = True,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The highest-scoring tag sequence of each batch element and its score.

    Args:
        potentials: emission scores [batch, seq_len, num_tags], float32 or float64.
        transition_params: transition scores [num_tags, num_tags], [from, to].
        lengths: int64 [batch], each sequence's length (at most seq_len).
        include_bos_eos_tag: if True, row num_tags - 1 of transition_params scores the
            start (added to the first step) and row num_tags - 2 the stop (added at each
            sequence's last step), as in Paddle.

    Returns:
        (scores [batch] in potentials' dtype, paths int64 [batch, max(lengths)]; positions
        past a sequence's length are 0). A sequence of length 0 scores the best first
        step and has an all-zero path, as Paddle's kernel gives.
    """
    api = "viterbi_decode"
    for n, t in (
        ("potentials", potentials),
        ("transition_params", transition_params),
        ("lengths", lengths),
    ):
        C.tensor(api, n, t)
    if potentials.ndim != 3:
        raise ValueError(
            f"{api}(): argument 'potentials' must be 3-D [batch, seq_len, "
            f"num_tags], but has shape {potentials.shape}"
        )
    b, t, n = potentials.shape
    if transition_params.shape != [n, n]:
        raise ValueError(
            f"{api}(): argument 'transition_params' must have shape {[n, n]}, but "
            f"has {transition_params.shape}"
        )
    if lengths.shape != [b] or lengths.dtype.name not in ("int32", "int64"):
        raise ValueError(
            f"{api}(): argument 'lengths' must be an int64 tensor of shape [{b}], "
            f"but is {lengths.dtype.name} {lengths.shape}"
        )
    if (
        potentials.dtype.name not in ("float32", "float64")
        or transition_params.dtype != potentials.dtype
    ):
        raise TypeError(
            f"{api}(): potentials and transition_params must both be float32 or "
            f"both float64, but are {potentials.dtype.name} and "
            f"{transition_params.dtype.name}"
        )
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError(f"{api}(): argument 'include_bos_eos_tag' must be bool")
    if include_bos_eos_tag and n < 2:
        raise ValueError(
            f"{api}(): include_bos_eos_tag needs at least 2 tags (start and "
            f"stop), but there are {n}"
        )
    pot = potentials.numpy()
    trans = transition_params.numpy()
    lens = lengths.numpy().astype(np.int64)
    if b and (lens.min() < 0 or lens.max() > t):
        raise ValueError(
            f"{api}(): argument 'lengths' must lie in [0, {t}], but got {lens.tolist()}"
        )
    if b and t == 0:
        raise ValueError(f"{api}(): argument 'potentials' has no time steps")
    steps = int(lens.max()) if b else 0
    start = trans[n - 1] if include_bos_eos_tag else np.zeros(n, pot.dtype)
    stop = trans[n - 2] if include_bos_eos_tag else np.zeros(n, pot.dtype)
    rows = np.arange(b)
    alpha = pot[:, 0] + start + np.where(lens[:, None] == 1, stop, 0)
    back = np.zeros((max(steps - 1, 0), b, n), np.int64)
    for k in range(1, steps):
        cand = alpha[:, :, None] + trans  # [batch, from, to]
        back[k - 1] = cand.argmax(1)
        nxt = cand.max(1) + pot[:, k] + np.where(lens[:, None] == k + 1, stop, 0)
        alpha = np.where((lens > k)[:, None], nxt, alpha)  # finished sequences keep theirs
    last = alpha.argmax(1)
    scores = alpha[rows, last].astype(pot.dtype)
    paths = np.zeros((b, steps), np.int64)
    cur = last.copy()
    for k in range(steps - 1, -1, -1):
        live = lens > k
        paths[live, k] = cur[live]
        if k > 0:
            prev = back[k - 1][rows, cur]
            cur = np.where(lens > k, prev, cur)
    return to_tensor(scores), to_tensor(paths)


class ViterbiDecoder(Layer):
    """A Layer holding transition scores: forward(potentials, lengths) runs
    viterbi_decode with them."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        C.tensor("ViterbiDecoder", "transitions", transitions)
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(
            potentials, self.transitions, lengths, self.include_bos_eos_tag, self.name
        )
