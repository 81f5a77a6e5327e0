"""Fits a small MLP to y = sin(3x) + noise with plain SGD, using oar's Python API.

    python examples/mlp_regression.py [steps]

Exits non-zero unless the final loss is well below the initial one, so it
doubles as a smoke test of the whole stack (ops, autograd, in-place updates).
"""
import sys

import oar


def main(steps=1500, lr=0.1, hidden=32, n=256):
    oar.seed(0)
    x = oar.uniform([n, 1], min=-1.0, max=1.0)
    y = oar.sin(3 * x) + 0.05 * oar.randn([n, 1])

    def param(*shape, scale):
        p = oar.randn(list(shape)) * scale
        p.stop_gradient = False
        return p

    w1, b1 = param(1, hidden, scale=1.0), param(hidden, scale=0.1)
    w2, b2 = param(hidden, 1, scale=hidden ** -0.5), param(1, scale=0.1)
    params = [w1, b1, w2, b2]

    first = None
    for step in range(steps):
        h = oar.tanh(x @ w1 + b1)
        pred = h @ w2 + b2
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with oar.no_grad():
            for p in params:
                p.subtract_(p.grad * lr)
                p.clear_grad()
        value = loss.item()
        first = value if first is None else first
        if step % max(1, steps // 10) == 0 or step == steps - 1:
            print(f"step {step:5d}  loss {value:.5f}")
    print(f"loss: {first:.5f} -> {value:.5f}")
    return 0 if value < 0.25 * first else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1500))
