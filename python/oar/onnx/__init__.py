"""oar.onnx: Paddle's paddle.onnx. export() writes a Layer as an ONNX model: oar.jit
captures its forward pass as a program of oar's ops, and program_to_onnx() writes each op
as ONNX nodes (docs/onnx.md). The onnx package is needed only when exporting."""

from __future__ import annotations

import os
import warnings
from typing import Any, Mapping, Sequence

from ..jit import export_program
from ._errors import UnsupportedOpError, check_opset

__all__ = ["export", "program_to_onnx", "supported_ops", "UnsupportedOpError"]

# An ONNX protobuf holds at most 2 GB; larger weights go to a file beside the model.
_EXTERNAL_BYTES = 1 << 30


def program_to_onnx(program: Any, tensors: Mapping[str, Any], opset_version: int = 17) -> Any:
    """The ONNX model (onnx.ModelProto) of a captured oar program.

    program: the program as a dict ("format": "oar.program", version 1) or the path of
    its JSON file; tensors: the values of its params and consts by name (numpy arrays
    or oar Tensors); opset_version: the ONNX opset to write, 13 to 18. Raises
    UnsupportedOpError for an op (or a form of one) with no ONNX mapping."""
    check_opset(opset_version, "oar.onnx.program_to_onnx")
    from ._program import program_to_onnx as convert  # imports onnx: an optional dependency

    return convert(program, tensors, opset_version)


def supported_ops() -> list[str]:
    """The op types (oar's op declarations) that export maps to ONNX, sorted; an in-place
    variant (relu_) maps as its op."""
    from ._ops import TABLE  # imports onnx: an optional dependency

    return sorted(TABLE)


def export(
    layer: Any,
    path: str,
    input_spec: Sequence[Any] | None = None,
    opset_version: int = 17,
    **configs: Any,
) -> None:
    """Writes layer as an ONNX model to path + ".onnx" (Paddle's paddle.onnx.export).

    layer: an oar.nn.Layer (or a function) whose forward pass oar.jit captures;
    input_spec: the inputs, as oar.static.InputSpec (a None or -1 size is dynamic) or
    example Tensors; opset_version: 13 to 18 (Paddle's default is 9, which oar does not
    write; oar's is 17). configs: Paddle's extra options are accepted and ignored, with a
    warning naming them."""
    check_opset(opset_version, "oar.onnx.export")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"oar.onnx.export(): argument 'path' must be a str, but got {type(path).__name__}"
        )
    path = os.fspath(path)
    if os.path.basename(path) == "":
        raise ValueError(
            "The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in "
            f"Windows system], but the file_prefix is empty in received path: {path}"
        )
    if configs:
        warnings.warn(
            f"oar.onnx.export(): the options {sorted(configs)} are accepted and ignored",
            stacklevel=2,
        )
    program, tensors = export_program(layer, input_spec)
    model = program_to_onnx(program, tensors, opset_version)
    import onnx  # an optional dependency, needed only to export

    file = path + ".onnx"
    d = os.path.dirname(file)
    if d:
        os.makedirs(d, exist_ok=True)
    size = sum(len(t.raw_data) for t in model.graph.initializer)
    if size > _EXTERNAL_BYTES:
        onnx.save_model(
            model,
            file,
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=os.path.basename(file) + ".data",
        )
    else:
        onnx.save_model(model, file)
