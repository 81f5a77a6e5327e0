"""LookAhead (Zhang et al., "Lookahead Optimizer: k steps forward, 1 step back")."""

from __future__ import annotations

from ...framework.check import is_int
from ... import _C
from ...tensor.creation import to_tensor
from ...framework.grad_mode import no_grad
from ...tensor.math import lerp_
from ...optimizer.optimizer import Optimizer

Tensor = _C.Tensor


class LookAhead:
    """Wraps inner_optimizer: each step() runs the inner (fast) step; the slow weights
    start as the parameters after the first step, and every k steps both become
    slow + alpha * (fast - slow). Only parameters with a gradient take part, as in
    Paddle."""

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                f"LookAhead: argument 'inner_optimizer' must be an "
                f"oar.optimizer.Optimizer, got {type(inner_optimizer).__name__}"
            )
        if (
            isinstance(alpha, bool)
            or not isinstance(alpha, (int, float))
            or not 0.0 <= alpha <= 1.0
        ):
            raise ValueError(f"LookAhead: argument 'alpha' must be in [0, 1], got {alpha!r}")
        if not is_int(k) or k < 1:
            raise ValueError(f"LookAhead: argument 'k' must be a positive int, got {k!r}")
        self.inner_optimizer = inner_optimizer
        self.alpha, self.k = float(alpha), k
        self._name = name
        self._step = 0
        self._slow = {}  # id(param) -> slow weights

    @property
    def _parameter_list(self):
        return self.inner_optimizer._parameter_list

    @no_grad()
    def _look_back(self, params):
        self._step += 1
        sync = self._step % self.k == 0
        for p in params:
            slow = self._slow.get(id(p))
            if slow is None or self._step == 1:
                slow = self._slow[id(p)] = p.detach().clone()
            if sync:
                lerp_(slow, p, self.alpha)
                p[...] = slow

    def step(self):
        """The inner step, then the slow-weight update of the parameters that had a
        gradient."""
        params = [p for p in self._parameter_list if p.grad is not None and not p.stop_gradient]
        self.inner_optimizer.step()
        self._look_back(params)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """inner_optimizer.minimize(...), then the slow-weight update; returns what the
        inner minimize returns."""
        out = self.inner_optimizer.minimize(loss, startup_program, parameters, no_grad_set)
        self._look_back([p for p, _ in out[1]])
        return out

    def clear_grad(self, set_to_zero=True):
        self.inner_optimizer.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def get_lr(self):
        return self.inner_optimizer.get_lr()

    def set_lr(self, value):
        self.inner_optimizer.set_lr(value)

    def state_dict(self):
        """The inner optimizer's state plus the step count and slow weights (by name)."""
        d = dict(self.inner_optimizer.state_dict())
        d["lookahead_step"] = self._step
        for p in self._parameter_list:
            if id(p) in self._slow:
                d[f"{p.name}_slow_0"] = self._slow[id(p)]
        return d

    def set_state_dict(self, state_dict):
        inner = {
            k: v
            for k, v in state_dict.items()
            if k != "lookahead_step" and not k.endswith("_slow_0")
        }
        self.inner_optimizer.set_state_dict(inner)
        self._step = int(state_dict.get("lookahead_step", self._step))
        for p in self._parameter_list:
            v = state_dict.get(f"{p.name}_slow_0")
            if v is not None:
                self._slow[id(p)] = (
                    v.detach().clone() if isinstance(v, Tensor) else to_tensor(v, dtype=p.dtype)
                )
