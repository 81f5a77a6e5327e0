"""Framework pieces below oar.nn: parameters, checkpoints."""

from .param import LazyGuard, ParamAttr, Parameter, create_parameter  # noqa: F401
