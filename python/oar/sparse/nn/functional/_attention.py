"""attention: Paddle's sparse_fused_attention (paddle.sparse.nn.functional.attention) on
the CPU. Paddle runs it on CUDA >= 11.7 only: scores at the stored positions of a CSR
layout, the masks, a softmax over each row's stored entries, and the product with value.

Here the layout becomes a boolean mask over the dense [batch, heads, seq, seq] scores
(the math path of scaled_dot_product_attention), so gradients reach query, key and
value through ordinary ops. The kernel's rules are kept: only the layout of sparse_mask
matters (its values do not); a position whose key_padding_mask or attn_mask entry is 0
is masked out; a row with no stored entry gives 0 and a row whose stored entries are all
masked gives NaN (the kernel's exp(-inf - -inf)).
"""

from __future__ import annotations

import math

import numpy as np

from .... import _C
from ....framework import check as C
from ....framework.typing import Tensor
from ....tensor.creation import to_tensor

__all__ = ["attention"]

_API = "attention"


def _dense(name, t, shape, dtype):
    C.tensor(_API, name, t)
    if t.is_sparse():
        raise TypeError(f"{_API}(): argument '{name}' must be a dense Tensor")
    if list(t.shape) != list(shape):
        raise ValueError(
            f"{_API}(): argument '{name}' must have shape {list(shape)}, but has "
            f"shape {list(t.shape)}"
        )
    if dtype is not None and t.dtype != dtype:
        raise TypeError(
            f"{_API}(): argument '{name}' must have query's dtype "
            f"{dtype.name}, but has {t.dtype.name}"
        )
    return t


def _layout(sparse_mask, bh, m):
    """The stored positions of the batched CSR sparse_mask as a bool array [bh, m, m]."""
    C.tensor(_API, "sparse_mask", sparse_mask)
    if not sparse_mask.is_sparse_csr():
        raise TypeError(
            f"{_API}(): argument 'sparse_mask' must be a sparse CSR tensor "
            f"(Tensor.to_sparse_csr()), but is "
            f"{'a COO' if sparse_mask.is_sparse() else 'a dense'} tensor"
        )
    if list(sparse_mask.shape) != [bh, m, m]:
        raise ValueError(
            f"{_API}(): argument 'sparse_mask' must have the dense shape "
            f"[batch_size * num_heads, seq_len, seq_len] = {[bh, m, m]}, but has "
            f"{list(sparse_mask.shape)}"
        )
    crows = sparse_mask.crows().numpy().reshape(bh, m + 1)
    cols = sparse_mask.cols().numpy()
    keep = np.zeros((bh, m, m), bool)
    start = 0
    for b in range(bh):  # each matrix's crows restart at 0; its entries follow the last's
        counts = np.diff(crows[b])
        rows = np.repeat(np.arange(m), counts)
        keep[b, rows, cols[start + crows[b, 0] : start + crows[b, -1]]] = True
        start += int(crows[b, -1])
    return keep


def attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    sparse_mask: Tensor,
    key_padding_mask: Tensor | None = None,
    attn_mask: Tensor | None = None,
    name: str | None = None,
) -> Tensor:
    """softmax(Q K^T / sqrt(head_dim)) V with the scores kept only at the stored positions
    of sparse_mask (Paddle's sparse attention, computed densely on the CPU).

    Args:
        query (Tensor): [batch_size, num_heads, seq_len, head_dim], float32 or float64.
        key (Tensor): the same shape and dtype.
        value (Tensor): the same shape and dtype.
        sparse_mask (Tensor): a sparse CSR tensor of dense shape
            [batch_size * num_heads, seq_len, seq_len]: its layout (not its values) says
            which scores take part.
        key_padding_mask (Tensor, optional): [batch_size, seq_len]; key columns whose entry
            is 0 are masked out. Default: None.
        attn_mask (Tensor, optional): [seq_len, seq_len]; positions whose entry is 0 are
            masked out. Default: None.
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: [batch_size, num_heads, seq_len, head_dim], query's dtype. A query row with
        no stored entry gives 0, one whose stored entries are all masked gives NaN.

    Examples:
        >>> import oar
        >>> q = oar.ones([1, 1, 2, 4])
        >>> v = oar.to_tensor([[[[1., 1, 1, 1], [3, 3, 3, 3]]]])
        >>> layout = oar.to_tensor([[[1., 0], [1, 1]]]).to_sparse_csr()
        >>> oar.sparse.nn.functional.attention(q, q, v, layout)[0, 0, :, 0].tolist()
        [1.0, 2.0]
    """
    C.tensor(_API, "query", query)
    if query.ndim != 4:
        raise ValueError(
            f"{_API}(): argument 'query' must be 4-D [batch_size, num_heads, "
            f"seq_len, head_dim], but has shape {list(query.shape)}"
        )
    if query.dtype.name not in ("float32", "float64"):
        raise TypeError(
            f"{_API}(): argument 'query' must be float32 or float64, but is {query.dtype.name}"
        )
    b, h, m, d = query.shape
    _dense("key", key, query.shape, query.dtype)
    _dense("value", value, query.shape, query.dtype)
    keep = _layout(sparse_mask, b * h, m).reshape(b, h, m, m)
    stored = keep.copy()
    if key_padding_mask is not None:
        kp = _dense("key_padding_mask", key_padding_mask, [b, m], None).numpy()
        keep &= (kp != 0)[:, None, None, :]
    if attn_mask is not None:
        am = _dense("attn_mask", attn_mask, [m, m], None).numpy()
        keep &= (am != 0)[None, None]
    scores = _C.scale(_C.matmul(query, key, False, True), 1.0 / math.sqrt(d))
    neg_inf = to_tensor(np.array(-np.inf, query.dtype.name))
    scores = _C.where(to_tensor(keep), scores, neg_inf)
    probs = _C.softmax(scores, -1)  # an all -inf row: NaN, as the kernel's
    has_entry = to_tensor(stored.any(-1, keepdims=True))
    probs = _C.where(has_entry, probs, to_tensor(np.array(0.0, query.dtype.name)))
    return _C.matmul(probs, value, False, False)
