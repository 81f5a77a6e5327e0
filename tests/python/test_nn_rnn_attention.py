"""oar.nn's recurrent and attention layers against PyTorch with copied weights: outputs,
final states and the gradients of inputs and weights (float64, so long recurrences
compare tightly), bidirectional / stacked / time-major / sequence_length, attention
masks and caches, eval-mode dropout, Paddle's state_dict keys and error messages, a
short LSTM training run; beam search with dynamic_decode; oar.nn.attention (SDPBackend,
sdpa_kernel)."""
import inspect

import numpy as np
import pytest
import torch

import oar
import oar.nn as nn
import oar.nn.functional as F

TNN = torch.nn
TOL = 1e-9


def _rng(seed=0):
    return np.random.default_rng(seed)


def _x(*shape, seed=0):
    return _rng(seed).standard_normal(shape)


def _o(a, grad=True):
    return oar.to_tensor(np.asarray(a), stop_gradient=not grad)


def _t(a, grad=True):
    return torch.tensor(np.asarray(a), requires_grad=grad)


def _close(a, b, tol=TOL):
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else b
    np.testing.assert_allclose(a.numpy(), b, rtol=tol, atol=tol)


def _load(layer, tlayer, transposed=()):
    """Copy torch's parameters into the oar layer by (the same) name; names in
    `transposed` are Linear weights ([out, in] in torch, [in, out] in oar)."""
    own = layer.state_dict()
    for k, v in tlayer.state_dict().items():
        v = v.detach().double().numpy()
        own[k].set_value(v.T if k in transposed else v)


def _loss(outs, seed=1):
    """sum(out * fixed random weights) over a flat list of outputs, for both libraries."""
    ws = [_rng(seed + i).standard_normal(o.shape) for i, o in enumerate(outs[0])]
    lo = sum((o * _o(w, False)).sum() for o, w in zip(outs[0], ws))
    lt = sum((o * _t(w, False)).sum() for o, w in zip(outs[1], ws))
    lo.backward()
    lt.backward()


def _flat(states):
    if isinstance(states, (tuple, list)):
        return [s for x in states for s in _flat(x)]
    return [states]


def _check_run(xo, xt, oar_out, torch_out, params):
    """(outputs, states) of both libraries equal, then the gradients of the input and of
    each (oar parameter, torch parameter) pair."""
    (yo, so), (yt, st) = oar_out, torch_out
    _close(yo, yt)
    for a, b in zip(_flat(so), _flat(st)):
        _close(a, b)
    _loss(([yo] + _flat(so), [yt] + _flat(st)))
    _close(xo.grad, xt.grad)
    for po, pt in params:
        _close(po.grad, pt.grad)


# ---- stacked recurrent layers -----------------------------------------------------------------
RNN_KINDS = {"LSTM": (nn.LSTM, TNN.LSTM), "GRU": (nn.GRU, TNN.GRU),
             "SimpleRNN": (nn.SimpleRNN, TNN.RNN)}


def _pair(kind, in_size, hidden, num_layers=1, bidirect=False, time_major=False, **kw):
    oc, tc = RNN_KINDS[kind]
    torch.manual_seed(0)
    tkw = dict(kw)
    if "activation" in tkw:
        tkw["nonlinearity"] = tkw.pop("activation")
    t = tc(in_size, hidden, num_layers, batch_first=not time_major, bidirectional=bidirect,
           **tkw).double()
    o = oc(in_size, hidden, num_layers, "bidirect" if bidirect else "forward", time_major,
           **kw)
    o.to(dtype="float64")
    _load(o, t)
    return o, t


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "SimpleRNN"])
@pytest.mark.parametrize("num_layers,bidirect,time_major",
                         [(1, False, False), (2, True, False), (2, False, True),
                          (2, True, True)])
def test_rnn_stack_matches_torch(kind, num_layers, bidirect, time_major):
    o, t = _pair(kind, 3, 5, num_layers, bidirect, time_major)
    x = _x(6, 4, 3) if time_major else _x(4, 6, 3)
    xo, xt = _o(x), _t(x)
    _check_run(xo, xt, o(xo), t(xt),
               [(o.state_dict()[n], p) for n, p in t.named_parameters()])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_rnn_initial_states(kind):
    o, t = _pair(kind, 3, 4, 2, bidirect=True)
    x = _x(2, 5, 3)
    comps = 2 if kind == "LSTM" else 1
    init = [_x(4, 2, 4, seed=10 + i) for i in range(comps)]
    io, it = [_o(s) for s in init], [_t(s) for s in init]
    yo, so = o(_o(x), tuple(io) if comps == 2 else io[0])
    yt, st = t(_t(x), tuple(it) if comps == 2 else it[0])
    _close(yo, yt)
    _loss(([yo] + _flat(so), [yt] + _flat(st)))
    for a, b in zip(io, it):
        _close(a.grad, b.grad)


def test_simple_rnn_relu():
    o, t = _pair("SimpleRNN", 3, 4, 2, bidirect=True, activation="relu")
    x = _x(2, 5, 3)
    yo, ho = o(_o(x))
    yt, ht = t(_t(x))
    _close(yo, yt)
    _close(ho, ht)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "SimpleRNN"])
@pytest.mark.parametrize("bidirect", [False, True])
def test_rnn_sequence_length_matches_packed_torch(kind, bidirect):
    """Paddle's fused kernel: states frozen past each length, outputs there zero — what
    torch gives for a packed sequence."""
    o, t = _pair(kind, 3, 4, 2, bidirect=bidirect)
    x = _x(3, 6, 3)
    lengths = [6, 2, 4]
    xo, xt = _o(x), _t(x)
    yo, so = o(xo, sequence_length=oar.to_tensor(lengths, dtype="int64"))
    packed = TNN.utils.rnn.pack_padded_sequence(xt, torch.tensor(lengths), batch_first=True,
                                                enforce_sorted=False)
    pt, st = t(packed)
    yt, _ = TNN.utils.rnn.pad_packed_sequence(pt, batch_first=True, total_length=6)
    _check_run(xo, xt, (yo, so), (yt, st),
               [(o.state_dict()[n], p) for n, p in t.named_parameters()])


def test_lstm_proj_size():
    torch.manual_seed(0)
    t = TNN.LSTM(3, 6, 2, batch_first=True, proj_size=2).double()
    o = nn.LSTM(3, 6, 2, proj_size=2)
    o.to(dtype="float64")
    sd = t.state_dict()
    for layer in range(2):
        cell = o[layer].cell
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).set_value(sd[f"{name}_l{layer}"].numpy())
        cell.weight_ho.set_value(sd[f"weight_hr_l{layer}"].numpy().T)
    x = _x(2, 5, 3)
    yo, (ho, co) = o(_o(x))
    yt, (ht, ct) = t(_t(x))
    assert ho.shape == [2, 2, 2] and co.shape == [2, 2, 6]
    _close(yo, yt)
    _close(ho, ht)
    _close(co, ct)


# ---- cells, RNN and BiRNN -----------------------------------------------------------------
CELLS = {"LSTMCell": (nn.LSTMCell, TNN.LSTMCell), "GRUCell": (nn.GRUCell, TNN.GRUCell),
         "SimpleRNNCell": (nn.SimpleRNNCell, TNN.RNNCell)}


def _cell_pair(kind, in_size=3, hidden=4, seed=0):
    oc, tc = CELLS[kind]
    torch.manual_seed(seed)
    t = tc(in_size, hidden).double()
    o = oc(in_size, hidden)
    o.to(dtype="float64")
    _load(o, t)
    return o, t


def _tstep(tcell, x, state):
    """torch cell step with Paddle's return convention (out, new_state)."""
    if isinstance(tcell, TNN.LSTMCell):
        h, c = tcell(x, state)
        return h, (h, c)
    h = tcell(x, state)
    return h, h


def _tunroll(tcell, x, state, lengths=None, reverse=False):
    """Reference unroll of a torch cell over x [B, T, I] with Paddle's RNN masking: the
    state stops changing past a sequence's length, the output there is still computed."""
    steps = x.shape[1]
    outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = _tstep(tcell, x[:, t], state)
        if lengths is not None:
            m = torch.tensor([[t < n] for n in lengths])
            if isinstance(new, tuple):
                new = tuple(torch.where(m, a, b) for a, b in zip(new, state))
            else:
                new = torch.where(m, new, state)
        state, outs[t] = new, out
    return torch.stack(outs, 1), state


def _zeros_state(kind, batch, hidden):
    z = torch.zeros(batch, hidden, dtype=torch.float64)
    return (z, z) if kind == "LSTMCell" else z


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "SimpleRNNCell"])
def test_cell_one_step(kind):
    o, t = _cell_pair(kind)
    x, h = _x(2, 3), _x(2, 4, seed=3)
    c = _x(2, 4, seed=4)
    xo, xt = _o(x), _t(x)
    so = (_o(h), _o(c)) if kind == "LSTMCell" else _o(h)
    st = (_t(h), _t(c)) if kind == "LSTMCell" else _t(h)
    yo, no = o(xo, so)
    yt, nt = _tstep(t, xt, st)
    _close(yo, yt)
    _loss((_flat(no), _flat(nt)))
    _close(xo.grad, xt.grad)
    for name, p in t.named_parameters():
        _close(getattr(o, name).grad, p.grad)
    # no states: zeros
    yo, _ = o(_o(x, False))
    _close(yo, _tstep(t, _t(x, False), _zeros_state(kind, 2, 4))[0])


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell"])
@pytest.mark.parametrize("is_reverse", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_rnn_wrapper(kind, is_reverse, masked):
    o, t = _cell_pair(kind)
    x = _x(3, 5, 3)
    lengths = [5, 1, 3] if masked else None
    xo, xt = _o(x), _t(x)
    rnn = nn.RNN(o, is_reverse=is_reverse)
    sl = oar.to_tensor(lengths) if masked else None
    yo, so = rnn(xo, sequence_length=sl)
    _check_run(xo, xt, (yo, so), _tunroll(t, xt, _zeros_state(kind, 3, 4), lengths,
                                          is_reverse),
               [(getattr(o, n), p) for n, p in t.named_parameters()])


def test_rnn_time_major_and_birnn():
    fw, tfw = _cell_pair("GRUCell", seed=0)
    bw, tbw = _cell_pair("GRUCell", seed=1)
    x = _x(5, 2, 3)  # time major
    bi = nn.BiRNN(fw, bw, time_major=True)
    h0 = [_x(2, 4, seed=7), _x(2, 4, seed=8)]
    yo, (sf, sb) = bi(_o(x), [_o(h0[0]), _o(h0[1])], oar.to_tensor([5, 3]))
    xt = _t(x).transpose(0, 1)
    yf, tf = _tunroll(tfw, xt, _t(h0[0]), [5, 3])
    yb, tb = _tunroll(tbw, xt, _t(h0[1]), [5, 3], reverse=True)
    _close(yo, torch.cat([yf, yb], -1).transpose(0, 1))
    _close(sf, tf)
    _close(sb, tb)


class _MinimalCell(nn.RNNCellBase):
    """A user cell: only forward and state_shape (the generic, per-step path)."""

    def __init__(self):
        super().__init__()
        self.input_size = 2
        self.w = self.create_parameter([2, 3])

    def forward(self, inputs, states):
        h = oar.tanh(oar.matmul(inputs, self.w) + states)
        return h, h

    @property
    def state_shape(self):
        return (3,)


def test_rnn_custom_cell():
    cell = _MinimalCell()
    x = _x(2, 4, 2).astype("float32")
    y, h = nn.RNN(cell)(_o(x))
    w = cell.w.numpy()
    ref = np.zeros([2, 3], np.float32)
    for t in range(4):
        ref = np.tanh(x[:, t] @ w + ref)
    np.testing.assert_allclose(h.numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.numpy()[:, -1], ref, rtol=1e-5, atol=1e-5)


# ---- names, initializers, modes -------------------------------------------------------------
def test_lstm_state_dict_keys_are_paddles():
    m = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    flat = [f"{w}_l{k}{s}" for k in range(2) for s in ("", "_reverse")
            for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    cells = [f"{k}.{c}.{w}" for k in range(2) for c in ("cell_fw", "cell_bw")
             for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert list(m.state_dict()) == flat + cells
    assert m.weight_hh_l1_reverse is m[1].cell_bw.weight_hh
    assert len(m.parameters()) == 16
    assert list(nn.GRU(3, 4).state_dict())[:4] == ["weight_ih_l0", "weight_hh_l0",
                                                    "bias_ih_l0", "bias_hh_l0"]
    assert list(nn.SimpleRNN(3, 4).state_dict())[4:] == [
        "0.cell.weight_ih", "0.cell.weight_hh", "0.cell.bias_ih", "0.cell.bias_hh"]
    m.to(dtype="float64")  # new Parameter objects: the flat names follow
    assert m.weight_ih_l0 is m[0].cell_fw.weight_ih and m.weight_ih_l0.dtype == oar.float64
    assert len(m.parameters()) == 16


def test_rnn_shapes_and_initializers():
    m = nn.GRU(3, 16)
    bound = 1 / np.sqrt(16)
    assert m.weight_ih_l0.shape == [48, 3] and m.weight_hh_l0.shape == [48, 16]
    for p in m.parameters():
        v = p.numpy()
        assert np.all(np.abs(v) <= bound) and v.std() > bound / 4
    cell = nn.LSTMCell(3, 4, bias_ih_attr=False)
    assert cell.bias_ih.stop_gradient and np.all(cell.bias_ih.numpy() == 0)


def test_dropout_between_layers_train_and_eval():
    oar.seed(0)
    m = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    ref = nn.LSTM(3, 8, num_layers=2)
    ref.set_state_dict(m.state_dict())
    x = _o(_x(2, 5, 3).astype("float32"), False)
    m.eval()
    np.testing.assert_array_equal(m(x)[0].numpy(), ref(x)[0].numpy())
    m.train()
    y = m(x)[0].numpy()
    assert np.all(np.isfinite(y)) and not np.allclose(y, ref(x)[0].numpy())


# ---- multi-head attention -------------------------------------------------------------------
def _mha_pair(e, h, kdim=None, vdim=None, need_weights=False):
    torch.manual_seed(0)
    t = TNN.MultiheadAttention(e, h, batch_first=True, kdim=kdim, vdim=vdim).double()
    o = nn.MultiHeadAttention(e, h, kdim=kdim, vdim=vdim, need_weights=need_weights)
    o.to(dtype="float64")
    _copy_mha(o, t)
    return o, t


def _copy_mha(o, t):
    e = o.embed_dim
    if t._qkv_same_embed_dim:
        ws = t.in_proj_weight.detach().numpy()
        ws = [ws[:e], ws[e:2 * e], ws[2 * e:]]
    else:
        ws = [getattr(t, f"{n}_proj_weight").detach().numpy() for n in "qkv"]
    b = t.in_proj_bias.detach().numpy()
    for i, proj in enumerate((o.q_proj, o.k_proj, o.v_proj)):
        proj.weight.set_value(ws[i].T)
        proj.bias.set_value(b[i * e:(i + 1) * e])
    o.out_proj.weight.set_value(t.out_proj.weight.detach().numpy().T)
    o.out_proj.bias.set_value(t.out_proj.bias.detach().numpy())


def _mha_grads(o, t):
    e = o.embed_dim
    if t._qkv_same_embed_dim:
        g = t.in_proj_weight.grad.numpy()
        gs = [g[:e], g[e:2 * e], g[2 * e:]]
    else:
        gs = [getattr(t, f"{n}_proj_weight").grad.numpy() for n in "qkv"]
    for proj, g in zip((o.q_proj, o.k_proj, o.v_proj), gs):
        _close(proj.weight.grad, g.T)
    _close(o.out_proj.weight.grad, t.out_proj.weight.grad.numpy().T)


@pytest.mark.parametrize("mask", [None, "bool", "float", "padding"])
def test_mha_self_attention(mask):
    o, t = _mha_pair(8, 2, need_weights=True)
    b, n = 2, 5
    x = _x(b, n, 8)
    xo, xt = _o(x), _t(x)
    mo = mt = None
    if mask == "bool":
        keep = np.tril(np.ones([n, n], bool))
        mo, mt = oar.to_tensor(keep), torch.tensor(~keep)
    elif mask == "float":
        add = _x(n, n, seed=5)
        mo, mt = oar.to_tensor(add), torch.tensor(add)
    elif mask == "padding":  # [B, 1, 1, S]: hide the last 2 keys of sequence 1
        keep = np.ones([b, 1, 1, n], bool)
        keep[1, ..., 3:] = False
        mo = oar.to_tensor(keep)
        mt = torch.tensor(np.repeat(np.broadcast_to(~keep, [b, 2, n, n]).reshape(b * 2, n, n),
                                    1, axis=0))
    yo, wo = o(xo, attn_mask=mo)
    yt, wt = t(xt, xt, xt, attn_mask=mt, average_attn_weights=False)
    _close(yo, yt)
    _close(wo, wt)
    _loss(([yo], [yt]))
    _close(xo.grad, xt.grad)
    _mha_grads(o, t)


def test_mha_cross_attention_kdim_vdim():
    o, t = _mha_pair(8, 4, kdim=6, vdim=3)
    q, k, v = _x(2, 3, 8), _x(2, 5, 6, seed=1), _x(2, 5, 3, seed=2)
    ins_o, ins_t = [_o(a) for a in (q, k, v)], [_t(a) for a in (q, k, v)]
    yo = o(*ins_o)
    yt, _ = t(*ins_t)
    _close(yo, yt)
    _loss(([yo], [yt]))
    for a, b in zip(ins_o, ins_t):
        _close(a.grad, b.grad)
    _mha_grads(o, t)


def test_mha_cache_incremental_equals_causal():
    oar.seed(0)
    m = nn.MultiHeadAttention(8, 2)
    x = _o(_x(2, 4, 8).astype("float32"), False)
    full = m(x, attn_mask=oar.to_tensor(np.tril(np.ones([4, 4], bool)))).numpy()
    cache = m.gen_cache(x)
    assert cache.k.shape == [2, 2, 0, 4]
    for i in range(4):
        step, cache = m(x[:, i:i + 1], cache=cache)
        np.testing.assert_allclose(step.numpy()[:, 0], full[:, i], rtol=1e-5, atol=1e-5)
    assert cache.k.shape == [2, 2, 4, 4]
    mem = _o(_x(2, 6, 8, seed=3).astype("float32"), False)
    static = m.gen_cache(mem, mem, type=nn.MultiHeadAttention.StaticCache)
    out, same = m(x, mem, mem, cache=static)
    assert same is static
    np.testing.assert_allclose(out.numpy(), m(x, mem, mem).numpy(), rtol=1e-6, atol=1e-6)


def test_mha_dropout_eval_is_identity():
    oar.seed(0)
    m = nn.MultiHeadAttention(8, 2, dropout=0.9)
    x = _o(_x(2, 4, 8).astype("float32"), False)
    m.eval()
    a = m(x).numpy()
    m.dropout = 0.0
    np.testing.assert_array_equal(a, m(x).numpy())


# ---- transformer layers ---------------------------------------------------------------------
def _copy_block(o, t):
    """Copy a torch encoder/decoder layer into an oar one (Paddle's sub-layer names)."""
    _copy_mha(o.self_attn, t.self_attn)
    if hasattr(t, "multihead_attn"):
        _copy_mha(o.cross_attn, t.multihead_attn)
    for name in ("linear1", "linear2"):
        getattr(o, name).weight.set_value(getattr(t, name).weight.detach().numpy().T)
        getattr(o, name).bias.set_value(getattr(t, name).bias.detach().numpy())
    for name in ("norm1", "norm2", "norm3"):
        if hasattr(t, name):
            getattr(o, name).weight.set_value(getattr(t, name).weight.detach().numpy())
            getattr(o, name).bias.set_value(getattr(t, name).bias.detach().numpy())


@pytest.mark.parametrize("normalize_before", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer(normalize_before, activation):
    torch.manual_seed(0)
    t = TNN.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                    batch_first=True, norm_first=normalize_before).double()
    o = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                   normalize_before=normalize_before)
    o.to(dtype="float64")
    _copy_block(o, t)
    x = _x(2, 5, 8)
    keep = np.tril(np.ones([5, 5], bool))
    xo, xt = _o(x), _t(x)
    yo = o(xo, src_mask=oar.to_tensor(keep))
    yt = t(xt, src_mask=torch.tensor(~keep))
    _close(yo, yt)
    _loss(([yo], [yt]))
    _close(xo.grad, xt.grad)
    _close(o.linear1.weight.grad, t.linear1.weight.grad.numpy().T)
    _close(o.norm1.weight.grad, t.norm1.weight.grad)
    _mha_grads(o.self_attn, t.self_attn)


def test_encoder_stack_and_eval_dropout():
    torch.manual_seed(0)
    tl = TNN.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).double()
    t = TNN.TransformerEncoder(tl, 3, norm=TNN.LayerNorm(8).double(),
                               enable_nested_tensor=False)
    o = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3), 3,
                              norm=nn.LayerNorm(8))
    assert len(o.layers) == 3 and o.layers[1] is not o.layers[0]
    assert not np.allclose(o.layers[1].linear1.weight.numpy(),
                           o.layers[0].linear1.weight.numpy())  # fresh layers, as Paddle
    o.to(dtype="float64")
    for lo, lt in zip(o.layers, t.layers):
        _copy_block(lo, lt)
    o.eval()
    x = _x(2, 4, 8)
    xo, xt = _o(x), _t(x)
    yo, yt = o(xo), t(xt)
    _close(yo, yt)
    _loss(([yo], [yt]))
    _close(xo.grad, xt.grad)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")  # torch's, about its fast path
@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_and_transformer(normalize_before):
    torch.manual_seed(0)
    t = TNN.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True,
                        norm_first=normalize_before).double()
    o = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, normalize_before=normalize_before)
    o.to(dtype="float64")
    for side in ("encoder", "decoder"):
        for lo, lt in zip(getattr(o, side).layers, getattr(t, side).layers):
            _copy_block(lo, lt)
        no, nt = getattr(o, side).norm, getattr(t, side).norm
        no.weight.set_value(nt.weight.detach().numpy())
        no.bias.set_value(nt.bias.detach().numpy())
    src, tgt = _x(2, 5, 8), _x(2, 4, 8, seed=1)
    so, to_, st, tt = _o(src), _o(tgt), _t(src), _t(tgt)
    mask = o.generate_square_subsequent_mask(4)
    assert mask.dtype == oar.float32
    yo = o(so, to_, tgt_mask=mask.astype("float64"))
    yt = t(st, tt, tgt_mask=t.generate_square_subsequent_mask(4, dtype=torch.float64))
    _close(yo, yt)
    _loss(([yo], [yt]))
    _close(so.grad, st.grad)
    _close(to_.grad, tt.grad)


def test_decoder_cache_incremental_equals_full():
    oar.seed(0)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    dec.eval()
    tgt = _o(_x(2, 4, 8).astype("float32"), False)
    mem = _o(_x(2, 6, 8, seed=1).astype("float32"), False)
    full = dec(tgt, mem, tgt_mask=oar.to_tensor(np.tril(np.ones([4, 4], bool)))).numpy()
    cache = dec.gen_cache(mem)
    for i in range(4):
        step, cache = dec(tgt[:, i:i + 1], mem, cache=cache)
        np.testing.assert_allclose(step.numpy()[:, 0], full[:, i], rtol=1e-5, atol=1e-5)


def test_transformer_state_dict_keys_are_paddles():
    keys = list(nn.TransformerEncoderLayer(8, 2, 16).state_dict())
    assert keys == [f"self_attn.{p}.{w}" for p in ("q_proj", "k_proj", "v_proj", "out_proj")
                    for w in ("weight", "bias")] + [
        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight",
        "norm1.bias", "norm2.weight", "norm2.bias"]
    dec = list(nn.TransformerDecoderLayer(8, 2, 16).state_dict())
    assert dec[8].startswith("cross_attn.") and dec[-2:] == ["norm3.weight", "norm3.bias"]
    assert nn.MultiHeadAttention(8, 2, kdim=3).k_proj.weight.shape == [3, 8]


# ---- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("make,call,exc,words", [
    (lambda: nn.LSTM(3, 4), lambda m: m(oar.zeros([2, 3])), ValueError, ["LSTM", "inputs"]),
    (lambda: nn.GRU(3, 4), lambda m: m(oar.zeros([2, 5, 4])), ValueError,
     ["GRU", "inputs", "input_size=3"]),
    (lambda: nn.LSTM(3, 4), lambda m: m(oar.zeros([2, 5, 3]), oar.zeros([1, 2, 4])),
     ValueError, ["LSTM", "initial_states", "(h, c)"]),
    (lambda: nn.GRU(3, 4, 2), lambda m: m(oar.zeros([2, 5, 3]), oar.zeros([1, 2, 4])),
     ValueError, ["GRU", "initial_states", "[2, 2, 4]"]),
    (lambda: nn.SimpleRNN(3, 4), lambda m: m(oar.zeros([2, 5, 3]), None,
                                             oar.to_tensor([5, 5, 5])),
     ValueError, ["SimpleRNN", "sequence_length", "batch_size=2"]),
    (lambda: nn.LSTMCell(3, 4), lambda m: m(oar.zeros([2, 5])), ValueError,
     ["LSTMCell", "inputs", "input_size=3"]),
    (lambda: nn.RNN(nn.GRUCell(3, 4)), lambda m: m("x"), TypeError, ["RNN", "inputs"]),
    (lambda: nn.MultiHeadAttention(8, 2), lambda m: m(oar.zeros([2, 8])), ValueError,
     ["MultiHeadAttention", "query", "embed_dim=8"]),
    (lambda: nn.MultiHeadAttention(8, 2, kdim=4), lambda m: m(oar.zeros([2, 3, 8])),
     ValueError, ["MultiHeadAttention", "key", "kdim=4"]),
    (lambda: nn.MultiHeadAttention(8, 2), lambda m: m(oar.zeros([2, 3, 8]),
                                                      attn_mask=np.ones([3, 3])),
     TypeError, ["MultiHeadAttention", "attn_mask"]),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16),
     lambda m: m(oar.zeros([2, 3, 4])), ValueError, ["TransformerEncoderLayer", "src"]),
])
def test_forward_errors(make, call, exc, words):
    m = make()
    with pytest.raises(exc) as e:
        call(m)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("make,words", [
    (lambda: nn.LSTM(3, 4, direction="up"), ["LSTM", "direction", "'up'"]),
    (lambda: nn.GRU(3, 0), ["GRU", "hidden_size"]),
    (lambda: nn.GRU(3, 4, num_layers=0), ["GRU", "num_layers"]),
    (lambda: nn.LSTM(3, 4, dropout=1.5), ["LSTM", "dropout"]),
    (lambda: nn.SimpleRNN(3, 4, activation="sigmoid"), ["SimpleRNN", "activation"]),
    (lambda: nn.SimpleRNNCell(3, 4, activation="gelu"), ["SimpleRNNCell", "activation"]),
    (lambda: nn.LSTMCell(3, 4, proj_size=4), ["LSTMCell", "proj_size"]),
    (lambda: nn.BiRNN(nn.GRUCell(3, 4), nn.GRUCell(2, 4)), ["BiRNN", "input_size"]),
    (lambda: nn.MultiHeadAttention(10, 3), ["MultiHeadAttention", "embed_dim", "num_heads"]),
    (lambda: nn.MultiHeadAttention(8, 0), ["MultiHeadAttention", "num_heads"]),
    (lambda: nn.TransformerEncoderLayer(8, 3, 16), ["TransformerEncoderLayer", "d_model"]),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16, activation="nope"),
     ["TransformerEncoderLayer", "activation"]),
    (lambda: nn.TransformerDecoderLayer(8, 2, 0), ["TransformerDecoderLayer",
                                                   "dim_feedforward"]),
])
def test_constructor_errors(make, words):
    with pytest.raises(ValueError) as e:
        make()
    for w in words:
        assert w in str(e.value)


def test_encoder_needs_an_encoder_layer():
    with pytest.raises(TypeError, match="TransformerEncoder"):
        nn.TransformerEncoder(nn.Linear(2, 2), 2)


# ---- training ---------------------------------------------------------------------------------
def test_lstm_learns_a_running_sum():
    """A tiny regression: the sum of a sequence's first feature. The loss must fall."""
    oar.seed(0)
    rng = _rng(0)
    x = rng.standard_normal([64, 6, 2]).astype("float32")
    y = x[:, :, :1].sum(1)
    lstm, head = nn.LSTM(2, 16), nn.Linear(16, 1)
    params = lstm.parameters() + head.parameters()
    opt = oar.optimizer.Adam(learning_rate=0.02, parameters=params)
    xo, yo = oar.to_tensor(x), oar.to_tensor(y)
    losses = []
    for _ in range(60):
        _, (h, _) = lstm(xo)
        loss = nn.functional.mse_loss(head(h[0]), yo)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.2 * losses[0]


def test_beam_search_decode():
    oar.seed(1)
    emb, out = nn.Embedding(12, 8), nn.Linear(8, 12)
    cell = nn.GRUCell(8, 8)
    dec = nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3,
                               embedding_fn=emb, output_fn=out)
    init = cell.get_initial_states(oar.ones([2, 5, 8]))
    ids, states, lengths = nn.dynamic_decode(dec, init, max_step_num=6, return_length=True)
    steps = ids.shape[1]
    assert ids.shape == [2, steps, 3] and 1 <= steps <= 7
    assert lengths.shape == [2, 3] and int(lengths.max().item()) <= steps
    # the beams are sorted best first: the kept log-probabilities do not increase
    lp = states.log_probs.numpy()
    assert (np.diff(lp, axis=1) <= 1e-6).all()
    # beam_size 1 is greedy decoding: replay the cell with the argmax token
    dec1 = nn.BeamSearchDecoder(cell, 0, 1, 1, emb, out)
    ids1, _ = nn.dynamic_decode(dec1, init, max_step_num=3)
    h, tok = init, oar.zeros([2], dtype="int64")
    for s in range(ids1.shape[1]):
        o, h = cell(emb(tok), h)
        tok = oar.argmax(F.log_softmax(out(o), -1), -1)
        done = ids1.numpy()[:, :s, 0] == 1
        np.testing.assert_array_equal(ids1.numpy()[:, s, 0][~done.any(1)],
                                      tok.numpy()[~done.any(1)])
    x = oar.rand([2, 3])
    np.testing.assert_array_equal(nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy(),
                                  np.repeat(x.numpy(), 2, 0))
    with pytest.raises(ValueError, match="beam_size"):
        nn.BeamSearchDecoder(cell, 0, 1, 0)
    with pytest.raises(TypeError, match="Decoder"):
        nn.dynamic_decode(object())


def test_sdp_backend_enum():
    from oar.nn.attention import SDPBackend
    assert [(b.name, int(b)) for b in SDPBackend] == [
        ("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2)]
    assert oar.nn.attention.__all__ == ["SDPBackend", "sdpa_kernel"]
    sig = inspect.signature(oar.nn.attention.sdpa_kernel)  # Paddle's, annotations aside
    plain = sig.replace(parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()],
                        return_annotation=sig.empty)
    assert str(plain) == "(backends, set_priority=False)"


def test_sdpa_kernel_select_and_restore():
    from oar.nn.attention import SDPBackend as B, _cur_sdpa_kernel_backends as cur, sdpa_kernel
    from oar.nn.attention import sdpa as S
    assert cur() == [B.MATH]  # the CPU has the math backend only
    with sdpa_kernel(B.FLASH_ATTENTION) as ctx:
        assert ctx == {} and cur() == [B.FLASH_ATTENTION]
    assert cur() == [B.MATH]
    with sdpa_kernel([B.MATH, B.FLASH_ATTENTION, B.MATH]):
        assert cur() == [B.MATH, B.FLASH_ATTENTION]
    with sdpa_kernel([B.EFFICIENT_ATTENTION, B.MATH], set_priority=True):
        assert S._current_priority == [B.EFFICIENT_ATTENTION, B.MATH, B.FLASH_ATTENTION]
        assert cur(True) == [B.EFFICIENT_ATTENTION, B.MATH]
    assert cur() == [B.MATH]
    assert S._current_priority == [B.FLASH_ATTENTION, B.EFFICIENT_ATTENTION, B.MATH]
    with sdpa_kernel(B.ERROR):
        assert cur() == []
    assert cur() == [B.MATH]
    with pytest.raises(KeyError):
        with sdpa_kernel(B.MATH):
            raise KeyError("inside")
    assert cur() == [B.MATH]
    q = oar.rand([2, 8, 4, 16])
    with sdpa_kernel(B.MATH):
        out = nn.functional.scaled_dot_product_attention(q, q, q)
    assert list(out.shape) == [2, 8, 4, 16]


@pytest.mark.parametrize("bad,exc,match", [
    ((0,), AssertionError, "Backend must be an instance of SDPBackend"),
    ("MATH", AssertionError, "Backend must be an instance of SDPBackend"),
    (0, AssertionError, "Backend must be an instance of SDPBackend"),
    ([], ValueError, "At least one backend must be specified"),
    ([0], TypeError, "All backends must be SDPBackend instances, got <class 'int'>"),
])
def test_sdpa_kernel_errors(bad, exc, match):
    from oar.nn.attention import sdpa_kernel
    if bad == (0,):
        from oar.nn.attention import SDPBackend
        bad = (SDPBackend.MATH,)
    with pytest.raises(exc, match=match):
        with sdpa_kernel(bad):
            pass
