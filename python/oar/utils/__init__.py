"""oar.utils: run_check, Paddle's installation check, and require_version."""
from __future__ import annotations

import re

__all__ = ["run_check", "require_version"]

# The Paddle release whose API oar follows: what require_version compares with, since a
# Paddle program asking for "2.0 or later" asks for an API level, not for oar's own version.
PADDLE_API_VERSION = "3.3.1"
_VERSION = re.compile(r"\d+(\.\d+){0,3}")


def _parts(v, arg):
    if not isinstance(v, str):
        raise TypeError(f"require_version(): argument '{arg}' must be a str, got "
                        f"{type(v).__name__}")
    if not _VERSION.fullmatch(v):
        raise ValueError(f"require_version(): argument '{arg}' must look like '1.5.2' (up to "
                         f"four numbers), got {v!r}")
    n = [int(x) for x in v.split(".")]
    return n + [0] * (4 - len(n))


def require_version(min_version, max_version=None):
    """Checks that the Paddle API oar provides (that of Paddle 3.3.1) is within
    [min_version, max_version]; raises a RuntimeError (an Exception, as Paddle's) when not.

    Args:
        min_version (str): The lowest acceptable version, like '2.0.0'.
        max_version (str|None, optional): The highest acceptable one; None for no bound.

    Returns:
        None.
    """
    lo = _parts(min_version, "min_version")
    hi = None if max_version is None else _parts(max_version, "max_version")
    have = _parts(PADDLE_API_VERSION, "PADDLE_API_VERSION")
    if have < lo or (hi is not None and have > hi):
        want = (f"in [{min_version}, {max_version}]" if hi is not None
                else f"{min_version} or higher")
        raise RuntimeError(f"require_version(): PaddlePaddle version {want} is required; oar "
                        f"provides the API of Paddle {PADDLE_API_VERSION}")


def run_check():
    """Checks the installation: trains one step of a tiny linear model on the CPU, checks
    the forward result and the gradients against their closed forms, and prints the
    outcome. Raises RuntimeError if a number is wrong."""
    import numpy as np

    from .. import nn, to_tensor
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
        "weight gradient": (layer.weight.grad.numpy(), 2.0 / 3.0 * x_np.T.astype("float64") @ y_ref),
        "bias gradient": (layer.bias.grad.numpy(), 2.0 / 3.0 * y_ref.sum(axis=0)),
    }
    for name, (got, want) in checks.items():
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            raise RuntimeError(f"run_check: the {name} is wrong: got {got.tolist()}, "
                               f"expected {want.tolist()}; the oar installation is broken")
    print("oar works well on 1 CPU.")
    print("oar is installed successfully! Let's start deep learning with oar now.")
