"""Captured programs against eager mode, oar and PyTorch side by side in one process
(not a test).

    python3 benchmarks/jit.py [--repeat R] [--threads T] [--out benchmarks/results/jit.md]

Each workload runs in oar eagerly, oar under oar.jit.to_static (the program replayed in
C++, no Python per op), PyTorch eagerly and PyTorch's TorchScript (torch.jit.trace, the
nearest PyTorch has to a captured program that needs no compiler). The figure is the
median of R timed calls after 3 warm-up calls (which include oar's capture and
TorchScript's profiling runs), in microseconds; the ratios are oar's time over
PyTorch's (below 1: oar is faster). Inference runs under no_grad in eval mode; the
training step is forward, mean-square loss, backward and an SGD step.

Workloads: an MLP 64-128-128-10 at batch 1 (per-call overhead), the demo CNN at batch
1, a GPT-style decoder (2 pre-norm blocks, d 64, 4 heads, seq 32, causal mask) at batch
1, a 2-layer LSTM (input 32, hidden 64, seq 35, batch 4; one fused `rnn` op per layer
in both frameworks) forward, and its training step; an element-wise chain over 4M floats
(5 ops that a replay runs as one pass). Two more tables: to_static with its element-wise
chains fused against op by op (FLAGS_jit_fuse_elementwise), and the peak memory of one
inference call, eager against replayed.

OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for this process (benchmarks/_env.py).
"""

import argparse
import statistics
import sys
import time

import _env  # noqa: F401  (thread counts and OpenBLAS overrides, before the frameworks)
import _machine

import numpy as np
import oar
import torch

from oar.static import InputSpec


def median_us(fn, repeat):
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


# ---- the models, in both frameworks --------------------------------------------------------
def mlp():
    o = oar.nn.Sequential(
        oar.nn.Linear(64, 128),
        oar.nn.ReLU(),
        oar.nn.Linear(128, 128),
        oar.nn.ReLU(),
        oar.nn.Linear(128, 10),
    )
    t = torch.nn.Sequential(
        torch.nn.Linear(64, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, 10),
    )
    return o, t, [InputSpec([None, 64])], lambda: np.random.default_rng(0).standard_normal((1, 64))


def cnn():
    def o():
        n = oar.nn
        return n.Sequential(
            n.Conv2D(1, 32, 3, padding=1),
            n.BatchNorm2D(32),
            n.ReLU(),
            n.MaxPool2D(2),
            n.Conv2D(32, 64, 3, padding=1),
            n.BatchNorm2D(64),
            n.ReLU(),
            n.MaxPool2D(2),
            n.Flatten(),
            n.Linear(64 * 7 * 7, 128),
            n.ReLU(),
            n.Linear(128, 10),
        )

    def t():
        n = torch.nn
        return n.Sequential(
            n.Conv2d(1, 32, 3, padding=1),
            n.BatchNorm2d(32),
            n.ReLU(),
            n.MaxPool2d(2),
            n.Conv2d(32, 64, 3, padding=1),
            n.BatchNorm2d(64),
            n.ReLU(),
            n.MaxPool2d(2),
            n.Flatten(),
            n.Linear(64 * 7 * 7, 128),
            n.ReLU(),
            n.Linear(128, 10),
        )

    return (
        o(),
        t(),
        [InputSpec([None, 1, 28, 28])],
        lambda: np.random.default_rng(0).standard_normal((1, 1, 28, 28)),
    )


class OarGPT(oar.nn.Layer):
    def __init__(self, d=64, seq=32):
        super().__init__()
        self.blocks = oar.nn.LayerList(
            [
                oar.nn.TransformerEncoderLayer(
                    d, 4, 4 * d, dropout=0.0, activation="gelu", normalize_before=True
                )
                for _ in range(2)
            ]
        )
        self.ln = oar.nn.LayerNorm(d)

    def forward(self, h):
        n = h.shape[1]
        mask = oar.triu(oar.full([n, n], float("-inf")), 1)
        for b in self.blocks:
            h = b(h, mask)
        return self.ln(h)


class TorchGPT(torch.nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.blocks = torch.nn.ModuleList(
            [
                torch.nn.TransformerEncoderLayer(
                    d, 4, 4 * d, dropout=0.0, activation="gelu", norm_first=True, batch_first=True
                )
                for _ in range(2)
            ]
        )
        self.ln = torch.nn.LayerNorm(d)

    def forward(self, h):
        n = h.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        for b in self.blocks:
            h = b(h, mask)
        return self.ln(h)


def gpt():
    return (
        OarGPT(),
        TorchGPT(),
        [InputSpec([None, 32, 64])],
        lambda: np.random.default_rng(0).standard_normal((1, 32, 64)),
    )


class OarLSTM(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = oar.nn.LSTM(32, 64, num_layers=2)

    def forward(self, x):
        return self.lstm(x)[0]


class TorchLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(32, 64, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


def lstm():
    return (
        OarLSTM(),
        TorchLSTM(),
        [InputSpec([None, 35, 32])],
        lambda: np.random.default_rng(0).standard_normal((4, 35, 32)),
    )


class OarChain(oar.nn.Layer):
    def forward(self, x):
        return oar.nn.functional.relu(oar.tanh(x * 0.5 + 1.0) * x) - x


class TorchChain(torch.nn.Module):
    def forward(self, x):
        return torch.relu(torch.tanh(x * 0.5 + 1.0) * x) - x


def chain():
    return (
        OarChain(),
        TorchChain(),
        [InputSpec([None, 4096])],
        lambda: np.random.default_rng(0).standard_normal((1024, 4096)),
    )


# ---- the runs -------------------------------------------------------------------------------
def peak_mib(fn):
    """Peak bytes oar's allocator held during fn() above what it held before, in MiB."""
    fn()
    before = oar.memory_stats()["bytes_in_use"]
    oar.reset_peak_memory()
    fn()
    return (oar.memory_stats()["peak_bytes"] - before) / 2**20


def fusion(make, repeat):
    """to_static with FLAGS_jit_fuse_elementwise on and off, inference."""
    o, _, spec, data = make()
    o.eval()
    x = oar.to_tensor(data().astype("float32"))
    static_fwd = oar.jit.to_static(o.forward, input_spec=spec)
    out = []
    with oar.no_grad():
        for fuse in (True, False):
            oar.set_flags({"FLAGS_jit_fuse_elementwise": fuse})
            out.append(median_us(lambda: static_fwd(x), repeat))
    oar.set_flags({"FLAGS_jit_fuse_elementwise": True})
    return out


def memory(make):
    o, _, spec, data = make()
    o.eval()
    x = oar.to_tensor(data().astype("float32"))
    eager_fwd = o.forward
    static_fwd = oar.jit.to_static(eager_fwd, input_spec=spec)
    with oar.no_grad():
        return peak_mib(lambda: eager_fwd(x)), peak_mib(lambda: static_fwd(x))


def inference(make, repeat):
    o, t, spec, data = make()
    o.eval()
    t.eval()
    x = data().astype("float32")
    ox, tx = oar.to_tensor(x), torch.from_numpy(x)
    eager_fwd = o.forward
    static_fwd = oar.jit.to_static(eager_fwd, input_spec=spec)
    with oar.no_grad(), torch.no_grad():
        traced = torch.jit.trace(t, tx)
        return (
            median_us(lambda: eager_fwd(ox), repeat),
            median_us(lambda: static_fwd(ox), repeat),
            median_us(lambda: t(tx), repeat),
            median_us(lambda: traced(tx), repeat),
        )


def training(make, repeat):
    o, t, spec, data = make()
    x = data().astype("float32")
    ox, tx = oar.to_tensor(x), torch.from_numpy(x)
    oopt = oar.optimizer.SGD(parameters=o.parameters(), learning_rate=1e-3)
    topt = torch.optim.SGD(t.parameters(), lr=1e-3)
    eager_fwd = o.forward
    static_fwd = oar.jit.to_static(eager_fwd, input_spec=spec)
    traced = torch.jit.trace(t, tx)

    def oar_step(fwd):
        def step():
            loss = (fwd(ox) ** 2).mean()
            loss.backward()
            oopt.step()
            oopt.clear_grad()

        return step

    def torch_step(m):
        def step():
            loss = (m(tx) ** 2).mean()
            loss.backward()
            topt.step()
            topt.zero_grad()

        return step

    return (
        median_us(oar_step(eager_fwd), repeat),
        median_us(oar_step(static_fwd), repeat),
        median_us(torch_step(t), repeat),
        median_us(torch_step(traced), repeat),
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=200)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", help="also write the output here (benchmarks/results/jit.md)")
    args = p.parse_args()
    if args.out:
        _machine.tee(args.out)
    torch.set_num_threads(args.threads)
    oar.seed(0)
    torch.manual_seed(0)
    print("# benchmarks/jit.py: captured programs against eager mode\n")
    print(f"`{_machine.command('benchmarks/jit.py')}`, {time.strftime('%Y-%m-%d')}\n")
    print(_machine.describe())
    for note in _env.UNSET_NOTES:
        print(f"# {note}")
    print(
        f"# oar {oar.__version__}, torch {torch.__version__}, {args.threads} threads, "
        f"median of {args.repeat} calls in us\n"
    )
    print(
        "| workload | oar eager | oar to_static | torch eager | torch.jit.trace "
        "| to_static/eager (oar) | oar to_static/torch eager | oar to_static/torch trace |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = [
        ("MLP 64-128-128-10, batch 1, inference", inference, mlp),
        ("demo CNN, batch 1, inference", inference, cnn),
        ("GPT-style decoder, batch 1, seq 32, inference", inference, gpt),
        ("2-layer LSTM, batch 4, seq 35, inference", inference, lstm),
        ("element-wise chain relu(tanh(x/2+1)*x)-x, 4M floats", inference, chain),
        ("2-layer LSTM, batch 4, seq 35, training step", training, lstm),
    ]
    for name, run, make in rows:
        oe, os_, te, tt = run(make, args.repeat)
        print(
            f"| {name} | {oe:.0f} | {os_:.0f} | {te:.0f} | {tt:.0f} | {os_ / oe:.2f} "
            f"| {os_ / te:.2f} | {os_ / tt:.2f} |"
        )
        sys.stdout.flush()
    print(
        "\nElement-wise chains fused (FLAGS_jit_fuse_elementwise, the default) or run op "
        "by op, to_static inference, us:\n"
    )
    print("| workload | fused | op by op | fused/op by op |")
    print("| --- | ---: | ---: | ---: |")
    for name, run, make in rows:
        if run is inference:
            on, off = fusion(make, args.repeat)
            print(f"| {name} | {on:.0f} | {off:.0f} | {on / off:.2f} |")
    print(
        "\nPeak memory of one inference call (oar's allocator, MiB above what it held "
        "before the call: activations and temporaries):\n"
    )
    print("| workload | oar eager | oar to_static | to_static/eager |")
    print("| --- | ---: | ---: | ---: |")
    for name, run, make in rows:
        if run is inference:
            e, st = memory(make)
            print(f"| {name} | {e:.2f} | {st:.2f} | {st / e:.2f} |")


if __name__ == "__main__":
    main()
