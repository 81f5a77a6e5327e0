"""Shape manipulation and small linear-algebra ops composed of declared ops, with Paddle's
names, signatures and defaults: every one is differentiable to any order because it is
built from differentiable ops (reshape, expand, transpose, slice, concat, matmul, sum,
diagonal, index_select). The ops with kernels of their own (flip, roll, tril, triu,
diagonal, diag_embed, tensor_unfold, pad) are declared in src/oar/ops/shape.yaml."""
import numbers

import numpy as np

from . import _C
from .framework import check as C
from .framework.memory import check_fits, check_objects
from ._ops import flatten, split, t

Tensor = _C.Tensor

__all__ = ["unflatten", "chunk", "unstack", "tile", "repeat_interleave", "rot90", "expand_as",
           "broadcast_to", "broadcast_tensors", "diag", "trace", "meshgrid", "einsum", "bmm",
           "outer", "kron", "cross", "dot", "moveaxis", "unfold"]


# --- argument helpers ----------------------------------------------------------------------

def _int_list(api, name, v, allow_int=True):
    """A list of Python ints from an int, a list/tuple of ints or a 1-D integer Tensor."""
    if isinstance(v, Tensor):
        if v.dtype.is_floating_point or v.dtype.name == "bool" or v.ndim > 1:
            raise TypeError(f"{api}(): argument '{name}' must be a 1-D integer Tensor, but got a "
                            f"{v.dtype.name} Tensor of shape {v.shape}")
        return [int(i) for i in v.numpy().reshape(-1)]
    if allow_int and isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return [int(v)]
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{api}(): argument '{name}' must be a list or tuple of int, but got "
                        f"{C._kind(v)}")
    return [C.integer(api, f"{name}[{i}]", e) for i, e in enumerate(v)]


def _tensor_list(api, name, v):
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{api}(): argument '{name}' must be a list or tuple of Tensors, but got "
                        f"{C._kind(v)}")
    return [C.tensor(api, f"{name}[{i}]", e) for i, e in enumerate(v)]


def _broadcast_shape(api, shapes, names):
    out = []
    for shape, nm in zip(shapes, names):
        shape = list(shape)
        n = max(len(out), len(shape))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(shape)) + shape
        res = []
        for i, (p, q) in enumerate(zip(a, b)):
            if p != q and p != 1 and q != 1:
                raise ValueError(f"{api}(): the shape {shape} of {nm} cannot be broadcast with "
                                 f"{out} (dimension {i}: {q} against {p})")
            res.append(q if p == 1 else p)
        out = res
    return out


def _sum(x, axes, keepdim=False):
    """sum over `axes` (none: x itself; _C.sum reads an empty list as 'all axes')."""
    return _C.sum(x, list(axes), None, keepdim) if axes else x


# --- splitting and joining -----------------------------------------------------------------

def unflatten(x, axis, shape, name=None):
    """Splits dimension axis of x into `shape` (one entry may be -1: inferred)."""
    C.tensor("unflatten", "x", x)
    if x.ndim == 0:
        raise ValueError("unflatten(): argument 'x' must have at least 1 dimension, but it is 0-D")
    a = C.axis("unflatten", "axis", axis, x.ndim)
    sizes = _int_list("unflatten", "shape", shape, allow_int=False)
    if not sizes:
        raise ValueError("unflatten(): argument 'shape' must not be empty")
    n = x.shape[a]
    if sizes.count(-1) > 1:
        raise ValueError(f"unflatten(): argument 'shape' {sizes} may hold at most one -1")
    if any(s < -1 for s in sizes):
        raise ValueError(f"unflatten(): argument 'shape' {sizes} has a negative size")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if known == 0 or n % known:
            raise ValueError(f"unflatten(): argument 'shape' {sizes} cannot split dimension {a} "
                             f"of size {n}")
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise ValueError(f"unflatten(): argument 'shape' {sizes} has {known} elements but "
                         f"dimension {a} has size {n}")
    return C.reshape_exact(x, x.shape[:a] + sizes + x.shape[a + 1:])


def chunk(x, chunks, axis=0, name=None):
    """Splits x into `chunks` equal parts along axis (Paddle: the size must divide evenly)."""
    C.tensor("chunk", "x", x)
    n = C.integer("chunk", "chunks", chunks)
    if n <= 0:
        raise ValueError(f"chunk(): argument 'chunks' must be a positive int, but got {n}")
    if x.ndim == 0:
        raise ValueError("chunk(): argument 'x' must have at least 1 dimension, but it is 0-D")
    a = C.axis("chunk", "axis", axis, x.ndim)
    if x.shape[a] % n:
        raise ValueError(f"chunk(): dimension {a} of size {x.shape[a]} cannot be split into {n} "
                         f"equal chunks")
    return split(x, n, a)


def unstack(x, axis=0, num=None, name=None):
    """The slices of x along axis, each without that axis."""
    return _unstack("unstack", "x", x, axis, num)


def _unstack(api, xname, x, axis, num):
    """unstack and unbind, with errors naming the function called."""
    C.tensor(api, xname, x)
    if x.ndim == 0:
        raise ValueError(f"{api}(): argument '{xname}' must have at least 1 dimension, but it "
                         f"is 0-D")
    a = C.axis(api, "axis", axis, x.ndim)
    n = x.shape[a]
    if num is not None and C.integer(api, "num", num) != n:
        raise ValueError(f"{api}(): argument 'num' ({num}) must equal the size {n} of "
                         f"dimension {a}")
    # A dimension next to a 0 ([2**62, 0]) can be any size; each slice is a tensor object.
    check_objects(api, "slices", n)
    return [_C.squeeze(_C.slice(x, [a], [i], [i + 1]), [a]) for i in range(n)]


# --- repetition ----------------------------------------------------------------------------

def tile(x, repeat_times, name=None):
    """x repeated repeat_times[i] times along dimension i (missing leading entries are 1)."""
    C.tensor("tile", "x", x)
    reps = _int_list("tile", "repeat_times", repeat_times, allow_int=False)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile(): argument 'repeat_times' {reps} must not be negative")
    d = max(len(reps), x.ndim)
    reps = [1] * (d - len(reps)) + reps
    shape = [1] * (d - x.ndim) + list(x.shape)
    # [s0, s1, ..] -> [1, s0, 1, s1, ..] -> expand to [r0, s0, r1, s1, ..] -> merge pairs.
    y = C.reshape_exact(x, [v for s in shape for v in (1, s)])
    y = _C.expand(y, [v for r, s in zip(reps, shape) for v in (r, s)])
    return C.reshape_exact(y, [r * s for r, s in zip(reps, shape)])


def repeat_interleave(x, repeats, axis=None, name=None):
    """Each element (or slice along axis) of x repeated `repeats` times in place."""
    C.tensor("repeat_interleave", "x", x)
    if axis is None:
        x = flatten(x)
        a = 0
    else:
        if x.ndim == 0:
            x = _C.reshape(x, [1])
        a = C.axis("repeat_interleave", "axis", axis, x.ndim)
    n = x.shape[a]
    if isinstance(repeats, Tensor) and repeats.size != 1:
        reps = _int_list("repeat_interleave", "repeats", repeats)
        if len(reps) != n:
            raise ValueError(f"repeat_interleave(): argument 'repeats' has {len(reps)} entries "
                             f"but dimension {a} has size {n}")
        if any(r < 0 for r in reps):
            raise ValueError(f"repeat_interleave(): argument 'repeats' {reps} must not be "
                             f"negative")
        total = sum(reps)
        if total > _INT64_MAX:
            raise ValueError(f"repeat_interleave(): argument 'repeats' adds up to {total}, "
                             f"more than a dimension can hold (int64 max {_INT64_MAX})")
        shape = list(x.shape)
        shape[a] = total
        if x.size == 0:
            return _C.full(shape, 0, x.dtype)
        # The index of every repeated slice is built before the gather.
        check_fits("repeat_interleave():", f"argument 'repeats' asks for {total} slices, "
                   f"which", total * 8 + _prod(shape) * x.dtype.itemsize)
        index = np.repeat(np.arange(n, dtype=np.int64), reps)
        return _C.index_select(x, _index_tensor(index), a)
    r = C.integer("repeat_interleave", "repeats", repeats)
    if r < 0:
        raise ValueError(f"repeat_interleave(): argument 'repeats' must not be negative, but "
                         f"got {r}")
    shape = list(x.shape)
    y = _C.unsqueeze(x, [a + 1])
    y = _C.expand(y, shape[:a + 1] + [r] + shape[a + 1:])
    return C.reshape_exact(y, shape[:a] + [n * r] + shape[a + 1:])


_INT64_MAX = (1 << 63) - 1


def _index_tensor(values):
    from ._creation import to_tensor
    return to_tensor(values, dtype="int64")


# --- reordering ----------------------------------------------------------------------------

def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006 - Paddle's default
    """x rotated by 90 degrees k times in the plane of axes (from axes[0] towards axes[1])."""
    C.tensor("rot90", "x", x)
    ax = _int_list("rot90", "axes", axes, allow_int=False)
    if len(ax) != 2:
        raise ValueError(f"rot90(): argument 'axes' must hold 2 axes, but got {ax}")
    if x.ndim < 2:
        raise ValueError(f"rot90(): argument 'x' must have at least 2 dimensions, but has shape "
                         f"{x.shape}")
    a0 = C.axis("rot90", "axes[0]", ax[0], x.ndim)
    a1 = C.axis("rot90", "axes[1]", ax[1], x.ndim)
    if a0 == a1:
        raise ValueError(f"rot90(): argument 'axes' {ax} names the same axis twice")
    k = C.integer("rot90", "k", k) % 4
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = a1, a0
    if k == 0:
        return _C.assign(x)
    if k == 2:
        return _C.flip(x, [a0, a1])
    if k == 1:
        return _C.transpose(_C.flip(x, [a1]), perm)
    return _C.transpose(_C.flip(x, [a0]), perm)


def moveaxis(x, source, destination, name=None):
    """x with its axes `source` moved to the positions `destination` (a view)."""
    C.tensor("moveaxis", "x", x)
    src = _int_list("moveaxis", "source", source)
    dst = _int_list("moveaxis", "destination", destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis(): arguments 'source' {src} and 'destination' {dst} must "
                         f"have the same length")
    nd = x.ndim
    src = [C.axis("moveaxis", "source", s, nd) for s in src]
    dst = [C.axis("moveaxis", "destination", d, nd) for d in dst]
    if len(set(src)) != len(src):
        raise ValueError(f"moveaxis(): argument 'source' {source} repeats an axis")
    if len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis(): argument 'destination' {destination} repeats an axis")
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(a for a in range(nd) if a not in src)
    perm = [p if p >= 0 else next(rest) for p in perm]
    return _C.transpose(x, perm)


# --- broadcasting --------------------------------------------------------------------------

def broadcast_to(x, shape, name=None):
    """x broadcast to shape (a view with zero strides)."""
    C.tensor("broadcast_to", "x", x)
    target = _int_list("broadcast_to", "shape", shape, allow_int=False)
    if len(target) < x.ndim:
        raise ValueError(f"broadcast_to(): argument 'shape' {target} has fewer dimensions than "
                         f"x {x.shape}")
    lead = len(target) - x.ndim
    for i, s in enumerate(x.shape):
        t_ = target[lead + i]
        if t_ != -1 and s != 1 and s != t_:
            raise ValueError(f"broadcast_to(): x of shape {x.shape} cannot be broadcast to "
                             f"{target} (dimension {lead + i}: {s} against {t_})")
    return _C.expand(x, target)


def expand_as(x, y, name=None):
    """x broadcast to y's shape (a view with zero strides)."""
    C.tensor("expand_as", "x", x)
    C.tensor("expand_as", "y", y)
    try:
        return broadcast_to(x, y.shape)
    except ValueError as e:
        raise ValueError(str(e).replace("broadcast_to():", "expand_as():", 1)
                         .replace("argument 'shape'", "y's shape")) from None


def broadcast_tensors(input, name=None):  # noqa: A002 - Paddle's name
    """The tensors broadcast against each other to one shape (views)."""
    xs = _tensor_list("broadcast_tensors", "input", input)
    shape = _broadcast_shape("broadcast_tensors", [x.shape for x in xs],
                             [f"input[{i}]" for i in range(len(xs))])
    return [_C.expand(x, shape) for x in xs]


def meshgrid(*args, **kwargs):
    """Coordinate grids of the 1-D tensors ('ij' indexing): out[i] varies along dimension i."""
    name = kwargs.pop("name", None)  # noqa: F841 - Paddle's argument, unused
    if kwargs:
        raise TypeError(f"meshgrid(): unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    xs = _tensor_list("meshgrid", "args", list(args))
    for i, v in enumerate(xs):
        if v.ndim > 1:
            raise ValueError(f"meshgrid(): argument 'args[{i}]' must be 0-D or 1-D, but has shape "
                             f"{v.shape}")
    shape = [v.size for v in xs]
    out = []
    for i, v in enumerate(xs):
        view = [1] * len(xs)
        view[i] = shape[i]
        out.append(_C.expand(C.reshape_exact(v, view), shape))
    return out


# --- diagonals -----------------------------------------------------------------------------

def diag(x, offset=0, padding_value=0, name=None):
    """1-D x: a square matrix with x on diagonal `offset`, padding_value elsewhere.
    2-D x: its diagonal `offset` (a copy)."""
    C.tensor("diag", "x", x)
    off = C.integer("diag", "offset", offset)
    pad = C.number("diag", "padding_value", padding_value)
    if x.ndim == 1:
        out = _C.diag_embed(x, off, 0, 1)
        if pad == 0:
            return out
        mask = _C.diag_embed(_C.full_like(x, True, "bool"), off, 0, 1)
        return _C.where(mask, out, _C.full_like(out, pad))
    if x.ndim == 2:
        return _C.assign(_C.diagonal(x, off, 0, 1))
    raise ValueError(f"diag(): argument 'x' must be 1-D or 2-D, but has shape {x.shape}")


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """The sum of diagonal `offset` of the planes (axis1, axis2) of x."""
    C.tensor("trace", "x", x)
    d = _renamed("trace", _C.diagonal, x, C.integer("trace", "offset", offset),
                 C.integer("trace", "axis1", axis1), C.integer("trace", "axis2", axis2))
    return _C.sum(d, [-1], _int32_kept(d), False)


def _int32_kept(x):
    """int32 for an int32 x, else None (sum's own dtype rule): Paddle's trace and dot keep
    int32, where its sum gives int64."""
    return x.dtype if x.dtype.name == "int32" else None


def _renamed(api, fn, *args):
    """fn(*args) with the op name in its error messages replaced by `api`."""
    try:
        return fn(*args)
    except (ValueError, IndexError, TypeError) as e:
        msg = str(e)
        head, sep, rest = msg.partition("(): ")
        if sep and head.isidentifier():
            msg = f"{api}(): {rest}"
        raise type(e)(msg) from None


# --- products ------------------------------------------------------------------------------

def bmm(x, y, name=None):
    """Batched matrix product of two 3-D tensors [b, n, k] @ [b, k, m]."""
    C.tensor("bmm", "x", x)
    C.tensor("bmm", "y", y)
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"bmm(): arguments 'x' and 'y' must be 3-D, but have shapes {x.shape} "
                         f"and {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"bmm(): the batch sizes of x {x.shape} and y {y.shape} differ")
    if x.shape[2] != y.shape[1]:
        raise ValueError(f"bmm(): x {x.shape} and y {y.shape} cannot be multiplied (x's last "
                         f"dimension must equal y's second)")
    return _C.matmul(x, y)


def outer(x, y, name=None):
    """The outer product of the flattened x and y: out[i, j] = x[i] * y[j]."""
    C.tensor("outer", "x", x)
    C.tensor("outer", "y", y)
    return _C.multiply(_C.reshape(flatten(x), [-1, 1]), _C.reshape(flatten(y), [1, -1]))


def kron(x, y, name=None):
    """The Kronecker product: blocks x[i..] * y (ranks aligned from the right)."""
    C.tensor("kron", "x", x)
    C.tensor("kron", "y", y)
    d = max(x.ndim, y.ndim)
    xs = [1] * (d - x.ndim) + list(x.shape)
    ys = [1] * (d - y.ndim) + list(y.shape)
    xv = C.reshape_exact(x, [v for s in xs for v in (s, 1)])
    yv = C.reshape_exact(y, [v for s in ys for v in (1, s)])
    return C.reshape_exact(_C.multiply(xv, yv), [a * b for a, b in zip(xs, ys)])


def cross(x, y, axis=9, name=None):
    """The cross product of 3-vectors along axis (default: the first axis of size 3)."""
    C.tensor("cross", "x", x)
    C.tensor("cross", "y", y)
    if list(x.shape) != list(y.shape):
        raise ValueError(f"cross(): x {x.shape} and y {y.shape} must have the same shape")
    if axis is None or axis == 9:
        sizes = [i for i, s in enumerate(x.shape) if s == 3]
        if not sizes:
            raise ValueError(f"cross(): x of shape {x.shape} has no dimension of size 3")
        a = sizes[0]
    else:
        a = C.axis("cross", "axis", axis, x.ndim)
        if x.shape[a] != 3:
            raise ValueError(f"cross(): dimension {a} of x {x.shape} must have size 3, but has "
                             f"{x.shape[a]}")

    def part(v, i):
        return _C.slice(v, [a], [i], [i + 1])

    x0, x1, x2 = (part(x, i) for i in range(3))
    y0, y1, y2 = (part(y, i) for i in range(3))
    mul, sub = _C.multiply, _C.subtract
    return _C.concat([sub(mul(x1, y2), mul(x2, y1)), sub(mul(x2, y0), mul(x0, y2)),
                      sub(mul(x0, y1), mul(x1, y0))], a)


def dot(x, y, name=None):
    """The dot product of 1-D x and y, or of each row of 2-D x and y."""
    C.tensor("dot", "x", x)
    C.tensor("dot", "y", y)
    if x.ndim not in (1, 2) or list(x.shape) != list(y.shape):
        raise ValueError(f"dot(): x and y must be 1-D or 2-D of the same shape, but have shapes "
                         f"{x.shape} and {y.shape}")
    xy = _C.multiply(x, y)
    return _C.sum(xy, [-1], _int32_kept(xy), False)


def unfold(x, axis, size, step, name=None):
    """The windows of `size` elements every `step` along axis, as a new last dim (a view)."""
    C.tensor("unfold", "x", x)
    return _renamed("unfold", _C.tensor_unfold, x, C.integer("unfold", "axis", axis),
                    C.integer("unfold", "size", size), C.integer("unfold", "step", step))


# --- einsum --------------------------------------------------------------------------------

def _parse_term(term, ndim, where):
    """A term's labels: letters, with '...' expanded to ints -1, -2, .. (right-aligned)."""
    if term.count("...") > 1 or "." in term.replace("...", ""):
        raise ValueError(f"einsum(): {where} '{term}' may hold at most one '...'")
    head, dots, tail = term.partition("...")
    for ch in head + tail:
        if not ch.isalpha() or not ch.isascii():
            raise ValueError(f"einsum(): {where} '{term}' has the invalid label '{ch}' (labels "
                             f"are ASCII letters)")
    n_letters = len(head) + len(tail)
    if ndim is None:
        return list(head), bool(dots), list(tail)
    if (not dots and n_letters != ndim) or (dots and n_letters > ndim):
        raise ValueError(f"einsum(): {where} '{term}' has {n_letters} labels but the operand has "
                         f"{ndim} dimensions")
    e = ndim - n_letters
    return list(head) + [-(e - i) for i in range(e)] + list(tail)


def einsum(equation, *operands):
    """Einstein summation: the labels of each operand, ',' between operands, '->' before the
    output's labels (implicit: the labels seen once, sorted), '...' for broadcast dims; a
    repeated label within an operand takes its diagonal. Lowered to diagonal, sum,
    transpose, reshape and matmul, so it is as fast and as differentiable as those."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, but got "
                        f"{C._kind(equation)}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ops = [C.tensor("einsum", f"operands[{i}]", v) for i, v in enumerate(operands)]
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise ValueError(f"einsum(): the equation '{equation}' has {len(terms)} operand terms but "
                         f"{len(ops)} operands were given")
    labels = [_parse_term(tm, v.ndim, f"term {i}") for i, (tm, v) in enumerate(zip(terms, ops))]
    ell = max([-min([lb for lb in ls if isinstance(lb, int)], default=0) for ls in labels],
              default=0)
    sizes = {}
    for i, (ls, v) in enumerate(zip(labels, ops)):
        for lb, s in zip(ls, v.shape):
            prev = sizes.get(lb, 1)
            if prev != s and prev != 1 and s != 1:
                what = f"'{lb}'" if isinstance(lb, str) else "'...'"
                raise ValueError(f"einsum(): label {what} has size {s} in operand {i} but {prev} "
                                 f"elsewhere")
            sizes[lb] = s if prev == 1 else prev  # a size-1 label broadcasts
    if arrow:
        head, dots, tail = _parse_term(rhs, None, "the output")
        for lb in head + tail:
            if lb not in sizes:
                raise ValueError(f"einsum(): output label '{lb}' does not appear in any operand")
        out_letters = head + tail
        if len(set(out_letters)) != len(out_letters):
            raise ValueError(f"einsum(): the output '{rhs}' repeats a label")
        out = head + ([-(ell - i) for i in range(ell)] if dots else []) + tail
    else:
        counts = {}
        for ls in labels:
            for lb in ls:
                if isinstance(lb, str):
                    counts[lb] = counts.get(lb, 0) + 1
        out = [-(ell - i) for i in range(ell)] + sorted(lb for lb, c in counts.items() if c == 1)

    # 1. Repeated labels within an operand: their diagonal.
    items = []
    for v, ls in zip(ops, labels):
        ls = list(ls)
        while True:
            dup = next((lb for lb in ls if ls.count(lb) > 1), None)
            if dup is None:
                break
            i = ls.index(dup)
            j = ls.index(dup, i + 1)
            v = _C.diagonal(v, 0, i, j)
            ls = [lb for k, lb in enumerate(ls) if k not in (i, j)] + [dup]
        items.append((v, ls))

    def needed(k):
        """Labels that the output or the operands after position k use."""
        keep = set(out)
        for _, ls in items[k + 1:]:
            keep.update(ls)
        return keep

    def reduce_unused(v, ls, keep):
        drop = [i for i, lb in enumerate(ls) if lb not in keep]
        return _sum(v, drop), [lb for lb in ls if lb in keep]

    # 2. Contract left to right, each pair as one (batched) matmul.
    acc, acc_ls = reduce_unused(*items[0], needed(0))
    for k in range(1, len(items)):
        keep = needed(k)
        v, ls = reduce_unused(*items[k], keep | set(acc_ls))
        acc, acc_ls = reduce_unused(acc, acc_ls, keep | set(ls))
        acc, acc_ls = _contract(acc, acc_ls, v, ls, keep)
    acc, acc_ls = reduce_unused(acc, acc_ls, set(out))
    # 3. The output order; labels of size 1 that broadcast stay size 1 unless expanded.
    perm = [acc_ls.index(lb) for lb in out]
    res = _C.transpose(acc, perm) if perm != list(range(len(perm))) else acc
    target = [sizes[lb] for lb in out]
    if list(res.shape) != target:
        res = _C.expand(res, target)
    return res


def _contract(a, la, b, lb, keep):
    """The product of a (labels la) and b (labels lb) summed over the shared labels not in
    keep: [batch, a-only, shared] @ [batch, shared, b-only] as one matmul."""
    batch = [x for x in la if x in lb and x in keep]
    summed = [x for x in la if x in lb and x not in keep]
    a_only = [x for x in la if x not in lb]
    b_only = [x for x in lb if x not in la]
    # A summed label of size 1 on one side only: sum the other side's (keepdim) first.
    for x in summed:
        sa, sb = a.shape[la.index(x)], b.shape[lb.index(x)]
        if sa != sb:
            if sa == 1:
                b = _C.sum(b, [lb.index(x)], None, True)
            else:
                a = _C.sum(a, [la.index(x)], None, True)
    floating = a.dtype.is_floating_point and b.dtype.is_floating_point
    if not floating or not summed or not (a_only or b_only):
        # Broadcast multiply (and sum): integer operands (matmul is for floating types),
        # nothing to sum (a matmul with k = 1 per batch element would be a loop of scalar
        # products), or nothing but batch dims besides the sum (a matvec of 1 x 1 results).
        allx = batch + a_only + b_only + summed
        av = _align(a, la, allx)
        bv = _align(b, lb, allx)
        prod = _C.multiply(av, bv)
        n = len(batch) + len(a_only) + len(b_only)
        return _sum(prod, list(range(n, len(allx)))), batch + a_only + b_only
    a = _C.transpose(a, [la.index(x) for x in batch + a_only + summed])
    b = _C.transpose(b, [lb.index(x) for x in batch + summed + b_only])
    nb = len(batch)
    bshape_a, bshape_b = list(a.shape[:nb]), list(b.shape[:nb])
    a_sizes = list(a.shape[nb:nb + len(a_only)])
    b_sizes = list(b.shape[nb + len(summed):])
    k = _prod(a.shape[nb + len(a_only):])
    am = C.reshape_exact(a, bshape_a + [_prod(a_sizes), k])
    bm = C.reshape_exact(b, bshape_b + [k, _prod(b_sizes)])
    prod = _C.matmul(am, bm)
    return (C.reshape_exact(prod, list(prod.shape[:nb]) + a_sizes + b_sizes),
            batch + a_only + b_only)


def _align(v, ls, order):
    """v transposed to `order`'s labels it has, with size-1 dims for the others."""
    have = [x for x in order if x in ls]
    v = _C.transpose(v, [ls.index(x) for x in have])
    return C.reshape_exact(v, [v.shape[have.index(x)] if x in ls else 1 for x in order])


def _prod(xs):
    p = 1
    for s in xs:
        p *= s
    return p


# --- Tensor methods (Paddle's) -------------------------------------------------------------

def _install_methods():
    methods = {"flatten": flatten, "unflatten": unflatten, "split": split, "chunk": chunk,
               "unstack": unstack, "tile": tile, "repeat_interleave": repeat_interleave,
               "rot90": rot90, "moveaxis": moveaxis, "broadcast_to": broadcast_to,
               "expand_as": expand_as, "diag": diag, "trace": trace, "bmm": bmm,
               "outer": outer, "kron": kron, "cross": cross, "dot": dot, "t": t,
               "unfold": unfold}
    for k, f in methods.items():
        if not hasattr(Tensor, k):
            setattr(Tensor, k, f)


_install_methods()
