"""oar.utils: run_check (Paddle's installation check), require_version, try_import,
deprecated, and the submodules unique_name, cpp_extension and dlpack."""

from __future__ import annotations

import numpy as np

import functools
import importlib
import re
import warnings
from types import ModuleType
from typing import Any, Callable

from . import cpp_extension, dlpack, unique_name  # noqa: F401
from .. import nn
from ..tensor.creation import to_tensor
from .. import version

__all__ = ["run_check", "require_version", "try_import", "deprecated"]


def run_check() -> None:
    """Checks the installation: trains one step of a tiny linear model on the CPU, checks
    the forward result and the gradients against their closed forms, and prints the
    outcome. Raises RuntimeError if a number is wrong."""

    print("Running verify oar program ...")
    x_np = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype="float32")
    layer = nn.Linear(2, 1)
    w = layer.weight.numpy().astype("float64")
    b = layer.bias.numpy().astype("float64")
    x = to_tensor(x_np)
    y = layer(x)
    loss = (y * y).mean()
    loss.backward()
    # loss = mean((x w + b)^2): d/dw = 2/n x^T (x w + b), d/db = 2/n sum(x w + b).
    y_ref = x_np.astype("float64") @ w + b
    checks = {
        "forward": (y.numpy(), y_ref),
        "weight gradient": (
            layer.weight.grad.numpy(),
            2.0 / 3.0 * x_np.T.astype("float64") @ y_ref,
        ),
        "bias gradient": (layer.bias.grad.numpy(), 2.0 / 3.0 * y_ref.sum(axis=0)),
    }
    for name, (got, want) in checks.items():
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            raise RuntimeError(
                f"run_check: the {name} is wrong: got {got.tolist()}, "
                f"expected {want.tolist()}; the oar installation is broken"
            )
    print("oar works well on 1 CPU.")
    print("oar is installed successfully! Let's start deep learning with oar now.")


def _version_tuple(api, arg, v):
    if not isinstance(v, str):
        raise TypeError(f"{api}(): argument '{arg}' must be str, but got {type(v).__name__}")
    if not re.fullmatch(r"\d+(\.\d+){0,3}", v):
        raise ValueError(
            f"{api}(): argument '{arg}' must look like '1', '1.2', '1.2.3' or "
            f"'1.2.3.4', but got {v!r}"
        )
    parts = [int(p) for p in v.split(".")]
    return tuple(parts + [0] * (4 - len(parts)))


def require_version(min_version: str, max_version: str | None = None) -> None:
    """Checks that the Paddle API oar follows (oar.version.paddle_version, 3.3.1) is at
    least min_version and, if given, at most max_version; raises Exception otherwise, as
    Paddle does. The check is against the Paddle version whose API oar implements,
    because that is what Paddle code asking for a version means."""
    lo = _version_tuple("require_version", "min_version", min_version)
    hi = (
        None
        if max_version is None
        else _version_tuple("require_version", "max_version", max_version)
    )
    if hi is not None and hi < lo:
        raise ValueError(
            f"require_version(): max_version {max_version!r} is below min_version {min_version!r}"
        )
    have = _version_tuple("require_version", "paddle_version", version.paddle_version)
    if have < lo or (hi is not None and have > hi):
        want = f">= {min_version}" + ("" if hi is None else f" and <= {max_version}")
        raise Exception(
            f"require_version(): oar follows the Paddle {version.paddle_version} "
            f"API, but {want} is required"
        )


def try_import(module_name: str, err_msg: str | None = None) -> ModuleType:
    """Imports module_name, or raises ImportError with err_msg (or a hint to pip install
    it)."""
    if not isinstance(module_name, str):
        raise TypeError(
            f"try_import(): argument 'module_name' must be str, but got "
            f"{type(module_name).__name__}"
        )
    try:
        return importlib.import_module(module_name)
    except ImportError:
        msg = err_msg or (
            f"{module_name} is needed here but is not installed; install it "
            f"with `pip install {module_name.split('.')[0]}`"
        )
        raise ImportError(msg) from None


def deprecated(
    update_to: str = "", since: str = "", reason: str = "", level: int = 0
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator marking a function deprecated: level 0 only notes it in the docstring,
    1 also warns (DeprecationWarning) at each call, 2 makes calls raise RuntimeError."""
    if level not in (0, 1, 2):
        raise ValueError(f"deprecated(): argument 'level' must be 0, 1 or 2, but got {level!r}")

    def wrap(fn):
        msg = f"API \"{fn.__module__}.{fn.__name__}\" is deprecated"
        if since:
            msg += f" since {since}"
        if update_to:
            msg += f", and will be removed in future versions. Please use \"{update_to}\" instead"
        if reason:
            msg += f". Reason: {reason}"
        fn.__doc__ = f"Warning: {msg}\n\n{fn.__doc__ or ''}"
        if level == 0:
            return fn

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            if level == 2:
                raise RuntimeError(msg)
            warnings.warn(msg, DeprecationWarning, stacklevel=2)
            return fn(*args, **kwargs)

        return inner

    return wrap
