"""QuantConfig: which quanters each layer of a model gets."""

from __future__ import annotations

import copy

from ..nn import Layer
from .factory import QuanterFactory
from .wrapper import ObserveWrapper
from .. import nn
from ..nn.quant import Stub
from ..nn.quant.qat import QuantedConv2D, QuantedLinear
from ..nn.quant.stub import QuanterStub


def _default_mappings():
    return {Stub: QuanterStub, nn.Linear: QuantedLinear, nn.Conv2D: QuantedConv2D}


def _default_leaves():
    return [nn.ReLU, nn.AvgPool2D]


def _check_factory(who, arg, v):
    if v is not None and not isinstance(v, QuanterFactory):
        raise TypeError(
            f"{who}: argument '{arg}' must be a quanter or observer factory (e.g. "
            f"FakeQuanterWithAbsMaxObserver(...)) or None, got {type(v).__name__}"
        )
    return v


class SingleLayerConfig:
    """The activation and weight quanter factories of one layer."""

    def __init__(self, activation, weight):
        self._activation = activation
        self._weight = weight

    @property
    def activation(self):
        return self._activation

    @property
    def weight(self):
        return self._weight

    def __str__(self):
        return f"activation: {self._activation}\nweight: {self._weight}"


class QuantConfig:
    """The quantization plan of a model: a global (activation, weight) pair of quanter
    factories (both None: nothing unless configured below), refined per layer type
    (add_type_config), per layer name prefix (add_name_config) or per layer instance
    (add_layer_config), later rules winning in that order. add_qat_layer_mapping
    replaces a layer type by a quantized type; add_customized_leaf stops the observer
    insertion from descending into a layer type."""

    def __init__(self, activation, weight):
        _check_factory("QuantConfig", "activation", activation)
        _check_factory("QuantConfig", "weight", weight)
        self._global_config = (
            None if activation is None and weight is None else SingleLayerConfig(activation, weight)
        )
        self._layer2config = {}
        self._prefix2config = {}
        self._type2config = {}
        self._model = None
        self._qat_layer_mapping = _default_mappings()
        self._customized_qat_layer_mapping = {}
        self._customized_leaves = []

    def add_layer_config(self, layer, activation=None, weight=None):
        """Configure these layer instances (a Layer or a list of them)."""
        for one in layer if isinstance(layer, list) else [layer]:
            if not isinstance(one, Layer):
                raise TypeError(
                    f"add_layer_config: argument 'layer' must be a Layer or a list "
                    f"of Layers, got {type(one).__name__}"
                )
            self.add_name_config(one.full_name(), activation=activation, weight=weight)

    def add_name_config(self, layer_name, activation=None, weight=None):
        """Configure the layers whose full_name() is layer_name (a str or a list)."""
        _check_factory("add_name_config", "activation", activation)
        _check_factory("add_name_config", "weight", weight)
        for name in layer_name if isinstance(layer_name, list) else [layer_name]:
            if not isinstance(name, str):
                raise TypeError(
                    f"add_name_config: argument 'layer_name' must be a str or a "
                    f"list of str, got {type(name).__name__}"
                )
            self._prefix2config[name] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        """Configure every layer of these types (a Layer subclass or a list)."""
        _check_factory("add_type_config", "activation", activation)
        _check_factory("add_type_config", "weight", weight)
        for t in layer_type if isinstance(layer_type, list) else [layer_type]:
            if not (isinstance(t, type) and issubclass(t, Layer)):
                raise TypeError(
                    f"add_type_config: argument 'layer_type' must be a Layer "
                    f"subclass or a list of them, got {t!r}"
                )
            self._type2config[t] = SingleLayerConfig(activation, weight)

    def add_qat_layer_mapping(self, source, target):
        """Quantize layers of type source by replacing them with target(layer, config)."""
        for arg, t in (("source", source), ("target", target)):
            if not (isinstance(t, type) and issubclass(t, Layer)):
                raise TypeError(
                    f"add_qat_layer_mapping: argument '{arg}' must be a Layer subclass, got {t!r}"
                )
        self._qat_layer_mapping[source] = target
        self._customized_qat_layer_mapping[source] = target

    def add_customized_leaf(self, layer_type):
        """Treat layers of this type as leaves (observed as a whole)."""
        if not (isinstance(layer_type, type) and issubclass(layer_type, Layer)):
            raise TypeError(
                f"add_customized_leaf: argument 'layer_type' must be a Layer "
                f"subclass, got {layer_type!r}"
            )
        self._customized_leaves.append(layer_type)

    @property
    def customized_leaves(self):
        return self._customized_leaves

    @property
    def qat_layer_mappings(self):
        return self._qat_layer_mapping

    @property
    def default_qat_layer_mapping(self):
        return _default_mappings()

    @property
    def global_config(self):
        return self._global_config

    # ---- used by QAT / PTQ ------------------------------------------------------------
    def _specify(self, model):
        """Resolve the configuration of every sublayer of model."""
        self._model = model
        self._specify_helper(model)
        return self

    def _specify_helper(self, layer):
        for child in layer.children():
            config = self._layer2config.get(layer, self._global_config)
            config = self._type2config.get(type(child), config)
            config = self._prefix2config.get(child.full_name(), config)
            if config is not None:
                self._layer2config[child] = config
            self._specify_helper(child)

    def _get_config_by_layer(self, layer):
        return self._layer2config.get(layer)

    def _is_quantifiable(self, layer):
        return layer in self._layer2config

    def _get_qat_layer(self, layer):
        target = self._customized_qat_layer_mapping.get(
            type(layer), self._qat_layer_mapping.get(type(layer))
        )
        return target(layer, self._get_config_by_layer(layer))

    def _is_leaf(self, layer):
        return (
            type(layer) in _default_leaves()
            or not layer._sub_layers
            or type(layer) in self._customized_leaves
        )

    def _need_observe(self, layer):
        config = self._get_config_by_layer(layer)
        return self._is_leaf(layer) and config is not None and config.activation is not None

    def _get_observe_wrapper(self, layer):
        observer = self._get_config_by_layer(layer).activation._instance(layer)
        return ObserveWrapper(observer, layer)

    def details(self):
        """The model's layers with their resolved configuration (after quantize())."""
        if self._model is None:
            return str(self)
        return self._details(self._model)

    def _details(self, layer):
        lines = []
        for name, child in layer.named_children():
            if child in self._layer2config:
                sub = self._details(child).replace("\n", "\n  ")
                lines.append(f"({name}): {sub}, {self._layer2config[child]}")
        body = "\n  " + "\n  ".join(lines) + "\n" if lines else ""
        return f"{type(layer).__name__}({body})"

    def __deepcopy__(self, memo):
        # factories and layer types are shared; the per-model resolution is not copied
        new = copy.copy(self)
        new._layer2config = {}
        new._model = None
        new._prefix2config = dict(self._prefix2config)
        new._type2config = dict(self._type2config)
        new._qat_layer_mapping = dict(self._qat_layer_mapping)
        new._customized_qat_layer_mapping = dict(self._customized_qat_layer_mapping)
        new._customized_leaves = list(self._customized_leaves)
        return new

    def __str__(self):
        out = f"Global config:\n{self._global_config}\n"
        if self._type2config:
            out += f"Layer type config:\n{self._type2config}\n"
        if self._prefix2config:
            out += f"Layer prefix config: \n{self._prefix2config}\n"
        return out
