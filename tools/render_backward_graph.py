"""Renders the backward graph of the README's demo CNN (examples/fashion_mnist_cnn.py)
to docs/backward_graph.png with oar.viz.make_dot. No data needed: one random batch.

    python tools/render_backward_graph.py [--out docs/backward_graph.png] [--batch 4]

Needs Graphviz's `dot` (Debian package graphviz).
"""

import argparse
import importlib.util
import os

import oar
from oar.viz import make_dot

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _demo_cnn_class():
    # The example is a script, not a package: load it by path so the picture always
    # shows the model the README trains.
    path = os.path.join(_REPO, "examples", "fashion_mnist_cnn.py")
    spec = importlib.util.spec_from_file_location("fashion_mnist_cnn", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CNN


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(_REPO, "docs", "backward_graph.png"))
    ap.add_argument("--batch", type=int, default=4)
    args = ap.parse_args()
    oar.seed(0)
    model = _demo_cnn_class()()
    model.train()
    x = oar.randn([args.batch, 1, 28, 28])
    y = oar.randint(0, 10, [args.batch])
    loss = oar.nn.functional.cross_entropy(model(x), y)
    loss.name = "loss"
    fmt = os.path.splitext(args.out)[1].lstrip(".") or "png"
    print(make_dot(loss, params=model).render(args.out, format=fmt))


if __name__ == "__main__":
    main()
