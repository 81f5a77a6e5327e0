"""oar.optimizer.LBFGS: limited-memory BFGS over all parameters as one flat vector,
with an optional strong-Wolfe line search (Paddle's paddle.optimizer.LBFGS, which
follows PyTorch's torch.optim.LBFGS step for step).

The work per iteration is a handful of vector operations on the flattened gradient
(the two-loop recursion over the history, dot products through matmul) and the
closure calls; the line search's bookkeeping is scalar Python. The line search is
the bracketing-and-zoom algorithm of Nocedal & Wright (Algorithms 3.5 and 3.6) with
cubic interpolation between the bracket's ends.
"""

from __future__ import annotations

from ..framework.check import is_int
from .. import _C
from ..tensor.creation import zeros_like
from ..framework.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_number

__all__ = ["LBFGS"]

Tensor = _C.Tensor


def _dot(a, b):
    return float(_C.matmul(a, b).item())


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2,
    clamped to bounds (default: the interval between x1 and x2); the middle of the
    bounds when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = disc**0.5
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, lo), hi)


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along d meeting the strong Wolfe conditions (sufficient decrease c1,
    curvature c2). evaluate(t) -> (loss, flat gradient) at x + t * d. Returns
    (loss, gradient, t, evaluations)."""
    d_norm = float(d.abs().max().item())
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    it = 0
    # bracketing: grow t until an interval is known to hold an acceptable step
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev) or gtd_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = [[t, f_new, g_new, gtd_new]]
            done = True
            break
        t_next = _cubic_min(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10)
        )
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = _dot(g_new, d)
        it += 1
    if it == max_ls:
        bracket = [[0.0, f, g, gtd], [t, f_new, g_new, gtd_new]]
    # zoom: shrink the bracket [low, high] (low: the lower loss) around the step
    low, high = (0, 1) if len(bracket) == 1 or bracket[0][1] <= bracket[-1][1] else (1, 0)
    insufficient = False
    while not done and it < max_ls:
        a, b = bracket[0][0], bracket[1][0]
        if abs(b - a) * d_norm < tolerance_change:
            break
        t = _cubic_min(a, bracket[0][1], bracket[0][3], b, bracket[1][1], bracket[1][3])
        lo, hi = min(a, b), max(a, b)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            # too close to an end: after one such step, or outside, move eps inside
            if insufficient or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = _dot(g_new, d)
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new, gtd_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = [t, f_new, g_new, gtd_new]
    t, f_new, g_new, _ = bracket[low]
    return f_new, g_new, t, evals


class LBFGS(Optimizer):
    """Limited-memory BFGS. step(closure) runs up to max_iter iterations, each calling
    closure() (which must clear the gradients, compute the loss, call backward and
    return the loss) once, or as often as the strong-Wolfe line search needs with
    line_search_fn='strong_wolfe'. Stops early when the largest gradient entry is at
    most tolerance_grad, or a step or the loss changes by less than tolerance_change,
    or after max_eval closure calls (default max_iter * 5 // 4). Returns the loss of
    the first closure call.

    Paddle's LBFGS accepts weight_decay and grad_clip and ignores them; oar refuses
    them (ValueError): put a penalty into the closure's loss instead, so the line
    search sees the objective it minimizes."""

    def __init__(
        self,
        learning_rate=1.0,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        who = "LBFGS"
        _check_number(who, "learning_rate", learning_rate, 0.0, low_open=True)
        for arg, v in (("max_iter", max_iter), ("history_size", history_size)):
            if not is_int(v) or v < 1:
                raise ValueError(f"{who}: argument '{arg}' must be a positive int, got {v!r}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        elif not is_int(max_eval) or max_eval < 1:
            raise ValueError(
                f"{who}: argument 'max_eval' must be a positive int or None, got {max_eval!r}"
            )
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(
                f"{who}: argument 'line_search_fn' must be None or "
                f"'strong_wolfe', got {line_search_fn!r}"
            )
        if weight_decay is not None or grad_clip is not None:
            raise ValueError(
                f"{who}: weight_decay and grad_clip are not applied by LBFGS; add "
                f"the penalty to the closure's loss instead"
            )
        self._max_iter, self._max_eval = max_iter, max_eval
        self._tolerance_grad = _check_number(who, "tolerance_grad", tolerance_grad, 0.0)
        self._tolerance_change = _check_number(who, "tolerance_change", tolerance_change, 0.0)
        self._history_size = history_size
        self._line_search_fn = line_search_fn
        super().__init__(learning_rate, parameters, None, None, name)
        if len(self._groups) != 1:
            raise ValueError(
                f"{who}: parameter groups are not supported (the parameters are "
                f"optimized as one vector)"
            )
        self._params = self._groups[0].params
        self._state = {"func_evals": 0, "n_iter": 0}

    # ---- the parameters as one vector ---------------------------------------------------
    def _flat_grad(self):
        views = [
            (p.grad if p.grad is not None else zeros_like(p)).reshape([-1]) for p in self._params
        ]
        return _C.concat(views, 0)

    def _add_step(self, t, d):
        """x += t * d (d flat over the parameters)."""
        offset = 0
        for p in self._params:
            n = p.size
            p[...] = p + d[offset : offset + n].reshape(p.shape) * t
            offset += n

    def _set_params(self, values):
        for p, v in zip(self._params, values):
            p[...] = v

    # ---- the optimizer interface --------------------------------------------------------
    @no_grad()
    def step(self, closure=None):
        """One LBFGS step (up to max_iter iterations); closure as in the class doc."""
        if not callable(closure):
            raise TypeError(
                f"LBFGS.step: argument 'closure' must be callable, got {type(closure).__name__}"
            )
        st = self._state
        lr = self.get_lr()

        def evaluate():
            with enable_grad():
                out = closure()
            if not isinstance(out, Tensor) or out.size != 1:
                raise TypeError(
                    "LBFGS.step: the closure must return the loss as a 1-element Tensor"
                )
            return out

        orig_loss = evaluate()
        loss = float(orig_loss.item())
        evals = 1
        st["func_evals"] += 1
        g = self._flat_grad()
        if float(g.abs().max().item()) <= self._tolerance_grad:
            return orig_loss
        d, t = st.get("d"), st.get("t")
        old_dirs, old_steps, ro = st.get("old_dirs"), st.get("old_stps"), st.get("ro")
        h_diag, prev_g, prev_loss = st.get("H_diag"), st.get("prev_flat_grad"), st.get("prev_loss")
        n_iter = 0
        while n_iter < self._max_iter:
            n_iter += 1
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                d = -g
                old_dirs, old_steps, ro, h_diag = [], [], [], 1.0
            else:
                y = g - prev_g
                s = d * t
                ys = _dot(y, s)
                if ys > 1e-10:  # keep only pairs with positive curvature
                    if len(old_dirs) == self._history_size:
                        old_dirs.pop(0)
                        old_steps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                # two-loop recursion: d = -H g
                alpha = [0.0] * len(old_dirs)
                q = -g
                for i in range(len(old_dirs) - 1, -1, -1):
                    alpha[i] = _dot(old_steps[i], q) * ro[i]
                    q = q - old_dirs[i] * alpha[i]
                r = q * h_diag
                for i in range(len(old_dirs)):
                    beta = _dot(old_dirs[i], r) * ro[i]
                    r = r + old_steps[i] * (alpha[i] - beta)
                d = r
            prev_g = g.clone()
            prev_loss = loss
            t = min(1.0, 1.0 / float(g.abs().sum().item())) * lr if st["n_iter"] == 1 else lr
            gtd = _dot(g, d)
            if gtd > -self._tolerance_change:  # not a descent direction
                break
            ls_evals = 0
            if self._line_search_fn is not None:
                x0 = [p.clone() for p in self._params]

                def along(step, _d=d, _x0=x0):
                    self._add_step(step, _d)
                    value = float(evaluate().item())
                    grad = self._flat_grad()
                    self._set_params(_x0)
                    return value, grad

                loss, g, t, ls_evals = _strong_wolfe(
                    along, t, d, loss, g, gtd, tolerance_change=self._tolerance_change
                )
                self._add_step(t, d)
            else:
                self._add_step(t, d)
                if n_iter != self._max_iter:
                    loss = float(evaluate().item())
                    g = self._flat_grad()
                    ls_evals = 1
            evals += ls_evals
            st["func_evals"] += ls_evals
            if n_iter == self._max_iter or evals >= self._max_eval:
                break
            if float(g.abs().max().item()) <= self._tolerance_grad:
                break
            if float((d * t).abs().max().item()) <= self._tolerance_change:
                break
            if abs(loss - prev_loss) < self._tolerance_change:
                break
        st.update(
            {
                "d": d,
                "t": t,
                "old_dirs": old_dirs,
                "old_stps": old_steps,
                "ro": ro,
                "H_diag": h_diag,
                "prev_flat_grad": prev_g,
                "prev_loss": prev_loss,
            }
        )
        return orig_loss

    def state_dict(self):
        """{"state": {"func_evals", "n_iter", and the search state: "d", "t", "old_dirs",
        "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"}} (Paddle's layout)."""
        return {"state": dict(self._state)}

    def set_state_dict(self, state_dict):
        if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
            raise TypeError(
                "LBFGS.set_state_dict: expected {'state': {...}} as state_dict() returns"
            )
        self._state = dict(state_dict["state"])
        self._state.setdefault("func_evals", 0)
        self._state.setdefault("n_iter", 0)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError(
            "LBFGS.minimize: LBFGS re-evaluates the loss; call step(closure) instead"
        )

    def apply_gradients(self, params_grads):
        raise NotImplementedError(
            "LBFGS.apply_gradients: LBFGS re-evaluates the loss; call step(closure) instead"
        )
