"""Paddle 3.3's Tensor methods over oar's functions and its small Tensor methods
(python/oar/tensor/methods.py): each method is the function Paddle binds (or calls it with
the tensor first), with Paddle's signature; the dtype conversions and the device queries
answer as Paddle 3.3.1's CPU build does, copy_ and set_value too but for the differences
docs/paddle_api_functions.md lists; the in-place methods keep the in-place rules of the
top-level functions (the same object back, its version bumped, leaves that require grad
refused, gradients through the write).

Paddle's answers were taken once, offline, from Paddle 3.3.1 (CPU build) and are written
out below; the suite does not import paddle."""
import inspect
import math
import warnings

import numpy as np
import pytest
import torch

import oar
from oar.tensor import inplace as _paddle_inplace

R = np.random.default_rng(11)
X = R.uniform(-2.0, 2.0, size=(3, 4))
Y = R.uniform(-2.0, 2.0, size=(3, 4))
POS = R.uniform(0.3, 3.0, size=(3, 4))
PROB = R.uniform(0.05, 0.95, size=(3, 4))
INTS = np.array([[7, -7, 9, 0], [-3, 4, 12, -10], [5, 6, -8, 15]], dtype=np.int64)
INTS2 = np.array([[2, 2, -2, 3], [2, -3, 5, 4], [-4, 4, 3, 6]], dtype=np.int64)
SHIFTS = np.array([[1, 2, 0, 3], [2, 1, 1, 0], [3, 0, 2, 1]], dtype=np.int64)


def t(v, dtype="float64", grad=False):
    return oar.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


def tt(v, dtype=torch.float64, grad=False):
    return torch.tensor(np.asarray(v), dtype=dtype, requires_grad=grad)


def close(got, want, rtol=1e-10, atol=1e-12):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    got = np.asarray(got.numpy())
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def plain_signature(fn):
    """The signature without annotations, as Paddle's reads with them removed."""
    parts, star = [], False
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
            star = True
            continue
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default}")
    return "(" + ", ".join(parts) + ")"


# Paddle 3.3.1's signatures of these Tensor methods (inspect.signature of paddle.Tensor's
# attribute, annotations removed). Only what follows the tensor is compared: the first
# parameter is the tensor, whatever its name. copy_ has no Python signature in Paddle: its
# C++ parser names other, blocking and non_blocking, and copy_(other) works; the defaults
# here are oar's (those of Paddle's pin_memory and cuda, and PyTorch's non_blocking).
# grad_ and is_cuda are attributes.
PADDLE_METHOD_SIGNATURES = {
    "abs_": "(x, name=None)",
    "add_n": "(inputs, name=None)",
    "addmm_": "(input, x, y, beta=1.0, alpha=1.0, name=None)",
    "atan2": "(x, y, name=None)",
    "baddbmm_": "(input, x, y, beta=1.0, alpha=1.0, name=None)",
    "bfloat16": "(self)",
    "bitwise_invert_": "(x, name=None)",
    "bitwise_left_shift_": "(x, y, is_arithmetic=True, out=None, name=None)",
    "bitwise_right_shift_": "(x, y, is_arithmetic=True, out=None, name=None)",
    "block_diag": "(inputs, name=None)",
    "bool": "(self)",
    "broadcast_shape": "(x_shape, y_shape)",
    "broadcast_shapes": "(*shapes)",
    "broadcast_tensors": "(input, name=None)",
    "byte": "(self)",
    "cast_": "(x, dtype)",
    "cdouble": "(self)",
    "cfloat": "(self)",
    "char": "(self)",
    "cholesky_inverse": "(x, upper=False, name=None)",
    "clamp": "(x, min=None, max=None, name=None, *, out=None)",
    "clamp_": "(x, min=None, max=None, name=None)",
    "complex128": "(self)",
    "complex64": "(self)",
    "concat": "(x, axis=0, name=None, *, out=None)",
    "copy_": "(self, other, blocking=True, non_blocking=False)",
    "copysign_": "(x, y, name=None)",
    "cumprod_": "(x, dim=None, dtype=None, name=None)",
    "cumsum_": "(x, axis=None, dtype=None, name=None)",
    "div": "(x, y, name=None, *, rounding_mode=None, out=None)",
    "div_": "(x, y, name=None, *, rounding_mode=None)",
    "double": "(self)",
    "eig": "(x, name=None)",
    "eigvals": "(x, name=None)",
    "equal_": "(x, y, name=None)",
    "flatten_": "(x, start_axis=0, stop_axis=-1, name=None)",
    "float": "(self)",
    "float16": "(self)",
    "float32": "(self)",
    "float64": "(self)",
    "floor_": "(x, name=None)",
    "floor_mod_": "(x, y, name=None)",
    "frac_": "(x, name=None)",
    "gammainc_": "(x, y, name=None)",
    "gammaincc_": "(x, y, name=None)",
    "gammaln_": "(x, name=None)",
    "gcd_": "(x, y, name=None)",
    "get_device": "(self)",
    "greater_equal_": "(x, y, name=None)",
    "greater_than_": "(x, y, name=None)",
    "half": "(self)",
    "householder_product": "(x, tau, name=None)",
    "hypot_": "(x, y, name=None)",
    "index_fill_": "(x, index, axis, value, name=None)",
    "int": "(self)",
    "int16": "(self)",
    "int32": "(self)",
    "int64": "(self)",
    "int8": "(self)",
    "is_tensor": "(x)",
    "istft": "(x, n_fft, hop_length=None, win_length=None, window=None, center=True, "
             "normalized=False, onesided=True, length=None, return_complex=False, name=None)",
    "lcm_": "(x, y, name=None)",
    "ldexp_": "(x, y, name=None)",
    "less_": "(x, y, name=None)",
    "less_equal_": "(x, y, name=None)",
    "less_than_": "(x, y, name=None)",
    "logical_and_": "(x, y, name=None)",
    "logical_not_": "(x, name=None)",
    "logical_or_": "(x, y, name=None)",
    "logical_xor_": "(x, y, name=None)",
    "logit_": "(x, eps=None, name=None)",
    "long": "(self)",
    "masked_scatter_": "(x, mask, value, name=None)",
    "mod_": "(x, y, name=None)",
    "mul_": "(x, y, name=None)",
    "multigammaln_": "(x, p, name=None)",
    "multinomial": "(x, num_samples=1, replacement=False, name=None, *, out=None)",
    "multiplex": "(inputs, index, name=None)",
    "ndimension": "(var)",
    "neg_": "(x, name=None)",
    "not_equal_": "(x, y, name=None)",
    "ormqr": "(x, tau, y, left=True, transpose=False, name=None)",
    "pca_lowrank": "(x, q=None, center=True, niter=2, name=None)",
    "pin_memory": "(self, blocking=True)",
    "polygamma_": "(x, n, name=None)",
    "pow_": "(x, y, name=None)",
    "renorm_": "(x, p, axis, max_norm)",
    "requires_grad_": "(self, requires_grad=True)",
    "reshape_": "(x, shape, name=None)",
    "reverse": "(x, axis, name=None)",
    "scatter_add_": "(input, dim, index, src)",
    "scatter_nd": "(index, updates, shape, name=None)",
    "set_value": "(self, value)",
    "short": "(self)",
    "sinc_": "(x, name=None)",
    "squeeze_": "(x, axis=None, name=None)",
    "stack": "(x, axis=0, name=None, *, out=None)",
    "stft": "(x, n_fft, hop_length=None, win_length=None, window=None, center=True, "
            "pad_mode=reflect, normalized=False, onesided=None, name=None)",
    "sub": "(x, y, name=None, *, alpha=1, out=None)",
    "sub_": "(x, y, name=None, *, alpha=1)",
    "svd_lowrank": "(x, q=None, niter=2, M=None, name=None)",
    "swapaxes": "(x, perm, name=None)",
    "swapdims": "(x, perm, name=None)",
    "t_": "(input, name=None)",
    "take_along_dim": "(arr, indices, axis, broadcast=True, *, out=None)",
    "transpose_": "(x, perm, name=None)",
    "tril_": "(x, diagonal=0, name=None)",
    "triu_": "(x, diagonal=0, name=None)",
    "true_divide": "(input, other, *, out=None)",
    "type_as": "(self, other)",
    "uint8": "(self)",
    "unsqueeze_": "(x, axis, name=None)",
    "value": "(self)",
    "view_as_complex": "(input)",
    "view_as_real": "(input)",
    "where": "(condition, x=None, y=None, name=None, *, out=None)",
    "where_": "(condition, x=None, y=None, name=None)",
}
# oar's concat, stack, where and multinomial take no out= (the functions, not the methods).
WITHOUT_OUT = {"concat", "stack", "where", "multinomial"}
METHODS = sorted(PADDLE_METHOD_SIGNATURES)


def _after_self(sig):
    """The parameters after the tensor's (all of them when the tensor goes into *args)."""
    params = sig[1:-1].split(", ")
    return params if params[0].startswith("*") else params[1:]


@pytest.mark.parametrize("name", METHODS)
def test_signature_is_paddles(name):
    want = PADDLE_METHOD_SIGNATURES[name]
    if name in WITHOUT_OUT:
        want = want.replace(", *, out=None", "")
    assert _after_self(plain_signature(getattr(oar.Tensor, name))) == _after_self(want)


def test_attributes_are_paddles():
    x = oar.to_tensor([1.0, 2.0])
    assert isinstance(inspect.getattr_static(oar.Tensor, "is_cuda"), property)
    assert x.is_cuda is False
    assert isinstance(inspect.getattr_static(oar.Tensor, "grad_"), property)


# The functions Paddle binds as these methods (the same objects in oar, or the C function
# called with the tensor first).
BOUND = {n: getattr(oar, n) for n in (
    "clamp", "div", "sub", "true_divide", "swapaxes", "swapdims", "take_along_dim", "reverse",
    "view_as_complex", "view_as_real")}
BOUND.update({n: getattr(oar.linalg, n) for n in (
    "cholesky_inverse", "eig", "eigvals", "householder_product", "ormqr", "pca_lowrank",
    "svd_lowrank")})
BOUND.update({n: getattr(oar.signal, n) for n in ("stft", "istft")})
BOUND.update({n: getattr(oar, n) for n in (
    "add_n", "block_diag", "broadcast_shape", "broadcast_shapes", "broadcast_tensors",
    "multiplex", "stack", "where", "is_tensor")})
IN_PLACE = [n for n in METHODS if n.endswith("_") and n not in ("copy_", "requires_grad_")]
BOUND.update({n: getattr(_paddle_inplace, n) for n in IN_PLACE})
C_BOUND = ("atan2", "concat", "multinomial", "scatter_nd")


@pytest.mark.parametrize("name", sorted(BOUND))
def test_method_is_the_function_paddle_binds(name):
    assert inspect.getattr_static(oar.Tensor, name) is BOUND[name]


@pytest.mark.parametrize("name", C_BOUND)
def test_method_calls_the_c_function_with_the_tensor_first(name):
    method = getattr(oar.Tensor, name)
    assert method.__wrapped__ is getattr(oar._C, name)
    assert method.__doc__ == getattr(oar._C, name).__doc__


def test_floor_mul_and_clamp_are_methods_only_as_in_paddle():
    # Paddle 3.3.1 has Tensor.floor_, mul_ and clamp_ but no paddle.floor_, mul_ or clamp_;
    # it has paddle.not_equal_ and paddle.logical_xor_ (outside its __all__; oar lists them)
    for n in ("floor_", "mul_", "clamp_"):
        assert not hasattr(oar, n) and n not in _paddle_inplace.__all__, n
    assert oar.not_equal_ is oar.Tensor.not_equal_ and oar.logical_xor_ is oar.Tensor.logical_xor_


# ---- dtype conversions ------------------------------------------------------------------------
CONVERSIONS = {
    "float": "float32", "float32": "float32", "double": "float64", "float64": "float64",
    "half": "float16", "float16": "float16", "bfloat16": "bfloat16", "char": "int8",
    "int8": "int8", "short": "int16", "int16": "int16", "int": "int32", "int32": "int32",
    "long": "int64", "int64": "int64", "bool": "bool", "cfloat": "complex64",
    "complex64": "complex64", "cdouble": "complex128", "complex128": "complex128",
    "byte": "uint8", "uint8": "uint8",
}


@pytest.mark.parametrize("name, dtype", sorted(CONVERSIONS.items()))
def test_conversion_casts_or_returns_the_tensor(name, dtype):
    x = oar.to_tensor(np.array([[1.5, -2.5], [3.0, 0.0]], dtype=np.float32))
    out = getattr(x, name)()
    assert out.dtype is getattr(oar, dtype) and out.shape == [2, 2]
    np.testing.assert_array_equal(np.asarray(out.numpy()), np.asarray(oar.cast(x, dtype).numpy()))
    same = oar.zeros([2], dtype=dtype)
    assert getattr(same, name)() is same  # Paddle's astype: the tensor itself


def test_conversion_values_are_paddles():
    f = oar.to_tensor([-2.5, 127.9, 200.0, 300.0, -129.0, 1000.7])
    # Paddle 3.3.1: byte() goes through int8, so out-of-range values wrap
    assert f.byte().tolist() == [254, 127, 200, 44, 127, 232]
    assert f.uint8().tolist() == [254, 127, 200, 44, 127, 232]
    assert f.char().tolist() == [-2, 127, -56, 44, 127, -24]
    assert oar.to_tensor([0.0, 0.3, -1.0, math.nan]).bool().tolist() == [False, True, True, True]
    c = oar.to_tensor([1.5 + 2j, -3.7 - 1j])
    with pytest.warns(UserWarning, match="imaginary part"):
        assert c.byte().tolist() == [1, 253]
    assert c.int().tolist() == [1, -3] and c.bool().tolist() == [True, True]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert oar.to_tensor([1, 2]).byte().tolist() == [1, 2]


def test_conversions_are_differentiable():
    x = t([1.5, -2.0], "float32", grad=True)
    y = x.double()
    assert not y.stop_gradient
    (y * y).sum().backward()
    close(x.grad, np.array([3.0, -4.0], dtype=np.float32))


def test_type_as():
    x = t([1.7, -2.2])
    assert x.type_as(t([1], "int32")).tolist() == [1, -2]
    assert x.type_as(t([1], "int32")).dtype is oar.int32
    assert x.type_as(t([0.0])) is x
    with pytest.raises(TypeError):
        x.type_as("int32")


# ---- autograd, copies, devices ------------------------------------------------------------------
def test_requires_grad_():
    x = t([1.0])
    assert x.requires_grad_() is x and x.stop_gradient is False
    assert x.requires_grad_(False) is x and x.stop_gradient is True
    with pytest.raises(TypeError, match="must be a bool"):
        x.requires_grad_(1)


def test_grad_is_the_gradient_under_paddles_other_name():
    x = t([1.0, 2.0], grad=True)
    assert x.grad_ is None
    (x * x).sum().backward()
    close(x.grad_, [2.0, 4.0])
    x.grad_ = t([5.0, 6.0])
    close(x.grad, [5.0, 6.0])


def test_copy_writes_values_and_takes_the_shape():
    x = t(X)
    dst = oar.zeros([3, 4], dtype="float64")
    v0 = dst.inplace_version
    assert dst.copy_(x) is dst and dst.inplace_version > v0
    close(dst, X)
    x[0, 0] = 100.0  # a copy, not a view
    assert dst.numpy()[0, 0] == X[0, 0]
    # Paddle 3.3.1: copy_ of a [2, 2] tensor into a [4] one leaves a [2, 2] tensor
    flat = oar.zeros([4], dtype="float64")
    assert flat.copy_(t([[1.0, 2.0], [3.0, 4.0]]), True).shape == [2, 2]
    close(flat, [[1.0, 2.0], [3.0, 4.0]])
    s = t(X[:, :3].T @ X[:, :3])  # a square x copied from its own transposed view
    s_t = s.numpy().T.copy()
    close(s.copy_(s.T), s_t)
    with pytest.raises(TypeError, match="equal dtypes"):
        oar.zeros([2], dtype="float32").copy_(t([1.0, 2.0]))
    with pytest.raises(TypeError, match="other"):
        oar.zeros([2]).copy_(np.ones(2))


def test_copy_follows_the_in_place_rules():
    # Paddle copies outside autograd; oar's copy_ is an in-place op like the others
    src = t([1.0, 2.0], grad=True)
    base = t([0.0, 0.0], grad=True)
    d = base * 1.0
    d.copy_(src * 3.0)
    (d * d).sum().backward()
    close(src.grad, [18.0, 36.0])
    assert base.grad is None or not base.grad.numpy().any()
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        t([0.0, 0.0], grad=True).copy_(t([1.0, 2.0]))
    leaf = t([0.0, 0.0], grad=True)
    with oar.no_grad():
        leaf.copy_(t([1.0, 2.0]))
    close(leaf, [1.0, 2.0])


def test_set_value():
    w = t(np.zeros((2, 2)), grad=True)  # a parameter-like leaf: set without autograd
    assert w.set_value(np.ones((2, 2))) is None
    close(w, np.ones((2, 2)))
    assert w.is_leaf and not w.stop_gradient
    w.set_value(t([[1.0, 2.0], [3.0, 4.0]]))
    close(w, [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="shape"):
        w.set_value(np.ones(3))


def test_small_queries_answer_as_paddles_cpu_build():
    x = t(X)
    assert x.ndimension() == 2 and t(1.0).ndimension() == 0
    assert x.get_device() == -1
    assert x.value() is x
    assert x.is_tensor() is True
    with pytest.raises(ValueError, match="pinned memory"):
        x.pin_memory()


# ---- the bound functions, called as methods -----------------------------------------------------
def _same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
    elif isinstance(a, oar.Tensor):
        assert a.dtype is b.dtype
        close(a, b.numpy())
    else:
        assert a == b


SQ = R.uniform(-1.0, 1.0, size=(3, 3)) + 3.0 * np.eye(3)
SPD = SQ @ SQ.T
SIG = np.sin(np.arange(64) * 0.3)


def _qr_parts():
    q, tau = np.linalg.qr(SQ, mode="raw")
    return t(q.T.copy()), t(tau)


OUT_OF_PLACE = [
    ("clamp", lambda: (t(X), (-0.5, 0.5))),
    ("div", lambda: (t(X), (t(Y),), {"rounding_mode": "trunc"})),
    ("sub", lambda: (t(X), (t(Y),), {"alpha": 2.0})),
    ("true_divide", lambda: (t(X), (t(Y),))),
    ("swapaxes", lambda: (t(X), (0, 1))),
    ("swapdims", lambda: (t(X), ([1, 0],))),
    ("take_along_dim", lambda: (t(X), (t([[0], [2], [1]], "int64"), 1))),
    ("reverse", lambda: (t(X), (0,))),
    ("view_as_complex", lambda: (t(X[:, :2]), ())),
    ("view_as_real", lambda: (t(X[:, :2]).view_as_complex(), ())),
    ("add_n", lambda: (t(X), ())),
    ("atan2", lambda: (t(X), (t(Y),))),
    ("block_diag", lambda: (t(X[:2, :2]), ())),
    ("broadcast_shape", lambda: (t([3, 1], "int64"), ([1, 4],))),
    ("broadcast_shapes", lambda: (t([3, 1], "int64"), ([1, 4], [2, 1, 1]))),
    ("scatter_nd", lambda: (t([[1], [0]], "int64"), (t([5.0, 6.0]), [3]))),
    ("where", lambda: (t(X > 0, "bool"), (t(X), t(Y)))),
    ("where", lambda: (t(X > 0, "bool"), ())),
    ("cholesky_inverse", lambda: (t(np.linalg.cholesky(SPD)), ())),
    ("eig", lambda: (t(SQ), ())),
    ("eigvals", lambda: (t(SQ), ())),
    ("householder_product", lambda: (_qr_parts()[0], (_qr_parts()[1],))),
    ("ormqr", lambda: (_qr_parts()[0], (_qr_parts()[1], t(Y[:, :3])))),
    ("stft", lambda: (t(SIG), (16,), {"hop_length": 4})),
    ("istft", lambda: (oar.signal.stft(t(SIG), 16, hop_length=4), (16,), {"hop_length": 4})),
]


@pytest.mark.parametrize("name, build", OUT_OF_PLACE, ids=[n for n, _ in OUT_OF_PLACE])
def test_method_is_the_function_with_the_tensor_first(name, build):
    x, args, *rest = build()
    kwargs = rest[0] if rest else {}
    fn = BOUND.get(name) or getattr(oar._C, name)
    _same(getattr(x, name)(*args, **kwargs), fn(x, *args, **kwargs))


def test_bound_functions_match_torch():
    close(t(X).atan2(t(Y)), torch.atan2(tt(X), tt(Y)))
    close(t(X).clamp(-0.5, 0.5), torch.clamp(tt(X), -0.5, 0.5))
    close(t(X).div(t(Y), rounding_mode="floor"), torch.div(tt(X), tt(Y), rounding_mode="floor"))
    close(t(X).sub(t(Y), alpha=2.0), torch.sub(tt(X), tt(Y), alpha=2.0))
    close(t(X).swapaxes(0, 1), torch.swapaxes(tt(X), 0, 1))
    close(t(X).reverse([0, 1]), torch.flip(tt(X), [0, 1]))
    idx = np.array([[0], [2], [1]])
    close(t(X).take_along_dim(t(idx, "int64"), 1),
          torch.take_along_dim(tt(X), torch.tensor(idx), 1))
    close(t(X[:2, :2]).block_diag(), torch.block_diag(*tt(X[:2, :2])))
    close(t(np.linalg.cholesky(SPD)).cholesky_inverse(),
          torch.cholesky_inverse(torch.linalg.cholesky(tt(SPD))), rtol=1e-9)
    close(t(SQ).eigvals().abs().sort(), torch.linalg.eigvals(tt(SQ)).abs().sort().values,
          rtol=1e-9)


def test_methods_whose_tensor_is_a_list_raise_as_paddles():
    # Paddle 3.3.1 binds stack, concat, broadcast_tensors and multiplex with the tensor as
    # their list of tensors, which its argument parser refuses: x.stack() always raises
    x = t(X)
    for call in (x.stack, x.concat, x.broadcast_tensors,
                 lambda: x.multiplex(t([[0], [1], [0]], "int32"))):
        with pytest.raises(TypeError):
            call()
    # and the functions themselves through the class, with a list, work as in Paddle
    close(oar.Tensor.stack([t(X), t(Y)]), np.stack([X, Y]))
    close(oar.Tensor.concat([t(X), t(Y)]), np.concatenate([X, Y]))


def test_multinomial_and_low_rank_methods_draw_as_the_functions():
    p = t([0.1, 0.2, 0.7])
    oar.seed(3)
    a = p.multinomial(5, True)
    oar.seed(3)
    b = oar.multinomial(p, 5, True)
    assert a.tolist() == b.tolist() and a.dtype is oar.int64
    low = t(R.uniform(-1.0, 1.0, size=(6, 2)) @ R.uniform(-1.0, 1.0, size=(2, 5)))
    for name in ("svd_lowrank", "pca_lowrank"):
        oar.seed(4)
        u, s, v = getattr(low, name)(q=2)
        oar.seed(4)
        _same([u, s, v], list(getattr(oar.linalg, name)(low, q=2)))


# ---- in place, through the methods ------------------------------------------------------------
def _cond():
    return t(X > 0, "bool")


# name: (x's data, x's dtype, the arguments after x); compared with the top-level function
IN_PLACE_CASES = {
    # (sin_, cos_, log_, erf_, digamma_, lgamma_, i0_ are generated from their declarations:
    # tests/python/test_ops_vs_torch.py checks them with the registry's in-place cases)
    "abs_": (X, "float64", ()),
    "neg_": (X, "float64", ()), "pow_": (X, "float64", (3,)),
    "gammaln_": (POS, "float64", ()),
    "logit_": (PROB, "float64", (0.1,)), "frac_": (X * 3, "float64", ()),
    "sinc_": (X, "float64", ()), "polygamma_": (POS, "float64", (1,)),
    "multigammaln_": (POS + 1.0, "float64", (2,)), "floor_": (X * 3, "float64", ()),
    "equal_": (np.round(X), "float64", (lambda: t(np.round(Y)),)),
    "not_equal_": (np.round(X), "float64", (lambda: t(np.round(Y)),)),
    "greater_equal_": (X, "float64", (lambda: t(Y),)),
    "greater_than_": (X, "float64", (lambda: t(Y),)),
    "less_": (X, "float64", (lambda: t(Y),)), "less_equal_": (X, "float64", (lambda: t(Y),)),
    "less_than_": (X, "float64", (lambda: t(Y),)),
    "logical_and_": (np.round(X), "float64", (lambda: t(np.round(Y)),)),
    "logical_or_": (np.round(X), "float64", (lambda: t(np.round(Y)),)),
    "logical_xor_": (np.round(X), "float64", (lambda: t(np.round(Y)),)),
    "logical_not_": (np.round(X), "float64", ()),
    "floor_mod_": (X, "float64", (lambda: t(POS),)), "mod_": (X, "float64", (lambda: t(POS),)),
    "gcd_": (INTS, "int64", (lambda: t(INTS2, "int64"),)),
    "lcm_": (INTS, "int64", (lambda: t(INTS2, "int64"),)),
    "hypot_": (X, "float64", (lambda: t(Y),)),
    "ldexp_": (X, "float64", (lambda: t(INTS2, "int64"),)),
    "copysign_": (X, "float64", (lambda: t(Y),)),
    "gammainc_": (POS, "float64", (lambda: t(POS[::-1].copy()),)),
    "gammaincc_": (POS, "float64", (lambda: t(POS[::-1].copy()),)),
    "bitwise_invert_": (INTS, "int64", ()),
    "bitwise_left_shift_": (INTS, "int64", (lambda: t(SHIFTS, "int64"),)),
    "bitwise_right_shift_": (INTS, "int64", (lambda: t(SHIFTS, "int64"),)),
    "div_": (X, "float64", (lambda: t(Y),)), "sub_": (X, "float64", (lambda: t(Y),)),
    "cumsum_": (X, "float64", (1,)), "cumprod_": (X, "float64", (1,)),
    "tril_": (X, "float64", ()), "triu_": (X, "float64", (1,)),
    "renorm_": (X, "float64", (2.0, 0, 1.0)),
    "index_fill_": (X, "float64", (lambda: t([0, 2], "int64"), 0, 5.0)),
    "masked_scatter_": (X, "float64", (_cond, lambda: t(Y))),
    "scatter_add_": (X, "float64", (0, lambda: t([[1, 0, 2, 1]], "int64"),
                                    lambda: t(Y[:1]))),
    "addmm_": (X, "float64", (lambda: t(Y[:, :2]), lambda: t(Y[:2]))),
    "baddbmm_": (np.stack([X, Y]), "float64", (lambda: t(np.stack([X[:, :2], Y[:, :2]])),
                                               lambda: t(np.stack([Y[:2], X[:2]])))),
    "cast_": (X, "float64", ("float32",)), "flatten_": (X, "float64", ()),
    "reshape_": (X, "float64", ([4, 3],)), "squeeze_": (X[None], "float64", (0,)),
    "unsqueeze_": (X, "float64", (0,)), "transpose_": (X, "float64", ([1, 0],)),
    "t_": (X, "float64", ()),
    "clamp_": (X, "float64", (-0.5, 0.5)), "mul_": (X, "float64", (lambda: t(Y),)),
}
REFERENCE = {n: getattr(_paddle_inplace, n) for n in ("floor_", "mul_", "clamp_")}


def _args(spec):
    return tuple(a() if callable(a) else a for a in spec)


def test_every_in_place_method_has_a_case():
    assert set(IN_PLACE_CASES) | {"where_"} == set(IN_PLACE)


@pytest.mark.parametrize("name", sorted(IN_PLACE_CASES))
def test_in_place_method_is_the_top_level_function(name):
    data, dtype, spec = IN_PLACE_CASES[name]
    x = t(data, dtype)
    v0 = x.inplace_version
    assert getattr(x, name)(*_args(spec)) is x
    assert x.inplace_version > v0
    want = t(data, dtype)
    fn = REFERENCE.get(name) or getattr(oar, name)
    fn(want, *_args(spec))
    assert x.dtype is want.dtype and x.shape == want.shape
    np.testing.assert_array_equal(np.asarray(x.numpy()), np.asarray(want.numpy()))
    if dtype == "float64":
        with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
            getattr(t(data, dtype, grad=True), name)(*_args(spec))


# x written in place from an operand that is another view of x's memory: the result is
# what the method computes out of place, the operand read before any write (NumPy's
# rule; Note [In-place inputs that overlap the written tensor]).
OVERLAPPING_OPERANDS = {
    "rows shifted down": (np.s_[1:], np.s_[:-1]),
    "rows shifted up": (np.s_[:-1], np.s_[1:]),
    "columns shifted right": (np.s_[:, 1:], np.s_[:, :-1]),
    "the first row broadcast": (np.s_[:], np.s_[:1]),
    "the transpose": (np.s_[:], "T"),
}
OVERLAP_METHODS = {
    "add_": (lambda x, y: x.add_(y), np.add),
    "subtract_": (lambda x, y: x.subtract_(y), np.subtract),
    "multiply_": (lambda x, y: x.multiply_(y), np.multiply),
    "divide_": (lambda x, y: x.divide_(y), np.divide),
    "hypot_": (lambda x, y: x.hypot_(y), np.hypot),
    "lerp_": (lambda x, y: x.lerp_(y, y * 0.25), lambda a, b: a + b * 0.25 * (b - a)),
}


@pytest.mark.parametrize("case", sorted(OVERLAPPING_OPERANDS))
@pytest.mark.parametrize("name", sorted(OVERLAP_METHODS))
def test_in_place_reads_an_overlapping_operand_before_writing(name, case):
    method, ref = OVERLAP_METHODS[name]
    target, operand = OVERLAPPING_OPERANDS[case]
    base = R.uniform(1.0, 2.0, size=(64, 64))
    x = t(base)
    method(x[target], x.t() if operand == "T" else x[operand])
    want = base.copy()
    want[target] = ref(base[target], base.T if operand == "T" else base[operand])
    close(x, want)


def test_where_in_place_writes_into_x_as_paddles():
    # Paddle 3.3.1: cond.where_(x, y) is paddle.where_(cond, x, y): x is written
    x, y = t(X), t(Y)
    assert _cond().where_(x, y) is x
    close(x, np.where(X > 0, X, Y))


def check_against_torch(method, ref, a, *args):
    """x.method(*args) writes into x what torch's ref computes out of place, and the
    gradient through the write (x computed from a leaf, and an earlier use of x) is
    torch's."""
    x = t(a)
    assert getattr(x, method)(*args) is x
    targs = [tt(v.numpy()) if isinstance(v, oar.Tensor) else v for v in args]
    close(x, ref(tt(a), *targs))
    leaf = t(a, grad=True)
    x = leaf * 1.0
    earlier = x * 3.0
    out = getattr(x, method)(*args)
    w = R.uniform(-1.0, 1.0, size=out.shape)
    ((out * t(w)).sum() + earlier.sum()).backward()
    tleaf = tt(a, grad=True)
    tx = tleaf * 1.0
    ((ref(tx, *targs) * torch.tensor(w)).sum() + (tx * 3.0).sum()).backward()
    close(leaf.grad, tleaf.grad)


def test_floor_clamp_and_mul_in_place_match_torch():
    check_against_torch("floor_", torch.floor, X * 3)
    check_against_torch("clamp_", torch.clamp, X, -0.5, 0.5)
    check_against_torch("clamp_", lambda v, lo, hi: torch.clamp(v, lo, hi), X, None, 0.5)
    check_against_torch("mul_", torch.mul, X, t(Y))
    check_against_torch("mul_", torch.mul, X, t(Y[:1]))
    assert t([1, 5], "int64").floor_().tolist() == [1, 5]
    assert t([0, 1, 2], "int64").clamp_(0.5, 1.5).tolist() == [0, 1, 1]  # as Paddle


def test_mul_and_clamp_in_place_answer_as_paddles():
    # Paddle 3.3.1: gradients through a non-leaf x, to x's leaf and to y
    a, y = t([-1.0, 0.2, 2.0], grad=True), t([2.0, 3.0, 4.0], grad=True)
    x = a * 1.0
    x.mul_(y)
    (x * t([1.0, 2.0, 3.0])).sum().backward()
    close(a.grad, [2.0, 6.0, 12.0])
    close(y.grad, [-1.0, 0.4, 6.0])
    a = t([-1.0, 0.2, 2.0], grad=True)
    x = a * 1.0
    x.clamp_(-0.5, 0.5)
    (x * t([1.0, 2.0, 3.0])).sum().backward()
    close(a.grad, [0.0, 2.0, 0.0])
    # a float32 x times a float64 y becomes float64, as Paddle's mul_ promotes it
    f = t([1.5, 2.0], "float32")
    assert f.mul_(t([2.0, 3.0])) is f and f.dtype is oar.float64
    with pytest.raises(ValueError, match="shape of broadcast output"):
        t(X[:1]).mul_(t(Y))  # y may broadcast to x, not x to y (Paddle's rule)
    with pytest.raises(TypeError, match="must be Tensor"):
        t(X).mul_(2.0)  # Paddle's mul_ takes no number either
    with pytest.raises(TypeError, match="clamp_"):
        t(X).clamp_("a")
