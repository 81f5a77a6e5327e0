"""The errors of oar.onnx and the opset versions it writes (no import of onnx here)."""

from __future__ import annotations

# The opset versions the exporter writes, each run by the tests with onnxruntime. Not 13:
# its Reshape does not carry a computed shape through ONNX's shape inference, so a model
# reshaped to a run-time size would have outputs of unknown rank.
MIN_OPSET = 14
MAX_OPSET = 18


class UnsupportedOpError(NotImplementedError):
    """An op of the program (or a form of one: an attribute value, a dynamic size) that
    the exporter cannot write as ONNX. op_type and layer say which op and where."""

    def __init__(self, op_type: str, layer: str = "", reason: str = "") -> None:
        self.op_type = op_type
        self.layer = layer
        where = f"in layer '{layer}'" if layer else "outside any layer"
        what = f": {reason}" if reason else " has no ONNX mapping"
        super().__init__(
            f"oar.onnx: op '{op_type}' ({where}){what} (oar.onnx.supported_ops() lists "
            f"the ops that map)"
        )


def check_opset(opset_version: object, api: str) -> int:
    """opset_version as an int in MIN_OPSET..MAX_OPSET, else TypeError/ValueError naming
    api (the function called) and the argument."""
    if isinstance(opset_version, bool) or not isinstance(opset_version, int):
        raise TypeError(
            f"{api}(): argument 'opset_version' must be an int, but got "
            f"{type(opset_version).__name__}"
        )
    if not MIN_OPSET <= opset_version <= MAX_OPSET:
        raise ValueError(
            f"{api}(): argument 'opset_version' must be in {MIN_OPSET}..{MAX_OPSET} "
            f"(the opsets oar writes and tests), but got {opset_version}"
        )
    return opset_version
