"""oar.callbacks: hooks into Model.fit / evaluate / predict (Paddle's paddle.callbacks)."""

from __future__ import annotations

import importlib
import numbers
import os
import sys
import time
import warnings

import numpy as np
from ..distributed import ParallelEnv

__all__ = [
    "Callback",
    "ProgBarLogger",
    "ModelCheckpoint",
    "EarlyStopping",
    "LRScheduler",
    "ReduceLROnPlateau",
    "VisualDL",
    "WandbCallback",
    "CallbackList",
]


class Callback:
    """Base class: override the on_* methods you need. self.model is the Model,
    self.params holds batch_size, epochs, steps, verbose, metrics."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_eval_begin(self, logs=None): ...
    def on_eval_end(self, logs=None): ...
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_train_batch_begin(self, step, logs=None): ...
    def on_train_batch_end(self, step, logs=None): ...
    def on_eval_batch_begin(self, step, logs=None): ...
    def on_eval_batch_end(self, step, logs=None): ...
    def on_predict_batch_begin(self, step, logs=None): ...
    def on_predict_batch_end(self, step, logs=None): ...


class CallbackList:
    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __getattr__(self, name):
        if not name.startswith("on_") and name not in ("set_params", "set_model"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            for c in self.callbacks:
                getattr(c, name)(*args, **kwargs)

        return call


def _fmt(v):
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, numbers.Real):
        return f"{v:.4f}" if abs(v) >= 1e-3 or v == 0 else f"{v:.4e}"
    return str(v)


class ProgBarLogger(Callback):
    """Progress of training and evaluation: verbose=1 draws a progress bar (tqdm) with
    the loss, the metrics, samples/s and the time remaining; verbose=2 prints a line
    every log_freq steps and one per epoch (Paddle's format); 0 prints nothing."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        if not isinstance(log_freq, int) or log_freq < 1:
            raise ValueError(
                f"ProgBarLogger: argument 'log_freq' must be a positive int, got {log_freq!r}"
            )
        if verbose not in (0, 1, 2, 3):
            raise ValueError(
                f"ProgBarLogger: argument 'verbose' must be 0, 1, 2 or 3, got {verbose!r}"
            )
        self.log_freq, self.verbose = log_freq, verbose
        self._bar = None

    def _keys(self, logs):
        return [k for k in logs if k not in ("batch_size", "step")]

    def _line(self, logs):
        return " - ".join(f"{k}: {_fmt(logs[k])}" for k in self._keys(logs))

    def _begin(self, total, desc):
        self._t0 = time.perf_counter()
        self._samples = 0
        self._total = total
        if self.verbose == 1:
            from tqdm import tqdm  # type: ignore[import-untyped]  # optional dependency: tqdm

            self._bar = tqdm(
                total=total, desc=desc, unit="step", file=sys.stdout, dynamic_ncols=True, leave=True
            )

    def _step(self, step, logs, prefix):
        logs = logs or {}
        self._samples += logs.get("batch_size", 0)
        elapsed = time.perf_counter() - self._t0
        rate = self._samples / elapsed if elapsed > 0 else 0.0
        if self.verbose == 1 and self._bar is not None:
            self._bar.update(1)
            if (step + 1) % self.log_freq == 0 or step + 1 == self._total:
                post = {k: _fmt(logs[k]) for k in self._keys(logs)}
                post["samples/s"] = f"{rate:.0f}"
                self._bar.set_postfix(post, refresh=False)
        elif self.verbose >= 2 and ((step + 1) % self.log_freq == 0 or step + 1 == self._total):
            total = self._total if self._total is not None else "?"
            ms = elapsed * 1000 / (step + 1)
            left = ""
            if isinstance(self._total, int):
                left = f" - ETA: {ms * (self._total - step - 1) / 1000:.0f}s"
            print(
                f"{prefix}step {step + 1}/{total} - {self._line(logs)} - {rate:.0f} samples/s"
                f" - {ms:.0f}ms/step{left}",
                flush=True,
            )

    def _end(self, logs, prefix):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self.verbose and logs:
            elapsed = time.perf_counter() - self._t0
            rate = self._samples / elapsed if elapsed > 0 else 0.0
            print(f"{prefix}{self._line(logs)} - {elapsed:.1f}s - {rate:.0f} samples/s", flush=True)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.params.get('epochs', '?')}", flush=True)
        self._begin(self.params.get("steps"), "train")

    def on_train_batch_end(self, step, logs=None):
        self._step(step, logs, "")

    def on_epoch_end(self, epoch, logs=None):
        self._end(logs, "train: ")

    def on_eval_begin(self, logs=None):
        if self.verbose:
            print("Eval begin...", flush=True)
        self._begin((logs or {}).get("steps"), "eval")

    def on_eval_batch_end(self, step, logs=None):
        self._step(step, logs, "Eval ")

    def on_eval_end(self, logs=None):
        self._end(logs, "Eval samples: " + str(self._samples) + " - ")

    def on_predict_begin(self, logs=None):
        self._begin((logs or {}).get("steps"), "predict")

    def on_predict_batch_end(self, step, logs=None):
        self._step(step, logs, "Predict ")

    def on_predict_end(self, logs=None):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class ModelCheckpoint(Callback):
    """Save the model (and optimizer) every save_freq epochs to save_dir/<epoch> and at
    the end to save_dir/final."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self.save_dir and (epoch + 1) % self.save_freq == 0:
            self.model.save(os.path.join(self.save_dir, str(epoch)))

    def on_train_end(self, logs=None):
        if self.save_dir:
            self.model.save(os.path.join(self.save_dir, "final"))


class EarlyStopping(Callback):
    """Stop training when the monitored evaluation value stops improving for patience
    evaluations; save_best_model keeps save_dir/best_model (needs fit's save_dir)."""

    def __init__(
        self,
        monitor="loss",
        mode="auto",
        patience=0,
        verbose=1,
        min_delta=0,
        baseline=None,
        save_best_model=True,
    ):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(
                f"EarlyStopping: argument 'mode' must be auto, min or max, got {mode!r}"
            )
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.save_best_model = baseline, save_best_model
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.better = (
            (lambda a, b: a < b - abs(min_delta))
            if mode == "min"
            else (lambda a, b: a > b + abs(min_delta))
        )
        self.wait, self.best, self.stopped_epoch = 0, None, 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.best = self.baseline if self.baseline is not None else None

    def on_eval_end(self, logs=None):
        if not logs or self.monitor not in logs:
            return
        v = logs[self.monitor]
        v = float(v[0] if isinstance(v, (list, tuple)) else v)
        if self.best is None or self.better(v, self.best):
            self.best, self.wait = v, 0
            save_dir = self.params.get("save_dir")
            if self.save_best_model and save_dir:
                self.model.save(os.path.join(save_dir, "best_model"))
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.model.stop_training = True
                if self.verbose:
                    print(
                        f"Early stopping: {self.monitor} did not improve on {self.best} for "
                        f"{self.wait} evaluations",
                        flush=True,
                    )


class LRScheduler(Callback):
    """Step the optimizer's learning-rate scheduler after every batch (by_step) or
    every epoch (by_epoch)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step == by_epoch:
            raise ValueError("LRScheduler: exactly one of by_step and by_epoch must be True")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self):
        opt = getattr(self.model, "_optimizer", None)
        sched = getattr(opt, "_lr_scheduler", None)
        if sched is not None:
            sched.step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()


def _local_rank_zero():
    # Logging backends write once per node, from the first local process (as Paddle).
    return ParallelEnv().local_rank == 0


def _import_optional(module_name, err_msg=None):
    """The module, or an ImportError naming the pip package that provides it."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            err_msg = (
                f"Failed importing {module_name}. This likely means that some oar "
                f"modules require additional dependencies that have to be manually "
                f"installed (usually with `pip install {module_name}`). "
            )
        raise ImportError(err_msg) from None


def _scalar_of(value):
    """A loggable number from a log entry: the first item of a list/tuple, the number
    itself, or None for anything else (arrays, strings)."""
    if isinstance(value, (list, tuple)):
        return value[0]
    if isinstance(value, numbers.Number):
        return value
    return None


class ReduceLROnPlateau(Callback):
    """Reduce the learning rate when an evaluation value has stopped improving.

    After every evaluation (Model.fit's eval_data, or Model.evaluate) the monitored
    value is compared with the best seen so far; after `patience` evaluations without
    an improvement of more than `min_delta`, the optimizer's learning rate becomes
    max(lr * factor, min_lr), and `cooldown` evaluations pass before counting again.
    Only a float learning rate is changed: with an LRScheduler (or a non-float rate)
    a warning is issued and nothing happens, as in Paddle.

    Args:
        monitor (str, optional): The evaluation log entry to watch. Default: 'loss'.
        factor (float, optional): new_lr = lr * factor; must be < 1.0. Default: 0.1.
        patience (int, optional): Evaluations without improvement before the rate is
            reduced. Default: 10.
        verbose (int, optional): 1 prints a line on every reduction, 0 is quiet.
            Default: 1.
        mode (str, optional): 'min' (improvement = decrease), 'max' (increase) or
            'auto' ('max' when 'acc' is in monitor, otherwise 'min'). An unknown mode
            warns and falls back to 'auto'. Default: 'auto'.
        min_delta (float, optional): The smallest change that counts as an
            improvement. Default: 1e-4.
        cooldown (int, optional): Evaluations to wait after a reduction before
            counting again. Default: 0.
        min_lr (float, optional): The lower bound of the learning rate. Default: 0.

    Raises:
        ValueError: factor >= 1.0.
    """

    def __init__(
        self,
        monitor='loss',
        factor=0.1,
        patience=10,
        verbose=1,
        mode='auto',
        min_delta=1e-4,
        cooldown=0,
        min_lr=0,
    ):
        super().__init__()
        if factor >= 1.0:
            raise ValueError('ReduceLROnPlateau does not support a factor >= 1.0.')
        self.monitor, self.factor, self.min_lr = monitor, factor, min_lr
        self.min_delta, self.patience, self.verbose = min_delta, patience, verbose
        self.cooldown, self.cooldown_counter = cooldown, 0
        self.wait, self.best, self.mode = 0, 0, mode
        self.monitor_op = None
        self.epoch = 0
        self._reset()

    def _reset(self):
        """Forget the best value and the wait and cooldown counters."""
        if self.mode not in ('auto', 'min', 'max'):
            warnings.warn(
                f'Learning rate reduction mode {self.mode} is unknown, fallback to auto mode.'
            )
            self.mode = 'auto'
        if self.mode == 'min' or (self.mode == 'auto' and 'acc' not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self):
        """Whether a reduction happened less than `cooldown` evaluations ago.

        Returns:
            bool
        """
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn('Monitor of ReduceLROnPlateau should be loss or metric name.')
            return
        try:
            lr = self.model._optimizer._learning_rate
        except Exception as e:  # e.g. evaluate() on a Model prepared without an optimizer
            warnings.warn(f'There are something wrong when get learning_rate from optimizer: {e}.')
            return
        # A scheduler owns the rate; overwriting it would silently detach the scheduler.
        if not isinstance(lr, float):
            warnings.warn(f'Expected learning_rate be float, bug got {type(lr)}.')
            return

        current = _scalar_of(logs[self.monitor])
        if current is None:
            return

        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0

        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                opt = self.model._optimizer
                old_lr = opt.get_lr()
                # Compared in float32, as Paddle: a rate already at min_lr up to float32
                # rounding is left alone.
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    opt._learning_rate = float(new_lr)
                    if self.verbose > 0 and _local_rank_zero():
                        print(
                            f'\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing '
                            f'learning rate to {new_lr}.'
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class _ScalarLogger(Callback):
    """What VisualDL and WandbCallback share: each training batch's and each evaluation's
    scalars go to the subclass's _updates(logs, mode) (on the writing process only)."""

    def on_train_begin(self, logs=None):
        self.epochs = self.params['epochs']
        assert self.epochs
        self.train_metrics = self.params['metrics']
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        if self._is_write():
            self._updates(logs, 'train')

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get('steps', None)
        # oar's Model does not pass the metric names to on_eval_begin; evaluation logs
        # the same names as training ('loss' and the metrics), so fit's list serves.
        self.eval_metrics = logs.get('metrics', self.params.get('metrics', []))
        self.eval_step = 0
        self.evaled_samples = 0


class VisualDL(_ScalarLogger):
    """Write the training and evaluation loss and metrics to a VisualDL log.

    Needs the `visualdl` package; as in Paddle, it is imported at the first value
    written, so constructing the callback works without it and training raises
    ImportError at the end of the first batch when it is missing. Training values are
    logged every batch under 'train/<name>' (step = batches so far), evaluation values
    once per evaluation under 'eval/<name>' (step = epoch).

    Args:
        log_dir (str): The directory of the VisualDL log.
    """

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _is_write(self):
        return _local_rank_zero()

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params['steps']
        self.epoch = epoch

    def _updates(self, logs, mode):
        if not self._is_write():
            return
        if not hasattr(self, 'writer'):
            visualdl = _import_optional('visualdl')
            self.writer = visualdl.LogWriter(self.log_dir)
        metrics = getattr(self, f'{mode}_metrics')
        step = self.train_step if mode == 'train' else self.epoch
        for k in metrics:
            if k in logs:
                value = _scalar_of(logs[k])
                if value is not None:
                    self.writer.add_scalar(tag=f'{mode}/{k}', step=step, value=value)

    def on_train_end(self, logs=None):
        if hasattr(self, 'writer'):
            self.writer.close()
            delattr(self, 'writer')

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs, 'eval')
            # A standalone evaluate() has no on_train_end to close the log.
            if not hasattr(self, '_is_fit') and hasattr(self, 'writer'):
                self.writer.close()
                delattr(self, 'writer')


class WandbCallback(_ScalarLogger):
    """Log the training and evaluation loss and metrics to Weights & Biases.

    Needs the `wandb` package: construction imports it (ImportError when missing, as
    Paddle) and starts a run with wandb.init(**args), or reuses the run in progress
    (with a warning). Training values go to 'train/<name>' against 'train/step',
    evaluation values to 'eval/<name>' against 'epoch'.

    Args:
        project (str|None, optional): The project name. Default: None.
        entity (str|None, optional): The team or user creating the run. Default: None.
        name (str|None, optional): The run name. Default: None.
        dir (str|None, optional): The directory of the run metadata. Default: None.
        mode (str|None, optional): 'online', 'offline' or 'disabled'. Default: None.
        job_type (str|None, optional): The run type, for grouping. Default: None.
        **kwargs: Further arguments of wandb.init.

    Raises:
        ImportError: wandb is not installed.
    """

    def __init__(
        self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs
    ):
        super().__init__()
        self.wandb = _import_optional(
            "wandb",
            "You want to use `wandb` which is not installed yet install it with "
            "`pip install wandb`",
        )
        self.wandb_args = {
            'project': project,
            'name': name,
            'entity': entity,
            'dir': dir,
            'mode': mode,
            'job_type': job_type,
        }
        self._run = None
        self.wandb_args.update(**kwargs)
        _ = self.run

    def _is_write(self):
        return _local_rank_zero()

    @property
    def run(self):
        """The wandb run (None on processes other than local rank 0)."""
        if self._is_write() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn(
                    "There is a wandb run already in progress and newly created instances"
                    " of `WandbCallback` will reuse this run. If this is not desired"
                    " , call `wandb.finish()` before instantiating `WandbCallback`."
                )
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        if self._is_write():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def on_epoch_begin(self, epoch, logs=None):
        self.steps = self.params['steps']
        self.epoch = epoch

    def _updates(self, logs, mode):
        if not self._is_write():
            return
        metrics = getattr(self, f'{mode}_metrics')
        if mode == 'train':
            out = {'train/step': self.train_step}
        else:
            out = {'epoch': self.epoch}
        for k in metrics:
            if k in logs:
                value = _scalar_of(logs[k])
                if value is not None:
                    out[f'{mode}/{k}'] = value
        self.run.log(out)

    def on_train_end(self, logs=None):
        if self._is_write():
            self.run.finish()

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs, 'eval')
            # A standalone evaluate() ends its run here; the next one starts afresh.
            if not hasattr(self, '_is_fit') and self._run is not None:
                self._run.finish()
                self._run = None
