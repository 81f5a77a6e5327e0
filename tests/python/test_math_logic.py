"""The math and logic ops (src/oar/ops/math.yaml, logic.yaml) beyond the registry's
cases: NaN and infinities (the registry's inputs are finite), the Python wrappers'
None/number/Tensor arguments, the operators // % & | ^ ~ with their reflected and
in-place forms, the in-place forms the generic in-place tests skip (integer and bool
tensors), and every error path with its typed message."""
import math

import numpy as np
import pytest
import torch

import oar

NAN, INF = float("nan"), float("inf")
SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1.5, -2.5, 1e30]


def t(v, dtype="float64"):
    return oar.to_tensor(np.asarray(v, dtype=dtype))


def eq(got, want):
    """Same dtype and values (NaN equal to NaN, signed zeros alike)."""
    want = want.numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    g = got.numpy()
    assert str(g.dtype) == str(want.dtype), (g.dtype, want.dtype)
    np.testing.assert_array_equal(g, want)


# ---- NaN and infinities against torch ---------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "logical_not"])
def test_value_tests_on_special_values(name, dtype):
    a = np.array(SPECIAL, dtype=dtype)
    eq(getattr(oar, name)(oar.to_tensor(a)), getattr(torch, name)(torch.tensor(a)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_to_num_defaults_and_values(dtype):
    a = np.array(SPECIAL, dtype=dtype)
    x, tx = oar.to_tensor(a), torch.tensor(a)
    eq(oar.nan_to_num(x), torch.nan_to_num(tx))
    eq(x.nan_to_num(nan=1.0, posinf=2.0), torch.nan_to_num(tx, nan=1.0, posinf=2.0))
    eq(oar.nan_to_num(x, neginf=-7.0), torch.nan_to_num(tx, neginf=-7.0))
    # an infinite replacement is taken as given (it was read as "the default")
    eq(oar.nan_to_num(x, 3.0, INF, -INF), torch.nan_to_num(tx, 3.0, INF, -INF))
    y = x.clone()
    assert oar.nan_to_num_(y, posinf=oar.to_tensor(3.0)) is y
    eq(y, torch.nan_to_num(tx, posinf=3.0))


def test_nan_to_num_gradient_is_zero_at_non_finite_values():
    x = oar.to_tensor([NAN, 1.0, INF, -INF, 2.0], stop_gradient=False)
    (g,) = oar.grad([oar.nan_to_num(x).sum()], [x])
    eq(g, np.array([0.0, 1.0, 0.0, 0.0, 1.0], np.float32))


def test_nan_to_num_float16_and_integers():
    x = oar.to_tensor(np.array([NAN, INF, -INF], np.float16))
    eq(oar.nan_to_num(x), np.array([0.0, 65504.0, -65504.0], np.float16))
    b = oar.to_tensor(np.array([NAN, INF, -INF], np.float32)).astype("bfloat16")
    eq(oar.nan_to_num(b).astype("float32"), np.array([0.0, 3.3895313892515355e38,
                                                      -3.3895313892515355e38], np.float32))
    eq(oar.nan_to_num(t([1, 2], "int64")), np.array([1, 2], np.int64))


@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_allclose_special_values(equal_nan):
    a = np.array([NAN, INF, -INF, INF, 1.0, 1.0, NAN])
    b = np.array([NAN, INF, -INF, -INF, INF, 1.0 + 1e-9, 1.0])
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    want = torch.isclose(torch.tensor(a), torch.tensor(b), equal_nan=equal_nan)
    eq(oar.isclose(x, y, equal_nan=equal_nan), want)
    eq(x.isclose(y, equal_nan=equal_nan), want)
    got = oar.allclose(x[:3], y[:3], equal_nan=equal_nan)
    assert got.shape == [] and got.dtype == oar.bool
    assert bool(got) == torch.allclose(torch.tensor(a[:3]), torch.tensor(b[:3]),
                                       equal_nan=equal_nan)


def test_any_all_with_nan_and_axes():
    a = np.array([[NAN, 0.0], [0.0, 0.0]])
    eq(oar.any(oar.to_tensor(a), axis=1), torch.any(torch.tensor(a), dim=1))
    eq(oar.all(oar.to_tensor(a), axis=0, keepdim=True),
       torch.all(torch.tensor(a), dim=0, keepdim=True))
    x = oar.to_tensor(np.ones((2, 3), bool))
    eq(x.all(axis=-1), np.array([True, True]))
    eq(oar.any(x, axis=[0, 1]), np.array(True))
    eq(oar.all(x, axis=None), np.array(True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["square", "rsqrt", "reciprocal", "log1p", "expm1", "log2",
                                  "log10", "erf", "erfinv", "tan", "asin", "acos", "atan",
                                  "sinh", "cosh", "asinh", "acosh", "atanh", "ceil", "trunc",
                                  "round"])
def test_unary_math_on_special_values(name, dtype):
    a = np.array(SPECIAL + [1.0, -1.0, 0.5, 2.0], dtype=dtype)
    with np.errstate(all="ignore"):
        want = getattr(torch, name)(torch.tensor(a))
    got = getattr(oar, name)(oar.to_tensor(a))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6 if dtype == "float32"
                               else 1e-12, equal_nan=True, err_msg=name)


def test_erfinv_tails_and_round_trip():
    y = np.array([-1.0, -0.9999999999, -1e-300, 1e-12, 0.3, 0.999999999999, 1.0, 1.5])
    got = oar.erfinv(oar.to_tensor(y)).numpy()
    want = torch.erfinv(torch.tensor(y)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    inner = y[1:-2]
    np.testing.assert_allclose([math.erf(v) for v in got[1:-2]], inner, rtol=1e-15)


def test_round_halves_to_even_with_decimals():
    x = t([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    eq(oar.round(x), np.array([-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]))
    eq(x.round(decimals=-1), torch.round(torch.tensor(x.numpy()), decimals=-1))
    y = t([1.23456, -7.891])
    eq(oar.round(y, 3), torch.round(torch.tensor(y.numpy()), decimals=3))


# ---- floor_divide, remainder and their operators ------------------------------------------
def test_integer_floor_divide_and_remainder_follow_python():
    a = np.array([7, -7, 7, -7, 0, 1, -1, 9], np.int64)
    b = np.array([2, 2, -2, -2, 3, -5, 5, -4], np.int64)
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    eq(x // y, np.array([p // q for p, q in zip(a.tolist(), b.tolist())], np.int64))
    eq(x % y, np.array([p % q for p, q in zip(a.tolist(), b.tolist())], np.int64))
    eq(oar.floor_divide(x, y), torch.floor_divide(torch.tensor(a), torch.tensor(b)))
    eq(x.remainder(y), torch.remainder(torch.tensor(a), torch.tensor(b)))


def test_integer_division_overflow_wraps_instead_of_trapping():
    lo = np.iinfo(np.int64).min
    x, y = t([lo, lo], "int64"), t([-1, 1], "int64")
    eq(x // y, np.array([lo, lo], np.int64))
    eq(x % y, np.array([0, 0], np.int64))


@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
def test_integer_division_by_zero_is_a_value_error(op):
    with pytest.raises(ValueError, match=rf"{op}\(\): argument 'y' holds a zero"):
        getattr(oar, op)(t([1, 2], "int32"), t([1, 0], "int32"))
    # floats divide by zero as IEEE does
    a = np.array([1.0, -1.0, 0.0])
    want = getattr(torch, op)(torch.tensor(a), torch.zeros(3))
    np.testing.assert_array_equal(getattr(oar, op)(oar.to_tensor(a), t([0.0, 0.0, 0.0])).numpy(),
                                  want.numpy())


def test_float_floor_divide_matches_python_at_exact_quotients():
    a = [1.0, -1.0, 0.3, -0.3, 7.5, -7.5, 1e-300, 5.0, -0.0]
    b = [0.1, 0.1, 0.1, 0.1, 2.5, 2.5, 3.0, -0.5, 2.0]
    got = (t(a) // t(b)).numpy()
    ta, tb = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
    np.testing.assert_array_equal(got, torch.floor_divide(ta, tb).numpy())
    np.testing.assert_array_equal((t(a) % t(b)).numpy(), torch.remainder(ta, tb).numpy())


@pytest.mark.parametrize("sym", ["//", "%"])
def test_division_operators_with_scalars_and_in_place(sym):
    f = {"//": lambda p, q: p // q, "%": lambda p, q: p % q}[sym]
    a = np.array([[5.5, -3.25, 7.0], [-8.0, 2.5, 0.75]])
    x, tx = oar.to_tensor(a), torch.tensor(a)
    np.testing.assert_allclose(f(x, 2.0).numpy(), f(tx, 2.0).numpy())
    np.testing.assert_allclose(f(3.0, x).numpy(), f(3.0, tx).numpy())
    np.testing.assert_allclose(f(x, oar.to_tensor([1.5, -2.0, 4.0])).numpy(),
                               f(tx, torch.tensor([1.5, -2.0, 4.0])).numpy())
    i = t([7, -7, 9], "int64")
    eq(f(i, 2), np.array([f(v, 2) for v in (7, -7, 9)], np.int64))
    eq(f(11, i), np.array([f(11, v) for v in (7, -7, 9)], np.int64))
    assert f(i, 2.0).dtype == oar.float32  # a float scalar makes integers float32 (Paddle)
    y = x.clone()
    z = y
    if sym == "//":
        z //= 2.0
    else:
        z %= 2.0
    assert z is y
    np.testing.assert_allclose(y.numpy(), f(tx, 2.0).numpy())
    with pytest.raises(TypeError, match="cannot be written in place"):
        j = t([1, 2], "int64")
        if sym == "//":
            j //= 1.5
        else:
            j %= 1.5


def test_remainder_gradients_and_floor_divide_is_not_differentiable():
    x = oar.to_tensor([5.5, -3.25], stop_gradient=False)
    y = oar.to_tensor([2.0, 1.5], stop_gradient=False)
    gx, gy = oar.grad([(x % y).sum()], [x, y])
    eq(gx, np.array([1.0, 1.0], np.float32))
    eq(gy, np.array([-2.0, 3.0], np.float32))
    assert (x // y).stop_gradient


# ---- bitwise and logical ops ------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_bitwise_operators(dtype):
    rng = np.random.default_rng(4)
    a = rng.integers(-50, 50, (2, 3)).astype(dtype)
    b = rng.integers(-50, 50, (3,)).astype(dtype)
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    for sym, f in [("&", np.bitwise_and), ("|", np.bitwise_or), ("^", np.bitwise_xor)]:
        eq(eval(f"x {sym} y"), f(a, b))  # noqa: S307
        eq(eval(f"y {sym} x"), f(b, a))  # noqa: S307
    eq(~x, np.invert(a))
    s = True if dtype == "bool" else 6
    eq(x & s, np.bitwise_and(a, np.asarray(s, dtype)))
    eq(s | x, np.bitwise_or(np.asarray(s, dtype), a))
    z = x.clone()
    w = z
    w &= y
    w |= oar.to_tensor(b)
    w ^= s
    assert w is z
    eq(z, np.bitwise_xor(np.bitwise_or(np.bitwise_and(a, b), b), np.asarray(s, dtype)))


def test_bitwise_in_place_functions_and_methods():
    x = t([12, -1, 5], "int64")
    assert oar.bitwise_and_(x, t([10, 6, 3], "int64")) is x
    eq(x, np.array([8, 6, 1], np.int64))
    assert x.bitwise_not_() is x
    eq(x, np.array([-9, -7, -2], np.int64))
    b = oar.to_tensor([True, False])
    assert b.bitwise_xor_(oar.to_tensor([True, True])) is b
    eq(b, np.array([False, True]))


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_rejects_floats(name):
    with pytest.raises(TypeError, match=rf"{name}\(\): the kernel '{name}' is not registered "
                                        r"for float32 .*it supports: bool, int32, int64"):
        getattr(oar, name)(oar.to_tensor([1.0]), oar.to_tensor([1.0]))
    with pytest.raises(TypeError, match=rf"{name}\(\): the tensor inputs have different dtypes"):
        getattr(oar, name)(t([1], "int64"), t([1.0], "float64"))  # Paddle: no int/float mix
    with pytest.raises(TypeError, match=r"bitwise_not\(\): the kernel 'bitwise_not' is not "
                                        r"registered for float32"):
        ~oar.to_tensor([1.0])


def test_logical_ops_nan_and_shape_errors():
    a, b = np.array([0.0, 2.0, NAN]), np.array([3.0, 0.0, -0.0])
    for name in ("logical_and", "logical_or", "logical_xor"):
        eq(getattr(oar, name)(oar.to_tensor(a), oar.to_tensor(b)),
           getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    with pytest.raises(ValueError, match=r"logical_and\(\): the shapes of 'x' \[2\] and 'y' "
                                         r"\[3\] cannot be broadcast"):
        oar.logical_and(t([1.0, 2.0]), t([1.0, 2.0, 3.0]))


# ---- clip, lerp, heaviside, masked ops ----------------------------------------------------
def test_clip_bounds_none_numbers_and_tensors():
    a = np.array([-3.0, -0.5, 0.0, 0.5, 3.0, NAN])
    x, tx = oar.to_tensor(a), torch.tensor(a)
    eq(oar.clip(x), tx)
    eq(oar.clip(x, min=-1.0), torch.clamp(tx, min=-1.0))
    eq(x.clip(max=1), torch.clamp(tx, max=1.0))
    eq(oar.clip(x, oar.to_tensor(-1.0), oar.to_tensor([2.0])), torch.clamp(tx, -1.0, 2.0))
    i = t([-5, 0, 7], "int64")
    eq(oar.clip(i, -2, 3), np.array([-2, 0, 3], np.int64))
    eq(i.clip(min=0), np.array([0, 0, 7], np.int64))
    y = x.clone()
    assert oar.clip_(y, 0.0, None) is y and y.clip_(max=1.0) is y
    eq(y, torch.clamp(tx, 0.0, 1.0))
    with pytest.raises(TypeError, match=r"clip\(\): argument 'min' must be a number"):
        oar.clip(x, "a")
    with pytest.raises(ValueError, match=r"clip\(\): argument 'max' must be a number or a "
                                         r"one-element Tensor"):
        oar.clip(x, 0.0, oar.to_tensor([1.0, 2.0]))


def test_clip_nan_bound_gives_nan():
    a = np.array([-1.0, 0.5, 3.0])
    for lo, hi in [(NAN, 1.0), (0.0, NAN)]:
        eq(oar.clip(oar.to_tensor(a), lo, hi), torch.clamp(torch.tensor(a), lo, hi))


def test_clip_double_gradient():
    x = oar.to_tensor([-2.0, 0.5, 3.0], stop_gradient=False)
    (g,) = oar.grad([(oar.clip(x, -1.0, 1.0) ** 2).sum()], [x], create_graph=True)
    eq(g, np.array([0.0, 1.0, 0.0], np.float32))
    (gg,) = oar.grad([g.sum()], [x])
    eq(gg, np.array([0.0, 2.0, 0.0], np.float32))


def test_lerp_weight_number_or_tensor():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([3.0, 4.0, 7.0])
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    eq(oar.lerp(x, y, 0.25), torch.lerp(torch.tensor(a), torch.tensor(b), 0.25))
    w = np.array([0.0, 0.5, 1.0])
    eq(x.lerp(y, oar.to_tensor(w)), torch.lerp(torch.tensor(a), torch.tensor(b),
                                               torch.tensor(w)))
    assert oar.lerp_(x, y, 1.0) is x
    eq(x, b)
    with pytest.raises(ValueError, match=r"lerp\(\): the shapes of 'x and y' \[3\] and 'weight' "
                                         r"\[2\] cannot be broadcast"):
        oar.lerp(x, y, t([0.5, 0.5]))
    with pytest.raises(TypeError, match=r"lerp\(\): argument 'weight' must be a number"):
        oar.lerp(x, y, "a")


def test_heaviside_gradient_flows_to_y_only_at_zeros():
    x = oar.to_tensor([-1.0, 0.0, 2.0, 0.0], stop_gradient=False)
    y = oar.to_tensor([0.5, 0.25, 0.5, 0.75], stop_gradient=False)
    out = oar.heaviside(x, y)
    eq(out, np.array([0.0, 0.25, 1.0, 0.75], np.float32))
    gx, gy = oar.grad([out.sum()], [x, y], allow_unused=True)
    assert gx is None
    eq(gy, np.array([0.0, 1.0, 0.0, 1.0], np.float32))


def test_masked_fill_value_forms_and_errors():
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([True, False, True])
    x = oar.to_tensor(a)
    want = torch.masked_fill(torch.tensor(a), torch.tensor(m), -1.0)
    eq(oar.masked_fill(x, oar.to_tensor(m), -1), want)
    eq(x.masked_fill(oar.to_tensor(m), oar.to_tensor(-1.0, dtype="float32")), want)
    xi = t([1, 2, 3], "int64")
    eq(xi.masked_fill(oar.to_tensor(m), 9), np.array([9, 2, 9], np.int64))
    v = oar.to_tensor(2.0, dtype="float64", stop_gradient=False)
    xg = oar.to_tensor(a, stop_gradient=False)
    out = oar.masked_fill(xg, oar.to_tensor(m), v)
    gx, gv = oar.grad([out.sum()], [xg, v])
    eq(gx, np.where(m, 0.0, 1.0) * np.ones((2, 3)))
    eq(gv, np.array(4.0))
    y = x.clone()
    assert y.masked_fill_(oar.to_tensor(m), 0.5) is y
    with pytest.raises(TypeError, match=r"masked_fill\(\): argument 'mask' must be a bool "
                                        r"tensor, but got float64"):
        oar.masked_fill(x, x, 0.0)
    with pytest.raises(ValueError, match=r"masked_fill\(\): argument 'value' must be a number "
                                         r"or a 0-d tensor"):
        oar._C.masked_fill(x, oar.to_tensor(m), t([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"masked_fill\(\): the shapes of 'x' \[2, 3\] and "
                                         r"'mask' \[2\] cannot be broadcast"):
        oar.masked_fill(x, oar.to_tensor([True, False]), 0.0)
    with pytest.raises(ValueError, match=r"masked_fill_\(\): the in-place result has shape"):
        oar.masked_fill_(t([1.0, 2.0, 3.0]), oar.to_tensor(np.ones((2, 3), bool)), 0.0)


def test_masked_select_double_gradient_and_errors():
    a = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    x = oar.to_tensor(a, stop_gradient=False)
    m = oar.to_tensor(a > 0)
    out = oar.masked_select(x, m)
    eq(out, a[a > 0])
    (g,) = oar.grad([(out * out).sum()], [x], create_graph=True)
    eq(g, np.where(a > 0, 2 * a, 0.0))
    (gg,) = oar.grad([g.sum()], [x])
    eq(gg, np.where(a > 0, 2.0, 0.0))
    with pytest.raises(TypeError, match=r"masked_select\(\): argument 'mask' must be a bool"):
        oar.masked_select(x, x)
    with pytest.raises(ValueError, match=r"masked_select\(\): the shapes of 'x' \[2, 3\] and "
                                         r"'mask' \[2\]"):
        x.masked_select(oar.to_tensor([True, False]))
    with pytest.raises(ValueError, match=r"masked_select_grad\(\): argument 'grad_out' has 2 "
                                         r"elements but 'mask' selects 4"):
        oar._C.masked_select_grad(x, m, t([1.0, 2.0]))


# ---- tolerances, reductions, equal_all --------------------------------------------------
@pytest.mark.parametrize("name", ["isclose", "allclose"])
def test_negative_tolerances_are_value_errors(name):
    x = t([1.0])
    with pytest.raises(ValueError, match=rf"{name}\(\): argument 'rtol' must be >= 0, but got -1"):
        getattr(oar, name)(x, x, rtol=-1.0)
    with pytest.raises(ValueError, match=rf"{name}\(\): argument 'atol' must be >= 0"):
        getattr(oar, name)(x, x, atol=-1e-3)


@pytest.mark.parametrize("name", ["all", "any"])
def test_reduction_axis_errors(name):
    x = oar.to_tensor(np.ones((2, 3), bool))
    with pytest.raises(IndexError, match=rf"{name}\(\): .*axis"):
        getattr(oar, name)(x, axis=2)


def test_equal_all_shapes_and_dtypes():
    eq(oar.equal_all(t([1, 2], "int64"), t([1, 2], "int64")), np.array(True))
    eq(oar.equal_all(t([1, 2], "int64"), t([[1, 2]], "int64")), np.array(False))
    eq(t([1.0, NAN]).equal_all(t([1.0, NAN])), np.array(False))


def test_float_only_math_on_integers_and_in_place_dtype_errors():
    # integers compute in float32, as in torch (float32's libm: a few ulps apart)
    for name, args in [("tan", ([0, 1, -2],)), ("erf", ([0, 1, -2],)), ("expm1", ([0, 1, -2],)),
                       ("atan2", ([1, -1, 0], [1, 1, -3]))]:
        got = getattr(oar, name)(*[t(a, "int32") for a in args])
        want = getattr(torch, name)(*[torch.tensor(a, dtype=torch.int32) for a in args])
        assert got.dtype == oar.float32, name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=name)
    with pytest.raises(TypeError, match=r"rsqrt_\(\): the kernel 'rsqrt' is not registered "
                                        r"for int64"):
        oar.rsqrt_(t([1, 4], "int64"))
    with pytest.raises(TypeError, match=r"lerp\(\): the kernel 'lerp' is not registered for int64"):
        oar.lerp(t([1], "int64"), t([2], "int64"), 1)


def test_a_complex_weight_or_value_for_a_real_x_is_refused():
    # It was cast to x's dtype, silently dropping its imaginary part (the fuzzer's lerp).
    x = oar.to_tensor([-1.07], dtype="float64")
    w = oar.to_tensor([-2.21 + 1.55j])
    with pytest.raises(TypeError, match=r"lerp\(\): argument 'weight' is complex64 but x is "
                                        r"float64"):
        oar.lerp(x, x, w)
    with pytest.raises(TypeError, match=r"masked_fill\(\): argument 'value' is complex64"):
        oar.masked_fill(x, oar.to_tensor([True]), oar.to_tensor(1j))
    # a complex x takes a complex value, and a real one is cast up
    xc = oar.to_tensor([1 + 1j, 2j])
    np.testing.assert_allclose(oar.masked_fill(xc, oar.to_tensor([True, False]),
                                               oar.to_tensor(-1j)).numpy(), [-1j, 2j])
    np.testing.assert_allclose(oar.masked_fill(xc, oar.to_tensor([False, True]),
                                               oar.to_tensor(3.0)).numpy(), [1 + 1j, 3])


# ---- bool arithmetic edge cases, as Paddle 3.3.1 --------------------------------------------
# Every expected value below was measured on Paddle 3.3.1 (CPU).
def _b(v):
    return oar.to_tensor(v, dtype="bool")


def test_negating_bool_is_the_identity_as_paddle():
    """Paddle: -x and paddle.neg(x) of bool are bool with x's values (-True is nonzero,
    i.e. True); neg_ too."""
    b = _b([True, False, True])
    for out in (-b, oar.neg(b), b.neg()):
        assert out.dtype == oar.bool_ and out.tolist() == [True, False, True]
    assert (-_b(True)).tolist() is True
    c = _b([True, False])
    assert c.neg_() is c and c.tolist() == [True, False]
    # the small integer dtypes wrap, as Paddle's
    assert (-oar.to_tensor([1, 2], dtype="uint8")).tolist() == [255, 254]
    assert (-oar.to_tensor([1, -2], dtype="int8")).tolist() == [-1, 2]


def test_bool_divided_by_bool_is_float32_as_paddle_documents():
    """Paddle 3.3.1 computes bool / bool (and bool / True) in bool: x where the divisor is
    True, and a False divisor raises "Integer division by zero". Its documentation says
    divide never returns a dtype smaller than float (the Divide Rule of "Introduction to
    Data Type Promotion"): oar follows the documentation, float32 with 0 / 0 NaN."""
    t, tf = _b([True, True]), _b([True, False])
    for out in (t / t, tf / t, oar.divide(tf, t), tf / _b(True), tf / True, True / t):
        assert out.dtype == oar.float32
    assert (tf / t).tolist() == [1.0, 0.0]
    r = (tf / tf).tolist()
    assert r[0] == 1.0 and math.isnan(r[1])
    out = tf / 1  # Paddle: float32 [1.0, 0.0]
    assert out.dtype == oar.float32 and out.tolist() == [1.0, 0.0]
    with pytest.raises(TypeError):  # Paddle: TypeError too
        tf / oar.to_tensor([1, 2], dtype="int32")


def test_bool_arithmetic_with_python_numbers_as_paddle():
    b = _b([True, False])
    cases = [
        (b * True, "bool", [True, False]),
        (b * b, "bool", [True, False]),
        (b + True, "bool", [True, True]),
        (b + 1, "int64", [2, 1]),
        (b ** 2, "int64", [1, 0]),
        (b // 1, "int64", [1, 0]),
        (b % 2, "int64", [1, 0]),
        (b / 2, "float32", [0.5, 0.0]),
        (b * 2, "int64", [2, 0]),
    ]
    for out, dtype, values in cases:
        assert out.dtype.name == dtype and out.tolist() == values
    for f in (lambda: b - b, lambda: b - True, lambda: b // b, lambda: b % b, lambda: b ** b,
              lambda: oar.abs(b)):
        with pytest.raises(TypeError):  # Paddle: no bool kernel either
            f()
