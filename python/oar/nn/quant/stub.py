"""Stub: an identity layer that QAT replaces by a quanter of its activations."""

from __future__ import annotations

from ..layer.layers import Layer


class Stub(Layer):
    """Identity; with QAT it becomes a QuanterStub running observer (a quanter factory)
    or, if None, the configuration's activation quanter on what passes through."""

    def __init__(self, observer=None):
        super().__init__()
        self._observer = observer

    def forward(self, input):
        return input


class QuanterStub(Layer):
    """What QAT puts in place of a Stub."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._observer = None
        if layer._observer is not None:
            self._observer = layer._observer._instance(layer)
        elif q_config is not None and q_config.activation is not None:
            self._observer = q_config.activation._instance(layer)

    def forward(self, input):
        return self._observer(input) if self._observer is not None else input
