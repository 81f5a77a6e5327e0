"""The op test registry: tests/op_cases/*.yaml, expanded into the test cases of every op.

The one reader of tests/op_cases/ (its header documents the schema). Its users:

  tools/make_golden.py               inputs + PyTorch's outputs for the C++ driver
                                     (<build>/generated/golden/ops.json, a build product)
  tests/python/test_ops_vs_torch.py  the Python driver: oar against PyTorch, live
  tests/fuzz/worker.py               the fuzzer: call_torch as the oracle of random calls

Import it with this directory on sys.path (`import op_registry`). It needs numpy,
PyYAML and PyTorch but not oar: make_golden.py runs from the source tree, before or
without an installed oar (only oar_grad imports oar, when called).

An expanded case is {"inputs": [spec, ...], "attrs": {...}}, a spec a dict with at
least "shape". A case's index (its place in the op's expanded list) seeds its random
values, so the Python and C++ drivers see the same inputs for the same case.
"""
import functools
import os
import sys
import zlib

import numpy as np
import torch
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS_YAML = os.path.join(ROOT, "src", "oar", "ops")
CASES_DIR = os.path.join(ROOT, "tests", "op_cases")


def case_files(path=CASES_DIR):
    """The registry's files in name order: _shared.yaml (schema, _tol, _sets), then one
    <section>.yaml per section of src/oar/ops."""
    return [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith(".yaml")]


def cases_source(path=CASES_DIR):
    """The registry's text, as the golden file records it (tests/cpp/op_registry.cc reads
    the same files in the same order)."""
    out = []
    for file in case_files(path):
        with open(file) as f:
            out.append(f.read())
    return "".join(out)

sys.path.insert(0, os.path.join(ROOT, "tools", "codegen"))
from gen_ops import load_ops  # noqa: E402  (the codegen's own parser of ops.yaml)

OPS = {op.name: op for op in load_ops(OPS_YAML)}

TORCH_DTYPES = {
    "float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool,
    "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}
NP_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
             "int32": np.int32, "int64": np.int64, "bool": np.bool_, "uint8": np.uint8,
             "int8": np.int8, "int16": np.int16, "complex64": np.complex64,
             "complex128": np.complex128}
# The dtypes an input without an explicit dtype is run in by the Python driver
# (the golden file, and so the C++ driver, use float64).
FLOAT_DTYPES = ("float32", "float64")
# The dtypes a `complex_cases` input without an explicit dtype is run in (the golden
# file: complex128). Complex inputs are differentiable like float ones.
COMPLEX_DTYPES = ("complex64", "complex128")
# The real dtype whose tolerance a complex dtype uses.
TOL_DTYPE = {"complex64": "float32", "complex128": "float64"}
VIEWS = ("T", "step", "flip", "bcast")
SPEC_KEYS = {"shape", "dtype", "view", "low", "high", "away", "grid", "distinct", "frac",
             "sparse", "values", "imag", "layout", "sparse_dim"}
LAYOUTS = ("coo", "csr")
ENTRY_KEYS = {"torch", "random", "cases", "variants", "extra", "int_cases", "complex_cases",
              "tol", "grad_orders", "checked_by"}


# ---- the scope of the torch: expressions ---------------------------------------------
def torch_dtype(name):
    return TORCH_DTYPES[name] if name else None


def sum_to(x, shape):
    lead = x.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape)
                                if s == 1 and x.shape[lead + i] != 1]
    return x.sum(dim=dims, keepdim=True).reshape(shape) if dims else x.reshape(shape)


def small_int_kept(r, x):
    """r in x's dtype when x is uint8, int8 or int16: Paddle's sum keeps those dtypes
    (and oar's prod and sum_to with it), torch sums them to int64."""
    return r.to(x.dtype) if x.dtype in (torch.uint8, torch.int8, torch.int16) else r


def paddle_shape(x, shape):
    return [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]


def unsqueeze_all(x, axis):
    for a in axis:
        x = x.unsqueeze(a)
    return x


def slices(x, axes, starts, ends, strides):
    idx = [slice(None)] * x.dim()
    for i, a in enumerate(axes):
        idx[a] = slice(starts[i], ends[i], strides[i] if strides else None)
    return tuple(idx)


def flip_slice(x, axes, starts, ends, strides):
    """Python slicing with negative steps (torch has none): by index lists."""
    for i, a in enumerate(axes):
        idx = list(range(x.shape[a]))[slice(starts[i], ends[i], strides[i])]
        x = x.index_select(a, torch.tensor(idx, dtype=torch.long))
    return x


def slice_grad(x, grad_out, axes, starts, ends, strides):
    z = torch.zeros_like(x)
    index = torch.arange(x.numel()).reshape(x.shape)
    picked = flip_slice(index, axes, starts, ends, strides)
    z.view(-1)[picked.reshape(-1)] = grad_out.reshape(-1)
    return z


def assign_slice(x, axes, starts, ends, strides, value):
    out = x.clone()
    index = torch.arange(x.numel()).reshape(x.shape)
    picked = flip_slice(index, axes, starts, ends, strides)
    v = value.expand(picked.shape) if isinstance(value, torch.Tensor) else value
    out.view(-1)[picked.reshape(-1)] = (v.reshape(-1) if isinstance(v, torch.Tensor) else v)
    return out


def unfold_backward(grad_out, shape, axis, size, step):
    """torch's unfold_backward after unfold's own argument checks: called directly with
    a size beyond the axis (or windows that do not match grad_out) PyTorch 2.13
    corrupts its heap instead of raising."""
    windows = torch.empty(shape).unfold(axis, size, step).shape
    if windows != grad_out.shape:
        raise RuntimeError(f"grad_out has shape {list(grad_out.shape)}, the windows {list(windows)}")
    return torch.ops.aten.unfold_backward(grad_out, shape, axis, size, step)


# torch's private _fft_c2c/_fft_r2c/_fft_c2r check little: called directly with a repeated
# axis, or (c2r) an output length whose n / 2 + 1 is not x's last transformed axis, PyTorch
# 2.13 reads and writes past its buffers and corrupts its heap (found by fuzzing the fft
# ops alone). The oracle refuses what oar refuses first.
def _fft_axes(x, axes, normalization):
    axes = [a % x.dim() for a in axes]
    if len(set(axes)) != len(axes) or normalization not in (0, 1, 2):
        raise RuntimeError(f"fft: axes {axes} repeat or normalization {normalization}")
    return axes


def fft_c2c(x, axes, normalization, forward):
    if x.numel() == 0:
        return x.clone()
    return torch._fft_c2c(x, _fft_axes(x, axes, normalization), normalization, forward)


def fft_r2c(x, axes, normalization, forward, onesided):
    if x.numel() == 0:
        last = axes[-1] % x.dim()
        shape = [x.shape[d] // 2 + 1 if d == last and onesided else x.shape[d]
                 for d in range(x.dim())]
        cplx = torch.complex128 if x.dtype == torch.float64 else torch.complex64
        return torch.zeros(shape, dtype=cplx) * x.sum()
    y = torch._fft_r2c(x, _fft_axes(x, axes, normalization), normalization, onesided)
    return y if forward else y.conj().resolve_conj()


def fft_c2r(x, axes, normalization, forward, last_dim_size):
    last = axes[-1] % x.dim()
    n = last_dim_size if last_dim_size else 2 * (x.shape[last] - 1)
    if x.numel() == 0:
        shape = [n if d == last else x.shape[d] for d in range(x.dim())]
        real = torch.float64 if x.dtype == torch.complex128 else torch.float32
        return torch.zeros(shape, dtype=real) * x.sum().real
    axes = _fft_axes(x, axes, normalization)
    if n < 1 or x.shape[last] != n // 2 + 1:
        raise RuntimeError(f"irfft of {x.shape[last]} entries to {n} samples")
    return torch._fft_c2r(x if not forward else x.conj().resolve_conj(), axes, normalization, n)


TORCH_SCOPE = {"torch": torch, "torch_dtype": torch_dtype, "sum_to": sum_to,
               "small_int_kept": small_int_kept,
               "unfold_backward": unfold_backward, "fft_c2c": fft_c2c, "fft_r2c": fft_r2c,
               "fft_c2r": fft_c2r,
               "paddle_shape": paddle_shape, "unsqueeze_all": unsqueeze_all, "slices": slices,
               "flip_slice": flip_slice, "slice_grad": slice_grad, "assign_slice": assign_slice}


# ---- sparse tensors (tests/op_cases/sparse*.yaml) ----------------------------------------
# oar's rule (Paddle's): the gradient of a sparse input has that input's positions.
# torch masks some gradients and not others (to_dense does, x @ y does not), and its
# CSR backward is partial, so the sparse inputs are made by `sparse_input` and the
# expressions pass them through `m`, both with explicit backward formulas; most
# expressions then compute densely, the most independent oracle.
def dense(x):
    if x.layout == torch.sparse_csr:
        return _CsrToDense.apply(x)  # torch's own has no batched backward
    return x.to_dense() if x.layout != torch.strided else x


def _csr_like(x, g):
    """A CSR tensor with x's positions holding dense g's values there."""
    v = g[_positions(x)].reshape(x.values().shape)
    return torch.sparse_csr_tensor(x.crow_indices(), x.col_indices(), v, x.shape)


class _CsrToDense(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.to_dense()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return _csr_like(x, g)


def _positions(x):
    """The index tuple of x's stored entries, in x's order (CSR: row-major)."""
    if x.layout == torch.sparse_coo:
        return tuple(x.indices())
    crows, cols = x.crow_indices(), x.col_indices()
    if x.dim() == 2:
        return (torch.repeat_interleave(torch.arange(x.shape[0]), crows.diff()), cols)
    rows = [torch.repeat_interleave(torch.arange(x.shape[1]), c.diff()) for c in crows]
    batch = [torch.full_like(r, b) for b, r in enumerate(rows)]
    return (torch.cat(batch), torch.cat(rows), cols.reshape(-1))


class _ToSparse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, layout, sparse_dim):
        return x.to_sparse(sparse_dim) if layout == "coo" else x.to_sparse_csr()

    @staticmethod
    def backward(ctx, g):
        return dense(g), None, None  # oar's sparse_to_coo/csr of a dense x


class _MaskGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        g = dense(g)
        if x.layout == torch.sparse_coo:
            return g.sparse_mask(x.coalesce())
        return _csr_like(x, g)


def sparse_input(t, layout, sparse_dim):
    return _ToSparse.apply(t, layout, sparse_dim)


def m(x):
    """x, with its gradient masked to its positions when sparse."""
    return _MaskGrad.apply(x) if x.layout != torch.strided else x


def flat(t):
    """A part of a batched CSR tensor in Paddle's layout: torch keeps one row per
    matrix ([batch, n]), Paddle one after the other ([batch * n])."""
    return t.reshape(-1) if t.dim() == 2 else t


def values_of(x):
    return x.values() if x.layout == torch.sparse_coo else flat(x.values())


def with_values(x, v):
    """x's positions holding the values v, densely (v in Paddle's layout)."""
    out = torch.zeros(x.shape, dtype=v.dtype)
    return out.index_put(_positions(x), v, accumulate=True)


def mask_values(x, mask):
    """x's values at mask's positions (0 where a sparse x has none), in mask's order."""
    return dense(m(x))[_positions(mask.detach())]


def masked_dense(t, mask):
    """t where mask stores an entry (the cases store no explicit zeros), 0 elsewhere."""
    return t * (dense(mask.detach()) != 0)


def csr_dense(crows, cols, values, shape):
    """The dense tensor of Paddle's CSR parts (a batch's matrices one after the other)."""
    rows, batch = shape[-2], (shape[0] if len(shape) == 3 else 1)
    cr = crows.long().reshape(batch, rows + 1)
    counts = (cr[:, 1:] - cr[:, :-1]).reshape(-1)
    flat_rows = torch.repeat_interleave(torch.arange(batch * rows), counts)
    idx = (flat_rows // rows, flat_rows % rows, cols.long()) if len(shape) == 3 else \
        (flat_rows, cols.long())
    return torch.zeros(shape, dtype=values.dtype).index_put(idx, values, accumulate=True)


def kept(x, sparse_dim):
    """Dense x with the gradient of its conversion to sparse_dim sparse dimensions:
    the stored sub-tensors (not all zero) pass, the others are cut."""
    nz = x.detach() != 0
    if sparse_dim < x.dim():
        nz = nz.any(dim=tuple(range(sparse_dim, x.dim())), keepdim=True)
    return x * nz


def row_softmax(x):
    """The softmax over the stored entries of each row (the last dimension)."""
    d = dense(m(x))
    stored = dense(x.detach()) != 0  # the cases store no explicit zeros
    z = torch.where(stored, d, torch.full_like(d, -torch.inf)).softmax(-1)
    return torch.where(stored, z, torch.zeros_like(z))


def row_sum(x):
    """At each stored entry, the sum of the stored entries of its row."""
    d = dense(m(x))
    return masked_dense(d.sum(-1, keepdim=True).expand(d.shape), x)


TORCH_SCOPE.update({"m": m, "dense": dense, "flat": flat, "values_of": values_of,
                    "with_values": with_values, "mask_values": mask_values,
                    "masked_dense": masked_dense, "csr_dense": csr_dense,
                    "row_softmax": row_softmax, "row_sum": row_sum, "kept": kept})


# ---- statistics, search and scans (tests/op_cases/{statistics,search,scan}.yaml) ----
def all_dims(x, axis):
    """torch's dim for Paddle's axis list: the axes, or every axis when empty (0 for 0-d)."""
    return list(axis) if axis else (list(range(x.dim())) if x.dim() else 0)


def prod_over(x, axis, keepdim, dtype):
    """torch.prod over several axes (torch's takes one)."""
    dt = torch_dtype(dtype)
    if x.dim() == 0:
        return x.prod(dtype=dt)
    dims = sorted({a % x.dim() for a in axis}) if axis else list(range(x.dim()))
    out = x
    for d in dims:
        out = out.prod(d, keepdim=True, dtype=dt)
    return out if keepdim else out.squeeze(dims)


def scan_input(x, axis):
    """(x, dim) for a scan along Paddle's optional axis: None runs over x flattened."""
    return (x.reshape(-1), 0) if not axis else (x, axis[0])


def paddle_histogram_range(x, lo, hi):
    """Paddle's histogram range: [min, max]; the data's when they are equal (torch.histogram's
    range=None widens a one-value range by 0.5, Paddle's by 1)."""
    if lo == hi and x.numel():
        finite = x[~x.isnan()]
        if finite.numel():
            lo, hi = finite.min().item(), finite.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return (float(lo), float(hi))


TORCH_SCOPE.update({"all_dims": all_dims, "prod_over": prod_over, "scan_input": scan_input,
                    "paddle_histogram_range": paddle_histogram_range})


# ---- the LAPACK section (tests/op_cases/lapack.yaml): oar's packed layouts -------------
def _sign_of_largest(v):
    """The factor per column of v that makes its largest-magnitude entry real and
    positive (oar's convention): +-1 for real v; for complex v the unit phase
    conj(v_b) / |v_b|, differentiable (the fixed phase depends on v)."""
    idx = v.abs().argmax(dim=-2, keepdim=True)
    if v.is_complex():
        big = v.gather(-2, idx)
        mag = big.abs()
        return torch.where(mag == 0, torch.ones_like(big), big.conj() / mag)
    s = torch.sign(v.gather(-2, idx)).detach()
    return torch.where(s == 0, torch.ones_like(s), s)


def sym_lower(x):
    """The symmetric (complex: Hermitian) matrix oar's cholesky/eigh read: x's lower
    triangle mirrored; a complex diagonal's imaginary part is not read (LAPACK's)."""
    if x.is_complex():
        diag = torch.diag_embed(x.diagonal(0, -2, -1).real.to(x.dtype))
        return x.tril(-1) + x.tril(-1).mH + diag
    return x.tril() + x.tril(-1).mT


def qr_packed(x, complete):
    q, r = torch.linalg.qr(x, mode="complete" if complete else "reduced")
    return torch.cat([q.mT, r[..., :q.shape[-1], :]], -1)


def svd_packed(x, full_matrices=False):
    u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
    m, n, k = x.shape[-2], x.shape[-1], s.shape[-1]
    sg = _sign_of_largest(u)  # U's columns past k (full) are signed on their own
    u = u * sg
    # u p, v p keep u s v^H: Vh's row takes conj(p) (not in place: complex products
    # keep their inputs for the backward)
    top = vh[..., :k, :] * sg[..., :, :k].mH
    if vh.shape[-2] > k:
        rest = vh[..., k:, :]
        vh = torch.cat([top, rest * _sign_of_largest(rest.mT).mT], -2)
    else:
        vh = top
    rows = max(m, n) if full_matrices else k
    out = x.new_zeros(x.shape[:-2] + (rows, m + 1 + n))
    out[..., :u.shape[-1], :m] = u.mT
    out[..., :k, m] = s
    out[..., :vh.shape[-2], m + 1:] = vh
    return out


def eigh_packed(x, upper):
    w, v = torch.linalg.eigh(sym_lower(x.mT).mT if upper else sym_lower(x))
    return torch.cat([w.unsqueeze(-1).to(v.dtype), (v * _sign_of_largest(v)).mT], -1)


def eig_packed(x):
    """oar's packed eig: rows of (eigenvalue | eigenvector), each eigenvector's phase fixed
    so its largest-magnitude entry (the first, among ties) is real and positive."""
    w, v = torch.linalg.eig(x)
    idx = v.abs().argmax(dim=-2, keepdim=True).detach()
    big = v.gather(-2, idx)
    v = v * (big.conj() / big.abs())
    return torch.cat([w.unsqueeze(-1), v.mT], -1)


TORCH_SCOPE.update({"sym_lower": sym_lower, "qr_packed": qr_packed, "svd_packed": svd_packed,
                    "eigh_packed": eigh_packed, "eig_packed": eig_packed})


# ---- the recurrent section (tests/op_cases/rnn.yaml) ---------------------------------------
def rnn_packed(inputs, mode, reverse, zero_padded):
    """oar's packed rnn output (src/oar/ops/rnn.yaml) computed step by step in torch ops:
    the outputs, the final states, then the saved gate values."""
    lstm, gru = mode == 2, mode == 3
    x, h = inputs[0], inputs[1]
    c = inputs[2] if lstm else None
    w_ih, w_hh, b_ih, b_hh = inputs[3:7] if lstm else inputs[2:6]
    n = 7 if lstm else 6
    steps, batch, hidden = x.shape[0], x.shape[1], h.shape[1]
    lengths = inputs[n] if len(inputs) > n else torch.full((batch,), steps, dtype=x.dtype)
    ys, saved, cells = [None] * steps, [None] * steps, [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        inside = (t < lengths).unsqueeze(1)  # where, not * : a masked inf stays out
        xp = x[t] @ w_ih.T + b_ih
        hp = h @ w_hh.T + b_hh
        if lstm:
            i, f, g, o = (xp + hp).chunk(4, 1)
            i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
            c_new = f * c + i * g
            h_new = o * c_new.tanh()
            saved[t], cells[t] = torch.cat([i, f, g, o], 1), c_new
            c = torch.where(inside, c_new, c)
        elif gru:
            xr, xz, xc = xp.chunk(3, 1)
            hr, hz, hc = hp.chunk(3, 1)
            r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
            cand = (xc + r * hc).tanh()
            h_new = (h - cand) * z + cand
            saved[t] = torch.cat([r, z, cand, hc], 1)
        else:
            h_new = (xp + hp).tanh() if mode == 0 else (xp + hp).relu()
        ys[t] = torch.where(inside, h_new, torch.zeros_like(h_new)) if zero_padded else h_new
        h = torch.where(inside, h_new, h)
    rows = [torch.stack(ys), h.unsqueeze(0)] + ([c.unsqueeze(0)] if lstm else [])
    if lstm or gru:
        rows.append(torch.stack(saved).reshape(steps * 4, batch, hidden))
    if lstm:
        rows.append(torch.stack(cells))
    return torch.cat(rows, 0)


def rnn_grad_flat(inputs, mode, reverse, zero_padded):
    """rnn_grad: the gradients of rnn's inputs (not lengths) for grad_out, flattened."""
    n = 7 if mode == 2 else 6
    ins, out, g = inputs[:-2], inputs[-2], inputs[-1]
    diff = [t.detach().requires_grad_() for t in ins[:n]]
    with torch.enable_grad():
        packed = rnn_packed(diff + list(ins[n:]), mode, reverse, zero_padded)
        grads = torch.autograd.grad(packed, diff, g)
    del out  # rnn_grad reads out's saved gate values; torch recomputes them
    return torch.cat([t.reshape(-1) for t in grads])


TORCH_SCOPE.update({"rnn_packed": rnn_packed, "rnn_grad_flat": rnn_grad_flat})


# ---- loading and expansion -----------------------------------------------------------------
def cpp_default_to_py(text):
    """An attribute default of ops.yaml (C++ text) as the Python value the cases use."""
    if text is None:
        return None
    if text in ("true", "false"):
        return text == "true"
    if text == "{}":
        return []
    if text.startswith("DType::k"):
        name = text[len("DType::k"):].lower()
        return None if name == "undefined" else name
    return float(text) if "." in text else int(text)


def norm_spec(spec):
    """An input spec as a dict: {"shape": [ints], "dtype"?, "view"?, ...}. The words
    ending a shape list (a dtype name, a view name) become the dtype and view keys."""
    d = dict(spec) if isinstance(spec, dict) else {"shape": spec}
    if not isinstance(d.get("shape", []), list):
        raise ValueError(f"input {spec!r}: shape must be a list")
    if "shape" not in d:
        if "values" not in d:
            raise ValueError(f"input {spec!r}: no shape")
        d["shape"] = [len(d["values"])]
    shape = []
    for s in d["shape"]:
        if isinstance(s, str) and s in NP_DTYPES:
            d["dtype"] = s
        elif isinstance(s, str) and s in VIEWS:
            d["view"] = s
        elif type(s) is int:  # noqa: E721 - not a bool
            shape.append(s)
        else:
            raise ValueError(f"input {spec!r}: {s!r} is neither a size, a dtype nor a view")
    d["shape"] = shape
    unknown = set(d) - SPEC_KEYS
    if unknown:
        raise ValueError(f"input {spec!r}: unknown keys {sorted(unknown)}")
    if d.get("view", "T") not in VIEWS or d.get("dtype", "float64") not in NP_DTYPES:
        raise ValueError(f"input {spec!r}: unknown view or dtype")
    return d


def norm_case(case):
    """A case as {"inputs": [specs], "attrs": {...}}; a bare list is the inputs."""
    if isinstance(case, list):
        case = {"inputs": case}
    unknown = set(case) - {"inputs", "attrs"}
    if unknown:
        raise ValueError(f"case {case!r}: unknown keys {sorted(unknown)}")
    return {"inputs": [norm_spec(s) for s in case.get("inputs") or []],
            "attrs": dict(case.get("attrs") or {})}


def _auto_views(op, cases):
    """Every hand-written case again with its inputs as views of the same logical shape
    (transposed when >= 2-D, x[::2] when 1-D); and, for a one-input op with
    UnchangedInferMeta, its first case with a leading dimension of 0. So an op whose
    entry has only `cases:` still gets non-contiguous (and empty) inputs."""
    out = []
    for c in cases:
        changed, views = False, []
        for s in c["inputs"]:
            s = dict(s)
            if not s.get("view"):
                if len(s["shape"]) >= 2:
                    s["view"], changed = "T", True
                elif len(s["shape"]) == 1 and s["shape"][0] > 0:
                    s["view"], changed = "step", True
            views.append(s)
        if changed:
            out.append({"inputs": views, "attrs": dict(c["attrs"])})
    ins = op.inputs
    if (len(ins) == 1 and ins[0].is_tensor and op.infer_meta == "UnchangedInferMeta"
            and cases and cases[0]["inputs"]):
        s = dict(cases[0]["inputs"][0])
        if s["shape"] and "values" not in s:
            s["shape"] = [0] + list(s["shape"][1:])
            out.append({"inputs": [s], "attrs": dict(cases[0]["attrs"])})
    return out


def _from_set(op, variants, sets):
    """The cases of a named set (_sets), with the op's inputs' specs merged under each
    set input: `{set: binary, y: {away: 0.5}}` gives every y of the set away: 0.5
    (the set's own shape and view win)."""
    if isinstance(variants, str):
        variants = {"set": variants}
    params = dict(variants)
    name = params.pop("set")
    if name not in sets:
        raise ValueError(f"{op.name}: no set {name!r} in _sets")
    names = [a.name for a in op.inputs]
    unknown = set(params) - set(names)
    if unknown:
        raise ValueError(f"{op.name}: variants name {sorted(unknown)}, not inputs of the op")
    out = []
    for c in sets[name]:
        c = norm_case(c)
        specs = []
        for i, s in enumerate(c["inputs"]):
            d = dict(params.get(names[i], {}) if i < len(names) else {})
            d.update(s)
            specs.append(norm_spec(d))
        out.append({"inputs": specs, "attrs": c["attrs"]})
    return out


def _check_tol(where, table):
    for dt, t in table.items():
        if dt not in TORCH_DTYPES or set(t) - {"rtol", "atol"} or not all(
                isinstance(v, float) for v in t.values()):
            raise ValueError(f"{where}: tolerance {dt}: {t!r} (floats need a dot: 1.0e-5)")


def load(path=CASES_DIR):
    """{"tol": defaults, "ops": {op: {"torch", "random", "cases", "tol"}}}."""
    raw = {}
    for file in case_files(path):
        with open(file) as f:
            part = yaml.safe_load(f) or {}
        dup = set(part) & set(raw)
        if dup:
            raise ValueError(f"{file}: entries already given in another file: {sorted(dup)}")
        raw.update(part)
    shared = {k: raw.pop(k) for k in list(raw) if k.startswith("_")}
    sets = shared.get("_sets", {})
    tol = shared.get("_tol", {})
    _check_tol("_tol", tol)
    ops = {}
    for name, e in raw.items():
        if name not in OPS:
            raise ValueError(f"{path}: '{name}' is not an op of src/oar/ops/*.yaml")
        if set(e) - ENTRY_KEYS:
            raise ValueError(f"{name}: unknown keys {sorted(set(e) - ENTRY_KEYS)}")
        if e.get("checked_by"):
            if set(e) - {"checked_by"}:
                raise ValueError(f"{name}: checked_by stands alone (no cases, no oracle)")
            ops[name] = {"torch": None, "random": False, "cases": [], "tol": {},
                         "grad_orders": 0, "checked_by": e["checked_by"]}
            continue
        if not e.get("random") and "torch" not in e:
            raise ValueError(f"{name}: no torch expression")
        op = OPS[name]
        cases = [norm_case(c) for c in e.get("cases") or []]
        cases += _auto_views(op, cases)
        if e.get("variants"):
            cases += _from_set(op, e["variants"], sets)
        cases += [norm_case(c) for c in e.get("extra") or []]
        cases += [norm_case(c) for c in e.get("int_cases") or []]
        for c in e.get("complex_cases") or []:
            c = norm_case(c)
            c["complex"] = True  # float-less inputs run in COMPLEX_DTYPES
            cases.append(c)
        _check_tol(name, e.get("tol", {}))
        ops[name] = {"torch": e.get("torch"), "random": bool(e.get("random")), "cases": cases,
                     "tol": e.get("tol", {}), "grad_orders": e.get("grad_orders", 3),
                     "checked_by": None}
    return {"tol": tol, "ops": ops}


@functools.lru_cache(maxsize=None)
def registry():
    return load()


def tolerance(name, dtype):
    """{rtol, atol} of op `name` in `dtype`: _tol, overridden by the op's tol."""
    reg = registry()
    dtype = TOL_DTYPE.get(dtype, dtype)
    t = dict(reg["tol"].get(dtype, reg["tol"]["float64"]))
    t.update(reg["ops"][name]["tol"].get(dtype, {}) if name in reg["ops"] else {})
    return t


def attrs(op, case):
    """All attributes of a call: the declared defaults, then the case's."""
    a = {x.name: cpp_default_to_py(x.default) for x in op.attrs}
    a.update(case.get("attrs") or {})
    return a


# ---- inputs ---------------------------------------------------------------------------------
def values(spec, shape, rng):
    """float64 values for one input (before casting to its dtype)."""
    n = int(np.prod(shape)) if shape else 1
    if "values" in spec:
        v = np.array(spec["values"], dtype=np.float64).reshape(shape)
        if "imag" in spec:  # explicit complex values: the imaginary parts apart
            # (set, not v + 1j * imag: 1j * inf would make the real part NaN)
            c = np.empty(v.shape, dtype=np.complex128)
            c.real, c.imag = v, np.array(spec["imag"], dtype=np.float64).reshape(shape)
            return c
        return v
    dt = spec.get("dtype")
    if dt in COMPLEX_DTYPES:
        # Complex: |z| and arg z drawn apart, so `away` keeps |z| off 0; low/high
        # bound the real and imaginary parts otherwise.
        real = {k: v for k, v in spec.items() if k != "dtype"}
        if "away" in spec:
            mag = np.abs(values(real, shape, rng))
            return mag * np.exp(1j * rng.uniform(-np.pi, np.pi, size=shape))
        return values(real, shape, rng) + 1j * values(real, shape, rng)
    if dt == "bool":
        return rng.integers(0, 2, size=shape).astype(np.float64)
    if dt in ("int32", "int64", "int8", "int16"):
        return rng.integers(-5, 6, size=shape).astype(np.float64)
    if dt == "uint8":
        return rng.integers(0, 11, size=shape).astype(np.float64)
    low, high = spec.get("low", -1.0), spec.get("high", 1.0)
    if "away" in spec:
        mag = rng.uniform(spec["away"], max(abs(low), abs(high)), size=shape)
        return mag * rng.choice([-1.0, 1.0], size=shape)
    if "grid" in spec:
        return rng.integers(-8, 9, size=shape) / 8.0 + spec["grid"]
    if spec.get("distinct"):
        return ((rng.permutation(n) + 0.5) / max(n, 1) * 2.0 - 1.0).reshape(shape)
    if spec.get("frac"):
        return rng.integers(-3, 3, size=shape) + rng.uniform(0.1, 0.9, size=shape)
    if spec.get("sparse"):
        v = rng.uniform(low, high, size=shape)
        return np.where(rng.random(size=shape) < 0.5, 0.0, v)
    return rng.uniform(low, high, size=shape)


def base_shape(shape, view):
    """The shape of the contiguous tensor the view is taken of."""
    if view == "T":
        return shape[:-2] + [shape[-1], shape[-2]]
    if view == "step":
        return [2 * shape[0]] + shape[1:]
    if view == "bcast":
        return [1] + shape[1:]
    return list(shape)


class Input:
    """One tensor input: a contiguous base array and the view the op receives
    (the drivers take gradients w.r.t. the base, so through the view op too)."""

    def __init__(self, spec, float_dtype, rng):
        spec = norm_spec(spec)
        self.spec = spec
        self.shape = list(spec["shape"])
        self.dtype = spec.get("dtype", float_dtype)
        self.is_float = self.dtype in FLOAT_DTYPES + COMPLEX_DTYPES
        self.view = spec.get("view")
        # A sparse input: the op gets the (view) tensor converted to COO (with
        # sparse_dim sparse dimensions, default all) or CSR.
        self.layout = spec.get("layout")
        if self.layout is not None and self.layout not in LAYOUTS:
            raise ValueError(f"{spec}: layout must be one of {LAYOUTS}")
        self.sparse_dim = spec.get("sparse_dim", len(self.shape))
        shape = self.shape
        vspec = dict(spec, dtype=self.dtype) if self.dtype in COMPLEX_DTYPES else spec
        if self.view is None:
            base = values(vspec, shape, rng)
        elif self.view == "T":
            assert len(shape) >= 2, spec
            base = np.ascontiguousarray(np.swapaxes(values(vspec, shape, rng), -1, -2))
        elif self.view == "step":
            assert len(shape) >= 1, spec
            vals = values(vspec, shape, rng)
            base = np.zeros([2 * shape[0]] + shape[1:], dtype=vals.dtype)
            base[::2] = vals
            base[1::2] = values(vspec, shape, rng)
        elif self.view == "flip":
            assert len(shape) >= 1 and shape[0] > 0, spec
            base = np.ascontiguousarray(values(vspec, shape, rng)[::-1])
        else:  # bcast
            assert len(shape) >= 1, spec
            base = values(vspec, [1] + shape[1:], rng)
        self.base = base.astype(NP_DTYPES[self.dtype])

    def torch_base(self, requires_grad=False):
        t = torch.tensor(self.base.copy())
        if requires_grad:
            t.requires_grad_(True)
        return t

    def torch_view(self, t):
        v = self._torch_dense_view(t)
        return sparse_input(v, self.layout, self.sparse_dim) if self.layout else v

    def _torch_dense_view(self, t):
        nd = len(self.shape)
        if self.view is None:
            return t
        if self.view == "T":
            return t.transpose(nd - 2, nd - 1)
        if self.view == "step":
            return t[::2]
        if self.view == "flip":
            return t.flip(0)
        return t.expand(*self.shape)

    def torch_write_view(self, base, vals):
        """base with its view (as the op sees it) overwritten by vals."""
        if self.view == "flip":  # t.flip(0) is a copy in torch, not a view
            base.copy_(vals.flip(0))
        else:
            self._torch_dense_view(base).copy_(vals)

    def describe(self):
        s = "x".join(map(str, self.shape)) or "0d"
        if self.dtype not in FLOAT_DTYPES:
            s += f":{self.dtype}"
        if self.view:
            s += f"({self.view})"
        if self.layout:
            s += f"[{self.layout}{self.sparse_dim if self.layout == 'coo' else ''}]"
        return s


def case_rng(op_name, index, salt=None):
    key = f"{op_name}/{index}" + ("" if salt is None else f"/{salt}")
    return np.random.default_rng(zlib.crc32(key.encode()))


def make_inputs(op_name, index, case, float_dtype, cls=Input):
    """The inputs of case `index` of an op. The seed does not depend on the dtype:
    float32 and float64 runs (and the golden file) get the same values."""
    rng = case_rng(op_name, index)
    return [cls(s, float_dtype, rng) for s in case["inputs"]]


# ---- the oracle -------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _torch_code(name):
    expr = registry()["ops"][name]["torch"]
    return compile(expr, f"<torch expression of {name}>", "eval")


def call_torch(op, tensors, attrs):
    """The op's torch: expression on torch tensors (in declared order; a list for a
    Tensor[] input) and all attributes (see attrs())."""
    # Contiguous copies (differentiably): the helpers above write through .view(-1) of
    # zeros_like/clone, which keep a view's strides.
    tensors = [t.contiguous() if t.layout == torch.strided else t for t in tensors]
    env = dict(TORCH_SCOPE)
    ins = op.inputs
    if len(ins) == 1 and ins[0].is_tensor_list:
        env[ins[0].name] = list(tensors)
    else:
        for a, t in zip(ins, tensors):
            env[a.name] = t
    env.update(attrs)
    out = eval(_torch_code(op.name), env)  # noqa: S307 - the repo's own test registry
    if not isinstance(out, torch.Tensor):
        out = torch.tensor(out)
    if out.layout != torch.strided:  # a sparse result is compared densely
        out = dense(out)
    return out


def torch_grad(outs, ins, gouts=None, create_graph=False):
    """torch.autograd.grad, zeros for unused inputs (and if nothing requires grad)."""
    if not any(o.requires_grad for o in outs):
        return [torch.zeros_like(i) for i in ins]
    gs = torch.autograd.grad(outs, ins, grad_outputs=gouts, create_graph=create_graph,
                             allow_unused=True)
    return [torch.zeros_like(i) if g is None else g for g, i in zip(gs, ins)]


def oar_grad(outs, ins, gouts=None, create_graph=False):
    """oar.grad, None for unused inputs (and if no output requires grad)."""
    import oar
    if all(o.stop_gradient for o in outs):
        return [None] * len(ins)
    return list(oar.grad(outs, ins, grad_outputs=gouts, create_graph=create_graph,
                         allow_unused=True))
