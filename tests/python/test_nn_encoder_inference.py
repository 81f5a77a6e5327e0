"""TransformerEncoderLayer running its ops itself where nothing observes its sub-layers
(Note [An encoder layer runs its ops itself where nothing observes its sub-layers] in
python/oar/nn/layer/transformer.py): under no_grad the same bits as the sub-layer calls,
with no sub-layer's forward running, for every form of the layer and under auto_cast;
and every observer (gradient recording, a hook, training dropout, a subclass, the
profiler, a capture, a dropout that scales in inference) still sees the sub-layers run."""

import numpy as np
import pytest
import torch

import oar
import oar.nn as nn
import oar.profiler as profiler

RNG = np.random.default_rng(0)
SUB_LAYERS = (nn.Linear, nn.LayerNorm, nn.MultiHeadAttention, nn.Dropout)


@pytest.fixture
def forwards(monkeypatch):
    """Counts the forward calls of the encoder layer's sub-layer classes."""
    calls = {"n": 0}
    for cls in SUB_LAYERS:
        original = cls.forward

        def counted(self, *args, _original=original, **kwargs):
            calls["n"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "forward", counted)
    return calls


def _layer(normalize_before=True, activation="gelu", bias=True, dropout=0.1, dtype="float32"):
    layer = nn.TransformerEncoderLayer(
        16,
        4,
        32,
        dropout=dropout,
        activation=activation,
        normalize_before=normalize_before,
        bias_attr=None if bias else False,
    )
    layer.to(dtype=dtype)
    layer.eval()
    return layer


def _mask(kind, dtype="float32"):
    keep = np.tril(np.ones([5, 5], bool))
    if kind == "bool":
        return oar.to_tensor(keep)
    if kind == "float":
        return oar.to_tensor(np.where(keep, 0.0, -np.inf).astype(dtype))
    return None


def _through_sub_layers(layer, x, mask):
    """The layer's output with its sub-layers called (a hook makes them observed)."""
    handle = layer.linear2.register_forward_post_hook(lambda *args: None)
    try:
        return layer(x, src_mask=mask).numpy()
    finally:
        handle.remove()


@pytest.mark.parametrize("normalize_before", [True, False])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("mask", [None, "bool", "float"])
@pytest.mark.parametrize("bias", [True, False])
def test_no_grad_runs_the_same_ops_without_the_sub_layers(
    forwards, normalize_before, activation, mask, bias
):
    layer = _layer(normalize_before, activation, bias)
    x = oar.to_tensor(RNG.standard_normal([2, 5, 16]).astype("float32"))
    with oar.no_grad():
        want = _through_sub_layers(layer, x, _mask(mask))
        assert forwards["n"] > 0
        forwards["n"] = 0
        got = layer(x, src_mask=_mask(mask)).numpy()
    assert forwards["n"] == 0
    assert got.tobytes() == want.tobytes()


def test_auto_cast_gives_the_same_bits(forwards):
    layer = _layer()
    x = oar.to_tensor(RNG.standard_normal([2, 5, 16]).astype("float32"))
    with oar.no_grad(), oar.amp.auto_cast(dtype="bfloat16"):
        want = _through_sub_layers(layer, x, _mask("bool"))
        forwards["n"] = 0
        got = layer(x, src_mask=_mask("bool")).numpy()
    assert forwards["n"] == 0
    assert got.tobytes() == want.tobytes()


def test_no_grad_values_are_torchs():
    torch.manual_seed(0)
    t = (
        torch.nn.TransformerEncoderLayer(
            16, 4, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        .double()
        .eval()
    )
    o = _layer(dtype="float64")
    a = o.self_attn
    w = t.self_attn.in_proj_weight.detach().numpy()
    b = t.self_attn.in_proj_bias.detach().numpy()
    for i, proj in enumerate((a.q_proj, a.k_proj, a.v_proj)):
        proj.weight.set_value(w[16 * i : 16 * (i + 1)].T)
        proj.bias.set_value(b[16 * i : 16 * (i + 1)])
    a.out_proj.weight.set_value(t.self_attn.out_proj.weight.detach().numpy().T)
    a.out_proj.bias.set_value(t.self_attn.out_proj.bias.detach().numpy())
    for name in ("linear1", "linear2"):
        getattr(o, name).weight.set_value(getattr(t, name).weight.detach().numpy().T)
        getattr(o, name).bias.set_value(getattr(t, name).bias.detach().numpy())
    for name in ("norm1", "norm2"):
        getattr(o, name).weight.set_value(getattr(t, name).weight.detach().numpy())
        getattr(o, name).bias.set_value(getattr(t, name).bias.detach().numpy())
    x = RNG.standard_normal([2, 5, 16])
    keep = np.tril(np.ones([5, 5], bool))
    with oar.no_grad(), torch.no_grad():
        got = o(oar.to_tensor(x), src_mask=oar.to_tensor(keep)).numpy()
        want = t(torch.tensor(x), src_mask=torch.tensor(~keep)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


class _Linear(nn.Linear):
    pass


def _hooked(layer):
    fired = []
    layer.self_attn.q_proj.register_forward_pre_hook(lambda *args: fired.append(1))
    return layer


def _subclassed(layer):
    sub = _Linear(16, 32)
    sub.weight.set_value(layer.linear1.weight.numpy())
    sub.bias.set_value(layer.linear1.bias.numpy())
    layer.linear1 = sub
    return layer


def _training(layer):
    layer.train()
    return layer


def _scaling_dropout(layer):
    layer.dropout1 = nn.Dropout(0.5, mode="downscale_in_infer")
    layer.dropout1.eval()
    return layer


@pytest.mark.parametrize("change", [_hooked, _subclassed, _training, _scaling_dropout])
def test_observed_or_changed_sub_layers_run(forwards, change):
    layer = change(_layer())
    x = oar.to_tensor(RNG.standard_normal([2, 5, 16]).astype("float32"))
    with oar.no_grad():
        layer(x)
    assert forwards["n"] > 0


def test_a_scaling_dropout_scales():
    layer = _layer()
    x = oar.to_tensor(RNG.standard_normal([2, 5, 16]).astype("float32"))
    with oar.no_grad():
        plain = layer(x).numpy()
        _scaling_dropout(layer)
        scaled = layer(x).numpy()
    assert not np.allclose(plain, scaled)


def test_gradient_recording_profiling_and_capture_see_the_sub_layers(forwards):
    layer = _layer()
    x = oar.to_tensor(RNG.standard_normal([2, 5, 16]).astype("float32"))
    layer(x)  # recording a gradient: grad nodes keep the sub-layers' paths
    assert forwards["n"] > 0
    forwards["n"] = 0
    p = profiler.Profiler(targets=[profiler.ProfilerTarget.CPU])
    p.start()
    with oar.no_grad():
        layer(x)
    p.stop()
    assert forwards["n"] > 0
    forwards["n"] = 0
    static = oar.jit.to_static(lambda t: layer(t))
    with oar.no_grad():
        static(x)
    assert forwards["n"] > 0
