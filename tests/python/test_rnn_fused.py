"""The fused recurrent op (src/oar/ops/rnn.yaml) behind nn.SimpleRNN/LSTM/GRU and RNN/BiRNN
over the built-in cells: equal to the same layers run op by op (FLAGS_fused_rnn off) in
outputs, final states and every gradient, for each cell, direction, layer count,
sequence_length (zero-padded or not), initial states, time-major layout and dtype; first-
order only (the error names the way to higher orders, which the op-by-op path gives);
captured by to_static, saved and loaded; what falls back to op by op. The stacks against
PyTorch are in test_nn_rnn_attention.py; the packed op against a torch oracle in the op
registry (tests/op_cases/rnn.yaml)."""

import contextlib

import numpy as np
import pytest

import oar
import oar.nn as nn


@contextlib.contextmanager
def fused(on):
    old = oar.get_flags("FLAGS_fused_rnn")["FLAGS_fused_rnn"]
    oar.set_flags({"FLAGS_fused_rnn": on})
    try:
        yield
    finally:
        oar.set_flags({"FLAGS_fused_rnn": old})


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _flat(v)]
    return [x]


def _run(layer, x, *args, **kw):
    """Outputs, final states and the gradients of x, the initial states and every
    parameter for the loss sum(out * w) over all outputs, fixed random w."""
    layer.clear_gradients()
    x = oar.to_tensor(x, stop_gradient=False)
    args = [
        tuple(oar.to_tensor(s, stop_gradient=False) for s in a)
        if isinstance(a, tuple)
        else oar.to_tensor(a, stop_gradient=False)
        for a in args
    ]
    out = layer(x, *args, **kw)
    outs = _flat(out)
    rng = np.random.default_rng(5)
    loss = sum((o * oar.to_tensor(rng.standard_normal(o.shape))).sum() for o in outs)
    loss.backward()
    grads = [x.grad] + [a.grad for a in _flat(args)]
    grads += [p.grad for p in layer.parameters()]
    return [o.numpy() for o in outs], [None if g is None else g.numpy() for g in grads]


def _compare(make, x, *args, dtype="float64", tol=1e-10, **kw):
    oar.seed(3)
    layer = make()
    layer.to(dtype=dtype)
    x = x.astype(dtype)
    args = [tuple(s.astype(dtype) for s in a) if isinstance(a, tuple) else a for a in args]
    with fused(True):
        fo, fg = _run(layer, x, *args, **kw)
    with fused(False):
        so, sg = _run(layer, x, *args, **kw)
    for a, b in zip(fo, so):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    assert len(fg) == len(sg)
    for a, b in zip(fg, sg):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


STACKS = {
    "LSTM": lambda **k: nn.LSTM(3, 5, **k),
    "GRU": lambda **k: nn.GRU(3, 5, **k),
    "tanh": lambda **k: nn.SimpleRNN(3, 5, **k),
    "relu": lambda **k: nn.SimpleRNN(3, 5, activation="relu", **k),
}


@pytest.mark.parametrize("kind", list(STACKS))
@pytest.mark.parametrize(
    "layers,direction,time_major",
    [(1, "forward", False), (2, "bidirect", False), (3, "forward", True), (2, "bidirect", True)],
)
def test_stack_equals_op_by_op(kind, layers, direction, time_major):
    x = _x(7, 4, 3) if time_major else _x(4, 7, 3)
    _compare(lambda: STACKS[kind](num_layers=layers, direction=direction, time_major=time_major), x)


@pytest.mark.parametrize("kind", list(STACKS))
@pytest.mark.parametrize("direction", ["forward", "bidirect"])
def test_sequence_length_and_initial_states(kind, direction):
    d = 2 if direction == "bidirect" else 1
    comps = 2 if kind == "LSTM" else 1
    init = tuple(_x(2 * d, 4, 5, seed=9 + i) for i in range(comps))
    lengths = oar.to_tensor([6, 1, 0, 3], dtype="int64")
    _compare(
        lambda: STACKS[kind](num_layers=2, direction=direction),
        _x(4, 6, 3),
        init if comps == 2 else init[0],
        sequence_length=lengths,
    )


CELLS = {
    "LSTM": lambda: nn.LSTMCell(3, 4),
    "GRU": lambda: nn.GRUCell(3, 4),
    "tanh": lambda: nn.SimpleRNNCell(3, 4),
}


@pytest.mark.parametrize("kind", list(CELLS))
@pytest.mark.parametrize("is_reverse", [False, True])
def test_rnn_over_a_cell_keeps_the_outputs_past_the_end(kind, is_reverse):
    """nn.RNN's outputs past a sequence's end are the cell's, from the carried state (not
    zero): the fused op's zero_padded=False, gradients through them included."""
    lengths = oar.to_tensor([5, 2, 3], dtype="int64")
    _compare(
        lambda: nn.RNN(CELLS[kind](), is_reverse=is_reverse),
        _x(3, 5, 3),
        sequence_length=lengths,
    )


def test_birnn_over_cells():
    _compare(lambda: nn.BiRNN(nn.GRUCell(3, 4), nn.GRUCell(3, 4)), _x(2, 5, 3))


def test_float32_within_float32_rounding():
    _compare(lambda: nn.LSTM(3, 5, num_layers=2), _x(4, 9, 3), dtype="float32", tol=2e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "tanh"])
def test_float32_at_sizes_of_packed_steps(kind):
    # batch 16 and hidden 256 make every step's product at least 2^20 multiply-adds, so
    # the recurrent weight is packed once: the steps, forward and backward, run on the
    # panel kernel where AVX2 dispatch is allowed, its AVX-512 tile or its AVX2 one (Note
    # [A product of few rows streams its weight once]), else on oneDNN (Note [A recurrent
    # weight is packed once]); the op-by-op layers' matmuls run on oneDNN.
    make = {"LSTM": nn.LSTM, "GRU": nn.GRU, "tanh": nn.SimpleRNN}[kind]
    _compare(
        lambda: make(64, 256, direction="bidirect"),
        _x(16, 7, 64) * 0.3,
        dtype="float32",
        tol=2e-4,
    )


# Hidden sizes that make batch 16 times the gate width at least 2^14, so each step's rows
# are split over threads (Note [The rows of a step run in parallel] in rnn_kernels.cc).
WIDE = {
    "LSTM": (lambda **k: nn.LSTM(8, 256, **k), lambda: nn.LSTMCell(8, 256)),
    "GRU": (lambda **k: nn.GRU(8, 352, **k), lambda: nn.GRUCell(8, 352)),
    "tanh": (lambda **k: nn.SimpleRNN(8, 1024, **k), lambda: nn.SimpleRNNCell(8, 1024)),
    "relu": (
        lambda **k: nn.SimpleRNN(8, 1024, activation="relu", **k),
        lambda: nn.SimpleRNNCell(8, 1024, activation="relu"),
    ),
}


@pytest.mark.parametrize("kind", list(WIDE))
def test_rows_split_over_threads(kind):
    """Sequences of different lengths split over threads: zero-padded (the layers) and
    the cell's outputs past the end (RNN over a cell), both directions."""
    stack, cell = WIDE[kind]
    lengths = oar.to_tensor([5, 1, 0, 3, 5, 2, 4, 5, 1, 3, 5, 0, 2, 4, 5, 3], dtype="int64")
    x = _x(16, 5, 8) * 0.5
    _compare(lambda: stack(direction="bidirect"), x, sequence_length=lengths)
    _compare(lambda: stack(), x)
    _compare(lambda: nn.RNN(cell(), is_reverse=True), x, sequence_length=lengths)


def test_one_op_per_layer_and_direction():
    layer = nn.LSTM(3, 5, num_layers=2, direction="bidirect")
    x = oar.to_tensor(_x(2, 6, 3).astype("float32"))
    assert _captured_ops(layer, x).count("rnn") == 4
    with fused(False):
        ops = _captured_ops(nn.LSTM(3, 5), x)
    assert "rnn" not in ops and "matmul" in ops


def _captured_ops(layer, x):
    st = oar.jit.to_static(layer, full_graph=True)
    st(x)
    (prog,) = st.forward.concrete_programs()
    return [op["type"] for op in prog.program["ops"]]


def test_first_order_only_and_the_way_to_higher_orders():
    layer = nn.GRU(3, 4)
    layer.to(dtype="float64")
    x = oar.to_tensor(_x(2, 3, 3), stop_gradient=False)
    y, _ = layer(x)
    (gx,) = oar.grad([(y * y).sum()], [x], create_graph=True)
    with pytest.raises(NotImplementedError, match=r"rnn_grad.*first-order.*FLAGS_fused_rnn"):
        oar.grad([gx.sum()], [x])
    with fused(False):
        y, _ = layer(x)
        (gx,) = oar.grad([(y * y).sum()], [x], create_graph=True)
        (ggx,) = oar.grad([gx.sum()], [x])
    assert np.isfinite(ggx.numpy()).all() and np.abs(ggx.numpy()).sum() > 0


def test_auto_cast_runs_op_by_op():
    layer = nn.LSTM(3, 4)
    x = oar.to_tensor(_x(2, 3, 3).astype("float32"))
    with oar.amp.auto_cast(dtype="bfloat16"):
        y, _ = layer(x)
    with fused(False), oar.amp.auto_cast(dtype="bfloat16"):
        z, _ = layer(x)
    np.testing.assert_array_equal(y.numpy(), z.numpy())


def test_negative_length_is_an_error():
    layer = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="lengths must be >= 0"):
        layer(
            oar.to_tensor(_x(2, 3, 3).astype("float32")),
            sequence_length=oar.to_tensor([3, -1], dtype="int64"),
        )


def test_dropout_between_layers_still_applies():
    layer = nn.LSTM(3, 16, num_layers=2, dropout=0.5)
    x = oar.to_tensor(_x(2, 4, 3).astype("float32"))
    layer.train()
    a, _ = layer(x)
    b, _ = layer(x)
    assert not np.allclose(a.numpy(), b.numpy())
    layer.eval()
    c, _ = layer(x)
    d, _ = layer(x)
    np.testing.assert_array_equal(c.numpy(), d.numpy())


def test_save_load_serves_the_fused_layer(tmp_path):
    from oar.static import InputSpec

    layer = nn.LSTM(3, 5, num_layers=2)
    layer.eval()
    x = oar.to_tensor(_x(2, 6, 3).astype("float32"))
    want, _ = layer(x)
    path = str(tmp_path / "lstm")
    oar.jit.save(layer, path, input_spec=[InputSpec([None, 6, 3], "float32")])
    loaded = oar.jit.load(path)
    got = loaded(x)
    got = got[0] if isinstance(got, (tuple, list)) else got
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)
