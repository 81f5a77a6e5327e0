"""oar.incubate.autotune.set_config: Paddle's switch for kernel, layout and data-loader
auto-tuning. oar records the configuration (get_config() returns it) and changes
nothing: its CPU kernels are chosen by fixed rules (docs/incubate.md)."""

from __future__ import annotations

import copy
import json
import threading
import warnings
from typing import Any

__all__ = ["set_config", "get_config"]

_lock = threading.Lock()
_config = {
    "kernel": {"enable": False, "tuning_range": [1, 10]},
    "layout": {"enable": False},
    "dataloader": {"enable": False},
}


def set_config(config: dict[str, Any] | str | None = None) -> None:
    """config: a dict like {"kernel": {"enable": True, "tuning_range": [1, 5]}, "layout":
    {"enable": True}, "dataloader": {"enable": True}}, the path of a JSON file holding
    one, or None (enable all three). Unknown keys are warned about and ignored, as in
    Paddle."""
    if config is None:
        new = {k: dict(v, enable=True) for k, v in _config.items()}
    else:
        if isinstance(config, str):
            try:
                with open(config) as f:
                    config = json.load(f)
            except (OSError, ValueError) as e:
                raise ValueError(
                    f"set_config: cannot read a JSON configuration from {config!r}: {e}"
                ) from e
        if not isinstance(config, dict):
            raise TypeError(
                f"set_config: argument 'config' must be a dict, a JSON file path or "
                f"None, got {type(config).__name__}"
            )
        new = copy.deepcopy(_config)
        for key, value in config.items():
            if key not in new:
                warnings.warn(f"set_config: unknown key {key!r} (kernel, layout, dataloader)")
                continue
            if not isinstance(value, dict):
                raise TypeError(
                    f"set_config: config[{key!r}] must be a dict, got {type(value).__name__}"
                )
            if "enable" in value and not isinstance(value["enable"], bool):
                raise TypeError(f"set_config: config[{key!r}]['enable'] must be a bool")
            if key == "kernel" and "tuning_range" in value:
                r = value["tuning_range"]
                if not (
                    isinstance(r, (list, tuple))
                    and len(r) == 2
                    and all(isinstance(v, int) and v >= 0 for v in r)
                    and r[0] <= r[1]
                ):
                    raise ValueError(
                        f"set_config: config['kernel']['tuning_range'] must be "
                        f"[start, end] step numbers, got {r!r}"
                    )
            new[key].update(value)
    with _lock:
        _config.clear()
        _config.update(new)


def get_config() -> dict[str, dict[str, Any]]:
    """The configuration set_config recorded (an oar addition)."""
    with _lock:
        return copy.deepcopy(_config)
