"""ObserveWrapper: a layer with an observer on its input (or output)."""

from __future__ import annotations

from ..nn import Layer


class ObserveWrapper(Layer):
    """Runs observer on the inputs then observed (observe_input=True), or observed then
    observer on its output."""

    def __init__(self, observer, observed, observe_input=True):
        super().__init__()
        self._observer = observer
        self._observed = observed
        self._observe_input = observe_input

    def forward(self, *inputs, **kwargs):
        if self._observe_input:
            return self._observed(self._observer(*inputs), **kwargs)
        return self._observer(self._observed(*inputs, **kwargs))
