"""Quanter factories: a configuration holds factories (class + arguments), and each
layer gets its own quanter instance from them."""

from __future__ import annotations

import abc
import sys
from functools import partial
from typing import Callable, TypeVar


class ClassWithArguments(metaclass=abc.ABCMeta):
    """Arguments for a class made later; prints as Name(arg,...,key=value)."""

    def __init__(self, *args, **kwargs):
        self._args = args
        self._kwargs = kwargs

    @property
    def args(self):
        return self._args

    @property
    def kwargs(self):
        return self._kwargs

    @abc.abstractmethod
    def _get_class(self):
        pass

    def __str__(self):
        parts = [str(a) for a in self._args] + [f"{k}={v}" for k, v in self._kwargs.items()]
        return f"{type(self).__name__}({','.join(parts)})"

    __repr__ = __str__


class QuanterFactory(ClassWithArguments):
    """Makes one quanter layer per quantized layer: _instance(layer) calls the quanter
    class with (layer, *args, **kwargs)."""

    def _instance(self, layer):
        return partial(self._get_class(), *self._args, **self._kwargs)(layer)


ObserverFactory = QuanterFactory

# the quanter class quanter() decorates, returned unchanged
_Cls = TypeVar("_Cls", bound=type)


def quanter(class_name: str) -> Callable[[_Cls], _Cls]:
    """Class decorator for a BaseQuanter subclass: defines, in the caller's module, a
    factory class named class_name taking the quanter's arguments (without the layer):

        @quanter("CustomizedQuanter")
        class CustomizedQuanterLayer(BaseQuanter): ...

        q_config = QuantConfig(activation=CustomizedQuanter(...), weight=None)
    """
    if not isinstance(class_name, str) or not class_name.isidentifier():
        raise ValueError(
            f"quanter: argument 'class_name' must be an identifier, got {class_name!r}"
        )

    def wrap(target_class):
        factory = type(
            class_name,
            (QuanterFactory,),
            {
                "_get_class": lambda self: target_class,
                "__doc__": f"Factory of {target_class.__name__} quanters.",
            },
        )
        caller = sys._getframe(1).f_globals
        caller[class_name] = factory
        module = sys.modules.get(caller.get("__name__", ""))
        if module is not None and getattr(module, "__dict__", None) is not caller:
            setattr(module, class_name, factory)
        if isinstance(caller.get("__all__"), list):
            caller["__all__"].append(class_name)
        return target_class

    return wrap
