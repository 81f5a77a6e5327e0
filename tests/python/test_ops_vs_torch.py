"""Every op declared in src/oar/ops/*.yaml, checked against PyTorch: the Python driver
of the op test registry.

The cases, their torch expressions and the tolerances are all in tests/op_cases/
(its header documents the schema), expanded by tests/op_registry.py, which the C++
driver's golden file (tools/make_golden.py) is made with too. This file holds only
the drivers. The op list is read from src/oar/ops/*.yaml (with the codegen's own
parser), so declaring an op without an entry in tests/op_cases/ makes
test_every_declared_op_is_covered fail. For each op / case / dtype:

  test_forward        values (float32 and float64), dtype and shape of the output;
                      the inputs are left unchanged
  test_grad           first-order gradients with a random upstream gradient g:
                      oar.grad(out, inputs, grad_outputs=g) vs torch.autograd.grad
  test_double_grad    d/d(inputs) of sum(first_grad * v), create_graph=True in both
  test_complex_grad_by_finite_differences
                      complex gradients against central differences along the real and
                      imaginary parts, without PyTorch
  *_parallel          the same with FLAGS_parallel_threshold=1 (OpenMP paths)
  test_method         x.<op>(...) Tensor methods, attributes passed by keyword
  test_inplace*       oar.<op>_ / x.<op>_(): under no_grad (also into views) and
                      on a non-leaf with autograd
  test_uniform/normal statistical tests of the random ops (the only exclusion
                      from the PyTorch comparison: their values cannot match)

Integer cases also run in uint8, int8 and int16 for every op whose kernel takes them
(_small_int_variants: the kernel registry's dtypes, index arguments kept).

The *_grad ops (tanh_grad, softmax_grad, ...) are ops like the others here: their
forward values and their own first and second derivatives are compared with their
torch expression; they are also exercised by the double backward of their forward op.

A case's inputs are contiguous base tensors and the views the op receives (the
`view` of an input spec); gradients are taken w.r.t. the bases, so they also go
through the backward of the view ops.
"""
import math
import os
import re
import sys
import zlib

import numpy as np
import pytest
import torch

import oar

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import op_registry as R  # noqa: E402  (tests/op_registry.py)
from op_registry import call_torch, COMPLEX_DTYPES, FLOAT_DTYPES, NP_DTYPES, OPS  # noqa: E402,F401



@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """One OpenMP thread while this module runs: its tensors are tiny. torch and oar
    share one OpenMP runtime in a process, so this holds for oar's oneDNN and OpenBLAS
    calls too; it is put back afterwards (set at import, it held for every module
    collected after this one, and oneDNN's sums are grouped by its thread count)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

# The registry without the random ops, which have no oracle (statistical tests below).
REGISTRY = {name: e for name, e in R.registry()["ops"].items() if not e["random"]}
RANDOM_OPS = {name for name, e in R.registry()["ops"].items() if e["random"]}
# The default tolerances per dtype (tests/op_cases/'s _tol), for the tests outside the
# registry; the registry's cases use _tol(p), with the per-op overrides.
TOL = R.registry()["tol"]
GRAD_TOL = TOL  # gradients (every order) are held to the same bounds
_oar_grad, _torch_grad = R.oar_grad, R.torch_grad


# ---- inputs ------------------------------------------------------------------------------
class Input(R.Input):
    """A registry input (numpy base, torch views) with its oar counterparts."""

    def oar_base(self, requires_grad=False):
        t = oar.to_tensor(self.base.copy())
        assert t.dtype == self.dtype
        t.stop_gradient = not requires_grad
        return t

    def oar_view(self, t):
        v = self._oar_dense_view(t)
        if self.layout == "coo":
            return oar._C.sparse_to_coo(v, self.sparse_dim)
        if self.layout == "csr":
            return oar._C.sparse_to_csr(v)
        return v

    def _oar_dense_view(self, t):
        nd = len(self.shape)
        if self.view is None:
            return t
        if self.view == "T":
            perm = list(range(nd - 2)) + [nd - 1, nd - 2]
            return oar._C.transpose(t, perm)
        if self.view == "step":
            return oar._C.strided_slice(t, [0], [0], [t.shape[0]], [2])
        if self.view == "flip":
            n = t.shape[0]
            return oar._C.strided_slice(t, [0], [n - 1], [-n - 1], [-1])
        if self.view == "bcast":
            return oar._C.expand(t, self.shape)
        raise AssertionError(self.view)


class Param:
    """One test: case `index` of an op, run with float inputs in `dtype` ("native"
    when the case has no float inputs)."""

    def __init__(self, op, index, case, dtype):
        self.op, self.index, self.case, self.dtype = op, index, case, dtype

    def inputs(self):
        return R.make_inputs(self.op, self.index, self.case, self.dtype, cls=Input)

    def rng(self, salt):
        return R.case_rng(self.op, self.index, salt)

    def __str__(self):
        shapes = ",".join(Input(s, "float64", np.random.default_rng(0)).describe()
                          for s in self.case["inputs"])
        attrs = self.case["attrs"]
        a = ",".join(f"{k}={v}" for k, v in attrs.items()).replace(" ", "")
        return f"{self.op}-c{self.index}-[{shapes}]" + (f"-{{{a}}}" if a else "") + f"-{self.dtype}"


def _attrs(op, case):
    return R.attrs(op, case)


def _arg_names(op, n_inputs):
    """The src/oar/ops/ argument name of each tensor input."""
    ins = op.inputs
    if len(ins) == 1 and ins[0].is_tensor_list:
        return [ins[0].name] * n_inputs
    assert len(ins) == n_inputs, f"{op.name}: {n_inputs} inputs given, {len(ins)} declared"
    return [a.name for a in ins]


def call_oar(op, tensors, attrs, fn=None):
    """oar._C.<op> with the tensors and attributes, positionally in declared order."""
    args, it = [], iter(tensors)
    for a in op.args:
        if a.is_tensor_list:
            args.append(list(tensors))
        elif a.is_tensor:
            args.append(next(it))
        else:
            v = attrs[a.name]
            if a.type == "DataType" and v is not None:
                v = oar.convert_dtype(v)
            args.append(v)
    return (fn or getattr(oar._C, op.name))(*args)


def torch_dtype_name(t):
    return R.DTYPE_NAMES[t.dtype]


def to_numpy(t):
    return np.array((oar._C.sparse_to_dense(t) if t.is_sparse() else t).numpy(), copy=True)


def assert_close(got, want, tol, what):
    """got: oar Tensor (or None = zeros); want: torch Tensor."""
    want_np = want.detach().numpy(force=True)  # force: torch's ZeroTensor grads
    if got is None:
        got_np = np.zeros_like(want_np)
    else:
        assert got.dtype == torch_dtype_name(want), (
            f"{what}: dtype {got.dtype.name}, torch gives {torch_dtype_name(want)}")
        got_np = to_numpy(got)
    assert list(got_np.shape) == list(want_np.shape), (
        f"{what}: shape {list(got_np.shape)}, torch gives {list(want_np.shape)}")
    if want_np.dtype.kind in "biu":
        np.testing.assert_array_equal(got_np, want_np, err_msg=what)
    else:
        np.testing.assert_allclose(got_np, want_np, err_msg=what, **tol)


def _tol(p, want=None):
    """The tolerance of a case, for its values and gradients: tests/op_cases/'s _tol with
    the op's tol overrides (a "native" case: float64's, or that of its floating result
    `want`, as exp of int32 computed in float32)."""
    dt = p.dtype
    if dt not in TOL and dt not in COMPLEX_DTYPES:
        out = torch_dtype_name(want) if want is not None else None
        dt = out if out in TOL else "float64"
    return R.tolerance(p.op, dt)


# ---- parameters --------------------------------------------------------------------------
# uint8, int8 and int16 (docs/dtypes.md) for every op whose kernel takes them: each
# integer case (no float input) runs again with its int32/int64 data inputs in each of
# them; index arguments keep their dtype. The kernel registry says which dtypes a kernel
# takes; an op without a kernel of its name (a composite) is covered by the ops it calls.
SMALL_INTS = ("uint8", "int8", "int16")
INDEX_ARGS = {"index", "indices", "segment_ids", "src_index", "dst_index",
              "bincount.x"}  # bincount's x is its bins: int32/int64, as in Paddle


def _small_int_variants(name, case):
    op = OPS[name]
    specs = case["inputs"]
    if not specs or any(s.get("dtype") is None for s in specs):
        return []
    kernel = oar._C._kernel_dtypes(name)
    if kernel is None:
        return []
    names = _arg_names(op, len(specs))
    data = [i for i, (n, s) in enumerate(zip(names, specs))
            if s.get("dtype") in ("int32", "int64") and n not in INDEX_ARGS
            and f"{name}.{n}" not in INDEX_ARGS]
    if not data:
        return []
    out = []
    for dt in SMALL_INTS:
        if dt in kernel.split(", "):
            out.append({**case, "inputs": [{**s, "dtype": dt} if i in data else s
                                           for i, s in enumerate(specs)]})
    return out


def _forward_params():
    out = []
    for name in sorted(REGISTRY):
        for i, case in enumerate(REGISTRY[name]["cases"]):
            has_float = any(s.get("dtype") is None for s in case["inputs"])
            dts = (COMPLEX_DTYPES if case.get("complex") else FLOAT_DTYPES) if has_float \
                else ("native",)
            for dt in dts:
                out.append(Param(name, i, case, dt))
            # The same index: the same random values, read in the smaller dtype.
            out += [Param(name, i, c, "native") for c in _small_int_variants(name, case)]
    return out


FORWARD_PARAMS = _forward_params()


def _diff_indices(op, inputs):
    names = _arg_names(op, len(inputs))
    return [i for i, (n, inp) in enumerate(zip(names, inputs))
            if n in op.backward and inp.is_float]


def _torch_out_is_float(p):
    op = OPS[p.op]
    inputs = p.inputs()
    try:
        out = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs],
                         _attrs(op, p.case))
    except Exception as e:  # a broken case in the registry: say which
        raise AssertionError(f"{p}: the torch expression fails: {e}") from e
    return out.is_floating_point() or out.is_complex()


GRAD_PARAMS = [p for p in FORWARD_PARAMS
               if OPS[p.op].backward and _diff_indices(OPS[p.op], p.inputs())
               and _torch_out_is_float(p)]


# ---- forward -----------------------------------------------------------------------------
@pytest.mark.parametrize("p", FORWARD_PARAMS, ids=str)
def test_forward(p):
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    o_bases = [inp.oar_base() for inp in inputs]
    o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_bases)]
    before = [to_numpy(b) for b in o_bases]
    out = call_oar(op, o_in, attrs)
    want = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs], attrs)
    assert_close(out, want, _tol(p, want), f"{p}: forward")
    for k, (b, prev) in enumerate(zip(o_bases, before)):
        np.testing.assert_array_equal(to_numpy(b), prev,
                                      err_msg=f"{p}: input {k} was modified by the op")


class parallel_everything:
    """FLAGS_parallel_threshold=1: every kernel loop takes its OpenMP path, even on
    the small inputs of the cases (the default threshold keeps them inline)."""

    def __enter__(self):
        self.prev = oar.get_flags("FLAGS_parallel_threshold")["FLAGS_parallel_threshold"]
        oar.set_flags({"FLAGS_parallel_threshold": 1})

    def __exit__(self, *exc):
        oar.set_flags({"FLAGS_parallel_threshold": int(self.prev)})


PARALLEL_PARAMS = [p for p in FORWARD_PARAMS if p.dtype != "float32"]


@pytest.mark.parametrize("p", PARALLEL_PARAMS, ids=str)
def test_forward_parallel(p):
    with parallel_everything():
        test_forward(p)


def test_large_inputs_release_the_gil():
    """Inputs of >= 65536 elements take the bindings' GIL-releasing path."""
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (300, 257)), rng.uniform(-1, 1, (257,))
    x = oar.to_tensor(a, stop_gradient=False)
    y = oar.to_tensor(b, stop_gradient=False)
    xt = oar._C.transpose(oar._C.transpose(x, [1, 0]), [1, 0])
    out = oar._C.softmax(oar._C.add(xt, y), -1)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    want = torch.softmax(ta + tb, -1)
    assert_close(out, want, TOL["float64"], "softmax(x + y), large")
    g = rng.standard_normal((300, 257))
    for og, tg in zip(_oar_grad([out], [x, y], [oar.to_tensor(g)]),
                      _torch_grad([want], [ta, tb], [torch.tensor(g)])):
        assert_close(og, tg, GRAD_TOL["float64"], "grad, large")


# ---- gradients ---------------------------------------------------------------------------
def _np_like(rng, shape, dtype):
    v = rng.standard_normal(size=shape)
    if dtype in COMPLEX_DTYPES:
        v = v + 1j * rng.standard_normal(size=shape)
    return v.astype(NP_DTYPES[dtype])


def _setup_grad(p):
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    diff = _diff_indices(op, inputs)
    o_bases = [inp.oar_base(i in diff) for i, inp in enumerate(inputs)]
    t_bases = [inp.torch_base(i in diff) for i, inp in enumerate(inputs)]
    o_out = call_oar(op, [inp.oar_view(b) for inp, b in zip(inputs, o_bases)], attrs)
    if o_out.is_sparse():  # compared densely, as call_torch's result
        o_out = oar._C.sparse_to_dense(o_out)
    t_out = call_torch(op, [inp.torch_view(b) for inp, b in zip(inputs, t_bases)], attrs)
    g = _np_like(p.rng("g"), list(t_out.shape), torch_dtype_name(t_out))
    return (diff, [o_bases[i] for i in diff], [t_bases[i] for i in diff], o_out, t_out,
            oar.to_tensor(g), torch.tensor(g))


@pytest.mark.parametrize("p", GRAD_PARAMS, ids=str)
def test_grad(p):
    diff, o_leaves, t_leaves, o_out, t_out, o_g, t_g = _setup_grad(p)
    assert o_out.stop_gradient is False, f"{p}: output does not require grad"
    o_gs = _oar_grad([o_out], o_leaves, [o_g])
    t_gs = _torch_grad([t_out], t_leaves, [t_g])
    for k, (og, tg) in enumerate(zip(o_gs, t_gs)):
        assert_close(og, tg, _tol(p), f"{p}: d out / d input {diff[k]}")


@pytest.mark.parametrize("p", [p for p in GRAD_PARAMS if p.dtype == "float64"], ids=str)
def test_grad_parallel(p):
    with parallel_everything():
        test_grad(p)


@pytest.mark.parametrize("p", [p for p in GRAD_PARAMS if REGISTRY[p.op]["grad_orders"] >= 2],
                         ids=str)
def test_double_grad(p):
    diff, o_leaves, t_leaves, o_out, t_out, o_g, t_g = _setup_grad(p)
    o_first = _oar_grad([o_out], o_leaves, [o_g], create_graph=True)
    t_first = _torch_grad([t_out], t_leaves, [t_g], create_graph=True)
    vrng = p.rng("v")
    vs = [_np_like(vrng, list(t.shape), torch_dtype_name(t)) for t in t_leaves]
    o_s, t_s = None, None
    for of, tf, v in zip(o_first, t_first, vs):
        # Re(sum(first * v)): a real scalar also when the gradients are complex.
        if of is not None:
            term = oar._C.sum(oar._C.multiply(of, oar.to_tensor(v)))
            if term.dtype.is_complex:
                term = oar._C.real(term)
            o_s = term if o_s is None else oar._C.add(o_s, term)
        term = (tf * torch.tensor(v)).sum()
        if term.is_complex():
            term = term.real
        t_s = term if t_s is None else t_s + term
    o_second = [None] * len(o_leaves) if o_s is None else _oar_grad([o_s], o_leaves)
    t_second = _torch_grad([t_s], t_leaves)
    for k, (og, tg) in enumerate(zip(o_second, t_second)):
        assert_close(og, tg, _tol(p),
                     f"{p}: d(sum(d out/d input * v)) / d input {diff[k]}")


# ---- complex gradients by finite differences --------------------------------------------
def _real_loss(out, g):
    """L = Re(sum(conj(g) * out)): the real loss whose gradient the vjp with upstream
    gradient g computes (for a real out and real g, sum(g * out))."""
    return float(np.real(np.sum(np.conj(g) * to_numpy(out))))


@pytest.mark.parametrize("p", [p for p in GRAD_PARAMS if p.dtype == "complex128"], ids=str)
def test_complex_grad_by_finite_differences(p):
    """Complex gradients against central differences, independently of PyTorch: for
    a real loss L and a complex input z = x + iy, oar (like Paddle and PyTorch) gives
    dL/dx + i dL/dy (the conjugate Wirtinger derivative, times 2). Every element's
    real and imaginary parts are perturbed by h = 1e-6 (only the stored elements of a
    sparse input or of any input of a sparse result: perturbing a zero would change
    which elements are stored), and the real inputs of a mixed case along their one
    axis."""
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    diff = _diff_indices(op, inputs)
    bases = [inp.oar_base(i in diff) for i, inp in enumerate(inputs)]
    out = call_oar(op, [inp.oar_view(b) for inp, b in zip(inputs, bases)], attrs)
    sparse_out = out.is_sparse()  # a zero input element stays unstored (sparse_to_coo)
    g = _np_like(p.rng("g"), list(out.shape), out.dtype.name)
    grads = _oar_grad([out], [bases[i] for i in diff], [oar.to_tensor(g)])

    def loss(values):
        ts = [oar.to_tensor(v) for v in values]
        return _real_loss(call_oar(op, [inp.oar_view(t) for inp, t in zip(inputs, ts)], attrs), g)

    h = 1e-6
    base_values = [np.array(inp.base, copy=True) for inp in inputs]
    for k, i in enumerate(diff):
        shape = base_values[i].shape
        got = np.zeros(shape, complex) if grads[k] is None else to_numpy(grads[k])
        want = np.zeros(shape, complex)
        steps = (1.0, 1j) if np.iscomplexobj(base_values[i]) else (1.0,)
        for idx in np.ndindex(*shape):
            if (inputs[i].layout is not None or sparse_out) and base_values[i][idx] == 0:
                continue
            for step in steps:
                plus = [v.copy() for v in base_values]
                minus = [v.copy() for v in base_values]
                plus[i][idx] += h * step
                minus[i][idx] -= h * step
                d = (loss(plus) - loss(minus)) / (2 * h)
                want[idx] += d * step  # dL/dx + i dL/dy
        scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale,
                                   err_msg=f"{p}: d L / d input {i} by finite differences")


# ---- Tensor methods ------------------------------------------------------------------------
def _has_method(op):
    """Tensor.<op> (and Tensor.<op>_): declared by `python: [..., method]` in src/oar/ops/."""
    return "method" in op.python


def _function(op, name):
    """oar.<name> for a public op (`python: [function, ...]`), oar._C.<name> otherwise
    (internal ops and method-only ones are bound there only)."""
    return getattr(oar if "function" in op.python else oar._C, name)


def _other_tensors(op, o_in):
    return {a.name: t for a, t in zip(op.inputs[1:], o_in[1:])}


METHOD_PARAMS = [p for p in FORWARD_PARAMS if _has_method(OPS[p.op]) and p.dtype != "float32"]


@pytest.mark.parametrize("p", METHOD_PARAMS, ids=str)
def test_method(p):
    """x.<op>(other tensors..., attr=value...): attributes by keyword (only those the
    case sets, so the defaults are the binding's), dtypes as strings."""
    op = OPS[p.op]
    inputs = p.inputs()
    o_in = [inp.oar_view(inp.oar_base()) for inp in inputs]
    kwargs = dict(p.case["attrs"])
    # the other tensors by name: a declaration may put an attribute before a tensor
    # (Paddle's index_add(x, index, axis, value))
    out = getattr(o_in[0], p.op)(**_other_tensors(op, o_in), **kwargs)
    want = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs],
                      _attrs(op, p.case))
    assert_close(out, want, _tol(p, want), f"{p}: method x.{p.op}(...)")


def test_method_examples():
    """A few Paddle-style calls written out."""
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7.0
    x = oar.to_tensor(a)
    np.testing.assert_allclose(x.sum(axis=[1]).numpy(), a.sum(axis=1))
    np.testing.assert_allclose(x.sum(axis=[0, 2], keepdim=True).numpy(),
                               a.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(x.mean(axis=[-1]).numpy(), a.mean(axis=-1))
    np.testing.assert_allclose(x.max(axis=[1]).numpy(), a.max(axis=1))
    np.testing.assert_allclose(x.transpose([2, 0, 1]).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_allclose(x.reshape([4, -1]).numpy(), a.reshape(4, -1))
    np.testing.assert_allclose(x.scale(scale=2.0, bias=1.0).numpy(), 2 * a + 1)
    assert x.cast("int32").dtype == oar.int32
    np.testing.assert_allclose(x.softmax(axis=1).numpy(),
                               torch.softmax(torch.tensor(a), 1).numpy(), rtol=1e-12)


# ---- in-place variants ---------------------------------------------------------------------
def _inplace_ok(p):
    """In-place writes the result into x: x must be float, keep its shape and dtype."""
    op = OPS[p.op]
    inputs = p.inputs()
    if not op.inplace or not inputs or not inputs[0].is_float or inputs[0].view == "bcast":
        return False
    want = call_torch(op, [inp.torch_view(inp.torch_base()) for inp in inputs],
                      _attrs(op, p.case))
    return list(want.shape) == inputs[0].shape and torch_dtype_name(want) == inputs[0].dtype


INPLACE_PARAMS = [p for p in FORWARD_PARAMS if _inplace_ok(p)]


@pytest.mark.parametrize("p,variant", [
    pytest.param(p, v, id=f"{p}-{v}") for p in INPLACE_PARAMS for v in ("function", "method")
    if v == "function" or _has_method(OPS[p.op])])
def test_inplace_no_grad(p, variant):
    """oar.<op>_(x, ...) / x.<op>_(...) under no_grad: returns x itself, holding the
    out-of-place result; when x is a view, the base sees the write."""
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    t_bases = [inp.torch_base() for inp in inputs]
    t_in = [inp.torch_view(b) for inp, b in zip(inputs, t_bases)]
    want = call_torch(op, t_in, attrs)
    want_base = t_bases[0].clone()
    inputs[0].torch_write_view(want_base, want)
    with oar.no_grad():
        o_bases = [inp.oar_base() for inp in inputs]
        o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_bases)]
        x = o_in[0]
        version = x.inplace_version
        if variant == "function":
            r = call_oar(op, o_in, attrs, fn=_function(op, op.name + "_"))
        else:
            kwargs = dict(p.case["attrs"])
            r = getattr(x, op.name + "_")(**_other_tensors(op, o_in), **kwargs)
    assert r is x, f"{p}: {op.name}_ did not return its input"
    assert_close(x, want, _tol(p), f"{p}: {op.name}_ ({variant}): x after the write")
    assert_close(o_bases[0], want_base, _tol(p),
                 f"{p}: {op.name}_ ({variant}): the base of x after the write")
    assert x.inplace_version > version, f"{p}: inplace_version did not change"


def _backward_reads_overwritten_x(op, diff_names):
    """Whether a backward formula of a differentiated input reads the value of the
    in-place input x (which the write has replaced by the output)."""
    x = op.inplace
    if x in op.no_need_buffer:
        return False
    return any(re.search(rf"\b{x}\b", op.backward[n]) for n in diff_names if n in op.backward)


@pytest.mark.parametrize("p", [p for p in INPLACE_PARAMS if p.dtype == "float64"
                               and p.op in REGISTRY and _diff_indices(OPS[p.op], p.inputs())],
                         ids=str)
def test_inplace_grad(p):
    """y = scale(view(x_leaf), 1); y.<op>_(...): gradients as the out-of-place op's."""
    op = OPS[p.op]
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    diff = sorted(set(_diff_indices(op, inputs)) | {0})
    o_bases = [inp.oar_base(i in diff) for i, inp in enumerate(inputs)]
    t_bases = [inp.torch_base(i in diff) for i, inp in enumerate(inputs)]
    o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_bases)]
    o_in[0] = oar._C.scale(o_in[0], 1.0)  # a non-leaf: in-place allowed with grad on
    r = call_oar(op, o_in, attrs, fn=_function(op, op.name + "_"))
    assert r is o_in[0]
    t_out = call_torch(op, [inp.torch_view(b) for inp, b in zip(inputs, t_bases)], attrs)
    assert_close(r, t_out, _tol(p), f"{p}: in-place result")
    g = _np_like(p.rng("g"), list(t_out.shape), p.dtype)
    o_leaves = [o_bases[i] for i in diff]
    t_leaves = [t_bases[i] for i in diff]
    names = _arg_names(op, len(inputs))
    # Where a formula reads the x the write replaced, the op saved a recorded copy of it
    # (Note [In-place ops save a copy of what they overwrite]), as torch saves self.
    o_gs = _oar_grad([r], o_leaves, [oar.to_tensor(g)])
    t_gs = _torch_grad([t_out], t_leaves, [torch.tensor(g)])
    for k, (og, tg) in enumerate(zip(o_gs, t_gs)):
        assert_close(og, tg, _tol(p), f"{p}: in-place d out / d input {diff[k]}")


INPLACE_READING_X = sorted(n for n, op in OPS.items() if op.inplace and op.inputs[0].is_tensor
                           and _backward_reads_overwritten_x(op, set(op.backward)))


@pytest.mark.parametrize("name", INPLACE_READING_X)
def test_inplace_second_order_through_the_overwritten_input(name):
    """x = scale(leaf); x.<op>_(...) for an op whose backward reads x: the first and
    second derivatives w.r.t. leaf (and w.r.t. a second operand y) are torch's."""
    op = OPS[name]
    p = next((q for q in INPLACE_PARAMS if q.op == name and q.dtype == "float64"), None)
    if p is None:
        pytest.skip(f"{name}: no float64 case that keeps x's shape and dtype")
    inputs = p.inputs()
    attrs = _attrs(op, p.case)
    diff = sorted(set(_diff_indices(op, inputs)) | {0})
    o_leaves = [inp.oar_base(i in diff) for i, inp in enumerate(inputs)]
    t_leaves = [inp.torch_base(i in diff) for i, inp in enumerate(inputs)]
    o_in = [inp.oar_view(b) for inp, b in zip(inputs, o_leaves)]
    t_in = [inp.torch_view(b) for inp, b in zip(inputs, t_leaves)]
    o_in[0] = oar._C.scale(o_in[0], 1.0)
    r = call_oar(op, o_in, attrs, fn=_function(op, op.name + "_"))
    t_out = call_torch(op, t_in, attrs)
    o_g = oar.grad([r.sum()], [o_leaves[i] for i in diff], create_graph=True)
    t_g = torch.autograd.grad(t_out.sum(), [t_leaves[i] for i in diff], create_graph=True)
    for k, (og, tg) in enumerate(zip(o_g, t_g)):
        assert_close(og, tg, _tol(p), f"{p}: {name}_: first derivative {diff[k]}")
    t_g2 = (torch.autograd.grad(t_g[0].sum(), [t_leaves[0]], allow_unused=True)[0]
            if t_g[0].requires_grad else None)
    if o_g[0].stop_gradient:  # no graph: the derivative is constant in x
        assert t_g2 is None or not t_g2.any(), f"{p}: {name}_: second derivative lost"
        return
    o_g2 = oar.grad([o_g[0].sum()], [o_leaves[0]], allow_unused=True)[0]
    if t_g2 is None:
        assert o_g2 is None or not o_g2.numpy().any()
        return
    assert_close(o_g2, t_g2, _tol(p), f"{p}: {name}_: second derivative")


@pytest.mark.parametrize("name", sorted(n for n, op in OPS.items()
                                         if op.inplace and len(op.inputs) >= 2
                                         and all(a.is_tensor for a in op.inputs[:2])
                                         and op.infer_meta == "ElementwiseInferMeta"))
def test_inplace_with_itself_as_other_operand(name):
    """x.<op>_(x): the operand aliases the destination element for element."""
    a = np.array([[0.5, -1.5, 2.0], [1.25, -0.75, 3.0]])
    if not any(s.get("dtype") is None for c in REGISTRY[name]["cases"] for s in c["inputs"]):
        a = np.array([[5, -3, 2], [7, -8, 1]])  # an integer-only op (bitwise_and, ...)
    x = oar.to_tensor(a)
    with oar.no_grad():
        getattr(x, name + "_")(x)
    t = torch.tensor(a)
    want = call_torch(OPS[name], [t, t], _attrs(OPS[name], {}))
    assert_close(x, want, TOL["float64"], f"x.{name}_(x)")


def test_inplace_into_expanded_view_raises():
    base = oar.to_tensor(np.array([[1.0, 2.0, 3.0]]))
    v = oar._C.expand(base, [2, 3])
    with oar.no_grad(), pytest.raises(ValueError, match="expanded"):
        v.add_(oar.to_tensor(np.ones((2, 3))))
    np.testing.assert_array_equal(base.numpy(), [[1.0, 2.0, 3.0]])


def test_inplace_on_leaf_requiring_grad_raises():
    x = oar.to_tensor(np.ones((2, 3)), stop_gradient=False)
    with pytest.raises(RuntimeError):
        x.add_(oar.to_tensor(np.ones((2, 3))))
    with oar.no_grad():
        x.add_(oar.to_tensor(np.ones((2, 3))))
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 2.0))


# ---- random ops: statistical tests -------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_uniform(dtype):
    from scipy import stats
    lo, hi = -2.0, 3.0
    x = oar._C.uniform([100, 100], oar.convert_dtype(dtype), lo, hi, 0)
    assert x.dtype == dtype and x.shape == [100, 100]
    a = to_numpy(x).astype(np.float64).ravel()
    assert a.min() >= lo and a.max() < hi
    n = a.size
    # mean and variance within 5 standard errors; a KS test at p = 1e-4.
    assert abs(a.mean() - (lo + hi) / 2) < 5 * (hi - lo) / math.sqrt(12 * n)
    assert abs(a.var() / ((hi - lo) ** 2 / 12) - 1) < 0.05
    assert stats.kstest(a, stats.uniform(loc=lo, scale=hi - lo).cdf).pvalue > 1e-4
    assert len(np.unique(a)) > 0.99 * n


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_normal(dtype):
    from scipy import stats
    mu, sd = 1.0, 2.0
    x = oar._C.normal([100, 100], mu, sd, 0, oar.convert_dtype(dtype))
    assert x.dtype == dtype and x.shape == [100, 100]
    a = to_numpy(x).astype(np.float64).ravel()
    n = a.size
    assert abs(a.mean() - mu) < 5 * sd / math.sqrt(n)
    assert abs(a.std() / sd - 1) < 0.05
    assert stats.kstest(a, stats.norm(loc=mu, scale=sd).cdf).pvalue > 1e-4


# uniform and normal; the other random ops have their tests in test_random_ops.py.
BASIC_RANDOM_OPS = sorted(RANDOM_OPS & {"uniform", "normal"})


@pytest.mark.parametrize("op", BASIC_RANDOM_OPS)
def test_random_seeding(op):
    def draw(seed):
        if op == "uniform":
            return to_numpy(oar._C.uniform([50], oar.float32, -1.0, 1.0, seed))
        return to_numpy(oar._C.normal([50], 0.0, 1.0, seed, oar.float32))
    np.testing.assert_array_equal(draw(7), draw(7))      # an explicit seed is reproducible
    assert not np.array_equal(draw(7), draw(8))
    oar.seed(1234)
    first = [draw(0), draw(0)]
    assert not np.array_equal(first[0], first[1])       # the default generator advances
    oar.seed(1234)
    np.testing.assert_array_equal(draw(0), first[0])    # and oar.seed() resets it
    np.testing.assert_array_equal(draw(0), first[1])


@pytest.mark.parametrize("op", BASIC_RANDOM_OPS)
def test_random_empty_and_python_api(op):
    if op == "uniform":
        assert oar._C.uniform([0, 3], oar.float64, 0.0, 1.0, 0).shape == [0, 3]
        r = oar.uniform([4, 5], dtype="float64", min=2.0, max=2.5)
        a = to_numpy(r)
        assert r.dtype == oar.float64 and a.min() >= 2.0 and a.max() < 2.5
        assert oar.rand([3]).dtype == oar.float32
    else:
        assert oar._C.normal([0, 3], 0.0, 1.0, 0, oar.float64).shape == [0, 3]
        r = oar.normal(mean=3.0, std=0.5, shape=[2000])
        assert r.shape == [2000] and abs(to_numpy(r).mean() - 3.0) < 0.1
        assert oar.randn([2, 3], dtype="float64").dtype == oar.float64


# ---- coverage of the declarations ------------------------------------------------------------
def test_every_declared_op_is_covered():
    """Each op of src/oar/ops/ is compared with torch here (or, for the random ops,
    tested statistically). Adding an op without cases fails this test."""
    missing = [n for n in OPS if n not in RANDOM_OPS and not REGISTRY.get(n, {}).get("cases")
               and not REGISTRY.get(n, {}).get("checked_by")]
    for n, e in REGISTRY.items():  # a checked_by op runs in the named op's gradient cases
        if e["checked_by"]:
            assert REGISTRY[e["checked_by"]]["cases"], f"{n}: checked_by {e['checked_by']}"
    assert not missing, f"ops declared in src/oar/ops/*.yaml without test cases: {missing}"
    undeclared = sorted(set(REGISTRY) - set(OPS))
    assert not undeclared, f"test cases for ops not declared in src/oar/ops/: {undeclared}"
    assert RANDOM_OPS <= set(OPS), RANDOM_OPS - set(OPS)


def test_every_differentiable_op_has_gradient_cases():
    grad_ops = {p.op for p in GRAD_PARAMS}
    # A random op has no torch oracle; its gradient (standard_gamma's implicit one) is
    # tested where the op's statistics are (tests/python/test_distribution.py).
    differentiable = {n: op for n, op in OPS.items() if op.backward and n not in RANDOM_OPS
                      and not REGISTRY[n]["checked_by"]}
    missing = [n for n in differentiable if n not in grad_ops]
    assert not missing, f"differentiable ops without a gradient case: {missing}"
    # every differentiable input of every op is differentiated in some case
    seen = {}
    for p in GRAD_PARAMS:
        op = OPS[p.op]
        inputs = p.inputs()
        names = _arg_names(op, len(inputs))
        seen.setdefault(p.op, set()).update(names[i] for i in _diff_indices(op, inputs))
    lacking = {n: sorted(set(OPS[n].backward) - seen.get(n, set()))
               for n in differentiable if set(OPS[n].backward) - seen.get(n, set())}
    assert not lacking, f"differentiable inputs never differentiated: {lacking}"


def test_every_op_has_empty_and_view_cases():
    """Empty tensors and non-contiguous views for every op with tensor inputs; an
    empty output for the creation ops."""
    no_empty, no_view = [], []
    for name, entry in REGISTRY.items():
        if entry["checked_by"]:  # runs in that op's cases
            continue
        specs = [c["inputs"] for c in entry["cases"]]
        if not OPS[name].inputs:
            if not any(0 in c["attrs"].get("shape", [1]) or
                       c["attrs"].get("start") == c["attrs"].get("end")
                       for c in entry["cases"]):
                no_empty.append(name)
            continue
        if not any(0 in s["shape"] for ss in specs for s in ss):
            no_empty.append(name)
        if not any(s.get("view") for ss in specs for s in ss):
            no_view.append(name)
    assert not no_empty, f"ops without an empty-tensor case: {no_empty}"
    assert not no_view, f"ops without a non-contiguous input case: {no_view}"


def test_bindings_match_declarations():
    """oar._C.<op> (oar._C.<op>_ for inplace ops) for every op; oar.<op> (oar.<op>_)
    and Tensor methods x.<op> (x.<op>_) as the op's `python:` in src/oar/ops/ declares."""
    problems = []
    for name, op in OPS.items():
        if not callable(getattr(oar._C, name, None)):
            problems.append(f"oar._C.{name} missing")
        if "function" in op.python and not callable(getattr(oar, name, None)):
            problems.append(f"oar.{name} missing")
        if op.inplace:
            if not callable(getattr(oar._C, name + "_", None)):
                problems.append(f"oar._C.{name}_ missing")
            if "function" in op.python and not callable(getattr(oar, name + "_", None)):
                problems.append(f"oar.{name}_ missing")
        if _has_method(op):
            if not callable(getattr(oar.Tensor, name, None)):
                problems.append(f"Tensor.{name} missing")
            if op.inplace and not callable(getattr(oar.Tensor, name + "_", None)):
                problems.append(f"Tensor.{name}_ missing")
    assert not problems, problems


# ---- Python operators and Paddle-style wrappers -----------------------------------------------
OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "**": lambda a, b: a ** b, "@": lambda a, b: a @ b,
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("sym", sorted(OPERATORS))
def test_python_operators_tensor_tensor(sym, dtype):
    rng = np.random.default_rng(zlib.crc32(sym.encode()))
    if sym == "@":
        a, b = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3, 4))
    else:
        a, b = rng.uniform(0.5, 2.0, (2, 3)), rng.uniform(0.5, 2.0, (3,))
    a, b = a.astype(NP_DTYPES[dtype]), b.astype(NP_DTYPES[dtype])
    oa, ob = oar.to_tensor(a, stop_gradient=False), oar.to_tensor(b, stop_gradient=False)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out, want = OPERATORS[sym](oa, ob), OPERATORS[sym](ta, tb)
    tol = TOL[dtype]
    assert_close(out, want, tol, f"a {sym} b")
    g = rng.standard_normal(list(want.shape)).astype(NP_DTYPES[dtype])
    for og, tg in zip(_oar_grad([out], [oa, ob], [oar.to_tensor(g)]),
                      _torch_grad([want], [ta, tb], [torch.tensor(g)])):
        assert_close(og, tg, GRAD_TOL[dtype], f"grad of a {sym} b")


@pytest.mark.parametrize("sym", ["+", "-", "*", "/", "**", "r+", "r-", "r*", "r/", "r**"])
def test_python_operators_tensor_scalar(sym):
    a = np.random.default_rng(3).uniform(0.5, 2.0, (2, 3))
    s = 1.5
    ox, tx = oar.to_tensor(a, stop_gradient=False), torch.tensor(a, requires_grad=True)
    f = OPERATORS[sym.lstrip("r")]
    out, want = ((f(s, ox), f(s, tx)) if sym.startswith("r") else (f(ox, s), f(tx, s)))
    assert_close(out, want, TOL["float64"], f"{sym} with a scalar")
    (og,) = _oar_grad([out], [ox], [oar.ones_like(out)])
    (tg,) = _torch_grad([want], [tx], [torch.ones_like(want)])
    assert_close(og, tg, GRAD_TOL["float64"], f"grad of {sym} with a scalar")


def test_python_unary_and_comparison_operators():
    a = np.array([[-1.5, 0.5, 2.0], [0.25, -0.75, 1.0]])
    b = np.array([0.5, 0.5, -1.0])
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    np.testing.assert_array_equal((-x).numpy(), -a)
    np.testing.assert_array_equal(abs(x).numpy(), np.abs(a))
    for sym, f in [("<", np.less), ("<=", np.less_equal), (">", np.greater),
                   (">=", np.greater_equal), ("==", np.equal), ("!=", np.not_equal)]:
        got = eval(f"x {sym} y")  # noqa: S307
        assert got.dtype == oar.bool, sym
        np.testing.assert_array_equal(got.numpy(), f(a, b), err_msg=sym)
        got = eval(f"x {sym} 0.5")  # noqa: S307
        np.testing.assert_array_equal(got.numpy(), f(a, 0.5), err_msg=f"{sym} scalar")


def test_paddle_style_wrappers():
    rng = np.random.default_rng(11)
    a = rng.uniform(0.5, 2.0, (4, 5))
    x, t = oar.to_tensor(a), torch.tensor(a)
    assert_close(oar.pow(x, 2.5), torch.pow(t, 2.5), TOL["float64"], "oar.pow(x, float)")
    assert_close(x.pow(2.5), torch.pow(t, 2.5), TOL["float64"], "x.pow(float)")
    e = rng.uniform(-1, 1, (4, 5))
    assert_close(oar.pow(x, oar.to_tensor(e)), torch.pow(t, torch.tensor(e)), TOL["float64"],
                 "oar.pow(x, Tensor)")
    assert_close(oar.cast(x, "float32"), t.float(), TOL["float32"], "oar.cast")
    assert_close(x.astype("int64"), t.long(), TOL["float64"], "astype")
    assert_close(oar.slice(x, [0, 1], [1, -3], [3, 100]), t[1:3, -3:], TOL["float64"], "slice")
    assert_close(x[1:3, ::-2], torch.tensor(a[1:3, ::-2].copy()), TOL["float64"], "x[1:3, ::-2]")
    assert_close(x[[3, 0, 3]], t[[3, 0, 3]], TOL["float64"], "x[[3, 0, 3]]")
    assert_close(x.T, t.T, TOL["float64"], "x.T")
    assert_close(oar.t(x), t.t(), TOL["float64"], "oar.t")
    assert_close(x.clone(), t.clone(), TOL["float64"], "clone")
    c = oar.to_tensor(a > 1.0)
    assert_close(oar.where(c, x, 0.0), torch.where(torch.tensor(a > 1.0), t, 0.0),
                 TOL["float64"], "oar.where(c, x, scalar)")
    rows, cols = oar.nonzero(c, as_tuple=True)
    trows, tcols = torch.nonzero(torch.tensor(a > 1.0), as_tuple=True)
    assert_close(rows, trows, TOL["float64"], "nonzero rows")
    assert_close(cols, tcols, TOL["float64"], "nonzero cols")
    assert_close(oar.full([2, 3], 1.5), torch.full([2, 3], 1.5), TOL["float32"], "oar.full")
    assert_close(oar.arange(5), torch.arange(5), TOL["float64"], "oar.arange(5)")
    assert_close(oar.arange(0.0, 1.0, 0.25), torch.arange(0.0, 1.0, 0.25), TOL["float32"],
                 "oar.arange(floats)")
    assert_close(oar.full_like(x, 2), torch.full_like(t, 2), TOL["float64"], "oar.full_like")
