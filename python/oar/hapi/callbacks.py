"""oar.callbacks: hooks into Model.fit / evaluate / predict (Paddle's paddle.callbacks)."""
from __future__ import annotations

import numbers
import os
import sys
import time

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping", "LRScheduler",
           "CallbackList"]


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
            raise ValueError(f"ProgBarLogger: argument 'log_freq' must be a positive int, got "
                             f"{log_freq!r}")
        if verbose not in (0, 1, 2, 3):
            raise ValueError(f"ProgBarLogger: argument 'verbose' must be 0, 1, 2 or 3, got "
                             f"{verbose!r}")
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
            from tqdm import tqdm  # type: ignore[import-untyped]
            self._bar = tqdm(total=total, desc=desc, unit="step", file=sys.stdout,
                             dynamic_ncols=True, leave=True)

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
            print(f"{prefix}step {step + 1}/{total} - {self._line(logs)} - {rate:.0f} samples/s"
                  f" - {ms:.0f}ms/step{left}", flush=True)

    def _end(self, logs, prefix):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self.verbose and logs:
            elapsed = time.perf_counter() - self._t0
            rate = self._samples / elapsed if elapsed > 0 else 0.0
            print(f"{prefix}{self._line(logs)} - {elapsed:.1f}s - {rate:.0f} samples/s",
                  flush=True)

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

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: argument 'mode' must be auto, min or max, got "
                             f"{mode!r}")
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.save_best_model = baseline, save_best_model
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.better = (lambda a, b: a < b - abs(min_delta)) if mode == "min" else \
            (lambda a, b: a > b + abs(min_delta))
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
                    print(f"Early stopping: {self.monitor} did not improve on {self.best} for "
                          f"{self.wait} evaluations", flush=True)


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

