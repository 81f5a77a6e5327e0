"""Paddle 3.3's top-level constants, dtype aliases, PyTorch-style aliases and in-place
functions (python/oar/tensor/*.py, tensor/inplace.py, framework/dtype_aliases.py):
Paddle's signatures, values and gradients
against torch, numpy and the oar functions they alias, the in-place rules (the same
object back, its version bumped, leaves that require grad refused, gradients through the
write, Paddle's dtype and shape changes), and the typed errors."""
import builtins
import inspect
import math

import numpy as np
import pytest
import torch

import oar

R = np.random.default_rng(7)
X = R.uniform(-2.0, 2.0, size=(3, 4))
Y = R.uniform(-2.0, 2.0, size=(3, 4))
POS = R.uniform(0.3, 3.0, size=(3, 4))
PROB = R.uniform(0.05, 0.95, size=(3, 4))
INTS = np.array([[7, -7, 9, 0], [-3, 4, 12, -10], [5, 6, -8, 15]], dtype=np.int64)
INTS2 = np.array([[2, 2, -2, 3], [2, -3, 5, 4], [-4, 4, 3, 6]], dtype=np.int64)


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
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default}")
    return "(" + ", ".join(parts) + ")"


# Paddle 3.3.1's signatures (inspect.signature, annotations removed).
PADDLE_SIGNATURES = {
    "abs_": "(x, name=None)",
    "adaptive_avg_pool1d": "(x, output_size, name=None)",
    "addmm_": "(input, x, y, beta=1.0, alpha=1.0, name=None)",
    "as_tensor": "(data, dtype=None, device=None, requires_grad=False, pin_memory=False)",
    "autocast": "(device_type, dtype=float16, enabled=True, cache_enabled=True)",
    "baddbmm_": "(input, x, y, beta=1.0, alpha=1.0, name=None)",
    "bernoulli_": "(x, p=0.5, name=None)",
    "bitwise_invert_": "(x, name=None)",
    "bitwise_left_shift_": "(x, y, is_arithmetic=True, out=None, name=None)",
    "bitwise_right_shift_": "(x, y, is_arithmetic=True, out=None, name=None)",
    "cast_": "(x, dtype)",
    "cat": "(x, axis=0, name=None, *, out=None)",
    "cauchy_": "(x, loc=0, scale=1, name=None)",
    "check_shape": "(shape, op_name, expected_shape_type=(<class 'list'>, <class 'tuple'>, "
                   "<class 'oar.Tensor'>), expected_element_type=(<class 'int'>, "
                   "<class 'oar.Tensor'>), expected_tensor_dtype=('int32', 'int64'))",
    "clamp": "(x, min=None, max=None, name=None, *, out=None)",
    "concatenate": "(x, axis=0, name=None, *, out=None)",
    "conv1d": "(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, "
              "data_format=NCL, name=None)",
    "conv2d": "(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, "
              "data_format=NCHW, name=None)",
    "conv3d": "(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, "
              "data_format=NCDHW, name=None)",
    "copysign_": "(x, y, name=None)",
    "cos_": "(x, name=None)",
    "cumprod_": "(x, dim=None, dtype=None, name=None)",
    "cumsum_": "(x, axis=None, dtype=None, name=None)",
    "digamma_": "(x, name=None)",
    "div": "(x, y, name=None, *, rounding_mode=None, out=None)",
    "div_": "(x, y, name=None, *, rounding_mode=None)",
    "equal_": "(x, y, name=None)",
    "erf_": "(x, name=None)",
    "flatten_": "(x, start_axis=0, stop_axis=-1, name=None)",
    "floor_mod_": "(x, y, name=None)",
    "frac_": "(x, name=None)",
    "gammainc_": "(x, y, name=None)",
    "gammaincc_": "(x, y, name=None)",
    "gammaln_": "(x, name=None)",
    "gcd_": "(x, y, name=None)",
    "geometric_": "(x, probs, name=None)",
    "ger": "(x, y, name=None, *, out=None)",
    "greater_equal_": "(x, y, name=None)",
    "greater_than_": "(x, y, name=None)",
    "group_norm": "(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format=NCHW, "
                  "name=None)",
    "hypot_": "(x, y, name=None)",
    "i0_": "(x, name=None)",
    "index_fill_": "(x, index, axis, value, name=None)",
    "layer_norm": "(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None)",
    "lcm_": "(x, y, name=None)",
    "ldexp_": "(x, y, name=None)",
    "less_": "(x, y, name=None)",
    "less_equal_": "(x, y, name=None)",
    "less_than_": "(x, y, name=None)",
    "lgamma_": "(x, name=None)",
    "log_": "(x, name=None)",
    "log_normal": "(mean=1.0, std=2.0, shape=None, name=None)",
    "log_normal_": "(x, mean=1.0, std=2.0, name=None)",
    "logical_and_": "(x, y, name=None)",
    "logical_not_": "(x, name=None)",
    "logical_or_": "(x, y, name=None)",
    "logical_xor_": "(x, y, name=None)",
    "logit_": "(x, eps=None, name=None)",
    "manual_seed": "(seed)",
    "masked_scatter_": "(x, mask, value, name=None)",
    "mod_": "(x, y, name=None)",
    "multigammaln_": "(x, p, name=None)",
    "neg_": "(x, name=None)",
    "not_equal_": "(x, y, name=None)",
    "normal_": "(x, mean=0.0, std=1.0, name=None)",
    "polygamma_": "(x, n, name=None)",
    "pow_": "(x, y, name=None)",
    "renorm_": "(x, p, axis, max_norm)",
    "reshape_": "(x, shape, name=None)",
    "reverse": "(x, axis, name=None)",
    "scatter_add_": "(input, dim, index, src)",
    "shape": "(input)",
    "sin_": "(x, name=None)",
    "sinc_": "(x, name=None)",
    "squeeze_": "(x, axis=None, name=None)",
    "sub": "(x, y, name=None, *, alpha=1, out=None)",
    "sub_": "(x, y, name=None, *, alpha=1)",
    "swapaxes": "(x, perm, name=None)",
    "swapdims": "(x, perm, name=None)",
    "t_": "(input, name=None)",
    "take_along_dim": "(arr, indices, axis, broadcast=True, *, out=None)",
    "transpose_": "(x, perm, name=None)",
    "tril_": "(x, diagonal=0, name=None)",
    "triu_": "(x, diagonal=0, name=None)",
    "true_divide": "(input, other, *, out=None)",
    "unsqueeze_": "(x, axis, name=None)",
    "vecdot": "(x, y, axis=-1, name=None)",
    "view_as_complex": "(input)",
    "view_as_real": "(input)",
    "where_": "(condition, x=None, y=None, name=None)",
}
FUNCTIONS = sorted(PADDLE_SIGNATURES)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signature_is_paddles(name):
    assert plain_signature(getattr(oar, name)) == PADDLE_SIGNATURES[name]


# Paddle's top-level aliases and small functions (oar's own Python functions, in the
# modules of their subjects), and its constants
ALIASES = (
    "e", "pi", "inf", "nan", "newaxis",
    "cat", "concatenate", "clamp", "div", "sub", "true_divide", "swapaxes", "swapdims",
    "take_along_dim", "ger", "reverse", "vecdot", "view_as_complex", "view_as_real",
    "manual_seed", "as_tensor", "shape", "check_shape", "autocast", "log_normal", "conv1d",
    "conv2d", "conv3d", "layer_norm", "group_norm", "adaptive_avg_pool1d",
)
OWN = [n for n in FUNCTIONS if (n in ALIASES and not inspect.unwrap(getattr(oar, n)).__module__
                                 .startswith("oar.nn.")) or
       inspect.unwrap(getattr(oar, n)).__module__ == "oar.tensor.inplace"]


@pytest.mark.parametrize("name", OWN)
def test_every_function_has_a_docstring(name):
    doc = getattr(oar, name).__doc__ or ""
    assert doc.strip() and doc.strip().split("\n")[0].strip(), name


def test_every_name_of_the_modules_is_at_the_top_level():
    from oar.framework import dtype_aliases as _dtype_aliases
    from oar.tensor import inplace as _paddle_inplace
    for m in (_paddle_inplace, _dtype_aliases):
        for n in m.__all__:
            assert getattr(oar, n) is getattr(m, n), n
    for n in ALIASES:
        assert hasattr(oar, n), n


# ---- constants and dtype aliases --------------------------------------------------------------
def test_constants_are_pythons():
    assert oar.e == math.e and oar.pi == math.pi and oar.inf == math.inf
    assert isinstance(oar.nan, float) and math.isnan(oar.nan)
    assert oar.newaxis is None
    assert oar.ones([2, 3])[oar.newaxis].shape == [1, 2, 3]


@pytest.mark.parametrize("alias, dtype", [("float", "float32"), ("double", "float64"),
                                          ("half", "float16"), ("cfloat", "complex64"),
                                          ("cdouble", "complex128")])
def test_dtype_aliases_are_the_dtypes(alias, dtype):
    assert getattr(oar, alias) is getattr(oar, dtype)
    assert oar.zeros([2], dtype=getattr(oar, alias)).dtype is getattr(oar, dtype)
    assert oar.to_tensor([1.0]).astype(getattr(oar, alias)).dtype is getattr(oar, dtype)


def test_every_name_of_the_modules_is_in_all():
    from oar.framework import dtype_aliases as _dtype_aliases
    from oar.tensor import inplace as _paddle_inplace
    for m in (_paddle_inplace, _dtype_aliases):
        assert not set(m.__all__) - set(oar.__all__), m.__name__
    assert not set(ALIASES) - set(oar.__all__)


def test_a_star_import_binds_the_dtype_aliases_as_paddles_does():
    # Paddle 3.3.1's __all__ lists float, double, half, cfloat, cdouble and bool: `from
    # paddle import *` binds float to paddle.float32 (checked offline), and so does oar's.
    ns = {}
    exec("from oar import *", ns)
    assert ns["float"] is oar.float32 and ns["double"] is oar.float64
    assert ns["bool"] is oar.bool and ns["pi"] == math.pi
    assert builtins.float is not oar.float  # the module's own float is untouched


# ---- aliases --------------------------------------------------------------------------------
def test_cat_and_concatenate_match_torch_cat():
    assert oar.concatenate is oar.cat
    close(oar.cat([t(X), t(Y)], axis=1), torch.cat([tt(X), tt(Y)], 1))
    close(oar.cat(tensors=[t(X), t(Y)], dim=0), torch.cat([tt(X), tt(Y)], 0))
    close(oar.cat([t(X), t(Y)], t(1, "int64")), torch.cat([tt(X), tt(Y)], 1))
    out = oar.zeros([6, 4], dtype="float64")
    assert oar.cat([t(X), t(Y)], out=out) is out
    close(out, torch.cat([tt(X), tt(Y)]))
    with pytest.raises(ValueError, match="both 'axis' and its alias 'dim'"):
        oar.cat([t(X)], axis=0, dim=0)
    a, b = t(X, grad=True), t(Y, grad=True)
    (oar.cat([a, b], 1) * t(np.arange(24.0).reshape(3, 8))).sum().backward()
    close(a.grad, np.arange(24.0).reshape(3, 8)[:, :4])
    close(b.grad, np.arange(24.0).reshape(3, 8)[:, 4:])


def test_clamp_is_clip_with_out_and_input():
    close(oar.clamp(t(X), -1.0, 0.5), torch.clamp(tt(X), -1.0, 0.5))
    close(oar.clamp(input=t(X), min=0.0), torch.clamp(tt(X), min=0.0))
    close(oar.clamp(t(X), max=t(0.25)), oar.clip(t(X), max=0.25))
    out = oar.zeros([3, 4], dtype="float64")
    assert oar.clamp(t(X), -0.5, 0.5, out=out) is out
    close(out, np.clip(X, -0.5, 0.5))
    with pytest.raises(TypeError):
        oar.clamp(t(X), x=t(X), input=t(X))


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
def test_div_rounding_modes_match_torch(mode):
    close(oar.div(t(X), t(Y), rounding_mode=mode), torch.div(tt(X), tt(Y), rounding_mode=mode))
    got = oar.div(t(INTS, "int64"), t(INTS2, "int64"), rounding_mode=mode)
    want = torch.div(torch.tensor(INTS), torch.tensor(INTS2), rounding_mode=mode)
    close(got, want.to(torch.float32) if mode is None else want)
    if mode is not None:
        assert got.dtype is oar.int64


def test_div_true_divide_and_their_keywords():
    close(oar.div(input=t(X), other=t(Y)), tt(X) / tt(Y))
    close(oar.true_divide(t(X), t(Y)), torch.true_divide(tt(X), tt(Y)))
    out = oar.zeros([3, 4], dtype="float64")
    assert oar.true_divide(t(X), t(Y), out=out) is out
    close(out, X / Y)
    assert oar.div(t(X), t(Y), out=out) is out
    with pytest.raises(ValueError, match="rounding_mode"):
        oar.div(t(X), t(Y), rounding_mode="round")
    a = t(X, grad=True)
    oar.div(a, t(Y)).sum().backward()
    close(a.grad, 1.0 / Y)


def test_sub_with_alpha_matches_torch():
    close(oar.sub(t(X), t(Y)), tt(X) - tt(Y))
    close(oar.sub(t(X), t(Y), alpha=2.5), torch.sub(tt(X), tt(Y), alpha=2.5))
    close(oar.sub(input=t(X), other=t(Y), alpha=-1), tt(X) + tt(Y))
    out = oar.zeros([3, 4], dtype="float64")
    assert oar.sub(t(X), t(Y), alpha=2, out=out) is out
    close(out, X - 2 * Y)
    b = t(Y, grad=True)
    oar.sub(t(X), b, alpha=3.0).sum().backward()
    close(b.grad, np.full_like(Y, -3.0))


def test_swapaxes_takes_a_perm_or_two_dims():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert oar.swapdims is oar.swapaxes
    close(oar.swapaxes(t(a), [2, 0, 1]), np.transpose(a, [2, 0, 1]))
    close(oar.swapaxes(t(a), 0, 2), torch.swapaxes(tt(a), 0, 2))
    close(oar.swapaxes(input=t(a), dim0=1, dim1=-1), torch.swapaxes(tt(a), 1, -1))
    close(oar.swapdims(t(a), axis0=0, axis1=1), torch.swapdims(tt(a), 0, 1))
    close(oar.swapaxes(t(a), perm=[1, 0, 2]), np.transpose(a, [1, 0, 2]))
    with pytest.raises(IndexError):
        oar.swapaxes(t(a), 0, 3)
    with pytest.raises(TypeError):
        oar.swapaxes(t(a))


def test_take_along_dim_ger_reverse():
    idx = np.array([[2, 0, 1, 3], [0, 0, 1, 1], [3, 2, 1, 0]])
    close(oar.take_along_dim(t(X), t(idx, "int64"), 1),
          torch.take_along_dim(tt(X), torch.tensor(idx), 1))
    close(oar.take_along_dim(input=t(X), indices=t(idx[:1] % 3, "int64"), dim=0),
          torch.take_along_dim(tt(X), torch.tensor(idx[:1] % 3), 0))
    out = oar.zeros([3, 4], dtype="float64")
    assert oar.take_along_dim(t(X), t(idx, "int64"), 1, out=out) is out
    with pytest.raises(ValueError, match="both 'axis' and its alias 'dim'"):
        oar.take_along_dim(t(X), t(idx, "int64"), axis=1, dim=1)
    u, v = R.normal(size=3), R.normal(size=5)
    close(oar.ger(t(u), t(v)), torch.outer(tt(u), tt(v)))
    close(oar.ger(input=t(u), vec2=t(v)), np.outer(u, v))
    out = oar.zeros([3, 5], dtype="float64")
    assert oar.ger(t(u), t(v), out=out) is out
    close(out, np.outer(u, v))
    close(oar.reverse(t(X), 0), torch.flip(tt(X), [0]))
    close(oar.reverse(t(X), [0, 1]), torch.flip(tt(X), [0, 1]))


def test_vecdot_matches_torch_with_conjugation_and_gradient():
    close(oar.vecdot(t(X), t(Y)), torch.linalg.vecdot(tt(X), tt(Y)))
    close(oar.vecdot(t(X), t(Y), axis=0), torch.linalg.vecdot(tt(X), tt(Y), dim=0))
    zx = X + 1j * Y
    zy = Y - 0.5j * X
    close(oar.vecdot(t(zx, "complex128"), t(zy, "complex128")),
          torch.linalg.vecdot(torch.tensor(zx), torch.tensor(zy)))
    a, b = t(X, grad=True), t(Y[:1], grad=True)
    oar.vecdot(a, b).sum().backward()
    ta, tb = tt(X, grad=True), tt(Y[:1], grad=True)
    torch.linalg.vecdot(ta, tb).sum().backward()
    close(a.grad, ta.grad)
    close(b.grad, tb.grad)
    with pytest.raises(TypeError):
        oar.vecdot(X, t(Y))


def test_view_as_complex_and_real_match_torch():
    a = R.normal(size=(3, 2))
    close(oar.view_as_complex(t(a)), torch.view_as_complex(tt(a)))
    z = a[:, 0] + 1j * a[:, 1]
    close(oar.view_as_real(t(z, "complex128")), torch.view_as_real(torch.tensor(z)))


def test_manual_seed_as_tensor_shape_check_shape():
    assert oar.manual_seed is oar.seed
    oar.manual_seed(11)
    first = oar.rand([5]).numpy()
    oar.manual_seed(11)
    np.testing.assert_array_equal(oar.rand([5]).numpy(), first)
    a = oar.as_tensor([1, 2, 3], dtype="float64", requires_grad=True)
    assert a.dtype is oar.float64 and not a.stop_gradient
    close(a, oar.tensor([1, 2, 3], dtype="float64"))
    s = oar.shape(oar.zeros([2, 3, 4]))
    assert s.dtype is oar.int64 and s.stop_gradient and s.tolist() == [2, 3, 4]
    assert oar.shape(t(1.0)).tolist() == []
    with pytest.raises(TypeError, match="shape"):
        oar.shape([2, 3])
    assert oar.check_shape([2, 3], "reshape") is None


def test_autocast_is_auto_cast_torch_style():
    assert not oar.is_autocast_enabled()
    with oar.autocast("cpu"):
        assert oar.is_autocast_enabled() and str(oar.get_autocast_dtype()) == "float16"
    with oar.autocast("cpu", dtype="bfloat16"):
        assert str(oar.get_autocast_dtype()) == "bfloat16"
    with oar.autocast(None, enabled=False):
        assert not oar.is_autocast_enabled()
    assert not oar.is_autocast_enabled()


def test_log_normal_samples_and_tensor_parameters():
    oar.seed(3)
    z = np.log(oar.log_normal(0.5, 0.25, [40000]).numpy())
    assert abs(z.mean() - 0.5) < 0.01 and abs(z.std() - 0.25) < 0.01
    assert oar.log_normal().shape == [1] or oar.log_normal(shape=[2, 3]).shape == [2, 3]
    m = t([0.0, 1.0], grad=True)
    out = oar.log_normal(m, 0.5)
    assert out.shape == [2] and out.dtype is oar.float64
    out.sum().backward()
    close(m.grad, out.detach())  # d exp(mean + std z) / d mean
    s = t([[0.5, 1.0, 2.0]], "float32")
    assert oar.log_normal(0.0, s).shape == [1, 3]
    assert oar.log_normal(t([0.0, 1.0, 2.0]), t([[0.1], [0.2], [0.3]])).shape == [3]


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d", "layer_norm", "group_norm",
                                  "adaptive_avg_pool1d"])
def test_functional_layers_are_nn_functionals(name):
    assert getattr(oar, name) is getattr(oar.nn.functional, name)


# ---- in place: the rules, checked for every function ----------------------------------------
def check_in_place(fn, ref, a, dtype="float64", grad=True, rtol=1e-10, atol=1e-12):
    """fn(x) writes into x what ref (torch, out of place) computes: the same object back,
    the version bumped, and the gradient through the write (x computed from a leaf, and an
    earlier use of x) as torch's; a leaf that requires grad is refused."""
    x = t(a, dtype)
    v0 = x.inplace_version
    assert fn(x) is x
    assert x.inplace_version > v0
    tdt = {"float64": torch.float64, "float32": torch.float32, "int64": torch.int64,
           "int32": torch.int32}[dtype]
    close(x, ref(tt(a, tdt)), rtol=rtol, atol=atol)
    if grad:
        leaf = t(a, dtype, grad=True)
        x = leaf * 1.0
        earlier = x * 3.0
        out = fn(x)
        w = R.uniform(-1.0, 1.0, size=out.shape)
        ((out * t(w)).sum() + earlier.sum()).backward()
        tleaf = tt(a, tdt, grad=True)
        tx = tleaf * 1.0
        ((ref(tx) * torch.tensor(w)).sum() + (tx * 3.0).sum()).backward()
        close(leaf.grad, tleaf.grad, rtol=1e-9, atol=1e-10)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        fn(t(a, dtype, grad=True))
    leaf = t(a, dtype, grad=True)
    with oar.no_grad():
        assert fn(leaf) is leaf
    assert leaf.is_leaf and not leaf.stop_gradient


UNARY = [
    ("abs_", oar.abs_, torch.abs, X),
    ("cos_", oar.cos_, torch.cos, X),
    ("sin_", oar.sin_, torch.sin, X),
    ("log_", oar.log_, torch.log, POS),
    ("neg_", oar.neg_, torch.neg, X),
    ("erf_", oar.erf_, torch.erf, X),
    ("digamma_", oar.digamma_, torch.digamma, POS),
    ("lgamma_", oar.lgamma_, torch.lgamma, POS),
    ("gammaln_", oar.gammaln_, torch.lgamma, POS),
    ("i0_", oar.i0_, torch.i0, X),
    ("logit_", oar.logit_, torch.logit, PROB),
    ("logit_ eps", lambda x: oar.logit_(x, 0.2), lambda x: torch.logit(x, 0.2), PROB),
    ("frac_", oar.frac_, torch.frac, X * 3),
    ("sinc_", oar.sinc_, torch.sinc, X),
    ("polygamma_", lambda x: oar.polygamma_(x, 1), lambda x: torch.polygamma(1, x), POS),
    ("polygamma_ 0", lambda x: oar.polygamma_(x, 0), torch.digamma, POS),
    ("multigammaln_", lambda x: oar.multigammaln_(x, 2), lambda x: torch.mvlgamma(x, 2),
     POS + 1.0),
    ("pow_", lambda x: oar.pow_(x, 3), lambda x: x ** 3, X),
    ("pow_ float", lambda x: oar.pow_(x, 2.5), lambda x: x ** 2.5, POS),
]


@pytest.mark.parametrize("fn, ref, a", [u[1:] for u in UNARY], ids=[u[0] for u in UNARY])
def test_unary_in_place_matches_torch(fn, ref, a):
    check_in_place(fn, ref, a, rtol=1e-8)  # polygamma: oar's and torch's differ by ~5e-10


BINARY = [
    ("hypot_", oar.hypot_, torch.hypot, X, Y),
    ("copysign_", oar.copysign_, torch.copysign, X, Y),
    ("copysign_ row", oar.copysign_, torch.copysign, X, Y[:1]),
    ("sub_", oar.sub_, torch.sub, X, Y),
    ("sub_ alpha", lambda x, y: oar.sub_(x, y, alpha=2.0),
     lambda x, y: torch.sub(x, y, alpha=2.0), X, Y),
    ("div_", oar.div_, torch.div, X, Y),
    ("where_", lambda x, y: oar.where_(t(X > 0, "bool"), x, y),
     lambda x, y: torch.where(torch.tensor(X > 0), x, y), X, Y),
    ("where_ row", lambda x, y: oar.where_(t(X[:1] > 0, "bool"), x, y),
     lambda x, y: torch.where(torch.tensor(X[:1] > 0), x, y), X, Y[:1]),
]


@pytest.mark.parametrize("fn, ref, a, b", [u[1:] for u in BINARY], ids=[u[0] for u in BINARY])
def test_binary_in_place_matches_torch_with_both_gradients(fn, ref, a, b):
    check_in_place(lambda x: fn(x, t(b)), lambda x: ref(x, tt(b)), a)
    # the gradient of y, the other operand
    y = t(b, grad=True)
    out = fn(t(a), y)
    ty = tt(b, grad=True)
    ref(tt(a), ty).sum().backward()
    if out.stop_gradient:  # copysign: only y's sign counts, torch's gradient is 0
        assert not ty.grad.any()
        return
    out.sum().backward()
    close(y.grad, ty.grad)


def test_binary_in_place_refuses_to_broadcast_x():
    for fn in (oar.hypot_, oar.copysign_, oar.sub_, oar.div_, oar.equal_, oar.less_,
               oar.logical_and_, oar.gammainc_, oar.floor_mod_, oar.mod_, oar.ldexp_,
               oar.gcd_, oar.not_equal_, oar.logical_xor_):
        x = t(X[:1]) if fn not in (oar.ldexp_, oar.gcd_) else t(INTS[:1], "int64")
        y = t(Y) if fn is not oar.gcd_ else t(INTS2, "int64")
        if fn is oar.ldexp_:
            x, y = t(X[:1]), t(INTS2, "int64")
        with pytest.raises(ValueError, match="shape of broadcast output"):
            fn(x, y)
    with pytest.raises(TypeError, match="'y' must be Tensor"):
        oar.less_than_(t(X), 1.0)


def test_gammainc_in_place_matches_torch_and_differentiates_in_y():
    for fn, ref in ((oar.gammainc_, torch.special.gammainc),
                    (oar.gammaincc_, torch.special.gammaincc)):
        x = t(POS)
        assert fn(x, t(POS[::-1] + 0.5)) is x
        close(x, ref(tt(POS), tt(POS[::-1] + 0.5)), rtol=1e-9)
        y = t(POS + 0.5, grad=True)
        fn(t(POS), y).sum().backward()
        ty = tt(POS + 0.5, grad=True)
        ref(tt(POS), ty).sum().backward()
        close(y.grad, ty.grad, rtol=1e-8)


def test_ldexp_in_place_takes_paddles_dtype():
    e = np.array([[1, 2, 3, 0], [-1, 2, 0, 1], [3, -2, 1, 2]])
    close(oar.ldexp_(t(X), t(e, "int32")), torch.ldexp(tt(X), torch.tensor(e)))
    # the reference is x * 2.0**e: torch's gradient of ldexp is 0 for a negative exponent
    check_in_place(lambda x: oar.ldexp_(x, t(e, "int32")),
                   lambda x: x * torch.tensor(2.0 ** e), X)
    x = t(INTS, "int64")
    oar.ldexp_(x, t(e, "int32"))
    assert x.dtype is oar.float32  # the default dtype, as Paddle
    close(x, INTS * 2.0 ** e)
    h = t([1.0, 2.0], "float16")
    assert oar.ldexp_(h, t([1, 2], "int32")).dtype is oar.float32
    with pytest.raises(TypeError):
        oar.ldexp_(t(X), 2)


@pytest.mark.parametrize("name, tfn", [
    ("equal_", torch.eq), ("greater_equal_", torch.ge), ("greater_than_", torch.gt),
    ("less_", torch.lt), ("less_equal_", torch.le), ("less_than_", torch.lt),
    ("logical_and_", torch.logical_and), ("logical_or_", torch.logical_or),
    ("not_equal_", torch.ne), ("logical_xor_", torch.logical_xor)])
def test_comparisons_in_place_leave_a_bool_x(name, tfn):
    a = np.round(X)
    b = np.round(Y)
    x = t(a)
    v0 = x.inplace_version
    assert getattr(oar, name)(x, t(b)) is x
    assert x.dtype is oar.bool and x.inplace_version > v0
    close(x, tfn(tt(a), tt(b)))
    # a non-leaf that required grad: its result carries none
    leaf = t(a, grad=True)
    y = leaf * 1.0
    getattr(oar, name)(y, t(b))
    assert y.dtype is oar.bool and y.stop_gradient
    with pytest.raises(RuntimeError, match="leaf tensor"):
        getattr(oar, name)(t(a, grad=True), t(b))


def test_logical_not_in_place():
    x = t(np.round(X))
    assert oar.logical_not_(x) is x and x.dtype is oar.bool
    close(x, np.logical_not(np.round(X)))


def test_integer_in_place_ops_match_torch():
    def run(fn, ref, a=INTS, b=INTS2, dtype="int64"):
        x = t(a, dtype)
        v0 = x.inplace_version
        assert fn(x, t(b, dtype)) is x and x.inplace_version > v0
        close(x, ref(torch.tensor(a), torch.tensor(b)))
    run(oar.floor_mod_, torch.remainder)
    run(oar.mod_, torch.remainder)
    run(oar.gcd_, torch.gcd)
    run(oar.lcm_, torch.lcm)
    run(lambda x, y: oar.gcd_(input=x, other=y), torch.gcd)
    run(oar.floor_mod_, torch.remainder, X, np.where(np.abs(Y) < 0.1, 1.0, Y), "float64")
    run(lambda x, y: oar.div_(x, y, rounding_mode="floor"),
        lambda x, y: torch.div(x, y, rounding_mode="floor"))
    run(lambda x, y: oar.div_(x, y, rounding_mode="trunc"),
        lambda x, y: torch.div(x, y, rounding_mode="trunc"))
    run(lambda x, y: oar.div_(x, y, rounding_mode="trunc"),
        lambda x, y: torch.div(x, y, rounding_mode="trunc"), X, Y, "float64")
    small = np.abs(INTS2) % 4
    run(oar.bitwise_left_shift_, torch.bitwise_left_shift, INTS, small)
    run(oar.bitwise_right_shift_, torch.bitwise_right_shift, INTS, small)
    x = t(INTS, "int32")
    oar.bitwise_right_shift_(x, t(small, "int32"), is_arithmetic=False)
    close(x, (INTS.astype(np.uint32) >> small.astype(np.uint32)).astype(np.int32))
    x = t(INTS, "int64")
    assert oar.bitwise_invert_(x) is x
    close(x, ~INTS)


def test_div_in_place_of_integers_becomes_floating_as_paddle():
    x = t(INTS, "int64")
    assert oar.div_(x, t(INTS2, "int64")) is x
    assert x.dtype is oar.float32
    close(x, (INTS / INTS2).astype(np.float32))
    with pytest.raises(ValueError, match="rounding_mode"):
        oar.div_(t(X), t(Y), rounding_mode="x")


def test_where_in_place_follows_paddle():
    c = X > 0
    x = t(X)
    assert oar.where_(t(c, "bool"), x, t(Y)) is x
    close(x, np.where(c, X, Y))
    # x that must broadcast: Paddle writes into a broadcast copy, x stays as it was
    x = t(X[:1])
    out = oar.where_(t(c, "bool"), x, t(Y))
    assert out is not x and out.shape == [3, 4]
    close(out, np.where(c, X[:1], Y))
    close(x, X[:1])
    for bad in ((t(c, "bool"), t(X), 1.0), (t(c, "bool"), t(X), None),
                (t(c, "int64"), t(X), t(Y))):
        with pytest.raises(ValueError):
            oar.where_(*bad)
    with pytest.raises(TypeError, match="must be Tensors"):
        oar.where_(t(c, "bool"), X.tolist(), t(Y))


# ---- in place: scans, triangles, products, picking, scattering ------------------------------
SCANS = [
    ("cumsum_", lambda x: oar.cumsum_(x, 1), lambda x: torch.cumsum(x, 1)),
    ("cumsum_ none", oar.cumsum_, lambda x: torch.cumsum(x.reshape(-1), 0)),
    ("cumprod_", lambda x: oar.cumprod_(x, 0), lambda x: torch.cumprod(x, 0)),
    ("cumprod_ none", oar.cumprod_, lambda x: torch.cumprod(x.reshape(-1), 0)),
    ("tril_", oar.tril_, torch.tril),
    ("tril_ 1", lambda x: oar.tril_(x, 1), lambda x: torch.tril(x, 1)),
    ("triu_ -1", lambda x: oar.triu_(x, -1), lambda x: torch.triu(x, -1)),
    ("renorm_", lambda x: oar.renorm_(x, 2.0, 0, 1.5), lambda x: torch.renorm(x, 2.0, 0, 1.5)),
    ("renorm_ -1", lambda x: oar.renorm_(x, 1.0, -1, 2.0),
     lambda x: torch.renorm(x, 1.0, 1, 2.0)),
    ("index_fill_", lambda x: oar.index_fill_(x, t([0, 2], "int64"), 1, -9.0),
     lambda x: torch.index_fill(x, 1, torch.tensor([0, 2]), -9.0)),
    ("masked_scatter_", lambda x: oar.masked_scatter_(x, t(X > 0, "bool"), t(Y)),
     lambda x: torch.masked_scatter(x, torch.tensor(X > 0), tt(Y))),
]


@pytest.mark.parametrize("fn, ref", [s[1:] for s in SCANS], ids=[s[0] for s in SCANS])
def test_scans_and_picks_in_place_match_torch(fn, ref):
    check_in_place(fn, ref, X)


def test_cumsum_in_place_with_a_dtype_changes_x():
    x = t(X, "float32")
    assert oar.cumsum_(x, 0, dtype="float64") is x
    assert x.dtype is oar.float64
    close(x, np.cumsum(X.astype(np.float32).astype(np.float64), 0), rtol=1e-6)
    x = t(INTS, "int64")
    oar.cumprod_(x, 1, dtype=oar.float64)
    assert x.dtype is oar.float64
    close(x, np.cumprod(INTS, 1).astype(np.float64))


def test_scatter_add_in_place_matches_torch():
    idx = np.array([[1, 0, 2, 1]])
    src = R.normal(size=(1, 4))
    check_in_place(lambda x: oar.scatter_add_(x, 0, t(idx, "int64"), t(src)),
                   lambda x: torch.scatter_add(x, 0, torch.tensor(idx), tt(src)), X)


def test_addmm_and_baddbmm_in_place_match_torch():
    m1, m2 = R.normal(size=(3, 5)), R.normal(size=(5, 4))
    check_in_place(lambda x: oar.addmm_(x, t(m1), t(m2), 0.5, 2.0),
                   lambda x: torch.addmm(x, tt(m1), tt(m2), beta=0.5, alpha=2.0), X)
    # an input that broadcasts takes the product's shape
    row = t(X[:1])
    assert oar.addmm_(row, t(m1), t(m2)) is row and row.shape == [3, 4]
    close(row, torch.addmm(tt(X[:1]), tt(m1), tt(m2)))
    b1, b2 = R.normal(size=(2, 3, 5)), R.normal(size=(2, 5, 4))
    base = R.normal(size=(2, 3, 4))
    check_in_place(lambda x: oar.baddbmm_(x, t(b1), t(b2), 2.0, 0.5),
                   lambda x: torch.baddbmm(x, tt(b1), tt(b2), beta=2.0, alpha=0.5), base)
    with pytest.raises(ValueError, match="input's dimension"):
        oar.addmm_(t(np.ones((1, 3))), t(m1), t(m2))
    with pytest.raises(ValueError, match="should be 2"):
        oar.addmm_(t(X), t(b1), t(m2))
    with pytest.raises(ValueError, match="dimension\\[0\\]"):
        oar.baddbmm_(t(np.ones((3, 3, 4))), t(b1), t(b2))
    with pytest.raises(ValueError, match="should be 3 or 2"):
        oar.baddbmm_(t(np.ones(4)), t(b1), t(b2))


# ---- in place: shape and dtype ----------------------------------------------------------------
A3 = R.normal(size=(2, 3, 4))
SHAPES = [
    ("reshape_", lambda x: oar.reshape_(x, [4, 6]), lambda x: x.reshape(4, 6)),
    ("reshape_ 0 -1", lambda x: oar.reshape_(x, [0, -1]), lambda x: x.reshape(2, -1)),
    ("reshape_ tensor", lambda x: oar.reshape_(x, t([24], "int64")), lambda x: x.reshape(24)),
    ("flatten_", lambda x: oar.flatten_(x, 1, 2), lambda x: x.flatten(1, 2)),
    ("flatten_ all", oar.flatten_, lambda x: x.flatten()),
    ("unsqueeze_", lambda x: oar.unsqueeze_(x, [0, 4]), lambda x: x[None, ..., None]),
    ("unsqueeze_ int", lambda x: oar.unsqueeze_(x, -1), lambda x: x.unsqueeze(-1)),
    ("transpose_", lambda x: oar.transpose_(x, [2, 0, 1]), lambda x: x.permute(2, 0, 1)),
    ("cast_", lambda x: oar.cast_(x, "float32"), lambda x: x.to(torch.float32)),
]


@pytest.mark.parametrize("fn, ref", [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_shape_and_dtype_in_place_match_torch(fn, ref):
    check_in_place(fn, ref, A3, rtol=1e-6 if fn is SHAPES[-1][1] else 1e-10)


def test_views_in_place_keep_x_memory():
    x = t(A3)
    ptr = x.data_ptr()
    for fn in (lambda v: oar.reshape_(v, [6, 4]), lambda v: oar.unsqueeze_(v, 0),
               lambda v: oar.squeeze_(v), lambda v: oar.flatten_(v),
               lambda v: oar.reshape_(v, [4, 6]), oar.t_,
               lambda v: oar.transpose_(v, [1, 0]), oar.t_):
        fn(x)
        assert x.data_ptr() == ptr
    close(x, A3.reshape(4, 6).T)
    assert not x.is_contiguous()


def test_squeeze_and_t_in_place():
    a = R.normal(size=(1, 3, 1, 4))
    check_in_place(oar.squeeze_, torch.squeeze, a)
    check_in_place(lambda x: oar.squeeze_(x, 2), lambda x: torch.squeeze(x, 2), a)
    check_in_place(lambda x: oar.squeeze_(x, (0, 2)), lambda x: x.reshape(3, 4), a)
    check_in_place(oar.t_, lambda x: x.t(), X)
    sq = np.arange(4.0).reshape(2, 2)
    check_in_place(oar.t_, lambda x: x.t(), sq)
    check_in_place(lambda x: oar.transpose_(x, [1, 0]), lambda x: x.t(), sq)
    v = t([1.0, 2.0])
    v0 = v.inplace_version
    assert oar.t_(v) is v and v.inplace_version == v0  # 1-D: returned as is, as Paddle
    with pytest.raises(ValueError, match="N<=2"):
        oar.t_(t(A3))


def test_reshape_to_the_same_shape_returns_x_untouched():
    x = t(X)
    v0 = x.inplace_version
    assert oar.reshape_(x, [3, 4]) is x and x.inplace_version == v0


def test_cast_in_place_changes_the_dtype_and_differentiates():
    x = t(X * 3)
    assert oar.cast_(x, "int32") is x and x.dtype is oar.int32
    close(x, (X * 3).astype(np.int32))
    x = t(X, "float32")
    assert oar.cast_(x, oar.float64).dtype is oar.float64
    leaf = t(X, "float32", grad=True)
    y = leaf * 2.0
    oar.cast_(y, "float64")
    assert y.dtype is oar.float64
    (y * t(Y)).sum().backward()
    assert leaf.grad.dtype is oar.float32
    close(leaf.grad, (2.0 * Y).astype(np.float32), rtol=1e-6)


def test_flatten_and_reshape_in_place_check_their_arguments():
    with pytest.raises(ValueError, match="stop_axis should be larger"):
        oar.flatten_(t(A3), 2, 1)
    with pytest.raises(ValueError, match="start_axis"):
        oar.flatten_(t(A3), 3)
    with pytest.raises(ValueError, match="start_axis"):
        oar.flatten_(t(1.0))
    with pytest.raises(ValueError, match="should be a Tensor"):
        oar.flatten_(A3)
    with pytest.raises(ValueError, match="shape must be"):
        oar.reshape_(t(A3), "24")


def test_an_earlier_saved_x_refuses_backward_after_the_write():
    for fn in (oar.abs_, lambda v: oar.reshape_(v, [12]), oar.cos_):
        leaf = t(X, grad=True)
        x = leaf * 1.0
        saved = x * x
        fn(x)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            saved.sum().backward()


def test_in_place_checks_of_arguments():
    with pytest.raises(TypeError, match="scalar"):
        oar.pow_(t(X), t([2.0]))
    with pytest.raises(TypeError, match="must be Tensor"):
        oar.abs_(X)
    with pytest.raises(TypeError, match="n must be int"):
        oar.polygamma_(t(POS), 1.0)
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        oar.polygamma_(t(POS), -1)
    with pytest.raises(TypeError, match="data type"):
        oar.frac_(t([True, False], "bool"))
    with pytest.raises(TypeError, match="data type"):
        oar.sinc_(t(INTS, "int64"))
    with pytest.raises(ValueError, match="axis:2 should be less"):
        oar.renorm_(t(X), 1.0, 2, 1.0)
    with pytest.raises(ValueError, match="should not be less"):
        oar.renorm_(t(X), 1.0, -3, 1.0)
    with pytest.raises(ValueError):
        oar.multigammaln_(t(POS), 0)


def test_in_place_leaf_errors_name_the_function_called():
    for name, call in [("sub_", lambda v: oar.sub_(v, t(Y))), ("div_", lambda v: oar.div_(v, t(Y))),
                       ("neg_", oar.neg_), ("mod_", lambda v: oar.mod_(v, t(Y))),
                       ("normal_", oar.normal_), ("bernoulli_", oar.bernoulli_),
                       ("cast_", lambda v: oar.cast_(v, "float32")),
                       ("reshape_", lambda v: oar.reshape_(v, [12]))]:
        with pytest.raises(RuntimeError, match=f"^{name}\\(\\): 'x' is a leaf"):
            call(t(X, grad=True))
    with pytest.raises(RuntimeError, match="^scatter_add_\\(\\): 'input' is a leaf"):
        oar.scatter_add_(t(X, grad=True), 0, t([[0]], "int64"), t([[1.0]]))


# ---- in place: random fills -------------------------------------------------------------------
def test_random_fills_in_place():
    oar.seed(5)
    x = oar.zeros([20000], dtype="float64")
    for fn in (lambda v: oar.normal_(v, 3.0, 0.5), lambda v: oar.bernoulli_(v, 0.3),
               lambda v: oar.cauchy_(v, 1.0, 2.0), lambda v: oar.geometric_(v, 0.25),
               lambda v: oar.log_normal_(v, 0.5, 0.1)):
        v0 = x.inplace_version
        assert fn(x) is x and x.inplace_version > v0 and x.shape == [20000]
    a = x.numpy()  # the last fill: log-normal
    assert abs(np.log(a).mean() - 0.5) < 0.01 and abs(np.log(a).std() - 0.1) < 0.01
    oar.normal_(x, 3.0, 0.5)
    assert abs(x.numpy().mean() - 3.0) < 0.02 and abs(x.numpy().std() - 0.5) < 0.02
    oar.bernoulli_(x, 0.3)
    assert set(np.unique(x.numpy())) <= {0.0, 1.0} and abs(x.numpy().mean() - 0.3) < 0.02
    assert oar.bernoulli_(x, 0.0).numpy().sum() == 0
    assert oar.bernoulli_(x, 1.0).numpy().min() == 1
    oar.cauchy_(x, 1.0, 2.0)
    assert abs(np.median(x.numpy()) - 1.0) < 0.1
    oar.geometric_(x, 0.25)
    g = x.numpy()
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4.0) < 0.15
    with pytest.raises(TypeError):
        oar.normal_(t(INTS, "int64"))
    with pytest.raises(TypeError, match="must be Tensor"):
        oar.normal_(np.zeros(3))
