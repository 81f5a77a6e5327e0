"""oar.nn.Layer: the base class of every layer, with Paddle's semantics and names.

Parameters, sub-layers and buffers assigned as attributes are registered in
order; state_dict() keys are their dotted attribute paths (Paddle's structured
names: "fc.weight", "bn._mean"), so a Paddle state dict maps onto the same model
key by key.
"""

from __future__ import annotations

import numpy as np

import collections
import re
import threading

from ... import _C
from ...framework.dtype import convert_dtype
from ...framework.grad_mode import no_grad
from ...framework.param import ParamAttr, Parameter, _set_value, _unique, create_parameter
from .. import initializer as I

__all__ = ["Layer"]

Tensor = _C.Tensor


class HookRemoveHelper:
    """The handle a register_forward_*_hook returns: remove() unregisters the hook."""

    _next_id = 0
    _lock = threading.Lock()

    def __init__(self, hooks):
        self._hooks = hooks
        with HookRemoveHelper._lock:
            self._id = HookRemoveHelper._next_id
            HookRemoveHelper._next_id += 1

    def remove(self):
        self._hooks.pop(self._id, None)


def _snake(name):
    """A class name in snake case as Paddle names layers (Conv2D -> conv2d, ReLU -> re_lu,
    LSTM -> lstm): an underscore before each capitalised word and between a lower-case
    letter and a capital."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


_scopes = threading.local()


def _scope_stack():
    """The (layer, path) pairs running on this thread, outermost first."""
    stack = getattr(_scopes, "stack", None)
    if stack is None:
        stack = _scopes.stack = []
    return stack


def _layer_path(stack, layer):
    """The outermost layer is named by its class; a sub-layer by its attribute name
    in the layer running it (its class name when it is not one of that layer's)."""
    if not stack:
        return type(layer).__name__
    parent, parent_path = stack[-1]
    names = parent.__dict__.get("_child_names")
    name = names.get(id(layer)) if names is not None else None
    if name is None or parent._sub_layers.get(name) is not layer:
        names = {id(child): n for n, child in parent._sub_layers.items()}
        object.__setattr__(parent, "_child_names", names)
        name = names.get(id(layer), type(layer).__name__)
    return f"{parent_path}.{name}"


def _dtype_text(layer):
    """The dtype a layer's repr shows (Linear, Bilinear, PReLU, RReLU): its name, or what
    the last cast was given (see Layer._cast_to)."""
    shown = layer.__dict__.get("_dtype_shown")
    return layer._dtype.name if shown is None else str(shown)


class Layer:
    """Base class of all layers: subclass it, create parameters and sub-layers in
    __init__, compute in forward().

    Args:
        name_scope: the prefix of the layer's full_name() and its parameters' names
            (default: the class name in snake case, e.g. "linear").
        dtype: the default dtype of the layer's parameters ("float32").
    """

    def __init__(self, name_scope=None, dtype="float32"):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_sub_layers", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_non_persistable_buffer_names_set", set())
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_post_hooks", collections.OrderedDict())
        self.training = True
        self._full_name = _unique(name_scope or _snake(type(self).__name__))
        self._dtype = convert_dtype(dtype)
        self._param_counter = {"w": 0, "b": 0}

    # ---- forward ------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs, **kwargs):
        # The layer path ("Net.block1.conv") is recorded on every grad node the
        # forward creates (oar.viz clusters by it; errors and traces name it).
        stack = _scope_stack()
        path = _layer_path(stack, self)
        stack.append((self, path))
        _C._enter_layer(path)
        try:
            # hooks are rare: the empty dicts cost a test each, not a list copy
            if self._forward_pre_hooks:
                for hook in list(self._forward_pre_hooks.values()):
                    r = hook(self, inputs)
                    if r is not None:
                        inputs = r if isinstance(r, tuple) else (r,)
            outputs = self.forward(*inputs, **kwargs)
            if self._forward_post_hooks:
                for hook in list(self._forward_post_hooks.values()):
                    r = hook(self, inputs, outputs)
                    if r is not None:
                        outputs = r
            return outputs
        finally:
            _C._exit_layer()
            stack.pop()

    def register_forward_pre_hook(self, hook):
        """hook(layer, inputs) runs before forward; a non-None result replaces the inputs.
        Returns a handle whose remove() unregisters it."""
        h = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[h._id] = hook
        return h

    def register_state_dict_hook(self, hook):
        """hook(state_dict) runs on what state_dict() returns (with use_hook=True); a
        non-None result replaces it. Returns a handle whose remove() unregisters it."""
        hooks = self.__dict__.get("_state_dict_hooks")
        if hooks is None:
            hooks = collections.OrderedDict()
            object.__setattr__(self, "_state_dict_hooks", hooks)
        h = HookRemoveHelper(hooks)
        hooks[h._id] = hook
        return h

    def register_forward_post_hook(self, hook):
        """hook(layer, inputs, outputs) runs after forward; a non-None result replaces
        the outputs. Returns a handle whose remove() unregisters it."""
        h = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[h._id] = hook
        return h

    # ---- registration ---------------------------------------------------------------
    def full_name(self):
        """The layer's unique name, e.g. "linear_0"."""
        return self._full_name

    def create_parameter(
        self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None, device=None
    ):
        """A new Parameter named after this layer (not registered until assigned to an
        attribute or given to add_parameter). attr=False returns None (no parameter).

        The initializer is, as in Paddle: attr's; else the one set by
        nn.initializer.set_global_initializer (it overrides the layer's default);
        else default_initializer; else XavierUniform (weights) or zeros (biases).

        Args:
            shape: the parameter's shape.
            attr: ParamAttr, its short forms (name, initializer), None or False.
            dtype: default: the layer's dtype.
            is_bias: zeros by default instead of XavierUniform.
            default_initializer: used when attr gives no initializer and no global
                initializer is set.
            device: accepted for Paddle compatibility (oar's parameters are on the CPU).
        """
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        kind = "b" if is_bias else "w"
        name = attr.name or f"{self._full_name}.{kind}_{self._param_counter[kind]}"
        self._param_counter[kind] += 1
        glob = I._global["bias" if is_bias else "weight"]
        init = attr.initializer or glob or default_initializer
        attr = ParamAttr(
            name=name,
            initializer=init,
            learning_rate=attr.learning_rate,
            regularizer=attr.regularizer,
            trainable=attr.trainable,
            need_clip=attr.need_clip,
        )
        return create_parameter(list(shape), dtype or self._dtype, attr=attr, is_bias=is_bias)

    def add_parameter(self, name, parameter):
        """Register parameter (a Parameter or None) under name; returns it."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(
                f"add_parameter: argument 'name' must be a non-empty str without '.', got {name!r}"
            )
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(
                f"add_parameter: argument 'parameter' must be a Parameter (from "
                f"create_parameter) or None, got {type(parameter).__name__}"
            )
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"add_parameter: the layer already has an attribute {name!r}")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Register sublayer (a Layer) under name; returns it."""
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError(
                f"add_sublayer: argument 'sublayer' must be a Layer, got {type(sublayer).__name__}"
            )
        if not isinstance(name, str) or "." in name:
            raise KeyError(f"add_sublayer: argument 'name' must be a str without '.', got {name!r}")
        self._sub_layers[name] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Register a tensor that is state but not a parameter (BatchNorm's running
        statistics). A persistable buffer is in state_dict()."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(
                f"register_buffer: argument 'name' must be a non-empty str "
                f"without '.', got {name!r}"
            )
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"register_buffer: argument 'tensor' must be a Tensor or None, "
                f"got {type(tensor).__name__}"
            )
        if name in self._parameters or name in self._sub_layers:
            raise KeyError(f"register_buffer: {name!r} is already a parameter or sub-layer")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)
        if tensor is not None:
            tensor.persistable = persistable

    def __setattr__(self, name, value):
        d = self.__dict__
        params, layers, buffers = d.get("_parameters"), d.get("_sub_layers"), d.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("Layer.__init__() must be called before assigning parameters")
            for reg in (layers, buffers, d):
                reg.pop(name, None)
            params[name] = value
        elif isinstance(value, Layer):
            if layers is None:
                raise AttributeError("Layer.__init__() must be called before assigning sub-layers")
            for reg in (params, buffers, d):
                reg.pop(name, None)
            layers[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} to parameter {name!r} "
                    f"(a Parameter or None)"
                )
            params[name] = None
        elif layers is not None and name in layers:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} to sub-layer {name!r} (a Layer or None)"
                )
            layers[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign {type(value).__name__} to buffer {name!r} (a Tensor or None)"
                )
            buffers[name] = value
        elif buffers is not None and isinstance(value, Tensor):
            # Paddle: a tensor attribute is a buffer, non-persistable (only
            # register_buffer makes a persistable one)
            d.pop(name, None)
            buffers[name] = value
            self._non_persistable_buffer_names_set.add(name)
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for reg in ("_parameters", "_sub_layers", "_buffers"):
            r = d.get(reg)
            if r is not None and name in r:
                return r[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for reg in (self._parameters, self._sub_layers, self._buffers):
            if name in reg:
                del reg[name]
                self._non_persistable_buffer_names_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(
            set(super().__dir__())
            | set(self._parameters)
            | set(self._sub_layers)
            | set(self._buffers)
        )

    # ---- traversal ------------------------------------------------------------------
    def named_sublayers(
        self, prefix="", include_self=False, layers_set=None, remove_duplicate=True
    ):
        """(dotted name, layer) for every sub-layer, depth first; a layer reachable by
        several paths comes once (remove_duplicate) or once per path. layers_set: layers
        to leave out (it collects those yielded)."""
        if layers_set is None:
            layers_set = set()
        if include_self and (not remove_duplicate or self not in layers_set):
            layers_set.add(self)
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            p = prefix + ("." if prefix else "") + key
            yield from layer.named_sublayers(
                prefix=p,
                include_self=True,
                layers_set=layers_set,
                remove_duplicate=remove_duplicate,
            )

    def sublayers(self, include_self=False):
        """Every sub-layer, depth first."""
        return [l for _, l in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        """(name, layer) of the direct sub-layers."""
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        """The direct sub-layers."""
        for _, layer in self.named_children():
            yield layer

    def named_parameters(self, prefix="", include_sublayers=True):
        """(dotted name, parameter) of every parameter, each once."""
        seen = set()
        layers = (
            self.named_sublayers(prefix=prefix, include_self=True)
            if include_sublayers
            else [(prefix, self)]
        )
        for lp, layer in layers:
            for name, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield lp + ("." if lp else "") + name, p

    def parameters(self, include_sublayers=True):
        """Every parameter (a list, as Paddle returns)."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        """(dotted name, buffer) of every buffer."""
        seen = set()
        layers = (
            self.named_sublayers(prefix=prefix, include_self=True)
            if include_sublayers
            else [(prefix, self)]
        )
        for lp, layer in layers:
            for name, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield lp + ("." if lp else "") + name, b

    def buffers(self, include_sublayers=True):
        """Every buffer."""
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    # ---- state --------------------------------------------------------------------------
    def state_dict(
        self,
        destination=None,
        include_sublayers=True,
        structured_name_prefix="",
        use_hook=True,
        keep_vars=True,
    ):
        """An OrderedDict of every parameter and persistable buffer under its structured
        name ("fc.weight"). The values are the layer's own tensors (not copies)."""
        dest = collections.OrderedDict() if destination is None else destination
        layers = self.named_sublayers(include_self=True) if include_sublayers else [("", self)]
        for lp, layer in layers:
            pre = structured_name_prefix + lp + ("." if lp else "")
            for name, p in layer._parameters.items():
                if p is not None:
                    dest[pre + name] = p
            for name, b in layer._buffers.items():
                if b is not None and name not in layer._non_persistable_buffer_names_set:
                    dest[pre + name] = b
        return self._run_state_dict_hooks(dest) if use_hook else dest

    def _run_state_dict_hooks(self, dest):
        for hook in list(self.__dict__.get("_state_dict_hooks", {}).values()):
            r = hook(dest)
            if r is not None:
                dest = r
        return dest

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy the values of state_dict into the layer's parameters and buffers, in place.

        Args:
            state_dict: {structured name (or parameter name): Tensor or numpy array}.
            use_structured_name: match by structured name (True) or by the parameters'
                own names (False).

        Returns:
            (missing_keys, unexpected_keys): lists of names.
        """
        own = self.state_dict()
        missing, matched = [], set()
        for key, t in own.items():
            k = key if use_structured_name else getattr(t, "name", key)
            if k not in state_dict:
                missing.append(key)
                continue
            v = state_dict[k]
            shape = list(v.shape) if isinstance(v, Tensor) else list(np.shape(v))
            if shape != list(t.shape):
                raise ValueError(
                    f"set_state_dict: {key!r} has shape {shape} in the state "
                    f"dict, {list(t.shape)} in the layer"
                )
            _set_value(t, v)
            matched.add(k)
        unexpected = [k for k in state_dict if k not in matched]
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    def to_static_state_dict(
        self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True
    ):
        """state_dict() plus the non-persistable buffers (every tensor the layer holds)."""
        dest = self.state_dict(
            destination, include_sublayers, structured_name_prefix, use_hook=False
        )
        layers = self.named_sublayers(include_self=True) if include_sublayers else [("", self)]
        for lp, layer in layers:
            pre = structured_name_prefix + lp + ("." if lp else "")
            for name in layer._non_persistable_buffer_names_set:
                b = layer._buffers.get(name)
                if b is not None:
                    dest[pre + name] = b
        return self._run_state_dict_hooks(dest) if use_hook else dest

    # ---- modes, conversion, gradients ----------------------------------------------
    def train(self):
        """Training mode (dropout active, batch statistics) for this layer and its
        sub-layers; returns self."""
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        """Inference mode for this layer and its sub-layers; returns self."""
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def apply(self, fn):
        """fn(layer) on every sub-layer, then on this layer; returns self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def to(self, device=None, dtype=None, blocking=None):
        """Convert the floating parameters and buffers to dtype, in place (the same
        Parameter objects, so optimizers built before keep working). device: only the
        CPU exists."""
        if device is not None and str(device).lower() not in ("cpu", "place(cpu)"):
            raise ValueError(
                f"Layer.to: argument 'device' must be 'cpu' (oar runs on the CPU), got {device!r}"
            )
        if dtype is None:
            return self
        return self._cast_to(dtype, dtype)

    def _cast_to(self, dtype, shown):
        """to(dtype=dtype); shown: what the layers' reprs print as their dtype from now on,
        as Paddle keeps it: to's argument as given ("float64" from to("float64")), a dtype
        from astype and float (paddle.float64)."""
        dtype = convert_dtype(dtype)
        floating = ("float16", "bfloat16", "float32", "float64")
        with no_grad():
            for layer in self.sublayers(include_self=True):
                for reg in (layer._parameters, layer._buffers):
                    for name, t in reg.items():
                        if t is None or t.dtype.name not in floating or t.dtype == dtype:
                            continue
                        if isinstance(t, Parameter):
                            new = Parameter(
                                _C.cast(t, dtype),
                                name=t.name,
                                trainable=t.trainable,
                                learning_rate=t.optimize_attr["learning_rate"],
                                regularizer=t.regularizer,
                                need_clip=t.need_clip,
                            )
                        else:
                            new = _C.cast(t, dtype)
                            new.persistable = t.persistable
                        reg[name] = new
                layer._dtype = dtype
                layer._dtype_shown = shown
        return self

    def float(self):
        return self._cast_to("float32", convert_dtype("float32"))

    def float16(self):
        return self._cast_to("float16", convert_dtype("float16"))

    def bfloat16(self):
        return self._cast_to("bfloat16", convert_dtype("bfloat16"))

    def astype(self, dtype):
        if dtype is None:
            return self
        return self._cast_to(dtype, convert_dtype(dtype))

    def clear_gradients(self, set_to_zero=True):
        """Clear the gradient of every trainable parameter."""
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    # ---- printing -------------------------------------------------------------------
    def extra_repr(self):
        """The layer's own settings for repr (subclasses override)."""
        return ""

    def __repr__(self):
        # Paddle's layout: a one-line extra_repr follows the "(" directly, a multi-line
        # one gets its own indented block (closed by a newline, so sub-layers after it
        # come after an empty line); each sub-layer is "(name): repr", indented by two.
        out = type(self).__name__ + "("
        extra = self.extra_repr().split("\n")
        if len(extra) > 1:
            out += "\n  " + "\n  ".join(extra) + "\n"
        else:
            out += extra[0]
        subs = [
            f"({name}): " + repr(layer).replace("\n", "\n  ")
            for name, layer in self._sub_layers.items()
        ]
        if subs:
            out += "\n  " + "\n  ".join(subs) + "\n"
        return out + ")"
