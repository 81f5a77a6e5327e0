"""Containers: Sequential, LayerList, LayerDict, ParameterList, ParameterDict (Paddle's)."""

from __future__ import annotations

import collections

from ...framework.param import Parameter
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict"]


class Sequential(Layer):
    """Sub-layers run in order: Sequential(l1, l2, ...) or Sequential(("name", l1), ...)
    or Sequential(OrderedDict)."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, collections.OrderedDict)):
            layers = tuple(layers[0].items())
        if layers and all(isinstance(l, (tuple, list)) for l in layers):
            for name, layer in layers:
                self.add_sublayer(str(name), layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(*list(self._sub_layers.values())[idx])
        if isinstance(idx, str):
            return self._sub_layers[idx]
        n = len(self._sub_layers)
        if not -n <= idx < n:
            raise IndexError(f"Sequential: index {idx} out of range for {n} layers")
        return list(self._sub_layers.values())[idx % n]

    def __setitem__(self, idx, layer):
        key = list(self._sub_layers)[idx] if isinstance(idx, int) else idx
        self.add_sublayer(key, layer)

    def __delitem__(self, idx):
        key = list(self._sub_layers)[idx] if isinstance(idx, int) else idx
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, layer):
        self.add_sublayer(str(len(self._sub_layers)), layer)
        return self

    def insert(self, index, module):
        """Inserts module before position index (a negative index counts from the end).
        Numbered layers are renumbered; among named ones it takes the first free number."""
        if not isinstance(module, Layer):
            raise TypeError(
                f"Sequential.insert: argument 'module' must be a Layer, got {type(module).__name__}"
            )
        items = list(self._sub_layers.items())
        n = len(items)
        if isinstance(index, bool) or not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index!r} out of range for {n} layers")
        index = index + n if index < 0 else index
        numbered = [k for k, _ in items] == [str(i) for i in range(n)]
        if numbered:
            layers = [l for _, l in items]
            layers.insert(index, module)
            items = [(str(i), l) for i, l in enumerate(layers)]
        else:
            key = next(str(i) for i in range(n + 1) if str(i) not in self._sub_layers)
            items.insert(index, (key, module))
        self._sub_layers.clear()
        self._sub_layers.update(items)
        return self

    def extend(self, sequential):
        """Appends every layer of sequential (any iterable of layers)."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sub-layers, registered (their parameters are the container's)."""

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in sublayers or []:
            self.append(layer)

    def _key(self, idx):
        n = len(self._sub_layers)
        if not isinstance(idx, int) or not -n <= idx < n:
            raise IndexError(f"LayerList: index {idx!r} out of range for {n} layers")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return LayerList(list(self._sub_layers.values())[idx])
        return self._sub_layers[self._key(idx)]

    def __setitem__(self, idx, layer):
        self.add_sublayer(self._key(idx), layer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[int(self._key(idx))]
        self._sub_layers.clear()
        for i, l in enumerate(layers):
            self._sub_layers[str(i)] = l

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def insert(self, index, sublayer):
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._sub_layers.clear()
        for i, l in enumerate(layers):
            self.add_sublayer(str(i), l)

    def extend(self, sublayers):
        for l in sublayers:
            self.append(l)
        return self


class LayerDict(Layer):
    """An ordered dict of sub-layers."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, layer):
        self.add_sublayer(key, layer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        items = sublayers.items() if isinstance(sublayers, (dict, LayerDict)) else sublayers
        for kv in items:
            if len(kv) != 2:
                raise ValueError(f"LayerDict.update: expected (key, layer) pairs, got {kv!r}")
            self.add_sublayer(kv[0], kv[1])


class ParameterList(Layer):
    """A list of parameters, registered."""

    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or []:
            self.append(p)

    def __getitem__(self, idx):
        return list(self._parameters.values())[idx]

    def __setitem__(self, idx, param):
        key = list(self._parameters)[idx]
        self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        if not isinstance(parameter, Parameter):
            raise TypeError(
                f"ParameterList.append: expected a Parameter, got {type(parameter).__name__}"
            )
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class ParameterDict(Layer):
    """Parameters by name, registered with the layer (so they are in parameters() and the
    state dict): ParameterDict({"w": p}) or ParameterDict([("w", p), ...])."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.add_parameter(key, param)

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        """Adds or replaces parameters from a dict, a ParameterDict or (key, parameter) pairs."""
        if isinstance(parameters, (dict, collections.OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        else:
            try:
                pairs = list(parameters)
            except TypeError:
                raise TypeError(
                    f"ParameterDict.update: expected a dict or (key, parameter) "
                    f"pairs, got {type(parameters).__name__}"
                ) from None
        for kv in pairs:
            if not isinstance(kv, (tuple, list)) or len(kv) != 2:
                raise ValueError(
                    f"ParameterDict.update: expected (key, parameter) pairs, got {kv!r}"
                )
            self.add_parameter(kv[0], kv[1])
