"""oar.nn.quant's weight-only / LLM.int8() linears and oar.nn.functional's flash-attention
variants, against independent references: the int8 bytes Paddle 3.3.1's CPU kernel wrote
(data/paddle_weight_quantize.json, made by weight_quantize in a Paddle 3.3.1 CPU
install), numpy re-derivations of the quantization formulas, and PyTorch attention with
the masks written out from Paddle's documentation. Also gradients, dropout seeding,
sdpa_kernel's backend selection and the argument errors."""
import json
import math
import os

import numpy as np
import pytest
import torch

import oar
import oar.nn.functional as F
from oar.nn.attention import SDPBackend, sdpa_kernel
from oar.nn.quant import llm_int8_linear, weight_dequantize, weight_only_linear, weight_quantize

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "paddle_weight_quantize.json")


def _rng(seed=0):
    return np.random.default_rng(seed)


def _o(a, grad=False, dtype=None):
    t = oar.to_tensor(np.asarray(a), dtype=dtype)
    t.stop_gradient = not grad
    return t


def _t(a, grad=False):
    return torch.tensor(np.asarray(a), requires_grad=grad)


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v.astype(np.float64)) + 0.5)


# ---- weight_quantize: Paddle's bytes -------------------------------------------------------

with open(DATA) as _f:
    GOLDEN = json.load(_f)


def _golden_weight():
    k, n = GOLDEN["k"], GOLDEN["n"]
    i, j = np.arange(k)[:, None], np.arange(n)[None, :]
    x = ((i * 37 + j * 91) % 251 - 125) / 50.0 * (1 + j % 5)
    x[:, 1] = 0.0
    return x.astype(np.float32)


def _case_id(c):
    return f"{c['algo']}-{c['dtype']}-arch{c['arch']}-g{c['group_size']}"


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=_case_id)
def test_weight_quantize_writes_paddles_bytes(case):
    x = _o(_golden_weight()).astype(case["dtype"])
    q, s = weight_quantize(x, algo=case["algo"], arch=case["arch"],
                           group_size=case["group_size"])
    assert q.dtype == oar.int8 and list(q.shape) == case["shape"]
    assert list(s.shape) == case["scale_shape"]
    want_scale = "float32" if case["algo"] == "llm.int8" else case["dtype"]
    assert s.dtype.name == want_scale
    np.testing.assert_array_equal(s.astype("float32").numpy().reshape(-1), case["scale"])
    np.testing.assert_array_equal(q.numpy().view(np.uint8).tobytes().hex(), case["q_hex"])


def test_arch_none_is_the_sm80_layout():
    x = _o(_golden_weight()).astype("float16")
    for algo in ("weight_only_int8", "weight_only_int4"):
        q0, _ = weight_quantize(x, algo=algo)
        for arch in (75, 80, 86, 89, 90):
            q1, _ = weight_quantize(x, algo=algo, arch=arch)
            np.testing.assert_array_equal(q0.numpy(), q1.numpy())


def _reference_quantize(x, bits, group_size, scale):
    """The signed values [k, n] of x at the given (stored) scale, by the formula."""
    k = x.shape[0]
    per_row = scale[None, :] if group_size == -1 else np.repeat(scale, group_size, 0)[:k]
    bound = 127 if bits == 8 else 7
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(_round_half_away(x / per_row), -bound, bound)


@pytest.mark.parametrize("case", [c for c in GOLDEN["cases"]
                                  if c["arch"] == 80 or c["algo"] == "llm.int8"], ids=_case_id)
def test_weight_dequantize_reads_paddles_bytes(case):
    # Paddle's own bytes and scales in, the formula's q * scale out
    bits = 4 if case["algo"] == "weight_only_int4" else 8
    raw = np.frombuffer(bytes.fromhex(case["q_hex"]), np.uint8).view(np.int8)
    q = _o(raw.reshape(case["shape"]))
    scale = np.asarray(case["scale"], np.float32).reshape(case["scale_shape"])
    dtype = "float32" if case["algo"] == "llm.int8" else case["dtype"]
    s = _o(scale).astype(dtype)
    x = _o(_golden_weight()).astype(case["dtype"]).astype("float32").numpy()
    ref = _reference_quantize(x, bits, case["group_size"], scale)
    g = case["group_size"]
    per_row = scale[None, :] if g == -1 else np.repeat(scale, g, 0)[:x.shape[0]]
    ref = np.where(per_row == 0, 0.0, ref * per_row)
    got = weight_dequantize(q, s, algo=case["algo"], group_size=g)
    assert got.dtype.name == dtype and list(got.shape) == list(x.shape)
    want = _o(ref.astype(np.float32)).astype(dtype).astype("float32").numpy()
    np.testing.assert_array_equal(got.astype("float32").numpy(), want)


def test_weight_quantize_error_bound_and_zero_channel():
    x = _rng(1).standard_normal((128, 32)).astype(np.float32)
    x[:, 5] = 0.0
    for algo, bound in (("weight_only_int8", 127), ("weight_only_int4", 7)):
        q, s = weight_quantize(_o(x), algo=algo, group_size=64)
        w = weight_dequantize(q, s, algo=algo, group_size=64).numpy()
        step = np.repeat(np.abs(x).reshape(2, 64, 32).max(1) / bound, 64, 0)
        assert np.all(np.abs(w - x) <= step / 2 + 1e-6)
        assert np.all(w[:, 5] == 0)


# ---- weight_only_linear / llm_int8_linear --------------------------------------------------

@pytest.mark.parametrize("weight_dtype,group_size", [("int8", -1), ("int4", 64), ("int4", -1),
                                                     ("int8", 128)])
def test_weight_only_linear_vs_torch(weight_dtype, group_size):
    rng = _rng(2)
    k, n = 128, 48
    w = rng.standard_normal((k, n)).astype(np.float32)
    x = rng.standard_normal((2, 3, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    algo = "weight_only_" + weight_dtype
    q, s = weight_quantize(_o(w), algo=algo, group_size=group_size)
    # the reference weight: the formula's q * scale from the float weight (not oar's decoder)
    scale = s.numpy()
    bits = 8 if weight_dtype == "int8" else 4
    per_row = scale[None, :] if group_size == -1 else np.repeat(scale, group_size, 0)[:k]
    w_hat = _reference_quantize(w, bits, group_size, scale) * per_row
    ox, ob = _o(x, grad=True), _o(b, grad=True)
    out = weight_only_linear(ox, q, ob, s, weight_dtype=weight_dtype, group_size=group_size)
    tx, tb = _t(x, True), _t(b, True)
    ref = tx @ _t(w_hat.astype(np.float32)) + tb
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-4)
    g = rng.standard_normal(ref.shape).astype(np.float32)
    (out * _o(g)).sum().backward()
    (ref * _t(g)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(ob.grad.numpy(), tb.grad.numpy(), rtol=1e-5, atol=1e-5)
    # arch 70 lays the same values out differently; the product must not change
    q70, s70 = weight_quantize(_o(w), algo=algo, arch=70, group_size=group_size)
    assert not np.array_equal(q70.numpy(), q.numpy())
    out70 = weight_only_linear(_o(x), q70, _o(b), s70, weight_dtype=weight_dtype, arch=70,
                               group_size=group_size)
    np.testing.assert_allclose(out70.numpy(), out.numpy(), rtol=0, atol=0)


def test_weight_only_linear_float16():
    rng = _rng(3)
    w = rng.standard_normal((64, 16)).astype(np.float32)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    q, s = weight_quantize(_o(w).astype("float16"))
    out = weight_only_linear(_o(x).astype("float16"), q, weight_scale=s)
    assert out.dtype == oar.float16
    w16 = _o(w).astype("float16").astype("float32").numpy()
    sc = s.astype("float32").numpy()
    w_hat = _reference_quantize(w16, 8, -1, sc) * sc
    x16 = _o(x).astype("float16").astype("float32").numpy()
    np.testing.assert_allclose(out.astype("float32").numpy(), x16 @ w_hat, rtol=2e-2, atol=2e-2)


def _llm_int8_reference(x, wq, ws, bias, threshold):
    """LLM.int8() by its definition: outlier features (|x| > threshold in any row) in
    float with the dequantized weight; the others row-quantized to int8, an integer GEMM,
    rescaled by row range * weight scale / 127."""
    x2 = x.reshape(-1, x.shape[-1]).astype(np.float64)
    out = np.zeros((x2.shape[0], wq.shape[0]))
    outl = (np.abs(x2) > threshold).any(0)
    for r in range(x2.shape[0]):
        rng_r = max((abs(v) for v in x2[r] if abs(v) <= threshold), default=0.0)
        for c in range(wq.shape[0]):
            acc, fp = 0, 0.0
            inv = np.float32(1) / np.float32(rng_r) if rng_r > 0 else None
            for f in range(x2.shape[1]):
                if outl[f]:
                    fp += x2[r, f] * wq[c, f] * ws[c]
                elif inv is not None:
                    # float32 as the kernel: x * 127 * (1 / range)
                    v = np.float32(np.float32(x2[r, f]) * np.float32(127)) * inv
                    acc += int(np.clip(_round_half_away(np.float32(v)), -127, 127)) * \
                        int(wq[c, f])
            out[r, c] = acc * rng_r * ws[c] / 127 + fp + bias[c]
    return out.reshape(x.shape[:-1] + (wq.shape[0],))


def test_llm_int8_linear_vs_reference():
    rng = _rng(4)
    k, n = 24, 16
    w = rng.standard_normal((k, n)).astype(np.float32)
    x = rng.standard_normal((2, 3, k)).astype(np.float32)
    x[0, 1, 5] = 9.0    # feature 5 is an outlier column for every row
    x[1, 2, 7] = -7.5   # and feature 7
    x[1, 0] = 0.0       # a row of zeros
    x[1, 0, 5] = 8.0    # ... but for an outlier value
    b = rng.standard_normal(n).astype(np.float32)
    q, s = weight_quantize(_o(w), algo="llm.int8")
    assert s.dtype == oar.float32 and list(q.shape) == [n, k]
    np.testing.assert_array_equal(q.numpy().T, np.clip(_round_half_away(
        w / (np.abs(w).max(0) / np.float32(127)).astype(np.float32)), -127, 127))
    xo = _o(x, grad=True)
    out = llm_int8_linear(xo, q, _o(b), s, threshold=6.0)
    ref = _llm_int8_reference(x, q.numpy(), s.numpy().astype(np.float64), b, 6.0)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-4)
    assert out.stop_gradient  # no gradient, as Paddle's op
    # without outliers every feature is quantized: close to the float product
    out2 = llm_int8_linear(_o(x.clip(-3, 3)), q, None, s, threshold=6.0)
    ref2 = _llm_int8_reference(x.clip(-3, 3), q.numpy(), s.numpy().astype(np.float64),
                               np.zeros(n), 6.0)
    np.testing.assert_allclose(out2.numpy(), ref2, rtol=1e-5, atol=1e-4)


def test_quant_errors():
    w = _o(np.ones((64, 16), np.float32))
    q, s = weight_quantize(w)
    with pytest.raises(ValueError, match="weight_quantize.*'algo'"):
        weight_quantize(w, algo="int2")
    with pytest.raises(TypeError, match="weight_quantize.*'algo'"):
        weight_quantize(w, algo=8)
    with pytest.raises(ValueError, match="weight_quantize.*'arch'"):
        weight_quantize(w, arch=61)
    with pytest.raises(ValueError, match="arch 100"):
        weight_quantize(w, arch=100)
    with pytest.raises(ValueError, match="weight_quantize.*'group_size'"):
        weight_quantize(w, group_size=32)
    with pytest.raises(ValueError, match="weight_quantize.*multiple of 16"):
        weight_quantize(_o(np.ones((64, 24), np.float32)))
    with pytest.raises(ValueError, match="weight_quantize.*multiple of 64"):
        weight_quantize(_o(np.ones((48, 16), np.float32)))
    weight_quantize(_o(np.ones((48, 16), np.float32)), arch=70)  # arch 70 has no k rule
    with pytest.raises(ValueError, match="weight_quantize.*'x' must be 2-D"):
        weight_quantize(_o(np.ones((2, 64, 16), np.float32)))
    with pytest.raises(TypeError, match="weight_quantize.*'x'"):
        weight_quantize(_o(np.ones((64, 16), np.int32)))
    with pytest.raises(TypeError, match="weight_quantize.*'x' must be Tensor"):
        weight_quantize(np.ones((64, 16)))
    x = _o(np.ones((2, 64), np.float32))
    with pytest.raises(ValueError, match="weight_only_linear.*'weight_scale' is required"):
        weight_only_linear(x, q)
    with pytest.raises(ValueError, match="weight_only_linear.*'weight_dtype'"):
        weight_only_linear(x, q, weight_scale=s, weight_dtype="int2")
    with pytest.raises(ValueError, match="weight_only_linear.*'weight_scale' must have shape"):
        weight_only_linear(x, q, weight_scale=_o(np.ones(8, np.float32)))
    with pytest.raises(ValueError, match="weight_only_linear.*'x' must end in"):
        weight_only_linear(_o(np.ones((2, 32), np.float32)), q, weight_scale=s)
    with pytest.raises(ValueError, match="weight_only_linear.*'bias'"):
        weight_only_linear(x, q, _o(np.ones(3, np.float32)), s)
    with pytest.raises(TypeError, match="weight_only_linear.*'weight' must be an int8"):
        weight_only_linear(x, w, weight_scale=s)
    with pytest.raises(ValueError, match="weight_dequantize.*'scale' must have shape"):
        weight_dequantize(q, s, algo="weight_only_int4")
    with pytest.raises(ValueError, match="llm_int8_linear.*'weight_scale' is required"):
        llm_int8_linear(x, q)
    with pytest.raises(TypeError, match="llm_int8_linear.*'threshold'"):
        llm_int8_linear(x, q, weight_scale=s, threshold="6")


# ---- attention references ------------------------------------------------------------------

def _torch_attention(q, k, v, keep=None, scale=None, softcap=0.0):
    """q [B, H, Lq, D], k/v [B, H, Lk, D] torch; keep bool broadcastable; rows with no key
    give 0 (the kernels' rule). Returns out and the log-sum-exp."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(-1, -2) * scale
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    if keep is not None:
        s = s.masked_fill(~torch.as_tensor(np.ascontiguousarray(keep)), float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return p @ v, lse, p


def _bhsd(a):
    return a.transpose(1, 2)


# ---- flash_attn_qkvpacked ------------------------------------------------------------------

@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("groups", [1, 2])
def test_flash_attn_qkvpacked_vs_torch(causal, groups):
    rng = _rng(5)
    b, s, hk, d = 2, 6, 2, 8
    qkv = rng.standard_normal((b, s, groups + 2, hk, d))
    oq = _o(qkv, grad=True)
    out, sm = F.flash_attn_qkvpacked(oq, 0.0, causal, True)
    assert list(out.shape) == [b, s, groups * hk, d]
    tq = _t(qkv, True)
    q = tq[:, :, :groups].reshape(b, s, groups * hk, d)
    # query head h reads key/value head h // groups (FlashAttention's GQA rule)
    k = tq[:, :, groups].repeat_interleave(groups, dim=2)
    v = tq[:, :, groups + 1].repeat_interleave(groups, dim=2)
    keep = np.tril(np.ones((s, s), bool)) if causal else None
    ref, _, p = _torch_attention(_bhsd(q), _bhsd(k), _bhsd(v), keep)
    ref = _bhsd(ref)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sm.numpy(), p.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(ref.shape)
    (out * _o(g)).sum().backward()
    (ref * _t(g)).sum().backward()
    np.testing.assert_allclose(oq.grad.numpy(), tq.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_flash_attn_qkvpacked_dropout_is_seeded():
    qkv = _o(_rng(6).standard_normal((1, 8, 3, 2, 4)).astype(np.float32))
    base, _ = F.flash_attn_qkvpacked(qkv, 0.0)
    seed = _o(np.array([123, 4], np.int64))
    a, wa = F.flash_attn_qkvpacked(qkv, 0.5, return_softmax=True, fixed_seed_offset=seed)
    b, wb = F.flash_attn_qkvpacked(qkv, 0.5, return_softmax=True, fixed_seed_offset=seed)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.allclose(a.numpy(), base.numpy())
    dropped = wa.numpy() == 0
    assert 0.3 < dropped.mean() < 0.7  # about half the weights dropped ...
    _, w0 = F.flash_attn_qkvpacked(qkv, 0.0, return_softmax=True)
    np.testing.assert_allclose(wa.numpy()[~dropped], 2 * w0.numpy()[~dropped], rtol=1e-6)
    oar.seed(7)
    c, _ = F.flash_attn_qkvpacked(qkv, 0.5)
    oar.seed(7)
    d, _ = F.flash_attn_qkvpacked(qkv, 0.5)
    np.testing.assert_array_equal(c.numpy(), d.numpy())
    e, _ = F.flash_attn_qkvpacked(qkv, 0.5, training=False)
    np.testing.assert_array_equal(e.numpy(), base.numpy())


# ---- the varlen forms ----------------------------------------------------------------------

def _per_sequence_reference(q, k, v, starts_q, lq, starts_k, lk, causal=False, window=(-1, -1),
                            softcap=0.0, scale=None, total_q=None):
    """Loop over the sequences with torch; bottom-right aligned causal / window band."""
    h, hk = q.shape[1], k.shape[1]
    out = torch.zeros(total_q, h, v.shape[-1], dtype=q.dtype)
    lse = torch.full((h, total_q), float("-inf"), dtype=q.dtype)
    for b in range(len(lq)):
        qs = q[starts_q[b]:starts_q[b] + lq[b]]
        ks = k[starts_k[b]:starts_k[b] + lk[b]].repeat_interleave(h // hk, 1)
        vs = v[starts_k[b]:starts_k[b] + lk[b]].repeat_interleave(h // hk, 1)
        i = np.arange(lq[b])[:, None] + lk[b] - lq[b]
        j = np.arange(lk[b])[None, :]
        keep = np.ones((lq[b], lk[b]), bool)
        right = 0 if causal else window[1]
        if right >= 0:
            keep &= j <= i + right
        if window[0] >= 0:
            keep &= j >= i - window[0]
        o, ls, _ = _torch_attention(qs.transpose(0, 1)[None], ks.transpose(0, 1)[None],
                                    vs.transpose(0, 1)[None], keep, scale, softcap)
        out = out.index_put((torch.arange(starts_q[b], starts_q[b] + lq[b]),),
                            o[0].transpose(0, 1))
        lse[:, starts_q[b]:starts_q[b] + lq[b]] = ls[0]
    return out, lse


@pytest.mark.parametrize("padded", [True, False])
@pytest.mark.parametrize("causal", [False, True])
def test_flash_attn_varlen_qkvpacked_vs_torch(padded, causal):
    rng = _rng(8)
    lens, m, hk, g, d = [3, 5, 0, 4], 5, 2, 2, 4
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    total = len(lens) * m if padded else int(cu[-1]) + 2  # two stray rows after the last
    qkv = rng.standard_normal((total, g + 2, hk, d))
    oq = _o(qkv, grad=True)
    out, sm = F.flash_attn_varlen_qkvpacked(oq, _o(cu), _o(cu), m, m, 0.7, causal=causal,
                                            return_softmax=True, varlen_padded=padded)
    starts = np.arange(len(lens)) * m if padded else cu[:-1]
    tq = _t(qkv, True)
    ref, _ = _per_sequence_reference(tq[:, :g].reshape(total, g * hk, d), tq[:, g],
                                     tq[:, g + 1], starts, lens, starts, lens, causal,
                                     scale=0.7, total_q=total)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert list(sm.shape) == [len(lens), g * hk, m, m]
    np.testing.assert_allclose(sm.numpy().sum(-1)[1, :, :5], 1.0, rtol=1e-12)
    assert (sm.numpy()[2] == 0).all()  # the empty sequence
    gr = rng.standard_normal(ref.shape)
    (out * _o(gr)).sum().backward()
    (ref * _t(gr)).sum().backward()
    np.testing.assert_allclose(oq.grad.numpy(), tq.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_flash_attention_v3_varlen_vs_torch():
    rng = _rng(9)
    lq, lk = [2, 4, 3], [5, 4, 6]      # more keys than queries: bottom-right causal
    h, hk, d = 4, 2, 8
    cq = np.concatenate([[0], np.cumsum(lq)]).astype(np.int32)
    ck = np.concatenate([[0], np.cumsum(lk)]).astype(np.int32)
    q = rng.standard_normal((cq[-1], h, d))
    k = rng.standard_normal((ck[-1], hk, d))
    v = rng.standard_normal((ck[-1], hk, 6))     # another head_dim for value
    for kw in (dict(causal=True), dict(window_size=(1, 2)),
               dict(causal=True, window_size=(2, -1), softcap=1.5, softmax_scale=0.3)):
        oq, ok, ov = _o(q, True), _o(k, True), _o(v, True)
        out, lse = F.flash_attention_v3_varlen(oq, ok, ov, _o(cq), _o(ck), 4, 6, **kw)
        assert lse.dtype == oar.float32 and list(lse.shape) == [h, cq[-1]]
        tq, tk, tv = _t(q, True), _t(k, True), _t(v, True)
        ref, rlse = _per_sequence_reference(
            tq, tk, tv, cq[:-1], lq, ck[:-1], lk, kw.get("causal", False),
            kw.get("window_size", (-1, -1)), kw.get("softcap", 0.0),
            kw.get("softmax_scale"), total_q=cq[-1])
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lse.numpy(), rlse.detach().numpy(), rtol=1e-5, atol=1e-5)
        gr = rng.standard_normal(ref.shape)
        (out * _o(gr)).sum().backward()
        (ref * _t(gr)).sum().backward()
        for a, b_ in ((oq, tq), (ok, tk), (ov, tv)):
            np.testing.assert_allclose(a.grad.numpy(), b_.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_flash_attention_v3_varlen_seqused():
    rng = _rng(10)
    cu = np.array([0, 4, 9], np.int32)
    q = rng.standard_normal((9, 2, 4))
    used_q, used_k = np.array([2, 5], np.int32), np.array([3, 1], np.int32)
    out, lse = F.flash_attention_v3_varlen(_o(q), _o(q), _o(q), _o(cu), _o(cu), 5, 5,
                                           seqused_q=_o(used_q), seqused_k=_o(used_k))
    tq = _t(q)
    ref, rlse = _per_sequence_reference(tq, tq, tq, cu[:-1], used_q, cu[:-1], used_k,
                                        total_q=9)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)
    assert (out.numpy()[2:4] == 0).all() and np.isneginf(lse.numpy()[:, 2:4]).all()
    np.testing.assert_allclose(lse.numpy(), rlse.numpy(), rtol=1e-5, atol=1e-5)


# ---- flashmask_attention -------------------------------------------------------------------

def _dense_flashmask(idx, causal, sq, sk):
    """Paddle's docstring recipe: for key column j, mask the rows its indices name."""
    bz, hm, _, nb = idx.shape
    keep = np.ones((bz, hm, sq, sk), bool)
    has_end = (causal and nb == 2) or (not causal and nb == 4)
    for b in range(bz):
        for h in range(hm):
            for j in range(sk):
                if has_end:
                    keep[b, h, idx[b, h, j, 0]:idx[b, h, j, 1], j] = False
                else:
                    keep[b, h, idx[b, h, j, 0]:, j] = False
                if causal:
                    keep[b, h, :j, j] = False
                elif has_end:
                    keep[b, h, idx[b, h, j, 2]:idx[b, h, j, 3], j] = False
                else:
                    keep[b, h, :idx[b, h, j, 1], j] = False
    return keep


def _doc_masks():
    """The docstring's examples (seq_len 10): causal 1 / 2 columns, non-causal 2 / 4."""
    lts = [4, 4, 4, 4, 10, 10, 10, 10, 10, 10]
    lte = [7, 7, 7, 7, 10, 10, 10, 10, 10, 10]
    doc = [3, 3, 3, 5, 5, 10, 10, 10, 10, 10]
    ute = [0, 0, 2, 3, 3, 5, 5, 7, 8, 9]
    g_lts, g_lte = [10, 10, 4, 5, 6, 7, 8, 9, 10, 10], [10] * 10
    g_uts, g_ute = [0, 0, 0, 0, 2, 2, 2, 2, 2, 2], [0, 0, 0, 0, 3, 4, 5, 6, 7, 8]
    return [
        (True, np.array([4, 4, 4, 4, 7, 7, 7, 10, 10, 10])[:, None]),   # causal document
        (True, np.stack([lts, lte], -1)),                                # causal blockwise
        (False, np.stack([doc, ute], -1)),                               # prefix LM document
        (False, np.stack([g_lts, g_lte, g_uts, g_ute], -1)),             # global + sliding
    ]


@pytest.mark.parametrize("case", range(4))
def test_flashmask_attention_vs_dense_mask(case):
    rng = _rng(11 + case)
    causal, cols = _doc_masks()[case]
    b, s, h, hk, d = 2, 10, 4, 2, 8
    idx = np.broadcast_to(cols[None, None], (b, 1, s, cols.shape[1])).astype(np.int32).copy()
    idx[1] = np.clip(idx[1] + 1, 0, s)  # another mask for the second batch entry
    q, k, v = (rng.standard_normal((b, s, hh, d)) for hh in (h, hk, hk))
    oq, ok, ov = _o(q, True), _o(k, True), _o(v, True)
    out, lse, so = F.flashmask_attention(oq, ok, ov, _o(idx), causal=causal,
                                         return_softmax_lse=True, return_seed_offset=True)
    keep = _dense_flashmask(idx, causal, s, s)
    tq, tk, tv = _t(q, True), _t(k, True), _t(v, True)
    ref, rlse, _ = _torch_attention(_bhsd(tq), _bhsd(tk).repeat_interleave(2, 1),
                                    _bhsd(tv).repeat_interleave(2, 1), keep)
    ref = _bhsd(ref)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    rl = rlse.detach().numpy()
    np.testing.assert_allclose(lse.numpy(), np.where(np.isneginf(rl), np.inf, rl), rtol=1e-5,
                               atol=1e-5)
    assert so.dtype == oar.int64 and so.numpy().tolist() == [0, 0]
    gr = rng.standard_normal(ref.shape)
    (out * _o(gr)).sum().backward()
    (ref * _t(gr)).sum().backward()
    for a, b_ in ((oq, tq), (ok, tk), (ov, tv)):
        np.testing.assert_allclose(a.grad.numpy(), b_.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_flashmask_docstring_example_zero_rows_and_window():
    # startend 8 (head 0) and 5 (head 1), causal: rows >= 8 / >= 5 see no key at all
    rng = _rng(15)
    q, k, v = (_o(rng.standard_normal((1, 10, 2, 32)).astype(np.float32)) for _ in range(3))
    idx = _o(np.array([8] * 10 + [5] * 10, np.int32).reshape(1, 2, 10, 1))
    out = F.flashmask_attention(q, k, v, idx, causal=True).numpy()
    assert (out[0, 8:, 0] == 0).all() and (out[0, 5:, 1] == 0).all()
    assert (np.abs(out[0, :8, 0]).sum(-1) > 0).all()
    # window_size is a startend_row_indices of the sliding-window shape
    for causal, w in ((True, 2), (False, (1, 3))):
        a = F.flashmask_attention(q, k, v, causal=causal, window_size=w)
        wl, wr = (w, w) if isinstance(w, int) else w
        lower = np.minimum(np.arange(wl + 1, 10 + wl + 1), 10)
        cols = lower[:, None] if causal else \
            np.stack([lower, np.clip(np.arange(-wr, 10 - wr), 0, 10)], -1)
        explicit = _o(cols[None, None].astype(np.int32))
        bb = F.flashmask_attention(q, k, v, explicit, causal=causal)
        np.testing.assert_array_equal(a.numpy(), bb.numpy())
    # no mask and not causal: plain attention
    plain = F.flashmask_attention(q, k, v)
    ref, _, _ = _torch_attention(_bhsd(_t(q.numpy())), _bhsd(_t(k.numpy())),
                                 _bhsd(_t(v.numpy())))
    np.testing.assert_allclose(plain.numpy(), _bhsd(ref).numpy(), rtol=1e-5, atol=1e-6)


def test_flashmask_dropout_seed_offset_round_trip():
    rng = _rng(16)
    q = _o(rng.standard_normal((1, 6, 2, 4)).astype(np.float32))
    out, so = F.flashmask_attention(q, q, q, dropout=0.5, return_seed_offset=True)
    assert so.numpy()[0] != 0
    again = F.flashmask_attention(q, q, q, dropout=0.5, fixed_seed_offset=so)
    np.testing.assert_array_equal(out.numpy(), again.numpy())
    assert not np.allclose(out.numpy(), F.flashmask_attention(q, q, q).numpy())


# ---- sparse_attention ----------------------------------------------------------------------

def test_sparse_attention_docstring_values():
    q = _o([[[[0, 1], [2, 3], [0, 1], [2, 3]]]], dtype="float32")
    off = _o(np.array([[[0, 2, 4, 6, 8]]], np.int32))
    col = _o(np.array([[[0, 1, 0, 1, 2, 3, 2, 3]]], np.int32))
    kp = _o([[1, 1, 1, 0]], dtype="float32")
    am = _o([[1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]], dtype="float32")
    out = F.sparse_attention(q, q, q, off, col, key_padding_mask=kp, attn_mask=am)
    np.testing.assert_allclose(out.numpy()[0, 0], [[0, 1], [1.9983027, 2.9983027], [0, 1],
                                                   [0, 1]], rtol=1e-6)
    out = F.sparse_attention(q, q, q, off, col)
    np.testing.assert_allclose(out.numpy()[0, 0], [[1.6088594, 2.6088595],
                                                   [1.9983027, 2.9983027],
                                                   [1.6088594, 2.6088595],
                                                   [1.9983027, 2.9983027]], rtol=1e-6)


def _csr(pattern):
    b, h, s = pattern.shape[:3]
    off = np.zeros((b, h, s + 1), np.int32)
    cols = np.zeros((b, h, max(1, pattern.sum(axis=(2, 3)).max())), np.int32)
    for bi in range(b):
        for hi in range(h):
            i, j = np.nonzero(pattern[bi, hi])
            off[bi, hi, 1:] = np.cumsum(pattern[bi, hi].sum(-1))
            cols[bi, hi, :j.size] = j
    return _o(off), _o(cols)


def test_sparse_attention_vs_torch():
    rng = _rng(17)
    b, h, s, d = 2, 2, 6, 4
    pattern = rng.random((b, h, s, s)) < 0.5
    pattern[0, 0, 3] = False                      # a row without entries -> 0
    pattern[1, 1, 2] = False
    pattern[1, 1, 2, 4] = True                    # its only key is masked below -> NaN
    kp = np.ones((b, s), np.float32)
    kp[1, 4] = 0.0
    am = (rng.random((s, s)) < 0.8).astype(np.float32)
    q, k, v = (rng.standard_normal((b, h, s, d)) for _ in range(3))
    off, cols = _csr(pattern)
    got = F.sparse_attention(_o(q), _o(k), _o(v), off, cols, key_padding_mask=_o(kp),
                             attn_mask=_o(am)).numpy()
    keep = pattern & (kp[:, None, None, :] != 0) & (am[None, None] != 0)
    ref, _, _ = _torch_attention(_t(q), _t(k), _t(v), keep)
    nan_rows = pattern.any(-1) & ~keep.any(-1)   # entries, all masked: 0/0 as the kernel
    assert nan_rows[1, 1, 2] and np.isnan(got[nan_rows]).all()
    assert (got[0, 0, 3] == 0).all()
    np.testing.assert_allclose(got[~nan_rows], ref.numpy()[~nan_rows], rtol=1e-10,
                               atol=1e-12)
    # gradients (no all-masked row, so no NaN), a listed-twice pair counting twice
    cnt = pattern.astype(int)
    cnt[0, 1, 0, 2] = 2
    off = np.zeros((b, h, s + 1), np.int32)
    cols = np.zeros((b, h, cnt.sum(axis=(2, 3)).max()), np.int32)
    for bi in range(b):
        for hi in range(h):
            c = [j for i in range(s) for j in range(s) for _ in range(cnt[bi, hi, i, j])]
            off[bi, hi, 1:] = np.cumsum(cnt[bi, hi].sum(-1))
            cols[bi, hi, :len(c)] = c
    oq, ok, ov = _o(q, True), _o(k, True), _o(v, True)
    out = F.sparse_attention(oq, ok, ov, _o(off), _o(cols))
    tq, tk, tv = _t(q, True), _t(k, True), _t(v, True)
    c = torch.as_tensor(cnt * 1.0)
    rows = (c.sum(-1, keepdim=True) > 0).double()
    sc = (tq @ tk.transpose(-1, -2)) / math.sqrt(d) + torch.log(c)
    sc = torch.where(rows > 0, sc, torch.zeros_like(sc))  # an empty row: no NaN gradient
    ref = (torch.softmax(sc, -1) * rows) @ tv
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    gr = rng.standard_normal(q.shape)
    (out * _o(gr)).sum().backward()
    (ref * _t(gr)).sum().backward()
    for a, b_ in ((oq, tq), (ok, tk), (ov, tv)):
        np.testing.assert_allclose(a.grad.numpy(), b_.grad.numpy(), rtol=1e-9, atol=1e-11)


# ---- sdpa_kernel's backend choice ----------------------------------------------------------

def test_sdpa_kernel_without_math_raises():
    q = _o(_rng(18).standard_normal((1, 4, 2, 8)).astype(np.float32))
    qkv = _o(_rng(18).standard_normal((1, 4, 3, 2, 8)).astype(np.float32))
    base = F.scaled_dot_product_attention(q, q, q)
    for backends in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                     [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION],
                     SDPBackend.ERROR):
        with sdpa_kernel(backends):
            with pytest.raises(RuntimeError, match="No available backend"):
                F.scaled_dot_product_attention(q, q, q)
            with pytest.raises(RuntimeError, match="flash_attn_qkvpacked.*No available"):
                F.flash_attn_qkvpacked(qkv)
            # an empty input takes the math path anyway, as in Paddle
            assert F.scaled_dot_product_attention(q[:0], q[:0], q[:0]).shape[0] == 0
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
        np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q).numpy(),
                                      base.numpy())
    with sdpa_kernel(SDPBackend.MATH):
        F.flash_attn_qkvpacked(qkv)
    F.scaled_dot_product_attention(q, q, q)  # the selection is restored


def test_attention_errors():
    q = _o(np.ones((1, 4, 2, 8), np.float32))
    cu = _o(np.array([0, 2, 4], np.int32))
    with pytest.raises(ValueError, match="flash_attn_qkvpacked.*'qkv' must be 5-D"):
        F.flash_attn_qkvpacked(q)
    with pytest.raises(ValueError, match="flash_attn_qkvpacked.*'dropout'"):
        F.flash_attn_qkvpacked(_o(np.ones((1, 4, 3, 2, 8), np.float32)), 1.5)
    with pytest.raises(TypeError, match="flash_attn_qkvpacked.*'causal'"):
        F.flash_attn_qkvpacked(_o(np.ones((1, 4, 3, 2, 8), np.float32)), causal="yes")
    qkv4 = _o(np.ones((4, 3, 2, 8), np.float32))
    with pytest.raises(ValueError, match="varlen_qkvpacked.*longer than max_seqlen_q"):
        F.flash_attn_varlen_qkvpacked(qkv4, cu, cu, 1, 2, 1.0, varlen_padded=False)
    with pytest.raises(ValueError, match="varlen_qkvpacked.*reaches past"):
        F.flash_attn_varlen_qkvpacked(qkv4, cu, cu, 3, 3, 1.0)
    with pytest.raises(ValueError, match="varlen_qkvpacked.*non-decreasing"):
        F.flash_attn_varlen_qkvpacked(qkv4, _o(np.array([0, 3, 1], np.int32)), cu, 3, 3, 1.0,
                                      varlen_padded=False)
    with pytest.raises(TypeError, match="varlen_qkvpacked.*'cu_seqlens_k' must be an int32"):
        F.flash_attn_varlen_qkvpacked(qkv4, cu, _o(np.array([0., 2, 4])), 2, 2, 1.0)
    x3 = _o(np.ones((4, 2, 8), np.float32))
    with pytest.raises(ValueError, match="v3_varlen.*'qv' must be None"):
        F.flash_attention_v3_varlen(x3, x3, x3, cu, cu, 2, 2, qv=x3)
    with pytest.raises(ValueError, match="v3_varlen.*'seqused_k'"):
        F.flash_attention_v3_varlen(x3, x3, x3, cu, cu, 2, 2,
                                    seqused_k=_o(np.array([3, 1], np.int32)))
    with pytest.raises(ValueError, match="v3_varlen.*multiple of the number of key/value"):
        F.flash_attention_v3_varlen(x3, _o(np.ones((4, 3, 8), np.float32)),
                                    _o(np.ones((4, 3, 8), np.float32)), cu, cu, 2, 2)
    with pytest.raises(ValueError, match="flashmask_attention.*last dimension"):
        F.flashmask_attention(q, q, q, _o(np.zeros((1, 1, 4, 3), np.int32)))
    with pytest.raises(ValueError, match="flashmask_attention.*last dimension"):
        F.flashmask_attention(q, q, q, _o(np.zeros((1, 1, 4, 4), np.int32)), causal=True)
    with pytest.raises(ValueError, match="flashmask_attention.*'startend_row_indices' must"):
        F.flashmask_attention(q, q, q, _o(np.zeros((1, 1, 5, 1), np.int32)), causal=True)
    with pytest.raises(ValueError, match="flashmask_attention.*cannot be used together"):
        F.flashmask_attention(q, q, q, _o(np.zeros((1, 1, 4, 1), np.int32)), window_size=1)
    with pytest.raises(TypeError, match="flashmask_attention.*'startend_row_indices'"):
        F.flashmask_attention(q, q, q, _o(np.zeros((1, 1, 4, 1), np.float32)))
    with pytest.raises(ValueError, match="flashmask_attention.*'block_mask' needs"):
        F.flashmask_attention(q, q, q, block_mask=_o(np.ones((1, 1, 1, 1), np.int32)))
    qs = _o(np.ones((1, 1, 4, 2), np.float32))
    with pytest.raises(ValueError, match="sparse_attention.*'sparse_csr_offset' must have"):
        F.sparse_attention(qs, qs, qs, _o(np.zeros((1, 1, 4), np.int32)),
                           _o(np.zeros((1, 1, 2), np.int32)))
    with pytest.raises(ValueError, match="sparse_attention.*'sparse_csr_columns' must be in"):
        F.sparse_attention(qs, qs, qs, _o(np.array([[[0, 1, 1, 1, 1]]], np.int32)),
                           _o(np.array([[[4]]], np.int32)))
    with pytest.raises(ValueError, match="sparse_attention.*'key_padding_mask'"):
        F.sparse_attention(qs, qs, qs, _o(np.array([[[0, 1, 1, 1, 1]]], np.int32)),
                           _o(np.array([[[0]]], np.int32)),
                           key_padding_mask=_o(np.ones((1, 3), np.float32)))


def test_exported_names():
    import oar.nn.quant as Q
    for n in ("weight_quantize", "weight_dequantize", "weight_only_linear", "llm_int8_linear"):
        assert n in Q.__all__ and callable(getattr(Q, n))
    for n in ("flash_attn_qkvpacked", "flash_attn_varlen_qkvpacked", "flash_attention_v3_varlen",
              "flashmask_attention", "sparse_attention"):
        assert callable(getattr(F, n))
