"""DataLoader overlap: how much of the batch loading a DataLoader with worker
threads hides behind the training step, oar against PyTorch 2.13.

    python3 benchmarks/dataloader.py [--steps 30] [--repeats 3] [--batch-size 64]
                                     [--no-torch] [--spin]

Data: the training half of Fashion-MNIST from Debian's dataset-fashion-mnist,
transform ToTensor + Normalize, shuffled, batch 64. Model: the demo's CNN
(examples/fashion_mnist_cnn.py) with Adam; a step is forward, cross-entropy,
backward, optimizer step and clearing the gradients.

Two ways to load a batch:
  batch       - oar's fast path: FashionMNIST.__getitems__ transforms the whole
                batch in a few NumPy operations (torch: the same NumPy code in a
                dataset's __getitems__, which torch's DataLoader also calls).
  per-sample  - Paddle's way: each sample a PIL image through the transforms,
                then collated (oar: collate_fn=default_collate_fn turns the fast
                path off; torch: the same NumPy code in __getitem__).

For each framework and way, in one process (each framework in its own, with
OMP_NUM_THREADS=2, GOMP_SPINCOUNT=1000 and OPENBLAS_CORETYPE unset), over
--steps steps after 5 warm-up steps, the smallest value of --repeats rounds
(other tenants of the machine only ever add time):
  compute  - the median training step on a batch already in memory,
  load     - the mean time to fetch a batch with num_workers=0 and no training,
  w=0, w=2 - the training loop fed by the DataLoader with num_workers 0 and 2:
             the median time per step (fetch + step), and the mean time spent
             waiting for the next batch.
hidden = 1 - wait(w=2) / load: the share of the loading time the workers took
off the critical path (negative: handing a batch over costs more than loading
it). w=2 / compute: how close the fed loop comes to the step alone (1.00 is
perfect overlap; above it, the workers' CPU use slows the step: on 2 cores
they compete with its 2 OpenMP threads).

Why GOMP_SPINCOUNT=1000 (--spin leaves the runtime's default; oar and torch
both use libgomp): on a machine shared with other processes, OpenMP threads
that spin at every barrier lose whole time slices to them, and the same CNN
step takes 80 or 780 ms depending on what else runs. A DataLoader worker thread
that starts OpenMP work of its own (the batch path's conversion to a tensor
does: each such worker gets a team) makes libgomp count more threads than cores
and drop to its throttled spin count of 1000, which then looks like a 9x
speed-up from num_workers=2 that has nothing to do with overlap. Setting that
spin count from the start takes the effect out of the comparison
(OMP_WAIT_POLICY=passive does too, but slows torch's step by half).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import _machine

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530


def _idx(path):
    import gzip

    import numpy as np
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def _round(step, batches, compute_batch, steps):
    warm = 5
    for _ in range(warm):
        step(*compute_batch)
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step(*compute_batch)
        times.append(time.perf_counter() - t)
    out = {"compute": statistics.median(times)}

    it = iter(batches(0))
    for _ in range(warm):
        next(it)
    t = time.perf_counter()
    for _ in range(steps):
        next(it)
    out["load"] = (time.perf_counter() - t) / steps

    for w in (0, 2):
        it = iter(batches(w))
        for _ in range(warm):
            step(*next(it))
        wait, times = 0.0, []
        for _ in range(steps):
            t0 = time.perf_counter()
            b = next(it)
            t1 = time.perf_counter()
            step(*b)
            wait += t1 - t0
            times.append(time.perf_counter() - t0)
        out[f"step_w{w}"] = statistics.median(times)
        out[f"wait_w{w}"] = wait / steps
        del it  # stops the workers before the next measurement
    return out


def _measure(step, batches, compute_batch, args):
    """compute / load / w=0 / w=2 for one way of loading; batches(w) makes a loader."""
    rounds = [_round(step, batches, compute_batch, args.steps) for _ in range(args.repeats)]
    return {k: min(r[k] for r in rounds) for k in rounds[0]}


def run_oar(args):
    import oar
    from oar.vision import datasets
    from oar.vision import transforms as T
    sys.path.insert(0, os.path.join(HERE, "..", "examples"))
    from fashion_mnist_cnn import CNN

    oar.seed(0)
    net = CNN()
    opt = oar.optimizer.Adam(1e-3, parameters=net.parameters())
    loss_fn = oar.nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)

    tf = T.Compose([T.ToTensor(), T.Normalize([MEAN], [STD])])
    ds = datasets.FashionMNIST(mode="train", transform=tf)
    result = {}
    for way, collate in (("batch", None), ("per-sample", oar.io.default_collate_fn)):
        def batches(w, collate=collate):
            return oar.io.DataLoader(ds, batch_size=args.batch_size, shuffle=True,
                                     drop_last=True, num_workers=w, collate_fn=collate)
        first = next(iter(batches(0)))
        result[way] = _measure(step, batches, first, args)
    return result


def run_torch(args):
    import numpy as np
    import torch
    from PIL import Image
    torch.set_num_threads(2)
    torch.manual_seed(0)
    images = _idx(os.path.join(FASHION, "train-images-idx3-ubyte.gz"))
    labels = _idx(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")).astype(np.int64)
    scale = np.float32(1 / 255)

    class PerSample(torch.utils.data.Dataset):
        def __len__(self):
            return len(labels)

        def __getitem__(self, i):
            a = np.asarray(Image.fromarray(images[i], mode="L")).astype(np.float32) * scale
            a = (a[None] - np.float32(MEAN)) / np.float32(STD)
            return torch.from_numpy(a), torch.from_numpy(labels[i:i + 1])

    class Batched(PerSample):
        def __getitems__(self, indices):
            idx = np.asarray(indices)
            a = images[idx].astype(np.float32) * scale
            a = (a[:, None] - np.float32(MEAN)) / np.float32(STD)
            return [(torch.from_numpy(a), torch.from_numpy(labels[idx][:, None]))]

    nn = torch.nn
    net = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.25), nn.Linear(128, 10))
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(net(x), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        return float(loss)

    result = {}
    for way, ds, collate in (("batch", Batched(), lambda b: b[0]), ("per-sample", PerSample(),
                                                                     None)):
        def batches(w, ds=ds, collate=collate):
            return torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=True,
                                               drop_last=True, num_workers=w,
                                               collate_fn=collate)
        first = next(iter(batches(0)))
        result[way] = _measure(step, batches, first, args)
    return result


def spawn(fw, args):
    env = dict(os.environ, OMP_NUM_THREADS="2")
    if not args.spin:
        env["GOMP_SPINCOUNT"] = "1000"
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", fw, "--steps",
                        str(args.steps), "--batch-size", str(args.batch_size), "--repeats",
                        str(args.repeats)],
                       capture_output=True, text=True, env=env, cwd="/tmp")
    if r.returncode != 0:
        tail = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"
        print(f"# {fw} failed: {tail}")
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--spin", action="store_true",
                   help="keep the OpenMP runtime's default spin count")
    p.add_argument("--worker", choices=["oar", "torch"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        res = (run_oar if args.worker == "oar" else run_torch)(args)
        print(json.dumps(res))
        return 0
    spin = "default" if args.spin else "1000"
    print(_machine.describe())
    print(f"# {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, OMP_NUM_THREADS=2, "
          f"GOMP_SPINCOUNT {spin}, batch "
          f"{args.batch_size}, {args.steps} steps, best of {args.repeats} rounds; "
          f"ms per step")
    print("| framework | loading | compute | load | step w=0 | wait w=0 | step w=2 | wait w=2 | "
          "hidden | w=2 / compute |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for fw in ("oar",) + (() if args.no_torch else ("torch",)):
        res = spawn(fw, args)
        for way, m in (res or {}).items():
            ms = {k: v * 1e3 for k, v in m.items()}
            hidden = 1 - m["wait_w2"] / m["load"]
            ratio = m["step_w2"] / m["compute"]
            print(f"| {fw} | {way} | {ms['compute']:.1f} | {ms['load']:.2f} | "
                  f"{ms['step_w0']:.1f} | {ms['wait_w0']:.2f} | {ms['step_w2']:.1f} | "
                  f"{ms['wait_w2']:.2f} | {hidden:.0%} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
