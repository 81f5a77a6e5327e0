"""oar.incubate.nn: the fused functions and layers against references written from
Paddle's documented formulas (torch / numpy, float64), gradients against torch autograd,
the dropout modes and seeding, Paddle's parameter names, and the typed errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import oar

IF = oar.incubate.nn.functional
INN = oar.incubate.nn
RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.standard_normal(shape)


def o(a, grad=False):
    t = oar.to_tensor(np.asarray(a, dtype=np.float64))
    t.stop_gradient = not grad
    return t


def th(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def npy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return t.numpy() if isinstance(t, oar.Tensor) else np.asarray(t)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(npy(a), npy(b), rtol=tol, atol=tol)


def grads_match(f_oar, f_torch, arrays, tol=1e-9):
    """Same outputs and the same gradients of a random projection of them."""
    xs, ts = [o(a, True) for a in arrays], [th(a) for a in arrays]
    out_o, out_t = f_oar(*xs), f_torch(*ts)
    close(out_o, out_t, tol)
    w = rand(*out_t.shape)
    (out_o * o(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for x, t in zip(xs, ts):
        if t.grad is None:  # an input the computation does not use
            assert x.grad is None or not x.grad.numpy().any()
        else:
            close(x.grad, t.grad, tol)


def ln_t(x, w=None, b=None, eps=1e-5):
    return TF.layer_norm(x, (x.shape[-1],), w, b, eps)


# ---- matmul + bias ------------------------------------------------------------------------
def test_fused_matmul_bias_and_transposes():
    x, y, b = rand(2, 3, 4), rand(4, 5), rand(5)
    close(IF.fused_matmul_bias(o(x), o(y), o(b)), x @ y + b)
    close(IF.fused_matmul_bias(o(x.transpose(0, 2, 1)), o(y.T), o(b), True, True), x @ y + b)
    close(IF.fused_matmul_bias(o(x), o(y)), x @ y)
    close(IF.fused_linear(o(x), o(y.T), o(b), transpose_weight=True), x @ y + b)
    close(IF.fused_linear(o(x), o(y)), x @ y)


@pytest.mark.parametrize("act", [None, "relu", "gelu"])
def test_fused_linear_activation_values_and_grads(act):
    ref = {None: lambda t: t, "relu": torch.relu,
           "gelu": lambda t: TF.gelu(t, approximate="tanh")}[act]
    grads_match(lambda x, y, b: IF.fused_linear_activation(x, y, b, activation=act),
                lambda x, y, b: ref(x @ y + b), [rand(3, 4), rand(4, 6), rand(6)])


# ---- fused_bias_act -----------------------------------------------------------------------
def _bias_act_ref(h, act):
    half = h.shape[-1] // 2
    return {"gelu": lambda: TF.gelu(h), "relu": lambda: torch.relu(h),
            "swiglu": lambda: TF.silu(h[..., :half]) * h[..., half:],
            "geglu": lambda: TF.gelu(h[..., :half]) * h[..., half:]}[act]()


@pytest.mark.parametrize("act", ["gelu", "relu", "swiglu", "geglu"])
def test_fused_bias_act_values_and_grads(act):
    grads_match(lambda x, b: IF.fused_bias_act(x, b, act_method=act),
                lambda x, b: _bias_act_ref(x + b, act), [rand(2, 3, 8), rand(8)])


def test_fused_bias_act_shift_smooth_and_no_bias():
    x, shift, smooth = rand(4, 6), rand(3), rand(3)
    out = IF.fused_bias_act(o(x), shift=o(shift), smooth=o(smooth), act_method="swiglu")
    ref = _bias_act_ref(torch.tensor(x), "swiglu").numpy()
    close(out, (ref + shift) * smooth)


def test_fused_bias_act_int32_dequantisation():
    x = RNG.integers(-50, 50, (3, 4)).astype(np.int32)
    scales, b = RNG.uniform(0.01, 0.1, 4), rand(4)
    out = IF.fused_bias_act(oar.to_tensor(x), oar.to_tensor(b.astype(np.float32)),
                            dequant_scales=oar.to_tensor(scales.astype(np.float32)),
                            act_method="gelu", compute_dtype="fp32")
    assert out.dtype == oar.float32
    ref = TF.gelu(torch.tensor(x * scales.astype(np.float32) + b.astype(np.float32)))
    close(out, ref, 1e-5)


@pytest.mark.parametrize("round_type, want", [(0, [0, 2, 2, 8, 8]), (1, [1, 2, 3, 8, 8])])
def test_fused_bias_act_int8_quantisation_rounds_as_asked(round_type, want):
    # max_bound * scale = 4: the inputs land on .5 ties, 8 and a clipped 12
    x = o([[0.125, 0.375, 0.625, 2.0, 3.0]])
    out = IF.fused_bias_act(x, act_method="relu", quant_scale=0.5,
                            quant_round_type=round_type, quant_max_bound=8.0,
                            quant_min_bound=-8.0)
    assert out.dtype == oar.int8
    assert out.numpy().tolist() == [want]


# ---- fused_dropout_add --------------------------------------------------------------------
def test_fused_dropout_add_inference_modes():
    x, y = rand(3, 4), rand(3, 4)
    close(IF.fused_dropout_add(o(x), o(y), p=0.0), x + y)
    close(IF.fused_dropout_add(o(x), o(y), p=0.3, training=False), x + y)
    close(IF.fused_dropout_add(o(x), o(y), p=0.3, training=False, mode="downscale_in_infer"),
          0.7 * x + y)
    close(IF.fused_dropout_add(o(x), o(y[:1]), p=0.0), x + y[:1])  # y broadcasts


@pytest.mark.parametrize("mode, scale", [("upscale_in_train", 1 / 0.7),
                                         ("downscale_in_infer", 1.0)])
def test_fused_dropout_add_training_mask_seed_and_grad(mode, scale):
    x, y = rand(100, 200) + 3.0, rand(100, 200)
    oar.seed(11)
    xt = o(x, True)
    out = IF.fused_dropout_add(xt, o(y), p=0.3, mode=mode)
    oar.seed(11)
    again = IF.fused_dropout_add(o(x), o(y), p=0.3, mode=mode)
    close(out, again, 0)
    kept = np.abs(out.numpy() - y) > 1e-12
    assert abs(1 - kept.mean() - 0.3) < 0.02
    close((out.numpy() - y)[kept], (x * scale)[kept])
    out.sum().backward()
    close(xt.grad, kept * scale)


# ---- layer norms --------------------------------------------------------------------------
def test_fused_layer_norm_matches_paddles_formula_and_grads():
    x, r, b, w, nb = rand(2, 3, 8), rand(2, 3, 8), rand(8), rand(8), rand(8)

    def ref(x, r, b, w, nb):
        return TF.layer_norm(x + b + 0.7 * r, (8,), w, nb, 1e-5)

    grads_match(lambda x, r, b, w, nb: IF.fused_layer_norm(
        x, w, nb, 1e-5, residual_alpha=0.7, begin_norm_axis=2, bias=b, residual=r)[0],
        ref, [x, r, b, w, nb])
    out, res, mean, inv = IF.fused_layer_norm(o(x), o(w), o(nb), 1e-5, residual_alpha=0.7,
                                              begin_norm_axis=2, bias=o(b), residual=o(r))
    h = x + b + 0.7 * r
    close(res, h)
    close(mean, h.mean(-1).ravel())
    close(inv, 1 / np.sqrt(h.var(-1).ravel() + 1e-5))


def test_fused_layer_norm_bias_needs_residual_and_missing_affine():
    x, b, w = rand(2, 3, 8), rand(8), rand(8)
    out, res, _, _ = IF.fused_layer_norm(o(x), o(w), None, 1e-5, begin_norm_axis=2, bias=o(b))
    close(out, ln_t(torch.tensor(x), torch.tensor(w)))  # bias unused, as Paddle
    assert list(res.shape) == [0]
    r = rand(2, 3, 8)
    close(IF.fused_layer_norm(o(x), None, None, 1e-5, residual_alpha=0.5, begin_norm_axis=2,
                              bias=o(b), residual=o(r))[0], x + b + 0.5 * r)


def test_fused_layer_norm_over_several_axes():
    x, r, b, w, nb = rand(2, 3, 4), rand(2, 3, 4), rand(3, 4), rand(12), rand(12)
    out = IF.fused_layer_norm(o(x), o(w), o(nb), 1e-6, begin_norm_axis=1, bias=o(b),
                              residual=o(r))
    ref = TF.layer_norm(torch.tensor(x + b + r), (3, 4), torch.tensor(w.reshape(3, 4)),
                        torch.tensor(nb.reshape(3, 4)), 1e-6)
    close(out[0], ref)
    assert list(out[2].shape) == [2]


def test_fused_layer_norm_int8_output():
    x, w, nb = rand(4, 8), rand(8), rand(8)
    out = IF.fused_layer_norm(o(x), o(w), o(nb), 1e-5, quant_scale=0.2, quant_round_type=1,
                              quant_max_bound=127.0, quant_min_bound=-127.0)[0]
    v = 127 * 0.2 * npy(ln_t(torch.tensor(x), torch.tensor(w), torch.tensor(nb)))
    want = np.clip(np.sign(v) * np.floor(np.abs(v) + 0.5), -127, 127)
    assert out.dtype == oar.int8
    np.testing.assert_array_equal(out.numpy(), want)


def _rms_t(h, w, eps):
    return h * torch.rsqrt((h * h).mean(-1, keepdim=True) + eps) * w


def test_fused_rms_norm_values_residual_and_grads():
    x, r, b, w, nb = rand(2, 3, 8), rand(2, 3, 8), rand(8), rand(8), rand(8)
    grads_match(lambda x, r, b, w, nb: IF.fused_rms_norm(x, w, nb, 1e-6, begin_norm_axis=-1,
                                                         bias=b, residual=r)[0],
                lambda x, r, b, w, nb: _rms_t(x + b + r, w, 1e-6) + nb, [x, r, b, w, nb])
    out, res = IF.fused_rms_norm(o(x), o(w), None, 1e-6, begin_norm_axis=2, bias=o(b))
    close(out, _rms_t(torch.tensor(x), torch.tensor(w), 1e-6))
    assert list(res.shape) == [0]
    out, res = IF.fused_rms_norm(o(x), o(w), None, 1e-6, begin_norm_axis=2, residual=o(r))
    close(res, x + r)


@pytest.mark.parametrize("fn", [IF.fused_rms_norm_ext, IF.fast_rms_norm])
def test_last_axis_rms_norms(fn):
    x, w = rand(2, 3, 8), rand(8)
    grads_match(lambda x, w: fn(x, w, 1e-6)[0], lambda x, w: _rms_t(x, w, 1e-6), [x, w])
    close(fn(o(x), o(w), 1e-6)[1], 1 / np.sqrt((x ** 2).mean(-1).ravel() + 1e-6))


def test_fast_ln():
    x, w, b = rand(5, 8), rand(8), rand(8)
    grads_match(lambda x, w, b: IF.fast_ln(x, w, b)[0],
                lambda x, w, b: ln_t(x, w, b), [x, w, b])
    _, mean, inv = IF.fast_ln(o(x), o(w), o(b), 1e-3)
    close(mean, x.mean(-1))
    close(inv, 1 / np.sqrt(x.var(-1) + 1e-3))


# ---- rotary position embedding ------------------------------------------------------------
def _rope_ref(x, sin, cos, neox):
    """x [b, s, h, d]; sin/cos per token [b, s, d]: out[i] = x[i] cos[i] +
    sign(i) x[partner(i)] sin[i], written with an index permutation."""
    d = x.shape[-1]
    i = np.arange(d)
    if neox:
        partner, sign = i ^ 1, np.where(i % 2 == 0, -1.0, 1.0)
    else:
        partner, sign = (i + d // 2) % d, np.where(i < d // 2, -1.0, 1.0)
    lib = torch if isinstance(x, torch.Tensor) else np
    sign = torch.tensor(sign) if lib is torch else sign
    return x * cos[:, :, None] + x[..., partner] * sign * sin[:, :, None]


def _tables(seq, d, base=10000.0):
    theta = np.arange(seq)[:, None] * base ** (-(2 * (np.arange(d) // 2)) / d)
    return np.sin(theta), np.cos(theta)


def test_rope_computed_tables_neox_style():
    q, k = rand(2, 5, 3, 8), rand(2, 5, 1, 8)
    oq, ok, ov = IF.fused_rotary_position_embedding(o(q), o(k), rotary_emb_base=500.0)
    sin, cos = (np.broadcast_to(t, (2, 5, 8)) for t in _tables(5, 8, 500.0))
    close(oq, _rope_ref(q, sin, cos, True))
    close(ok, _rope_ref(k, sin, cos, True))
    assert ov is None
    # a rotation: every (x[2i], x[2i+1]) pair keeps its length
    pairs = oq.numpy().reshape(2, 5, 3, 4, 2)
    close(np.hypot(pairs[..., 0], pairs[..., 1]),
          np.hypot(*np.moveaxis(q.reshape(2, 5, 3, 4, 2), -1, 0)))


@pytest.mark.parametrize("neox", [True, False])
@pytest.mark.parametrize("four_d", [True, False])
def test_rope_given_tables_values_and_grads(neox, four_d):
    sin, cos = rand(4, 6), rand(4, 6)
    shape = (1, 4, 1, 6) if four_d else (4, 6)
    per_token = [np.broadcast_to(t, (2, 4, 6)) for t in (sin, cos)]
    grads_match(
        lambda q, v: IF.fused_rotary_position_embedding(
            q, None, v, sin=o(sin.reshape(shape)), cos=o(cos.reshape(shape)),
            use_neox_rotary_style=neox)[0] * 2
        + IF.fused_rotary_position_embedding(
            q, None, v, sin=o(sin.reshape(shape)), cos=o(cos.reshape(shape)),
            use_neox_rotary_style=neox)[2],
        lambda q, v: _rope_ref(q, *map(torch.tensor, per_token), neox) * 2
        + _rope_ref(v, *map(torch.tensor, per_token), neox),
        [rand(2, 4, 3, 6), rand(2, 4, 3, 6)])


def test_rope_position_ids_and_time_major():
    sin, cos = rand(9, 4), rand(9, 4)
    ids = RNG.integers(0, 9, (2, 3))
    q = rand(2, 3, 2, 4)
    out = IF.fused_rotary_position_embedding(
        o(q), sin=o(sin), cos=o(cos), position_ids=oar.to_tensor(ids),
        use_neox_rotary_style=False)[0]
    close(out, _rope_ref(q, sin[ids], cos[ids], False))
    qt = np.ascontiguousarray(q.transpose(1, 0, 2, 3))
    out_t = IF.fused_rotary_position_embedding(
        o(qt), sin=o(sin), cos=o(cos), position_ids=oar.to_tensor(ids),
        use_neox_rotary_style=False, time_major=True)[0]
    close(out_t, out.numpy().transpose(1, 0, 2, 3))
    s3, c3 = _tables(3, 4)
    out_t = IF.fused_rotary_position_embedding(o(qt), time_major=True)[0]
    close(out_t, _rope_ref(q, *(np.broadcast_to(t, (2, 3, 4)) for t in (s3, c3)),
                           True).transpose(1, 0, 2, 3))


# ---- transformer blocks -------------------------------------------------------------------
def _ffn_ref(x, w1, b1, w2, b2, s1, c1, s2, c2, act, pre, add_residual=True):
    h = ln_t(x, s1, c1) if pre else x
    h = act(h @ w1 + b1) @ w2 + b2
    out = x + h if add_residual else h
    return out if pre else ln_t(out, s2, c2)


@pytest.mark.parametrize("pre, act", [(False, "gelu"), (True, "relu")])
def test_fused_feedforward_values_and_grads(pre, act):
    arrays = [rand(2, 3, 4), rand(4, 6), rand(6), rand(6, 4), rand(4), rand(4), rand(4),
              rand(4), rand(4)]
    grads_match(lambda x, w1, b1, w2, b2, *ln: IF.fused_feedforward(
        x, w1, w2, b1, b2, *ln, activation=act, pre_layer_norm=pre, training=False),
                lambda *a: _ffn_ref(*a, TF.gelu if act == "gelu" else torch.relu, pre),
                arrays)


def test_fused_feedforward_dropout_placement_and_modes():
    x, w1, b1, w2, b2 = rand(2, 3, 4), rand(4, 6), rand(6), rand(6, 4), rand(4)
    xt = torch.tensor(x)
    args = [o(a) for a in (x, w1, w2, b1, b2)]
    # dropout2 = 1 removes the block: only the residual is normalised
    close(IF.fused_feedforward(*args, dropout1_rate=0.0, dropout2_rate=1.0), ln_t(xt))
    # dropout1 = 1 removes the activation: linear2 gives its bias alone
    close(IF.fused_feedforward(*args, dropout1_rate=1.0, dropout2_rate=0.0),
          ln_t(xt + torch.tensor(b2)))
    out = IF.fused_feedforward(*args, dropout1_rate=0.2, dropout2_rate=0.4, training=False,
                               mode="downscale_in_infer", add_residual=False)
    h = torch.relu(xt @ torch.tensor(w1) + torch.tensor(b1)) * 0.8
    close(out, ln_t((h @ torch.tensor(w2) + torch.tensor(b2)) * 0.6))


def _mha_ref(x, qkv_w, qkv_b, lw, lb, mask=None, pre=False, ln=(None, None), cache=None):
    hd = qkv_w.shape[2]
    h = ln_t(x, *ln) if pre else x
    q, k, v = torch.einsum("bse,tnde->tbnsd", h, qkv_w) + qkv_b[:, None, :, None, :]
    if cache is not None:
        k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
    s = q @ k.transpose(-1, -2) / np.sqrt(hd) + (0 if mask is None else mask)
    a = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(x.shape[0], x.shape[1], -1)
    out = x + a @ lw + lb
    return (out if pre else ln_t(out, *ln)), k, v


def test_fused_multi_head_attention_post_ln_with_mask_and_grads():
    mask = rand(2, 1, 3, 3)
    grads_match(
        lambda x, w, b, lw, lb, s, c: IF.fused_multi_head_attention(
            x, w, lw, qkv_bias=b, linear_bias=lb, ln_scale=s, ln_bias=c, attn_mask=o(mask),
            training=False),
        lambda x, w, b, lw, lb, s, c: _mha_ref(x, w, b, lw, lb, torch.tensor(mask),
                                               ln=(s, c))[0],
        [rand(2, 3, 4), rand(3, 2, 2, 4), rand(3, 2, 2), rand(4, 4), rand(4), rand(4),
         rand(4)])


def test_fused_multi_head_attention_pre_ln_bool_mask_transposed_weights_and_cache():
    x, w, b, lw, lb, s, c = (rand(2, 3, 4), rand(3, 2, 2, 4), rand(3, 2, 2), rand(4, 4),
                             rand(4), rand(4), rand(4))
    keep = RNG.random((2, 1, 3, 5)) > 0.3
    keep[..., 0] = True
    cache = rand(2, 2, 2, 2, 2)
    w2d = w.reshape(12, 4).T  # [embed_dim, 3 * embed_dim]
    out, cache_out = IF.fused_multi_head_attention(
        o(x), o(w2d), o(lw), pre_layer_norm=True, pre_ln_scale=o(s), pre_ln_bias=o(c),
        qkv_bias=o(b.reshape(12)), linear_bias=o(lb), cache_kv=o(cache),
        attn_mask=oar.to_tensor(keep), training=False, num_heads=2, transpose_qkv_wb=True)
    t = [torch.tensor(a) for a in (x, w, b, lw, lb)]
    ref, k, v = _mha_ref(*t, torch.tensor((keep - 1.0) * 1e9), pre=True,
                         ln=(torch.tensor(s), torch.tensor(c)), cache=torch.tensor(cache))
    close(out, ref)
    close(cache_out, torch.stack([k, v]))


def test_fused_multi_head_attention_dropouts():
    x, w, lw, lb = rand(2, 3, 4), rand(3, 2, 2, 4), rand(4, 4), rand(4)
    args = dict(x=o(x), qkv_weight=o(w), linear_weight=o(lw), linear_bias=o(lb))
    xt = torch.tensor(x)
    close(IF.fused_multi_head_attention(**args, dropout_rate=1.0, attn_dropout_rate=0.0),
          ln_t(xt))
    close(IF.fused_multi_head_attention(**args, dropout_rate=0.0, attn_dropout_rate=1.0),
          ln_t(xt + torch.tensor(lb)))
    oar.seed(5)
    a = IF.fused_multi_head_attention(**args, dropout_rate=0.3, attn_dropout_rate=0.3)
    oar.seed(5)
    close(a, IF.fused_multi_head_attention(**args, dropout_rate=0.3, attn_dropout_rate=0.3), 0)


def test_fused_bias_dropout_residual_layer_norm():
    grads_match(lambda x, r, b, s, c: IF.fused_bias_dropout_residual_layer_norm(
        x, r, b, s, c, training=False),
        lambda x, r, b, s, c: ln_t(r + x + b, s, c), [rand(2, 3, 4), rand(2, 3, 4), rand(4),
                                                      rand(4), rand(4)])
    x, r = rand(2, 4), rand(2, 4)
    close(IF.fused_bias_dropout_residual_layer_norm(o(x), o(r), dropout_rate=1.0),
          ln_t(torch.tensor(r)))
    close(IF.fused_bias_dropout_residual_layer_norm(
        o(x), o(r), dropout_rate=0.25, training=False, mode="downscale_in_infer"),
        ln_t(torch.tensor(r + 0.75 * x)))


# ---- layers -------------------------------------------------------------------------------
def _randomise(layer):
    layer.to(dtype="float64")
    for p in layer.parameters():
        p.set_value(rand(*p.shape))
    return layer


def test_fused_linear_layer():
    lin = _randomise(INN.FusedLinear(4, 3, transpose_weight=True))
    assert list(lin.weight.shape) == [3, 4]
    x = rand(2, 4)
    close(lin(o(x)), x @ lin.weight.numpy().T + lin.bias.numpy())
    assert INN.FusedLinear(4, 3, bias_attr=False).bias is None


def test_fused_dropout_add_layer():
    layer = INN.FusedDropoutAdd(p=0.4)
    x, y = rand(50, 40), rand(50, 40)
    oar.seed(3)
    a = layer(o(x), o(y))
    oar.seed(3)
    close(a, layer(o(x), o(y)), 0)
    assert np.abs(a.numpy() - x - y).max() > 0.1
    layer.eval()
    close(layer(o(x), o(y)), x + y)
    assert repr(layer) == "FusedDropoutAdd(p=0.4, mode=upscale_in_train)"


@pytest.mark.parametrize("pre", [False, True])
def test_fused_feed_forward_layer(pre):
    ffn = _randomise(INN.FusedFeedForward(4, 6, activation="gelu", normalize_before=pre))
    ffn.eval()
    p = {k: torch.tensor(v.numpy()) for k, v in ffn.state_dict().items()}
    ln1 = (p["_ln1_scale"], p["_ln1_bias"]) if pre else (None, None)
    ln2 = (None, None) if pre else (p["_ln2_scale"], p["_ln2_bias"])
    x = rand(2, 3, 4)
    close(ffn(o(x)), _ffn_ref(torch.tensor(x), p["_linear1_weight"], p["_linear1_bias"],
                              p["_linear2_weight"], p["_linear2_bias"], *ln1, *ln2,
                              TF.gelu, pre))


def test_fused_multi_head_attention_layer():
    mha = _randomise(INN.FusedMultiHeadAttention(4, 2, normalize_before=False))
    mha.eval()
    p = {k: torch.tensor(v.numpy()) for k, v in mha.state_dict().items()}
    x, keep = rand(2, 3, 4), RNG.random((2, 1, 3, 3)) > 0.2
    keep[..., 0] = True
    ref = _mha_ref(torch.tensor(x), p["qkv_weight"], p["qkv_bias"], p["linear_weight"],
                   p["linear_bias"], torch.tensor((keep - 1.0) * 1e9),
                   ln=(p["ln_scale"], p["ln_bias"]))[0]
    close(mha(o(x), attn_mask=oar.to_tensor(keep)), ref)


@pytest.mark.parametrize("pre", [False, True])
def test_fused_encoder_layer_equals_the_unfused_one(pre):
    fused = _randomise(INN.FusedTransformerEncoderLayer(4, 2, 6, dropout_rate=0.0,
                                                        normalize_before=pre))
    plain = oar.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, normalize_before=pre)
    plain.to(dtype="float64")
    f = {k: v.numpy() for k, v in fused.state_dict().items()}
    qkv = f["fused_attn.qkv_weight"].reshape(3, 4, 4)
    norm = "pre_ln" if pre else "ln"
    ffn_norm = "_ln1" if pre else "_ln2"
    mapping = {"self_attn.out_proj.weight": f["fused_attn.linear_weight"],
               "self_attn.out_proj.bias": f["fused_attn.linear_bias"],
               "linear1.weight": f["ffn._linear1_weight"], "linear1.bias": f["ffn._linear1_bias"],
               "linear2.weight": f["ffn._linear2_weight"], "linear2.bias": f["ffn._linear2_bias"],
               "norm1.weight": f[f"fused_attn.{norm}_scale"],
               "norm1.bias": f[f"fused_attn.{norm}_bias"],
               "norm2.weight": f[f"ffn.{ffn_norm}_scale"], "norm2.bias": f[f"ffn.{ffn_norm}_bias"]}
    for i, n in enumerate("qkv"):
        mapping[f"self_attn.{n}_proj.weight"] = qkv[i].T
        mapping[f"self_attn.{n}_proj.bias"] = f["fused_attn.qkv_bias"][i].reshape(4)
    plain.set_state_dict({k: o(v) for k, v in mapping.items()})
    fused.eval()
    plain.eval()
    x, mask = rand(2, 3, 4), rand(2, 1, 3, 3)
    close(fused(o(x), o(mask)), plain(o(x), o(mask)), 1e-9)


def test_layers_have_paddles_parameter_names_and_shapes():
    def names(layer):
        return [(k, list(v.shape)) for k, v in layer.state_dict().items()]

    assert names(INN.FusedFeedForward(4, 8, normalize_before=True)) == [
        ("_linear1_weight", [4, 8]), ("_linear1_bias", [8]), ("_linear2_weight", [8, 4]),
        ("_linear2_bias", [4]), ("_ln1_scale", [4]), ("_ln1_bias", [4])]
    assert names(INN.FusedMultiHeadAttention(4, 2, transpose_qkv_wb=True)) == [
        ("qkv_weight", [4, 12]), ("qkv_bias", [12]), ("linear_weight", [4, 4]),
        ("linear_bias", [4]), ("ln_scale", [4]), ("ln_bias", [4])]
    assert names(INN.FusedBiasDropoutResidualLayerNorm(4)) == [
        ("linear_bias", [4]), ("ln_scale", [4]), ("ln_bias", [4])]
    enc = [k for k, _ in names(INN.FusedTransformerEncoderLayer(4, 2, 8))]
    assert enc[:2] == ["fused_attn.qkv_weight", "fused_attn.qkv_bias"]
    assert enc[-2:] == ["ffn._ln2_scale", "ffn._ln2_bias"]
    mha = INN.FusedMultiHeadAttention(4, 2)
    close(mha.ln_scale, np.ones(4))
    close(mha.qkv_bias, np.zeros((3, 2, 2)))


def test_encoder_layer_training_dropout_is_seeded_and_cache_returned():
    layer = INN.FusedTransformerEncoderLayer(4, 2, 8, dropout_rate=0.3)
    x = o(rand(2, 3, 4)).astype("float32")
    oar.seed(9)
    a = layer(x)
    oar.seed(9)
    close(a, layer(x), 0)
    layer.eval()
    assert np.abs(a.numpy() - layer(x).numpy()).max() > 1e-3
    out, cache = layer(x, cache=oar.zeros([2, 2, 2, 1, 2]))
    assert list(out.shape) == [2, 3, 4] and list(cache.shape) == [2, 2, 2, 4, 2]


# ---- errors -------------------------------------------------------------------------------
X3 = o(rand(2, 3, 4))
ERRORS = [
    (lambda: IF.fused_matmul_bias(X3, o(rand(2, 4, 5)), o(rand(5))), ValueError,
     "fused_matmul_bias.*'y' must be 2-D"),
    (lambda: IF.fused_linear(X3, o(rand(5, 6)), o(rand(6))), ValueError,
     "fused_linear.*inner dimensions"),
    (lambda: IF.fused_linear(X3, o(rand(4, 6)), o(rand(5))), ValueError, "'bias'"),
    (lambda: IF.fused_linear([1.0], o(rand(4, 6))), TypeError, "fused_linear.*'x'"),
    (lambda: IF.fused_linear_activation(X3, o(rand(4, 6)), o(rand(6)), activation="tanh"),
     ValueError, "'activation'"),
    (lambda: IF.fused_bias_act(X3, act_method="swish"), ValueError, "'act_method'"),
    (lambda: IF.fused_bias_act(o(rand(2, 3)), act_method="swiglu"), ValueError, "even"),
    (lambda: IF.fused_bias_act(o(rand(4)), act_method="relu"), ValueError, "2-D"),
    (lambda: IF.fused_bias_act(X3, shift=o(rand(4))), ValueError, "'smooth'"),
    (lambda: IF.fused_bias_act(X3, dequant_scales=o(rand(4))), TypeError, "int32"),
    (lambda: IF.fused_bias_act(X3, o(rand(3))), ValueError, "'bias'"),
    (lambda: IF.fused_bias_act(X3, quant_scale=1.0, quant_round_type=2), ValueError,
     "quant_round_type"),
    (lambda: IF.fused_dropout_add(X3, X3, p=1.5), ValueError, "fused_dropout_add.*'p'"),
    (lambda: IF.fused_dropout_add(X3, X3, p="0.5"), TypeError, "'p'"),
    (lambda: IF.fused_dropout_add(X3, X3, mode="up"), ValueError, "'mode'"),
    (lambda: IF.fused_dropout_add(X3, o(rand(3, 3))), ValueError, "broadcast"),
    (lambda: IF.fused_layer_norm(X3, o(rand(5)), None, 1e-5, begin_norm_axis=2), ValueError,
     "fused_layer_norm.*'norm_weight'"),
    (lambda: IF.fused_layer_norm(X3, None, None, 1e-5, begin_norm_axis=3), ValueError,
     "begin_norm_axis"),
    (lambda: IF.fused_layer_norm(X3, None, None, 1e-5, 2, residual=o(rand(2, 3))), ValueError,
     "'residual'"),
    (lambda: IF.fused_rms_norm(X3, None, None, 1e-5, 2), TypeError, "'norm_weight'"),
    (lambda: IF.fused_rms_norm(X3, o(rand(4)), None, 1e-5, 2, bias=o(rand(3)),
                               residual=X3), ValueError, "'bias'"),
    (lambda: IF.fast_ln(X3, o(rand(3)), o(rand(4))), ValueError, "fast_ln.*'scale'"),
    (lambda: IF.fused_rms_norm_ext(X3, None), TypeError, "'scale'"),
    (lambda: IF.fused_rotary_position_embedding(X3), ValueError, "4-D"),
    (lambda: IF.fused_rotary_position_embedding(o(rand(1, 2, 1, 3))), ValueError, "even"),
    (lambda: IF.fused_rotary_position_embedding(o(rand(1, 2, 1, 4)), sin=o(rand(2, 4))),
     ValueError, "together"),
    (lambda: IF.fused_rotary_position_embedding(o(rand(1, 2, 1, 4)),
                                                use_neox_rotary_style=False), ValueError,
     "use_neox_rotary_style"),
    (lambda: IF.fused_rotary_position_embedding(o(rand(1, 2, 1, 4)), sin=o(rand(3, 4)),
                                                cos=o(rand(3, 4))), ValueError, "positions"),
    (lambda: IF.fused_rotary_position_embedding(
        o(rand(1, 2, 1, 4)), sin=o(rand(3, 4)), cos=o(rand(3, 4)),
        position_ids=oar.to_tensor([[0, 3]])), ValueError, "position_ids"),
    (lambda: IF.fused_rotary_position_embedding(o(rand(1, 2, 1, 4)), o(rand(1, 3, 1, 4))),
     ValueError, "'k'"),
    (lambda: IF.fused_feedforward(X3, o(rand(4, 6)), o(rand(6, 4)), activation="tanh"),
     ValueError, "fused_feedforward.*'activation'"),
    (lambda: IF.fused_feedforward(X3, o(rand(4, 6)), o(rand(6, 5))), ValueError,
     "'linear2_weight'"),
    (lambda: IF.fused_feedforward(X3, o(rand(4, 6)), o(rand(6, 4)), dropout1_rate=-0.1),
     ValueError, "'dropout1_rate'"),
    (lambda: IF.fused_feedforward(X3, o(rand(4, 6)), o(rand(6, 4)), dropout2_rate=None),
     TypeError, "'dropout2_rate'"),
    (lambda: IF.fused_multi_head_attention(o(rand(3, 4)), o(rand(3, 2, 2, 4)),
                                           o(rand(4, 4))), ValueError, "rank of 'x'"),
    (lambda: IF.fused_multi_head_attention(X3, o(rand(3, 2, 3, 4)), o(rand(4, 4))),
     ValueError, "'qkv_weight'"),
    (lambda: IF.fused_multi_head_attention(X3, o(rand(4, 12)), o(rand(4, 4)),
                                           transpose_qkv_wb=True), ValueError, "num_heads"),
    (lambda: IF.fused_multi_head_attention(X3, o(rand(3, 2, 2, 4)), o(rand(4, 4)),
                                           attn_mask=o(rand(2, 1, 3, 4))), ValueError,
     "'attn_mask'"),
    (lambda: IF.fused_multi_head_attention(X3, o(rand(3, 2, 2, 4)), o(rand(4, 4)),
                                           cache_kv=o(rand(2, 2, 2, 1, 3))), ValueError,
     "'cache_kv'"),
    (lambda: IF.fused_multi_head_attention(X3, o(rand(3, 2, 2, 4)), o(rand(4, 4)),
                                           attn_dropout_rate=2), ValueError,
     "'attn_dropout_rate'"),
    (lambda: IF.fused_bias_dropout_residual_layer_norm(X3, o(rand(2, 3))), ValueError,
     "'residual'"),
    (lambda: IF.fused_bias_dropout_residual_layer_norm(X3, X3, mode="x"), ValueError,
     "'mode'"),
    (lambda: INN.FusedMultiHeadAttention(5, 2), ValueError, "divisible"),
    (lambda: INN.FusedMultiHeadAttention(4, 2, need_weights=True), ValueError,
     "need_weights"),
    (lambda: INN.FusedFeedForward(4, 8, activation="tanh"), ValueError, "activation"),
    (lambda: INN.FusedFeedForward(0, 8), ValueError, "d_model"),
    (lambda: INN.FusedDropoutAdd(p=2), ValueError, "'p'"),
    (lambda: INN.FusedLinear(4, 0), ValueError, "out_features"),
]


@pytest.mark.parametrize("call, exc, match", ERRORS)
def test_typed_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
