"""Loss scaling for mixed-precision training (Paddle's paddle.amp.GradScaler and
its base AmpScaler).

Small gradients underflow in float16 (and lose digits in bfloat16); multiplying
the loss by a large factor before backward lifts them into range, and dividing
the gradients by the same factor before the update restores their size. When
the factor is too large some gradient overflows to inf/NaN: that step is
skipped and, with dynamic loss scaling, the factor shrinks; after a run of
good steps it grows again.

The scale is kept as a Python float rounded to float32 after every change (so
the trajectory is the one of Paddle's and PyTorch's float32 scale tensors)
because it only ever enters the computation as a scalar factor.
"""

from __future__ import annotations

import numpy as np

import math
import struct
from enum import Enum

from ..framework.check import is_int
from .. import _C
from ..framework.grad_mode import no_grad

__all__ = ["AmpScaler", "GradScaler", "OptimizerState"]

Tensor = _C.Tensor


class OptimizerState(Enum):
    """Where an optimizer is in the scaler's step: nothing done yet, gradients
    unscaled, or stepped (until the next update())."""

    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _f32(v):
    """v rounded to the nearest float32 (the precision of the scale)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _number(who, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{who}: argument '{name}' must be a number, got {type(v).__name__}")
    v = float(v)
    if math.isnan(v):
        raise ValueError(f"{who}: argument '{name}' must not be NaN")
    return v


def _check_scaling(who, name, v):
    v = _number(who, name, v)
    if not (0 < v < math.inf):
        raise ValueError(f"{who}: argument '{name}' must be a finite number > 0, got {v}")
    return v


def _check_incr_ratio(who, name, v):
    v = _number(who, name, v)
    if not (1.0 < v < math.inf):
        raise ValueError(f"{who}: argument '{name}' must be a finite number > 1.0, got {v}")
    return v


def _check_decr_ratio(who, name, v):
    v = _number(who, name, v)
    if not 0.0 < v < 1.0:
        raise ValueError(f"{who}: argument '{name}' must be in (0, 1), got {v}")
    return v


def _check_count(who, name, v):
    if not is_int(v):
        raise TypeError(f"{who}: argument '{name}' must be an int, got {type(v).__name__}")
    if v < 1:
        raise ValueError(f"{who}: argument '{name}' must be >= 1, got {v}")
    return v


def _grads_of(who, optimizer):
    params = getattr(optimizer, "_parameter_list", None)
    if params is None:
        raise TypeError(
            f"{who}: argument 'optimizer' must be an oar.optimizer.Optimizer, got "
            f"{type(optimizer).__name__}"
        )
    return [p for p in params if p.grad is not None]


@no_grad()
def _unscale_and_check(params, inv_scale):
    """grad *= inv_scale for every parameter; returns True when some gradient holds
    an inf or NaN.

    float32/float64 gradients go through one fused multi-tensor pass that scales
    each element and checks it (`_C._scale_grads`, src/oar/kernels/optim). Other
    dtypes (the bfloat16/float16 gradients of an O2 model) take one in-place scale
    and one isfinite reduction per gradient.
    """
    fused = [p for p in params if p.grad.dtype.name in ("float32", "float64")]
    found_inf = bool(_C._scale_grads(fused, inv_scale)) if fused else False
    for p in params:
        if p.grad.dtype.name in ("float32", "float64"):
            continue
        g = p.grad
        g.scale_(inv_scale)
        if not found_inf and not bool(_C.isfinite(g).all()):
            found_inf = True
    return found_inf


class AmpScaler:
    """Loss scaler with minimize() (Paddle's paddle.amp.AmpScaler; GradScaler adds
    step/update/unscale_ and other defaults).

    Args:
        enable: False makes every method a pass-through (scale returns the loss,
            minimize calls optimizer.minimize).
        init_loss_scaling: the initial scale (> 0).
        incr_ratio: the factor (> 1) the scale grows by after incr_every_n_steps
            consecutive steps with finite gradients.
        decr_ratio: the factor (in (0, 1)) it shrinks by after
            decr_every_n_nan_or_inf steps with an inf/NaN gradient (counted since the
            last good step or the last decrease).
        incr_every_n_steps, decr_every_n_nan_or_inf: ints >= 1.
        use_dynamic_loss_scaling: False keeps the scale at init_loss_scaling (steps
            with inf/NaN gradients are still skipped).
    """

    def __init__(
        self,
        enable=True,
        init_loss_scaling=2.0**15,
        incr_ratio=2.0,
        decr_ratio=0.5,
        incr_every_n_steps=1000,
        decr_every_n_nan_or_inf=1,
        use_dynamic_loss_scaling=True,
    ):
        who = type(self).__name__
        if not isinstance(enable, bool):
            raise TypeError(f"{who}: argument 'enable' must be a bool, got {type(enable).__name__}")
        if not isinstance(use_dynamic_loss_scaling, bool):
            raise TypeError(
                f"{who}: argument 'use_dynamic_loss_scaling' must be a bool, got "
                f"{type(use_dynamic_loss_scaling).__name__}"
            )
        self._enable = enable
        self._incr_ratio = _check_incr_ratio(who, "incr_ratio", incr_ratio)
        self._decr_ratio = _check_decr_ratio(who, "decr_ratio", decr_ratio)
        self._incr_every_n_steps = _check_count(who, "incr_every_n_steps", incr_every_n_steps)
        self._decr_every_n_nan_or_inf = _check_count(
            who, "decr_every_n_nan_or_inf", decr_every_n_nan_or_inf
        )
        init = _check_scaling(who, "init_loss_scaling", init_loss_scaling)
        # disabled: Paddle reports a fixed scale of 1 (scale() is the identity)
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling if enable else False
        self._init_loss_scaling = init if enable else 1.0
        self._scale = _f32(self._init_loss_scaling)
        self._incr_count = 0  # consecutive steps with finite gradients
        self._decr_count = 0  # steps with inf/NaN since the last good step or decrease
        self._states = {}  # id(optimizer) -> {"state": OptimizerState, "found_inf": bool}
        self._found_inf = None  # whether the step(s) since the last update skipped

    # ---- scaling -------------------------------------------------------------------
    def scale(self, var):
        """var * the current scale (var itself when disabled). The result keeps var's
        shape and dtype (the scale enters as a Python scalar)."""
        if not isinstance(var, Tensor):
            raise TypeError(
                f"{type(self).__name__}.scale: argument 'var' must be a Tensor, "
                f"got {type(var).__name__}"
            )
        if not self._enable:
            return var
        return var * self._scale

    def _state(self, optimizer):
        return self._states.setdefault(
            id(optimizer), {"state": OptimizerState.INIT, "found_inf": False}
        )

    def _unscale(self, optimizer, who):
        if not self._enable:
            return
        st = self._state(optimizer)
        if st["state"] is OptimizerState.UNSCALED:
            raise RuntimeError(
                f"{who}: unscale_() has already been called on this optimizer "
                f"since the last update()"
            )
        if st["state"] is OptimizerState.STEPPED:
            raise RuntimeError(f"{who}: unscale_() called after step() (call update() first)")
        params = _grads_of(who, optimizer)
        st["found_inf"] = _unscale_and_check(params, 1.0 / self._scale) if params else False
        st["state"] = OptimizerState.UNSCALED

    def _reset_states(self):
        self._states = {}

    def _record_step(self, optimizer, stepper):
        """Unscale if not done yet, then run stepper() unless a gradient was inf/NaN."""
        st = self._state(optimizer)
        if st["state"] is OptimizerState.INIT:
            self._unscale(optimizer, type(self).__name__ + ".step")
        out = None
        if not st["found_inf"]:
            out = stepper()
        st["state"] = OptimizerState.STEPPED
        self._found_inf = bool(self._found_inf) or st["found_inf"]
        return out

    def minimize(self, optimizer, *args, **kwargs):
        """optimizer.minimize(*args, **kwargs) on the unscaled gradients, skipped when
        one is inf/NaN, then the scale update. Returns what optimizer.minimize returns
        ((None, None) when skipped). Clearing the gradients is the caller's."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        out = self._record_step(optimizer, lambda: optimizer.minimize(*args, **kwargs))
        if self._use_dynamic_loss_scaling:
            self._update()
        self._found_inf = None
        self._reset_states()
        return (None, None) if out is None else out

    def _update(self):
        """Paddle's counters: a bad step resets the good-step count and, at the
        decr_every_n_nan_or_inf-th, shrinks the scale; a good step resets the bad-step
        count and, at the incr_every_n_steps-th in a row, grows it."""
        if self._found_inf is None:  # no step since the last update: nothing to count
            return
        if self._found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                self._scale = _f32(self._scale * self._decr_ratio)
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                grown = _f32(self._scale * self._incr_ratio)
                if math.isfinite(grown):  # never grow into inf
                    self._scale = grown
                self._incr_count = 0

    # ---- settings ------------------------------------------------------------------
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_loss_scaling(self):
        """The current scale as a float32 Tensor of shape [1] (1.0 when disabled)."""
        return _C.full([1], self._scale, "float32")

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        """Set the initial scale and restart the current scale from it."""
        v = _check_scaling(
            type(self).__name__ + ".set_init_loss_scaling",
            "new_init_loss_scaling",
            new_init_loss_scaling,
        )
        self._init_loss_scaling = v
        self._scale = _f32(v)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        self._incr_ratio = _check_incr_ratio(
            type(self).__name__ + ".set_incr_ratio", "new_incr_ratio", new_incr_ratio
        )

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        self._decr_ratio = _check_decr_ratio(
            type(self).__name__ + ".set_decr_ratio", "new_decr_ratio", new_decr_ratio
        )

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = _check_count(
            type(self).__name__ + ".set_incr_every_n_steps",
            "new_incr_every_n_steps",
            new_incr_every_n_steps,
        )

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = _check_count(
            type(self).__name__ + ".set_decr_every_n_nan_or_inf",
            "new_decr_every_n_nan_or_inf",
            new_decr_every_n_nan_or_inf,
        )

    # ---- state ---------------------------------------------------------------------
    _KEYS = (
        "scale",
        "incr_ratio",
        "decr_ratio",
        "incr_every_n_steps",
        "decr_every_n_nan_or_inf",
        "incr_count",
        "decr_count",
        "use_dynamic_loss_scaling",
    )

    def state_dict(self):
        """Paddle's keys ("scale" is a float32 numpy array of shape [1]); {} when
        disabled."""
        if not self._enable:
            return {}
        return {
            "scale": np.array([self._scale], dtype=np.float32),
            "incr_ratio": self._incr_ratio,
            "decr_ratio": self._decr_ratio,
            "incr_every_n_steps": self._incr_every_n_steps,
            "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
            "incr_count": self._incr_count,
            "decr_count": self._decr_count,
            "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling,
        }

    def load_state_dict(self, state_dict):
        """Restore what state_dict() returned (a no-op when disabled)."""
        who = type(self).__name__ + ".load_state_dict"
        if not isinstance(state_dict, dict):
            raise TypeError(
                f"{who}: argument 'state_dict' must be a dict, got {type(state_dict).__name__}"
            )
        if not self._enable:
            return
        if not state_dict:
            raise RuntimeError(f"{who}: the state dict is empty (a disabled scaler saves nothing)")
        missing = [k for k in self._KEYS if k not in state_dict]
        if missing:
            raise ValueError(f"{who}: the state dict lacks {missing}")
        s = state_dict["scale"]
        s = float((s.numpy() if isinstance(s, Tensor) else np.asarray(s)).reshape(-1)[0])
        self._init_loss_scaling = _check_scaling(who, "scale", s)
        self._scale = _f32(s)
        self._incr_ratio = _check_incr_ratio(who, "incr_ratio", state_dict["incr_ratio"])
        self._decr_ratio = _check_decr_ratio(who, "decr_ratio", state_dict["decr_ratio"])
        self._incr_every_n_steps = _check_count(
            who, "incr_every_n_steps", int(state_dict["incr_every_n_steps"])
        )
        self._decr_every_n_nan_or_inf = _check_count(
            who, "decr_every_n_nan_or_inf", int(state_dict["decr_every_n_nan_or_inf"])
        )
        self._incr_count = int(state_dict["incr_count"])
        self._decr_count = int(state_dict["decr_count"])
        self._use_dynamic_loss_scaling = bool(state_dict["use_dynamic_loss_scaling"])

    def __repr__(self):
        return (
            f"{type(self).__name__}(enable={self._enable}, scale={self._scale}, "
            f"dynamic={self._use_dynamic_loss_scaling})"
        )


class GradScaler(AmpScaler):
    """Loss scaler for dygraph training (Paddle's paddle.amp.GradScaler).

    Typical loop::

        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.unscale_(opt)       # optional: to clip or inspect true gradients
        scaler.step(opt)           # skipped when a gradient is inf/NaN
        scaler.update()            # dynamic loss scaling
        opt.clear_grad()

    or scaler.minimize(opt, scaled) for step + update. Arguments as AmpScaler, with
    Paddle's GradScaler defaults (65536, every 2000 steps, every bad step).
    """

    def __init__(
        self,
        enable=True,
        init_loss_scaling=65536.0,
        incr_ratio=2.0,
        decr_ratio=0.5,
        incr_every_n_steps=2000,
        decr_every_n_nan_or_inf=1,
        use_dynamic_loss_scaling=True,
    ):
        super().__init__(
            enable,
            init_loss_scaling,
            incr_ratio,
            decr_ratio,
            incr_every_n_steps,
            decr_every_n_nan_or_inf,
            use_dynamic_loss_scaling,
        )

    def unscale_(self, optimizer):
        """Divide the gradients of optimizer's parameters by the scale, in place, and
        record whether any is inf/NaN. At most once per optimizer between update()s
        (RuntimeError otherwise); step() then does not unscale again."""
        self._unscale(optimizer, "GradScaler.unscale_")

    def step(self, optimizer):
        """optimizer.step() on the unscaled gradients (unscaling them first unless
        unscale_ was called), skipped when one is inf/NaN. Once per optimizer between
        update()s with dynamic loss scaling (RuntimeError otherwise)."""
        if not self._enable:
            return optimizer.step()
        if self._state(optimizer)["state"] is OptimizerState.STEPPED:
            raise RuntimeError(
                "GradScaler.step: step() has already been called on this "
                "optimizer since the last update()"
            )
        self._record_step(optimizer, optimizer.step)
        if not self._use_dynamic_loss_scaling:
            # a fixed scale needs no update(): the next step may follow directly
            self._found_inf = None
            self._reset_states()

    def update(self):
        """Update the scale from the steps since the last update (dynamic loss
        scaling only) and start a new iteration."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
        self._found_inf = None
        self._reset_states()
