"""oar.fft against torch.fft and numpy.fft: every public function, norms, lengths, axes,
gradients (first and second order), the four-step route of long transforms, empty
inputs and the error paths. The three ops underneath are also checked case by case by
the op registry (tests/op_cases/fft.yaml)."""
import numpy as np
import pytest
import torch

import oar

RNG = np.random.default_rng(0)


def rand(shape, dtype="float64"):
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def close(a, b, tol=1e-10):
    a = a.numpy() if isinstance(a, oar.Tensor) else a
    b = b.detach().resolve_conj().numpy() if isinstance(b, torch.Tensor) else b
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=0, atol=tol * scale)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
REAL_IN = {"rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"}


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_one_dimensional_against_torch(name, norm):
    dt = "float64" if name in REAL_IN else "complex128"
    x = rand((3, 10), dt)
    for n, axis in [(None, -1), (7, -1), (12, 0), (None, 0)]:
        got = getattr(oar.fft, name)(oar.to_tensor(x), n=n, axis=axis, norm=norm)
        want = getattr(torch.fft, name)(torch.tensor(x), n=n, dim=axis, norm=norm)
        close(got, want)


@pytest.mark.parametrize("name", N_D + TWO_D)
def test_n_dimensional_against_torch(name):
    dt = "float64" if name in REAL_IN else "complex128"
    x = rand((4, 5, 6), dt)
    two = name.endswith("2")
    for s, axes in ([(None, (-2, -1)), ((3, 8), (0, 2)), ((6, 4), (2, 1))] if two else
                    [(None, None), ((3, 8), None), (None, (2, 0)), ((5, 7), (0, 1)), ((4,), (1,))]):
        for norm in ("backward", "ortho"):
            got = getattr(oar.fft, name)(oar.to_tensor(x), s=s, axes=axes, norm=norm)
            kw = {} if axes is None else {"dim": axes}
            want = getattr(torch.fft, name)(torch.tensor(x), s=s, norm=norm, **kw)
            close(got, want)


def test_real_and_integer_inputs_of_complex_transforms():
    x = rand((3, 8))
    close(oar.fft.fft(oar.to_tensor(x)), torch.fft.fft(torch.tensor(x)))
    close(oar.fft.ifftn(oar.to_tensor(x), axes=[0, 1]), torch.fft.ifftn(torch.tensor(x)))
    i = oar.to_tensor([[1, 2, 3], [4, 5, 6]])
    got = oar.fft.fft2(i)
    assert got.dtype == oar.complex64
    close(got, np.fft.fft2(np.array([[1, 2, 3], [4, 5, 6]])).astype(np.complex64), 1e-6)
    assert oar.fft.rfft(oar.to_tensor([1, 2, 3, 4])).dtype == oar.complex64
    f32 = oar.fft.fft(oar.to_tensor(x.astype("float32")))
    assert f32.dtype == oar.complex64
    close(f32, np.fft.fft(x), 1e-5)


def test_frequencies_and_shifts_against_numpy():
    for n, d in [(5, 0.5), (8, 1.0), (1, 3.0)]:
        close(oar.fft.fftfreq(n, d), np.fft.fftfreq(n, d).astype(np.float32), 1e-6)
        close(oar.fft.rfftfreq(n, d, dtype="float64"), np.fft.rfftfreq(n, d))
    x = rand((4, 5))
    for axes in [None, 0, (1,), (0, 1)]:
        close(oar.fft.fftshift(oar.to_tensor(x), axes=axes), np.fft.fftshift(x, axes=axes))
        close(oar.fft.ifftshift(oar.to_tensor(x), axes=axes), np.fft.ifftshift(x, axes=axes))
    assert oar.fft.fftfreq(4).dtype == oar.float32
    assert oar.fft.rfftfreq(4, dtype=oar.float64).dtype == oar.float64


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2",
                                  "rfftn", "irfftn", "hfftn", "ihfft2"])
def test_gradients_of_every_order_match_torch(name):
    dt = "float64" if name in REAL_IN else "complex128"
    x = rand((3, 6), dt)
    w = rand((3, 10), "complex128")
    xo = oar.to_tensor(x, stop_gradient=False)
    xt = torch.tensor(x, requires_grad=True)
    kw = {"n": 10} if name in ("irfft", "hfft") else {"s": (3, 10)} if name == "irfftn" else {}
    yo, yt = getattr(oar.fft, name)(xo, **kw), getattr(torch.fft, name)(xt, **kw)
    w = w[..., :yt.shape[-1]]
    if not yt.is_complex():
        w = w.real.copy()
    # a real loss that weighs every output entry differently
    lo = (oar.abs(yo * oar.to_tensor(w)) ** 2).sum()
    lt = ((yt * torch.tensor(w)).abs() ** 2).sum()
    (go,) = oar.grad(lo, xo, create_graph=True)
    (gt,) = torch.autograd.grad(lt, xt, create_graph=True)
    close(go, gt, 1e-9)
    if name in ("irfft", "hfft", "irfftn", "hfftn"):
        return  # torch's second derivative of c2r costs seconds on first use; the op
        # registry checks fft_c2r's second order (tests/op_cases/fft.yaml)
    # second order: the gradient of a real functional of the first gradient
    (ggo,) = oar.grad((oar.abs(go) ** 2).sum(), xo)
    (ggt,) = torch.autograd.grad((gt.abs() ** 2).sum(), xt)
    close(ggo, ggt, 1e-9)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_long_transforms_take_the_four_step_route(dtype):
    # 2^15 = 181 * 181 + ...: composite lengths from 2^15 up are split n1 x n2
    tol = 1e-12 if dtype == "complex128" else 2e-6
    for n in [1 << 15, 3 * 5 * 7 * 11 * 13 * 3]:
        x = rand((2, n), dtype)
        for forward in (True, False):
            f = oar.fft.fft if forward else oar.fft.ifft
            want = (np.fft.fft if forward else np.fft.ifft)(x.astype(np.complex128), axis=-1)
            close(f(oar.to_tensor(x)), want.astype(dtype), tol)
    # a strided (transposed) input, the long axis first, and an in-place second pass
    x = rand((1 << 15, 2), dtype)
    t = oar.to_tensor(x)
    close(oar.fft.fft(t, axis=0), np.fft.fft(x.astype(np.complex128), axis=0).astype(dtype), tol)
    close(oar.fft.fft2(t), np.fft.fft2(x.astype(np.complex128)).astype(dtype), tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_real_transforms_take_the_split_route(dtype):
    # Even lengths whose half is long enough for the four-step route run as a
    # complex transform of n/2 pairs plus a split pass (funcs/fft_real_split.h):
    # rfft, irfft, hfft and ihfft, every norm, batched, a transposed (strided)
    # input that falls back to pocketfft, an odd length (no split), and a
    # half spectrum whose X[0] and X[n/2] have imaginary parts c2r must ignore.
    tol = 1e-12 if dtype == "float64" else 2e-6
    cdt = "complex128" if dtype == "float64" else "complex64"
    for n in [1 << 16, 2 * 3 * 5 * 7 * 11 * 13 * 3, (1 << 16) + 1]:
        x = rand((2, n), dtype)
        x64 = x.astype(np.float64)
        for norm in ["backward", "ortho", "forward"]:
            spec = np.fft.rfft(x64, norm=norm)
            close(oar.fft.rfft(oar.to_tensor(x), norm=norm), spec.astype(cdt), tol)
            want = np.fft.ihfft(x64, norm=norm).astype(cdt)
            close(oar.fft.ihfft(oar.to_tensor(x), norm=norm), want, tol)
            c = rand((2, n // 2 + 1), cdt)
            for f, ref in [(oar.fft.irfft, np.fft.irfft), (oar.fft.hfft, np.fft.hfft)]:
                want = ref(c.astype(np.complex128), n=n, norm=norm).astype(dtype)
                close(f(oar.to_tensor(c), n=n, norm=norm), want, tol)
    x = rand((1 << 16, 2), dtype)
    want = np.fft.rfft(x.astype(np.float64), axis=0).astype(cdt)
    close(oar.fft.rfft(oar.to_tensor(x), axis=0), want, tol)
    close(oar.fft.rfft(oar.to_tensor(x).t()), np.fft.rfft(x.T.astype(np.float64)).astype(cdt), tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_long_real_transforms_bits_do_not_depend_on_threads(dtype):
    key = "FLAGS_parallel_threshold"
    old = oar.get_flags([key])[key]
    x = rand((1 << 17,), dtype)
    c = np.fft.rfft(x).astype("complex64" if dtype == "float32" else "complex128")
    for f, a in [(oar.fft.rfft, x), (oar.fft.irfft, c)]:
        try:
            oar.set_flags({key: 1 << 62})
            want = _bits(f(oar.to_tensor(a)))
            oar.set_flags({key: 1})
            assert _bits(f(oar.to_tensor(a))) == want
        finally:
            oar.set_flags({key: old})


def _bits(t):
    return np.ascontiguousarray(t.numpy()).view(np.uint8).tobytes()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_four_step_bits_do_not_depend_on_threads_or_layout(dtype):
    # The four-step's column and row blocks are fixed by the length alone, and every
    # column sits in a SIMD lane whatever its block: serial, split over every thread,
    # a strided view and a contiguous copy give the same bits. 45045 = 231 x 195
    # leaves partial blocks and lane groups on both axes.
    key = "FLAGS_parallel_threshold"
    old = oar.get_flags([key])[key]
    for n in [1 << 16, 3 * 5 * 7 * 11 * 13 * 3]:
        x = rand((n, 2), dtype)
        for f in (oar.fft.fft, oar.fft.ifft):
            try:
                oar.set_flags({key: 1 << 62})
                want = _bits(f(oar.to_tensor(np.ascontiguousarray(x[:, 1]))))
                oar.set_flags({key: 1})
                assert _bits(f(oar.to_tensor(np.ascontiguousarray(x[:, 1])))) == want
                assert _bits(f(oar.to_tensor(x)[:, 1])) == want
            finally:
                oar.set_flags({key: old})


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_2d_bits_do_not_depend_on_threads(dtype):
    # The passes along one axis are split into groups of 16 signals (whole SIMD
    # batches of pocketfft, whatever the vector width); 257 and 203 leave partial
    # groups. Serial and split over every thread give the same bits.
    key = "FLAGS_parallel_threshold"
    old = oar.get_flags([key])[key]
    x = rand((203, 257), dtype)
    c = np.fft.rfft2(x).astype("complex64" if dtype == "float32" else "complex128")
    cases = [(oar.fft.rfft2, x), (oar.fft.irfft2, c), (oar.fft.fft2, c), (oar.fft.ifft2, c)]
    for f, a in cases:
        try:
            oar.set_flags({key: 1 << 62})
            want = _bits(f(oar.to_tensor(a)))
            oar.set_flags({key: 1})
            assert _bits(f(oar.to_tensor(a))) == want, f.__name__
        finally:
            oar.set_flags({key: old})


def test_prime_and_odd_lengths():
    for n in [1, 2, 3, 17, 97, 65537]:
        x = rand((n,), "complex128")
        close(oar.fft.fft(oar.to_tensor(x)), np.fft.fft(x), 1e-10)
        r = rand((n,))
        close(oar.fft.rfft(oar.to_tensor(r)), np.fft.rfft(r), 1e-10)
        close(oar.fft.irfft(oar.to_tensor(np.fft.rfft(r)), n=n), r, 1e-10)


def test_views_and_broadcast_inputs_are_read_in_place():
    base = rand((6, 8), "complex128")
    t = oar.to_tensor(base)
    close(oar.fft.fft(t[::2]), np.fft.fft(base[::2]))
    close(oar.fft.fft(oar.flip(t, [1]), axis=0), np.fft.fft(base[:, ::-1], axis=0))
    e = oar.expand(oar.to_tensor(base[:1]), [4, 8])
    close(oar.fft.fftn(e), np.fft.fftn(np.broadcast_to(base[:1], (4, 8))))
    r = rand((5, 6))
    close(oar.fft.rfft(oar.t(oar.to_tensor(r))), np.fft.rfft(r.T))


def test_empty_batches():
    x = oar.zeros([0, 4], dtype="complex64")
    assert oar.fft.fft(x).shape == [0, 4]
    assert oar.fft.rfft(oar.zeros([0, 4])).shape == [0, 3]
    assert oar.fft.irfft(x).shape == [0, 6]
    assert oar.fft.fft(oar.zeros([2, 0, 3]), axis=2).shape == [2, 0, 3]


def test_errors():
    x = oar.to_tensor(rand((3, 4), "complex64"))
    with pytest.raises(ValueError, match="norm"):
        oar.fft.fft(x, norm="none")
    with pytest.raises(ValueError, match="'n' must be positive"):
        oar.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="axis"):
        oar.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="repeats"):
        oar.fft.fftn(x, axes=(0, -2))
    with pytest.raises(ValueError, match="same length"):
        oar.fft.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="at least 2 dims"):
        oar.fft.fft2(oar.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be a real tensor"):
        oar.fft.rfft(x)
    with pytest.raises(TypeError, match="float16"):
        oar.fft.fft(oar.ones([4], dtype="float16"))
    with pytest.raises(ValueError, match="2 \\* \\(m - 1\\)"):
        oar.fft.irfft(oar.to_tensor([1 + 0j]))
    with pytest.raises(ValueError, match="length 0"):
        oar.fft.fft(oar.zeros([0], dtype="complex64"))
    with pytest.raises(ValueError, match="nonzero"):
        oar.fft.fftfreq(0)
    with pytest.raises(TypeError, match="Tensor"):
        oar.fft.fft([1.0, 2.0])
    # the ops themselves
    with pytest.raises(TypeError, match="not registered for float32"):
        oar._C.fft_c2c(oar.ones([4]), [0], 0, True)
    with pytest.raises(ValueError, match="normalization"):
        oar._C.fft_c2c(x, [0], 3, True)
    with pytest.raises(IndexError):
        oar._C.fft_r2c(oar.ones([4]), [1], 0, True, True)
    with pytest.raises(ValueError, match="at least one axis"):
        oar._C.fft_r2c(oar.ones([4]), [], 0, True, True)
    with pytest.raises(ValueError, match="n / 2 \\+ 1"):
        oar._C.fft_c2r(x, [1], 0, False, 10)
    with pytest.raises(ValueError, match="last_dim_size"):
        oar._C.fft_c2r(x, [1], 0, False, -1)


def test_paddle_argument_aliases():
    x = rand((2, 6), "complex128")
    close(oar.fft.fft(input=oar.to_tensor(x), dim=0), np.fft.fft(x, axis=0))
    close(oar.fft.fftn(input=oar.to_tensor(x), dim=[1]), np.fft.fftn(x, axes=[1]))
    close(oar.fft.fftshift(input=oar.to_tensor(x), dim=1), np.fft.fftshift(x, axes=1))
