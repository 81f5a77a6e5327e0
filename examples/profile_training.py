"""Profiles a few training steps of the README's CNN (random Fashion-MNIST-shaped
data, so nothing to download) and prints the summary; docs/profiler.md shows
the output.

    python examples/profile_training.py [--steps 5] [--trace-dir profiler_log]

The scheduler records steps 1-3; the Chrome trace goes to --trace-dir (open it
in chrome://tracing or https://ui.perfetto.dev).
"""
import argparse
import os
import sys

import numpy as np

import oar
import oar.profiler as profiler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_cnn import CNN  # noqa: E402  (the demo's model)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--trace-dir", default="profiler_log")
    args = p.parse_args()
    oar.seed(0)
    rng = np.random.default_rng(0)
    n = 64 * args.steps
    images = oar.to_tensor(rng.standard_normal((n, 1, 28, 28)).astype("float32"))
    labels = oar.to_tensor(rng.integers(0, 10, (n,)).astype("int64"))
    loader = oar.io.DataLoader(oar.io.TensorDataset([images, labels]), batch_size=64)
    model = CNN()
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    prof = profiler.Profiler(scheduler=(1, 4), with_flops=True,
                             on_trace_ready=profiler.export_chrome_tracing(args.trace_dir))
    with prof:
        for x, y in loader:
            with profiler.RecordEvent("forward+loss"):
                loss = oar.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            prof.step(num_samples=x.shape[0])
    prof.summary(op_detail=True, time_unit="ms")
    print("trace:", prof.last_trace_path)


if __name__ == "__main__":
    main()
