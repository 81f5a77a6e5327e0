"""Convolution and max pooling of sparse COO point clouds (Paddle's
paddle.sparse.nn.functional.conv2d/conv3d/subm_conv2d/subm_conv3d/max_pool3d).

x is [N, *spatial, C] with N and the spatial dimensions sparse and the channels
dense (values [nnz, C]), channel-last. A rule book pairs each input entry with the
output entries each kernel offset takes it to; the positions are integer work
(numpy, outside the graph), the values move through differentiable dense ops
(index_select, matmul, index_add, max), so x, weight and bias get gradients of
every order.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence

import numpy as np

from .... import _C
from ....framework import check as C
from ....tensor.creation import to_tensor
from ....framework.memory import check_fits
from ....framework.typing import IntsLike
from ..._base import check_sparse, check_tensor

Tensor = _C.Tensor


def _ints(api, name, v, n):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)] * n
    v = list(v)
    if len(v) != n or not all(
        isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in v
    ):
        raise ValueError(f"{api}(): argument '{name}' must be an int or {n} ints, got {v!r}")
    return [int(a) for a in v]


def _padding(api, padding, n):
    """(before, after) per spatial dimension from an int, n ints or 2n ints."""
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * n, [0] * n
        raise ValueError(f"{api}(): padding {padding!r} is not supported (ints or 'VALID')")
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return [int(padding)] * n, [int(padding)] * n
    p = list(padding)
    if len(p) == n:
        p = _ints(api, "padding", p, n)
        return p, p
    if len(p) == 2 * n:
        p = _ints(api, "padding", p, 2 * n)
        return p[0::2], p[1::2]
    raise ValueError(
        f"{api}(): argument 'padding' must be an int, {n} ints or {2 * n} ints, got {padding!r}"
    )


def _check_input(api, x, n, fmt, want_fmt):
    check_sparse(api, "x", x)
    if fmt != want_fmt:
        raise ValueError(f"{api}(): argument 'data_format' must be {want_fmt!r}, got {fmt!r}")
    if not x.is_sparse_coo() or x.ndim != n + 2 or x.sparse_dim() != n + 1:
        raise ValueError(
            f"{api}(): x must be a {n + 2}-D sparse COO tensor [N, {n} spatial, C] "
            f"with {n + 1} sparse dimensions, got shape {list(x.shape)}"
            + (f" with {x.sparse_dim()}" if x.is_sparse_coo() else "")
        )


def _keys(coords, extent):
    """Row-major int64 keys of integer coordinates [m, d] within extent."""
    key = np.zeros(len(coords), dtype=np.int64)
    for d, n in enumerate(extent):
        key = key * n + coords[:, d]
    return key


class RuleBook:
    """For each kernel offset, the pairs (input entry, output entry) it connects, and
    the output positions ([n_out, 1 + dims] coordinates, row-major order)."""

    def __init__(
        self,
        indices,
        spatial,
        kernel,
        stride,
        pad_before,
        pad_after,
        dilation,
        subm,
        with_pairs=True,
        api="conv3d",
    ):
        coords = np.ascontiguousarray(indices.T)  # [nnz, 1 + dims]: batch, then spatial
        nd = len(spatial)
        if subm:
            self.out_spatial = list(spatial)
        else:
            self.out_spatial = [
                (spatial[d] + pad_before[d] + pad_after[d] - dilation[d] * (kernel[d] - 1) - 1)
                // stride[d]
                + 1
                for d in range(nd)
            ]
            if any(s <= 0 for s in self.out_spatial):
                raise ValueError(
                    f"the output would have shape {self.out_spatial}: the kernel "
                    f"{kernel} (dilation {dilation}) is larger than the padded "
                    f"input {spatial}"
                )
        batch = int(coords[:, 0].max()) + 1 if len(coords) else 1
        out_extent = [batch] + self.out_spatial
        if not with_pairs:
            # for values that need no pairs (no input or no output channels) the offsets,
            # as many as the kernel's volume (free for an empty weight), would be walked
            # for nothing; a submanifold output keeps x's positions, any other the ones
            # the kernel reaches, found per dimension
            if subm:
                order = np.argsort(_keys(coords, out_extent), kind="stable")
                self.out_coords = coords[order]
            else:
                self.out_coords = _reached(
                    api, coords, self.out_spatial, kernel, stride, pad_before, dilation
                )
            self.pairs = []
            return
        # The walk keeps every (input, offset) pair whose output is in range, and a few
        # objects per offset even when none is: count both before walking. A submanifold
        # output at p reads the input at p + (k - kernel // 2) * dilation, the strided rule
        # with stride 1 and kernel // 2 dilated steps of padding.
        reach = (
            ([1] * nd, [(kernel[d] // 2) * dilation[d] for d in range(nd)])
            if subm
            else (stride, pad_before)
        )
        n_pairs = _pair_count(api, coords, self.out_spatial, kernel, *reach, dilation)
        kvol = math.prod(kernel)
        # a pair holds an int64 input row and 1 + nd output coordinates as a candidate, then
        # an input row and an output row in self.pairs
        check_fits(
            f"{api}():",
            f"the {n_pairs} (input entry, kernel offset) pairs of the "
            f"{len(coords)} input entries and the {kvol} offsets of the kernel {kernel}",
            n_pairs * 8 * (nd + 4) + kvol * _OFFSET_BYTES,
        )
        cand = []  # per offset: (input rows, output coordinates)
        for off in itertools.product(*[range(k) for k in kernel]):
            if subm:  # the output at p reads the input at p + (k - kernel // 2) * dilation
                o = coords.copy()
                o[:, 1:] -= [(off[d] - kernel[d] // 2) * dilation[d] for d in range(nd)]
                ok = np.ones(len(o), dtype=bool)
            else:  # the input at p feeds the output at (p + pad - k * dilation) / stride
                num = coords[:, 1:] + pad_before - np.array(off) * dilation
                ok = np.all(num % stride == 0, axis=1)
                o = np.concatenate([coords[:, :1], num // stride], axis=1)
            ok &= np.all((o[:, 1:] >= 0) & (o[:, 1:] < self.out_spatial), axis=1)
            cand.append((np.nonzero(ok)[0], o[ok]))
        if subm:
            out_coords = coords[np.argsort(_keys(coords, out_extent), kind="stable")]
        else:
            out_coords = _reached(
                api, coords, self.out_spatial, kernel, stride, pad_before, dilation
            )
        out_keys = _keys(out_coords, out_extent)
        self.out_coords = out_coords
        self.pairs = []
        for in_rows, oc in cand:
            if not len(in_rows):
                self.pairs.append(None)
                continue
            k = _keys(oc, out_extent)
            pos = np.searchsorted(out_keys, k)
            pos = np.minimum(pos, len(out_keys) - 1)
            hit = out_keys[pos] == k  # subm: only the existing positions
            self.pairs.append((in_rows[hit], pos[hit]) if hit.any() else None)


# What each kernel offset keeps while the rule book is built, beyond its pairs: its candidate
# and pair arrays as Python objects (measured: about 450 bytes an offset with no pairs, 720
# with some).
_OFFSET_BYTES = 720


def _axis_reach(api, d, q, n_out, k, s, dil):
    """Along dimension d, for inputs at q (position plus the padding before), the outputs o
    in [0, n_out) with o * s = q - j * dil for a 0 <= j < k: (vals, ok), [len(q), m] arrays
    whose entries ok marks are those o, m the shorter of k and the span of o in range (so
    that neither a long kernel nor a long output is enumerated in full); None when no input
    reaches any output."""
    lo = np.maximum(0, -((-(q - (k - 1) * dil)) // s))  # ceil((q - (k - 1) dil) / s)
    hi = np.minimum(n_out - 1, q // s)
    span = int((hi - lo).max(initial=-1)) + 1
    if span <= 0:
        return None
    check_fits(
        f"{api}():",
        f"the {min(k, span)} candidate output positions along "
        f"dimension {d} of each of {len(q)} inputs",
        32 * min(k, span) * len(q),
    )
    if k <= span:  # each input's o from its j
        num = q[:, None] - np.arange(k)[None, :] * dil
        ok = (num % s == 0) & (num >= 0) & (num // s < n_out)
        vals = num // s
    else:  # each input's o in [lo, hi]
        vals = lo[:, None] + np.arange(span)[None, :]
        ok = (vals <= hi[:, None]) & ((q[:, None] - vals * s) % dil == 0)
    return vals, ok


def _reached(api, coords, out_spatial, kernel, stride, pad_before, dilation):
    """The output positions (sorted rows [batch, *spatial]) some kernel offset takes an
    input at coords to, without walking the offsets: an input reaches the product of its
    lists of outputs per dimension (_axis_reach)."""
    rows = np.arange(len(coords))  # the input each output candidate comes from
    cols = [coords[:, :1]]
    for d, (n_out, k, s, dil) in enumerate(zip(out_spatial, kernel, stride, dilation)):
        reach = _axis_reach(api, d, coords[:, 1 + d] + pad_before[d], n_out, k, s, dil)
        if reach is None:
            return coords[:0]
        vals, ok = reach
        count = ok.sum(1)
        flat = vals[ok]  # the o of input i: flat[first[i]:first[i] + count[i]]
        first = np.cumsum(count) - count
        reps = count[rows]
        total = int(reps.sum())
        check_fits(
            f"{api}():",
            f"the {total} output positions the kernel {kernel} reaches",
            8 * total * (coords.shape[1] + 2),
        )
        new_rows = np.repeat(rows, reps)
        j = np.arange(total) - np.repeat(np.cumsum(reps) - reps, reps)
        cols = [c[np.repeat(np.arange(len(rows)), reps)] for c in cols]
        cols.append(flat[first[new_rows] + j][:, None])
        rows = new_rows
    out = np.concatenate(cols, axis=1)
    return np.unique(out, axis=0) if len(out) else out


def _pair_count(api, coords, out_spatial, kernel, stride, pad_before, dilation):
    """How many (input, kernel offset) pairs take an input at coords to an output in range:
    per input, the product of its output counts per dimension (_axis_reach), as the offset
    along one dimension determines the output along it."""
    counts = []
    for d, (n_out, k, s, dil) in enumerate(zip(out_spatial, kernel, stride, dilation)):
        reach = _axis_reach(api, d, coords[:, 1 + d] + pad_before[d], n_out, k, s, dil)
        if reach is None:
            return 0
        counts.append(reach[1].sum(1))
    # exact even where the products pass int64 (a huge kernel): those are then refused
    bound = len(coords) * math.prod(int(c.max(initial=0)) for c in counts)
    per_input = np.ones(len(coords), dtype=np.int64 if bound < 2**63 else object)
    for c in counts:
        per_input = per_input * c.astype(per_input.dtype)
    return int(per_input.sum())


def _rulebook(
    x, n, kernel, stride, pad_before, pad_after, dilation, subm, with_pairs=True, api="conv3d"
):
    idx = np.asarray(_C.sparse_indices(x))
    return RuleBook(
        idx,
        list(x.shape[1 : 1 + n]),
        kernel,
        stride,
        pad_before,
        pad_after,
        dilation,
        subm,
        with_pairs,
        api,
    )


def _sparse_out(book, x, values, channels):
    shape = [x.shape[0]] + book.out_spatial + [channels]
    indices = to_tensor(np.ascontiguousarray(book.out_coords.T), dtype="int64")
    return _C.sparse_coo_tensor(indices, values, shape)


def _conv(api, n, x, weight, bias, stride, padding, dilation, groups, data_format, subm):
    _check_input(api, x, n, data_format, "NDHWC" if n == 3 else "NHWC")
    check_tensor(api, "weight", weight)
    if groups != 1:
        raise ValueError(f"{api}(): only groups=1 is supported, got {groups}")
    if weight.ndim != n + 2 or weight.shape[n] != x.shape[-1]:
        raise ValueError(
            f"{api}(): weight must be [{', '.join(['k'] * n)}, in_channels "
            f"({x.shape[-1]}), out_channels], got shape {list(weight.shape)}"
        )
    kernel = list(weight.shape[:n])
    stride = _ints(api, "stride", stride, n)
    dilation = _ints(api, "dilation", dilation, n)
    before, after = _padding(api, padding, n)
    if subm and stride != [1] * n:
        raise ValueError(
            f"{api}(): a submanifold convolution keeps the positions, so its "
            f"stride must be 1, got {stride}"
        )
    if min(stride + dilation) < 1 or min(before + after) < 0:
        raise ValueError(f"{api}(): stride and dilation must be positive and padding non-negative")
    if not x.is_coalesced():  # one entry per position
        x = _C.sparse_coalesce(x)
    c_in, c_out = weight.shape[n], weight.shape[n + 1]
    # no input channels: every value is 0 (and the bias), no pairs are needed
    book = _rulebook(
        x, n, kernel, stride, before, after, dilation, subm, c_in > 0 and c_out > 0, api
    )
    xv = _C.sparse_values(x)
    # reshape_exact: _C.reshape would read the 0 of c_out = 0 as "keep that dim"
    w = C.reshape_exact(weight, [math.prod(kernel), c_in, c_out])
    out = _C.full([len(book.out_coords), c_out], 0.0, xv.dtype)
    for k, pair in enumerate(book.pairs):
        if pair is None:
            continue
        rows = to_tensor(pair[0], dtype="int64")
        dest = to_tensor(pair[1], dtype="int64")
        out = _C.index_add(out, dest, 0, _C.matmul(_C.index_select(xv, rows, 0), w[k]))
    if bias is not None:
        check_tensor(api, "bias", bias)
        out = out + bias
    return _sparse_out(book, x, out, c_out)


def conv3d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: str | int | Sequence[int] = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """3-D convolution of a sparse COO tensor [N, D, H, W, C]: an output entry
    wherever the kernel meets an input entry.

    Args:
        x (Tensor): a sparse COO tensor [N, D, H, W, C] with 4 sparse dimensions.
        weight (Tensor): the kernel [kD, kH, kW, C, C_out].
        bias (Tensor, optional): [C_out], added to every output entry.
        stride (int|list, optional): the stride per spatial dimension. Default: 1.
        padding (int|list, optional): zeros added per side (3 ints, or 6 as
            (before, after) pairs). Default: 0.
        dilation (int|list, optional): the kernel's dilation. Default: 1.
        groups (int, optional): must be 1.
        data_format (str, optional): "NDHWC" (the only one).
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse COO tensor [N, D', H', W', C_out].

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 3]],
        ...                                  [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> oar.sparse.nn.functional.conv3d(x, oar.ones([1, 3, 3, 1, 1])).shape
        oar.Size([1, 1, 1, 2, 1])
    """
    return _conv(
        "conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format, False
    )


def subm_conv3d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: str | int | Sequence[int] = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NDHWC",
    key: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Submanifold 3-D convolution: the output keeps the positions (and shape) of x,
    each computed from the inputs around it (the kernel centred, k // 2).

    Args:
        x (Tensor): a sparse COO tensor [N, D, H, W, C] with 4 sparse dimensions.
        weight (Tensor): the kernel [kD, kH, kW, C, C_out].
        bias (Tensor, optional): [C_out], added to every output entry.
        stride (int|list, optional): must be 1.
        padding (int|list, optional): unused by the submanifold rule (Paddle's argument).
        dilation (int|list, optional): the kernel's dilation. Default: 1.
        groups (int, optional): must be 1.
        data_format (str, optional): "NDHWC" (the only one).
        key (str, optional): unused (Paddle caches rule books under it).
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse COO tensor with x's positions and C_out channels.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 3]],
        ...                                  [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> oar.sparse.nn.functional.subm_conv3d(x, oar.ones([1, 3, 3, 1, 1])).shape
        oar.Size([1, 1, 3, 4, 1])
    """
    return _conv(
        "subm_conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format, True
    )


def conv2d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: str | int | Sequence[int] = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """2-D convolution of a sparse COO tensor [N, H, W, C] (conv3d's rules).

    Args:
        x (Tensor): a sparse COO tensor [N, H, W, C] with 3 sparse dimensions.
        weight (Tensor): the kernel [kH, kW, C, C_out].
        bias (Tensor, optional): [C_out], added to every output entry.
        stride (int|list, optional): the stride per spatial dimension. Default: 1.
        padding (int|list, optional): zeros added per side. Default: 0.
        dilation (int|list, optional): the kernel's dilation. Default: 1.
        groups (int, optional): must be 1.
        data_format (str, optional): "NHWC" (the only one).
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse COO tensor [N, H', W', C_out].

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 3]], [[1.], [2.]], [1, 3, 4, 1])
        >>> oar.sparse.nn.functional.conv2d(x, oar.ones([3, 3, 1, 1])).shape
        oar.Size([1, 1, 2, 1])
    """
    return _conv(
        "conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format, False
    )


def subm_conv2d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntsLike = 1,
    padding: str | int | Sequence[int] = 0,
    dilation: IntsLike = 1,
    groups: int = 1,
    data_format: str = "NHWC",
    key: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Submanifold 2-D convolution (subm_conv3d's rules).

    Args:
        x (Tensor): a sparse COO tensor [N, H, W, C] with 3 sparse dimensions.
        weight (Tensor): the kernel [kH, kW, C, C_out].
        bias (Tensor, optional): [C_out], added to every output entry.
        stride (int|list, optional): must be 1.
        padding (int|list, optional): unused by the submanifold rule (Paddle's argument).
        dilation (int|list, optional): the kernel's dilation. Default: 1.
        groups (int, optional): must be 1.
        data_format (str, optional): "NHWC" (the only one).
        key (str, optional): unused (Paddle caches rule books under it).
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse COO tensor with x's positions and C_out channels.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 3]], [[1.], [2.]], [1, 3, 4, 1])
        >>> oar.sparse.nn.functional.subm_conv2d(x, oar.ones([3, 3, 1, 1])).shape
        oar.Size([1, 3, 4, 1])
    """
    return _conv(
        "subm_conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format, True
    )


def max_pool3d(
    x: Tensor,
    kernel_size: IntsLike,
    stride: IntsLike | None = None,
    padding: str | int | Sequence[int] = 0,
    ceil_mode: bool = False,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """3-D max pooling of a sparse COO tensor [N, D, H, W, C]: each output entry (where
    the window meets an input entry) is the channel-wise maximum of the input
    entries in its window.

    Args:
        x (Tensor): a sparse COO tensor [N, D, H, W, C] with 4 sparse dimensions.
        kernel_size (int|list): the window per spatial dimension.
        stride (int|list, optional): the stride (default: kernel_size).
        padding (int|list, optional): zeros added per side. Default: 0.
        ceil_mode (bool, optional): must be False.
        data_format (str, optional): "NDHWC" (the only one).
        name (str, optional): unused (Paddle's argument).

    Returns:
        Tensor: a sparse COO tensor [N, D', H', W', C].

    Examples:
        >>> import oar
        >>> x = oar.randn([1, 4, 4, 4, 3]).to_sparse_coo(4)
        >>> oar.sparse.nn.functional.max_pool3d(x, 3, stride=1).shape
        oar.Size([1, 2, 2, 2, 3])
    """
    api = "max_pool3d"
    _check_input(api, x, 3, data_format, "NDHWC")
    if ceil_mode:
        raise ValueError(f"{api}(): ceil_mode=True is not supported")
    kernel = _ints(api, "kernel_size", kernel_size, 3)
    stride = kernel if stride is None else _ints(api, "stride", stride, 3)
    before, after = _padding(api, padding, 3)
    if min(kernel + stride) < 1 or min(before + after) < 0:
        raise ValueError(f"{api}(): kernel_size and stride must be positive, padding non-negative")
    if not x.is_coalesced():
        x = _C.sparse_coalesce(x)
    c = x.shape[-1]
    book = _rulebook(x, 3, kernel, stride, before, after, [1, 1, 1], False, c > 0, api)
    kvol, n_out = math.prod(kernel), len(book.out_coords)
    xv = _C.sparse_values(x)
    if c == 0:  # no values to take the maximum of (nor [n_out * kvol] slots to build)
        return _sparse_out(book, x, _C.full([n_out, 0], 0.0, xv.dtype), c)
    # Each (output, offset) slot holds at most one input; empty slots are -inf.
    rows, slots = [], []
    for k, pair in enumerate(book.pairs):
        if pair is not None:
            rows.append(pair[0])
            slots.append(pair[1] * kvol + k)
    rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    slots = np.concatenate(slots) if slots else np.zeros(0, np.int64)
    empty = np.full([n_out * kvol, 1], -np.inf)
    empty[slots] = 0.0
    buf = _C.full([n_out * kvol, c], 0.0, xv.dtype)
    buf = _C.index_add(
        buf,
        to_tensor(slots, dtype="int64"),
        0,
        _C.index_select(xv, to_tensor(rows, dtype="int64"), 0),
    )
    buf = buf + _C.cast(to_tensor(empty), xv.dtype)
    out = _C.max(_C.reshape(buf, [n_out, kvol, c]), [1])
    return _sparse_out(book, x, out, c)
