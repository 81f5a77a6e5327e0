"""oar.compat (Paddle's PyTorch-compatible API) against torch, the torch proxy
(oar.enable_compat), and the small namespaces: flags, oar.base, oar.utils, oar.sysconfig,
oar.jit, InputSpec, oar.version, oar.text."""
import os
import sys
import warnings

import numpy as np
import pytest
import torch

import oar
import oar.compat as compat
import oar.compat.nn as cnn
import oar.compat.nn.functional as CF


def _t(a, dtype="float64"):
    return oar.to_tensor(np.asarray(a, dtype=dtype))


RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 5))


# ---- compat functions ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["max", "min"])
def test_min_max_overloads_vs_torch(name):
    t = torch.tensor(X)
    o = _t(X)
    np.testing.assert_allclose(getattr(compat, name)(o).numpy(), getattr(torch, name)(t))
    for dim, keep in ((1, False), (-2, True)):
        got = getattr(compat, name)(o, dim, keep)
        want = getattr(torch, name)(t, dim, keep)
        np.testing.assert_allclose(got.values.numpy(), want.values)
        np.testing.assert_array_equal(got.indices.numpy(), want.indices)
        assert got.indices.dtype == oar.int64
    y = RNG.standard_normal((3, 5))
    np.testing.assert_allclose(getattr(compat, name)(o, other=_t(y)).numpy(),
                               getattr(torch, name)(t, torch.tensor(y)))
    # PyTorch's rule: the gradient goes to the returned position only, not split on ties
    x = _t([[1.0, 1.0, 0.5]])
    x.stop_gradient = False
    getattr(compat, name)(x, dim=1).values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(),
                                  [[1.0, 0.0, 0.0]] if name == "max" else [[0.0, 0.0, 1.0]])


def test_min_max_errors():
    with pytest.raises(TypeError, match="oar.max"):
        compat.max(x=_t(X))
    with pytest.raises(TypeError, match="cannot be None"):
        compat.max(_t(X), dim=None)
    with pytest.raises(TypeError, match="needs 'dim'"):
        compat.min(_t(X), keepdim=True)
    with pytest.raises(IndexError):
        compat.max(_t(X), 2)
    i = oar.to_tensor([1, 2])
    i.stop_gradient = False
    with pytest.raises(TypeError, match="integer"):
        compat.max(i)


def test_median_nanmedian_sort_vs_torch():
    v = X.copy()
    v[0, 1] = np.nan
    v[2, :] = np.nan
    t = torch.tensor(v)
    got, want = compat.nanmedian(_t(v), 1), torch.nanmedian(t, 1)
    np.testing.assert_allclose(got.values.numpy(), want.values)
    np.testing.assert_array_equal(got.indices.numpy()[:2], want.indices[:2])
    got, want = compat.median(_t(X), dim=0, keepdim=True), torch.median(torch.tensor(X), 0, True)
    np.testing.assert_allclose(got.values.numpy(), want.values)
    np.testing.assert_array_equal(got.indices.numpy(), want.indices)
    np.testing.assert_allclose(compat.median(_t(X)).numpy(), torch.median(torch.tensor(X)))
    assert np.isnan(compat.median(_t(v), 1).values.numpy()[0])
    out = (oar.zeros([3], dtype="float64"), oar.zeros([3], dtype="int64"))
    r = compat.median(_t(X), dim=1, out=out)
    assert r.values is out[0]
    np.testing.assert_allclose(out[0].numpy(), torch.median(torch.tensor(X), 1).values)
    s = compat.sort(_t(X), dim=0, descending=True)
    ts = torch.sort(torch.tensor(X), 0, descending=True)
    np.testing.assert_allclose(s.values.numpy(), ts.values)
    np.testing.assert_array_equal(s.indices.numpy(), ts.indices)
    with pytest.raises(TypeError, match="tuple of two"):
        compat.median(_t(X), dim=1, out=oar.zeros([3]))


def test_split_unique_equal_slogdet_seed():
    x = oar.rand([3, 8, 5])
    assert [p.shape for p in compat.split(x, 3, dim=1)] == [[3, 3, 5], [3, 3, 5], [3, 2, 5]]
    assert [p.shape for p in compat.split(x, [1, 2, 5], -2)] == [[3, 1, 5], [3, 2, 5], [3, 5, 5]]
    with pytest.raises(ValueError, match="add up"):
        compat.split(x, [1, 2], 1)
    with pytest.raises(ValueError, match="positive"):
        compat.split(x, 0)
    a = [[2, 1, 3], [3, 0, 1], [2, 1, 3]]
    u, inv, cnt = compat.unique(oar.to_tensor(a), return_inverse=True, return_counts=True)
    tu, tinv, tcnt = torch.unique(torch.tensor(a), return_inverse=True, return_counts=True)
    for g, w in ((u, tu), (inv, tinv), (cnt, tcnt)):
        np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(compat.unique(oar.to_tensor(a), dim=0).numpy(),
                                  torch.unique(torch.tensor(a), dim=0))
    assert compat.equal(oar.to_tensor([1, 2]), oar.to_tensor([1.0, 2.0])) is True
    assert compat.equal(oar.to_tensor([1, 2]), oar.to_tensor([1, 2, 3])) is False
    m = RNG.standard_normal((2, 3, 3))
    r, (ts, tl) = compat.slogdet(_t(m)), torch.linalg.slogdet(torch.tensor(m))
    np.testing.assert_allclose(r.sign.numpy(), ts)
    np.testing.assert_allclose(r.logabsdet.numpy(), tl)
    s = compat.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 63


# ---- compat.nn ----------------------------------------------------------------------------
def test_compat_nn_layers_vs_torch():
    x = RNG.standard_normal((2, 3, 4))
    np.testing.assert_allclose(cnn.Softmax()(_t(x)).numpy(), torch.softmax(torch.tensor(x), 0))
    np.testing.assert_allclose(CF.softmax(_t(x), -1, dtype="float32").numpy(),
                               torch.softmax(torch.tensor(x), -1), rtol=1e-6)
    lin = cnn.Linear(4, 2)
    assert lin.weight.shape == [2, 4] and lin.bias.shape == [2]
    assert np.abs(lin.weight.numpy()).max() <= 0.5  # bound 1 / sqrt(in_features)
    np.testing.assert_allclose(lin(_t(x, "float32")).numpy(),
                               x @ lin.weight.numpy().T + lin.bias.numpy(), rtol=1e-5, atol=1e-6)
    assert cnn.Linear(4, 2, bias=False).bias is None
    for nd, layer in ((1, cnn.AvgPool1D), (2, cnn.AvgPool2D), (3, cnn.AvgPool3D)):
        xi = RNG.standard_normal((1, 2) + (5, 6, 7)[3 - nd:])
        tp = getattr(torch.nn, f"AvgPool{nd}d")(2, padding=1, count_include_pad=False)
        np.testing.assert_allclose(layer(2, padding=1, count_include_pad=False)(_t(xi)).numpy(),
                                   tp(torch.tensor(xi)), rtol=1e-12)
    u = RNG.standard_normal((2, 3, 6, 6))
    np.testing.assert_allclose(cnn.Unfold(kernel_size=[3, 2], stride=2, padding=1)(_t(u)).numpy(),
                               torch.nn.Unfold([3, 2], stride=2, padding=1)(torch.tensor(u)))
    with pytest.raises(TypeError, match="oar.nn.Linear"):
        cnn.Linear(2, 3, weight_attr=None)


def test_compat_functional_pad_linear_vs_torch():
    x = torch.tensor(RNG.standard_normal((2, 3, 4, 5)))
    for mode, pad in (("constant", (1, 2)), ("constant", (1, 0, 2, 1)), ("reflect", (1, 0, 2, 1)),
                      ("replicate", (2, 1, 0, 1)), ("circular", (1, 2, 1, 0))):
        np.testing.assert_allclose(CF.pad(_t(x.numpy()), pad, mode=mode).numpy(),
                                   torch.nn.functional.pad(x, pad, mode=mode))
    np.testing.assert_allclose(CF.pad(_t(x.numpy()), [1, 1, 0, 0, 2, 0], value=3.0).numpy(),
                               torch.nn.functional.pad(x, [1, 1, 0, 0, 2, 0], value=3.0))
    with pytest.raises(ValueError, match="at most"):
        CF.pad(_t(x.numpy()), [1] * 8, mode="reflect")
    w, b = RNG.standard_normal((6, 5)), RNG.standard_normal(6)
    np.testing.assert_allclose(CF.linear(_t(x.numpy()), _t(w), _t(b)).numpy(),
                               torch.nn.functional.linear(x, torch.tensor(w), torch.tensor(b)))


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_vs_torch(batch_first):
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, add_bias_kv=True,
                                     add_zero_attn=True, dtype=torch.float64)
    om = cnn.MultiheadAttention(8, 2, batch_first=batch_first, add_bias_kv=True,
                                add_zero_attn=True, dtype="float64")
    for name in ("in_proj_weight", "in_proj_bias", "bias_k", "bias_v"):
        getattr(om, name).set_value(getattr(tm, name).detach().numpy())
    om.out_proj.weight.set_value(tm.out_proj.weight.detach().numpy())
    om.out_proj.bias.set_value(tm.out_proj.bias.detach().numpy())
    q, k = torch.randn(2, 3, 8, dtype=torch.float64), torch.randn(2, 4, 8, dtype=torch.float64)
    if not batch_first:
        q, k = q.transpose(0, 1), k.transpose(0, 1)
    kpm = torch.tensor([[False, True, False, False], [False, False, False, True]])
    am = torch.randn(3, 4, dtype=torch.float64)
    to, tw = tm(q, k, k, key_padding_mask=kpm, attn_mask=am)
    oo, ow = om(*(_t(v.numpy()) for v in (q, k, k)), key_padding_mask=oar.to_tensor(kpm.numpy()),
                attn_mask=_t(am.numpy()))
    np.testing.assert_allclose(oo.numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ow.numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    out, w = om(*(_t(v.numpy()) for v in (q, k, k)), need_weights=False, is_causal=False)
    assert w is None and out.shape == list(to.shape)


# ---- the torch proxy ----------------------------------------------------------------------
def test_enable_disable_compat():
    real = sys.modules.get("torch")
    oar.enable_compat()
    try:
        import torch as proxied
        import torch.nn.functional as pf
        assert proxied is oar and proxied.sin is oar.sin and pf is oar.nn.functional
        with pytest.raises(ModuleNotFoundError, match="torch.not_a_module"):
            import torch.not_a_module  # noqa: F401
    finally:
        oar.disable_compat()
    import torch as again
    assert again is real
    with pytest.warns(UserWarning, match="not enabled"):
        oar.disable_compat()
    with pytest.raises(NotImplementedError, match="scope"):
        oar.enable_compat(scope={"triton"})
    with compat.use_torch_proxy_guard():
        import torch as inside
        assert inside is oar
    import torch as after
    assert after is real


# ---- flags, base, utils, sysconfig, jit, static, version, device --------------------------
def test_flags_accept_paddles_no_effect_flags():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        oar.set_flags({"FLAGS_use_stride_kernel": True})  # Paddle's default: silent
    assert oar.get_flags("FLAGS_use_stride_kernel") == {"FLAGS_use_stride_kernel": True}
    with pytest.warns(UserWarning, match="no effect in oar"):
        oar.base.set_flags({"FLAGS_eager_delete_tensor_gb": 1.0})
    assert oar.base.get_flags(["eager_delete_tensor_gb"]) == {"FLAGS_eager_delete_tensor_gb": 1.0}
    oar.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": 0})
    assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is True
    oar.set_flags({"check_nan_inf": False})
    runtime = ["FLAGS_conv_winograd", "FLAGS_jit_fold_conv"]
    assert oar.get_flags(runtime) == dict.fromkeys(runtime, True)
    oar.set_flags({"conv_winograd": False})
    assert oar.get_flags("conv_winograd") == {"FLAGS_conv_winograd": False}
    oar.set_flags({"conv_winograd": True})
    with pytest.raises(ValueError, match="unknown flag 'FLAGS_no_such_flag'"):
        oar.set_flags({"FLAGS_no_such_flag": 1})
    with pytest.raises(ValueError, match="unknown flag"):
        oar.get_flags("FLAGS_no_such_flag")
    with pytest.raises(TypeError, match="takes a str"):
        oar.set_flags({"FLAGS_allocator_strategy": 3})


def test_base_namespace():
    import oar.base as base
    from oar.base import core
    with base.dygraph.guard():
        t = oar.to_tensor(np.arange(3))
    assert t.shape == [3] and base.dygraph.enabled() and base.in_dygraph_mode()
    with pytest.raises(ValueError, match="CPU only"):
        with base.dygraph.guard("gpu:0"):
            pass
    assert core.is_compiled_with_cuda() is False and core.is_compiled_with_mkldnn() is True


def test_unique_name():
    from oar.utils import unique_name
    with unique_name.guard():
        assert [unique_name.generate("fc"), unique_name.generate("fc")] == ["fc_0", "fc_1"]
        old, checker = unique_name.switch()
        assert checker is None and unique_name.generate("fc") == "fc_0"
        unique_name.switch(old)
        assert unique_name.generate("fc") == "fc_2"
    with unique_name.guard("A"):
        assert unique_name.generate("fc") == "Afc_0"
    with unique_name.guard(b"B"):
        assert unique_name.generate("conv") == "Bconv_0"
    with pytest.raises(TypeError):
        unique_name.switch("not a generator")


def test_require_version_try_import_deprecated():
    from oar import utils
    utils.require_version("0.1.0")
    utils.require_version(min_version="3.0", max_version="3.3.1")
    with pytest.raises(Exception, match="3.3.1"):
        utils.require_version("4.0")
    with pytest.raises(ValueError, match="look like"):
        utils.require_version("3.x")
    with pytest.raises(TypeError):
        utils.require_version(3)
    assert utils.try_import("math").sqrt(4) == 2
    with pytest.raises(ImportError, match="pip install"):
        utils.try_import("no_such_module_xyz")

    @utils.deprecated(since="2.0", update_to="oar.new", level=1)
    def old():
        return 1
    with pytest.warns(DeprecationWarning, match="oar.new"):
        assert old() == 1


def test_cpp_extension_sysconfig_jit(tmp_path, monkeypatch):
    from oar.utils.cpp_extension import get_build_directory
    monkeypatch.setenv("OAR_EXTENSION_DIR", str(tmp_path / "ext"))
    assert get_build_directory() == str(tmp_path / "ext") and os.path.isdir(tmp_path / "ext")
    lib = oar.sysconfig.get_lib()
    assert any(f.startswith("liboar") for f in os.listdir(lib))
    assert oar.sysconfig.get_include() == os.path.join(lib, "include")
    import math
    oar.jit.ignore_module([math, np])
    with pytest.raises(TypeError, match="module"):
        oar.jit.ignore_module([1])
    assert isinstance(oar.jit.to_static(lambda x: x), oar.jit.StaticFunction)


def test_input_spec_methods():
    from oar.static import InputSpec
    s = InputSpec.from_numpy(np.ones([2, 3], np.float32), name="x")
    assert s.shape == [2, 3] and s.dtype == oar.float32 and s.name == "x"
    assert repr(s) == "InputSpec(shape=(2, 3), dtype=oar.float32, name=x, stop_gradient=False)"
    t = InputSpec.from_tensor(oar.ones([4], dtype="int64"), name="t")
    assert t.shape == [4] and t.dtype == oar.int64
    b = InputSpec([64], "float32").batch(4)
    assert b.shape == [4, 64] and b.unbatch().shape == [64]
    assert InputSpec([None, 3]).batch([2]).shape == [2, -1, 3]
    with pytest.raises(ValueError, match="empty"):
        InputSpec([]).unbatch()
    with pytest.raises(TypeError):
        InputSpec.from_tensor(np.ones(2))


def test_version_and_signal_handler():
    assert oar.version.cuda_archs() == []
    assert oar.disable_signal_handler() is None
    assert oar.device.get_cudnn_version() is None


def test_device_rng_state_replays_draws():
    state = oar.device.get_rng_state()
    a = oar.randn([4]).numpy()
    oar.device.set_rng_state(state)
    np.testing.assert_array_equal(oar.randn([4]).numpy(), a)
    assert state[0].current_seed() == oar.device.get_rng_state()[0].current_seed()
    with pytest.raises(ValueError, match="list of one"):
        oar.device.set_rng_state(state[0])
    with pytest.raises(TypeError, match="GeneratorState"):
        oar.device.set_rng_state([1])


# ---- oar.text -----------------------------------------------------------------------------
def _viterbi_reference(pot, trans, lengths, bos):
    b, _, n = pot.shape
    scores, paths = np.zeros(b), np.zeros((b, int(lengths.max())), np.int64)
    for i in range(b):
        L = int(lengths[i])
        start = trans[n - 1] if bos else 0
        stop = trans[n - 2] if bos else 0
        if L == 0:
            scores[i] = (pot[i, 0] + start).max()
            continue
        best = None
        for seq in np.ndindex(*([n] * L)):  # brute force over every tag sequence
            s = pot[i, 0, seq[0]] + (start[seq[0]] if bos else 0)
            s += sum(trans[seq[t - 1], seq[t]] + pot[i, t, seq[t]] for t in range(1, L))
            s += stop[seq[-1]] if bos else 0
            if best is None or s > best[0]:
                best = (s, seq)
        scores[i] = best[0]
        paths[i, :L] = best[1]
    return scores, paths


@pytest.mark.parametrize("bos", [False, True])
def test_viterbi_decode_vs_brute_force(bos):
    pot = RNG.standard_normal((4, 4, 3))
    trans = RNG.standard_normal((3, 3))
    lengths = np.array([4, 1, 3, 0])
    scores, path = oar.text.viterbi_decode(_t(pot), _t(trans), oar.to_tensor(lengths), bos)
    want_s, want_p = _viterbi_reference(pot, trans, lengths, bos)
    np.testing.assert_allclose(scores.numpy(), want_s, rtol=1e-12)
    np.testing.assert_array_equal(path.numpy(), want_p)
    dec = oar.text.ViterbiDecoder(_t(trans), include_bos_eos_tag=bos)
    np.testing.assert_array_equal(dec(_t(pot), oar.to_tensor(lengths))[1].numpy(), want_p)
    with pytest.raises(ValueError, match="lengths"):
        oar.text.viterbi_decode(_t(pot), _t(trans), oar.to_tensor([5, 1, 1, 1]), bos)


def test_text_datasets_read_local_files(tmp_path):
    with pytest.raises(ValueError, match="downloads nothing"):
        oar.text.UCIHousing()
    rows = RNG.uniform(0, 10, (10, 14))
    path = tmp_path / "housing.data"
    path.write_text("\n".join(" ".join(f"{v:.4f}" for v in r) for r in rows))
    train, test = oar.text.UCIHousing(str(path)), oar.text.UCIHousing(str(path), mode="test")
    assert len(train) == 8 and len(test) == 2
    feat, price = train[0]
    assert feat.shape == (13,) and feat.dtype == np.float32
    np.testing.assert_allclose(price, rows[0, 13:], rtol=1e-4)
    data = np.loadtxt(path)
    want = (data[0, :13] - data[:, :13].mean(0)) / (data[:, :13].max(0) - data[:, :13].min(0))
    np.testing.assert_allclose(feat, want, rtol=1e-4, atol=1e-6)
    with pytest.raises(FileNotFoundError):
        oar.text.Imdb(str(tmp_path / "missing.tar.gz"))


def test_unique_name_guard_restarts_layer_names():
    from oar.utils import unique_name
    with unique_name.guard():
        first = oar.nn.Linear(2, 2).full_name()
    with unique_name.guard():
        second = oar.nn.Linear(2, 2).full_name()
    assert first == second == "linear_0"


def _tar(path, files):
    import io
    import tarfile
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_imdb_and_imikolov_from_small_archives(tmp_path):
    imdb = tmp_path / "aclImdb.tar.gz"
    _tar(imdb, {"aclImdb/train/pos/0.txt": "Good, good film!", "aclImdb/train/neg/1.txt": "bad film",
                "aclImdb/test/pos/2.txt": "good", "aclImdb/test/neg/3.txt": "awful bad"})
    d = oar.text.Imdb(str(imdb), mode="train", cutoff=1)
    # counts over train and test: good 3, bad 2, film 2 (> cutoff 1); ties alphabetical.
    # Words are bytes, as in Paddle's reader (it splits the raw file contents).
    assert d.word_idx == {b"good": 0, b"bad": 1, b"film": 2, "<unk>": 3}
    assert len(d) == 2
    np.testing.assert_array_equal(d[0][0], [0, 0, 2])
    np.testing.assert_array_equal(d[1][1], [1])
    ptb = tmp_path / "simple-examples.tgz"
    lines = "a b a\nb a\n"
    _tar(ptb, {f"./simple-examples/data/ptb.{p}.txt": lines for p in ("train", "valid", "test")})
    ng = oar.text.Imikolov(str(ptb), "NGRAM", window_size=2, min_word_freq=0)
    assert len(ng) == 4 + 3  # sentences of 5 and 4 tokens with <s> and <e>
    seq = oar.text.Imikolov(str(ptb), "SEQ", mode="test", min_word_freq=0)
    src, trg = seq[1]
    w = seq.word_idx
    np.testing.assert_array_equal(src, [w["<s>"], w["b"], w["a"]])
    np.testing.assert_array_equal(trg, [w["b"], w["a"], w["<e>"]])
    with pytest.raises(ValueError, match="NGRAM"):
        oar.text.Imikolov(str(ptb), "NGRAM")
