"""TranslatedLayer: what jit.load returns — a Layer that runs a saved model's programs,
with the saved parameters and buffers under their original names (so state_dict()
matches the layer that was saved) and trainable: forward records gradients like any
eager op, so backward and an optimizer step fine-tune the loaded model."""

from __future__ import annotations

from typing import Any

from ..framework.param import Parameter
from ..nn.layer.layers import Layer
from .pytree import flatten
from .static_function import ConcreteProgram

__all__ = ["TranslatedLayer"]


class TranslatedLayer(Layer):
    """A model loaded by oar.jit.load (Paddle's paddle.jit.TranslatedLayer)."""

    def __init__(self, programs: dict, outputs: dict, state: list, tensors: dict, path: str):
        super().__init__()
        for entry in state:
            name = entry["name"]
            if "alias_of" in entry:  # a weight shared under another name
                owner, key = self._owner(name)
                first_owner, first_key = self._owner(entry["alias_of"])
                if first_key in first_owner._parameters:
                    owner.add_parameter(key, first_owner._parameters[first_key])
                elif first_key in first_owner._buffers:
                    owner.register_buffer(key, first_owner._buffers[first_key])
                else:
                    raise ValueError(
                        f"jit.load(): '{path}.oarmodel': '{name}' shares '{entry['alias_of']}', "
                        f"which comes later or is missing"
                    )
                continue
            if name not in tensors:
                raise ValueError(f"jit.load(): '{path}.safetensors' has no tensor '{name}'")
            owner, key = self._owner(name)
            t = tensors[name]
            if entry.get("buffer"):
                owner.register_buffer(key, t)
            else:
                owner.add_parameter(key, Parameter(t, trainable=bool(entry.get("trainable", True))))
        what = f"'{path}.oarmodel'"
        self._programs = {
            mode: ConcreteProgram(
                p,
                [tensors[c["name"]] for c in p["consts"]],
                outputs[mode],
                [self._slot(q["name"]) for q in p["params"]],
                f"'{mode}' of {what}",
            )
            for mode, p in programs.items()
        }

    def _owner(self, name: str) -> tuple[Layer, str]:
        """The sub-layer (made on the way) that holds name's last part."""
        *path, key = name.split(".")
        owner: Layer = self
        for part in path:
            sub = owner._sub_layers.get(part)
            if sub is None:
                sub = Layer()
                owner.add_sublayer(part, sub)
            owner = sub
        return owner, key

    def _slot(self, name: str):
        owner, key = self._owner(name)
        if key in owner._buffers:
            return owner, key, True
        if key in owner._parameters:
            return owner, key, False
        raise ValueError(f"jit.load(): the program reads '{name}', which the model does not hold")

    def forward(self, *inputs: Any) -> Any:
        mode = "train" if self.training and "train" in self._programs else "eval"
        tensors: list = []
        flatten(inputs, tensors)
        return self._programs[mode](tensors)
