"""oar.optimizer: Paddle's optimizers on oar's fused update (Note [Fused optimizer
updates] in src/oar/kernels/optim/fused_update.h).

Each step is one C++ call per parameter group: it reads every parameter's
gradient, updates parameter and state in place, and advances the per-parameter
step counters (the t of the bias corrections), with no Python loop over
parameters and no temporary tensor.

Low-precision parameters (bfloat16/float16, what oar.amp.decorate(level="O2")
makes) are updated through float32 stand-ins, because the fused update works in
float32/float64 only and because an update smaller than half a bfloat16 ulp
would otherwise vanish: the gradient is cast to float32, the update runs on a
float32 copy of the parameter, and the result is cast back. With
multi_precision (Paddle's name; decorate's master_weight) the float32 copy is
kept across steps -- the master weight -- so small updates accumulate in it;
without, the copy is made from the low-precision value at every step. The
states of such parameters (moments, ...) are float32 either way.
"""

from __future__ import annotations

import numpy as np

import math

from ..framework.check import is_int
from .. import _C
from ..framework.grad_mode import no_grad
from ..profiler.utils import _record_optimizer
from ..regularizer import L1Decay, L2Decay
from .lr import LRScheduler
from ..framework.param import Parameter
from ..framework.param import _set_value

__all__ = [
    "Optimizer",
    "SGD",
    "Momentum",
    "Adam",
    "AdamW",
    "Adamax",
    "Adagrad",
    "RMSProp",
    "Lamb",
    "Adadelta",
    "NAdam",
    "RAdam",
    "Rprop",
    "ASGD",
]

Tensor = _C.Tensor


def _value(v):
    """A hyperparameter's number: Paddle takes some (beta1, beta2, epsilon) as 1-element
    Tensors too; those are read at every step, so an in-place change takes effect."""
    return float(v.item()) if isinstance(v, Tensor) else float(v)


def _check_number(who, name, v, low=None, high=None, low_open=False, tensor_ok=False):
    if tensor_ok and isinstance(v, Tensor):
        if v.size != 1 or not v.is_floating_point():
            raise TypeError(
                f"{who}: argument '{name}' must be a number or a 1-element float "
                f"Tensor, got a {v.dtype.name} Tensor of shape {v.shape}"
            )
        _check_number(who, name, float(v.item()), low, high, low_open)
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{who}: argument '{name}' must be a number, got {type(v).__name__}")
    if low is not None and (v < low or (low_open and v == low)):
        raise ValueError(
            f"{who}: argument '{name}' must be {'>' if low_open else '>='} {low}, got {v}"
        )
    if high is not None and v > high:
        raise ValueError(f"{who}: argument '{name}' must be <= {high}, got {v}")
    return float(v)


class _Group:
    """One parameter group and what its fused step needs, built once."""

    def __init__(self, params, options):
        self.params = params
        self.options = options  # group overrides: learning_rate factor, weight_decay, ...
        self.states = [[] for _ in params]
        self.steps = _C.full([len(params)], 0, "int64")
        self.cache = None  # (lr_factors, l2, l1, decay), recomputed when a setting changes
        # float32 master weight of each low-precision parameter (multi_precision), or None
        self.masters = [None] * len(params)
        self.refresh()

    def refresh(self):
        """Recompute what depends on the parameter list (after it is edited, as
        oar.amp.decorate does): a tensor's dtype never changes in place, so whether
        the group holds low-precision parameters is known without a per-step scan."""
        self.has_low = any(_is_low(p) for p in self.params)
        self.cache = None


_LOW_PRECISION = ("bfloat16", "float16")


def _is_low(p):
    return p.dtype.name in _LOW_PRECISION


def _state_dtype(p):
    """The dtype of a parameter's optimizer state: float32 for bfloat16/float16
    parameters (their update runs in float32), the parameter's own otherwise."""
    return "float32" if _is_low(p) else p.dtype


def _float32_stand_in(p, name):
    """A float32 Parameter with p's value and clipping attribute (the clip reads
    need_clip), detached from any graph."""
    return Parameter(
        _C.cast(p.detach(), "float32"), name=name, need_clip=getattr(p, "need_clip", True)
    )


class Optimizer:
    """Base class of the optimizers (Paddle's paddle.optimizer.Optimizer).

    Args:
        learning_rate: a float or an oar.optimizer.lr.LRScheduler.
        parameters: a list of parameters, or of dicts {"params": [...], and any of
            "learning_rate" (a factor on the optimizer's rate), "weight_decay", and the
            optimizer's own settings} for parameter groups. Required.
        weight_decay: a float (L2 decay coefficient), L2Decay or L1Decay. A parameter's
            own regularizer (ParamAttr) takes precedence.
        grad_clip: ClipGradByGlobalNorm, ClipGradByNorm or ClipGradByValue.
    """

    _rule: str | None = None
    # The saved bias-correction powers are beta**(step + _pow_offset): Paddle's Adam,
    # AdamW, Adamax and Lamb keep beta**(t+1) after t steps (the accumulator starts at
    # beta and is multiplied after each step), its NAdam and RAdam beta**t.
    _pow_offset = 0
    _state_names: tuple[
        str, ...
    ] = ()  # Paddle's accumulator names, in the order of the C++ state list

    def __init__(
        self, learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None
    ):
        who = type(self).__name__
        if parameters is None:
            raise ValueError(
                f"{who}: argument 'parameters' is required in dynamic mode "
                f"(e.g. parameters=model.parameters())"
            )
        if isinstance(learning_rate, LRScheduler):
            self._lr_scheduler = learning_rate
        else:
            _check_number(who, "learning_rate", learning_rate, 0.0)
            self._lr_scheduler = None
        self._learning_rate = learning_rate
        if isinstance(weight_decay, Tensor):
            weight_decay = float(
                _check_number(who, "weight_decay", weight_decay, 0.0, tensor_ok=True).item()
            )
        if weight_decay is not None and not isinstance(weight_decay, (L1Decay, L2Decay)):
            _check_number(who, "weight_decay", weight_decay, 0.0)
        self.regularization = weight_decay
        if grad_clip is not None and not hasattr(grad_clip, "_clip"):
            raise TypeError(
                f"{who}: argument 'grad_clip' must be ClipGradByGlobalNorm, "
                f"ClipGradByNorm or ClipGradByValue, got {type(grad_clip).__name__}"
            )
        self._grad_clip = grad_clip
        # keep float32 master weights of low-precision parameters (subclasses taking
        # Paddle's multi_precision argument set it; oar.amp.decorate turns it on)
        self._multi_precision = False
        params = list(parameters)
        if not params:
            raise ValueError(f"{who}: argument 'parameters' is empty")
        self._groups = []
        if isinstance(params[0], dict):
            for g in params:
                self._add_group(g)
        else:
            self._add_group({"params": params})
        self._name = name

    # ---- groups --------------------------------------------------------------------
    def _add_group(self, group):
        who = type(self).__name__
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError(f"{who}: a parameter group must be a dict with 'params'")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self._groups for p in g.params}
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"{who}: parameters must be Tensors, got {type(p).__name__}")
            if id(p) in seen:
                raise ValueError(f"{who}: parameter {p.name!r} appears in more than one group")
            seen.add(id(p))
        options = {k: v for k, v in group.items() if k != "params"}
        self._groups.append(_Group(params, options))

    @property
    def _parameter_list(self):
        return [p for g in self._groups for p in g.params]

    def _setting(self, group, name):
        return group.options.get(name, getattr(self, "_" + name))

    def _per_param(self, group):
        """lr factor, L2, L1 and decoupled decay of each parameter of the group."""
        factor = float(group.options.get("learning_rate", 1.0))
        wd = group.options.get("weight_decay", self.regularization)
        factors, l2, l1, decay = [], [], [], []
        for p in group.params:
            attr = getattr(p, "optimize_attr", None)
            factors.append(factor * (attr["learning_rate"] if attr else 1.0))
            reg = getattr(p, "regularizer", None) or wd
            a, b, d = self._decay_of(p, reg)
            l2.append(a)
            l1.append(b)
            decay.append(d)
        return factors, l2, l1, decay

    def _decay_of(self, p, reg):
        """(L2, L1, decoupled) coefficients; AdamW/Lamb override for their own decay."""
        if reg is None:
            return 0.0, 0.0, 0.0
        if isinstance(reg, L2Decay):
            return reg._coeff, 0.0, 0.0
        if isinstance(reg, L1Decay):
            return 0.0, reg._coeff, 0.0
        return float(reg), 0.0, 0.0

    # ---- learning rate ------------------------------------------------------------------
    def get_lr(self):
        """The current learning rate (the scheduler's, if one drives it)."""
        return (
            self._lr_scheduler() if self._lr_scheduler is not None else float(self._learning_rate)
        )

    def set_lr(self, value):
        """Set a float learning rate (an error when a scheduler drives it)."""
        if self._lr_scheduler is not None:
            raise RuntimeError(
                f"{type(self).__name__}.set_lr: the learning rate is driven by "
                f"an LRScheduler; call set_lr_scheduler or the scheduler"
            )
        self._learning_rate = _check_number(type(self).__name__ + ".set_lr", "value", value, 0.0)

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(
                f"set_lr_scheduler: expected an LRScheduler, got {type(scheduler).__name__}"
            )
        self._lr_scheduler = scheduler
        self._learning_rate = scheduler

    # ---- stepping ------------------------------------------------------------------------
    def _ensure_states(self, group):
        n = self._state_count(group)
        for i, p in enumerate(group.params):
            if len(group.states[i]) != n:
                group.states[i] = [self._init_state(group, k, p) for k in range(n)]

    def _init_state(self, group, k, p):
        return _C.full(list(p.shape), 0.0, _state_dtype(p))

    def _state_count(self, group):
        return len(self._state_names)

    def _hyper(self, group):
        return {}

    def _master(self, group, i):
        """The float32 master weight of group.params[i] (created from its value)."""
        m = group.masters[i]
        if m is None:
            p = group.params[i]
            m = group.masters[i] = _float32_stand_in(p, p.name + "_fp32_master_0")
        return m

    def _update_targets(self, group):
        """What the fused update runs on: the parameters themselves, except that a
        low-precision one is replaced by a float32 tensor (its master weight, or a
        fresh copy without multi_precision) carrying its gradient cast to float32."""
        if not group.has_low:
            return group.params
        targets = []
        for i, p in enumerate(group.params):
            if not _is_low(p):
                targets.append(p)
                continue
            w = self._master(group, i) if self._multi_precision else _float32_stand_in(p, p.name)
            w.grad = None if p.grad is None else _C.cast(p.grad, "float32")
            targets.append(w)
        return targets

    @no_grad()
    @_record_optimizer  # an Optimization span when profiled (oar.profiler)
    def step(self):
        """Apply one update to every parameter that has a gradient."""
        targets = [self._update_targets(g) for g in self._groups]
        if self._grad_clip is not None:
            # clip what the update reads (the float32 gradients of low-precision ones)
            self._grad_clip._clip([t for ts in targets for t in ts])
        lr = self.get_lr()
        for g, ts in zip(self._groups, targets):
            self._ensure_states(g)
            if g.cache is None:
                g.cache = self._per_param(g)
            factors, l2, l1, decay = g.cache
            _C._optimizer_step(
                self._rule, ts, g.states, lr, g.steps, factors, l2, l1, decay, **self._hyper(g)
            )
            if ts is g.params:
                continue
            for p, t in zip(g.params, ts):
                if t is not p:
                    if p.grad is not None:
                        _set_value(p, t)  # cast back to the parameter's dtype
                    t.grad = None  # the float32 gradient copy is not kept between steps

    def backward(
        self, loss, startup_program=None, parameters=None, no_grad_set=None, callbacks=None
    ):
        """Paddle's dygraph backward: the (param, grad) pairs of the parameters (the
        optimizer's, or `parameters`) that hold a gradient. As in Paddle's eager mode it
        does not run loss.backward(); call that first."""
        if not isinstance(loss, Tensor):
            raise TypeError(
                f"{type(self).__name__}.backward: argument 'loss' must be a "
                f"Tensor, got {type(loss).__name__}"
            )
        params = list(parameters) if parameters else self._parameter_list
        skip = _no_grad_ids(no_grad_set)
        return [
            (p, p.grad)
            for p in params
            if not p.stop_gradient
            and p.grad is not None
            and id(p) not in skip
            and p.name not in skip
        ]

    @no_grad()
    def apply_gradients(self, params_grads):
        """Update the parameters of params_grads [(param, grad), ...] with those gradients,
        as step() does (clipping, decay, the rule); the optimizer's other parameters do not
        move. Returns [] (Paddle's list of optimize ops, empty in eager mode)."""
        own = {id(p) for p in self._parameter_list}
        chosen = {}
        for pair in params_grads:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients: expected (param, grad) "
                    f"pairs, got {pair!r}"
                )
            p, g = pair
            if id(p) not in own:
                raise ValueError(
                    f"{type(self).__name__}.apply_gradients: {p.name!r} is not a "
                    f"parameter of this optimizer"
                )
            chosen[id(p)] = g
        saved = {}  # the gradients of the parameters left out, put back afterwards
        for p in self._parameter_list:
            if id(p) in chosen:
                if p.grad is not chosen[id(p)]:
                    p.grad = chosen[id(p)]
            elif p.grad is not None:
                saved[id(p)] = (p, p.grad)
                p.grad = None
        try:
            self.step()
        finally:
            for p, g in saved.values():
                p.grad = g
        return []

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Paddle's dygraph minimize: apply the gradients that loss.backward() stored
        (it does not run backward) to the parameters (all, or `parameters`, less
        no_grad_set). Returns ([], [(param, grad), ...])."""
        params_grads = self.backward(loss, parameters=parameters, no_grad_set=no_grad_set)
        if parameters is None and no_grad_set is None:
            self.step()
        else:
            self.apply_gradients(params_grads)
        return [], params_grads

    def clear_grad(self, set_to_zero=True):
        """Clear every parameter's gradient (set_to_zero keeps zero-filled tensors)."""
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    # ---- state ---------------------------------------------------------------------------
    def state_dict(self):
        """{"<param name>_<accumulator>_0": Tensor, ...} as Paddle names them, with the
        bias-correction powers ("_beta1_pow_acc_0") and "LR_Scheduler" when a scheduler
        drives the rate."""
        out = {}
        for g in self._groups:
            steps = g.steps.numpy()
            for i, p in enumerate(g.params):
                if not g.states[i]:
                    continue
                for name, t in zip(self._state_names, g.states[i]):
                    out[f"{p.name}_{name}_0"] = t
                for k, beta in self._pow_names(g):
                    out[f"{p.name}_{k}_0"] = _C.full(
                        [1], beta ** (int(steps[i]) + self._pow_offset), "float32"
                    )
                out[f"{p.name}_step_0"] = _C.full([1], int(steps[i]), "int64")
        masters = {
            p.name: m for g in self._groups for p, m in zip(g.params, g.masters) if m is not None
        }
        if masters:
            out["master_weights"] = masters
        if self._lr_scheduler is not None:
            out["LR_Scheduler"] = self._lr_scheduler.state_dict()
        return out

    def _pow_names(self, group):
        return []

    def _saved_names(self, state_dict):
        """{current parameter name: saved name}. Parameter names come from a global
        counter, so a model rebuilt in the same process has new ones: when none of the
        current names is in the state dict but it holds state for exactly as many
        parameters, they are matched by position (state_dict() writes them in order)."""
        pows = [k for g in self._groups for k, _ in self._pow_names(g)]
        suffixes = [f"_{n}_0" for n in (*self._state_names, *pows, "step")]
        saved = _saved_prefixes(state_dict.keys(), suffixes)
        params = self._parameter_list
        if not saved or any(p.name in saved for p in params):
            return {}
        if len(saved) != len(params):
            raise ValueError(
                f"{type(self).__name__}.set_state_dict: the state dict holds "
                f"state for {len(saved)} parameters named {saved[:3]}..., none of "
                f"which is a parameter of this optimizer ({len(params)} "
                f"parameters)"
            )
        return {p.name: n for p, n in zip(params, saved)}

    def set_state_dict(self, state_dict):
        """Load what state_dict() returned (or Paddle's optimizer state of the same
        parameters): accumulators by parameter name, the step from the step entry or,
        failing that, from the beta1 power."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict: expected a dict, got {type(state_dict).__name__}")
        if "LR_Scheduler" in state_dict and self._lr_scheduler is not None:
            self._lr_scheduler.set_state_dict(state_dict["LR_Scheduler"])
        rename = self._saved_names(state_dict)
        for g in self._groups:
            self._ensure_states(g)
            steps = g.steps.numpy().copy()
            for i, p in enumerate(g.params):
                pname = rename.get(p.name, p.name)
                for name, t in zip(self._state_names, g.states[i]):
                    key = f"{pname}_{name}_0"
                    if key in state_dict:
                        _set_value(t, state_dict[key])
                if f"{pname}_step_0" in state_dict:
                    steps[i] = int(_as_float(state_dict[f"{pname}_step_0"]))
                else:
                    for k, beta in self._pow_names(g)[:1]:
                        if f"{pname}_{k}_0" in state_dict and 0 < beta < 1:
                            pw = _as_float(state_dict[f"{pname}_{k}_0"])
                            t = round(math.log(pw) / math.log(beta)) if pw > 0 else 0
                            steps[i] = max(int(t) - self._pow_offset, 0)
            _set_value(g.steps, steps)
        self._load_master_weights(state_dict.get("master_weights"), rename)

    def _load_master_weights(self, saved, rename):
        """Master weights by parameter name (by position when none of the names is
        there, as for the accumulators); ignored unless multi_precision is on."""
        if not saved or not self._multi_precision:
            return
        if not isinstance(saved, dict):
            raise TypeError(
                f"{type(self).__name__}.set_state_dict: 'master_weights' must be a "
                f"dict {{parameter name: Tensor}}, got {type(saved).__name__}"
            )
        low = [(g, i, p) for g in self._groups for i, p in enumerate(g.params) if _is_low(p)]
        if (
            not rename
            and low
            and not any(p.name in saved for _, _, p in low)
            and len(saved) == len(low)
        ):
            rename = {p.name: n for (_, _, p), n in zip(low, saved)}
        for g, i, p in low:
            key = rename.get(p.name, p.name)
            if key in saved:
                _set_value(self._master(g, i), saved[key])


def _no_grad_ids(no_grad_set):
    """ids and names of the tensors in a no_grad_set (tensors or names)."""
    out = set()
    for t in no_grad_set or ():
        out.add(t if isinstance(t, str) else id(t))
    return out


def _saved_prefixes(keys, suffixes):
    out = []
    for k in keys:
        for suf in suffixes:
            if isinstance(k, str) and k.endswith(suf):
                name = k[: -len(suf)]
                if name not in out:
                    out.append(name)
                break
    return out


def _as_float(v):
    if isinstance(v, Tensor):
        return float(v.numpy().reshape(-1)[0])
    return float(np.asarray(v).reshape(-1)[0])


class SGD(Optimizer):
    """param -= lr * grad (with L2/L1 decay folded into grad)."""

    _rule = "sgd"

    def __init__(
        self,
        learning_rate=0.001,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        multi_precision=False,
        name=None,
    ):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = bool(multi_precision)


class Momentum(Optimizer):
    """velocity = momentum * velocity + grad; param -= lr * velocity (Nesterov:
    param -= lr * (grad + momentum * velocity))."""

    _rule = "momentum"
    _state_names = ("velocity",)

    def __init__(
        self,
        learning_rate=0.001,
        momentum=0.9,
        parameters=None,
        use_nesterov=False,
        weight_decay=None,
        grad_clip=None,
        multi_precision=False,
        rescale_grad=1.0,
        use_multi_tensor=False,
        name=None,
    ):
        self._momentum = _check_number("Momentum", "momentum", momentum, 0.0)
        self._use_nesterov = bool(use_nesterov)
        if rescale_grad != 1.0:
            raise ValueError(
                "Momentum: argument 'rescale_grad' other than 1.0 is not supported; "
                "scale the loss instead"
            )
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _hyper(self, group):
        return {
            "momentum": float(self._setting(group, "momentum")),
            "nesterov": bool(group.options.get("use_nesterov", self._use_nesterov)),
        }


class Adam(Optimizer):
    """Adam with bias correction (Kingma & Ba); amsgrad keeps the running maximum
    of the second moment."""

    _pow_offset = 1  # Paddle's beta**(t+1) (Optimizer._pow_offset)

    _rule = "adam"
    _state_names = ("moment1", "moment2", "moment2_max")

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-08,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        lazy_mode=False,
        multi_precision=False,
        use_multi_tensor=False,
        amsgrad=False,
        name=None,
    ):
        who = type(self).__name__
        self._beta1 = _check_number(who, "beta1", beta1, 0.0, 1.0, tensor_ok=True)
        self._beta2 = _check_number(who, "beta2", beta2, 0.0, 1.0, tensor_ok=True)
        self._epsilon = _check_number(who, "epsilon", epsilon, 0.0, tensor_ok=True)
        self._amsgrad = bool(amsgrad)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _state_count(self, group):
        return 3 if self._amsgrad else 2

    def _hyper(self, group):
        return {
            "beta1": _value(self._setting(group, "beta1")),
            "beta2": _value(self._setting(group, "beta2")),
            "epsilon": _value(self._setting(group, "epsilon")),
            "amsgrad": self._amsgrad,
        }

    def _pow_names(self, group):
        return [
            ("beta1_pow_acc", _value(self._setting(group, "beta1"))),
            ("beta2_pow_acc", _value(self._setting(group, "beta2"))),
        ]


class AdamW(Adam):
    """Adam with decoupled weight decay: param *= 1 - lr * weight_decay before the Adam
    update (Loshchilov & Hutter). apply_decay_param_fun(name) -> bool selects the
    parameters that decay; lr_ratio(param) -> float scales a parameter's rate."""

    _rule = "adamw"

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        parameters=None,
        weight_decay=0.01,
        use_lowprecision_moment=False,
        lr_ratio=None,
        apply_decay_param_fun=None,
        grad_clip=None,
        lazy_mode=False,
        multi_precision=False,
        amsgrad=False,
        name=None,
    ):
        if isinstance(weight_decay, (L1Decay, L2Decay)):
            weight_decay = weight_decay._coeff
        if isinstance(weight_decay, Tensor):
            weight_decay = float(
                _check_number("AdamW", "weight_decay", weight_decay, 0.0, tensor_ok=True).item()
            )
        self._coeff = _check_number("AdamW", "weight_decay", weight_decay, 0.0)
        self._apply_decay_param_fun = apply_decay_param_fun
        self._lr_ratio = lr_ratio
        super().__init__(
            learning_rate,
            beta1,
            beta2,
            epsilon,
            parameters,
            None,
            grad_clip,
            lazy_mode,
            multi_precision,
            amsgrad=amsgrad,
            name=name,
        )

    def _per_param(self, group):
        factors, l2, l1, decay = super()._per_param(group)
        coeff = float(group.options.get("weight_decay", self._coeff))
        for i, p in enumerate(group.params):
            fun = self._apply_decay_param_fun
            decay[i] = coeff if fun is None or fun(p.name) else 0.0
            l2[i] = l1[i] = 0.0
            if self._lr_ratio is not None:
                factors[i] *= float(self._lr_ratio(p))
        return factors, l2, l1, decay


class Adamax(Optimizer):
    """Adam with the infinity norm: u = max(beta2 * u + epsilon, |grad|);
    param -= lr / (1 - beta1^t) * m / u."""

    _pow_offset = 1  # Paddle's beta**(t+1) (Optimizer._pow_offset)

    _rule = "adamax"
    _state_names = ("moment", "inf_norm")

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-08,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        self._beta1 = _check_number("Adamax", "beta1", beta1, 0.0, 1.0)
        self._beta2 = _check_number("Adamax", "beta2", beta2, 0.0, 1.0)
        self._epsilon = _check_number("Adamax", "epsilon", epsilon, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _hyper(self, group):
        return {
            "beta1": float(self._setting(group, "beta1")),
            "beta2": float(self._setting(group, "beta2")),
            "epsilon": float(self._setting(group, "epsilon")),
        }

    def _pow_names(self, group):
        return [("beta1_pow_acc", float(self._setting(group, "beta1")))]


class Adagrad(Optimizer):
    """moment += grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""

    _rule = "adagrad"
    _state_names = ("moment",)

    def __init__(
        self,
        learning_rate,
        epsilon=1e-06,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
        initial_accumulator_value=0.0,
    ):
        self._epsilon = _check_number("Adagrad", "epsilon", epsilon, 0.0)
        self._initial = _check_number(
            "Adagrad", "initial_accumulator_value", initial_accumulator_value, 0.0
        )
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, group, k, p):
        return _C.full(list(p.shape), self._initial, _state_dtype(p))

    def _hyper(self, group):
        return {"epsilon": float(self._setting(group, "epsilon"))}


class RMSProp(Optimizer):
    """mean_square = rho * ms + (1 - rho) * grad^2 (centered: minus the squared mean
    gradient); momentum = momentum * momentum + lr * grad / sqrt(ms + epsilon);
    param -= momentum (Paddle's placement of epsilon and lr)."""

    _rule = "rmsprop"
    _state_names = ("mean_square", "momentum", "mean_grad")

    def __init__(
        self,
        learning_rate,
        rho=0.95,
        epsilon=1e-06,
        momentum=0.0,
        centered=False,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        self._rho = _check_number("RMSProp", "rho", rho, 0.0, 1.0)
        self._epsilon = _check_number("RMSProp", "epsilon", epsilon, 0.0)
        self._momentum = _check_number("RMSProp", "momentum", momentum, 0.0)
        self._centered = bool(centered)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _state_count(self, group):
        return 3 if self._centered else 2

    def _hyper(self, group):
        return {
            "rho": float(self._setting(group, "rho")),
            "epsilon": float(self._setting(group, "epsilon")),
            "momentum": float(self._setting(group, "momentum")),
            "centered": self._centered,
        }


class Lamb(Optimizer):
    """Layer-wise adaptive moments (You et al.): r = m_hat / (sqrt(v_hat) + epsilon) +
    lamb_weight_decay * param; param -= lr * (|param| / |r|) * r."""

    _pow_offset = 1  # Paddle's beta**(t+1) (Optimizer._pow_offset)

    _rule = "lamb"
    _state_names = ("moment1", "moment2")

    def __init__(
        self,
        learning_rate=0.001,
        lamb_weight_decay=0.01,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-06,
        parameters=None,
        grad_clip=None,
        exclude_from_weight_decay_fn=None,
        multi_precision=False,
        always_adapt=False,
        name=None,
    ):
        self._beta1 = _check_number("Lamb", "beta1", beta1, 0.0, 1.0)
        self._beta2 = _check_number("Lamb", "beta2", beta2, 0.0, 1.0)
        self._epsilon = _check_number("Lamb", "epsilon", epsilon, 0.0)
        self._lamb_weight_decay = _check_number("Lamb", "lamb_weight_decay", lamb_weight_decay, 0.0)
        self._exclude = exclude_from_weight_decay_fn
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _per_param(self, group):
        factors, l2, l1, decay = super()._per_param(group)
        for i, p in enumerate(group.params):
            excluded = self._exclude is not None and self._exclude(p)
            decay[i] = 0.0 if excluded else self._lamb_weight_decay
        return factors, l2, l1, decay

    def _hyper(self, group):
        return {
            "beta1": float(self._setting(group, "beta1")),
            "beta2": float(self._setting(group, "beta2")),
            "epsilon": float(self._setting(group, "epsilon")),
        }

    def _pow_names(self, group):
        return [
            ("beta1_pow_acc", float(self._setting(group, "beta1"))),
            ("beta2_pow_acc", float(self._setting(group, "beta2"))),
        ]


class Adadelta(Optimizer):
    """Adadelta (Zeiler): E[g^2] = rho * E[g^2] + (1 - rho) * g^2;
    update = sqrt(E[dx^2] + epsilon) / sqrt(E[g^2] + epsilon) * g;
    E[dx^2] = rho * E[dx^2] + (1 - rho) * update^2; param -= learning_rate * update."""

    _rule = "adadelta"
    _state_names = ("_avg_squared_grad", "_avg_squared_update")

    def __init__(
        self,
        learning_rate=0.001,
        epsilon=1.0e-6,
        rho=0.95,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        self._epsilon = _check_number("Adadelta", "epsilon", epsilon, 0.0)
        self._rho = _check_number("Adadelta", "rho", rho, 0.0, 1.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _hyper(self, group):
        return {
            "epsilon": float(self._setting(group, "epsilon")),
            "rho": float(self._setting(group, "rho")),
        }


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat), with the momentum schedule
    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))."""

    _rule = "nadam"
    _state_names = ("moment1", "moment2", "mu_product")

    def __init__(
        self,
        learning_rate=0.002,
        beta1=0.9,
        beta2=0.999,
        epsilon=1.0e-8,
        momentum_decay=0.004,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        self._beta1 = _check_number("NAdam", "beta1", beta1, 0.0, 1.0, tensor_ok=True)
        self._beta2 = _check_number("NAdam", "beta2", beta2, 0.0, 1.0, tensor_ok=True)
        self._epsilon = _check_number("NAdam", "epsilon", epsilon, 0.0)
        self._momentum_decay = _check_number("NAdam", "momentum_decay", momentum_decay, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _init_state(self, group, k, p):
        if k == 2:  # the running product of the mu_t
            return _C.full([1], 1.0, _state_dtype(p))
        return super()._init_state(group, k, p)

    def _hyper(self, group):
        return {
            "beta1": _value(self._setting(group, "beta1")),
            "beta2": _value(self._setting(group, "beta2")),
            "epsilon": float(self._setting(group, "epsilon")),
            "momentum_decay": float(self._setting(group, "momentum_decay")),
        }

    def _pow_names(self, group):
        return [("beta2_pow", _value(self._setting(group, "beta2")))]


class RAdam(Optimizer):
    """Rectified Adam (Liu et al.): Adam whose adaptive rate is switched on, with the
    variance rectification r_t, once rho_t > 5; plain momentum SGD before."""

    _rule = "radam"
    _state_names = ("moment1", "moment2")

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1.0e-8,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        self._beta1 = _check_number("RAdam", "beta1", beta1, 0.0, 1.0, tensor_ok=True)
        self._beta2 = _check_number("RAdam", "beta2", beta2, 0.0, 1.0, tensor_ok=True)
        self._epsilon = _check_number("RAdam", "epsilon", epsilon, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _hyper(self, group):
        return {
            "beta1": _value(self._setting(group, "beta1")),
            "beta2": _value(self._setting(group, "beta2")),
            "epsilon": float(self._setting(group, "epsilon")),
        }

    def _pow_names(self, group):
        return [
            ("beta1_pow", _value(self._setting(group, "beta1"))),
            ("beta2_pow", _value(self._setting(group, "beta2"))),
        ]


def _check_pair(who, name, v, check):
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        raise TypeError(f"{who}: argument '{name}' must be a pair of numbers, got {v!r}")
    a, b = (_check_number(who, name, x, 0.0) for x in v)
    if not check(a, b):
        raise ValueError(f"{who}: argument '{name}' is {tuple(v)}, {check.__doc__}")
    return a, b


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun), full-batch: each element has its own
    step size, multiplied by etas[1] while the gradient keeps its sign and by etas[0] when
    it flips (that step is skipped), kept within learning_rate_range; the parameter moves
    by the step size against the gradient's sign. learning_rate is the initial step size."""

    _rule = "rprop"
    _state_names = ("prevs", "learning_rate")

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_range=(1e-5, 50),
        parameters=None,
        etas=(0.5, 1.2),
        grad_clip=None,
        multi_precision=False,
        name=None,
    ):
        def ordered(a, b):
            """expected 0 <= low <= high"""
            return a <= b

        def shrink_grow(a, b):
            """expected 0 < eta_minus < 1 < eta_plus"""
            return 0 < a < 1 < b

        self._range = _check_pair("Rprop", "learning_rate_range", learning_rate_range, ordered)
        self._etas = _check_pair("Rprop", "etas", etas, shrink_grow)
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _init_state(self, group, k, p):
        if k == 1:  # step sizes start at the learning rate of the parameter
            attr = getattr(p, "optimize_attr", None)
            factor = float(group.options.get("learning_rate", 1.0)) * (
                attr["learning_rate"] if attr else 1.0
            )
            return _C.full(list(p.shape), self.get_lr() * factor, _state_dtype(p))
        return super()._init_state(group, k, p)

    def _hyper(self, group):
        return {"etas": list(self._etas), "step_size_range": list(self._range)}


class ASGD(Optimizer):
    """Paddle's ASGD, the stochastic average gradient (Schmidt, Le Roux & Bach): it keeps
    the last batch_num gradients and their sum d, and steps param -= learning_rate * d /
    min(step, batch_num). (Not PyTorch's torch.optim.ASGD, which averages iterates.)"""

    _rule = "asgd"
    _state_names = ("d", "y")

    def __init__(
        self,
        learning_rate=0.001,
        batch_num=1,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        multi_precision=False,
        name=None,
    ):
        if not is_int(batch_num) or batch_num < 1:
            raise ValueError(
                f"ASGD: argument 'batch_num' must be a positive int, got {batch_num!r}"
            )
        self._batch_num = batch_num
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = bool(multi_precision)

    def _init_state(self, group, k, p):
        if k == 1:  # the kept gradients, one row per batch
            return _C.full([self._batch_num, *p.shape], 0.0, _state_dtype(p))
        return super()._init_state(group, k, p)

    def _hyper(self, group):
        return {"batch_num": self._batch_num}
