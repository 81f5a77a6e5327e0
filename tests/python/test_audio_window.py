"""oar.audio.functional.window's torch-style constructors (hann_window & co.): values,
signatures and errors. Expected values were produced by Paddle 3.3.1 (CPU build) on the
same inputs and are hard-coded here (Paddle is not installed in CI); the windows are also
checked against scipy.signal.get_window, which Paddle's float64 windows match to 1e-15."""
import numpy as np
import pytest
import scipy.signal

import oar
from oar.audio.functional import window as W

CONSTRUCTORS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                "kaiser_window"]


SCIPY_NAME = {"hann_window": "hann", "hamming_window": "hamming",
              "blackman_window": "blackman", "bartlett_window": "bartlett"}


# ---- windows ---------------------------------------------------------------------------------
# Paddle 3.3.1's paddle.audio.functional.window.<name>(n, periodic, dtype="float64", **kw)
PADDLE_F64 = [
    ("hann_window", 5, True, {}, [0.0, 0.34549150281252633, 0.9045084971874737,
                                  0.9045084971874737, 0.34549150281252633]),
    ("hann_window", 5, False, {}, [0.0, 0.5, 1.0, 0.5, 0.0]),
    ("hamming_window", 5, True, {}, [0.08000000000000007, 0.3978521825875243,
                                     0.9121478174124759, 0.9121478174124759,
                                     0.3978521825875243]),
    ("hamming_window", 5, False, {"alpha": 0.6, "beta": 0.3},
     [0.30000000000000004, 0.6, 0.8999999999999999, 0.6, 0.30000000000000004]),
    # one sample: Paddle's affine map of the standard window gives alpha + beta
    ("hamming_window", 1, True, {"alpha": 0.6, "beta": 0.3}, [0.8999999999999999]),
    ("blackman_window", 5, True, {}, [-1.3877787807814457e-17, 0.2007701432625305,
                                      0.8492298567374694, 0.8492298567374694,
                                      0.2007701432625305]),
    ("bartlett_window", 5, True, {}, [0.0, 0.4, 0.8, 0.8, 0.3999999999999999]),
    ("bartlett_window", 5, False, {}, [0.0, 0.5, 1.0, 0.5, 0.0]),
    ("kaiser_window", 5, True, {}, [5.2773441320097665e-05, 0.10171968770956323,
                                    0.7929398341014605, 0.7929398341014605,
                                    0.10171968770956323]),
    ("kaiser_window", 5, False, {"beta": 8.6}, [0.0013325139979024198, 0.34039362244018856,
                                                1.0, 0.34039362244018856,
                                                0.0013325139979024198]),
]


@pytest.mark.parametrize("name,n,periodic,kw,want", PADDLE_F64)
def test_windows_match_paddle_float64(name, n, periodic, kw, want):
    got = getattr(W, name)(n, periodic, dtype="float64", **kw)
    assert got.dtype == oar.float64 and got.shape == [n]
    np.testing.assert_allclose(got.numpy(), want, rtol=0, atol=1e-15)


def test_kaiser_float32_is_within_paddles_rounding():
    # Paddle computes float32 windows in float32 (its I0 in float32 is off by up to ~30
    # ulps); oar rounds the float64 window once.
    paddle_f32 = [5.2773437346331775e-05, 0.03276829048991203, 0.3308985233306885,
                  0.8888683915138245, 0.8888683915138245, 0.3308985233306885,
                  0.03276829048991203]
    got = W.kaiser_window(7)
    assert got.dtype == oar.float32
    np.testing.assert_allclose(got.numpy(), paddle_f32, rtol=0, atol=2e-6)


@pytest.mark.parametrize("name", CONSTRUCTORS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, 16, 31, 400, 512])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_scipy(name, n, periodic):
    window = ("kaiser", 12.0) if name == "kaiser_window" else SCIPY_NAME[name]
    want = scipy.signal.get_window(window, n, fftbins=periodic) if n else np.zeros(0)
    f64 = getattr(W, name)(n, periodic, dtype="float64")
    np.testing.assert_allclose(f64.numpy(), want, rtol=0, atol=2e-15)
    f32 = getattr(W, name)(n, periodic)  # float32 by default, as in Paddle
    assert f32.dtype == oar.float32 and f32.shape == [n]
    np.testing.assert_array_equal(f32.numpy(), f64.numpy().astype(np.float32))


def test_short_windows_are_ones():
    for name in CONSTRUCTORS:
        for periodic in (True, False):
            assert getattr(W, name)(0, periodic).shape == [0]
            np.testing.assert_array_equal(getattr(W, name)(1, periodic).numpy(), [1.0])


def test_hamming_alpha_beta_and_kaiser_beta():
    n = np.arange(8)
    got = W.hamming_window(8, alpha=0.5, beta=0.5, dtype="float64").numpy()
    np.testing.assert_allclose(got, 0.5 - 0.5 * np.cos(2 * np.pi * n / 8), atol=1e-15)
    np.testing.assert_allclose(got, W.hann_window(8, dtype="float64").numpy(), atol=1e-15)
    got = W.hamming_window(8, False, 0.6, 0.3, dtype="float64").numpy()
    np.testing.assert_allclose(got, 0.6 - 0.3 * np.cos(2 * np.pi * n / 7), atol=1e-15)
    np.testing.assert_allclose(W.kaiser_window(9, False, beta=5, dtype="float64").numpy(),
                               np.kaiser(9, 5), atol=1e-15)
    np.testing.assert_array_equal(W.kaiser_window(4, beta=0.0).numpy(), np.ones(4))


def test_window_signatures_and_keywords():
    import inspect
    for name in CONSTRUCTORS:
        params = inspect.signature(getattr(W, name)).parameters
        assert list(params)[:2] == ["window_length", "periodic"]
        assert params["periodic"].default is True
        for kw, default in (("dtype", "float32"), ("layout", None), ("device", None),
                            ("pin_memory", False), ("requires_grad", False)):
            assert params[kw].kind is inspect.Parameter.KEYWORD_ONLY
            assert params[kw].default == default
    assert inspect.signature(W.hamming_window).parameters["alpha"].default == 0.54
    assert inspect.signature(W.hamming_window).parameters["beta"].default == 0.46
    assert inspect.signature(W.kaiser_window).parameters["beta"].default == 12.0
    assert W.hann_window(4).stop_gradient
    assert not W.hann_window(4, requires_grad=True).stop_gradient
    assert W.hann_window(4, dtype=oar.float64).dtype == oar.float64
    assert W.hann_window(4, dtype=np.float64).dtype == oar.float64
    assert W.hann_window(np.int64(4), device="cpu").shape == [4]
    with pytest.warns(UserWarning, match="layout"):
        W.blackman_window(4, layout="strided")
    # the same table as get_window (whose default dtype is float64)
    np.testing.assert_array_equal(W.hann_window(6, False, dtype="float64").numpy(),
                                  oar.audio.functional.get_window("hann", 6, False).numpy())


@pytest.mark.parametrize("name", CONSTRUCTORS)
def test_window_errors(name):
    f = getattr(W, name)
    with pytest.raises(ValueError, match=rf"{name}\(\): argument 'window_length'"):
        f(-1)
    for bad in (2.5, 2.0, True, "4", None):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'window_length'"):
            f(bad)
    for bad in ("int32", "float16", "complex64", "nonsense", 3):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'dtype'"):
            f(4, dtype=bad)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'periodic'"):
        f(4, periodic=None)
    with pytest.raises(ValueError, match="pin_memory"):
        f(4, pin_memory=True)
    with pytest.raises(ValueError, match="device"):
        f(4, device="gpu")


def test_window_parameter_errors():
    with pytest.raises(TypeError, match=r"kaiser_window\(\): argument 'beta'"):
        W.kaiser_window(4, beta="8")
    with pytest.raises(TypeError, match=r"hamming_window\(\): argument 'alpha'"):
        W.hamming_window(4, alpha=None)
    with pytest.raises(TypeError, match=r"hamming_window\(\): argument 'beta'"):
        W.hamming_window(4, beta=True)
