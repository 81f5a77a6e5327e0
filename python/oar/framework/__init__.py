"""Framework pieces below oar.nn: parameters, checkpoints."""
from .param import ParamAttr, Parameter, create_parameter  # noqa: F401
