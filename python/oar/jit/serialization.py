"""jit.save / jit.load: a Layer's captured programs as a model file pair (docs/jit.md,
"The file format"): path.oarmodel (JSON: the inference program "eval", the training
program "train" when training runs other ops, the output structure and the state's
names) and path.safetensors (parameters, buffers, constants). No pickle, nothing
executable: src/oar/jit/module.cc reads both, checking every field, from Python and
from C++ alike."""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

import numpy as np

from ..framework.grad_mode import no_grad
from ..nn.layer.layers import Layer
from ..static import InputSpec
from ..tensor.creation import to_tensor
from .capture import StateSnapshot, capture
from .pytree import structure_from_json, structure_to_json
from .static_function import StaticFunction, named_state, written_state
from .translated_layer import TranslatedLayer
from .. import _C

__all__ = ["save", "load", "export_program"]

MODEL_VERSION = 1


def _specs(api: str, layer: Any, input_spec: Sequence[Any] | None) -> list:
    if input_spec is None:
        fwd = getattr(layer, "forward", layer)
        input_spec = getattr(fwd, "input_spec", None)
    if input_spec is None:
        raise ValueError(
            f"{api}(): argument 'input_spec' is required: a list of oar.static.InputSpec "
            f"(or example Tensors) describing the inputs of forward, unless forward was "
            f"decorated with to_static(input_spec=...)"
        )
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(
            f"{api}(): argument 'input_spec' must be a list of InputSpec or Tensor, but got "
            f"{type(input_spec).__name__}"
        )
    specs = []
    for i, s in enumerate(input_spec):
        if isinstance(s, _C.Tensor):
            s = InputSpec.from_tensor(s, name=f"x{i}")
        if not isinstance(s, InputSpec):
            raise TypeError(
                f"{api}(): input_spec[{i}] must be an InputSpec or a Tensor, but got "
                f"{type(s).__name__}"
            )
        specs.append(s)
    return specs


def _example(spec: InputSpec, sizes: dict):
    """An input matching spec: open dimensions get sizes[dim]; floats are normal
    samples, integers and bools zeros (valid indices and masks for any model)."""
    shape = [sizes[d] if s == -1 else s for d, s in enumerate(spec.shape)]
    dt = spec.dtype
    if dt.is_floating_point or dt.is_complex:
        rng = np.random.default_rng(0)
        t = to_tensor(rng.standard_normal(shape).astype("float32")).astype(dt)
    else:
        t = to_tensor(np.zeros(shape, dtype="int64")).astype(dt)
    t.stop_gradient = bool(spec.stop_gradient) if spec.stop_gradient is not None else True
    return t


def _examples(specs: list) -> tuple[tuple, list]:
    """Example inputs and the symbols of their open dimensions: an open first dimension
    is the batch, one symbol shared by every input (size 2); each other open dimension
    is a symbol of its own (sizes 3, 5, 7, ...: different, so no two are confused)."""
    args, batch, others = [], [], []
    for i, s in enumerate(specs):
        sizes = {}
        for d, size in enumerate(s.shape):
            if size != -1:
                continue
            if d == 0:
                sizes[d] = 2
                batch.append((i, d))
            else:
                sizes[d] = 3 + 2 * len(others)
                others.append([(i, d)])
        args.append(_example(s, sizes))
    return tuple(args), ([batch] if batch else []) + others


def _forward_fn(layer: Any):
    """What a saved program captures: a Layer through its __call__ (its forward hooks
    and its layer path, so ops are named from the root as in eager runs; a to_static
    forward runs inline), a function as it is."""
    if isinstance(layer, Layer):
        return layer
    return layer.dygraph_function if isinstance(layer, StaticFunction) else layer


def _capture_modes(
    api: str, layer: Any, specs: list, modes_wanted: tuple = ("eval", "train")
) -> tuple[dict, dict, list]:
    """{mode: (program, consts, structure)} for eval (and train, when it differs)."""
    lay = layer if isinstance(layer, Layer) else None
    fn = _forward_fn(layer)
    state = named_state(lay)
    params = [(n, t) for n, t, *_ in state]
    buffers = written_state(state)
    args, symbols = _examples(specs)
    modes = [s.training for s in lay.sublayers(include_self=True)] if lay else []
    snapshot = StateSnapshot(buffers)
    out: dict = {}
    try:
        for mode in modes_wanted if lay else ("eval",):
            if lay:
                lay.train() if mode == "train" else lay.eval()
            with no_grad():
                cap = capture(fn, args, {}, params, True, symbols, buffers)
            snapshot.restore()
            if cap.specialized:
                raise ValueError(
                    f"{api}(): the dimensions input_spec leaves open (None) could not stay "
                    f"open in the {mode} program: its ops change with them in a way that is "
                    f"not size * scale + offset, or its ops differ with the size; give "
                    f"those dimensions fixed sizes in input_spec"
                )
            out[mode] = cap
    finally:
        if lay:
            for sub, m in zip(lay.sublayers(include_self=True), modes):
                sub.training = m
        snapshot.restore()
    if "train" in out and _same_program(out["train"].program, out["eval"].program):
        del out["train"]
    return out, state, specs


def _same_program(a: dict, b: dict) -> bool:
    return json.dumps(a["ops"]) == json.dumps(b["ops"]) and a["consts"] == b["consts"]


def _model(
    api: str, layer: Any, input_spec, modes: tuple = ("eval", "train")
) -> tuple[dict, list, list]:
    specs = _specs(api, layer, input_spec)
    caps, state, specs = _capture_modes(api, layer, specs, modes)
    aliases: list = []
    named_state(layer if isinstance(layer, Layer) else None, aliases)
    names, tensors = [], []
    for n, t, *_ in state:
        names.append(n)
        tensors.append(t)
    programs, outputs = {}, {}
    for mode, cap in caps.items():
        prog = cap.program
        for i, spec in enumerate(specs):
            prog["inputs"][i]["name"] = spec.name or f"x{i}"
        for i, c in enumerate(prog["consts"]):
            c["name"] = f"{mode}.const.{i}"
            names.append(c["name"])
            tensors.append(cap.consts[i])
        programs[mode] = prog
        outputs[mode] = structure_to_json(cap.out_structure)
    model = {
        "format": "oar.model",
        "version": MODEL_VERSION,
        "programs": programs,
        "python": {
            "outputs": outputs,
            "state": [
                {"name": n, "buffer": buf, "trainable": not t.stop_gradient}
                for n, t, _, _, buf in state
            ]
            + [{"name": n, "alias_of": first} for n, first in aliases],
        },
    }
    return model, names, tensors


def save(layer: Any, path: str, input_spec: Sequence[Any] | None = None, **configs: Any) -> None:
    """Captures layer's forward (in inference mode, and in training mode when that runs
    other ops) from input_spec (InputSpec's None dimensions stay open) and writes
    path.oarmodel and path.safetensors. Graph breaks are errors here (a saved program
    cannot call back into Python)."""
    if not isinstance(path, str) or not path:
        raise TypeError(f"jit.save(): argument 'path' must be a non-empty str, but got {path!r}")
    if not (isinstance(layer, (Layer, StaticFunction)) or callable(layer)):
        raise TypeError(
            f"jit.save(): argument 'layer' must be a Layer or a function, but got "
            f"{type(layer).__name__}"
        )
    model, names, tensors = _model("jit.save", layer, input_spec)
    _C._jit_save(path, json.dumps(model), names, tensors)


def load(path: str, **configs: Any) -> TranslatedLayer:
    """The model jit.save wrote at path, as a TranslatedLayer: callable, with
    parameters, state_dict(), train()/eval(), and fine-tunable."""
    if not isinstance(path, str) or not path:
        raise TypeError(f"jit.load(): argument 'path' must be a non-empty str, but got {path!r}")
    for ext in (".oarmodel", ".safetensors"):
        if not os.path.isfile(path + ext):
            raise FileNotFoundError(f"jit.load(): no model file '{path}{ext}'")
    text, named = _C._jit_load(path)
    model = json.loads(text)
    py = model.get("python", {})
    if not isinstance(py, dict) or not isinstance(py.get("outputs"), dict):
        raise ValueError(f"jit.load(): '{path}.oarmodel' has no output structure ('python')")
    outputs = {m: structure_from_json(s, f"'{path}.oarmodel'") for m, s in py["outputs"].items()}
    return TranslatedLayer(model["programs"], outputs, py.get("state", []), dict(named), path)


def export_program(layer: Any, input_spec: Sequence[Any] | None = None) -> tuple[dict, dict]:
    """(the inference program, {param or constant name: numpy array}): what oar.onnx
    exports from."""
    model, names, tensors = _model("export", layer, input_spec, ("eval",))
    prog = model["programs"]["eval"]
    used = {p["name"] for p in prog["params"]} | {c["name"] for c in prog["consts"]}
    arrays = {n: np.asarray(t) for n, t in zip(names, tensors) if n in used}
    return prog, arrays
