"""oar.nn.functional: embedding and one_hot (Paddle's paddle.nn.functional.input)."""
from ... import _C
from ... import _check as C
from ...autograd.py_layer import PyLayer

__all__ = ["embedding", "one_hot"]


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    api = "embedding"
    C.tensor(api, "x", x)
    C.tensor(api, "weight", weight)
    if max_norm is not None or scale_grad_by_freq:
        raise ValueError(f"{api}(): arguments 'max_norm' and 'scale_grad_by_freq' are not "
                         f"supported (None and False only)")
    if weight.ndim != 2:
        raise ValueError(f"{api}(): argument 'weight' must be 2-D [num_embeddings, "
                         f"embedding_dim], but has shape {weight.shape}")
    pad = -1
    if padding_idx is not None:
        rows = weight.shape[0]
        pad = C.integer(api, "padding_idx", padding_idx)
        if not -rows <= pad < rows:
            raise ValueError(f"{api}(): argument 'padding_idx' ({pad}) must be in "
                             f"[{-rows}, {rows})")
        pad = pad + rows if pad < 0 else pad
    if sparse:
        return _SparseGradEmbedding.apply(x, weight, pad)
    return _C.embedding(x, weight, pad)


class _SparseGradEmbedding(PyLayer):
    """embedding whose weight gradient is a sparse COO tensor holding one row per
    looked-up index (Paddle's sparse=True: only those rows are touched). The
    padding row's entries are zero."""

    @staticmethod
    def forward(ctx, x, weight, pad):
        ctx.save_for_backward(x)
        ctx.shape, ctx.pad = list(weight.shape), pad
        return _C.embedding(x, weight, pad)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        rows = _C.reshape(x, [1, -1])
        values = _C.reshape(g, [-1, ctx.shape[1]])
        if ctx.pad >= 0:
            keep = _C.cast(_C.not_equal(rows, _C.full_like(rows, ctx.pad)), values.dtype)
            values = values * _C.reshape(keep, [-1, 1])
        return None, _C.sparse_coo_tensor(rows, values, ctx.shape)


def one_hot(x, num_classes, name=None):
    api = "one_hot"
    C.tensor(api, "x", x)
    if x.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{api}(): argument 'x' must be an int32 or int64 tensor, but got "
                        f"{x.dtype.name}")
    return _C.one_hot(x, C.integer(api, "num_classes", num_classes))
