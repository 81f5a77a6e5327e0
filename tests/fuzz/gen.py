"""Random calls, derived from the op declarations (src/oar/ops/*.yaml).

A call is plain data (no oar or torch objects): the parent can re-create the call
a crashed worker was running from (seed, id) alone, and render it as a one-line
reproducer without trusting the dead process. worker.py turns the same data into
oar and torch objects, statement for statement as the reproducer does.

Arguments are drawn by declared type, refined by argument *name* (axis, axes,
perm, shape, index, condition, ...), so that a new op with conventional argument
names is fuzzed sensibly without touching this file. HINTS holds the few ops whose
inputs must agree in a way names cannot say (matmul's inner dimension, ...); they
only raise the share of valid calls, every op is fuzzed without them too.
"""
import inspect
import math
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "codegen"))
from gen_ops import load_ops  # noqa: E402  (the codegen's own parser of src/oar/ops/)

OPS = {op.name: op for op in load_ops(os.path.join(ROOT, "src", "oar", "ops"))}

DTYPES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool", "complex64",
          "complex128", "uint8", "int8", "int16"]
# Drawn with floats twice as often: most ops are float-only, and float64 is what is
# compared with torch without a second run.
DRAW_DTYPES = DTYPES + ["float32", "float64", "float64", "float16"]
FLOATS = {"float16", "bfloat16", "float32", "float64"}
# Complex inputs are compared with torch in complex128 (complex64 runs a second time in
# complex128, as float32 does in float64), their gradients too.
COMPLEX = {"complex64", "complex128"}
SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0]
# Empty shapes whose other dims are huge: up to 2**63 - 1, where sums of dims (concat, m + n,
# in + padding) pass int64 although every product is 0.
HUGE_EMPTY = [[2 ** 31, 0], [0, 2 ** 31], [2 ** 31, 0, 3], [1, 2 ** 40, 0], [0, 2 ** 62],
              [2 ** 63 - 1, 0], [0, 2 ** 62, 1], [1, 0, 2 ** 62 + 1]]
# Values of the wrong type for any argument: each must be rejected with a clean
# TypeError/ValueError (or accepted, where Python's duck typing allows it).
WRONG = [None, "abc", "", [1.0, 2.0], [[1, 2], [3]], 1.5, True, -1, 2 ** 70, {"a": 1}, b"xy",
         (1, 2), [None], math.nan, ["float32"], [1, "a"], 1e300]


class T:
    """A tensor argument: `data` (flat list) shaped `base_shape`, cast to dtype, then
    made into `view` of logical shape `shape` (non-contiguous inputs)."""
    __slots__ = ("dtype", "shape", "view", "base_shape", "data", "name")

    def __init__(self, dtype, shape, view, base_shape, data):
        self.dtype, self.shape, self.view = dtype, shape, view
        self.base_shape, self.data, self.name = base_shape, data, None

    def np_dtype(self):
        if self.dtype in FLOATS:
            return "float64"
        return "complex128" if self.dtype in COMPLEX else self.dtype


class DType:
    """A dtype passed as the oar object (oar.float32) instead of its name."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"oar.{self.name}"


class Call:
    __slots__ = ("id", "key", "target", "args", "kwargs", "wrong", "kind", "op", "decl")

    def __init__(self, cid, key, target, args, kwargs, kind, op=None, decl=None):
        self.id, self.key, self.target, self.args, self.kwargs = cid, key, target, args, kwargs
        self.kind, self.op, self.decl, self.wrong = kind, op, decl, False

    def tensors(self):
        out = []

        def walk(v):
            if isinstance(v, T):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                for e in v:
                    walk(e)
        for v in list(self.args) + list(self.kwargs.values()):
            walk(v)
        return out

    def repro(self):
        """One line of Python reproducing the call (the data written out)."""
        lines = ["import oar, numpy as np", "from numpy import nan, inf"]
        for i, t in enumerate(self.tensors()):
            t.name = f"t{i}"
            lines.append(f"{t.name} = " + tensor_code(t))
        a = [render(v) for v in self.args] + [f"{k}={render(v)}" for k, v in self.kwargs.items()]
        if self.target == "getitem":
            lines.append(f"print({a[0]}[{a[1]}])")
        elif self.target == "setitem":
            lines.append(f"{a[0]}[{a[1]}] = {a[2]}; print({a[0]})")
        else:
            lines.append(f"print({self.target}({', '.join(a)}))")
        return 'python3 -c "' + "; ".join(lines).replace('"', '\\"') + '"'


def tensor_code(t):
    # An empty base is made by zeros: numpy refuses [0, 2**62] of float64 as too big.
    base = f"oar.zeros({t.base_shape}, dtype='{t.dtype}')" if 0 in t.base_shape else \
        f"oar.to_tensor(np.array({t.data!r}, '{t.np_dtype()}').reshape({t.base_shape}), " \
        f"dtype='{t.dtype}')"
    return base + VIEW_CODE[t.view](t.shape) if t.view else base


# The oar expression of each view, applied to the base tensor (worker.py mirrors these).
VIEW_CODE = {
    "T": lambda s: f".transpose({list(range(len(s) - 2)) + [len(s) - 1, len(s) - 2]})",
    "step": lambda s: f".strided_slice([0], [0], [{2 * s[0]}], [2])",
    "flip": lambda s: f".strided_slice([0], [{s[0] - 1}], [{-s[0] - 1}], [-1])",
    "bcast": lambda s: f".expand({s})",
}


def render(v):
    if isinstance(v, T):
        return v.name
    if isinstance(v, list):
        return "[" + ", ".join(render(e) for e in v) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(render(e) + ", " for e in v) + ")"
    if isinstance(v, slice):
        return f"slice({v.start!r}, {v.stop!r}, {v.step!r})"  # valid inside a tuple too
    if v is Ellipsis:
        return "..."
    return repr(v)


# ---- tensors ------------------------------------------------------------------------------
def rand_shape(r, max_rank=4):
    if r.random() < 0.02:
        return list(r.choice(HUGE_EMPTY))
    rank = r.choice([0, 1, 1, 2, 2, 2, 3, 3, 4][:max_rank * 2 + 1])
    return [r.choice([0, 1, 1, 2, 2, 3, 3, 4, 5]) if r.random() < 0.9 else r.randint(6, 9)
            for _ in range(rank)]


def related_shape(r, s):
    """Mostly the same shape (elementwise ops), else broadcastable, else anything."""
    u = r.random()
    if u < 0.65:
        return list(s)
    if u < 0.88:
        k = r.randint(0, len(s))
        return [1 if r.random() < 0.3 else d for d in s[k:]]
    return rand_shape(r)


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def fit_int64(shape):
    """An empty shape whose other dims multiply past int64 is refused by oar's creation
    ops (its strides would wrap), and so cannot be an input: its largest dim is shrunk to
    keep the product within int64 (a generator's [1, 0, 2**62 + 1] doubled to [2, 0, ...]
    by a derived shape made the fuzzer's own zeros() fail)."""
    other = math.prod(d for d in shape if d != 0)
    if 0 not in shape or other < 2 ** 63:
        return list(shape)
    i = max(range(len(shape)), key=lambda k: shape[k])
    out = list(shape)
    out[i] = (2 ** 63 - 1) // (other // shape[i])
    return out


def make_tensor(r, shape, dtype=None, values=None):
    dtype = dtype or r.choice(DRAW_DTYPES)
    if numel(shape) > 4096:  # e.g. a huge-but-empty shape whose 0 was replaced: empty again
        shape = list(shape[:-1]) + [0]
    shape = fit_int64(shape)
    view = None
    if r.random() < 0.25 and shape and numel(shape) < 10 ** 6:
        view = r.choice(["T", "step", "flip", "bcast"])
        if view == "T" and len(shape) < 2 or view == "flip" and shape[0] == 0:
            view = "step"
    base = list(shape)
    if view == "T":
        base[-1], base[-2] = base[-2], base[-1]
    elif view == "step":
        base[0] *= 2
    elif view == "bcast":
        base[0] = 1
    n = numel(base)
    other = math.prod(d for d in base if d != 0)  # a base of [2, 0, 2**62 + 1] is refused
    if n > 10 ** 4 or other >= 2 ** 63:  # a view of an empty shape can have a huge base
        view, base, n = None, list(shape), numel(shape)
    if values is not None:
        data = [values(r) for _ in range(n)]
        if dtype == "uint8":  # an index generator's negative values, as uint8 holds them
            data = [v % 256 if isinstance(v, int) and not isinstance(v, bool) else v
                    for v in data]
    elif dtype in FLOATS:
        data = [round(r.uniform(-3, 3), 2) for _ in range(n)]
        if r.random() < 0.12:  # nan, ±inf, ±0 at some positions
            data = [r.choice(SPECIALS) if r.random() < 0.3 else v for v in data]
    elif dtype in COMPLEX:
        data = [complex(round(r.uniform(-3, 3), 2), round(r.uniform(-3, 3), 2))
                for _ in range(n)]
        if r.random() < 0.06:  # a nan, ±inf or ±0 part at some positions
            data = [complex(r.choice(SPECIALS), v.imag) if r.random() < 0.3 else v
                    for v in data]
    elif dtype == "bool":
        data = [r.random() < 0.5 for _ in range(n)]
    elif dtype == "uint8":
        data = [r.randint(0, 10) if r.random() < 0.9 else r.choice([127, 128, 255])
                for _ in range(n)]
    else:
        data = [r.randint(-5, 5) for _ in range(n)]
    return T(dtype, list(shape), view, base, data)


# ---- attributes, by declared type and name ---------------------------------------------------
def rand_axis(r, rank, slack=True):
    if slack and r.random() < 0.12:
        return r.choice([rank, -rank - 1, 2 ** 40, -2 ** 63, 2 ** 63 - 1, 100])
    if rank == 0:
        return r.choice([0, -1])
    return r.randint(-rank, rank - 1)


def rand_axes(r, rank, n=None):
    n = r.randint(0, min(rank, 3) + (1 if r.random() < 0.1 else 0)) if n is None else n
    out = []
    for _ in range(n):
        a = rand_axis(r, rank)
        if r.random() < 0.9 and a in out or (a % max(rank, 1)) in [b % max(rank, 1) for b in out]:
            if r.random() < 0.85:  # mostly distinct, sometimes duplicated on purpose
                continue
        out.append(a)
    return out


def rand_int(r):
    if r.random() < 0.1:  # where sums and products of two attributes pass int64
        return r.choice([2 ** 62, 2 ** 62 + 1, -2 ** 62, 2 ** 53 + 1, 2 ** 32])
    return r.choice([0, 1, 2, 3, -1, -2, r.randint(-10, 10), 2 ** 31, -2 ** 63, 2 ** 63 - 1])


def rand_float(r):
    if r.random() < 0.12:
        return r.choice(SPECIALS + [1e308, -1e-320])
    return r.choice([0.0, 1.0, -1.0, 0.5, 2.0, 3.0, round(r.uniform(-3, 3), 2)])


def rand_scalar(r):
    u = r.random()
    if u < 0.3:
        return r.randint(-5, 5)
    if u < 0.4:
        return r.random() < 0.5
    if u < 0.5:
        return r.choice(SPECIALS + [2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 1e39])
    return round(r.uniform(-3, 3), 2)


def rand_dtype(r, default):
    if default == "DType::kUndefined" and r.random() < 0.3:
        return None
    if r.random() < 0.03:
        return r.choice(["float128", "int8", "", "Float32"])
    name = r.choice(DTYPES)
    return DType(name) if r.random() < 0.2 else name


def shape_like(r, x):
    """A target shape for an op taking a tensor and a shape (reshape / expand / sum_to
    styles; each op gets the style it needs about a third of the time)."""
    s = x.shape if x is not None else rand_shape(r)
    style = r.randint(0, 3)
    if style == 0:  # reshape: a shuffled factorization, with -1 / 0 (Paddle: "copy this dim")
        n, dims = numel(s), []
        if n == 0 or n > 10 ** 6:
            dims = list(s)
        else:
            for p in (2, 2, 3, 5, 7):
                while n % p == 0 and r.random() < 0.7:
                    dims.append(p)
                    n //= p
            dims.append(n)
            r.shuffle(dims)
        if dims and r.random() < 0.3:
            dims[r.randrange(len(dims))] = -1
        if dims and r.random() < 0.1:
            dims[0] = 0
        return dims
    if style == 1:  # expand: broadcast target
        out = [r.choice([1, 2, 3]) for _ in range(r.randint(0, 2))]
        return out + [(r.choice([2, 3, 0]) if d == 1 else (-1 if r.random() < 0.2 else d))
                      for d in s]
    if style == 2:  # sum_to: a suffix, some dims 1
        return [1 if r.random() < 0.4 else d for d in s[r.randint(0, len(s)):]]
    return rand_shape(r)


def slice_attrs(r, x, n_axes=None):
    rank = len(x.shape) if x is not None else 2
    axes = rand_axes(r, rank, n_axes if n_axes is not None else r.randint(1, max(rank, 1)))
    dims = [x.shape[a % rank] if x is not None and rank and -rank <= a < rank else 4 for a in axes]

    def pos(d):
        return r.choice([r.randint(-d - 2, d + 2), 0, d, -1, 2 ** 62, -2 ** 62] if r.random() < 0.15
                        else [r.randint(-d - 1, d + 1)])
    starts = [pos(d) for d in dims]
    ends = [pos(d) for d in dims]
    strides = [r.choice([1, 1, 2, 3, -1, -2] if r.random() < 0.97 else [0, 2 ** 62, -2 ** 63])
               for _ in dims]
    if r.random() < 0.04:  # lengths that disagree
        r.choice([starts, ends, strides]).append(0)
    return axes, starts, ends, strides


def slice_shape(x, axes, starts, ends, strides):
    """The result shape of strided_slice (Python slicing per axis), or None if invalid."""
    try:
        s = list(x.shape)
        for a, b, e, st in zip(axes, starts, ends, strides):
            s[a] = len(range(s[a])[slice(b, e, st)])
        return s
    except (IndexError, ValueError, OverflowError):
        return None


def gen_attr(r, arg, x, ctx):
    t, name = arg.type, arg.name
    rank = len(x.shape) if x is not None else 0
    if t == "DataType":
        return rand_dtype(r, arg.default)
    if t == "bool":
        return r.random() < 0.5
    if t == "float":
        return rand_float(r)
    if t == "Scalar":
        return rand_scalar(r)
    if t == "int":
        if name == "axis":
            return ctx.get("cat_axis", rand_axis(r, rank)) if r.random() < 0.8 else rand_axis(r, rank)
        if name == "seed":
            return r.choice([0, 1, 7, -1])
        return rand_int(r)
    # int[]
    if name in ("axis", "axes") and "slice" in ctx:
        return ctx["slice"][0]
    if name in ("starts", "ends", "strides") and "slice" in ctx:
        return ctx["slice"][("axes", "starts", "ends", "strides").index(name)]
    if name in ("axis", "axes", "dims"):
        return rand_axes(r, rank + (1 if "unsqueeze" in ctx else 0))
    if name == "perm":
        p = list(range(rank))
        r.shuffle(p)
        if r.random() < 0.12:
            p = r.choice([p + [0], p[:-1], [0] * rank, [rank] + p[1:], [-1] + p[1:]])
        return p
    if name == "shape":
        if x is None:
            return rand_shape(r)
        return shape_like(r, x)
    return [rand_int(r) for _ in range(r.randint(0, 3))]


# ---- per-op hints (the only op-specific code) --------------------------------------------------
def _hint_matmul(r, tensors, attrs):
    b = [r.choice([1, 2, 3]) for _ in range(r.randint(0, 2))]
    m, k, n = (r.choice([0, 1, 2, 3, 4]) for _ in range(3))
    xs, ys = b + ([k, m] if attrs.get("transpose_x") else [m, k]), \
        b[r.randint(0, len(b)):] + ([n, k] if attrs.get("transpose_y") else [k, n])
    if r.random() < 0.2:
        xs = xs[-1:]
    if r.random() < 0.2:
        ys = ys[-2:-1] if not attrs.get("transpose_y") else ys[-1:]
    return [xs, ys]


def _index_values(r, tensors, attrs, axis_name="axis"):
    x = tensors[0]
    ax = attrs.get(axis_name, 0)
    if not isinstance(ax, int) or not x.shape or not -len(x.shape) <= ax < len(x.shape):
        return None
    d = min(x.shape[ax], 1000)  # x is empty if a dim is huge: keep the index int32-sized
    return d, (lambda rr: rr.randint(-d, d - 1) if d and rr.random() < 0.95
               else rr.randint(-d - 2, d + 2))


def _hint_index_select(r, tensors, attrs):
    iv = _index_values(r, tensors, attrs)
    if iv:
        tensors[1] = make_tensor(r, [r.randint(0, 5)], r.choice(["int64", "int32"]), iv[1])
    if len(tensors) == 3 and iv:  # index_select_grad: grad_out of the gathered shape
        s = list(tensors[0].shape)
        s[attrs["axis"]] = tensors[1].shape[0]
        tensors[2] = make_tensor(r, s, tensors[2].dtype)


def _hint_slice_grad(r, tensors, attrs):
    s = slice_shape(tensors[0], attrs["axes"], attrs["starts"], attrs["ends"], attrs["strides"])
    if s is not None:
        key = 1
        if len(tensors) > 1:
            if r.random() < 0.3 and s:  # a broadcast value
                s = [1 if r.random() < 0.5 else d for d in s[r.randint(0, len(s)):]]
            tensors[key] = make_tensor(r, s, tensors[key].dtype)


def _hint_arange(r, tensors, attrs):
    # a bounded number of elements: never a giant allocation, whatever the dtype
    start = r.choice([0, 1, -2, 0.5, round(r.uniform(-5, 5), 2)])
    step = r.choice([1, 2, -1, 0.25, -0.5, 0.1, 3]) if r.random() < 0.97 else \
        r.choice([0, math.nan, math.inf, 1e-300])
    count = r.randint(-2, 20)
    end = start + step * count if isinstance(step, int) or math.isfinite(step) else 5
    attrs.update(start=start, end=round(end, 6) if isinstance(end, float) else end, step=step)


def _hint_rnn(r, tensors, attrs):
    """rnn's packed list (src/oar/ops/rnn.yaml) with agreeing shapes and one float dtype."""
    mode = attrs["mode"] if attrs["mode"] in (0, 1, 2, 3) else r.randint(0, 3)
    attrs["mode"] = mode
    g = {0: 1, 1: 1, 2: 4, 3: 3}[mode]
    t, b, i, h = r.randint(1, 4), r.randint(0, 3), r.randint(1, 3), r.randint(1, 3)
    dt = r.choice(["float32", "float64"])
    shapes = [[t, b, i], [b, h]] + ([[b, h]] if mode == 2 else [])
    shapes += [[g * h, i], [g * h, h], [g * h], [g * h]]
    lst = [make_tensor(r, s, dt) for s in shapes]
    if r.random() < 0.5:
        lengths = lambda r: r.randint(0, t + 1)  # noqa: E731
        lst.append(make_tensor(r, [b], r.choice(["int64", "int32"]), lengths))
    tensors[0] = lst


HINTS_SHAPES = {"matmul": _hint_matmul}  # op -> shapes of its tensor inputs
HINTS = {  # op -> adjust (tensors, attrs) after generation
    "index_select": _hint_index_select,
    "index_select_grad": _hint_index_select,
    "strided_slice_grad": _hint_slice_grad,
    "set_value_with_tensor": _hint_slice_grad,
    "arange": _hint_arange,
    "rnn": _hint_rnn,
}


# ---- the public entry point of each op ----------------------------------------------------------
_ALIASES = {"input": "x", "fill_value": "value"}  # Paddle's parameter names -> src/oar/ops/ names


def public_target(oar_mod, name):
    """('oar.<name>', {declared: parameter}) when the public oar.<name> accepts the declared
    arguments (possibly under Paddle's names), else ('oar._C.<name>', identity). The *_grad
    ops and other helpers are fuzzed through oar._C, as they are exported from it."""
    op = OPS[name]
    ident = {a.name: a.name for a in op.args}
    f = getattr(oar_mod, name, None)
    if name.endswith("_grad") or f is None:
        return f"oar._C.{name}", ident, False
    if f is getattr(oar_mod._C, name):
        return f"oar.{name}", ident, False
    params = inspect.signature(f).parameters
    by_decl = {_ALIASES.get(p, p): p for p in params}
    if all(a.name in by_decl for a in op.args) and all(
            _ALIASES.get(p, p) in ident for p, v in params.items()
            if v.default is inspect.Parameter.empty):
        return f"oar.{name}", {a.name: by_decl[a.name] for a in op.args}, True
    return f"oar._C.{name}", ident, False  # e.g. oar.normal(mean, std, shape): another signature


class Generator:
    def __init__(self, oar_mod, ops=None, pyapi=True, seed=0):
        import pyapi as pyapi_mod
        self.seed = seed
        self.targets = {}
        for name in OPS:
            self.targets[name] = public_target(oar_mod, name)
            if OPS[name].inplace:  # public as oar.<op>_ only when the op is a public function
                mod = "oar" if "function" in OPS[name].python else "oar._C"
                self.targets[name + "_"] = (f"{mod}.{name}_",
                                            {a.name: a.name for a in OPS[name].args}, False)
        self.py = pyapi_mod.TABLE if pyapi else {}
        keys = list(self.targets) + list(self.py)
        if ops:
            unknown = set(ops) - set(keys)
            if unknown:
                raise SystemExit(f"unknown ops: {sorted(unknown)}; known: {sorted(keys)}")
            keys = list(ops)
        self.keys = keys

    def make(self, cid):
        """The call number cid of this seed: a pure function of (seed, cid)."""
        r = random.Random(self.seed * 1_000_003_000_017 + cid)
        key = r.choice(self.keys)
        if key in self.py:
            args, kwargs = self.py[key].gen(r)
            call = Call(cid, key, self.py[key].target, args, kwargs, "py")
        else:
            call = self.make_op(r, cid, key)
        # (not into x[...]: a wrong "x" there is a list or dict, indexed by Python itself)
        if call.target not in ("getitem", "setitem") and r.random() < 0.05 and \
                (call.args or call.kwargs):
            self.inject_wrong(r, call)
        return call

    def make_op(self, r, cid, key):
        name = key.rstrip("_")
        op = OPS[name]
        target, names, wrapper = self.targets[key]
        base = rand_shape(r)
        ins = op.inputs
        shapes = HINTS_SHAPES[name](r, None, {}) if name in HINTS_SHAPES and r.random() < 0.8 \
            else None
        tensors, ctx = [], {}
        for i, a in enumerate(ins):
            if a.is_tensor_list:
                n = r.choice([0, 1, 2, 2, 3, 4])
                d = r.randrange(len(base)) if base else 0
                ctx["cat_axis"] = d - len(base) if r.random() < 0.3 else d
                tl = []
                for _ in range(n):
                    s = list(base)
                    if s and r.random() < 0.9:
                        s[d] = r.choice([0, 1, 2, 3])
                    elif r.random() < 0.5:
                        s = rand_shape(r)
                    tl.append(make_tensor(r, s, r.choice(DTYPES) if r.random() < 0.1 else
                                          (tl[0].dtype if tl else None)))
                tensors.append(tl)
                continue
            shape = shapes[i] if shapes else (base if i == 0 else related_shape(r, base))
            dtype = None
            if a.name == "condition":
                dtype = "bool" if r.random() < 0.9 else None
            elif a.name == "index":
                dtype = r.choice(["int64", "int32"]) if r.random() < 0.9 else None
            elif i > 0 and tensors and isinstance(tensors[0], T) and r.random() < 0.6:
                dtype = tensors[0].dtype  # mostly one dtype; promotion the rest of the time
            tensors.append(make_tensor(r, shape, dtype))
        x = tensors[0] if tensors and isinstance(tensors[0], T) else \
            (tensors[0][0] if tensors and tensors[0] else None)
        if {"axes", "starts", "ends"} <= {a.name for a in op.attrs}:
            ctx["slice"] = slice_attrs(r, x)
        if name == "unsqueeze":
            ctx["unsqueeze"] = True
        attrs = {}
        for a in op.attrs:
            attrs[a.name] = gen_attr(r, a, x, ctx)
        if name in HINTS and r.random() < 0.85:
            HINTS[name](r, tensors, attrs)
        # declared order; trailing defaults sometimes left out, keywords sometimes
        values = []
        it = iter(tensors)
        for a in op.args:
            values.append(next(it) if a.is_input else attrs[a.name])
        n_pos = len(op.args)
        if not wrapper:
            while n_pos and op.args[n_pos - 1].default is not None and r.random() < 0.3:
                n_pos -= 1
        kw_from = r.randint(0, n_pos) if r.random() < 0.3 else n_pos
        args = values[:kw_from]
        kwargs = {names[a.name]: v for a, v in zip(op.args[kw_from:n_pos], values[kw_from:n_pos])}
        decl = {a.name: v for a, v in zip(op.args[:n_pos], values)}  # what the oracle sees
        return Call(cid, key, target, args, kwargs, "inplace" if key.endswith("_") else "op", op,
                    decl)

    def inject_wrong(self, r, call):
        call.wrong = True
        w = r.choice(WRONG)
        u = r.random()
        if u < 0.1:
            call.kwargs["no_such_arg"] = 1
        elif u < 0.15:
            call.args.append(w)  # one positional too many
        elif call.args and (u < 0.8 or not call.kwargs):
            call.args[r.randrange(len(call.args))] = w
        else:
            call.kwargs[r.choice(list(call.kwargs))] = w
