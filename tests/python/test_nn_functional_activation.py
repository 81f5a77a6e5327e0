"""oar.nn.functional's activations: Paddle's signatures, the compositions (swish, relu6,
glu) and the Python side of prelu (weight shapes, data_format) against PyTorch, and
the error paths. The ops themselves are checked by the op registry
(tests/op_cases/activation.yaml, test_ops_vs_torch.py and the C++ driver)."""
import inspect

import numpy as np
import pytest
import torch

import oar
import oar.nn.functional as F
from oar.nn.functional import activation

TF = torch.nn.functional

# Paddle's parameters and defaults (paddle.nn.functional, 3.x).
PADDLE_SIGNATURES = {
    "gelu": [("x", None), ("approximate", False), ("name", None)],
    "silu": [("x", None), ("inplace", False), ("name", None)],
    "swish": [("x", None), ("name", None)],
    "mish": [("x", None), ("name", None)],
    "leaky_relu": [("x", None), ("negative_slope", 0.01), ("name", None)],
    "elu": [("x", None), ("alpha", 1.0), ("name", None)],
    "selu": [("x", None), ("scale", 1.0507009873554805), ("alpha", 1.6732632423543772),
             ("name", None)],
    "celu": [("x", None), ("alpha", 1.0), ("name", None)],
    "softplus": [("x", None), ("beta", 1), ("threshold", 20), ("name", None)],
    "softsign": [("x", None), ("name", None)],
    "hardswish": [("x", None), ("name", None)],
    "hardsigmoid": [("x", None), ("slope", 0.1666667), ("offset", 0.5), ("name", None)],
    "hardtanh": [("x", None), ("min", -1.0), ("max", 1.0), ("name", None)],
    "relu6": [("x", None), ("name", None)],
    "prelu": [("x", None), ("weight", None), ("data_format", "NCHW"), ("name", None)],
    "glu": [("x", None), ("axis", -1), ("name", None)],
    "log_sigmoid": [("x", None), ("name", None)],
    "tanhshrink": [("x", None), ("name", None)],
    "softshrink": [("x", None), ("threshold", 0.5), ("name", None)],
    "hardshrink": [("x", None), ("threshold", 0.5), ("name", None)],
    "thresholded_relu": [("x", None), ("threshold", 1.0), ("value", 0.0), ("name", None)],
}


@pytest.mark.parametrize("name", sorted(PADDLE_SIGNATURES))
def test_paddle_signature(name):
    assert name in activation.__all__
    params = inspect.signature(getattr(F, name)).parameters
    got = [(p.name, None if p.default is inspect.Parameter.empty else p.default)
           for p in params.values()]
    assert got == PADDLE_SIGNATURES[name]


def pair(shape, dtype="float64", seed=0, low=-2.0, high=2.0, away=0.0):
    """A leaf in oar and in torch with the same values."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(low, high, size=shape)
    if away:
        v = np.where(np.abs(v) < away, np.sign(v + 1e-300) * away, v)
    o = oar.to_tensor(v.astype(dtype), stop_gradient=False)
    t = torch.tensor(v.astype(dtype), requires_grad=True)
    return o, t


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)


def check_against_torch(fo, ft, shapes, dtype, away=0.1, views=None):
    """Values, first- and second-order gradients of fo (oar) against ft (torch)."""
    pairs = [pair(s, dtype, seed=i, away=away) for i, s in enumerate(shapes)]
    o_in = [p[0] for p in pairs]
    t_in = [p[1] for p in pairs]
    if views is not None:
        o_args, t_args = views(o_in, t_in)
    else:
        o_args, t_args = o_in, t_in
    yo, yt = fo(*o_args), ft(*t_args)
    np.testing.assert_allclose(yo.numpy(), yt.detach().numpy(), **tol(dtype))
    rng = np.random.default_rng(7)
    gv = rng.uniform(-1, 1, size=yt.shape).astype(dtype)
    go, gt = oar.to_tensor(gv), torch.tensor(gv)
    o_g = oar.grad([yo], o_in, grad_outputs=[go], create_graph=True)
    t_g = torch.autograd.grad([yt], t_in, grad_outputs=[gt], create_graph=True)
    for a, b in zip(o_g, t_g):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), **tol(dtype))
    if yt.numel() == 0:
        return
    # second order: d/d inputs of sum(grad * w)
    o_s = sum((g * oar.to_tensor(np.full(g.shape, 0.5, dtype))).sum() for g in o_g)
    t_s = sum((g * 0.5).sum() for g in t_g)
    if not t_s.requires_grad:
        return
    o_gg = oar.grad([o_s], o_in, allow_unused=True)
    t_gg = torch.autograd.grad([t_s], t_in, allow_unused=True)
    for a, b, i in zip(o_gg, t_gg, t_in):
        b = torch.zeros_like(i) if b is None else b
        a = np.zeros(b.shape) if a is None else a.numpy()
        np.testing.assert_allclose(a, b.detach().numpy(), **tol(dtype))


DTYPES = ["float32", "float64"]
# x shapes: plain, empty, 0-d
UNARY_SHAPES = [[2, 3], [0, 3], []]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
def test_swish_is_silu(dtype, shape):
    check_against_torch(F.swish, TF.silu, [shape], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
def test_relu6(dtype, shape):
    def scaled(f):  # values on both sides of 0 and 6, away from the kinks
        return lambda x: f(x * 4.0 + 3.0)
    check_against_torch(scaled(F.relu6), scaled(TF.relu6), [shape], dtype, away=0.3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu6_non_contiguous(dtype):
    check_against_torch(lambda x: F.relu6(x.T * 4.0), lambda x: TF.relu6(x.T * 4.0),
                        [[3, 4]], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [([2, 4], -1), ([4, 3], 0), ([2, 6, 3], 1), ([0, 4], 1),
                                        ([2], 0)], ids=str)
def test_glu(dtype, shape, axis):
    check_against_torch(lambda x: F.glu(x, axis), lambda x: TF.glu(x, axis), [shape], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_glu_non_contiguous(dtype):
    check_against_torch(lambda x: F.glu(x.T, 0), lambda x: TF.glu(x.T, 0), [[3, 4]], dtype)


def test_gelu_approximate_strings():
    x = oar.to_tensor([[-1.0, 0.5], [1.0, 1.5]])
    np.testing.assert_array_equal(F.gelu(x, "tanh").numpy(), F.gelu(x, True).numpy())
    np.testing.assert_array_equal(F.gelu(x, "none").numpy(), F.gelu(x).numpy())
    # Paddle's documented values
    np.testing.assert_allclose(F.gelu(x).numpy(), [[-0.15865529, 0.34573123],
                                                   [0.84134471, 1.39978933]], rtol=1e-6)
    np.testing.assert_allclose(F.gelu(x, True).numpy(), [[-0.15880796, 0.34571400],
                                                         [0.84119201, 1.39957154]], rtol=1e-6)


def test_hardsigmoid_default_is_paddles_slope():
    # slope 0.1666667 (not exactly 1/6): within 1e-6 of torch's hardsigmoid on [-3, 3]
    x = np.linspace(-4, 4, 81)
    got = F.hardsigmoid(oar.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, np.clip(x * 0.1666667 + 0.5, 0, 1), rtol=1e-14,
                               atol=1e-15)
    np.testing.assert_allclose(got, TF.hardsigmoid(torch.tensor(x)).numpy(), atol=1e-6)
    # Paddle's documented example
    np.testing.assert_allclose(F.hardsigmoid(oar.to_tensor([-4.0, 5.0, 1.0])).numpy(),
                               [0.0, 1.0, 0.66666669], rtol=1e-6)


def test_selu_defaults_match_torch():
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(F.selu(oar.to_tensor(x)).numpy(),
                               TF.selu(torch.tensor(x)).numpy(), rtol=1e-14)


def test_softplus_int_attributes():
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(F.softplus(oar.to_tensor(x), 2, 4).numpy(),
                               TF.softplus(torch.tensor(x), 2, 4).numpy(), rtol=1e-14)


def test_first_order_backward_is_one_fused_op():
    x = oar.to_tensor([-1.0, 0.5, 2.0], stop_gradient=False)
    for f, node in [(F.gelu, "GeluGradNode"), (F.silu, "SiluGradNode"),
                    (F.leaky_relu, "LeakyReluGradNode"), (F.softplus, "SoftplusGradNode")]:
        y = f(x)
        assert y._grad_fn_name == node
        (g,) = oar.grad([y.sum()], [x], create_graph=True)
        assert g._grad_fn_name == node.replace("GradNode", "GradGradNode")


def test_extreme_values_do_not_overflow():
    x = oar.to_tensor([-1000.0, -50.0, 0.0, 50.0, 1000.0], stop_gradient=False)
    t = torch.tensor([-1000.0, -50.0, 0.0, 50.0, 1000.0], requires_grad=True)
    for fo, ft in [(F.silu, TF.silu), (F.log_sigmoid, TF.logsigmoid), (F.mish, TF.mish),
                   (F.elu, TF.elu), (F.softplus, TF.softplus), (F.gelu, TF.gelu)]:
        yo, yt = fo(x), ft(t)
        np.testing.assert_allclose(yo.numpy(), yt.detach().numpy(), rtol=1e-6)
        (go,) = oar.grad([yo.sum()], [x])
        (gt,) = torch.autograd.grad(yt.sum(), t)
        np.testing.assert_allclose(go.numpy(), gt.numpy(), rtol=1e-6)
        assert np.isfinite(go.numpy()).all()
    # second order through the composed formulas: no inf * 0 in a discarded branch
    for f in (F.elu, F.selu, F.celu):
        (g,) = oar.grad([f(x).sum()], [x], create_graph=True)
        (gg,) = oar.grad([g.sum()], [x])
        assert np.isfinite(gg.numpy()).all(), f


# ---- prelu ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,wshape,fmt", [
    ([2, 3, 4, 5], [3], "NCHW"), ([2, 4, 5, 3], [3], "NHWC"), ([2, 3], [3], "NC"),
    ([2, 3, 5], [3], "NCL"), ([2, 5, 3], [3], "NLC"), ([2, 3, 2, 2, 2], [3], "NCDHW"),
    ([2, 2, 2, 2, 3], [3], "NDHWC"), ([2, 3, 4], [1], "NCHW"), ([2, 3, 4], [], "NHWC"),
    ([], [1], "NCHW"), ([0, 3, 2], [3], "NCHW"),
], ids=str)
def test_prelu(dtype, shape, wshape, fmt):
    def torch_prelu(x, w):
        if w.numel() > 1 and fmt in ("NLC", "NHWC", "NDHWC"):
            return TF.prelu(x.movedim(-1, 1), w).movedim(1, -1)
        return torch.where(x > 0, x, w.reshape(-1)[0] * x) if w.numel() == 1 else TF.prelu(x, w)
    check_against_torch(lambda x, w: F.prelu(x, w, data_format=fmt), torch_prelu,
                        [shape, wshape], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_prelu_non_contiguous(dtype):
    check_against_torch(lambda x, w: F.prelu(x.transpose([1, 0, 2]), w),
                        lambda x, w: TF.prelu(x.transpose(0, 1), w), [[3, 2, 4], [3]], dtype)


# ---- errors --------------------------------------------------------------------------------

def x23():
    return oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)


def test_prelu_weight_shape_mismatch():
    with pytest.raises(ValueError, match=r"prelu\(\): argument 'weight' has 2 elements but 'x' "
                                         r"of shape \[2, 3\] has 3 channels"):
        F.prelu(x23(), oar.to_tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match=r"prelu\(\): argument 'weight' has 3 elements .* "
                                         r"has 2 channels .*'NHWC'"):
        F.prelu(oar.zeros([3, 2]), oar.to_tensor([0.1, 0.2, 0.3]), data_format="NHWC")
    with pytest.raises(ValueError, match=r"prelu\(\): argument 'weight' must be 0-D or 1-D"):
        F.prelu(x23(), oar.to_tensor([[0.1, 0.2, 0.3]]))
    with pytest.raises(ValueError, match=r"prelu\(\): a per-channel argument 'weight'"):
        F.prelu(oar.to_tensor([1.0, -1.0, 2.0]), oar.to_tensor([0.1, 0.2, 0.3]))
    with pytest.raises(TypeError, match=r"prelu\(\): argument 'weight' must be Tensor"):
        F.prelu(x23(), 0.25)


def test_prelu_bad_data_format():
    with pytest.raises(ValueError, match=r"prelu\(\): argument 'data_format' must be one of "
                                         r"NC, NCL, NCHW, .* but got 'NHCW'"):
        F.prelu(x23(), oar.to_tensor([0.25]), data_format="NHCW")
    with pytest.raises(ValueError, match=r"prelu\(\): argument 'data_format'"):
        F.prelu(x23(), oar.to_tensor([0.25]), data_format=None)


def test_glu_errors():
    with pytest.raises(ValueError, match=r"glu\(\): the size of 'x' along argument 'axis' \(-1\) "
                                         r"must be even, but got 3"):
        F.glu(x23())
    with pytest.raises(IndexError, match=r"glu\(\): argument 'axis' \(2\) is out of range"):
        F.glu(x23(), axis=2)
    with pytest.raises(ValueError, match=r"glu\(\): argument 'x' must have at least 1 dimension"):
        F.glu(oar.to_tensor(1.0))
    with pytest.raises(TypeError, match=r"glu\(\): argument 'x' must be Tensor"):
        F.glu([1.0, 2.0])


def test_attribute_range_errors():
    with pytest.raises(ValueError, match=r"celu\(\): argument 'alpha' must not be 0"):
        F.celu(x23(), 0.0)
    with pytest.raises(ValueError, match=r"selu\(\): argument 'scale' must be greater than 1.0"):
        F.selu(x23(), scale=0.9)
    with pytest.raises(ValueError, match=r"selu\(\): argument 'alpha' must be no less than 0"):
        F.selu(x23(), alpha=-1.0)
    with pytest.raises(ValueError, match=r"softshrink\(\): argument 'threshold' must be no less "
                                         r"than 0"):
        F.softshrink(x23(), -0.5)
    with pytest.raises(ValueError, match=r"gelu\(\): argument 'approximate' must be True, False, "
                                         r"'tanh' or 'none', but got 'fast'"):
        F.gelu(x23(), "fast")


def test_argument_type_errors():
    with pytest.raises(TypeError, match=r"leaky_relu\(\): argument 'negative_slope'"):
        F.leaky_relu(x23(), "0.1")
    with pytest.raises(TypeError, match=r"hardtanh\(\): argument 'x'"):
        F.hardtanh([1.0, 2.0])
    with pytest.raises(TypeError, match=r"elu\(\): .*int64"):
        F.elu(oar.to_tensor([1, 2, 3]))


def test_hardtanh_inplace():
    v = np.array([-2.0, -0.5, 0.25, 1.5])
    a = oar.to_tensor(v, stop_gradient=False)
    x = a * 1.0  # a non-leaf, so it may be written in place
    y = F.hardtanh_(x, -1.0, 1.0)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), np.clip(v, -1, 1))
    (g,) = oar.grad([(y * y).sum()], [a])
    np.testing.assert_array_equal(g.numpy(), [0.0, -1.0, 0.5, 0.0])
    with pytest.raises(RuntimeError, match=r"hardtanh_\(\)"):
        F.hardtanh_(oar.to_tensor(v, stop_gradient=False))  # a leaf that requires grad


SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-310, -5.0, 5.0, 50.0, -50.0]  # NaN first


@pytest.mark.parametrize("fo,ft", [
    (F.gelu, TF.gelu), (lambda x: F.gelu(x, True), lambda x: TF.gelu(x, approximate="tanh")),
    (F.silu, TF.silu), (F.mish, TF.mish), (F.elu, TF.elu), (F.selu, TF.selu),
    (F.softplus, TF.softplus), (F.log_sigmoid, TF.logsigmoid),
    (F.tanhshrink, TF.tanhshrink), (F.hardswish, TF.hardswish), (F.leaky_relu, TF.leaky_relu),
    (F.hardtanh, TF.hardtanh), (F.relu6, TF.relu6), (F.softshrink, TF.softshrink),
    (F.hardshrink, TF.hardshrink),
    # torch's own hardsigmoid backward uses a float32 1/6: compare with the formula
    (lambda x: F.hardsigmoid(x, 1 / 6), lambda x: torch.clamp(x * (1 / 6) + 0.5, 0.0, 1.0)),
    (lambda x: F.thresholded_relu(x, 1.0, 0.0), lambda x: TF.threshold(x, 1.0, 0.0)),
    (lambda x: F.celu(x, 0.82), lambda x: torch.ops.aten.elu(x, 0.82, 1.0, 1 / 0.82)),
], ids=lambda f: getattr(f, "__name__", "f"))
def test_special_values_as_torch(fo, ft):
    """NaN, infinities, signed zeros, subnormals: values and gradients as PyTorch's."""
    xo = oar.to_tensor(np.array(SPECIAL), stop_gradient=False)
    xt = torch.tensor(SPECIAL, dtype=torch.float64, requires_grad=True)
    yo, yt = fo(xo), ft(xt)
    np.testing.assert_allclose(yo.numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-300)
    (go,) = oar.grad([yo], [xo], grad_outputs=[oar.ones_like(yo)])
    (gt,) = torch.autograd.grad(yt, xt, torch.ones_like(yt))
    # At the NaN input torch's answer depends on its loop (vectorized or scalar tail,
    # tests/fuzz/allowlist.py): compare the others.
    # rtol 1e-9: an unoptimised (sanitizer) build rounds the tanh form's chain differently
    np.testing.assert_allclose(go.numpy()[1:], gt.numpy()[1:], rtol=1e-9, atol=1e-300)


def test_softsign_at_infinity():
    # The value is inf / inf = NaN, as torch's; the gradient 1 / (1 + |x|) ** 2 is its
    # limit 0 (torch's autograd of x / (1 + |x|) meets inf / inf again: NaN).
    x = oar.to_tensor([float("inf"), float("-inf"), 0.0], stop_gradient=False)
    y = F.softsign(x)
    np.testing.assert_array_equal(y.numpy(), [np.nan, np.nan, 0.0])
    (g,) = oar.grad([y.sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 1.0])
