"""Recurrent layers with Paddle's names, weight layouts and initializers: the cells
(SimpleRNNCell, LSTMCell, GRUCell), the sequence drivers RNN and BiRNN, and the
stacked SimpleRNN / LSTM / GRU.

Weights are [gates * hidden_size, input_size] (gate order i, f, g, o for LSTM and
r, z, c for GRU, as Paddle and PyTorch), all drawn from U(-1/sqrt(hidden_size),
1/sqrt(hidden_size)). For the built-in cells the input projection of every time step
is one GEMM; only the hidden-to-hidden product runs per step.

With the built-in cells (and no LSTM projection) a whole layer in one direction runs as
one fused op, `rnn` (src/oar/ops/rnn.yaml): the step loop and its backward in C++, first-
order gradients only. FLAGS_fused_rnn=False (or auto-cast, or a dtype other than float32/
float64) runs the same recurrence op by op, differentiable to any order (docs/rnn.md).
"""

from __future__ import annotations

from ...framework import check as _check

import math

from ... import _C
from ..initializer import Constant, Uniform
from .container import LayerList
from .layers import Layer
from ...tensor.manipulation import split
from ...tensor.creation import arange
from ..._C import unsqueeze
from ...tensor.manipulation import unstack
from ...tensor.manipulation import stack
from ..._C import transpose
from ...tensor.search import where
from ...tensor.creation import full
from ..._C import concat
from .. import functional as F
from ...framework.param import ParamAttr

__all__ = [
    "RNNCellBase",
    "SimpleRNNCell",
    "LSTMCell",
    "GRUCell",
    "RNN",
    "BiRNN",
    "SimpleRNN",
    "LSTM",
    "GRU",
]

Tensor = _C.Tensor
_BIDIRECT = ("bidirect", "bidirectional")


def _map(fn, *structs):
    """fn over the leaves of equally nested tuples/lists of tensors (an LSTM's (h, c))."""
    if isinstance(structs[0], (tuple, list)):
        return tuple(_map(fn, *parts) for parts in zip(*structs))
    return fn(*structs)


def _is_shape(s):
    return isinstance(s, (tuple, list)) and all(_check.is_int(d) for d in s)


def _positive_int(who, name, v, minimum=1):
    if not _check.is_int(v) or v < minimum:
        raise ValueError(f"{who}: argument '{name}' must be an int >= {minimum}, got {v!r}")


def _check_tensor(who, name, v):
    if not isinstance(v, Tensor):
        raise TypeError(f"{who}: argument '{name}' must be a Tensor, got {type(v).__name__}")


class RNNCellBase(Layer):
    """Base class of the cells: one time step, forward(inputs, states) ->
    (outputs, new_states). Subclasses give state_shape (without the batch axis)."""

    def get_initial_states(
        self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0
    ):
        """States filled with init_value, of state_shape (or shape) with the batch size of
        batch_ref (a tensor or nested tensors) along batch_dim_idx prepended."""
        ref = batch_ref
        while isinstance(ref, (tuple, list)):
            ref = ref[0]
        batch = ref.shape[batch_dim_idx]
        if dtype is None:
            # the input's float dtype (Paddle takes the global default, which breaks
            # float64 models that pass no initial state)
            dtype = ref.dtype if ref.dtype.is_floating_point else "float32"

        def build(s):
            if _is_shape(s):
                dims = list(s[1:]) if s and s[0] == -1 else list(s)
                return full([batch] + dims, init_value, dtype)
            return tuple(build(x) for x in s)

        return build(self.state_shape if shape is None else shape)

    @property
    def state_shape(self):
        raise NotImplementedError(
            f"{type(self).__name__}: a cell must define state_shape "
            f"(the shape of its states without the batch axis)"
        )


class _ProjectedCell(RNNCellBase):
    """A cell whose step is act(x W_ih^T + b_ih, h): the x term can be computed for all
    time steps at once (_input_proj) and the step (_step) takes it precomputed."""

    def _make_params(
        self,
        who,
        input_size,
        hidden_size,
        gates,
        hh_cols,
        weight_ih_attr,
        weight_hh_attr,
        bias_ih_attr,
        bias_hh_attr,
    ):
        _positive_int(who, "input_size", input_size)
        _positive_int(who, "hidden_size", hidden_size)
        std = 1.0 / math.sqrt(hidden_size)
        for name, shape, attr, is_bias in (
            ("weight_ih", [gates * hidden_size, input_size], weight_ih_attr, False),
            ("weight_hh", [gates * hidden_size, hh_cols], weight_hh_attr, False),
            ("bias_ih", [gates * hidden_size], bias_ih_attr, True),
            ("bias_hh", [gates * hidden_size], bias_hh_attr, True),
        ):
            if attr is False:
                # Paddle keeps a frozen constant (ones for weights, zeros for biases)
                p = self.create_parameter(
                    shape,
                    ParamAttr(trainable=False),
                    is_bias=is_bias,
                    default_initializer=Constant(0.0 if is_bias else 1.0),
                )
            else:
                p = self.create_parameter(
                    shape, attr, is_bias=is_bias, default_initializer=Uniform(-std, std)
                )
            setattr(self, name, p)
        self.input_size, self.hidden_size = input_size, hidden_size

    def _input_proj(self, x):
        y = _C.matmul(x, self.weight_ih, False, True)
        return y if self.bias_ih is None else y + self.bias_ih

    def _hidden_proj(self, h):
        y = _C.matmul(h, self.weight_hh, False, True)
        return y if self.bias_hh is None else y + self.bias_hh

    def forward(self, inputs, states=None):
        who = type(self).__name__
        _check_tensor(who, "inputs", inputs)
        if inputs.ndim != 2 or inputs.shape[-1] != self.input_size:
            raise ValueError(
                f"{who}: argument 'inputs' must be [batch_size, input_size="
                f"{self.input_size}], got shape {inputs.shape}"
            )
        if states is None:
            states = self.get_initial_states(inputs)
        return self._step(self._input_proj(inputs), states)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(_ProjectedCell):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act "tanh" or "relu". Returns (h', h')."""

    def __init__(
        self,
        input_size,
        hidden_size,
        activation="tanh",
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ValueError(
                f"SimpleRNNCell: argument 'activation' must be 'tanh' or 'relu', got {activation!r}"
            )
        self._make_params(
            "SimpleRNNCell",
            input_size,
            hidden_size,
            1,
            hidden_size,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
        )
        self.activation = activation

    def _step(self, xp, h):
        pre = xp + self._hidden_proj(h)
        h = _C.tanh(pre) if self.activation == "tanh" else _C.relu(pre)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = super().extra_repr()
        return s if self.activation == "tanh" else s + f", activation={self.activation}"


class LSTMCell(_ProjectedCell):
    """Gates i, f, g, o from x and h; c' = f c + i g, h' = o tanh(c') (times weight_ho
    [hidden_size, proj_size] when proj_size > 0). Returns (h', (h', c'))."""

    def __init__(
        self,
        input_size,
        hidden_size,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        proj_size=0,
        name=None,
    ):
        super().__init__()
        _positive_int("LSTMCell", "proj_size", proj_size, minimum=0)
        if isinstance(hidden_size, int) and proj_size >= hidden_size:
            raise ValueError(
                f"LSTMCell: argument 'proj_size' ({proj_size}) must be smaller "
                f"than hidden_size ({hidden_size})"
            )
        self._make_params(
            "LSTMCell",
            input_size,
            hidden_size,
            4,
            proj_size or hidden_size,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
        )
        self.proj_size = proj_size
        if proj_size > 0:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter(
                [hidden_size, proj_size], weight_hh_attr, default_initializer=Uniform(-std, std)
            )

    def _step(self, xp, states):
        h, c = states
        i, f, g, o = _split(xp + self._hidden_proj(h), 4)
        c = _C.sigmoid(f) * c + _C.sigmoid(i) * _C.tanh(g)
        h = _C.sigmoid(o) * _C.tanh(c)
        if self.proj_size > 0:
            h = _C.matmul(h, self.weight_ho, False, False)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))


class GRUCell(_ProjectedCell):
    """Gates r, z and candidate c = tanh(x_c + r (h W_hc^T + b_hc)); h' = z h + (1 - z) c.
    Returns (h', h')."""

    def __init__(
        self,
        input_size,
        hidden_size,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        super().__init__()
        self._make_params(
            "GRUCell",
            input_size,
            hidden_size,
            3,
            hidden_size,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
        )

    def _step(self, xp, h):
        x_r, x_z, x_c = _split(xp, 3)
        h_r, h_z, h_c = _split(self._hidden_proj(h), 3)
        r = _C.sigmoid(x_r + h_r)
        z = _C.sigmoid(x_z + h_z)
        c = _C.tanh(x_c + r * h_c)
        h = (h - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


def _split(x, n):
    return split(x, n, axis=-1)


# rnn's mode attribute per cell (src/oar/ops/rnn.yaml).
_FUSED_MODE = {"tanh": 0, "relu": 1, "LSTMCell": 2, "GRUCell": 3}


def _fused_mode(cell, x):
    """The fused op's mode for cell over x, or None when the layer runs op by op."""
    if type(cell) is SimpleRNNCell:
        mode = _FUSED_MODE[cell.activation]
    elif type(cell) is GRUCell or (type(cell) is LSTMCell and cell.proj_size == 0):
        mode = _FUSED_MODE[type(cell).__name__]
    else:
        return None
    if x.dtype.name not in ("float32", "float64") or _C._amp_state()[0] != 0:
        return None
    params = (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    if any(p is None or p.dtype != x.dtype for p in params):
        return None
    if not _C.get_flags("FLAGS_fused_rnn")["FLAGS_fused_rnn"]:
        return None
    return mode


def _run_fused(cell, mode, x, states, sequence_length, is_reverse, zero_padded):
    """One layer in one direction as the fused op: x [T, B, I] -> (y [T, B, H], states)."""
    steps = x.shape[0]
    lstm = mode == 2
    ins = [x, *states] if lstm else [x, states]
    ins += [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh]
    if sequence_length is not None:
        ins.append(sequence_length)
    out = _C.rnn(ins, mode, is_reverse, zero_padded)
    y = _C.slice(out, [0], [0], [steps])
    h = _C.squeeze(_C.slice(out, [0], [steps], [steps + 1]), [0])
    if not lstm:
        return y, h
    return y, (h, _C.squeeze(_C.slice(out, [0], [steps + 1], [steps + 2]), [0]))


def _check_lengths(who, sequence_length, batch):
    _check_tensor(who, "sequence_length", sequence_length)
    if (
        sequence_length.ndim != 1
        or sequence_length.shape[0] != batch
        or sequence_length.dtype.is_floating_point
    ):
        raise ValueError(
            f"{who}: argument 'sequence_length' must be an int Tensor of shape "
            f"[batch_size={batch}], got {sequence_length.dtype.name} of shape "
            f"{sequence_length.shape}"
        )


def _step_masks(sequence_length, steps):
    """Per time step, a [batch, 1] bool tensor: is step t inside the sequence."""
    t = arange(steps, dtype=sequence_length.dtype)
    inside = unsqueeze(t, 1) < unsqueeze(sequence_length, 0)  # [T, B]
    return [unsqueeze(m, 1) for m in unstack(inside, axis=0)]


def _check_inputs(who, inputs, cell, time_major):
    _check_tensor(who, "inputs", inputs)
    layout = (
        "[time_steps, batch_size, input_size]"
        if time_major
        else "[batch_size, time_steps, input_size]"
    )
    size = getattr(cell, "input_size", None)
    if inputs.ndim != 3 or (size is not None and inputs.shape[-1] != size):
        raise ValueError(
            f"{who}: argument 'inputs' must be 3-D {layout} with input_size="
            f"{size}, got shape {inputs.shape}"
        )


def _run(
    cell,
    inputs,
    states,
    sequence_length,
    time_major,
    is_reverse,
    zero_padded=False,
    who="RNN",
    **kwargs,
):
    """Unroll cell over the time axis of inputs. Past a sequence's length the states are
    carried unchanged; the outputs there are the cell's (Paddle's RNN) or zeros
    (zero_padded: Paddle's fused LSTM/GRU/SimpleRNN kernel)."""
    if inputs.shape[0 if time_major else 1] == 0:
        raise ValueError(f"{who}: argument 'inputs' has no time steps (shape {inputs.shape})")
    x = inputs if time_major else transpose(inputs, [1, 0, 2])
    steps, batch = x.shape[0], x.shape[1]
    if states is None:
        states = cell.get_initial_states(x, batch_dim_idx=1)
    if sequence_length is not None:
        _check_lengths(who, sequence_length, batch)
    mode = None if kwargs else _fused_mode(cell, x)
    if mode is not None:
        y, states = _run_fused(cell, mode, x, states, sequence_length, is_reverse, zero_padded)
        return (y if time_major else transpose(y, [1, 0, 2])), states
    masks = None if sequence_length is None else _step_masks(sequence_length, steps)
    fused = (
        isinstance(cell, _ProjectedCell)
        and type(cell).forward is _ProjectedCell.forward
        and not kwargs
    )
    xs = unstack(cell._input_proj(x) if fused else x, axis=0)
    outs = [None] * steps
    for t in range(steps - 1, -1, -1) if is_reverse else range(steps):
        out, new = cell._step(xs[t], states) if fused else cell(xs[t], states, **kwargs)
        if masks is not None:
            m = masks[t]
            new = _map(lambda n, o: where(m, n, o), new, states)
            if zero_padded:
                out = out * _C.cast(m, out.dtype)
        states, outs[t] = new, out
    y = stack(outs, axis=0)
    return (y if time_major else transpose(y, [1, 0, 2])), states


class RNN(Layer):
    """Runs cell over the time steps of inputs ([batch, time, ...], or [time, batch, ...]
    with time_major), back to front with is_reverse.

    forward(inputs, initial_states=None, sequence_length=None) -> (outputs, final_states).
    With sequence_length ([batch] ints), a sequence's states stop changing at its
    length; the outputs past it are still the cell's (as Paddle)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError(
                f"RNN: argument 'cell' must be an RNNCellBase layer, got {type(cell).__name__}"
            )
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        _check_inputs("RNN", inputs, self.cell, self.time_major)
        return _run(
            self.cell,
            inputs,
            initial_states,
            sequence_length,
            self.time_major,
            self.is_reverse,
            who="RNN",
            **kwargs,
        )


class BiRNN(Layer):
    """cell_fw front to back and cell_bw back to front over the same inputs; outputs
    concatenated on the last axis, final_states (states_fw, states_bw)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        if getattr(cell_fw, "input_size", None) != getattr(cell_bw, "input_size", None):
            raise ValueError(
                f"BiRNN: arguments 'cell_fw' and 'cell_bw' must have the same "
                f"input_size, got {getattr(cell_fw, 'input_size', None)} and "
                f"{getattr(cell_bw, 'input_size', None)}"
            )
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return self._forward(inputs, initial_states, sequence_length, False, "BiRNN", **kwargs)

    def _forward(self, inputs, initial_states, sequence_length, zero_padded, who, **kwargs):
        _check_inputs(who, inputs, self.cell_fw, self.time_major)
        if initial_states is None:
            initial_states = (None, None)
        elif not isinstance(initial_states, (tuple, list)) or len(initial_states) != 2:
            raise ValueError(
                f"{who}: argument 'initial_states' must be a pair (states of "
                f"cell_fw, states of cell_bw)"
            )
        out_fw, st_fw = _run(
            self.cell_fw,
            inputs,
            initial_states[0],
            sequence_length,
            self.time_major,
            False,
            zero_padded,
            who,
            **kwargs,
        )
        out_bw, st_bw = _run(
            self.cell_bw,
            inputs,
            initial_states[1],
            sequence_length,
            self.time_major,
            True,
            zero_padded,
            who,
            **kwargs,
        )
        return concat([out_fw, out_bw], axis=-1), (st_fw, st_bw)


class RNNBase(LayerList):
    """Stacked (and optionally bidirectional) RNN/BiRNN layers of one cell type.

    The parameters also appear under Paddle's flat names weight_ih_l{k}{_reverse},
    weight_hh_..., bias_ih_..., bias_hh_... (the same tensors), so state_dict() keys are
    Paddle's."""

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        direction="forward",
        time_major=False,
        dropout=0.0,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        proj_size=0,
    ):
        super().__init__()
        who = type(self).__name__
        _positive_int(who, "input_size", input_size)
        _positive_int(who, "hidden_size", hidden_size)
        _positive_int(who, "num_layers", num_layers)
        if direction not in ("forward",) + _BIDIRECT:
            raise ValueError(
                f"{who}: argument 'direction' must be 'forward', 'bidirect' or "
                f"'bidirectional', got {direction!r}"
            )
        if (
            isinstance(dropout, bool)
            or not isinstance(dropout, (int, float))
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                f"{who}: argument 'dropout' must be a float in [0, 1], got {dropout!r}"
            )
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = 2 if direction in _BIDIRECT else 1
        self.state_components = 2 if mode == "LSTM" else 1
        self.proj_size = proj_size
        attrs = dict(
            weight_ih_attr=weight_ih_attr,
            weight_hh_attr=weight_hh_attr,
            bias_ih_attr=bias_ih_attr,
            bias_hh_attr=bias_hh_attr,
        )
        if mode == "LSTM":
            make = lambda n: LSTMCell(n, hidden_size, proj_size=proj_size, **attrs)  # noqa: E731
        elif mode == "GRU":
            make = lambda n: GRUCell(n, hidden_size, **attrs)  # noqa: E731
        else:
            act = "relu" if mode == "RNN_RELU" else "tanh"
            make = lambda n: SimpleRNNCell(n, hidden_size, act, **attrs)  # noqa: E731
        out_size = (proj_size or hidden_size) * self.num_directions
        for layer in range(num_layers):
            n = input_size if layer == 0 else out_size
            if self.num_directions == 1:
                self.append(RNN(make(n), False, time_major))
            else:
                self.append(BiRNN(make(n), make(n), time_major))
        self._alias_parameters()

    def _cells(self):
        for layer in self:
            yield from ([layer.cell] if isinstance(layer, RNN) else [layer.cell_fw, layer.cell_bw])

    def _alias_parameters(self):
        for k, cell in enumerate(self._cells()):
            suffix = f"_l{k // self.num_directions}" + (
                "_reverse" if k % 2 and self.num_directions == 2 else ""
            )
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                setattr(self, name + suffix, getattr(cell, name))

    def to(self, device=None, dtype=None, blocking=None):
        # Layer.to replaces each registry's Parameter objects; re-point the aliases
        r = super().to(device, dtype, blocking)
        self._alias_parameters()
        return r

    def _split_states(self, states, batch):
        """initial_states ([L*D, B, H], or (h, c) for LSTM) -> per layer, the states of
        its RNN (or the (fw, bw) pair of its BiRNN)."""
        who = type(self).__name__
        n = self.num_layers * self.num_directions
        comps = states if self.state_components == 2 else (states,)
        if self.state_components == 2 and (
            not isinstance(states, (tuple, list)) or len(states) != 2
        ):
            raise ValueError(f"{who}: argument 'initial_states' must be a pair (h, c) of Tensors")
        per = []
        for comp, size in zip(comps, ((self.proj_size or self.hidden_size), self.hidden_size)):
            _check_tensor(who, "initial_states", comp)
            if comp.shape != [n, batch, size]:
                raise ValueError(
                    f"{who}: argument 'initial_states' must have shape "
                    f"[num_layers * num_directions, batch_size, hidden] = "
                    f"{[n, batch, size]}, got {comp.shape}"
                )
            per.append(unstack(comp, axis=0))
        cells = [
            tuple(p[i] for p in per) if self.state_components == 2 else per[0][i] for i in range(n)
        ]
        if self.num_directions == 1:
            return cells
        return [(cells[2 * i], cells[2 * i + 1]) for i in range(self.num_layers)]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        who = type(self).__name__
        _check_inputs(
            who,
            inputs,
            self[0].cell if self.num_directions == 1 else self[0].cell_fw,
            self.time_major,
        )
        batch = inputs.shape[1 if self.time_major else 0]
        states = (
            [None] * self.num_layers
            if initial_states is None
            else self._split_states(initial_states, batch)
        )
        # Paddle's fused kernel (used unless proj_size) zeroes outputs past the lengths
        zero_padded = self.proj_size == 0
        finals = []
        x = inputs
        for i, layer in enumerate(self):
            if i > 0 and self.dropout > 0:
                x = F.dropout(x, self.dropout, training=self.training)
            if self.num_directions == 1:
                x, st = _run(
                    layer.cell,
                    x,
                    states[i],
                    sequence_length,
                    self.time_major,
                    False,
                    zero_padded,
                    who,
                )
                finals.append(st)
            else:
                x, st = layer._forward(x, states[i], sequence_length, zero_padded, who)
                finals.extend(st)
        if self.state_components == 1:
            return x, stack(finals, axis=0)
        return x, (stack([s[0] for s in finals], axis=0), stack([s[1] for s in finals], axis=0))

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Stacked Elman RNN: forward(inputs, initial_states=None, sequence_length=None) ->
    (outputs [batch, time, D*hidden], final_states [num_layers*D, batch, hidden])."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        direction="forward",
        time_major=False,
        dropout=0.0,
        activation="tanh",
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        if activation not in ("tanh", "relu"):
            raise ValueError(
                f"SimpleRNN: argument 'activation' must be 'tanh' or 'relu', got {activation!r}"
            )
        super().__init__(
            "RNN_TANH" if activation == "tanh" else "RNN_RELU",
            input_size,
            hidden_size,
            num_layers,
            direction,
            time_major,
            dropout,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
        )
        self.activation = activation


class LSTM(RNNBase):
    """Stacked LSTM: forward(inputs, initial_states=None, sequence_length=None) ->
    (outputs, (h, c)), h and c of shape [num_layers*D, batch, hidden] (h: proj_size with
    a projection)."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        direction="forward",
        time_major=False,
        dropout=0.0,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        proj_size=0,
        name=None,
    ):
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            direction,
            time_major,
            dropout,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
            proj_size,
        )


class GRU(RNNBase):
    """Stacked GRU: forward(inputs, initial_states=None, sequence_length=None) ->
    (outputs, final_states [num_layers*D, batch, hidden])."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        direction="forward",
        time_major=False,
        dropout=0.0,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            direction,
            time_major,
            dropout,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
        )
