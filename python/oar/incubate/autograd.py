"""oar.incubate.autograd: Jacobian and Hessian objects evaluated lazily row by row, and
the Jacobian-vector and vector-Jacobian products jvp and vjp (Paddle's
paddle.incubate.autograd, eager mode); grad, forward_grad and the prim flag
(enable_prim, disable_prim, prim_enabled) come from _prim.py.

Every result is computed with create_graph=True, so it can be differentiated again
(Hessian is the Jacobian of the gradient)."""

from __future__ import annotations

from typing import Callable, Sequence, Union

from .. import _C
from ..tensor.creation import ones_like, zeros_like
from ..tensor.creation import clone
from ..tensor.manipulation import stack
from ._prim import disable_prim, enable_prim, forward_grad, grad, prim_enabled  # noqa: F401

Tensor = _C.Tensor

_Tensors = Union[Tensor, Sequence[Tensor]]

__all__ = [
    "vjp",
    "jvp",
    "Jacobian",
    "Hessian",
    "enable_prim",
    "disable_prim",
    "forward_grad",
    "grad",
]


def _is_seq(v):
    return isinstance(v, (list, tuple))


def _check_tensors(who, arg, v, optional=False):
    if v is None and optional:
        return
    if isinstance(v, Tensor):
        return
    if _is_seq(v) and all(isinstance(t, Tensor) for t in v):
        return
    raise TypeError(
        f"{who}: argument '{arg}' must be a Tensor or a sequence of Tensors"
        f"{' or None' if optional else ''}, got {type(v).__name__}"
    )


def _separate(xs):
    """Inputs the computation can differentiate with respect to, without touching the
    caller's graph: a copy of a tensor that needs grad, a detached alias otherwise."""
    if xs is None:
        return None
    if _is_seq(xs):
        return tuple(_separate(x) for x in xs)
    if not xs.stop_gradient:
        return clone(xs)
    x = xs.detach()
    x.stop_gradient = False
    return x


def _as_tuple(v):
    return tuple(v) if _is_seq(v) else (v,)


def _grad(ys, xs, v=None):
    """d(ys)/d(xs) contracted with v (ones by default), create_graph=True; an input the
    outputs do not depend on gets zeros. Mirrors the structure of xs."""
    ys_t, xs_t = _as_tuple(ys), _as_tuple(xs)
    vs = None if v is None else list(_as_tuple(v))
    gs = _C.grad(list(ys_t), list(xs_t), vs, True, True, True, True, None)
    out = tuple(zeros_like(x) if g is None else g for g, x in zip(gs, xs_t))
    return out if _is_seq(xs) else out[0]


def _check_shapes(who, v, refs, what):
    if v is None:
        return
    v_t, r_t = _as_tuple(v), _as_tuple(refs)
    if len(v_t) != len(r_t):
        raise ValueError(
            f"{who}: argument 'v' has {len(v_t)} tensors, expected {len(r_t)} (one per {what})"
        )
    for i, (a, b) in enumerate(zip(v_t, r_t)):
        if list(a.shape) != list(b.shape):
            raise ValueError(
                f"{who}: v[{i}] has shape {list(a.shape)}, expected the shape "
                f"{list(b.shape)} of {what} {i}"
            )


def _call(func, xs):
    return func(*xs) if _is_seq(xs) else func(xs)


def _prepare(who, func, xs, v):
    """Checked, separated inputs and v, and func's outputs."""
    if not callable(func):
        raise TypeError(f"{who}: argument 'func' must be callable, got {type(func).__name__}")
    _check_tensors(who, "xs", xs)
    _check_tensors(who, "v", v, optional=True)
    xs, v = _separate(xs), _separate(v)
    return xs, v, _call(func, xs)


def vjp(
    func: Callable[..., _Tensors], xs: _Tensors, v: _Tensors | None = None
) -> tuple[_Tensors, Tensor | tuple[Tensor, ...]]:
    """(func(xs), v^T J): the vector-Jacobian product of func at xs with v (shaped like
    func's outputs; ones by default). Shaped like xs."""
    xs, v, ys = _prepare("vjp", func, xs, v)
    _check_shapes("vjp", v, ys, "output")
    return ys, _grad(ys, xs, v)


def jvp(
    func: Callable[..., _Tensors], xs: _Tensors, v: _Tensors | None = None
) -> tuple[_Tensors, Tensor | tuple[Tensor, ...]]:
    """(func(xs), J v): the Jacobian-vector product of func at xs with v (shaped like xs;
    ones by default), by the double-backward trick: J v = d/du (u^T J v) of the
    vector-Jacobian product at a dummy u. Shaped like func's outputs."""
    xs, v, ys = _prepare("jvp", func, xs, v)
    _check_shapes("jvp", v, xs, "input")
    if v is None:
        v = tuple(ones_like(x) for x in xs) if _is_seq(xs) else ones_like(xs)
    dummy = tuple(zeros_like(y) for y in _as_tuple(ys))
    for u in dummy:
        u.stop_gradient = False
    u = dummy if _is_seq(ys) else dummy[0]
    gx = _grad(ys, xs, u)
    return ys, _grad(gx, u, v)


def _flat(ts, batched):
    parts = [t.reshape([t.shape[0], -1]) if batched else t.reshape([-1]) for t in ts]
    return _C.concat(parts, 1 if batched else 0)


def _normalize_index(index, shape):
    index = index if isinstance(index, tuple) else (index,)
    if any(i is Ellipsis for i in index):
        raise IndexError("Jacobian: Ellipsis indices are not supported")
    if len(index) > len(shape):
        raise IndexError(
            f"Jacobian: too many indices ({len(index)}) for a Jacobian of shape {list(shape)}"
        )
    index = index + (slice(None),) * (len(shape) - len(index))
    out = []
    for i, (k, n) in enumerate(zip(index, shape)):
        if isinstance(k, slice):
            out.append(slice(*k.indices(n)))
        elif isinstance(k, int) and not isinstance(k, bool):
            if not -n <= k < n:
                raise IndexError(f"Jacobian: index {k} is out of range for axis {i} of size {n}")
            out.append(k + n if k < 0 else k)
        else:
            raise TypeError(f"Jacobian: indices must be ints or slices, got {type(k).__name__}")
    return tuple(out)


class Jacobian:
    """The Jacobian of func at xs as a lazily evaluated matrix: J[i, j] = d y_i / d x_j with
    y all outputs flattened and concatenated, x likewise all inputs: shape [M, N]; with
    is_batched, func maps [B, ...] to [B, ...] sample by sample and J is [B, M, N]. Rows
    are computed (one backward pass each) when indexed, and cached: J[:] is the matrix,
    J[0, :] one row, J[:, 0] one column (every row)."""

    def __init__(self, func, xs, is_batched=False):
        if not callable(func):
            raise TypeError(
                f"Jacobian: argument 'func' must be callable, got {type(func).__name__}"
            )
        _check_tensors("Jacobian", "xs", xs)
        self._xs = _separate(xs)
        self._batched = bool(is_batched)
        ys = _call(func, self._xs)
        _check_tensors("Jacobian", "func(xs)", ys)
        if self._batched:
            for t in _as_tuple(ys) + _as_tuple(self._xs):
                if t.ndim < 1:
                    raise ValueError(
                        "Jacobian: with is_batched=True every input and output "
                        "needs a leading batch axis"
                    )
        self._ys = ys
        self._flat_xs = _flat(_as_tuple(self._xs), self._batched)
        self._flat_ys = _flat(_as_tuple(ys), self._batched)
        self._rows = {}

    @property
    def shape(self):
        """[M, N], or [B, M, N] when batched."""
        if self._batched:
            return [self._flat_xs.shape[0], self._flat_ys.shape[1], self._flat_xs.shape[1]]
        return [self._flat_ys.shape[0], self._flat_xs.shape[0]]

    def _row(self, i):
        r = self._rows.get(i)
        if r is None:
            y = self._flat_ys[:, i] if self._batched else self._flat_ys[i]
            r = self._rows[i] = _flat(_as_tuple(_grad(y, self._xs)), self._batched)
        return r

    def __getitem__(self, index):
        axis = 1 if self._batched else 0  # the axis of the output components
        index = _normalize_index(index, self.shape)
        k = index[axis]
        rows = [k] if isinstance(k, int) else list(range(k.start, k.stop, k.step))
        if not rows:
            raise IndexError("Jacobian: the index selects no rows")
        block = stack([self._row(i) for i in rows], axis)
        rest = list(index)
        rest[axis] = 0 if isinstance(k, int) else slice(None)
        return block[tuple(rest)]


class Hessian:
    """The Hessian of a function with one output element (one per sample when
    is_batched) at xs: the Jacobian of its gradient, [N, N] (or [B, N, N]), evaluated
    lazily by rows as Jacobian."""

    def __init__(self, func, xs, is_batched=False):
        if not callable(func):
            raise TypeError(f"Hessian: argument 'func' must be callable, got {type(func).__name__}")

        def gradient(*inputs):
            jac = Jacobian(func, inputs, is_batched=is_batched)
            if jac.shape[1 if is_batched else 0] != 1:
                raise ValueError(
                    "Hessian: func must return one element (one per sample with is_batched=True)"
                )
            return jac[:, 0, :] if is_batched else jac[0, :]

        self.symbolic = Jacobian(gradient, xs, is_batched=is_batched)

    @property
    def shape(self):
        return self.symbolic.shape

    def __getitem__(self, index):
        return self.symbolic[index]
