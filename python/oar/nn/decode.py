"""Decoding with RNN cells (Paddle's paddle.nn.decode): the Decoder interface,
BeamSearchDecoder and dynamic_decode, which runs a decoder step by step until every
sequence has finished (eager mode: a Python loop).

Beam search keeps beam_size hypotheses per batch entry. Each step runs the cell on all
of them ([batch * beam, ...]), adds the step's log-softmax to each hypothesis's total,
and keeps the beam_size best (hypothesis, token) pairs; a finished hypothesis can only
continue with end_token at no cost. finalize traces the kept tokens back through their
parents with gather_tree.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from .. import _C
from ..framework.typing import Tensor
from ..tensor.creation import to_tensor
from ..framework.dtype import convert_dtype
from ..tensor.search import topk
from .functional.extension import gather_tree

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]


def _map(fn, *structs):
    """fn over the leaves of equally nested tuples/lists/namedtuples of tensors."""
    first = structs[0]
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(_map(fn, *parts) for parts in zip(*structs)))
    if isinstance(first, (tuple, list)):
        return type(first)(_map(fn, *parts) for parts in zip(*structs))
    return fn(*structs)


def _leaves(s):
    if isinstance(s, (tuple, list)):
        return [leaf for part in s for leaf in _leaves(part)]
    return [s]


class Decoder:
    """The interface dynamic_decode drives: initialize(inits) -> (inputs, states,
    finished); step(time, inputs, states, **kwargs) -> (outputs, next_states,
    next_inputs, finished); finalize(outputs, final_states, sequence_lengths) ->
    (outputs, final_states) (optional); tracks_own_finished: whether step already keeps
    finished sequences finished (and reports their lengths in next_states.lengths)."""

    def initialize(self, inits):
        raise NotImplementedError(f"{type(self).__name__} must implement initialize()")

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement step()")

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError(f"{type(self).__name__} has no finalize()")

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell.

    Args:
        cell: an RNNCellBase (forward(inputs, states) -> (outputs, new_states)).
        start_token, end_token: the ids that start and end a sequence.
        beam_size: the hypotheses kept per batch entry.
        embedding_fn: maps token ids [batch, beam] to the cell's inputs (e.g. an
            Embedding); None feeds the ids themselves.
        output_fn: maps the cell's outputs to vocabulary logits (e.g. a Linear).
    """

    OutputWrapper = collections.namedtuple(
        "OutputWrapper", ["scores", "predicted_ids", "parent_ids"]
    )
    StateWrapper = collections.namedtuple(
        "StateWrapper", ["cell_states", "log_probs", "finished", "lengths"]
    )
    kinf = 1e9  # the log-probability of the impossible

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        for n, v in (("start_token", start_token), ("end_token", end_token)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(
                    f"BeamSearchDecoder: argument '{n}' must be an int, got {type(v).__name__}"
                )
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size < 1:
            raise ValueError(
                f"BeamSearchDecoder: argument 'beam_size' must be a positive int, got {beam_size!r}"
            )
        if not callable(cell):
            raise TypeError(
                f"BeamSearchDecoder: argument 'cell' must be an RNN cell, got {type(cell).__name__}"
            )
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token = int(start_token), int(end_token)
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """x [batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times
        in a row (to feed encoder outputs to the beams)."""
        y = _C.unsqueeze(x, [1])
        y = _C.expand(y, [x.shape[0], beam_size] + list(x.shape[1:]))
        return _C.reshape(y, [x.shape[0] * beam_size] + list(x.shape[1:]))

    def _expand_to_beam_size(self, x):
        y = _C.unsqueeze(x, [1])
        return _C.expand(y, [x.shape[0], self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return _C.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        return _C.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _gather_beams(self, x, beam_indices):
        """x [batch, beam, ...] reordered along beam by beam_indices [batch, beam]."""
        idx = beam_indices
        for _ in range(x.ndim - 2):
            idx = _C.unsqueeze(idx, [-1])
        idx = _C.expand(idx, list(beam_indices.shape) + list(x.shape[2:]))
        return _C.take_along_axis(x, idx, 1)

    def initialize(self, initial_cell_states):
        """(start inputs, the beam states, finished) for the cell's initial states."""
        state = _leaves(initial_cell_states)[0]
        batch = state.shape[0]
        dtype = state.dtype if state.dtype.is_floating_point else convert_dtype("float32")
        cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        ids = _C.full([batch, self.beam_size], self.start_token, convert_dtype("int64"))
        first = np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)])
        log_probs = _C.cast(to_tensor(np.repeat(first, batch, 0)), dtype)
        finished = _C.full([batch, self.beam_size], False, convert_dtype("bool"))
        lengths = _C.full([batch, self.beam_size], 0, convert_dtype("int64"))
        inputs = self.embedding_fn(ids) if self.embedding_fn else ids
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, logits, next_cell_states, beam_state):
        batch, beam, vocab = logits.shape
        step_lp = _C.log_softmax(logits, 2)
        # a finished hypothesis continues only with end_token, at no cost
        noend = np.full([vocab], -self.kinf)
        noend[self.end_token] = 0.0
        done = _C.unsqueeze(_C.cast(beam_state.finished, step_lp.dtype), [2])
        step_lp = done * _C.cast(to_tensor(noend), step_lp.dtype) + (1.0 - done) * step_lp
        total = step_lp + _C.unsqueeze(beam_state.log_probs, [2])
        flat = _C.reshape(total, [batch, beam * vocab])
        top_scores, top_index = topk(flat, beam, axis=-1)
        beam_indices = _C.floor_divide(top_index, _C.full_like(top_index, vocab))
        token_indices = _C.remainder(top_index, _C.full_like(top_index, vocab))
        next_cell_states = _map(lambda s: self._gather_beams(s, beam_indices), next_cell_states)
        finished = self._gather_beams(beam_state.finished, beam_indices)
        lengths = self._gather_beams(beam_state.lengths, beam_indices)
        lengths = lengths + _C.cast(_C.logical_not(finished), lengths.dtype)
        finished = _C.logical_or(
            finished, _C.equal(token_indices, _C.full_like(token_indices, self.end_token))
        )
        return (
            self.OutputWrapper(top_scores, token_indices, beam_indices),
            self.StateWrapper(next_cell_states, top_scores, finished, lengths),
        )

    def step(self, time, inputs, states, **kwargs):
        """One step of the cell on every hypothesis, then the beam search."""
        merged_inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        outputs, next_cell_states = self.cell(merged_inputs, cell_states, **kwargs)
        outputs = _map(self._split_batch_beams, outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            outputs = self.output_fn(outputs)
        out, state = self._beam_search_step(outputs, next_cell_states, states)
        ids = out.predicted_ids.detach()
        next_inputs = self.embedding_fn(ids) if self.embedding_fn else ids
        return out, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """The full token sequences [time, batch, beam], traced back through the parents."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        return True


def dynamic_decode(
    decoder: Decoder,
    inits: Any = None,
    max_step_num: int | None = None,
    output_time_major: bool = False,
    impute_finished: bool = False,
    is_test: bool = False,
    return_length: bool = False,
    **kwargs: Any,
) -> tuple[Any, Any] | tuple[Any, Any, Tensor]:
    """Runs decoder.step until every sequence has finished, or for max_step_num + 1 steps
    (Paddle's count). Returns (outputs, final_states), plus the sequence lengths with
    return_length; the outputs are stacked over time on axis 1 (axis 0 with
    output_time_major) and passed through decoder.finalize when it has one. With
    impute_finished, finished entries keep their states. kwargs go to every step."""
    if not isinstance(decoder, Decoder):
        raise TypeError(
            f"dynamic_decode(): argument 'decoder' must be a Decoder, got {type(decoder).__name__}"
        )
    if max_step_num is not None and (
        isinstance(max_step_num, bool) or not isinstance(max_step_num, int) or max_step_num < 0
    ):
        raise ValueError(
            f"dynamic_decode(): argument 'max_step_num' must be a non-negative "
            f"int or None, got {max_step_num!r}"
        )
    inputs, states, finished = decoder.initialize(inits)
    lengths = _C.full(list(finished.shape), 0, convert_dtype("int64"))
    steps = []
    t = 0
    while not bool(_C.all(finished)):
        time = _C.full([1], t, convert_dtype("int64"))
        out, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        if decoder.tracks_own_finished:
            lengths = getattr(next_states, "lengths", lengths)
        else:
            next_finished = _C.logical_or(next_finished, finished)
            lengths = lengths + _C.cast(_C.logical_not(finished), lengths.dtype)
            if impute_finished:
                keep = finished

                def _keep_old(old, new):
                    mask = keep
                    for _ in range(new.ndim - mask.ndim):
                        mask = _C.unsqueeze(mask, [-1])
                    return _C.where(_C.expand(mask, list(new.shape)), old, new)

                next_states = _map(_keep_old, states, next_states)
        steps.append(out)
        inputs, states, finished = next_inputs, next_states, next_finished
        t += 1
        if max_step_num is not None and t > max_step_num:
            break
    if not steps:
        raise ValueError("dynamic_decode(): every sequence is finished before the first step")
    outputs = _map(lambda *xs: _C.concat([_C.unsqueeze(x, [0]) for x in xs], 0), *steps)
    final_states = states
    try:
        outputs, final_states = decoder.finalize(outputs, final_states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = _map(lambda x: _C.transpose(x, [1, 0] + list(range(2, x.ndim))), outputs)
    if return_length:
        return outputs, final_states, lengths
    return outputs, final_states
