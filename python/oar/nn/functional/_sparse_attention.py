"""sparse_attention: the CSR pattern of the scores as a boolean mask (conventions in
_flash_variants.py)."""

import numpy as np

from ... import _C
from ...tensor.creation import to_tensor
from ._flash_common import _default_scale, _float_tensor, _int_array


# ---- sparse_attention ----------------------------------------------------------------------


def sparse_attention(
    query,
    key,
    value,
    sparse_csr_offset,
    sparse_csr_columns,
    key_padding_mask=None,
    attn_mask=None,
    name=None,
):
    """Attention restricted to a CSR pattern of (query, key) pairs per batch and head.

    Args:
        query (Tensor): [batch, num_heads, seq_len, head_dim].
        key (Tensor): [batch, num_heads, seq_len, head_dim].
        value (Tensor): [batch, num_heads, seq_len, head_dim].
        sparse_csr_offset (Tensor): int32 [batch, num_heads, seq_len + 1]: row i's entries
            are columns[offset[i]:offset[i + 1]].
        sparse_csr_columns (Tensor): int32 [batch, num_heads, nnz]: the key of each entry.
        key_padding_mask (Tensor|None, optional): [batch, seq_len]; 0 masks a key.
        attn_mask (Tensor|None, optional): [seq_len, seq_len]; 0 masks a (query, key) pair.
        name (str|None, optional): Unused.

    Returns:
        Tensor: [batch, num_heads, seq_len, head_dim]; a row without entries gives 0, a row
        whose entries are all masked gives NaN (as the CUDA kernel).

    Examples:
        >>> import oar
        >>> q = oar.ones([1, 1, 4, 2])
        >>> offset = oar.to_tensor([[[0, 2, 4, 6, 8]]], dtype="int32")
        >>> columns = oar.to_tensor([[[0, 1, 0, 1, 2, 3, 2, 3]]], dtype="int32")
        >>> list(oar.nn.functional.sparse_attention(q, q, q, offset, columns).shape)
        [1, 1, 4, 2]
    """
    api = "sparse_attention"
    _float_tensor(api, "query", query, 4)
    _float_tensor(api, "key", key, 4)
    _float_tensor(api, "value", value, 4)
    if not query.shape == key.shape == value.shape:
        raise ValueError(
            f"{api}(): 'query', 'key' and 'value' must have the same shape, but "
            f"got {query.shape}, {key.shape}, {value.shape}"
        )
    bsz, h, s, d = query.shape
    off = _int_array(api, "sparse_csr_offset", sparse_csr_offset, 3)
    cols = _int_array(api, "sparse_csr_columns", sparse_csr_columns, 3)
    if list(off.shape) != [bsz, h, s + 1]:
        raise ValueError(
            f"{api}(): argument 'sparse_csr_offset' must have shape "
            f"[{bsz}, {h}, {s + 1}], but has {list(off.shape)}"
        )
    if list(cols.shape[:2]) != [bsz, h]:
        raise ValueError(
            f"{api}(): argument 'sparse_csr_columns' must have shape "
            f"[{bsz}, {h}, nnz], but has {list(cols.shape)}"
        )
    nnz = cols.shape[2]
    if (np.diff(off, axis=-1) < 0).any() or (off < 0).any() or (off > nnz).any():
        raise ValueError(
            f"{api}(): argument 'sparse_csr_offset' must be non-decreasing "
            f"offsets within [0, {nnz}]"
        )
    counts = np.zeros((bsz, h, s, s), np.float64)
    for bi in range(bsz):
        for hi in range(h):
            row_of = np.repeat(np.arange(s), np.diff(off[bi, hi]))
            c = cols[bi, hi, off[bi, hi, 0] : off[bi, hi, -1]]
            if c.size and (c.min() < 0 or c.max() >= s):
                raise ValueError(
                    f"{api}(): argument 'sparse_csr_columns' must be in "
                    f"[0, {s}), but holds {int(c.min())}..{int(c.max())}"
                )
            np.add.at(counts[bi, hi], (row_of, c), 1.0)
    # a pair listed n times counts n times in the softmax and in the sum, as in CSR
    bias = np.where(counts > 0, np.log(np.maximum(counts, 1.0)), -np.inf)
    masked = np.zeros((bsz, 1, s, s), bool)
    for nm, m, shape in (
        ("key_padding_mask", key_padding_mask, [bsz, s]),
        ("attn_mask", attn_mask, [s, s]),
    ):
        if m is None:
            continue
        _float_tensor(api, nm, m, 2)
        if list(m.shape) != shape:
            raise ValueError(f"{api}(): argument '{nm}' must have shape {shape}, but has {m.shape}")
        mv = (
            np.abs(m.astype("float64").numpy())
            < np.finfo(np.dtype("float64" if m.dtype.name == "float64" else "float32")).eps
        )
        masked |= mv[:, None, None, :] if nm == "key_padding_mask" else mv[None, None]
    has_entries = counts.any(axis=-1, keepdims=True)
    # a masked entry takes part as exp(-inf) = 0: all masked -> 0/0 = NaN, as the kernel
    bias = np.where(masked & (counts > 0), -np.inf, bias)
    sc = _C.scale(_C.matmul(query, key, False, True), _default_scale(d))
    sc = sc + _C.cast(to_tensor(np.where(has_entries, bias, 0.0)), sc.dtype)
    w = _C.softmax(sc, -1) * _C.cast(to_tensor(has_entries), sc.dtype)
    return _C.matmul(w, value)
