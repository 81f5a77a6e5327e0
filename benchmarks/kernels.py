"""Kernel benchmark: oar vs PyTorch vs PaddlePaddle, 2 threads each, one table.

    python benchmarks/kernels.py [--paddle-python PATH] [--repeats N] [--only ROW ...] [--threads 2]
                                 [--bandwidth [--sizes 1M 16M 64M]] [--isa avx2] [--torch-isa avx2]

Each framework is timed in its own worker process running this file (two OpenMP
runtimes in one process, oar's and PyTorch's, leave spinning threads that steal
the cores from each other). The workers stay up for the whole run and take the
rows in turn: every framework times a row before any times the next, so a row's
figures are seconds apart, not minutes (these VMs' memory bandwidth drifts over
minutes), with a pause between hand-offs for the last one's threads to stop
spinning. oar and PyTorch run under this interpreter, Paddle
under --paddle-python, else $OAR_PADDLE_PYTHON, else this interpreter if it can
`import paddle`; without one Paddle is skipped with a note. Every framework
gets the same number of threads (--threads, default 2: OMP_NUM_THREADS,
MKL_NUM_THREADS, OPENBLAS_NUM_THREADS and torch.set_num_threads).

Each row is timed as the median over --repeats samples; a sample runs the
operation enough times to take about 20 ms and reports the time per call.
--stat min reports the fastest single call out of as many, which is the robust
figure on a loaded machine. --rounds N passes over the table N times (who goes
first turns each round) and keeps each row's best or median; the table then
adds "oar/min by round", the lowest and highest of oar over the faster peer in
the single rounds, which says how far a ratio can be trusted.
"backward" rows time forward and the gradients of every input together
(`grad` with an all-ones output gradient). A row whose op does not exist in a
framework prints n/a. Run nothing else meanwhile: the numbers are only
meaningful on an idle machine. The last two rows of the main table loop over short
rows that do not coalesce: a per-channel scale and abs of a matrix's first columns.

Memory bandwidth. A row that streams memory has a byte count (what it must read
and write: every input element read once, every output element written once;
a broadcast operand counted once) and the table gives its GB/s and that figure
over the machine's copy bandwidth at the same size ("of copy"): a 2-thread
np.copyto of a float32 array (one half per Python thread; numpy releases the GIL),
measured by this process between the frameworks' runs. "numpy add" (np.add with
out=, the same split) is the same reference for a kernel that reads two streams
and writes one. A copy with ordinary stores also reads the destination's lines
before writing them, so "of copy" near 1 is the best a row of ordinary stores can
reach. --bandwidth adds rows at --sizes elements (default 1M 16M 64M, as
[n / 1024, 1024] float32): add, broadcast multiply and where, out of place and in
place, on contiguous, broadcast and strided (a transposed or every-other-column
view) inputs; full sum, sums and max over each axis; layer_norm forward+backward.

ISA. --isa avx2 (or sse2, avx512) sets OAR_MAX_CPU_ISA for the oar process: it
caps the kernels oar dispatches at run time (vec_math's exp/log/tanh, sums and
max; gelu; the 2x2 max pool; oneDNN), not the rest of the library, which is
compiled for the building CPU (-march=native): on an AVX-512 machine the
elementwise loops stay AVX-512 code. --torch-isa avx2 sets ATEN_CPU_CAPABILITY
for the PyTorch process (PyTorch otherwise uses its best kernels, AVX-512 where
the CPU has it).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


from _env import THREADS, UNSET_NOTES as _UNSET_NOTES  # noqa: E402  (before the frameworks)
import _machine  # noqa: E402


# Between one framework's row and the next framework's: BLAS and OpenMP threads spin for
# a while after their last job, and would take the next framework's cores.
HANDOFF_S = 0.2
# --stat min: a row's single calls stop after this many seconds (and --repeats calls).
MIN_ROW_S = 2.0


class Unavailable(Exception):
    """The framework has no such op (or refuses these arguments)."""


def _count(text):
    """'16M' -> 16 * 2**20 elements; '1000' -> 1000."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def _label(count):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale}{unit}"
    return str(count)


def rows(sizes=()):
    """(name, fn(fw) -> callable, bytes or None, elements) rows; fw is a Framework
    adapter. bytes: what the row must read and write (GB/s column), elements: the
    size of the copy it is compared with."""
    n = 1000

    def unary(op, positive=False):
        def make(fw):
            x = fw.rand([n, n], positive=positive)
            f = fw.op(op)
            return lambda: f(x)

        return make

    def binary(shape_b):
        def make(fw):
            a, b = fw.rand([n, n]), fw.rand(shape_b)
            f = fw.op("multiply" if shape_b != [n, n] else "add")
            return lambda: f(a, b)

        return make

    def reduce(op, axis):
        def make(fw):
            x = fw.rand([n, n])
            return fw.reduction(op, x, axis)

        return make

    def softmax(op):
        def make(fw):
            x = fw.rand([n, n])
            f = fw.op(op)
            return lambda: f(x, -1)

        return make

    def layer_norm(fw):
        x, w, b = fw.rand([256, 1024], grad=True), fw.rand([1024], grad=True), fw.rand([1024], grad=True)
        f = fw.op("layer_norm")
        return fw.fwd_bwd(lambda: f(x, [1024], w, b), [x, w, b])

    def cross_entropy(fw):
        x = fw.rand([512, 1000], grad=True)
        label = fw.labels(512, 1000)
        f = fw.op("cross_entropy")
        return fw.fwd_bwd(lambda: f(x, label), [x])

    def conv(cin, cout, hw):
        def make(fw):
            x = fw.rand([64, cin, hw, hw], grad=True)
            w = fw.rand([cout, cin, 3, 3], grad=True)
            f = fw.op("conv2d")
            return fw.fwd_bwd(lambda: f(x, w, padding=1), [x, w])

        return make

    def max_pool(fw):
        x = fw.rand([64, 32, 28, 28], grad=True)
        f = fw.op("max_pool2d")
        return fw.fwd_bwd(lambda: f(x, 2, 2), [x])

    def batch_norm(fw):
        # Training mode (batch statistics, running statistics updated), as in the demo CNN.
        x = fw.rand([64, 32, 28, 28], grad=True)
        w, b = fw.rand([32], grad=True), fw.rand([32], grad=True)
        mean, var = fw.rand([32]), fw.rand([32], positive=True)
        f = fw.op("batch_norm")
        return fw.fwd_bwd(lambda: f(x, mean, var, w, b, True), [x, w, b])

    def gemm(fw):
        a, b = fw.rand([1024, 1024]), fw.rand([1024, 1024])
        f = fw.op("matmul")
        return lambda: f(a, b)

    def batched_gemm(fw):
        # Attention's output product in the GPT decoder of benchmarks/models.py: batch 8
        # times 4 heads of [128, 128] x [128, 64], each a product too small to split.
        a, b = fw.rand([32, 128, 128]), fw.rand([32, 128, 64])
        f = fw.op("matmul")
        return lambda: f(a, b)

    f4, nn = 4, n * n
    table = [
        ("exp", unary("exp"), 2 * f4 * nn),
        ("tanh", unary("tanh"), 2 * f4 * nn),
        ("sigmoid", unary("sigmoid"), 2 * f4 * nn),
        ("log", unary("log", positive=True), 2 * f4 * nn),
        ("gelu", unary("gelu"), 2 * f4 * nn),
        ("add", binary([n, n]), 3 * f4 * nn),
        ("broadcast multiply [n,n]*[n]", binary([n]), 2 * f4 * nn),
        ("full sum", reduce("sum", None), f4 * nn),
        ("sum axis 0", reduce("sum", 0), f4 * nn),
        ("sum axis 1", reduce("sum", 1), f4 * nn),
        ("max axis 0", reduce("max", 0), f4 * nn),
        ("max axis 1", reduce("max", 1), f4 * nn),
        ("softmax", softmax("softmax"), 2 * f4 * nn),
        ("log_softmax", softmax("log_softmax"), 2 * f4 * nn),
        # forward reads x, writes y; the all-ones gradient is written; backward reads x
        # and it, writes dx (the [1024] weight and bias terms are negligible).
        ("layer_norm fwd+bwd 256x1024", layer_norm, 6 * f4 * 256 * 1024),
        ("cross_entropy fwd+bwd 512x1000", cross_entropy, None),
        ("conv2d fwd+bwd 64x1->32 28x28", conv(1, 32, 28), None),
        ("conv2d fwd+bwd 64x32->64 14x14", conv(32, 64, 14), None),
        ("max_pool2d fwd+bwd 64x32x28x28", max_pool, None),
        ("batch_norm fwd+bwd 64x32x28x28", batch_norm, None),
        ("GEMM 1024", gemm, None),
        ("batched GEMM 32x128x128x64", batched_gemm, None),
    ]
    out = [(name, make, nbytes, nn) for name, make, nbytes in table]

    # Short rows that do not coalesce: a per-channel scale (runs of 64 with one value
    # each) and a unary op over the first columns of a matrix (contiguous runs of 768).
    def channel_scale(fw):
        x, scale = fw.rand([64, 256, 64]), fw.rand([256, 1])
        f = fw.op("multiply")
        return lambda: f(x, scale)

    def first_columns_abs(fw):
        x = fw.first_columns(fw.rand([1024, 1024]), 768)
        f = fw.op("abs")
        return lambda: f(x)

    channels, columns = 64 * 256 * 64, 1024 * 768
    out += [
        ("channel multiply [64,256,64]*[256,1]", channel_scale, 2 * f4 * channels, channels),
        ("abs of x[:, :768], x [1024,1024]", first_columns_abs, 2 * f4 * columns, columns),
    ]
    for count in sizes:
        out += bandwidth_rows(count)
    return out


def bandwidth_rows(count):
    """The --bandwidth rows at `count` float32 elements, [count / 1024, 1024]."""
    cols = 1024
    r = max(count // cols, 1)
    count = r * cols
    tag = _label(count)
    b = 4 * count

    def binary(op, kind, inplace=False):
        # kind: "contiguous" a op b; "broadcast" [r, 1024] op [1024]; "transposed" a.T op b
        # ([1024, r] views of [r, 1024] tensors: both inputs and the output of different
        # layouts); "every other column" x[:, ::2] op y[:, ::2] of [r, 2048] tensors.
        def make(fw):
            if kind == "every other column":
                a0, b0 = fw.rand([r // 2, 2 * cols]), fw.rand([r // 2, 2 * cols])
                a, bb = fw.every_other_column(a0), fw.every_other_column(b0)
            elif kind == "transposed":
                a, bb = fw.transposed(fw.rand([r, cols])), fw.rand([cols, r])
            elif inplace and op == "multiply":
                # By ones: repeated in-place products by random numbers underflow to
                # denormals, which are slow on some CPUs.
                a, bb = fw.rand([r, cols]), fw.ones([cols] if kind == "broadcast" else [r, cols])
            else:
                a = fw.rand([r, cols])
                bb = fw.rand([cols] if kind == "broadcast" else [r, cols])
            f = fw.inplace(op) if inplace else fw.op(op)
            return lambda: f(a, bb)

        return make

    def where(fw):
        c, a, bb = fw.rand([r, cols]), fw.rand([r, cols]), fw.rand([r, cols])
        cond = fw.greater_than_zero(c)
        f = fw.op("where")
        return lambda: f(cond, a, bb)

    def reduce(op, axis):
        def make(fw):
            return fw.reduction(op, fw.rand([r, cols]), axis)

        return make

    def layer_norm(fw):
        x, w, bias = (fw.rand([r, cols], grad=True), fw.rand([cols], grad=True),
                      fw.rand([cols], grad=True))
        f = fw.op("layer_norm")
        return fw.fwd_bwd(lambda: f(x, [cols], w, bias), [x, w, bias])

    return [(f"{name} {tag}", make, nbytes, count) for name, make, nbytes in [
        ("add", binary("add", "contiguous"), 3 * b),
        ("add_ (in place)", binary("add", "contiguous", inplace=True), 3 * b),
        ("add transposed", binary("add", "transposed"), 3 * b),
        ("add every other column", binary("add", "every other column"), 3 * b // 2),
        ("broadcast multiply [r,1024]*[1024]", binary("multiply", "broadcast"), 2 * b),
        ("broadcast multiply_ (in place)", binary("multiply", "broadcast", inplace=True), 2 * b),
        ("where", where, 3 * b + count),
        ("full sum", reduce("sum", None), b),
        ("sum axis 0", reduce("sum", 0), b),
        ("sum axis 1", reduce("sum", 1), b),
        ("max axis 0", reduce("max", 0), b),
        ("max axis 1", reduce("max", 1), b),
        ("layer_norm fwd+bwd", layer_norm, 6 * b),
    ]]


class PaddleLike:
    """oar and Paddle share the API (oar follows Paddle's names and arguments)."""

    def __init__(self, mod):
        self.m = mod
        import numpy as np

        self.np = np
        self.rng = np.random.default_rng(0)

    def rand(self, shape, positive=False, grad=False):
        x = self.rng.standard_normal(shape).astype("float32")
        if positive:
            x = abs(x) + 0.1
        t = self.m.to_tensor(x)
        t.stop_gradient = not grad
        return t

    def ones(self, shape):
        return self.m.ones(shape, dtype="float32")

    def labels(self, n, classes):
        return self.m.to_tensor(self.rng.integers(0, classes, n).astype("int64"))

    def op(self, name):
        fn = self.m.nn.functional
        if name in ("exp", "tanh", "log", "abs", "add", "multiply", "matmul", "where"):
            f = getattr(self.m, name, None)
        else:
            f = getattr(fn, name, None) or getattr(self.m, name, None)
        if f is None:
            raise Unavailable(name)
        if name in ("softmax", "log_softmax"):
            return lambda x, axis: f(x, axis=axis)
        if name == "max_pool2d":
            return lambda x, k, s: f(x, kernel_size=k, stride=s)
        return f

    def inplace(self, name):
        return lambda a, b: getattr(a, name + "_")(b)

    def transposed(self, x):
        return self.m.transpose(x, [1, 0])

    def every_other_column(self, x):
        return x[:, ::2]

    def first_columns(self, x, k):
        return x[:, :k]

    def greater_than_zero(self, x):
        return x > 0

    def reduction(self, op, x, axis):
        f = getattr(self.m, op, None)
        if f is None:
            raise Unavailable(op)
        return lambda: f(x, axis=axis)

    def fwd_bwd(self, forward, inputs):
        grad = getattr(self.m, "grad", None)
        if grad is None:
            raise Unavailable("grad")

        def run():
            y = forward()
            return grad([y], inputs, [self.m.ones_like(y)])

        return run


class Torch:
    def __init__(self):
        import torch

        torch.set_num_threads(THREADS)
        self.t = torch
        self.g = torch.Generator().manual_seed(0)

    def rand(self, shape, positive=False, grad=False):
        x = self.t.randn(shape, generator=self.g)
        if positive:
            x = x.abs() + 0.1
        return x.requires_grad_(grad)

    def ones(self, shape):
        return self.t.ones(shape)

    def labels(self, n, classes):
        return self.t.randint(0, classes, (n,), generator=self.g)

    def op(self, name):
        F = self.t.nn.functional
        table = {
            "exp": self.t.exp,
            "abs": self.t.abs,
            "tanh": self.t.tanh,
            "log": self.t.log,
            "sigmoid": self.t.sigmoid,
            "gelu": F.gelu,
            "add": self.t.add,
            "multiply": self.t.mul,
            "where": self.t.where,
            "matmul": self.t.matmul,
            "softmax": lambda x, axis: self.t.softmax(x, axis),
            "log_softmax": lambda x, axis: self.t.log_softmax(x, axis),
            "layer_norm": F.layer_norm,
            "cross_entropy": F.cross_entropy,
            "conv2d": F.conv2d,
            "max_pool2d": F.max_pool2d,
            "batch_norm": F.batch_norm,
        }
        return table[name]

    def inplace(self, name):
        method = {"add": "add_", "multiply": "mul_"}[name]
        return lambda a, b: getattr(a, method)(b)

    def transposed(self, x):
        return x.t()

    def every_other_column(self, x):
        return x[:, ::2]

    def first_columns(self, x, k):
        return x[:, :k]

    def greater_than_zero(self, x):
        return x > 0

    def reduction(self, op, x, axis):
        if op == "sum":
            return (lambda: self.t.sum(x)) if axis is None else (lambda: self.t.sum(x, axis))
        return lambda: self.t.amax(x, axis)  # values only, as oar.max / paddle.max

    def fwd_bwd(self, forward, inputs):
        def run():
            y = forward()
            return self.t.autograd.grad([y], inputs, [self.t.ones_like(y)])

        return run


def time_call(f, repeats, stat="median"):
    f()  # warm-up: first-call allocations, lazy initialisation
    t0 = time.perf_counter()
    f()
    one = max(time.perf_counter() - t0, 1e-6)
    inner = max(1, int(0.02 / one))
    samples = []
    if stat == "min":
        # The fastest single call: on a loaded machine every ~20 ms sample
        # contains preemptions, single calls of a few ms often do not. A slow call
        # (Paddle's 64M rows take up to half a second) stops after `repeats` calls
        # once the row has had MIN_ROW_S.
        start = time.perf_counter()
        for i in range(repeats * max(inner, 20)):
            t0 = time.perf_counter()
            f()
            samples.append(time.perf_counter() - t0)
            if i + 1 >= repeats and time.perf_counter() - start > MIN_ROW_S:
                break
        return min(samples)
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        samples.append((time.perf_counter() - t0) / inner)
    return min(samples) if stat == "min" else statistics.median(samples)


def measure_row(fw, make, repeats, stat="median"):
    """Seconds per call of one row, or None where the framework lacks the op."""
    try:
        f = make(fw)
        f()
    except (Unavailable, AttributeError, TypeError, NotImplementedError):
        return None
    return time_call(f, repeats, stat)


def serve(fw, version, repeats, stat, sizes):
    """A framework's worker: prints its version, then times each row named on stdin,
    one JSON line per row, until stdin closes. The parent sends every framework the
    same row in turn, so a row's times in the frameworks are taken seconds apart."""
    makers = {name: make for name, make, _, _ in rows(sizes)}
    print(json.dumps({"version": version}), flush=True)
    for line in sys.stdin:
        t = measure_row(fw, makers[line.strip()], repeats, stat)
        print(json.dumps({"time": t}), flush=True)


class Worker:
    """The parent's end of one framework's worker process."""

    def __init__(self, framework, cmd, env, label):
        self.framework, self.label = framework, label
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, env=env)
        self.failure = None
        first = self._reply()
        self.version = first and first["version"]

    def _reply(self):
        line = self.proc.stdout.readline()
        if line:
            return json.loads(line)
        self.proc.wait()
        self.err.seek(0)
        last = self.err.read().strip().splitlines()[-1:]
        self.failure = f"{self.framework} run failed ({self.label}): {last}"
        return None

    def time(self, name):
        """Seconds per call of row `name` (None: no such op, or the worker died)."""
        if self.failure:
            return None
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        reply = self._reply()
        return reply and reply["time"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()
        self.err.close()


def copy_reference(counts, repeats, stat):
    """{elements: (copy seconds, add seconds)}: np.copyto(dst, src) and np.add(a, b,
    out=c) of float32 arrays, each cut in THREADS slices done by as many threads."""
    import numpy as np
    from concurrent.futures import ThreadPoolExecutor

    out = {}
    with ThreadPoolExecutor(THREADS) as pool:
        for count in sorted(set(counts)):
            a = np.random.default_rng(0).standard_normal(count, dtype=np.float32)
            b, c = a.copy(), np.empty_like(a)
            step = -(-count // THREADS)
            parts = [slice(i, min(i + step, count)) for i in range(0, count, step)]
            # Each thread repeats its slice `times` times per hand-off, so the hand-off
            # (tens of microseconds) does not count against a copy of a few megabytes.
            times = max(1, (1 << 26) // count)

            def copy_part(s):
                for _ in range(times):
                    np.copyto(c[s], a[s])

            def add_part(s):
                for _ in range(times):
                    np.add(a[s], b[s], out=c[s])

            t_copy = time_call(lambda: list(pool.map(copy_part, parts)), repeats, stat)
            t_add = time_call(lambda: list(pool.map(add_part, parts)), repeats, stat)
            out[count] = (t_copy / times, t_add / times)
    return out


def paddle_python(arg):
    if arg:
        return arg
    if os.environ.get("OAR_PADDLE_PYTHON"):
        return os.environ["OAR_PADDLE_PYTHON"]
    try:
        import importlib.util

        if importlib.util.find_spec("paddle") is not None:
            return sys.executable
    except ImportError:
        pass
    return None


def fmt_ms(t):
    return "n/a" if t is None else f"{t * 1e3:.3f}"


def fmt_ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def gbps(nbytes, t):
    return None if nbytes is None or t is None else nbytes / t / 1e9


def fmt_range(values):
    return "n/a" if not values else f"{min(values):.2f}-{max(values):.2f}"


def fmt_gbps(v):
    return "n/a" if v is None else f"{v:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paddle-python", help="interpreter with paddle installed")
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2, help="threads per framework (default 2)")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="median of ~20 ms samples, or the fastest single call (robust under load)")
    ap.add_argument("--only", nargs="*", help="rows whose name contains one of these")
    ap.add_argument("--rounds", type=int, default=1,
                    help="passes over the table, each framework timing a row in turn; each row "
                         "takes the best (--stat min) or the median of its rounds, and with more "
                         "than one the table adds the spread of oar/min over the rounds")
    ap.add_argument("--framework", choices=["oar", "torch", "paddle"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help="also write the output to this file (a record in "
                                  "benchmarks/results/)")
    ap.add_argument("--bandwidth", action="store_true",
                    help="add the memory-bandwidth rows at --sizes elements")
    ap.add_argument("--sizes", nargs="*", default=["1M", "16M", "64M"],
                    help="element counts of the --bandwidth rows (default 1M 16M 64M)")
    ap.add_argument("--isa", choices=["sse2", "avx2", "avx512", "avx512_bf16"],
                    help="cap oar's dispatched ISA (OAR_MAX_CPU_ISA)")
    ap.add_argument("--torch-isa", choices=["default", "avx2", "avx512"],
                    help="PyTorch's kernels (ATEN_CPU_CAPABILITY)")
    args = ap.parse_args()
    sizes = [_count(c) for c in args.sizes] if args.bandwidth else []

    if args.framework:  # a subprocess: print the version and JSON times, nothing else
        if args.framework == "paddle":
            import paddle

            paddle.set_device("cpu")
            fw, ver = PaddleLike(paddle), paddle.__version__
        elif args.framework == "oar":
            import oar

            fw, ver = PaddleLike(oar), getattr(oar, "__version__", "?")
        else:
            fw = Torch()
            ver = fw.t.__version__
        serve(fw, ver, args.repeats, args.stat, sizes)
        return

    if args.isa:
        os.environ["OAR_MAX_CPU_ISA"] = args.isa  # only oar reads it (and _machine's line)

    if args.out:
        _machine.tee(args.out)
    print(_machine.describe())
    print(f"# {time.strftime('%Y-%m-%d')}: {_machine.command('benchmarks/kernels.py')}")
    for note in _UNSET_NOTES:
        print(f"# {note}")
    print(f"# {THREADS} threads each (OMP_NUM_THREADS={THREADS}, torch.set_num_threads({THREADS}))")
    print(f"# {args.stat} of {args.repeats} samples; times in ms")
    print("# load average before the run: %.1f %.1f %.1f (a load above the CPU count makes every number suspect)"
          % os.getloadavg())
    if args.isa:
        print(f"# OAR_MAX_CPU_ISA={args.isa}: caps oar's run-time dispatched kernels; the rest of "
              "oar is compiled for the building CPU (-march=native)")
    if args.torch_isa:
        print(f"# ATEN_CPU_CAPABILITY={args.torch_isa} for PyTorch")
    else:
        print("# PyTorch uses its best kernels for this CPU (--torch-isa avx2 to cap them)")

    def where(py):
        # Which interpreter, without this machine's paths (the output is a record).
        return "this interpreter" if py == sys.executable else "--paddle-python's interpreter"

    def start(framework, py):
        cmd = [py, os.path.abspath(__file__), "--framework", framework, "--repeats", str(args.repeats),
               "--threads", str(THREADS), "--stat", args.stat]
        if args.bandwidth:
            cmd += ["--bandwidth", "--sizes", *args.sizes]
        env = dict(os.environ)
        if framework == "torch" and args.torch_isa:
            env["ATEN_CPU_CAPABILITY"] = args.torch_isa
        return Worker(framework, cmd, env, where(py))

    py = paddle_python(args.paddle_python)
    notes = {}
    workers = [start("oar", sys.executable), start("torch", sys.executable)]
    if py is None:
        notes["paddle"] = ("Paddle skipped: no interpreter with paddle (use --paddle-python or "
                           "OAR_PADDLE_PYTHON)")
    else:
        workers.append(start("paddle", py))
    table = [r for r in rows(sizes) if not args.only or any(o in r[0] for o in args.only)]
    counts = sorted({r[3] for r in table if r[2] is not None})
    # Every framework times a row before the next row starts, and rounds repeat the whole
    # table, so a slow minute of a shared machine (its memory bandwidth drifts over
    # minutes) lands on all frameworks' times of a row, not on one framework's run.
    n_rounds = max(args.rounds, 1)
    rounds = {w.framework: [{} for _ in range(n_rounds)] for w in workers}
    copies = []
    for i in range(n_rounds):
        copies.append(copy_reference(counts, args.repeats, args.stat))
        order = workers[i % len(workers):] + workers[:i % len(workers)]  # who goes first turns
        for name, _, _, _ in table:
            for w in order:
                time.sleep(HANDOFF_S)
                rounds[w.framework][i][name] = w.time(name)
    for w in workers:
        w.close()
        notes[w.framework] = w.failure or f"{w.framework} {w.version} ({w.label})"

    pick = min if args.stat == "min" else statistics.median  # over rounds

    def combine(runs):
        names = {n for r in runs for n in r if r[n] is not None}
        return {n: pick([r[n] for r in runs if r.get(n) is not None]) for n in names}

    def round_ratios(name):
        """oar over the faster peer in each round: the spread of the row's ratio."""
        out = []
        for i in range(n_rounds):
            o = rounds["oar"][i].get(name)
            peers = [rounds[f][i].get(name) for f in ("torch", "paddle") if f in rounds]
            peers = [t for t in peers if t is not None]
            if o is not None and peers:
                out.append(o / min(peers))
        return out

    oar_times, torch_times, paddle_times = (combine(rounds.get(f, [])) for f in ("oar", "torch", "paddle"))
    oar_note, torch_note, paddle_note = (notes.get(f) for f in ("oar", "torch", "paddle"))
    if n_rounds > 1:
        print(f"# {n_rounds} rounds; in each, every framework times a row before the next row")
    for note in (oar_note, torch_note, paddle_note):
        print(f"# {note}")
    oar_times, torch_times, paddle_times = oar_times or {}, torch_times or {}, paddle_times or {}
    copy = {c: tuple(pick([r[c][k] for r in copies]) for k in (0, 1)) for c in counts}
    print()
    print("Machine copy bandwidth (numpy, %d threads; GB/s = bytes read + written / time):" % THREADS)
    print()
    print("| elements | copy ms | copy GB/s | numpy add ms | numpy add GB/s |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for c in counts:
        tc, ta = copy[c]
        print(f"| {_label(c)} | {fmt_ms(tc)} | {fmt_gbps(gbps(8 * c, tc))} | {fmt_ms(ta)} | "
              f"{fmt_gbps(gbps(12 * c, ta))} |")
    print()
    spread = n_rounds > 1
    print("| row | oar | torch | paddle | oar/torch | oar/paddle | oar/min | oar GB/s | torch GB/s "
          "| oar of copy |" + (" oar/min by round |" if spread else ""))
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
          + (" ---: |" if spread else ""))
    for name, _, nbytes, count in table:
        o, t, p = oar_times.get(name), torch_times.get(name), paddle_times.get(name)
        best = min([v for v in (t, p) if v is not None], default=None)
        og, tg = gbps(nbytes, o), gbps(nbytes, t)
        cg = gbps(8 * count, copy[count][0]) if count in copy else None
        print(f"| {name} | {fmt_ms(o)} | {fmt_ms(t)} | {fmt_ms(p)} | {fmt_ratio(o, t)} | "
              f"{fmt_ratio(o, p)} | {fmt_ratio(o, best)} | {fmt_gbps(og)} | {fmt_gbps(tg)} | "
              f"{fmt_ratio(og, cg)} |" + (f" {fmt_range(round_ratios(name))} |" if spread else ""))


if __name__ == "__main__":
    main()
