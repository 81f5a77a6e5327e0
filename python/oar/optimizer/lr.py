"""oar.optimizer.lr: learning-rate schedulers with Paddle's names and arguments.

A scheduler is given to an optimizer as its learning_rate; call scheduler.step()
once per epoch (or per step, as the schedule is meant), and the optimizer reads
scheduler() at each step. last_epoch counts the step() calls (-1 before the first,
which the constructor makes).
"""

from __future__ import annotations

import math
from ..framework.check import is_int
from .. import _C

__all__ = [
    "LRScheduler",
    "StepDecay",
    "MultiStepDecay",
    "ExponentialDecay",
    "CosineAnnealingDecay",
    "LinearWarmup",
    "OneCycleLR",
    "ReduceOnPlateau",
    "LambdaDecay",
    "NoamDecay",
    "PiecewiseDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "MultiplicativeDecay",
    "CyclicLR",
    "LinearLR",
    "CosineAnnealingWarmRestarts",
]


def _number(who, name, v, low=None, low_open=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{who}: argument '{name}' must be a number, got {type(v).__name__}")
    if low is not None and (v < low or (low_open and v == low)):
        raise ValueError(
            f"{who}: argument '{name}' must be {'>' if low_open else '>='} {low}, got {v}"
        )
    return float(v)


class LRScheduler:
    """Base class: subclasses implement get_lr() from self.last_epoch and self.base_lr."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        self.base_lr = _number(type(self).__name__, "learning_rate", learning_rate, 0.0)
        self.last_lr = self.base_lr
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.step()

    def __call__(self):
        return self.last_lr

    def step(self, epoch=None):
        """Advance to the next epoch (or to `epoch`) and recompute the rate."""
        if epoch is None:
            self.last_epoch += 1
        else:
            self.last_epoch = int(epoch)
        self.last_lr = float(self.get_lr())
        if self.verbose:
            print(
                f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                f"{self.last_lr}."
            )

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def state_dict(self):
        """The scheduler's numeric state (what set_state_dict restores)."""
        return {
            k: v
            for k, v in self.__dict__.items()
            if isinstance(v, (int, float, bool, str, list, tuple)) or v is None
        }

    def set_state_dict(self, state_dict):
        for k, v in state_dict.items():
            if k in self.__dict__:
                self.__dict__[k] = list(v) if isinstance(self.__dict__[k], list) else v

    set_dict = set_state_dict


class StepDecay(LRScheduler):
    """base_lr * gamma ** (last_epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not is_int(step_size) or step_size < 1:
            raise ValueError(
                f"StepDecay: argument 'step_size' must be a positive int, got {step_size!r}"
            )
        if not gamma < 1.0:
            raise ValueError(f"StepDecay: argument 'gamma' must be < 1.0, got {gamma}")
        self.step_size, self.gamma = step_size, float(gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """base_lr * gamma ** (number of milestones <= last_epoch)."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        milestones = list(milestones)
        if not all(is_int(m) for m in milestones) or any(
            b <= a for a, b in zip(milestones, milestones[1:])
        ):
            raise ValueError(
                f"MultiStepDecay: argument 'milestones' must be increasing ints, got {milestones!r}"
            )
        if not gamma < 1.0:
            raise ValueError(f"MultiStepDecay: argument 'gamma' must be < 1.0, got {gamma}")
        self.milestones, self.gamma = milestones, float(gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** sum(m <= self.last_epoch for m in self.milestones)


class ExponentialDecay(LRScheduler):
    """base_lr * gamma ** last_epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number("ExponentialDecay", "gamma", gamma, 0.0, low_open=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma**self.last_epoch


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from base_lr to eta_min over T_max epochs (SGDR without
    restarts), computed recursively from the previous rate as Paddle and PyTorch do."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_max, int) or T_max < 1:
            raise ValueError(
                f"CosineAnnealingDecay: argument 'T_max' must be a positive int, got {T_max!r}"
            )
        self.T_max, self.eta_min = T_max, float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, T = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - T) % (2 * T) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
        return (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (
            self.last_lr - self.eta_min
        ) + self.eta_min


class LinearWarmup(LRScheduler):
    """Linear from start_lr to end_lr over warmup_steps, then learning_rate (a float, or
    a scheduler that then takes over and is stepped from 0)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not is_int(warmup_steps) or warmup_steps < 1:
            raise ValueError(
                f"LinearWarmup: argument 'warmup_steps' must be a positive int, "
                f"got {warmup_steps!r}"
            )
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.start_lr, self.end_lr = float(start_lr), float(end_lr)
        base = learning_rate.base_lr if isinstance(learning_rate, LRScheduler) else learning_rate
        super().__init__(base, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (
                self.end_lr - self.start_lr
            ) * self.last_epoch / self.warmup_steps + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)

    def state_dict(self):
        d = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            d["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return d

    def set_state_dict(self, state_dict):
        inner = state_dict.get("LinearWarmup_LR")
        super().set_state_dict({k: v for k, v in state_dict.items() if k != "LinearWarmup_LR"})
        if inner is not None and isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(inner)


class OneCycleLR(LRScheduler):
    """The one-cycle policy: from max_learning_rate / divide_factor up to
    max_learning_rate over phase_pct of total_steps, then down to end_learning_rate
    (three_phase: back to the initial rate first), by cosine or linear annealing."""

    def __init__(
        self,
        max_learning_rate,
        total_steps,
        divide_factor=25.0,
        end_learning_rate=0.0001,
        phase_pct=0.3,
        anneal_strategy="cos",
        three_phase=False,
        last_epoch=-1,
        verbose=False,
    ):
        _number("OneCycleLR", "max_learning_rate", max_learning_rate, 0.0)
        if not is_int(total_steps) or total_steps < 1:
            raise ValueError(
                f"OneCycleLR: argument 'total_steps' must be a positive int, got {total_steps!r}"
            )
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"OneCycleLR: argument 'phase_pct' must be in [0, 1], got {phase_pct}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"OneCycleLR: argument 'anneal_strategy' must be 'cos' or "
                f"'linear', got {anneal_strategy!r}"
            )
        self.total_steps = total_steps
        initial = max_learning_rate / divide_factor
        if three_phase:
            self._phases = [
                (float(phase_pct * total_steps) - 1, initial, max_learning_rate),
                (float(2 * phase_pct * total_steps) - 2, max_learning_rate, initial),
                (total_steps - 1, initial, end_learning_rate),
            ]
        else:
            self._phases = [
                (float(phase_pct * total_steps) - 1, initial, max_learning_rate),
                (total_steps - 1, max_learning_rate, end_learning_rate),
            ]
        self.anneal_strategy = anneal_strategy
        super().__init__(initial, last_epoch, verbose)

    def _anneal(self, start, end, pct):
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: step {step} is past total_steps {self.total_steps}")
        start_step = 0
        for i, (end_step, lr0, lr1) in enumerate(self._phases):
            if step <= end_step or i == len(self._phases) - 1:
                pct = (
                    (step - start_step) / (end_step - start_step) if end_step > start_step else 1.0
                )
                return self._anneal(lr0, lr1, pct)
            start_step = end_step
        return self.last_lr


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by factor when the metric given to step(metrics) stops
    improving for patience epochs (mode 'min' or 'max'; threshold 'rel' or 'abs')."""

    def __init__(
        self,
        learning_rate,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        epsilon=1e-8,
        verbose=False,
    ):
        if mode not in ("min", "max"):
            raise ValueError(
                f"ReduceOnPlateau: argument 'mode' must be 'min' or 'max', got {mode!r}"
            )
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(
                f"ReduceOnPlateau: argument 'threshold_mode' must be 'rel' or "
                f"'abs', got {threshold_mode!r}"
            )
        if not factor < 1.0:
            raise ValueError(f"ReduceOnPlateau: argument 'factor' must be < 1.0, got {factor}")
        self.mode, self.factor, self.patience = mode, float(factor), int(patience)
        self.threshold, self.threshold_mode = float(threshold), threshold_mode
        self.cooldown, self.min_lr, self.epsilon = int(cooldown), float(min_lr), float(epsilon)
        self.best = None
        self.cooldown_counter = 0
        self.num_bad_epochs = 0
        self.base_lr = _number("ReduceOnPlateau", "learning_rate", learning_rate, 0.0)
        self.last_lr = self.base_lr
        self.last_epoch = 0
        self.verbose = verbose

    def _better(self, current, best):
        if self.mode == "min":
            bound = (
                best * (1 - self.threshold)
                if self.threshold_mode == "rel"
                else best - self.threshold
            )
            return current < bound
        bound = (
            best * (1 + self.threshold) if self.threshold_mode == "rel" else best + self.threshold
        )
        return current > bound

    def step(self, metrics, epoch=None):
        """Feed this epoch's metric (a number or a 1-element Tensor)."""
        if isinstance(metrics, _C.Tensor):
            if metrics.numel() != 1:
                raise ValueError(
                    f"ReduceOnPlateau.step: argument 'metrics' must have one "
                    f"element, got shape {metrics.shape}"
                )
            metrics = float(metrics.item())
        current = _number("ReduceOnPlateau.step", "metrics", metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        if self.best is None or self._better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new > self.epsilon:
                self.last_lr = new
                if self.verbose:
                    print(
                        f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to "
                        f"{self.last_lr}."
                    )

    def get_lr(self):
        return self.last_lr


class LambdaDecay(LRScheduler):
    """base_lr * lr_lambda(last_epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(
                f"LambdaDecay: argument 'lr_lambda' must be callable, got "
                f"{type(lr_lambda).__name__}"
            )
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


def _positive_int(who, name, v):
    if not is_int(v) or v < 1:
        raise ValueError(f"{who}: argument '{name}' must be a positive int, got {v!r}")
    return v


class NoamDecay(LRScheduler):
    """The Transformer's schedule: learning_rate * d_model**-0.5 *
    min(epoch**-0.5, epoch * warmup_steps**-1.5) (the first factor is 1 at epoch 0)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        if _number("NoamDecay", "d_model", d_model) <= 0:
            raise ValueError(f"NoamDecay: argument 'd_model' must be > 0, got {d_model}")
        if _number("NoamDecay", "warmup_steps", warmup_steps) <= 0:
            raise ValueError(f"NoamDecay: argument 'warmup_steps' must be > 0, got {warmup_steps}")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e = self.last_epoch
        a = 1 if e == 0 else e**-0.5
        b = self.warmup_steps**-1.5 * e
        return self.base_lr * self.d_model**-0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while last_epoch < boundaries[i]; values[-1] after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        boundaries, values = list(boundaries), list(values)
        if not boundaries:
            raise ValueError("PiecewiseDecay: argument 'boundaries' must not be empty")
        if len(values) != len(boundaries) + 1:
            raise ValueError(
                f"PiecewiseDecay: argument 'values' must have one more element than "
                f"'boundaries' ({len(boundaries) + 1}), got {len(values)}"
            )
        for v in values:
            _number("PiecewiseDecay", "values", v)
        self.boundaries, self.values = boundaries, values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """base_lr * exp(-gamma * last_epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number("NaturalExpDecay", "gamma", gamma, 0.0, low_open=True)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """base_lr / (1 + gamma * last_epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number("InverseTimeDecay", "gamma", gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(base_lr - end_lr) * (1 - t / decay_steps) ** power + end_lr, t = min(last_epoch,
    decay_steps); with cycle, decay_steps grows to the next multiple of itself instead."""

    def __init__(
        self,
        learning_rate,
        decay_steps,
        end_lr=0.0001,
        power=1.0,
        cycle=False,
        last_epoch=-1,
        verbose=False,
    ):
        self.decay_steps = _positive_int("PolynomialDecay", "decay_steps", decay_steps)
        self.end_lr = _number("PolynomialDecay", "end_lr", end_lr)
        self.power = _number("PolynomialDecay", "power", power, 0.0, low_open=True)
        self.cycle = bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        t, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * (math.ceil(t / self.decay_steps) if t else 1)
        else:
            t = min(t, steps)
        return (self.base_lr - self.end_lr) * (
            1 - float(t) / float(steps)
        ) ** self.power + self.end_lr


class MultiplicativeDecay(LRScheduler):
    """base_lr * lr_lambda(1) * lr_lambda(2) * ... * lr_lambda(last_epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(
                f"MultiplicativeDecay: argument 'lr_lambda' must be callable, got "
                f"{type(lr_lambda).__name__}"
            )
        self.lr_lambda = lr_lambda
        self._at = None  # the epoch last_lr belongs to, for the one-step update
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e = self.last_epoch
        if self._at is not None and e == self._at + 1:
            lr = self.last_lr * self.lr_lambda(e)  # the same product, one factor more
        else:
            lr = self.base_lr
            for k in range(1, e + 1):
                lr = lr * self.lr_lambda(k)
        self._at = e
        return lr


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith): linear from base_learning_rate up to
    max_learning_rate over step_size_up steps and back over step_size_down, the
    amplitude scaled by mode ('triangular': 1, 'triangular2': halved each cycle,
    'exp_range': exp_gamma ** iterations) or by scale_fn(cycle or iterations)."""

    def __init__(
        self,
        base_learning_rate,
        max_learning_rate,
        step_size_up,
        step_size_down=None,
        mode="triangular",
        exp_gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        last_epoch=-1,
        verbose=False,
    ):
        who = "CyclicLR"
        max_lr = _number(who, "max_learning_rate", max_learning_rate, 0.0)
        up = _positive_int(who, "step_size_up", step_size_up)
        down = (
            up if step_size_down is None else _positive_int(who, "step_size_down", step_size_down)
        )
        self.gamma = _number(who, "exp_gamma", exp_gamma)
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(
                f"{who}: argument 'mode' must be 'triangular', 'triangular2' or "
                f"'exp_range' when no scale_fn is given, got {mode!r}"
            )
        if scale_fn is not None and not callable(scale_fn):
            raise TypeError(
                f"{who}: argument 'scale_fn' must be callable, got {type(scale_fn).__name__}"
            )
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(
                f"{who}: argument 'scale_mode' must be 'cycle' or 'iterations', got {scale_mode!r}"
            )
        self.cycle_size = float(up + down)
        self.step_up_pct = up / self.cycle_size
        self.max_lr = max_lr
        self.amplitude = max_lr - _number(who, "base_learning_rate", base_learning_rate, 0.0)
        self.mode = mode
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            self.scale_fn, self.scale_mode = (lambda x: self.gamma**x), "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        it = self.last_epoch
        cycle = 1 + it // self.cycle_size
        pct = 1.0 + it / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            factor = pct / self.step_up_pct
        else:
            factor = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else it
        return self.base_lr + self.amplitude * factor * self.scale_fn(x)

    def state_dict(self):
        d = super().state_dict()
        d.pop("scale_fn", None)
        return d


class LinearLR(LRScheduler):
    """From learning_rate * start_factor to learning_rate * end_factor linearly over
    total_steps, then constant (updated multiplicatively from the previous rate, as
    Paddle and PyTorch do)."""

    def __init__(
        self,
        learning_rate,
        total_steps,
        start_factor=1.0 / 3,
        end_factor=1.0,
        last_epoch=-1,
        verbose=False,
    ):
        if not 0 < _number("LinearLR", "start_factor", start_factor) <= 1:
            raise ValueError(
                f"LinearLR: argument 'start_factor' must be in (0, 1], got {start_factor}"
            )
        if not 0 <= _number("LinearLR", "end_factor", end_factor) <= 1:
            raise ValueError(f"LinearLR: argument 'end_factor' must be in [0, 1], got {end_factor}")
        self.total_steps = _positive_int("LinearLR", "total_steps", total_steps)
        self.start_factor, self.end_factor = float(start_factor), float(end_factor)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e = self.last_epoch
        if e == 0:
            return self.base_lr * self.start_factor
        if e > self.total_steps:
            return self.last_lr
        delta = self.end_factor - self.start_factor
        return self.last_lr * (
            1.0 + delta / (self.total_steps * self.start_factor + (e - 1) * delta)
        )


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine annealing from learning_rate to eta_min over T_i epochs, restarting
    with T_i *= T_mult (T_0 the first period). step() advances one epoch; step(epoch)
    jumps to a (possibly fractional) epoch."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        self.T_0 = _positive_int("CosineAnnealingWarmRestarts", "T_0", T_0)
        self.T_mult = _positive_int("CosineAnnealingWarmRestarts", "T_mult", T_mult)
        self.T_i = T_0
        self.eta_min = _number("CosineAnnealingWarmRestarts", "eta_min", eta_min)
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return (
            self.eta_min
            + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        )

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            epoch = _number("CosineAnnealingWarmRestarts.step", "epoch", epoch, 0.0)
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = float(self.get_lr())
        if self.verbose:
            print(
                f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                f"{self.last_lr}."
            )
