"""ModelAverage: the average of the parameters over a sliding window of steps
(Paddle's paddle.incubate.ModelAverage)."""

from __future__ import annotations

import contextlib

from ...framework.check import is_int
from ... import _C
from ...tensor.creation import zeros_like
from ...framework.grad_mode import no_grad

Tensor = _C.Tensor

# sum_1 is folded into sum_2 every this many steps, to bound its rounding error
_MAX_ACCUMULATES = 16384


class _Sums:
    """The running sums and counters of one parameter."""

    def __init__(self, p):
        self.sum_1, self.sum_2, self.sum_3 = zeros_like(p), zeros_like(p), zeros_like(p)
        self.num_accumulates = 0
        self.old_num_accumulates = 0
        self.num_updates = 0
        self.restore = None


class ModelAverage:
    """Accumulates, at each step(), the sum of every parameter that has a gradient; the
    window restarts once it holds at least min_average_window steps and at least
    min(max_average_window, steps * average_window_rate). apply() swaps the parameters
    for their average over the current and the previous window (and restore() swaps
    them back), e.g. for evaluation:

        sgd.step(); model_average.step()
        with model_average.apply():
            evaluate(model)

    It does not change the parameters during training (step() only accumulates)."""

    def __init__(
        self,
        average_window_rate,
        parameters=None,
        min_average_window=10000,
        max_average_window=10000,
        name=None,
    ):
        if (
            isinstance(average_window_rate, bool)
            or not isinstance(average_window_rate, (int, float))
            or average_window_rate < 0
        ):
            raise ValueError(
                f"ModelAverage: argument 'average_window_rate' must be a "
                f"non-negative number, got {average_window_rate!r}"
            )
        for arg, v in (
            ("min_average_window", min_average_window),
            ("max_average_window", max_average_window),
        ):
            if not is_int(v) or v < 1:
                raise ValueError(
                    f"ModelAverage: argument '{arg}' must be a positive int, got {v!r}"
                )
        if min_average_window > max_average_window:
            raise ValueError(
                f"ModelAverage: min_average_window ({min_average_window}) must "
                f"not exceed max_average_window ({max_average_window})"
            )
        if parameters is None:
            raise ValueError("ModelAverage: argument 'parameters' is required in dynamic mode")
        params = []
        for p in parameters:
            group = p["params"] if isinstance(p, dict) else [p]
            for q in group:
                if not isinstance(q, Tensor):
                    raise TypeError(
                        f"ModelAverage: parameters must be Tensors, got {type(q).__name__}"
                    )
                params.append(q)
        self.average_window = float(average_window_rate)
        self.min_average_window = min_average_window
        self.max_average_window = max_average_window
        self._parameter_list = params
        self._name = name
        self._sums = {}

    @no_grad()
    def step(self):
        """Add the current value of every parameter that has a gradient to its sums."""
        for p in self._parameter_list:
            if p.grad is None or p.stop_gradient:
                continue
            s = self._sums.get(id(p))
            if s is None:
                s = self._sums[id(p)] = _Sums(p)
            s.num_updates += 1
            s.num_accumulates += 1
            s.sum_1.add_(p)
            if s.num_updates % _MAX_ACCUMULATES == 0:
                s.sum_2.add_(s.sum_1)
                s.sum_1[...] = 0.0
            if s.num_accumulates >= self.min_average_window and s.num_accumulates >= min(
                self.max_average_window, s.num_updates * self.average_window
            ):
                # the window is full: keep it as the previous window, start a new one
                s.sum_3[...] = s.sum_1 + s.sum_2
                s.sum_1[...] = 0.0
                s.sum_2[...] = 0.0
                s.old_num_accumulates = s.num_accumulates
                s.num_accumulates = 0

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """step() (Paddle's eager minimize); returns None."""
        if not isinstance(loss, Tensor):
            raise TypeError(
                f"ModelAverage.minimize: argument 'loss' must be a Tensor, got "
                f"{type(loss).__name__}"
            )
        self.step()

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Within the block the parameters hold their averages; afterwards (need_restore)
        their trained values again. Parameters never accumulated average to NaN, as in
        Paddle (0 / 0)."""
        with no_grad():
            for p in self._parameter_list:
                s = self._sums.get(id(p))
                if s is None:
                    s = self._sums[id(p)] = _Sums(p)
                s.restore = p.detach().clone()
                count = s.num_accumulates + s.old_num_accumulates
                total = s.sum_1 + s.sum_2 + s.sum_3
                p[...] = total / float(count) if count else total * float("nan")
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    @no_grad()
    def restore(self, executor=None):
        """Put back the values the parameters had when apply() was entered."""
        for p in self._parameter_list:
            s = self._sums.get(id(p))
            if s is not None and s.restore is not None:
                p[...] = s.restore

    def clear_grad(self, set_to_zero=True):
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad
