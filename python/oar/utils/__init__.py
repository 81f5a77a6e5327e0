"""oar.utils: run_check, Paddle's installation check."""
from __future__ import annotations

__all__ = ["run_check"]


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
