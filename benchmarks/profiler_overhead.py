"""Per-op cost of the profiler, off vs on, in one process (not a test).

    python benchmarks/profiler_overhead.py [--number N] [--repeat R]

Cases: `a + b` on 1-element float32 tensors with grad recording, and a 100-op
chain (y = y * b) forward + backward, per op. Columns:
  off        no profiler anywhere (Note [Profiler cost when off]: one relaxed
             atomic load and a branch per span);
  other      a profiler records another thread (this one checks its own state
             and records nothing);
  on         a profiler records this thread (default options);
  on+shapes  record_shapes, profile_memory and with_flops.
Each number is the best of R repeats of N calls (timeit; the modes interleaved
within each repeat), in ns per op; the ratio is to "off". A fresh profiler records each repeat, so its buffers start
empty. The lead compares "off" against a build without the profiler code.
"""
import argparse
import os
import threading
import timeit

import _machine

os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ.pop("OPENBLAS_L2_SIZE", None)

import oar  # noqa: E402
from oar.profiler import Profiler  # noqa: E402


def once_ns(fn, number, per, make_profiler=None):
    prof = make_profiler() if make_profiler else None
    if prof:
        prof.start()
    t = timeit.timeit(fn, number=number)
    if prof:
        prof.stop()
    return t / number / per * 1e9


def best_ns(fn, number, repeat, per, modes):
    """The best of `repeat` runs per mode, the modes interleaved within each
    repeat so that drifts of the machine hit all of them alike."""
    best = {m: float("inf") for m in modes}
    for _ in range(repeat):
        for m, make in modes.items():
            best[m] = min(best[m], once_ns(fn, number, per, make))
    return best


class OtherThread:
    """A profiler recording a thread that waits: this thread's flag check is on."""

    def __init__(self):
        self._go, self._stop = threading.Event(), threading.Event()

    def start(self):
        def run():
            with Profiler(on_trace_ready=lambda p: None):
                self._go.set()
                self._stop.wait()
        self._t = threading.Thread(target=run)
        self._t.start()
        self._go.wait()

    def stop(self):
        self._stop.set()
        self._t.join()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    n, r = args.number, args.repeat

    ag = oar.to_tensor([1.0], stop_gradient=False)
    bg = oar.to_tensor([2.0], stop_gradient=False)

    def add():
        ag + bg

    def chain():
        y = ag
        for _ in range(100):
            y = y * bg
        y.backward()

    modes = {
        "off": None,
        "other": OtherThread,
        "on": lambda: Profiler(on_trace_ready=lambda p: None),
        "on+shapes": lambda: Profiler(on_trace_ready=lambda p: None, record_shapes=True,
                                      profile_memory=True, with_flops=True),
    }
    cases = [("a + b (grad), per op", add, n, 1),
             ("100-op chain fwd+bwd, per op", chain, max(n // 100, 1), 100)]
    print(_machine.describe())
    print(f"{'case':32s}" + "".join(f"{m:>12s}" for m in modes) + "   (ns per op; ratio to off)")
    for name, fn, number, per in cases:
        for _ in range(3):  # warm up caches and the allocator
            once_ns(fn, number, per)
        ns = best_ns(fn, number, r, per, modes)
        print(f"{name:32s}" + "".join(f"{ns[m]:12.1f}" for m in modes))
        print(f"{'':32s}" + "".join(f"{ns[m] / ns['off']:11.2f}x" for m in modes))


if __name__ == "__main__":
    main()
