"""BFGS and L-BFGS on a function of one 1-D Tensor (Nocedal & Wright, Algorithms 6.1
and 7.4), with the strong-Wolfe line search of oar.optimizer.LBFGS."""

from __future__ import annotations

from typing import Callable

from ....framework.check import is_int
from .... import _C
from ....tensor.creation import eye, to_tensor
from ....framework.grad_mode import enable_grad, no_grad
from ....autograd import grad as _grad
from ....optimizer.lbfgs import _dot, _strong_wolfe

Tensor = _C.Tensor


def _check(
    who,
    objective_func,
    initial_position,
    dtype,
    line_search_fn,
    max_iters,
    max_line_search_iters,
    initial_step_length,
):
    if not callable(objective_func):
        raise TypeError(
            f"{who}: argument 'objective_func' must be callable, got "
            f"{type(objective_func).__name__}"
        )
    if not isinstance(initial_position, Tensor) or initial_position.ndim != 1:
        raise ValueError(
            f"{who}: argument 'initial_position' must be a 1-D Tensor (flatten "
            f"a multi-dimensional one first), got "
            f"{getattr(initial_position, 'shape', type(initial_position).__name__)}"
        )
    if dtype not in ("float32", "float64"):
        raise ValueError(f"{who}: argument 'dtype' must be 'float32' or 'float64', got {dtype!r}")
    if line_search_fn != "strong_wolfe":
        raise ValueError(
            f"{who}: argument 'line_search_fn' must be 'strong_wolfe', got {line_search_fn!r}"
        )
    for arg, v in (("max_iters", max_iters), ("max_line_search_iters", max_line_search_iters)):
        if not is_int(v) or v < 1:
            raise ValueError(f"{who}: argument '{arg}' must be a positive int, got {v!r}")
    if not isinstance(initial_step_length, (int, float)) or initial_step_length <= 0:
        raise ValueError(
            f"{who}: argument 'initial_step_length' must be > 0, got {initial_step_length!r}"
        )


def _value_and_grad(f, x):
    """(f(x) as a 0-d Tensor, its gradient), x detached from any graph."""
    x = x.detach()
    x.stop_gradient = False
    with enable_grad():
        value = f(x)
        if not isinstance(value, Tensor) or value.size != 1:
            raise ValueError("objective_func must return a 1-element Tensor")
        (g,) = _grad([value], [x], allow_unused=True)
    if g is None:
        g = x.detach() * 0
    return value.detach().reshape([]), g.detach()


def _line_search(f, x, d, value, g, t0, max_ls):
    """The strong-Wolfe step along d: (t, value, gradient, evaluations)."""

    def evaluate(t):
        v, gv = _value_and_grad(f, x + d * t)
        holder["value"] = v
        return float(v.item()), gv

    holder = {"value": value}
    gtd = _dot(g, d)
    loss, g_new, t, evals = _strong_wolfe(
        evaluate, float(t0), d, float(value.item()), g, gtd, max_ls=max_ls
    )
    # the accepted step's value as a Tensor (re-evaluated only if the search ended elsewhere)
    if float(holder["value"].item()) != loss:
        holder["value"], g_new = _value_and_grad(f, x + d * t)
        evals += 1
    return t, holder["value"], g_new, evals


def _initial_estimate(who, h, n, dtype):
    if h is None:
        return None
    h = _C.cast(h.detach(), dtype)
    if list(h.shape) != [n, n]:
        raise ValueError(
            f"{who}: argument 'initial_inverse_hessian_estimate' must be "
            f"[{n}, {n}], got {list(h.shape)}"
        )
    return h


def _iterate(f, x, direction, update, max_iters, tolerance_grad, tolerance_change, t0, max_ls):
    """The quasi-Newton loop: step along direction(g) by the strong-Wolfe line search,
    then update(s, y) the inverse-Hessian model. Stops when the largest gradient entry
    is below tolerance_grad, the largest entry of the direction below tolerance_change,
    or the line search finds no step. Returns (converged, calls, x, value, gradient)."""
    value, g = _value_and_grad(f, x)
    calls = 1
    for _ in range(max_iters):
        d = direction(g)
        t, value, g_new, evals = _line_search(f, x, d, value, g, t0, max_ls)
        calls += evals
        s = d * t
        y = g_new - g
        x, g = x + s, g_new
        update(s, y, _dot(y, s))
        if (
            float(g.abs().max().item()) < tolerance_grad
            or float(d.abs().max().item()) < tolerance_change
        ):
            return True, calls, x, value, g
        if t == 0:
            break
    return False, calls, x, value, g


@no_grad()
def minimize_bfgs(
    objective_func: Callable[[Tensor], Tensor],
    initial_position: Tensor,
    max_iters: int = 50,
    tolerance_grad: float = 1e-7,
    tolerance_change: float = 1e-9,
    initial_inverse_hessian_estimate: Tensor | None = None,
    line_search_fn: str = "strong_wolfe",
    max_line_search_iters: int = 50,
    initial_step_length: float = 1.0,
    dtype: str = "float32",
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Minimizes objective_func(x) (x a 1-D Tensor) by BFGS: a full inverse-Hessian
    estimate H (identity by default) updated from each step s and gradient change y.
    Stops when the largest gradient entry is below tolerance_grad, the largest entry of
    the search direction below tolerance_change, the line search finds no step, or after
    max_iters.

    Returns (is_converge, num_func_calls, position, objective_value, objective_gradient,
    inverse_hessian_estimate)."""
    who = "minimize_bfgs"
    _check(
        who,
        objective_func,
        initial_position,
        dtype,
        line_search_fn,
        max_iters,
        max_line_search_iters,
        initial_step_length,
    )
    x = _C.cast(initial_position.detach(), dtype)
    n = x.shape[0]
    ident = eye(n, dtype=dtype)
    h = [_initial_estimate(who, initial_inverse_hessian_estimate, n, dtype)]
    if h[0] is None:
        h[0] = ident

    def update(s, y, ys):
        rho = 1.0 / ys if ys != 0 else 1000.0
        v = ident - rho * _C.matmul(y.reshape([n, 1]), s.reshape([1, n]))
        h[0] = _C.matmul(_C.matmul(v.t(), h[0]), v) + rho * _C.matmul(
            s.reshape([n, 1]), s.reshape([1, n])
        )

    converged, calls, x, value, g = _iterate(
        objective_func,
        x,
        lambda g: -_C.matmul(h[0], g),
        update,
        max_iters,
        tolerance_grad,
        tolerance_change,
        initial_step_length,
        max_line_search_iters,
    )
    return to_tensor(converged), to_tensor(calls), x, value, g, h[0]


@no_grad()
def minimize_lbfgs(
    objective_func: Callable[[Tensor], Tensor],
    initial_position: Tensor,
    history_size: int = 100,
    max_iters: int = 50,
    tolerance_grad: float = 1e-8,
    tolerance_change: float = 1e-8,
    initial_inverse_hessian_estimate: Tensor | None = None,
    line_search_fn: str = "strong_wolfe",
    max_line_search_iters: int = 50,
    initial_step_length: float = 1.0,
    dtype: str = "float32",
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Minimizes objective_func(x) (x a 1-D Tensor) by L-BFGS: the inverse Hessian is
    applied through the last history_size (s, y) pairs (the two-loop recursion) on top
    of the initial estimate (identity by default). Stopping rules as minimize_bfgs.

    Returns (is_converge, num_func_calls, position, objective_value, objective_gradient)."""
    who = "minimize_lbfgs"
    _check(
        who,
        objective_func,
        initial_position,
        dtype,
        line_search_fn,
        max_iters,
        max_line_search_iters,
        initial_step_length,
    )
    if not is_int(history_size) or history_size < 1:
        raise ValueError(
            f"{who}: argument 'history_size' must be a positive int, got {history_size!r}"
        )
    x = _C.cast(initial_position.detach(), dtype)
    h0 = _initial_estimate(who, initial_inverse_hessian_estimate, x.shape[0], dtype)
    pairs = []  # (s, y, 1 / y.s), oldest first

    def direction(g):
        q, alphas = g, []
        for s, y, rho in reversed(pairs):
            a = rho * _dot(s, q)
            alphas.append(a)
            q = q - y * a
        r = _C.matmul(h0, q) if h0 is not None else q
        for (s, y, rho), a in zip(pairs, reversed(alphas)):
            r = r + s * (a - rho * _dot(y, r))
        return -r

    def update(s, y, ys):
        if len(pairs) == history_size:
            pairs.pop(0)
        pairs.append((s, y, 1.0 / ys if ys != 0 else 1000.0))

    converged, calls, x, value, g = _iterate(
        objective_func,
        x,
        direction,
        update,
        max_iters,
        tolerance_grad,
        tolerance_change,
        initial_step_length,
        max_line_search_iters,
    )
    return to_tensor(converged), to_tensor(calls), x, value, g
