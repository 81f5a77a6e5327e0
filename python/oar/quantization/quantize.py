"""Quantization: what QAT and PTQ share (layer replacement, observers, convert)."""

from __future__ import annotations

import abc
import copy

from ..nn import Layer
from .base_quanter import BaseQuanter
from .config import QuantConfig
from ..nn.quant.format import ConvertibleQuantedLayer, LinearQuanterDequanter


class Quantization(metaclass=abc.ABCMeta):
    """Holds a copy of the QuantConfig; quantize(model) prepares the model, convert(model)
    freezes the trained or calibrated quanters into fixed quantize-dequantize layers."""

    def __init__(self, config):
        if not isinstance(config, QuantConfig):
            raise TypeError(
                f"{type(self).__name__}: argument 'config' must be a QuantConfig, "
                f"got {type(config).__name__}"
            )
        self._config = copy.deepcopy(config)

    @abc.abstractmethod
    def quantize(self, model, inplace=False):
        pass

    def _rewrite(self, model):
        """Resolve the configuration on model, swap in the quantized layers and wrap the
        observed leaves; returns model."""
        self._config._specify(model)
        self._convert_to_quant_layers(model, self._config)
        self._insert_activation_observers(model, self._config)
        return model

    def _check_model(self, model):
        if not isinstance(model, Layer):
            raise TypeError(
                f"{type(self).__name__}.quantize: argument 'model' must be an "
                f"oar.nn.Layer, got {type(model).__name__}"
            )

    def convert(self, model, inplace=False, remain_weight=False):
        """Replace every quanter with a LinearQuanterDequanter of its scales, and let each
        quantized layer (QuantedLinear/QuantedConv2D) store its weight quantized: the
        forward pass then computes with fixed scales, as an int8 deployment would."""
        self._check_model(model)
        out = model if inplace else copy.deepcopy(model)
        replaced = {}
        for name, child in out.named_children():
            if isinstance(child, ConvertibleQuantedLayer):
                if not child.converted:
                    child._convert(remain_weight=remain_weight)
            elif isinstance(child, BaseQuanter):
                replaced[name] = LinearQuanterDequanter.from_quanter(child)
            else:
                self.convert(child, inplace=True, remain_weight=remain_weight)
        for name, layer in replaced.items():
            out._sub_layers[name] = layer
        return out

    def _convert_to_quant_layers(self, model, config):
        replaced = {}
        for name, child in model.named_children():
            if config._is_quantifiable(child) and type(child) in config.qat_layer_mappings:
                replaced[name] = config._get_qat_layer(child)
            else:
                self._convert_to_quant_layers(child, config)
        for name, layer in replaced.items():
            model._sub_layers[name] = layer

    def _insert_activation_observers(self, model, config):
        quantized = set(config.qat_layer_mappings.values())
        replaced = {}
        for name, child in model.named_children():
            if config._need_observe(child):
                replaced[name] = config._get_observe_wrapper(child)
            elif type(child) not in quantized:
                self._insert_activation_observers(child, config)
        for name, layer in replaced.items():
            model._sub_layers[name] = layer

    def _details(self):
        return self._config.details()

    def __str__(self):
        return self._details()

    __repr__ = __str__
