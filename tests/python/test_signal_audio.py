"""oar.signal (stft, istft, frame, overlap_add) against torch.stft/istft and numpy, and
oar.audio (functional, features, WAV I/O) against scipy, numpy and the librosa formulas
Paddle follows (torchaudio is not installed)."""
import math
import wave

import numpy as np
import pytest
import scipy.fft
import scipy.signal
import torch

import oar
from oar.audio import functional as AF

RNG = np.random.default_rng(1)


def close(a, b, tol=1e-10):
    a = a.numpy() if isinstance(a, oar.Tensor) else np.asarray(a)
    b = b.detach().resolve_conj().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=0, atol=tol * scale)


def hann(n):
    return np.hanning(n + 1)[:-1]  # periodic


# ---- stft / istft ------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [
    dict(n_fft=16),
    dict(n_fft=16, hop_length=5, center=False),
    dict(n_fft=16, hop_length=4, win_length=10, window="hann", pad_mode="constant"),
    dict(n_fft=15, hop_length=3, window="hann", normalized=True),
    dict(n_fft=16, window="hann", onesided=False),
])
def test_stft_matches_torch(kw):
    x = RNG.standard_normal((3, 100))
    kw = dict(kw)
    win = None
    if kw.pop("window", None):
        win = hann(kw.get("win_length", kw["n_fft"]))
    got = oar.signal.stft(oar.to_tensor(x), window=None if win is None else oar.to_tensor(win),
                          **kw)
    tkw = {"center": True, "pad_mode": "reflect", **kw}
    want = torch.stft(torch.tensor(x), window=torch.ones(kw["n_fft"], dtype=torch.float64) if win is None else torch.tensor(win),
                      return_complex=True, **tkw)
    close(got, want)
    one = oar.signal.stft(oar.to_tensor(x[0]), window=None if win is None else oar.to_tensor(win),
                          **kw)
    close(one, want[0])


def test_stft_of_complex_input_and_its_gradient():
    x = RNG.standard_normal((2, 64)) + 1j * RNG.standard_normal((2, 64))
    got = oar.signal.stft(oar.to_tensor(x), n_fft=16, center=False, onesided=False)
    want = torch.stft(torch.tensor(x), n_fft=16, center=False, onesided=False, return_complex=True)
    close(got, want)
    r = RNG.standard_normal((2, 64))
    w = hann(16)
    xo, xt = oar.to_tensor(r, stop_gradient=False), torch.tensor(r, requires_grad=True)
    so = oar.signal.stft(xo, 16, window=oar.to_tensor(w))
    st = torch.stft(xt, 16, window=torch.tensor(w), return_complex=True)
    (go,) = oar.grad((oar.abs(so) ** 2).sum(), xo)
    (gt,) = torch.autograd.grad((st.abs() ** 2).sum(), xt)
    close(go, gt, 1e-9)


@pytest.mark.parametrize("kw", [
    dict(n_fft=16, window=True),
    dict(n_fft=16, hop_length=3, win_length=12, window=True, length=90),
    dict(n_fft=16, window="hamming", center=False),
    dict(n_fft=16, window=True, onesided=False),
    dict(n_fft=16, window=True, normalized=True),
])
def test_istft_matches_torch_and_inverts_stft(kw):
    kw = dict(kw)
    name = kw.pop("window")
    x = RNG.standard_normal((2, 96))
    n = kw.get("win_length", kw["n_fft"])
    w = scipy.signal.get_window(name, n) if isinstance(name, str) else hann(n)
    skw = {k: v for k, v in kw.items() if k not in ("length",)}
    spec = torch.stft(torch.tensor(x), window=torch.tensor(w), return_complex=True, **skw)
    got = oar.signal.istft(oar.to_tensor(spec.numpy()), window=oar.to_tensor(w), **kw)
    want = torch.istft(spec, window=torch.tensor(w), **kw)
    close(got, want)
    if kw.get("center", True) and "length" not in kw:
        close(got, x[:, :got.shape[1]])


def test_istft_of_paddle_defaults_returns_the_signal():
    x = RNG.standard_normal((3, 400))
    y = oar.signal.stft(oar.to_tensor(x), n_fft=32)
    assert y.shape == [3, 17, 51]
    close(oar.signal.istft(y, n_fft=32), x)
    yc = oar.signal.stft(oar.to_tensor(x + 0j), n_fft=32, onesided=False)
    close(oar.signal.istft(yc, n_fft=32, onesided=False, return_complex=True), x + 0j)


def test_frame_and_overlap_add_against_numpy():
    x = RNG.standard_normal((2, 20))
    f = oar.signal.frame(oar.to_tensor(x), 6, 4)
    want = np.stack([x[:, i:i + 6] for i in range(0, 15, 4)], axis=-1)
    close(f, want)
    f0 = oar.signal.frame(oar.to_tensor(x.T), 6, 4, axis=0)
    close(f0, np.transpose(want, (2, 1, 0)))
    back = np.zeros((2, 18))
    for i in range(want.shape[-1]):
        back[:, 4 * i:4 * i + 6] += want[..., i]
    close(oar.signal.overlap_add(oar.to_tensor(want), 4), back)
    close(oar.signal.overlap_add(oar.to_tensor(np.transpose(want, (2, 1, 0))), 4, axis=0), back.T)


def test_signal_errors():
    x = oar.ones([2, 64])
    with pytest.raises(ValueError, match="1-D or 2-D"):
        oar.signal.stft(oar.ones([2, 2, 64]), 16)
    with pytest.raises(ValueError, match="win_length"):
        oar.signal.stft(x, 16, win_length=20)
    with pytest.raises(ValueError, match="window"):
        oar.signal.stft(x, 16, window=oar.ones([8]))
    with pytest.raises(ValueError, match="pad_mode"):
        oar.signal.stft(x, 16, pad_mode="circular")
    with pytest.raises(ValueError, match="n_fft"):
        oar.signal.stft(x, 100, center=False)
    with pytest.raises(ValueError, match="onesided"):
        oar.signal.stft(oar.ones([64], dtype="complex64"), 16, onesided=True)
    y = oar.signal.stft(x, 16)
    with pytest.raises(TypeError, match="complex"):
        oar.signal.istft(oar.ones([9, 17]), 16)
    with pytest.raises(ValueError, match="frequencies"):
        oar.signal.istft(y, 20)
    with pytest.raises(ValueError, match="hop_length"):
        oar.signal.istft(y, 16, hop_length=17)
    with pytest.raises(ValueError, match="NOLA"):
        oar.signal.istft(y, 16, hop_length=16, window=oar.to_tensor(np.hanning(16)))
    with pytest.raises(ValueError, match="return_complex"):
        oar.signal.istft(y, 16, return_complex=True)
    with pytest.raises(ValueError, match="frame_length"):
        oar.signal.frame(oar.ones([4]), 5, 1)


# ---- audio.functional --------------------------------------------------------------------------
def test_mel_scales_against_the_formulas():
    hz = np.array([0.0, 50.0, 700.0, 1000.0, 1500.0, 8000.0])
    # Slaney: linear below 1 kHz (3 mels per 200 Hz), log above with step ln(6.4)/27
    slaney = np.where(hz < 1000, hz * 3 / 200, 15 + np.log(hz / 1000 + 1e-10) / (np.log(6.4) / 27))
    close(AF.hz_to_mel(oar.to_tensor(hz)), slaney)
    close(AF.mel_to_hz(oar.to_tensor(slaney)), hz, 1e-8)
    close(AF.hz_to_mel(oar.to_tensor(hz), htk=True), 2595 * np.log10(1 + hz / 700))
    close(AF.mel_to_hz(AF.hz_to_mel(oar.to_tensor(hz), True), True), hz, 1e-9)
    assert AF.hz_to_mel(1000.0) == pytest.approx(15.0)
    assert AF.mel_to_hz(15.0) == pytest.approx(1000.0)
    assert AF.hz_to_mel(3.0, True) == pytest.approx(2595 * math.log10(1 + 3 / 700))
    m = AF.mel_frequencies(10, 20.0, 6000.0, htk=True, dtype="float64")
    close(m, 700 * (10 ** (np.linspace(2595 * np.log10(1 + 20 / 700),
                                       2595 * np.log10(1 + 6000 / 700), 10) / 2595) - 1), 1e-9)
    close(AF.fft_frequencies(16000, 8, dtype="float64"), np.linspace(0, 8000, 5))


def _fbank_reference(sr, n_fft, n_mels, fmin, fmax, htk):
    """librosa.filters.mel (slaney norm), written with numpy."""
    mel = lambda f: AF.hz_to_mel(float(f), htk)  # noqa: E731
    mels = np.linspace(mel(fmin), mel(fmax), n_mels + 2)
    freqs = np.array([AF.mel_to_hz(float(v), htk) for v in mels])
    fft = np.linspace(0, sr / 2, 1 + n_fft // 2)
    w = np.zeros((n_mels, fft.size))
    for i in range(n_mels):
        lo = (fft - freqs[i]) / (freqs[i + 1] - freqs[i])
        hi = (freqs[i + 2] - fft) / (freqs[i + 2] - freqs[i + 1])
        w[i] = np.maximum(0, np.minimum(lo, hi)) * 2.0 / (freqs[i + 2] - freqs[i])
    return w


@pytest.mark.parametrize("htk", [False, True])
def test_fbank_matrix_against_librosa_formula(htk):
    got = AF.compute_fbank_matrix(16000, 512, n_mels=40, f_min=30.0, htk=htk, dtype="float64")
    close(got, _fbank_reference(16000, 512, 40, 30.0, 8000.0, htk), 1e-9)
    p2 = AF.compute_fbank_matrix(8000, 64, n_mels=8, norm=2.0, dtype="float64").numpy()
    np.testing.assert_allclose(np.linalg.norm(p2, axis=1), 1.0)
    assert AF.compute_fbank_matrix(23, 51).shape == [64, 26]


def test_power_to_db_and_dct():
    s = np.array([[1e-12, 1.0, 10.0], [100.0, 1e4, 0.5]])
    want = 10 * np.log10(np.maximum(s, 1e-10)) - 10 * np.log10(2.0)
    close(AF.power_to_db(oar.to_tensor(s), ref_value=2.0, top_db=None), want)
    close(AF.power_to_db(oar.to_tensor(s), ref_value=2.0, top_db=30.0),
          np.maximum(want, want.max() - 30))
    lm = RNG.standard_normal((5, 12))
    dct = AF.create_dct(4, 12, dtype="float64")
    assert dct.shape == [12, 4]
    close(oar.matmul(oar.to_tensor(lm), dct), scipy.fft.dct(lm, type=2, norm="ortho")[:, :4])
    close(oar.matmul(oar.to_tensor(lm), AF.create_dct(4, 12, norm=None, dtype="float64")),
          scipy.fft.dct(lm, type=2)[:, :4])


WINDOWS = ["hamming", "hann", "blackman", "nuttall", "bartlett", "triang", "bohman", "cosine",
           ("tukey", 0.3), ("gaussian", 7.0), ("general_gaussian", 1.5, 4.0), ("kaiser", 8.0),
           "taylor", ("taylor", 5, 40), ("exponential", None, 3.0)]


@pytest.mark.parametrize("window", WINDOWS)
def test_windows_match_scipy(window):
    for n in (1, 8, 13):
        for fftbins in (True, False):
            if not fftbins and isinstance(window, tuple) and window[0] == "exponential":
                continue
            got = AF.get_window(window, n, fftbins=fftbins)
            close(got, scipy.signal.get_window(window, n, fftbins=fftbins), 1e-12)
    assert AF.get_window("hann", 8, dtype="float32").dtype == oar.float32


def test_audio_functional_errors():
    with pytest.raises(ValueError, match="unknown window"):
        AF.get_window("square", 8)
    with pytest.raises(ValueError, match="parameters"):
        AF.get_window("gaussian", 8)
    with pytest.raises(ValueError, match="amin"):
        AF.power_to_db(oar.ones([3]), amin=0.0)
    with pytest.raises(ValueError, match="top_db"):
        AF.power_to_db(oar.ones([3]), top_db=-1.0)
    with pytest.raises(ValueError, match="norm"):
        AF.create_dct(4, 8, norm="l1")
    with pytest.raises(TypeError, match="dtype"):
        AF.fft_frequencies(16000, 8, dtype="int32")
    with pytest.raises(TypeError, match="freq"):
        AF.hz_to_mel("1000")


# ---- audio.features ---------------------------------------------------------------------------
def test_feature_layers_against_their_definition():
    x = RNG.standard_normal((2, 800)).astype("float32")
    xt = torch.tensor(x.astype("float64"))
    w = torch.tensor(scipy.signal.get_window("hann", 128))
    spec = torch.stft(xt, 128, hop_length=32, window=w, return_complex=True).abs() ** 2
    layer = oar.audio.features.Spectrogram(n_fft=128, hop_length=32, power=2.0, dtype="float64")
    close(layer(oar.to_tensor(x.astype("float64"))), spec, 1e-9)
    mel = oar.audio.features.MelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=16,
                                            f_min=0.0, dtype="float64")
    fb = _fbank_reference(8000, 128, 16, 0.0, 4000.0, False)
    mel_want = np.einsum("mf,bft->bmt", fb, spec.numpy())
    close(mel(oar.to_tensor(x.astype("float64"))), mel_want, 1e-9)
    logmel = oar.audio.features.LogMelSpectrogram(sr=8000, n_fft=128, hop_length=32, n_mels=16,
                                                  f_min=0.0, dtype="float64")
    db = 10 * np.log10(np.maximum(mel_want, 1e-10))
    close(logmel(oar.to_tensor(x.astype("float64"))), db, 1e-9)
    mfcc = oar.audio.features.MFCC(sr=8000, n_mfcc=5, n_fft=128, hop_length=32, n_mels=16,
                                   f_min=0.0, dtype="float64")
    want = np.swapaxes(scipy.fft.dct(np.swapaxes(db, 1, 2), type=2, norm="ortho")[..., :5], 1, 2)
    close(mfcc(oar.to_tensor(x.astype("float64"))), want, 1e-9)
    # float32 layers on a float32 waveform, and gradients reach the waveform
    xo = oar.to_tensor(x, stop_gradient=False)
    out = oar.audio.features.MFCC(sr=8000, n_mfcc=5, n_fft=128, n_mels=16)(xo)
    assert out.dtype == oar.float32 and out.shape == [2, 5, 26]
    (g,) = oar.grad(out.sum(), xo)
    assert g.shape == [2, 800] and np.isfinite(g.numpy()).all()
    assert "fbank_matrix" in dict(mel.named_buffers())
    with pytest.raises(ValueError, match="n_mfcc"):
        oar.audio.features.MFCC(n_mfcc=80, n_mels=64)
    with pytest.raises(ValueError, match="power"):
        oar.audio.features.Spectrogram(power=0.0)


# ---- WAV I/O and backends ---------------------------------------------------------------------
def test_wav_round_trip(tmp_path):
    path = tmp_path / "a.wav"
    x = np.stack([np.linspace(-1, 1, 50), np.linspace(0.5, -0.5, 50)]).astype("float32")
    oar.audio.save(str(path), oar.to_tensor(x), 8000)
    info = oar.audio.info(str(path))
    assert (info.sample_rate, info.num_frames, info.num_channels, info.bits_per_sample,
            info.encoding) == (8000, 50, 2, 16, "PCM_S")
    with wave.open(str(path)) as f:
        raw = np.frombuffer(f.readframes(50), dtype="<i2").reshape(50, 2)
    np.testing.assert_array_equal(raw.T, np.clip(np.round(x * 32768), -32768, 32767))
    y, sr = oar.audio.load(path)
    assert sr == 8000 and y.dtype == oar.float32 and y.shape == [2, 50]
    close(y, raw.T / 32768.0, 1e-7)
    part, _ = oar.audio.load(str(path), frame_offset=10, num_frames=5, channels_first=False)
    close(part, raw[10:15] / 32768.0, 1e-7)
    tail, _ = oar.audio.load(str(path), frame_offset=45, normalize=False)
    close(tail, raw[45:].T.astype("float32"), 0)
    with open(path, "rb") as f:
        assert oar.audio.load(f)[0].shape == [2, 50]
    oar.audio.save(str(path), oar.to_tensor(x.T), 8000, channels_first=False)
    assert oar.audio.info(path).num_channels == 2


def test_wav_errors_and_backends(tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not a wav file at all")
    with pytest.raises(NotImplementedError, match="PCM WAV"):
        oar.audio.load(str(bad))
    with pytest.raises(NotImplementedError, match="PCM WAV"):
        oar.audio.info(str(bad))
    with pytest.raises(ValueError, match="2-D"):
        oar.audio.save(str(tmp_path / "x.wav"), oar.ones([10]), 8000)
    with pytest.raises(ValueError, match="bits_per_sample"):
        oar.audio.save(str(tmp_path / "x.wav"), oar.ones([1, 10]), 8000, bits_per_sample=24)
    with pytest.raises(ValueError, match="frame_offset"):
        oar.audio.load(str(bad), frame_offset=-1)
    assert oar.audio.backends.list_available_backends() == ["wave_backend"]
    assert oar.audio.backends.get_current_backend() == "wave_backend"
    oar.audio.backends.set_backend("wave_backend")
    with pytest.raises(NotImplementedError, match="soundfile"):
        oar.audio.backends.set_backend("soundfile")


def test_docstring_examples_of_fft_signal_and_audio():
    import doctest

    import oar.audio.backends.wave_backend as wave_backend
    import oar.audio.features.layers as layers
    import oar.audio.functional.functional as functional
    import oar.audio.functional.window as window

    failed = 0
    for mod in (oar.fft, oar.signal, functional, window, layers, oar.audio.backends, wave_backend):
        failed += doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE).failed
    assert failed == 0
