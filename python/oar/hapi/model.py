"""oar.Model: Paddle's high-level training API (prepare / fit / evaluate / predict /
save / load) over an oar.nn.Layer, and oar.summary."""

from __future__ import annotations

import contextlib
import inspect
import os

import numpy as np

from .. import _C
from ..framework.grad_mode import no_grad
from ..io import DataLoader, Dataset
from ..metric import Metric
from .callbacks import CallbackList, ProgBarLogger
from .model_summary import summary
from ..tensor.creation import to_tensor
from ..nn import Layer
from ..amp.auto_cast import auto_cast
from .callbacks import ModelCheckpoint
from ..framework.io import save
from ..framework.io import load
from ..amp import GradScaler
from ..amp.decorate import decorate

__all__ = ["Model", "summary"]

Tensor = _C.Tensor


def _to_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _flatten(data):
    """A batch as a flat list of fields, as paddle.utils.flatten: nested lists and tuples
    are opened in order, dicts by sorted key; anything else (an array, a Tensor) is one
    field."""
    if isinstance(data, dict):
        return [f for k in sorted(data) for f in _flatten(data[k])]
    if isinstance(data, (list, tuple)):
        return [f for d in data for f in _flatten(d)]
    return [data]


def _steps(loader):
    """len(loader), or None when it has none (an iterable dataset, a generator)."""
    try:
        return len(loader)
    except TypeError:
        return None


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    return to_tensor(np.asarray(x))


def _scalar(t):
    return float(t.numpy().reshape(-1)[0]) if isinstance(t, Tensor) else float(t)


class _AmpConfig:
    """Paddle's Model.prepare(amp_configs=...): "O1"/"O2", or a dict with `level`,
    `dtype` (oar's addition; default bfloat16, the CPU's fast low dtype),
    `custom_white_list`, `custom_black_list` and GradScaler's arguments
    (`init_loss_scaling`, `incr_ratio`, `decr_ratio`, `incr_every_n_steps`,
    `decr_every_n_nan_or_inf`, `use_dynamic_loss_scaling`). Loss scaling is used
    for float16 only: bfloat16 has float32's exponent range."""

    _SCALER_KEYS = (
        "init_loss_scaling",
        "incr_ratio",
        "decr_ratio",
        "incr_every_n_steps",
        "decr_every_n_nan_or_inf",
        "use_dynamic_loss_scaling",
    )
    _KEYS = (
        "level",
        "dtype",
        "custom_white_list",
        "custom_black_list",
        "use_fp16_guard",
        "use_promote",
    ) + _SCALER_KEYS

    @classmethod
    def parse(cls, configs):
        if configs is None:
            return None
        if isinstance(configs, str):
            configs = {"level": configs}
        if not isinstance(configs, dict):
            raise TypeError(
                f"Model.prepare: argument 'amp_configs' must be 'O1', 'O2' or a "
                f"dict, got {type(configs).__name__}"
            )
        unknown = sorted(set(configs) - set(cls._KEYS))
        if unknown:
            raise ValueError(
                f"Model.prepare: amp_configs has unknown keys {unknown}; known: {list(cls._KEYS)}"
            )
        level = configs.get("level", "O1")
        if level == "O0":
            return None
        if level not in ("O1", "O2"):
            raise ValueError(
                f"Model.prepare: amp_configs['level'] must be 'O0', 'O1' or 'O2', got {level!r}"
            )
        c = cls()
        c.level, c.dtype = level, configs.get("dtype", "bfloat16")
        c.white, c.black = configs.get("custom_white_list"), configs.get("custom_black_list")
        c.scaler = None
        if str(c.dtype).replace("oar.", "") == "float16":
            c.scaler = GradScaler(**{k: configs[k] for k in cls._SCALER_KEYS if k in configs})
        return c


class Model:
    """Wraps a network for training and evaluation.

    Args:
        network: an oar.nn.Layer.
        inputs: InputSpec(s) of the network's inputs (how many leading fields of a batch
            are inputs; default: the number of forward()'s positional parameters).
        labels: InputSpec(s) of the labels (the remaining fields).
    """

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError(
                f"Model: argument 'network' must be an oar.nn.Layer, got {type(network).__name__}"
            )
        self.network = network
        self._inputs = _to_list(inputs)
        self._labels = _to_list(labels)
        self._n_inputs = len(self._inputs) or self._forward_arity()
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self._amp = None
        self.stop_training = False

    def _forward_arity(self):
        sig = inspect.signature(self.network.forward)
        params = [
            p
            for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
        return max(1, len(params))

    # ---- setup ---------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or callable (outputs..., labels...) ->
        loss) and the metrics (oar.metric.Metric instances). amp_configs: "O1" (the
        forward and loss run under oar.amp.auto_cast), "O2" (also oar.amp.decorate:
        a bfloat16 model with float32 master weights) or a dict (see _AmpConfig)."""
        if loss is not None and not callable(loss):
            raise TypeError(
                f"Model.prepare: argument 'loss' must be callable, got {type(loss).__name__}"
            )
        metrics = _to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(
                    f"Model.prepare: metrics must be oar.metric.Metric instances, "
                    f"got {type(m).__name__}"
                )
        self._amp = _AmpConfig.parse(amp_configs)
        if self._amp is not None and self._amp.level == "O2":
            if optimizer is None:
                decorate(self.network, level="O2", dtype=self._amp.dtype)
            else:
                _, optimizer = decorate(self.network, optimizer, level="O2", dtype=self._amp.dtype)
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics

    def _auto_cast(self):
        if self._amp is None:
            return contextlib.nullcontext()
        return auto_cast(
            level=self._amp.level,
            dtype=self._amp.dtype,
            custom_white_list=self._amp.white,
            custom_black_list=self._amp.black,
        )

    def parameters(self, *args, **kwargs):
        return self.network.parameters(*args, **kwargs)

    # ---- one batch -------------------------------------------------------------------------
    def _split(self, data):
        data = _flatten(data)
        return data[: self._n_inputs], data[self._n_inputs :]

    def _compute(self, inputs, labels, train):
        inputs = [_as_tensor(x) for x in _to_list(inputs)]
        labels = [_as_tensor(y) for y in _to_list(labels)]
        with self._auto_cast():
            outputs = _to_list(self.network(*inputs))
            loss = None
            if self._loss is not None:  # as Paddle: loss(*outputs, *labels), labels or not
                loss = self._loss(*outputs, *labels)
        metric_values = []
        for m in self._metrics:
            metric_values.append(m.update(*_to_list(m.compute(*outputs, *labels))))
        return outputs, loss, metric_values

    def train_batch(self, inputs, labels=None, update=True):
        """One training step; returns [loss] (and the metrics' values, if any)."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer, loss) first")
        self.network.train()
        _, loss, metrics = self._compute(inputs, labels, True)
        scaler = self._amp.scaler if self._amp is not None else None
        scaled = scaler.scale(loss) if scaler is not None else loss
        scaled.backward()
        if update:
            if scaler is not None:
                scaler.minimize(self._optimizer, scaled)
            else:
                self._optimizer.step()
            self._optimizer.clear_grad()
        losses = [_scalar(loss)]
        return (losses, metrics) if metrics else losses

    @no_grad()
    def eval_batch(self, inputs, labels=None):
        """The loss (and metrics) of one batch, without gradients."""
        self.network.eval()
        _, loss, metrics = self._compute(inputs, labels, False)
        losses = [_scalar(loss)] if loss is not None else []
        return (losses, metrics) if metrics else losses

    @no_grad()
    def predict_batch(self, inputs):
        """The network's outputs for one batch, as numpy arrays."""
        self.network.eval()
        outputs = _to_list(self.network(*[_as_tensor(x) for x in _to_list(inputs)]))
        return [o.numpy() for o in outputs]

    # ---- loops -----------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        """A Dataset is batched by a DataLoader; anything else iterable (a DataLoader, a
        list or tuple of batches, a numpy array, a generator) is used as it is, one item a
        batch, as in Paddle."""
        if data is None or isinstance(data, DataLoader):
            return data
        if isinstance(data, Dataset):
            return DataLoader(
                data,
                batch_size=batch_size,
                shuffle=shuffle,
                drop_last=drop_last,
                num_workers=num_workers,
            )
        try:
            iter(data)
        except TypeError:
            raise TypeError(
                f"Model: data must be an oar.io.Dataset, a DataLoader or an iterable of "
                f"batches, got {type(data).__name__}"
            ) from None
        return data

    def _metric_logs(self, logs):
        for m in self._metrics:
            names = _to_list(m.name())
            vals = _to_list(m.accumulate())
            for n, v in zip(names, vals):
                logs[n] = v
        return logs

    def _batch_size(self, data):
        first = _to_list(data)[0]
        return int(first.shape[0]) if hasattr(first, "shape") and len(first.shape) else 1

    def fit(
        self,
        train_data=None,
        eval_data=None,
        batch_size=1,
        epochs=1,
        eval_freq=1,
        log_freq=10,
        save_dir=None,
        save_freq=1,
        verbose=2,
        drop_last=False,
        shuffle=True,
        num_workers=0,
        callbacks=None,
        accumulate_grad_batches=1,
        num_iters=None,
    ):
        """Train for `epochs` epochs over train_data (a Dataset, a DataLoader or an iterable
        of batches such as a list of numpy (x, y) pairs), evaluating on eval_data every
        eval_freq epochs; callbacks get every event (a ProgBarLogger with log_freq and
        verbose is added when none is given); save_dir keeps a checkpoint every save_freq
        epochs and at the end. Returns the history, a dict of per-epoch training logs
        (Paddle returns None)."""
        if train_data is None:
            raise ValueError("Model.fit: argument 'train_data' is required")
        if not isinstance(epochs, int) or epochs < 1:
            raise ValueError(f"Model.fit: argument 'epochs' must be a positive int, got {epochs!r}")
        if not isinstance(accumulate_grad_batches, int) or accumulate_grad_batches < 1:
            raise ValueError("Model.fit: argument 'accumulate_grad_batches' must be a positive int")
        train = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        evalr = self._loader(eval_data, batch_size, False, False, num_workers)
        cbs = _to_list(callbacks)
        if not any(isinstance(c, ProgBarLogger) for c in cbs):
            cbs = [ProgBarLogger(log_freq, verbose=verbose)] + cbs
        if save_dir and not any(isinstance(c, ModelCheckpoint) for c in cbs):
            cbs.append(ModelCheckpoint(save_freq, save_dir))
        cbl = CallbackList(cbs)
        steps = n_batches = _steps(train)
        if num_iters is not None:
            steps = min(steps or num_iters, num_iters)
        params = {
            "batch_size": batch_size,
            "epochs": epochs,
            "steps": steps,
            "verbose": verbose,
            "metrics": ["loss"] + [n for m in self._metrics for n in _to_list(m.name())],
            "save_dir": save_dir,
        }
        for c in cbs:
            c.set_params(params)
            c.set_model(self)
        self.stop_training = False
        history = {}
        cbl.on_train_begin({})
        it = 0
        for epoch in range(epochs):
            for m in self._metrics:
                m.reset()
            cbl.on_epoch_begin(epoch, {})
            logs = {}
            for step, data in enumerate(train):
                if num_iters is not None and it >= num_iters:
                    break
                cbl.on_train_batch_begin(step, {})
                inputs, labels = self._split(data)
                # as Paddle: the last batch of an epoch applies a partial accumulation
                update = (step + 1) % accumulate_grad_batches == 0 or step + 1 == n_batches
                out = self.train_batch(inputs, labels, update=update)
                losses = out[0] if self._metrics else out
                logs = {"loss": losses[0]}
                self._metric_logs(logs)
                logs["batch_size"] = self._batch_size(inputs)
                cbl.on_train_batch_end(step, logs)
                it += 1
            epoch_logs = {k: v for k, v in logs.items() if k != "batch_size"}
            for k, v in epoch_logs.items():
                history.setdefault(k, []).append(v)
            cbl.on_epoch_end(epoch, epoch_logs)
            if evalr is not None and (epoch + 1) % eval_freq == 0:
                eval_logs = self._run_eval(evalr, cbl)
                for k, v in eval_logs.items():
                    history.setdefault("eval_" + k, []).append(v)
            if self.stop_training or (num_iters is not None and it >= num_iters):
                break
        cbl.on_train_end({})
        return history

    def _run_eval(self, loader, cbl, num_iters=None):
        for m in self._metrics:
            m.reset()
        cbl.on_eval_begin({"steps": _steps(loader)})
        total, n = 0.0, 0
        for step, data in enumerate(loader):
            if num_iters is not None and step >= num_iters:
                break
            cbl.on_eval_batch_begin(step, {})
            inputs, labels = self._split(data)
            out = self.eval_batch(inputs, labels)
            losses = out[0] if self._metrics else out
            bs = self._batch_size(inputs)
            logs = {}
            if losses:
                total += losses[0] * bs
                n += bs
                logs["loss"] = losses[0]
            self._metric_logs(logs)
            logs["batch_size"] = bs
            cbl.on_eval_batch_end(step, logs)
        result = {}
        if n:
            result["loss"] = [total / n]
        self._metric_logs(result)
        cbl.on_eval_end(result)
        return result

    def evaluate(
        self,
        eval_data,
        batch_size=1,
        log_freq=10,
        verbose=2,
        num_workers=0,
        callbacks=None,
        num_iters=None,
    ):
        """The mean loss over the samples ({'loss': [value]}) and the metrics over
        eval_data (a Dataset, a DataLoader or an iterable of batches)."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbs = _to_list(callbacks)
        if not any(isinstance(c, ProgBarLogger) for c in cbs):
            cbs = [ProgBarLogger(log_freq, verbose=verbose)] + cbs
        for c in cbs:
            c.set_params({"batch_size": batch_size, "verbose": verbose})
            c.set_model(self)
        return self._run_eval(loader, CallbackList(cbs), num_iters)

    def predict(
        self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None
    ):
        """The network's outputs for every batch of test_data (a Dataset, a DataLoader or
        an iterable of batches, numpy arrays or Tensors): a list with one tuple per output
        of the per-batch numpy arrays, as Paddle; with stack_outputs one array per output,
        np.vstack of its batches, as Paddle, except that 1-D outputs of a Dataset's or
        DataLoader's batches are concatenated to [N], the shape Paddle documents (its
        vstack gives [batches, batch_size], or fails on a shorter last batch)."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbs = CallbackList(_to_list(callbacks))
        cbs.on_predict_begin({"steps": _steps(loader)})
        outputs = []
        for step, data in enumerate(loader):
            inputs, _ = self._split(data)
            outs = self.predict_batch(inputs)
            if not outputs:
                outputs = [[] for _ in outs]
            for i, o in enumerate(outs):
                outputs[i].append(o)
            cbs.on_predict_batch_end(step, {"batch_size": self._batch_size(inputs)})
        cbs.on_predict_end({})
        if stack_outputs:
            batched = isinstance(test_data, (Dataset, DataLoader))
            return [
                np.concatenate(o) if batched and o[0].ndim == 1 else np.vstack(o) for o in outputs
            ]
        return [tuple(o) for o in outputs]

    # ---- persistence ------------------------------------------------------------------------
    def save(self, path, training=True):
        """Write path + ".pdparams" (the network's state dict) and, when training,
        path + ".pdopt" (the optimizer's): safetensors files (oar.save)."""
        base = os.fspath(path)
        save(self.network.state_dict(), base + ".pdparams")
        if training and self._optimizer is not None:
            save(self._optimizer.state_dict(), base + ".pdopt")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load what save(path) wrote (the optimizer state too unless reset_optimizer).
        skip_mismatch skips parameters whose shapes differ instead of raising."""
        base = os.fspath(path)
        if base.endswith(".pdparams"):
            base = base[: -len(".pdparams")]
        state = load(base + ".pdparams")
        if skip_mismatch:
            own = self.network.state_dict()
            state = {
                k: v for k, v in state.items() if k in own and list(v.shape) == list(own[k].shape)
            }
        self.network.set_state_dict(state)
        if not reset_optimizer and self._optimizer is not None and os.path.exists(base + ".pdopt"):
            self._optimizer.set_state_dict(load(base + ".pdopt"))

    def summary(self, input_size=None, dtype=None):
        """oar.summary of the network, for input_size or else the Model's inputs."""
        if input_size is None and not self._inputs:
            raise ValueError("Model.summary: give input_size, or inputs to Model()")
        return summary(
            self.network, self._inputs if input_size is None else input_size, dtypes=dtype
        )
